package org.jiobench.runner;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** -C's shift, the one rule both the mpi4py launcher's ranks and MPJ Express's use. */
class ReorderShiftTest {
    @ParameterizedTest(name = "{0} of {1} ranks on rank 0's node: shift {2}")
    @CsvSource({
        "2, 4, 2",  // n1 n1 n2 n2 (n1 n2 n1 n2 counts alike: IOR's rule assumes ranks placed node by node)
        "3, 6, 3",  // n1 n1 n1 n2 n2 n2
        "4, 4, 1",  // one node
        "1, 1, 1",
    })
    void looksOneNodesWorthOfRanksOver(int ranksOnFirstNode, int size, int shift) throws IOException {
        assertEquals(shift, World.reorderShift(ranksOnFirstNode, size));
        assertEquals(shift, LauncherWorld.fromControl("1," + size + "," + ranksOnFirstNode + ",0,1,first")
                .reorderShift(), "as the launcher's control tells it");
    }
}
