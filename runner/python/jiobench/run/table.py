"""What a run prints: a header, a line per phase as it ends, and the summary table."""
from __future__ import annotations

from typing import Any, Mapping, Optional, Sequence

from ..model import repetitions, stats
from ..model.reduce import OVERRUN_DEADLINE_SHARE, OVERRUN_FLOOR_S, OVERRUN_TRANSFERS, SHORT_PHASE_S
from ..model.text import ratio_text, size_text

# A share of a figure's time worth a sentence under the summary.
BOOKKEEPING_NOTE_SHARE = 0.05




def heap_text(jvm: Mapping[str, Any]) -> Optional[str]:
    """'G1, heap up to 5.9GiB, regions of 4MiB; transfer array 4MiB, humongous; JVM options ...'"""
    heap = jvm.get("heap")
    if not heap:
        return None
    parts = [f"{heap['collector']}, heap up to {heap['max_bytes'] / 2**30:.1f}GiB"]
    if heap.get("region_bytes"):
        parts.append(f"regions of {size_text(heap['region_bytes'])}")
    text = ", ".join(parts) + f"; transfer array {size_text(heap['transfer_array_bytes'])}"
    if heap.get("transfer_array_humongous"):
        text += ", humongous"
    if jvm.get("args"):
        text += f"; JVM options {' '.join(jvm['args'])}"
    return text


def _marks(row: Mapping[str, Any]) -> str:
    marks = []
    if row.get("warmup"):
        marks.append("warm-up")
    if row.get("noisy"):
        marks.append("noisy")
    if row["stonewalled"]:
        marks.append("stonewalled")
    if row.get("overran_deadline_s") is not None:  # a phase
        marks.append(f"OVERRAN DEADLINE by {row['overran_deadline_s']:.1f}s")
    if row.get("overran_deadline"):  # a summary row: how many of its measured phases
        marks.append(f"OVERRAN DEADLINE {row['overran_deadline']} of {row['reps']}")
    if row.get("short"):
        marks.append("short")
    if row["verified"] is False:
        marks.append("VERIFY FAILED")
    elif row["verified"]:
        marks.append("verified")
    return " ".join(marks)


def _layout_text(layout: Optional[Mapping[str, Any]]) -> str:
    """The test file's layout in a few words: GlusterFS's volume, or the stripes of Lustre and CephFS."""
    if not layout:
        return ""
    if "bricks" in layout:
        sharding = f", shards of {size_text(layout['shard_block_size'])}" if layout.get("shard") else ", not sharded"
        return f" ({layout['type'].lower()} volume {layout['volume']} of {layout['bricks']} bricks{sharding})"
    count, size = layout.get("stripe_count"), layout.get("stripe_size")
    if count is None or not size:
        return ""
    objects = f" in objects of {size_text(layout['object_size'])}" if layout.get("object_size") else ""
    servers = f" of {layout['osds']} OSDs" if layout.get("osds") else ""
    return f" ({count} stripe(s) of {size_text(size)}{objects}{servers})"


def repetitions_text(p: Mapping[str, Any]) -> str:
    """How the repetitions were run: forks, warm-up and measured repetitions."""
    forks = p.get("forks", 0)
    jvms = (f"{forks} fork(s), a fresh JVM per approach" if forks
            else "one JVM for all approaches (--forks 0)")
    if p["repetitions"] == "auto":
        measured = (f"measured reps until each median's 95% interval is within ±{100 * p['ci_target']:g}% "
                    f"(at least {stats.MIN_REPS}, at most {p['max_reps']}; time budget {p['time_budget_s']:g} s)")
    else:
        measured = f"{p['repetitions']} measured rep(s) each"
    return f"{jvms}; {p.get('warmup', 0)} warm-up + {measured}"


def run_header(context: Mapping[str, Any]) -> str:
    p = context["parameters"]
    env = context["environment"]
    hosts = ", ".join(f"{host} x{count}" for host, count in context["ranks_per_host"].items())
    target = "no file (calibration only)" if p["approaches"] == ["calibrate"] else (
        f"{p['file']}{' (file per process)' if p['file_per_process'] else ''} on {env['filesystem']['type']}"
        + _layout_text(env["filesystem"].get("layout")))
    return "\n".join([
        f"jiobench: {context['ranks']} ranks via {context['launcher']} on {hosts}; "
        f"{env['jvm']['name']} {env['jvm']['version']}",
        f"  file {target}",
        f"  block {size_text(p['block_size'])} x {p['segments']} segment(s), transfer {size_text(p['transfer_size'])}, "
        f"{p['type']}, {p['order']}"
        + (", fsync" if p["fsync"] else "") + (", reorder" if p["reorder"] else "")
        + (f", deadline {p['deadline_s']}s" if p["deadline_s"] else "")
        + (" with wear-out" if p.get("wear_out") else "") + (", verify" if p["verify"] else ""),
        f"  {repetitions_text(p)}",
        *(f"  jvm: {heap}" for heap in [heap_text(env["jvm"])] if heap),
        *(f"  warning: {warning}" for warning in context.get("warnings", [])),
        "",
    ])


def progress_line(phase: Mapping[str, Any]) -> str:
    where = f"fork {phase.get('fork', 0)} rep {phase['rep']}"
    return (f"{phase['approach']:<22} {phase['op']:<5} {where:<13} {phase['bw_mib_s']:>12.2f} MiB/s"
            f" {phase['seconds']:>9.3f} s  {_marks(phase)}").rstrip()


