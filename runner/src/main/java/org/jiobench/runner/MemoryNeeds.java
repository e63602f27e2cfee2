package org.jiobench.runner;

import java.util.List;
import org.jiobench.workloads.Approach;
import org.jiobench.workloads.TransferBuffer;

/**
 * What one JVM of a rank holds for its plan: the offsets of every transfer, the arrays of the
 * approaches it runs (all of them at once without forks), their own buffers, and verification's
 * copies and checksums. Checked against the JVM's heap before anything is allocated, so a plan that cannot fit
 * is one line, not an OutOfMemoryError in the middle of a run.
 */
final class MemoryNeeds {
    /** Headroom for the collector, which needs free regions to place large arrays. */
    private static final double USABLE_SHARE_OF_HEAP = 0.75;

    private MemoryNeeds() {
    }

    static long bytes(RunSettings settings, List<Approach> approaches) {
        long transfers = settings.geometry().transfers();
        // Offsets and first elements of the write and the read plan, and the order they are built from.
        long plans = transfers * (4L * Long.BYTES + Integer.BYTES);
        int transferSize = (int) settings.geometry().transferSize();
        int capacity = transferSize * settings.geometry().batchSlots();
        long buffers = 0;
        for (Approach approach : approaches) {
            buffers += TransferBuffer.footprint(approach.dataForm(), capacity)
                    + approach.extraHeapBytes(capacity, settings.approachSettings());
        }
        // The expected and the actual bytes of a transfer, and per transfer the checksums of the
        // ones found right: in the file, and in each approach's buffer.
        long verification = settings.honesty().verify()
                ? 2L * transferSize + (1L + approaches.size()) * Long.BYTES * transfers : 0;
        return plans + buffers + verification;
    }

    /** @param ranksInJvm the ranks whose plans share this heap (MPJ Express's multicore device: all) */
    static void check(RunSettings settings, List<Approach> approaches, long maxHeap, int ranksInJvm)
            throws UsageError {
        long needed = bytes(settings, approaches);
        long together = needed * ranksInJvm;
        if (together <= maxHeap * USABLE_SHARE_OF_HEAP) return;
        long suggested = (long) Math.ceil(together / USABLE_SHARE_OF_HEAP);
        throw new UsageError("the plan needs about " + Sizes.describe(needed) + " of memory per rank (arrays of -t "
                + Sizes.format(settings.geometry().transferSize()) + ", offsets of " + transfersText(settings) + ")"
                + (ranksInJvm > 1 ? ", " + Sizes.describe(together) + " for the " + ranksInJvm + " ranks of this JVM"
                : "") + ", more than this JVM may use (" + Sizes.describe(maxHeap) + "): pass --jvm-args=-Xmx"
                + heapOption(suggested) + " or lower -t, -b or -s");
    }

    /** The check for every JVM the run will start (one rank each): one per approach with forks, one for all without. */
    static void checkEveryJvm(RunSettings settings, long maxHeap) throws UsageError {
        if (settings.schedule().forks() == 0) {
            check(settings, settings.approaches(), maxHeap, 1);
            return;
        }
        for (Approach approach : settings.approaches()) check(settings, List.of(approach), maxHeap, 1);
    }

    private static String transfersText(RunSettings settings) {
        long transfers = settings.geometry().transfers();
        return transfers + " transfer" + (transfers == 1 ? "" : "s");
    }

    /** -Xmx's own notation, rounded up to whole GiB (or MiB under one). */
    private static String heapOption(long bytes) {
        long mib = (bytes + (1 << 20) - 1) >> 20;
        return mib < 1024 ? mib + "m" : (mib + 1023) / 1024 + "g";
    }
}
