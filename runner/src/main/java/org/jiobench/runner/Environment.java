package org.jiobench.runner;

import com.sun.management.HotSpotDiagnosticMXBean;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/** What this rank can tell about where it runs; the launcher adds hosts and MPI. */
final class Environment {
    private Environment() {
    }

    /** HotSpot's flags that name the collector in use, with the name the run file gives it. */
    static final Map<String, String> COLLECTORS = Map.of("UseG1GC", "G1", "UseParallelGC", "Parallel",
            "UseSerialGC", "Serial", "UseZGC", "ZGC", "UseShenandoahGC", "Shenandoah", "UseEpsilonGC", "Epsilon");
    /** An array's header before its first element: 16 bytes with compressed class pointers, HotSpot's default. */
    private static final long ARRAY_HEADER_BYTES = 16;
    /** @param arrayBytes bytes of the transfer array each approach of the rank works on */
    static Map<String, Object> describe(Path target, long arrayBytes) {
        Map<String, Object> jvm = new LinkedHashMap<>();
        jvm.put("name", System.getProperty("java.vm.name"));
        jvm.put("vendor", System.getProperty("java.vm.vendor"));
        jvm.put("version", System.getProperty("java.runtime.version"));
        jvm.put("home", System.getProperty("java.home"));
        List<String> args = new ArrayList<>(ManagementFactory.getRuntimeMXBean().getInputArguments());
        List<String> own = Wire.ownOptions(args);
        jvm.put("args", args);
        jvm.put("jiobench_args", own);
        jvm.put("available_processors", Runtime.getRuntime().availableProcessors());
        jvm.put("threads", threads());
        jvm.put("class_sharing", classSharing());
        jvm.put("heap", heap(arrayBytes));
        Map<String, Object> filesystem = new LinkedHashMap<>();
        Path directory = target.toAbsolutePath().getParent();
        filesystem.put("path", directory.toString());
        filesystem.put("type", filesystemType(directory));
        Map<String, Object> environment = new LinkedHashMap<>();
        environment.put("jvm", jvm);
        environment.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version")
                + " " + System.getProperty("os.arch"));
        environment.put("filesystem", filesystem);
        environment.put("cpu", cpu());
        return environment;
    }

    /**
     * The collector, the heap's limit and G1's region size as the JVM itself reports them, and
     * whether the transfer array is humongous: G1 gives an object of more than half a region regions
     * of its own, starting at a region's first byte, so its elements start 16 bytes past a 4 KiB
     * boundary, where the kernel's copy between the page cache and the array slows sharply
     * (docs/jvm-heap.md).
     */
    static Map<String, Object> heap(long arrayBytes) {
        String collector = COLLECTORS.entrySet().stream()
                .filter(flag -> vmOption(flag.getKey()).map(Boolean::parseBoolean).orElse(false))
                .map(Map.Entry::getValue).findFirst()
                .orElseGet(() -> ManagementFactory.getGarbageCollectorMXBeans().stream()
                        .map(GarbageCollectorMXBean::getName).collect(Collectors.joining(", ")));
        Long region = collector.equals("G1") ? vmOption("G1HeapRegionSize").map(Long::parseLong).orElse(null) : null;
        Map<String, Object> heap = new LinkedHashMap<>();
        heap.put("collector", collector);
        heap.put("max_bytes", Runtime.getRuntime().maxMemory());
        heap.put("region_bytes", region);
        heap.put("transfer_array_bytes", arrayBytes);
        heap.put("transfer_array_humongous", region == null ? null : 2 * (arrayBytes + ARRAY_HEADER_BYTES) > region);
        return heap;
    }

    /**
     * A HotSpot flag's value through the diagnostic bean itself, where this JVM has one (a JDK
     * linked without jdk.management lacks its class): not through the platform's MBean server, whose
     * start registers every platform bean, a cost every rank's and fork's JVM paid at its start.
     */
    private static Optional<String> vmOption(String name) {
        try {
            return Optional.of(ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class).getVMOption(name)
                    .getValue());
        } catch (LinkageError | RuntimeException unknown) {
            return Optional.empty();
        }
    }

    /** This process's threads as Linux counts them (the JVM's own and the runner's), null elsewhere. */
    private static Integer threads() {
        return procStatus("Threads:").map(Integer::valueOf).orElse(null);
    }

    /** A field of /proc/self/status, where there is one. */
    private static Optional<String> procStatus(String field) {
        try {
            return Files.readAllLines(Path.of("/proc/self/status")).stream().filter(line -> line.startsWith(field))
                    .findFirst().map(line -> line.substring(field.length()).trim());
        } catch (IOException | RuntimeException unreadable) {
            return Optional.empty();
        }
    }

    /**
     * The class data sharing archive this JVM mapped at its start, as its memory map shows it:
     * {@code archive}, its path (the JDK's default one, or the runner's own made at build), null where
     * none; {@code app}, whether it is the one -XX:SharedArchiveFile named, which holds the runner's classes.
     */
    static Map<String, Object> classSharing() {
        String archive = null;
        try {
            archive = Files.readAllLines(Path.of("/proc/self/maps")).stream().map(line -> line.split("\\s+", 6))
                    .filter(fields -> fields.length == 6 && fields[5].endsWith(".jsa")).map(fields -> fields[5])
                    .findFirst().orElse(null);
        } catch (IOException | RuntimeException unreadable) {
            // Not Linux, or /proc hidden: unknown.
        }
        Map<String, Object> sharing = new LinkedHashMap<>();
        sharing.put("archive", archive);
        sharing.put("app", archive != null && vmOption("SharedArchiveFile").filter(name -> !name.isEmpty())
                .map(Environment::realPath).filter(Path.of(archive)::equals).isPresent());
        return sharing;
    }

    /**
     * The processor's model as Linux names it, and the processors this rank may run on: its CPU
     * affinity, whatever processors its JVM was told to size itself for.
     */
    private static Map<String, Object> cpu() {
        Map<String, Object> cpu = new LinkedHashMap<>();
        String model = null;
        try {
            List<String> lines = Files.readAllLines(Path.of("/proc/cpuinfo"));
            model = lines.stream().filter(line -> line.startsWith("model name")).findFirst()
                    .map(line -> line.substring(line.indexOf(':') + 1).trim()).orElse(null);
        } catch (IOException | RuntimeException unreadable) {
            // Not Linux, or /proc hidden: the model stays unknown.
        }
        cpu.put("model", model);
        cpu.put("count", procStatus("Cpus_allowed_list:").map(Environment::cpuCount)
                .orElse(Runtime.getRuntime().availableProcessors()));
        return cpu;
    }

    /** The file a path names, as the memory map names it: links resolved. */
    private static Path realPath(String name) {
        try {
            return Path.of(name).toRealPath();
        } catch (IOException | RuntimeException unresolved) {
            return Path.of(name).toAbsolutePath();
        }
    }

    /** The processors of a Linux CPU list, "0-3,8,10-11". */
    static int cpuCount(String list) {
        int count = 0;
        for (String range : list.split(",")) {
            String[] ends = range.trim().split("-");
            count += ends.length == 2 ? Integer.parseInt(ends[1]) - Integer.parseInt(ends[0]) + 1 : 1;
        }
        return count;
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
