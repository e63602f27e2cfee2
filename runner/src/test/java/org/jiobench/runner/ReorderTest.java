package org.jiobench.runner;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** -C's choice of block, the one rule the ranks of every launcher follow, and where -C is refused. */
class ReorderTest {
    private static int[] hosts(String placement) {
        return Arrays.stream(placement.split(" ")).mapToInt(Integer::parseInt).toArray();
    }

    @ParameterizedTest(name = "hosts {0}")
    @ValueSource(strings = {
        "0 0 1 1",          // 2+2, node by node
        "0 1 0 1",          // 2+2, round-robin
        "0 0 1 1 2 2",      // 2+2+2
        "0 1 2 0 1 2",      // 2+2+2, round-robin
        "0 1 1 2 2 2",      // 1+2+3: the largest host holds half
        "0 0 0 1",          // 3+1: more than half on one host
        "0 1 1 1",          // 1+3
        "0 0 0 0 1 2",      // 4+1+1
        "0 1 0 2 0 0",      // 4+1+1, mixed
        "0 0 1",
    })
    void everyRankReadsABlockWrittenOnAnotherHostEachOnceWhereThatCanBe(String placement) {
        int[] hostOfRank = hosts(placement);
        int size = hostOfRank.length;
        List<Integer> readBlockOf = Reorder.readBlockOf(hostOfRank, 0);
        assertEquals(size, readBlockOf.size());
        for (int r = 0; r < size; r++) {
            assertNotEquals(hostOfRank[r], hostOfRank[readBlockOf.get(r)], "rank " + r + " reads " + readBlockOf);
        }
        int largest = Arrays.stream(hostOfRank).map(host -> (int) Arrays.stream(hostOfRank).filter(h -> h == host)
                .count()).max().orElseThrow();
        // Where one host holds more than half, its ranks can only share the others' blocks: as many
        // blocks are read as can be, the others' all and as many of its own as the others have ranks.
        int blocksRead = 2 * largest <= size ? size : 2 * (size - largest);
        assertEquals(blocksRead, new HashSet<>(readBlockOf).size(), "blocks read in " + readBlockOf);
    }

    @Test
    void ranksPlacedNodeByNodeLookOneNodesWorthOverAsIorDoes() {
        assertEquals(List.of(2, 3, 0, 1), Reorder.readBlockOf(hosts("0 0 1 1"), 0));
        assertEquals(List.of(3, 4, 5, 0, 1, 2), Reorder.readBlockOf(hosts("0 0 0 1 1 1"), 0));
    }

    @Test
    void roundRobinPlacementReadsTheNextNodesRank() {
        assertEquals(List.of(1, 0, 3, 2), Reorder.readBlockOf(hosts("0 1 0 1"), 0));
    }

    @Test
    void theHostWithMostRanksSharesTheOthersBlocks() {
        // 3+1: rank 3 alone is on host 1; its block is read three times, and one of host 0's not at all.
        assertEquals(List.of(3, 3, 3, 0), Reorder.readBlockOf(hosts("0 0 0 1"), 0));
        assertEquals(List.of(1, 0, 0, 0), Reorder.readBlockOf(hosts("0 1 1 1"), 0));
    }

    @Test
    void onOneHostEachRankReadsItsNeighbours() {
        assertEquals(List.of(1, 2, 3, 0), Reorder.readBlockOf(hosts("0 0 0 0"), 0));
        assertEquals(List.of(1, 0), Reorder.readBlockOf(hosts("5 5"), 0));
    }

    @ParameterizedTest(name = "-Q {0} on hosts {1}")
    @CsvSource({
        "1, 0 0 1 1, 1 2 3 0",
        "2, 0 1 0 1, 2 3 0 1",
        "3, 0 0 0 0, 3 0 1 2",
    })
    void anOffsetLooksThatManyRanksOverWhateverTheHosts(int offset, String placement, String expected) {
        assertEquals(Arrays.stream(hosts(expected)).boxed().toList(), Reorder.readBlockOf(hosts(placement), offset));
    }

    private static Honesty reordered(boolean dropCache) {
        return new Honesty(false, dropCache, 0, List.of(1, 0), false, false);
    }

    @ParameterizedTest
    @ValueSource(strings = {"fuse.glusterfs", "fuse.sshfs", "fuse", "nfs", "nfs4"})
    void onAFileSystemWhoseClientsMayKeepAnotherNodesOldDataReorderNeedsDropCache(String type) {
        UsageError refused = assertThrows(UsageError.class,
                () -> reordered(false).checkReorderHonest(type, Path.of("/mnt/shared")));
        assertEquals("-C on " + type + " (/mnt/shared) needs --drop-cache: its clients may keep what they cached of a "
                + "block another node has since rewritten, and read it from there", refused.getMessage());
        assertDoesNotThrow(() -> reordered(true).checkReorderHonest(type, Path.of("/mnt/shared")));
        assertDoesNotThrow(() -> new Honesty(false, false, 0, null, false, false)
                .checkReorderHonest(type, Path.of("/mnt/shared")), "without -C");
    }

    @ParameterizedTest
    @ValueSource(strings = {"ext4", "xfs", "tmpfs", "lustre", "gpfs", "fuseblk"})
    void elsewhereReorderRunsWithoutDropCache(String type) {
        assertDoesNotThrow(() -> reordered(false).checkReorderHonest(type, Path.of("/scratch")));
    }
}
