"""The threads a rank holds at their most, by the processors its JVM is sized for (jiobench.run.threads)."""
from __future__ import annotations

from jiobench.run import threads


def test_a_jvm_holds_hotspot_s_gc_workers_for_its_processors():
    assert [threads.gc_workers(n) for n in (1, 2, 8, 16, 64, 128)] == [1, 2, 8, 13, 43, 83]
    assert threads.threads_per_rank(2) == threads.LAUNCHER_THREADS + threads.JVM_THREADS_AT_TWO_PROCESSORS
