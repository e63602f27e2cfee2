"""The kernel's copy between the page cache and user memory by the destination's lead over the
source modulo 4 KiB, and the two ways a read can take around a slow lead: measures them with
bench/copy_alignment.c and keeps the result, or prints the table of kept results with each
figure's ratio to the lead of 0 (docs/jvm-heap.md). The program keeps each figure's median alone,
not its passes, so a ratio has no 95% interval and its verdict is unclear, as bench/ratios.py
shows a ratio without one.

    python bench/copy_alignment.py measure PROGRAM SCRATCH-FILE OUT.json
    python bench/copy_alignment.py table RESULT.json...
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import subprocess
import sys

# 16 is where a G1 humongous array starts; 8 to 56 the slow zone and beyond it; 4080 and 4088 the
# other side of a page.
LEADS = [0, 8, 16, 24, 32, 40, 48, 56, 64, 2048, 4080, 4088]


def cpu_model() -> str:
    with open("/proc/cpuinfo") as info:
        return next((line.split(":", 1)[1].strip() for line in info if line.startswith("model name")), "-")


def measure(program: str, scratch: str, out: str) -> None:
    result = json.loads(subprocess.run([program, scratch, *map(str, LEADS)], check=True, capture_output=True,
                                       text=True).stdout)
    result["machine"] = {"host": platform.node(), "cpu": cpu_model(), "cpus": os.cpu_count(),
                         "kernel": platform.release(),
                         "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                         "load_1min": os.getloadavg()[0]}
    with open(out, "w") as file:
        json.dump(result, file, indent=1)
        file.write("\n")


def ratio_text(value: float) -> str:
    """A ratio of two medians without their passes: no interval, so no verdict but unclear. (Not
    jiobench.model.text.ratio_text: bench/copy-alignment.sh runs this script on a Python without jiobench.)"""
    return f"{value:.2f}x (medians only) unclear"


def table(result: dict) -> list[str]:
    m = result["machine"]
    lines = [f"{m['cpu']} x{m['cpus']}, Linux {m['kernel']}, {m['date']} (load {m['load_1min']:.2f}):",
             f"  median MiB/s of {result['repeats']} passes over a {result['file_bytes'] >> 20} MiB file "
             f"in the page cache, {result['transfer_bytes'] >> 20} MiB a call",
             f"  {'lead (bytes)':>12} {'read':>8}  {'÷ lead 0':<28} {'write':>8}  ÷ lead 0"]
    base = result["leads"][0]
    for row in result["leads"]:
        read, write = ("-", "-") if row is base else (ratio_text(row[key] / base[key])
                                                      for key in ("read_mib_s", "write_mib_s"))
        lines.append(f"  {row['lead']:>12} {row['read_mib_s']:>8.0f}  {read:<28} {row['write_mib_s']:>8.0f}  {write}")
    around = result.get("around")
    if around:
        piece = f"{result['piece_bytes'] >> 20} MiB a piece"
        lines.append(f"  reads that convert nothing, around a lead of {result['around_lead']}:")
        for way, rate in ((f"through a page-aligned buffer, {piece}, copied on", around["through_buffer_read_mib_s"]),
                          (f"landing a cache line on, {piece}, moved down", around["shifted_read_mib_s"])):
            lines.append(f"    {way:<52} {rate:>8.0f}  {ratio_text(rate / base['read_mib_s'])}")
    return lines


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    verbs = parser.add_subparsers(dest="verb", required=True)
    run = verbs.add_parser("measure")
    run.add_argument("program")
    run.add_argument("scratch")
    run.add_argument("out")
    show = verbs.add_parser("table")
    show.add_argument("results", nargs="+")
    options = parser.parse_args(argv)
    if options.verb == "measure":
        measure(options.program, options.scratch, options.out)
        return 0
    for path in options.results:
        with open(path) as file:
            print("\n".join(table(json.load(file))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
