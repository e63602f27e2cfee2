"""How crowded a node's processors are, which sets how often a waiting rank looks."""
from __future__ import annotations

import os
import subprocess
import sys

from jiobench.run import launching, rank


def test_crowding_is_the_ready_tasks_per_processor_and_one_where_they_fit_or_cannot_be_counted(tmp_path, monkeypatch):
    counts = tmp_path / "loadavg"
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    counts.write_text("3.10 2.50 1.20 40/2075 31503\n")
    assert launching.crowding(str(counts)) == 20
    counts.write_text("0.10 0.20 0.30 1/200 31503\n")
    assert launching.crowding(str(counts)) == 1
    counts.write_text("not the kernel's counts\n")
    assert launching.crowding(str(counts)) == 1
    assert launching.crowding(str(tmp_path / "absent")) == 1


def test_a_waiting_rank_looks_less_often_on_crowded_processors_and_never_sleeps_past_the_longest():
    cpus = os.cpu_count() or 1
    # Busy loops, each always ready to run: the kernel's count holds them whenever it is read.
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(8 * cpus)]
    try:
        assert launching.crowding() >= 4
        assert rank.poll_sleep() >= 4 * rank.POLL_SECONDS
        assert rank.poll_sleep() <= rank.SLOW_POLL_SECONDS
    finally:
        for process in busy:
            process.kill()
            process.wait()
