package org.jiobench.workloads;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

class BlockPlanTest {
    @Test
    void sharedFileFollowsIorLayout() {
        BlockPlan plan = new BlockPlan(1, 3, 8, 4, 2, false, TransferOrder.SEQUENTIAL, 1);
        // (s*N + r)*block + j*transfer: s=0 → 8, 12; s=1 → (3+1)*8 = 32, 36
        assertArrayEquals(new long[] {8, 12, 32, 36}, plan.fileOffsets());
        assertArrayEquals(new long[] {2, 3, 8, 9}, plan.firstElements(ElementType.INT));
        assertEquals(48, plan.fileExtent());
    }

    @Test
    void filePerProcessKeepsOnlyOwnBlocksButSharedData() {
        BlockPlan plan = new BlockPlan(1, 3, 8, 4, 2, true, TransferOrder.SEQUENTIAL, 1);
        assertArrayEquals(new long[] {0, 4, 8, 12}, plan.fileOffsets());
        assertArrayEquals(new long[] {2, 3, 8, 9}, plan.firstElements(ElementType.INT));
        assertEquals(16, plan.fileExtent());
    }

    @Test
    void shuffledOrderIsAPermutationSharedByAllRanks() {
        BlockPlan rank0 = new BlockPlan(0, 2, 64, 4, 3, false, TransferOrder.SHUFFLED, 7);
        BlockPlan rank1 = rank0.forRank(1);
        long[] shuffled = rank0.fileOffsets();
        long[] sequential = new BlockPlan(0, 2, 64, 4, 3, false, TransferOrder.SEQUENTIAL, 7).fileOffsets();
        assertNotEquals(Arrays.toString(sequential), Arrays.toString(shuffled));
        long[] sorted = shuffled.clone();
        Arrays.sort(sorted);
        assertArrayEquals(sequential, sorted);
        for (int k = 0; k < shuffled.length; k++) {
            assertEquals(shuffled[k] + 64, rank1.fileOffsets()[k], "rank 1 visits the same transfer of its own block");
        }
    }

    @Test
    void randomOrderDrawsAsManyPositionsOfTheBlockWithReplacementFromTheSeed() {
        BlockPlan rank0 = new BlockPlan(0, 2, 4096, 4, 1, false, TransferOrder.RANDOM, 7);
        long[] drawn = rank0.fileOffsets();
        assertEquals(1024, drawn.length, "as many operations as the block has positions");
        assertTrue(Arrays.stream(drawn).allMatch(offset -> offset >= 0 && offset < 4096 && offset % 4 == 0),
                "every position lies in rank 0's block, on a transfer's boundary");
        long distinct = Arrays.stream(drawn).distinct().count();
        // 1024 draws from 1024 positions leave about 1 - 1/e of them drawn: repeats, and positions never drawn.
        assertTrue(distinct > 550 && distinct < 750, distinct + " distinct positions");
        assertArrayEquals(drawn, new BlockPlan(0, 2, 4096, 4, 1, false, TransferOrder.RANDOM, 7).fileOffsets(),
                "the seed decides the draw");
        assertNotEquals(Arrays.toString(drawn),
                Arrays.toString(new BlockPlan(0, 2, 4096, 4, 1, false, TransferOrder.RANDOM, 8).fileOffsets()));
        long[] rank1 = rank0.forRank(1).fileOffsets();
        for (int k = 0; k < drawn.length; k++) assertEquals(drawn[k] + 4096, rank1[k], "each rank draws alike");
        long[] first = rank0.firstElements(ElementType.INT);
        for (int k = 0; k < drawn.length; k++) assertEquals(drawn[k] / 4, first[k], "the data follows the position");
    }

    @Test
    void rejectsImpossiblePlans() {
        assertThrows(IllegalArgumentException.class, () -> new BlockPlan(0, 1, 10, 4, 1, false, TransferOrder.SEQUENTIAL, 1));
        assertThrows(IllegalArgumentException.class, () -> new BlockPlan(2, 2, 8, 4, 1, false, TransferOrder.SEQUENTIAL, 1));
        assertThrows(IllegalArgumentException.class, () -> new BlockPlan(0, 1, 0, 4, 1, false, TransferOrder.SEQUENTIAL, 1));
        assertThrows(IllegalArgumentException.class, () -> new BlockPlan(0, 1, 8, 4, 0, false, TransferOrder.SEQUENTIAL, 1));
    }
}
