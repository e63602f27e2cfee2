package org.jiobench.workloads;

import java.util.SplittableRandom;

/**
 * Where a rank's transfers go, in IOR's layout: rank r of N, segment s, transfer j sits at
 * {@code (s*N + r)*blockSize + j*transferSize} of the shared file. With one file per process the
 * rank's file holds only its own blocks, {@code s*blockSize + j*transferSize}, but the data stays
 * that of the shared layout, so the two modes write the same values for the same logical place.
 */
public record BlockPlan(int rank, int ranks, long blockSize, long transferSize, int segments,
                        boolean filePerProcess, TransferOrder order, long seed) {

    public BlockPlan {
        if (ranks < 1 || rank < 0 || rank >= ranks) {
            throw new IllegalArgumentException("rank " + rank + " of " + ranks + " does not exist");
        }
        if (blockSize <= 0 || transferSize <= 0 || segments <= 0) {
            throw new IllegalArgumentException("block size, transfer size and segments must be positive");
        }
        if (blockSize % transferSize != 0) {
            throw new IllegalArgumentException("block size " + blockSize + " is not a multiple of transfer size "
                    + transferSize);
        }
        if ((long) segments * (blockSize / transferSize) > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("too many transfers per rank: raise the transfer size");
        }
    }

    public int transfersPerBlock() {
        return (int) (blockSize / transferSize);
    }

    public int transferCount() {
        return segments * transfersPerBlock();
    }

    /** Bytes the file must hold for this plan to read it whole. */
    public long fileExtent() {
        return filePerProcess ? segments * blockSize : (long) segments * ranks * blockSize;
    }

    /** The same plan for the rank whose block this one reads instead (IOR's reorder, -C). */
    public BlockPlan forRank(int otherRank) {
        return new BlockPlan(otherRank, ranks, blockSize, transferSize, segments, filePerProcess, order, seed);
    }

    /** Byte offset in the file of each transfer, in visiting order. */
    public long[] fileOffsets() {
        int[] visit = visitingOrder();
        long[] offsets = new long[visit.length];
        for (int k = 0; k < visit.length; k++) {
            offsets[k] = filePerProcess ? ownFileOffset(visit[k]) : sharedOffset(visit[k]);
        }
        return offsets;
    }

    /** Global index of the first element of each transfer, in visiting order. */
    public long[] firstElements(ElementType type) {
        int[] visit = visitingOrder();
        long[] first = new long[visit.length];
        for (int k = 0; k < visit.length; k++) {
            first[k] = sharedOffset(visit[k]) / type.bytes();
        }
        return first;
    }

    private long sharedOffset(int transfer) {
        long segment = transfer / transfersPerBlock();
        long within = transfer % transfersPerBlock();
        return (segment * ranks + rank) * blockSize + within * transferSize;
    }

    private long ownFileOffset(int transfer) {
        long segment = transfer / transfersPerBlock();
        long within = transfer % transfersPerBlock();
        return segment * blockSize + within * transferSize;
    }

    private int[] visitingOrder() {
        int[] visit = new int[transferCount()];
        for (int k = 0; k < visit.length; k++) visit[k] = k;
        SplittableRandom random = new SplittableRandom(seed);
        if (order == TransferOrder.RANDOM) {
            for (int k = 0; k < visit.length; k++) visit[k] = random.nextInt(visit.length);
        } else if (order == TransferOrder.SHUFFLED) {
            for (int k = visit.length - 1; k > 0; k--) {
                int other = random.nextInt(k + 1);
                int swap = visit[k];
                visit[k] = visit[other];
                visit[other] = swap;
            }
        }
        return visit;
    }
}