SUMMARY_HEADER = (f"{'approach':<22} {'op':<5} {'ranks':>5} {'reps':>4} {'Median(MiB/s)':>13} {'95% CI of median':>23}  "
                  f"{'ratio, 95% CI, verdict':<32} {'Mean(MiB/s)':>11} {'StdDev':>9} {'Mean(s)':>8}  notes")


def interval_text(interval: Optional[Sequence[float]]) -> str:
    return f"[{interval[0]:.2f}, {interval[1]:.2f}]" if interval else "-"








def summary_table(rows: Sequence[Mapping[str, Any]]) -> str:
    references = {row["ratio"]["to"] for row in rows if row.get("ratio")}
    lines = ["Summary of measured phases (warm-up excluded): the median of the repetitions, its 95% interval"
             + (f", and the ratio of medians to {references.pop()}" if len(references) == 1 else ""),
             SUMMARY_HEADER]
    for row in rows:
        bw = row["bw_mib_s"]
        lines.append((f"{row['approach']:<22} {row['op']:<5} {row['ranks']:>5} {row['reps']:>4} {bw['median']:>13.2f} "
                      f"{interval_text(row.get('median_ci95')):>23}  {ratio_text(row.get('ratio')):<32} "
                      f"{bw['mean']:>11.2f} {bw['stddev']:>9.2f} {row['seconds_mean']:>8.3f}  {_marks(row)}").rstrip())
    return "\n".join(lines)


def noise_notes(rows: Sequence[Mapping[str, Any]], auto: Optional[Mapping[str, Any]],
                noise: Optional[Mapping[str, Any]]) -> list[str]:
    """Which rows are noisy, why -i auto stopped where it stopped short, and the machine's own noise."""
    notes = []
    noisy = [f"{row['approach']} {row['op']}" for row in rows if row.get("noisy")]
    if noisy:
        notes.append(f"noisy: the 95% interval of the median is wider than ±{100 * stats.NOISY_SHARE:.0f}% of it"
                     + (f" or than -i auto's target (±{100 * auto['ci_target']:g}%)" if auto else "")
                     + f", or there are fewer than {stats.MIN_REPS} repetitions for one ({', '.join(noisy)}): "
                     "run more repetitions (-i N, or -i auto), longer phases (-b), or on a quieter node.")
    short_of_target = [f"{approach} after {stop['reps']} reps because {repetitions.REASONS[stop['reason']]}"
                       for approach, stop in ((auto or {}).get("stopped") or {}).items()
                       if stop["reason"] != repetitions.TARGET]
    if short_of_target:
        notes.append(f"-i auto stopped short of its target: {'; '.join(short_of_target)}.")
    calibrate = (noise or {}).get("calibrate")
    if calibrate and noisy:
        widest = calibrate["widest_share"]
        notes.append("machine: calibrate, which only waits, " + (
            f"varied by ±{100 * widest:.1f}% (its median's interval)" if widest is not None
            else "had too few repetitions for an interval")
            + f" and ran at worst {100 * calibrate['slowest_share']:.1f}% below its programmed rate: noise beyond "
            "that is the approach's own.")
    return notes


def summary_notes(rows: Sequence[Mapping[str, Any]], auto: Optional[Mapping[str, Any]] = None,
                  noise: Optional[Mapping[str, Any]] = None) -> str:
    """What a reader must know about the rows, in sentences under the table."""
    notes = noise_notes(rows, auto, noise)
    overran = [f"{row['approach']} {row['op']} {row['overran_deadline']} of {row['reps']}" for row in rows
               if row.get("overran_deadline")]
    if overran:
        notes.append(f"OVERRAN DEADLINE: the slowest rank of some phases ({', '.join(overran)}) ended more than "
                     f"max({OVERRUN_FLOOR_S:g} s, {OVERRUN_DEADLINE_SHARE:.0%} of the deadline, {OVERRUN_TRANSFERS} of its "
                     "own mean transfer times) past the deadline: its JVM was stopped, starved or swapped out, or the "
                     "file system hung (or, with -e, flushed long); the deadline did not bound those phases and "
                     "their rates count the pause.")
    short = [f"{row['approach']} {row['op']}" for row in rows if row.get("short")]
    if short:
        notes.append(f"short: the slowest rank of some phases took under {SHORT_PHASE_S * 1000:.0f} ms "
                     f"({', '.join(short)}), too short to time well; raise the block size (-b) or the segments (-s) "
                     "so each phase lasts longer.")
    costly = [f"{row['approach']} {row['op']} {100 * row['bookkeeping_share']:.0f}%" for row in rows
              if (row.get("bookkeeping_share") or 0) >= BOOKKEEPING_NOTE_SHARE]
    if costly:
        notes.append(f"bookkeeping: the runner's own loop between transfers, measured with transfers that move "
                     f"nothing, is part of these figures ({', '.join(costly)} of the transfer time, at most); "
                     "small transfers (-t) make it count.")
    crawled = [f"{row['approach']} {row['op']} {row['array_copy_crawls']} of {row['reps']}" for row in rows
               if row.get("array_copy_crawls")]
    if crawled:
        notes.append(f"placement: the heap array an approach moved lay 1 to 31 bytes past a page boundary, where the "
                     f"kernel's copy into it slows on some processors, in measured phases of {', '.join(crawled)} "
                     "(a humongous array lies there always: docs/jvm-heap.md).")
    return "\n".join(notes)
