package org.jiobench.workloads;

import java.nio.file.Path;
import java.util.Optional;

/**
 * Where the ffm approaches come from. Their classes use the Foreign Function &amp; Memory API (final in
 * JDK 22) and are compiled only when the build runs on a JDK 22 or newer (Maven profile {@code ffm},
 * from src/main/java22); on an older JVM, or from a build without it, they stay in the list with
 * the reason they cannot run.
 */
final class Ffm {
    static final String ID = "ffm";
    static final String DESCRIPTION = "the array to a native segment through segment accesses in the file's byte "
            + "order (or MemorySegment.copy), FileChannel positional I/O (JDK 22+)";
    static final String PREAD_ID = "ffm-pread";
    static final String PREAD_DESCRIPTION = "the C library's pread/pwrite called through the FFM API on the array "
            + "itself (critical downcalls), swapping in Java where needed: c-swap in Java (JDK 22+)";

    private Ffm() {
    }

    static Approach approach() {
        return approach(ID, DESCRIPTION, "org.jiobench.workloads.FfmCopy", false);
    }

    static Approach pread() {
        return approach(PREAD_ID, PREAD_DESCRIPTION, "org.jiobench.workloads.FfmPread", true);
    }

    /** @param readsInPlace what the implementation says, told also where it cannot run ({@code --describe}) */
    private static Approach approach(String id, String description, String implementation, boolean readsInPlace) {
        int feature = Runtime.version().feature();
        if (feature < 22) {
            return unavailable(id, description, readsInPlace, "needs a JDK 22 or newer, and this JVM is " + feature);
        }
        Object approach = Java22.instance(implementation);
        return approach != null ? (Approach) approach : unavailable(id, description, readsInPlace,
                "this build had no JDK 22 or newer to compile it (make build with one installed)");
    }

    private static Approach unavailable(String id, String description, boolean readsInPlace, String reason) {
        return new Approach() {
            @Override public String id() { return id; }

            @Override public String description() { return description; }

            @Override public DataForm dataForm() { return DataForm.TYPED; }

            @Override public boolean readsInPlace() { return readsInPlace; }

            @Override public Optional<String> unavailable() { return Optional.of(reason); }

            @Override public TransferIo open(Path file, IoMode mode, TransferBuffer buffer, ApproachSettings settings) {
                throw new IllegalStateException(id + " " + reason);
            }
        };
    }
}
