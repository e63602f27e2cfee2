package org.jiobench.workloads;

import java.nio.file.Path;
import java.util.Optional;

/**
 * Where the ffm approach comes from. Its class uses the Foreign Function &amp; Memory API (final in
 * JDK 22) and is compiled only when the build runs on a JDK 22 or newer (Maven profile {@code ffm},
 * from src/main/java22); on an older JVM, or from a build without it, ffm stays in the list with
 * the reason it cannot run.
 */
final class Ffm {
    static final String ID = "ffm";
    static final String DESCRIPTION = "the array to a native segment through segment accesses in the file's byte "
            + "order (or MemorySegment.copy), FileChannel positional I/O (JDK 22+)";
    private static final String IMPLEMENTATION = "org.jiobench.workloads.FfmCopy";

    private Ffm() {
    }

    static Approach approach() {
        int feature = Runtime.version().feature();
        if (feature < 22) return unavailable("needs a JDK 22 or newer, and this JVM is " + feature);
        Object approach = Java22.instance(IMPLEMENTATION);
        return approach != null ? (Approach) approach
                : unavailable("this build had no JDK 22 or newer to compile it (make build with one installed)");
    }

    private static Approach unavailable(String reason) {
        return new Approach() {
            @Override public String id() { return ID; }

            @Override public String description() { return DESCRIPTION; }

            @Override public DataForm dataForm() { return DataForm.TYPED; }

            @Override public Optional<String> unavailable() { return Optional.of(reason); }

            @Override public TransferIo open(Path file, IoMode mode, TransferBuffer buffer, ApproachSettings settings) {
                throw new IllegalStateException("ffm " + reason);
            }
        };
    }
}
