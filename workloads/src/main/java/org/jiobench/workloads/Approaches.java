package org.jiobench.workloads;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** The one table of approaches: adding an approach touches this list and nothing else. */
public final class Approaches {
    private static final List<Approach> ALL = List.of(
            new RawBytes(),
            new EncodeDecode(),
            new DataStream(),
            new BufferedDataStream(),
            new ByteArrayStream(),
            new BulkJni(),
            new NioBulk(),
            new NioHeap(),
            new Mmap(),
            Ffm.approach(),
            Ffm.pread(),
            new RawStream(),
            new BufferedStream(),
            new DirectBuffering(),
            new CPosix(),
            new CStdio(),
            new CSwap(),
            new Calibrate());

    /** Names that stand for several approaches in {@code -a}. */
    private static final Map<String, List<String>> GROUPS = Map.of(
            "paper", List.of("raw-bytes", "encode-decode", "data-stream", "buffered-data-stream", "byte-array-stream",
                    "bulk-jni"),
            "modern", List.of("nio-bulk", "nio-heap", "mmap", Ffm.ID, Ffm.PREAD_ID),
            "xu-guo", List.of("raw-bytes", "raw-stream", "buffered-stream", "direct-buffering", "bulk-jni", "c-posix",
                    "c-stdio"),
            "all", ALL.stream().map(Approach::id).toList());

    private Approaches() {
    }

    public static List<Approach> all() {
        return ALL;
    }

    public static List<String> groupNames() {
        return List.of("paper", "modern", "xu-guo", "all");
    }

    /** Each group's approach ids, whether this JVM can run them or not, in the order of {@link #groupNames}. */
    public static Map<String, List<String>> groups() {
        Map<String, List<String>> groups = new LinkedHashMap<>();
        for (String name : groupNames()) groups.put(name, GROUPS.get(name));
        return groups;
    }

    public static Approach byId(String id) {
        for (Approach approach : ALL) {
            if (approach.id().equals(id)) return approach;
        }
        throw new IllegalArgumentException("unknown approach '" + id + "' (known: " + String.join(", ", ids())
                + "; groups: " + String.join(", ", groupNames()) + ")");
    }

    /** Expands groups (to what this JVM can run) and drops repeats, keeping the order the user gave. */
    public static List<Approach> resolve(List<String> names) {
        Set<String> ids = new LinkedHashSet<>();
        for (String name : names) {
            if (GROUPS.containsKey(name)) {
                GROUPS.get(name).stream().filter(id -> byId(id).unavailable().isEmpty()).forEach(ids::add);
            } else {
                ids.add(name);
            }
        }
        List<Approach> approaches = new ArrayList<>();
        for (String id : ids) approaches.add(byId(id));
        return approaches;
    }

    private static List<String> ids() {
        return ALL.stream().map(Approach::id).toList();
    }

    /** id → description (and why it cannot run here, if it cannot), for help texts. */
    public static Map<String, String> descriptions() {
        Map<String, String> descriptions = new LinkedHashMap<>();
        for (Approach approach : ALL) {
            descriptions.put(approach.id(), approach.description()
                    + approach.unavailable().map(reason -> " [unavailable: " + reason + "]").orElse(""));
        }
        return descriptions;
    }
}
