"""What a run prints: a header, a line per phase as it ends, and the summary table."""
from __future__ import annotations

from typing import Mapping, Sequence


def _size(n: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB"):
        if n < 1024 or n % 1024:
            return f"{n}{unit}"
        n //= 1024
    return f"{n}PiB"


def _marks(row: Mapping) -> str:
    marks = []
    if row["stonewalled"]:
        marks.append("stonewalled")
    if row["verified"] is False:
        marks.append("VERIFY FAILED")
    elif row["verified"]:
        marks.append("verified")
    return " ".join(marks)


def run_header(context: Mapping) -> str:
    p = context["parameters"]
    env = context["environment"]
    hosts = ", ".join(f"{host} x{count}" for host, count in context["ranks_per_host"].items())
    target = "no file (calibration only)" if p["approaches"] == ["calibrate"] else (
        f"{p['file']}{' (file per process)' if p['file_per_process'] else ''} on {env['filesystem']['type']}")
    return "\n".join([
        f"jiobench: {context['ranks']} ranks via {context['launcher']} on {hosts}; "
        f"{env['jvm']['name']} {env['jvm']['version']}",
        f"  file {target}",
        f"  block {_size(p['block_size'])} x {p['segments']} segment(s), transfer {_size(p['transfer_size'])}, "
        f"{p['type']}, {p['order']}, {p['repetitions']} rep(s)"
        + (", fsync" if p["fsync"] else "") + (", reorder" if p["reorder"] else "")
        + (f", deadline {p['deadline_s']}s" if p["deadline_s"] else "") + (", verify" if p["verify"] else ""),
        "",
    ])


def progress_line(phase: Mapping) -> str:
    return (f"{phase['approach']:<22} {phase['op']:<5} rep {phase['rep']:<3} {phase['bw_mib_s']:>12.2f} MiB/s"
            f" {phase['seconds']:>9.3f} s  {_marks(phase)}").rstrip()


SUMMARY_HEADER = (f"{'approach':<22} {'op':<5} {'ranks':>5} {'Max(MiB/s)':>11} {'Min(MiB/s)':>11} "
                  f"{'Mean(MiB/s)':>11} {'StdDev':>9} {'Mean(s)':>8}  notes")


def summary_table(rows: Sequence[Mapping]) -> str:
    lines = ["Summary of all phases:", SUMMARY_HEADER]
    for row in rows:
        bw = row["bw_mib_s"]
        lines.append((f"{row['approach']:<22} {row['op']:<5} {row['ranks']:>5} {bw['max']:>11.2f} {bw['min']:>11.2f} "
                      f"{bw['mean']:>11.2f} {bw['stddev']:>9.2f} {row['seconds_mean']:>8.3f}  {_marks(row)}").rstrip())
    return "\n".join(lines)
