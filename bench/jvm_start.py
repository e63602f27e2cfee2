#!/usr/bin/env python3
"""A JVM's start CPU with and without the runner's AppCDS archive (jiobench.run.appcds).

    .venv/bin/python bench/jvm_start.py [--runs N] [--java JAVA]     (default 15 runs of each)

Makes an archive from the built jar as `make build` does (in a scratch directory), then runs two
JVMs, each with the JDK's own class archive alone and with the runner's, taking turns so that a
busy spell of the machine falls on both alike: `java -jar jiobench-runner.jar --help`, and the
runner on its own for a one-phase run (calibrate, 1 MiB written in 256 KiB transfers). Prints the
median user+sys CPU seconds of each and their ratio, and the median wall time.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("JIOBENCH_HOME", str(Path(__file__).resolve().parents[1]))

from jiobench.paths import JAR  # noqa: E402
from jiobench.run import appcds  # noqa: E402

ONE_PHASE = ("-a", "calibrate", "-b", "1MiB", "-t", "256KiB", "-i", "1", "--warmup", "0", "-w")


def measure(command: list[str], cwd: str) -> tuple[float, float]:
    """(user+sys CPU seconds of the JVM, its wall seconds)."""
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"jvm_start: {' '.join(command)} failed")
    return usage.ru_utime + usage.ru_stime, time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--java", default=os.environ.get("JIOBENCH_JAVA", "java"))
    options = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="jiobench-jvm-start-") as work:
        archive = Path(work, "runner.jsa")
        appcds.make(options.java, JAR, archive)
        variants = {"the JDK's archive": [], "AppCDS": [f"-XX:SharedArchiveFile={archive}", appcds.QUIET]}
        workloads = {"--help": ["--help"], "a one-phase run": [*ONE_PHASE, "-o", str(Path(work, "x.dat"))]}
        cpu: dict = {}
        wall: dict = {}
        for turn in range(options.runs):
            for workload, args in workloads.items():
                for variant in (list(variants) if turn % 2 == 0 else list(reversed(variants))):
                    used, took = measure([options.java, *variants[variant], "-jar", str(JAR), *args], work)
                    cpu.setdefault((workload, variant), []).append(used)
                    wall.setdefault((workload, variant), []).append(took)
    print(f"{options.runs} runs each, medians; {options.java} ({JAR.name})")
    print(f"{'JVM':18} {'CPU: the JDK archive':>21} {'AppCDS':>8} {'ratio':>6}   {'wall: the JDK archive':>21} {'AppCDS':>8}")
    for workload in workloads:
        plain, shared = (statistics.median(cpu[workload, variant]) for variant in variants)
        plain_wall, shared_wall = (statistics.median(wall[workload, variant]) for variant in variants)
        print(f"{workload:18} {plain:20.3f}s {shared:7.3f}s {shared / plain:6.2f}   {plain_wall:20.3f}s {shared_wall:7.3f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
