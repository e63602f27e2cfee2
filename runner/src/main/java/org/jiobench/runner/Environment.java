package org.jiobench.runner;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/** What this rank can tell about where it runs; the launcher adds hosts and MPI. */
final class Environment {
    private Environment() {
    }

    static Map<String, Object> describe(Path target) {
        Map<String, Object> jvm = new LinkedHashMap<>();
        jvm.put("name", System.getProperty("java.vm.name"));
        jvm.put("vendor", System.getProperty("java.vm.vendor"));
        jvm.put("version", System.getProperty("java.runtime.version"));
        jvm.put("args", ManagementFactory.getRuntimeMXBean().getInputArguments());
        Map<String, Object> filesystem = new LinkedHashMap<>();
        Path directory = target.toAbsolutePath().getParent();
        filesystem.put("path", directory.toString());
        filesystem.put("type", filesystemType(directory));
        Map<String, Object> environment = new LinkedHashMap<>();
        environment.put("jvm", jvm);
        environment.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version")
                + " " + System.getProperty("os.arch"));
        environment.put("filesystem", filesystem);
        return environment;
    }

    /** The type of the nearest existing directory's file system, as the mount table names it (ext4, lustre, ...). */
    static String filesystemType(Path directory) {
        for (Path p = directory; p != null; p = p.getParent()) {
            if (Files.exists(p)) {
                try {
                    return Files.getFileStore(p).type();
                } catch (IOException unknown) {
                    return null;
                }
            }
        }
        return null;
    }
}
