"""The threads a run holds on a node at their most: each rank's (its Python launcher's and its
JVM's, by the processors the JVM is sized for) and the node's besides, which the limits on the
node's threads must leave room for."""
from __future__ import annotations

# Measured with bench/threads.py (Open MPI 4.1, JDK 17, -a all and calibrate, 1 and 8 ranks): a
# rank's Python launcher holds 6 to 8 (its main thread, MPI's, the relays of its JVM's output, the
# liveness watch); its JVM 19 to 21 sized for two processors (HotSpot's VM thread, compilers, G1's
# service, marker and refinement threads, the Java system threads, the runner's own; one more
# since, the watch of the JVM's stalls), more for more processors, as G1 starts workers while its
# heap grows: 24 to 33 for 16 processors, where HotSpot allows 13 workers (ParallelGCThreads),
# which the estimate counts in full. mpirun, its helpers, jiobench run and its guardian hold 10.
LAUNCHER_THREADS = 8
JVM_THREADS_AT_TWO_PROCESSORS = 22
NODE_THREADS = 16


def gc_workers(processors: int) -> int:
    """HotSpot's ParallelGCThreads for a JVM of that many processors: one each up to 8, then 5 for
    every 8 more."""
    return processors if processors <= 8 else 8 + (processors - 8) * 5 // 8


def threads_per_rank(processors: int) -> int:
    """The most threads a rank holds: its launcher and its JVM of that many processors."""
    return LAUNCHER_THREADS + JVM_THREADS_AT_TWO_PROCESSORS + gc_workers(processors) - gc_workers(2)
