"""Prints the job script that `jiobench sweep` renders for one point, as docs/cluster.md shows it:
the sweep that page describes, made in a scratch directory and left unsubmitted."""
from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

HOME = Path(__file__).resolve().parents[1]
SWEEP = ["--procs", "1,2,4", "--vary", "-t=1MiB,4MiB", "--exclusive", "--time", "10",
         "--", "-a", "paper,c-posix", "-b", "64MiB", "-i", "auto", "--time-budget", "20s", "-D", "0.5",
         "-o", "/tmp/jio.dat"]


def main() -> int:
    with tempfile.TemporaryDirectory() as scratch:
        directory = Path(scratch) / "local"
        subprocess.run([str(HOME / "bin" / "jiobench"), "sweep", "--dir", str(directory), *SWEEP],
                       check=True, stdout=subprocess.DEVNULL)
        sys.stdout.write((directory / "jobs" / "p4-n2-t4MiB.sbatch").read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
