package org.jiobench.workloads;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * One way of moving a rank's array to or from its place in the file. The runner opens, transfers
 * and closes through this interface alone, timing each step; an approach keeps its technique to
 * itself.
 */
public interface Approach {
    /** A stable kebab-case id, used in the CLI, the run file and the plots. */
    String id();

    /** One line for {@code --help} and reports. */
    String description();

    /** The form of the array this approach moves. */
    DataForm dataForm();

    /** Why this JVM or build cannot run it (one line), or empty when it can. */
    default Optional<String> unavailable() {
        return Optional.empty();
    }

    /** Whether it writes either byte order ({@code --byte-order}); the DataOutput-based approaches write big-endian only. */
    default boolean writesEitherByteOrder() {
        return true;
    }

    /** Whether it can open its file with O_DIRECT ({@code --direct}). */
    default boolean opensDirect() {
        return false;
    }

    /** Why it cannot run with these settings (one line), beyond what the methods above say; empty when it can. */
    default Optional<String> refusal(ApproachSettings settings) {
        return Optional.empty();
    }

    /**
     * Whether a read can hand the transfer array itself to the kernel, so that where the array
     * lies in the heap shows in its speed (a humongous array under G1, docs/jvm-heap.md).
     */
    default boolean readsInPlace() {
        return false;
    }

    /**
     * Whether the TransferIo it opens runs a batch of transfers its own way (a native loop, one
     * mapping) instead of {@link TransferIo#transferBatch}'s loop, so that the runner leaves that
     * loop out of what it measures as its own cost inside a phase.
     */
    default boolean runsItsOwnBatches() {
        return false;
    }

    /** Its own options, offered as {@code --ID.NAME}. */
    default List<ApproachOption> options() {
        return List.of();
    }

    /**
     * Opens {@code file} for one phase. The file is never truncated: ranks share it.
     *
     * @param buffer the rank's array, which the runner fills before each write and checks after each read
     */
    TransferIo open(Path file, IoMode mode, TransferBuffer buffer, ApproachSettings settings) throws IOException;

    /**
     * Heap an open phase allocates beyond the rank's array (its own buffers and copies), so the
     * runner can refuse a plan that cannot fit before any rank starts.
     *
     * @param arrayBytes the bytes of the rank's array ({@link TransferBuffer#capacity()})
     */
    default long extraHeapBytes(int arrayBytes, ApproachSettings settings) {
        return 0;
    }
}
