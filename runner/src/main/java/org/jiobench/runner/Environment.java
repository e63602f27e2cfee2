package org.jiobench.runner;

import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import javax.management.JMException;
import javax.management.ObjectName;
import javax.management.openmbean.CompositeData;

/** What this rank can tell about where it runs; the launcher adds hosts and MPI. */
final class Environment {
    private Environment() {
    }

    /** HotSpot's flags that name the collector in use, with the name the run file gives it. */
    private static final Map<String, String> COLLECTORS = Map.of("UseG1GC", "G1", "UseParallelGC", "Parallel",
            "UseSerialGC", "Serial", "UseZGC", "ZGC", "UseShenandoahGC", "Shenandoah", "UseEpsilonGC", "Epsilon");
    /** An array's header before its first element: 16 bytes with compressed class pointers, HotSpot's default. */
    private static final long ARRAY_HEADER_BYTES = 16;

    /** @param arrayBytes bytes of the transfer array each approach of the rank works on */
    static Map<String, Object> describe(Path target, long arrayBytes) {
        Map<String, Object> jvm = new LinkedHashMap<>();
        jvm.put("name", System.getProperty("java.vm.name"));
        jvm.put("vendor", System.getProperty("java.vm.vendor"));
        jvm.put("version", System.getProperty("java.runtime.version"));
        jvm.put("args", ManagementFactory.getRuntimeMXBean().getInputArguments());
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

    /** A HotSpot flag's value through the platform's diagnostic bean, where this JVM has one. */
    private static Optional<String> vmOption(String name) {
        try {
            Object option = ManagementFactory.getPlatformMBeanServer().invoke(
                    new ObjectName("com.sun.management:type=HotSpotDiagnostic"), "getVMOption",
                    new Object[] {name}, new String[] {String.class.getName()});
            return Optional.of((String) ((CompositeData) option).get("value"));
        } catch (JMException | RuntimeException unknown) {
            return Optional.empty();
        }
    }

    /** The processor's model as Linux names it, and the processors this JVM may use. */
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
        cpu.put("count", Runtime.getRuntime().availableProcessors());
        return cpu;
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
