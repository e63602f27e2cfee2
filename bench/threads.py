#!/usr/bin/env python3
"""The threads a run's processes hold, as /proc shows them while the run goes on.

    bench/threads.py [--interval SECONDS] -- bin/jiobench run -n 8 -- -a calibrate ...

Runs the command and looks at every process it starts every --interval seconds, then prints, for
each kind of process (a rank's JVM, a rank's Python launcher, the MPI launcher and its daemons,
jiobench run itself), how many there were and the most threads one of them held, and the most
threads the whole run held at once: the figures run/threads.py holds, which limits.py's thread check
counts per rank.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path


KINDS = ("jvm", "launcher", "jiobench run", "mpi and others")


def kind(cmdline: list[str]) -> str:
    """What a process is by its own program (mpirun's command line names the rank's too)."""
    if "-jar" in cmdline and cmdline[cmdline.index("-jar") + 1:][:1] != [] \
            and cmdline[cmdline.index("-jar") + 1].endswith("jiobench-runner.jar"):
        return "jvm"
    module = cmdline[2] if cmdline[1:2] == ["-m"] and len(cmdline) > 2 else None
    if module == "jiobench.run.rank":
        return "launcher"
    if module in ("jiobench.run.cli", "jiobench.run.guardian"):
        return "jiobench run"
    return "mpi and others"


def processes() -> dict[int, tuple[int, int, list[str]]]:
    """pid: (parent, threads, command line) of every process in sight."""
    seen = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            status = Path(entry.path, "status").read_text()
            cmdline = Path(entry.path, "cmdline").read_bytes().decode(errors="replace").split("\0")
        except OSError:
            continue
        fields = dict(line.split(":\t", 1) for line in status.splitlines() if ":\t" in line)
        seen[int(entry.name)] = (int(fields["PPid"]), int(fields["Threads"]), cmdline)
    return seen


def descendants(root: int, table: dict) -> list[int]:
    children = defaultdict(list)
    for pid, (parent, _, _) in table.items():
        children[parent].append(pid)
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children[pid])
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--interval", type=float, default=0.02)
    parser.add_argument("command", nargs=argparse.REMAINDER)
    options = parser.parse_args()
    command = options.command[1:] if options.command[:1] == ["--"] else options.command
    run = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    peaks: dict[int, tuple[str, int]] = {}
    most_at_once = 0
    while run.poll() is None:
        table = processes()
        pids = [pid for pid in descendants(run.pid, table) if pid in table]
        most_at_once = max(most_at_once, sum(table[pid][1] for pid in pids))
        for pid in pids:
            _, threads, cmdline = table[pid]
            # A child is its parent's copy until it execs, and has no command line once it has ended.
            was, most = peaks.get(pid, (KINDS[-1], 0))
            now = kind(cmdline) if any(cmdline) else was
            peaks[pid] = (min(was, now, key=KINDS.index), max(threads, most))
        time.sleep(options.interval)
    by_kind = defaultdict(list)
    for what, threads in peaks.values():
        by_kind[what].append(threads)
    for what in KINDS:
        counts = sorted(by_kind.get(what, []))
        if counts:
            print(f"{what:15} {len(counts):4} processes, threads each: median {counts[len(counts) // 2]}, most {counts[-1]}")
    print(f"{'all at once':15} {most_at_once} threads at most (exit code {run.returncode})")
    return run.returncode


if __name__ == "__main__":
    sys.exit(main())
