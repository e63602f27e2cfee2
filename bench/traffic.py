"""What a run's ranks sent each other, as Open MPI's own traffic monitor counted it.

Under `mpirun --mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3
--mca pml_monitoring_filename DIR/prof` (given through `jiobench run --launcher-args`) every rank
writes DIR/prof.RANK.prof at its MPI_Finalize: a line per peer it sent to, `E SRC DST N bytes M
msgs sent` for the program's own point-to-point messages (here: the heartbeats) and `I ...` for
those the collectives made. Measured from outside the run, it cannot agree with the run by
construction.
"""
from __future__ import annotations

import json
import re
import sys
from pathlib import Path

MONITORING_ARGS = ("--mca pml_monitoring_enable 2 --mca pml_monitoring_enable_output 3 "
                   "--mca pml_monitoring_filename {prefix}")
LINE = re.compile(r"^([EI])\t(\d+)\t(\d+)\t(\d+) bytes\t(\d+) msgs sent")


def monitoring_args(prefix: Path) -> str:
    """The launcher arguments that make every rank write PREFIX.RANK.prof."""
    return MONITORING_ARGS.format(prefix=prefix)


def traffic(prefix: Path) -> dict:
    """Bytes and messages sent, summed over every rank's profile: `collective_*` (I lines),
    `point_to_point_*` (E lines), `ranks` (how many profiles), and `rank_0_received_bytes`: what
    the collectives brought rank 0 (the heartbeats, which a longer run sends more of, left out)."""
    totals = {"collective_bytes": 0, "collective_messages": 0, "point_to_point_bytes": 0,
              "point_to_point_messages": 0, "rank_0_received_bytes": 0, "ranks": 0}
    for profile in prefix.parent.glob(f"{prefix.name}.*.prof"):
        totals["ranks"] += 1
        for line in profile.read_text().splitlines():
            match = LINE.match(line)
            if not match:
                continue
            kind = "collective" if match[1] == "I" else "point_to_point"
            totals[f"{kind}_bytes"] += int(match[4])
            totals[f"{kind}_messages"] += int(match[5])
            if match[1] == "I" and match[3] == "0":
                totals["rank_0_received_bytes"] += int(match[4])
    return totals


def main(argv=None) -> int:
    """`traffic.py --args PREFIX`: the launcher arguments; `traffic.py PREFIX`: the totals, as JSON."""
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["--args"]:
        print(monitoring_args(Path(args[1])))
    else:
        json.dump(traffic(Path(args[0])), sys.stdout, indent=1)
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
