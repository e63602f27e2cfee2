"""report.html: one self-contained page (figures embedded) to open or attach.

Top to bottom: the key numbers and the headline figure, the other figures, the bandwidth table,
what was run (parameters, environment, hosts, filesystem), and every phase with its verification.
"""
from __future__ import annotations

import base64
import html
import shlex
from collections import Counter
from typing import Iterable, Optional, Sequence

import pandas as pd

from jiobench.model import stats

from .figures import DrawnFigure, figure_slice
from .points import NOT_MEASURED, OPS
from .sweeps import Shortfall, shortfall_line
from .tables import (NOISY, NOISY_NOTE, OVERRUN_MARK, SHORT_MARK, SHORT_NOTE, STATISTICS_NOTE, STONEWALL_MARK,
                     STONEWALL_NOTE, Cells, bandwidth_cells, format_parameter, median_interval_cell, phase_cells, ratio_cell,
                     ratio_explanation)
from .units import format_rate, format_ratio, format_ratio_interval, plural

STYLE = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1b1f24;
       margin: 0 auto; max-width: 1180px; padding: 18px 28px 60px; }
h1 { font-size: 26px; margin: 0 0 2px; }
h2 { font-size: 19px; margin: 34px 0 8px; border-bottom: 1px solid #d0d7de; padding-bottom: 4px; }
h3 { font-size: 16px; margin: 20px 0 6px; }
.lede { color: #57606a; margin: 0 0 10px; }
.status { display: flex; flex-wrap: wrap; gap: 8px; margin: 8px 0 12px; }
.badge { border-radius: 6px; padding: 3px 10px; font-size: 14px; }
.ok { background: #dafbe1; color: #116329; } .warn { background: #fff8c5; color: #7d4e00; }
.bad { background: #ffebe9; color: #a40e26; font-weight: 600; } .info { background: #eaeef2; }
.headline { font-size: 16px; margin: 6px 0 10px; padding: 0; list-style: none; }
.headline li { margin: 2px 0; } .headline b { font-variant-numeric: tabular-nums; }
figure { margin: 10px 0 22px; } figure img { width: 100%; height: auto; border: 1px solid #eaeef2; }
figcaption { color: #57606a; font-size: 13px; }
table { border-collapse: collapse; font-size: 13.5px; margin: 6px 0 10px; }
th, td { padding: 3px 9px; border-bottom: 1px solid #eaeef2; text-align: left; vertical-align: top; }
th { background: #f6f8fa; border-bottom: 1px solid #d0d7de; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
tr.stonewalled td { font-style: italic; color: #7d4e00; }
tr.failed td { color: #a40e26; font-weight: 600; }
tr.warmup td { color: #8c959f; }
.key td.num { font-size: 15px; } .key td:first-child { font-weight: 600; }
.note { color: #57606a; font-size: 13px; }
code { font-size: 12.5px; background: #f6f8fa; padding: 1px 4px; border-radius: 4px; word-break: break-all; }
table.pairs th.name { background: none; border-bottom: 1px solid #eaeef2; font-weight: 600;
                      color: #57606a; white-space: nowrap; }
table.pairs td { padding-right: 26px; }
details summary { cursor: pointer; color: #0969da; margin: 6px 0; }
"""

COMMAND_LINE = "environment.command_line"  # listed apart: long, and different in every run


def _e(text) -> str:
    return html.escape(str(text))


def html_table(cells: Cells, classes: Optional[Sequence[str]] = None, css: str = "") -> str:
    """A table from text cells; `classes` gives each row a CSS class (or '')."""
    head = "".join(f'<th class="num">{_e(h)}</th>' if i in cells.numeric else f"<th>{_e(h)}</th>"
                   for i, h in enumerate(cells.headers))
    body = []
    for index, row in enumerate(cells.rows):
        cls = classes[index] if classes else ""
        tds = "".join(f'<td class="num">{_e(c)}</td>' if i in cells.numeric else f"<td>{_e(c)}</td>"
                      for i, c in enumerate(row))
        body.append(f'<tr class="{cls}">{tds}</tr>' if cls else f"<tr>{tds}</tr>")
    return (f'<table class="{css}">' if css else "<table>") + \
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def _row_classes(frame: pd.DataFrame) -> list[str]:
    warmup = frame["warmup"] if "warmup" in frame else [False] * len(frame)
    return ["failed" if v is False else "warmup" if w else "stonewalled" if s else ""
            for v, s, w in zip(frame["verified"], frame["stonewalled"], warmup)]


def _embedded(figure: DrawnFigure) -> str:
    data = base64.b64encode(figure.image).decode("ascii")
    return (f'<figure><img src="data:image/png;base64,{data}" alt="{_e(figure.title)}">'
            f"<figcaption>{_e(figure.caption)} Files: <a href=\"{_e(figure.png.name)}\">PNG</a>, "
            f"<a href=\"{_e(figure.svg.name)}\">SVG</a>.</figcaption></figure>")


def _status(runs: Sequence[dict], points: pd.DataFrame, phases: pd.DataFrame,
            falls: Sequence[Shortfall]) -> str:
    """Badges a reader must not miss: sweep points without a complete run file, failed
    verification, what the runs warned of, stonewalled and short points, what was checked, runs
    without forks."""
    failed = phases[phases["verified"].map(lambda v: v is False)]
    checked = phases["verified"].map(lambda v: v is True).sum()
    unchecked = phases["verified"].map(lambda v: v is None).sum()
    badges = []
    if falls:
        kinds = ", ".join(sorted({fall.kind for fall in falls}))
        badges.append(f'<span class="badge bad">{plural(len(falls), "sweep point")} {_e(kinds)}: '
                      "named under the figure</span>")
    if len(failed):
        where = ", ".join(sorted({f"{r.approach} {r.op}" for r in failed.itertuples()}))
        badges.append(f'<span class="badge bad">verification FAILED in {plural(len(failed), "phase")}: '
                      f"{_e(where)}</span>")
    if checked:
        badges.append(f'<span class="badge ok">{plural(checked, "phase")} verified</span>')
    if unchecked:
        badges.append(f'<span class="badge info">{plural(unchecked, "phase")} not checked</span>')
    stonewalled = int(points["stonewalled"].sum())
    if stonewalled:
        badges.append(f'<span class="badge warn">{STONEWALL_MARK} {plural(stonewalled, "point")} stonewalled '
                      f"(hollow markers): stopped at the deadline</span>")
    overran = int((points["overran_deadline"] > 0).sum())
    if overran:
        badges.append(f'<span class="badge warn">{OVERRUN_MARK} {plural(overran, "point")} overran the deadline: '
                      "a pause (a stopped or starved rank, a hung file system) is in their rate</span>")
    short = int(points["short"].sum())
    if short:
        badges.append(f'<span class="badge warn">{SHORT_MARK} {plural(short, "point")} short: phases under 50 ms'
                      "</span>")
    noisy = int(points["noisy"].sum())
    if noisy:
        badges.append(f'<span class="badge warn">{plural(noisy, "point")} {NOISY}: the median\'s 95% interval is '
                      f"wide or missing (under the tables: what to do)</span>")
    warned = Counter(warning for run in runs for warning in dict.fromkeys(run.get("warnings", [])))
    for warning, count in warned.items():
        badges.append(f'<span class="badge warn">{plural(count, "run")}: {_e(warning)}</span>')
    unforked = [run["run_id"] for run in runs if run["parameters"].get("forks") == 0]
    if unforked:
        badges.append(f'<span class="badge warn">{plural(len(unforked), "run")} without forks (--forks 0): '
                      "every approach in one JVM, so one's JIT profile can slow the next</span>")
    warmups = int(phases["warmup"].sum())
    if warmups:
        badges.append(f'<span class="badge info">{plural(warmups, "warm-up phase")} kept, never counted</span>')
    return f'<div class="status">{"".join(badges)}</div>'


def _lede(runs: Sequence[dict], points: pd.DataFrame) -> str:
    ranks = sorted(set(points["ranks"]))
    hosts = sorted({h for run in runs for h in run["environment"].get("hosts", [])})
    fsync = {run["parameters"].get("fsync") for run in runs}
    view = ("writes fsync'd: the storage's view" if fsync == {True} else
            "no fsync: page-cache view, the CPU cost of each approach" if fsync == {False} else
            "some runs with fsync, some without")
    started = sorted(str(run.get("started", "")) for run in runs)
    when = started[0][:16].replace("T", " ") + (f" to {started[-1][:16].replace('T', ' ')}"
                                                 if started[-1][:16] != started[0][:16] else "")
    parts = [plural(len(runs), "run"), plural(points["approach"].nunique(), "approach", "approaches"),
             f"{', '.join(map(str, ranks))} ranks",
             f"host {hosts[0]}" if len(hosts) == 1 else plural(len(hosts), "host"),
             view, f"{when} UTC"]
    return f'<p class="lede">{_e(" · ".join(parts))}</p>'


def _level(reference: str) -> str:
    return "C's level" if reference == "c-posix" else f"the level of {reference}"


def _rate(point) -> str:
    mark = STONEWALL_MARK if point["stonewalled"] else ""
    return f"<b>{_e(point['approach'])}</b> {_e(format_rate(point['median']))} MiB/s{mark}"


def _findings(rows: pd.DataFrame, reference: str) -> str:
    """What the op's verdicts against the reference found: faster, at its level, slower. Unclear
    ones are counted, not named: their interval says nothing either way."""
    def named(verdict: str) -> pd.DataFrame:
        return rows[rows["ratio_verdict"] == verdict].sort_values("ratio", ascending=False)

    def ratio(point) -> str:
        return (f"<b>{_e(point['approach'])}</b> {_e(format_ratio(point['ratio']))} "
                f"{_e(format_ratio_interval(point['ratio_ci95_low'], point['ratio_ci95_high']))}")

    parts = [_rate(rows[rows["approach"] == reference].iloc[0])]
    faster, same, slower = named(stats.FASTER), named(stats.SAME), named(stats.SLOWER)
    if not faster.empty:
        parts.append(f"faster than {_e(reference)}: " + ", ".join(ratio(point) for _, point in faster.iterrows()))
    if not same.empty:
        parts.append(f"at {_e(_level(reference))}: " + ", ".join(f"<b>{_e(a)}</b>" for a in same["approach"]))
    if not slower.empty:
        parts.append(f"slower than {_e(reference)}: " + ", ".join(ratio(point) for _, point in slower.iterrows()))
    unclear = int((rows["ratio_verdict"] == stats.UNCLEAR).sum())
    if unclear:
        parts.append(f"{plural(unclear, 'approach', 'approaches')} unclear (in the table)")
    return "; ".join(parts)


def _headline(points: pd.DataFrame, reference: Optional[str], parameters: Sequence[str],
              approaches: Sequence[str]) -> tuple[str, str, str]:
    """The key numbers where the headline figure ends (its largest process count): a sentence
    per op with the findings against the reference (or the medians, where it was not measured),
    a small table, and the words saying where that is."""
    rows, fixed = figure_slice(points, "ranks", ["ranks", *parameters])
    top = rows[rows["ranks"] == rows["ranks"].max()]
    where = ", ".join([f"{top['ranks'].iloc[0]} ranks"] + [f"{p.replace('_', ' ')} {format_parameter(p, v)}"
                                                          for p, v in fixed.items()])
    sentences = []
    for op in OPS:
        rows = top[top["op"] == op].sort_values("median", ascending=False)
        if rows.empty:
            continue
        if (rows["approach"] == reference).any():
            text = _findings(rows, reference)
        else:
            text = "medians " + ", ".join(_rate(point) for _, point in rows.iterrows())
        sentences.append(f"<li><b>{_e(op)}</b>: {text}</li>")

    headers = ["approach"]
    for op in OPS:
        if (top["op"] == op).any():
            headers += [f"{op} MiB/s", f"{op} 95% interval"] + ([f"{op} / {reference}"] if reference else [])
    rows = []
    for approach in approaches:
        mine = top[top["approach"] == approach]
        if mine.empty:
            continue
        row = [approach]
        for op in OPS:
            if not (top["op"] == op).any():
                continue
            point = mine[mine["op"] == op]
            if point.empty:
                row += ["-", "-"] + (["-"] if reference else [])
                continue
            point = point.iloc[0]
            mark = f" {STONEWALL_MARK}" if point["stonewalled"] else ""
            row += [format_rate(point["median"]) + mark, median_interval_cell(point)] + (
                [ratio_cell(point)] if reference else [])
        rows.append(row)
    table = html_table(Cells(headers, rows, frozenset(range(1, len(headers)))), css="key")
    if top["noisy"].any():
        table += f'<p class="note">{_e(NOISY_NOTE)}</p>'
    return (f'<ul class="headline"><li>At {_e(where)}:</li>{"".join(sentences)}</ul>', table, where)


def _printable(text: str) -> str:
    """Without control characters (a C library's version string may end in a NUL)."""
    return "".join(ch for ch in text if ch.isprintable()).strip()


def _flatten(prefix: str, value, out: dict) -> None:
    if isinstance(value, dict) and prefix != "ranks_per_host":
        for key, inner in value.items():
            _flatten(f"{prefix}.{key}" if prefix else key, inner, out)
    elif isinstance(value, dict):
        out[prefix] = ", ".join(f"{host} ×{count}" for host, count in value.items())
    elif prefix == "command_line" and isinstance(value, list):
        out[prefix] = shlex.join(str(v) for v in value)
    elif isinstance(value, list):
        out[prefix] = ", ".join(str(v) for v in value) if value else "-"
    else:
        out[prefix] = "-" if value is None else _printable(str(value))


def _pairs(pairs: Sequence[Sequence[str]], per_row: int = 3, long: int = 40) -> str:
    """Name/value pairs side by side, `per_row` pairs a row, as a settings sheet; a value longer
    than `long` characters gets a row of its own after the others."""
    short = [p for p in pairs if len(p[1]) <= long]
    rows = ["<tr>" + "".join(f'<th class="name">{_e(name)}</th><td>{_e(value)}</td>'
                             for name, value in short[start:start + per_row]) + "</tr>"
            for start in range(0, len(short), per_row)]
    rows += [f'<tr><th class="name">{_e(name)}</th><td colspan="{2 * per_row - 1}">{_e(value)}</td></tr>'
             for name, value in pairs if len(value) > long]
    return f'<table class="pairs"><tbody>{"".join(rows)}</tbody></table>'


def _load_average(values) -> str:
    if isinstance(values, list) and all(isinstance(v, (int, float)) for v in values):
        return "/".join(f"{v:.2f}" for v in values)
    return _printable(str(values))


def noise_text(run: dict) -> str:
    """The run's `noise` (schema 3) in one line: each host's load average when the run started and
    ended, and how far its own calibrate phases strayed; empty where the run file has none."""
    noise = run.get("noise") or {}
    load = noise.get("load_average") or {}
    parts = [f"{when} " + ", ".join(f"{host} {_load_average(values)}" for host, values in load[when].items())
             for when in ("start", "end") if isinstance(load.get(when), dict) and load[when]]
    calibrate = noise.get("calibrate") or {}
    if calibrate.get("slowest_share") is not None:
        widest = calibrate.get("widest_share")
        parts.append("calibrate " + (f"±{widest:.1%}" if widest is not None else "without an interval")
                     + f", at worst {calibrate['slowest_share']:.1%} below its programmed rate")
    return "; ".join(parts)


def _what_was_run(runs: Sequence[dict]) -> str:
    """Parameters and environment: what all runs share once, what differs per run."""
    settings = []
    for run in runs:
        flat = {f"parameters.{name}": ", ".join(map(str, value)) if isinstance(value, list)
                else format_parameter(name, value) for name, value in run["parameters"].items()}
        environment: dict = {}
        _flatten("", run["environment"], environment)
        flat.update({f"environment.{k}": v for k, v in environment.items()})
        settings.append(flat)
    names: list[str] = []
    for flat in settings:
        names.extend(n for n in flat if n not in names and n != COMMAND_LINE)
    common = [n for n in names if len({flat.get(n, "-") for flat in settings}) == 1]
    differing = [n for n in names if n not in common]

    def label(name: str) -> str:
        return name.split(".", 1)[1]

    parts = []
    for section in ("parameters", "environment"):
        rows = [[label(n), settings[0].get(n, "-")] for n in common if n.startswith(section + ".")]
        if rows:
            title = "Parameters" if section == "parameters" else "Environment (JVM, MPI, hosts, filesystem)"
            if len(runs) > 1:
                title += ", the same in every run"
            parts.append(f"<h3>{_e(title)}</h3>" + _pairs(rows))
    noises = [noise_text(run) for run in runs]
    noise = ["noise (load average 1/5/15 min; calibrate)"] if any(noises) else []
    headers = ["run", "started", *(label(n) for n in differing), *noise]
    rows = [[run["run_id"], str(run.get("started", "-")), *(flat.get(n, "-") for n in differing),
             *([text or "-"] if noise else [])] for run, flat, text in zip(runs, settings, noises)]
    parts.append(f"<h3>{'Runs' if len(runs) > 1 else 'Run'}</h3>" + html_table(Cells(headers, rows, frozenset())))
    commands = "".join(
        f"<li><code>{_e(run['run_id'])}</code> <code>{_e(flat.get(COMMAND_LINE, '-'))}</code>"
        f' <span class="note">{_e(run["path"])}</span></li>' for run, flat in zip(runs, settings))
    parts.append(f"<details><summary>Command lines and run files</summary><ul>{commands}</ul></details>")
    return "".join(parts)


def _shortfalls(falls: Sequence[Shortfall]) -> str:
    """The sweep's points the figures lack (or show from a failed run), each with what Slurm and
    its run file say."""
    if not falls:
        return ""
    items = "".join(f"<li>{_e(shortfall_line(fall))}</li>" for fall in falls)
    return (f'<p class="note"><b>Sweep points missing, incomplete or failed ({len(falls)}):</b> missing and '
            "incomplete points are in no figure or table (<code>jiobench sweep --resume DIR</code> runs them "
            "again); a failed point's run file is shown, and its exit code says why.</p>"
            f'<ul class="note">{items}</ul>')


def render(runs: Sequence[dict], points: pd.DataFrame, phases: pd.DataFrame, parameters: Sequence[str],
           reference: Optional[str], approaches: Sequence[str], figures: Sequence[DrawnFigure],
           files: Iterable[str], falls: Sequence[Shortfall] = ()) -> str:
    """The whole page as one string; `falls` are the points of a sweep without a complete run file."""
    headline, key_table, where = _headline(points, reference, parameters, approaches)
    stonewall_note = " ".join(note for note, flag in ((STONEWALL_NOTE, "stonewalled"), (SHORT_NOTE, "short"))
                              if points[flag].any())
    first, others = (figures[0], figures[1:]) if figures else (None, [])
    ignored = ", ".join(sorted(NOT_MEASURED - {"approaches"}))
    sections = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>jiobench report: {_e(', '.join(approaches))}</title><style>{STYLE}</style></head><body>",
        "<h1>jiobench: aggregate file I/O bandwidth</h1>",
        _lede(runs, points),
        _status(runs, points, phases, falls),
        headline,
        _embedded(first) if first else '<p class="note">No figure: no phase has a positive, finite rate.</p>',
        _shortfalls(falls),
        f"<h3>Key numbers ({_e(where)})</h3>",
        key_table,
        f'<p class="note">{_e(ratio_explanation(reference, parameters))} '
        f"Median of the measured repetitions, in MiB/s (2<sup>20</sup> bytes/s), and its 95% interval. "
        f"{_e(stonewall_note)}</p>",
    ]
    if others:
        sections.append("<h2>More figures</h2>")
        sections += [_embedded(figure) for figure in others]
    cells = bandwidth_cells(points, parameters, reference)
    sections += [
        "<h2>Bandwidth per approach, op and process count</h2>",
        f'<p class="note">{_e(STATISTICS_NOTE)} Points reached by several runs pool their phases '
        f"(runs differing only in {_e(ignored)} "
        f"count as the same point). {_e(ratio_explanation(reference, parameters))} "
        f"{_e(stonewall_note)}</p>",
        html_table(cells, _row_classes(points)),
        f'<p class="note">{_e(NOISY_NOTE)}</p>' if points["noisy"].any() else "",
        "<h2>What was run</h2>",
        _what_was_run(runs),
        "<h2>Phases and verification</h2>",
        '<p class="note">One row per approach × op × fork × repetition of each run, warm-up repetitions '
        "in grey. Verified: every rank checked the data it read or wrote (yes), a rank found wrong data (NO), "
        "or nobody checked.</p>",
        html_table(phase_cells(phases, parameters), _row_classes(phases)),
        f'<p class="note">Files next to this page: {_e(", ".join(files))}.</p>',
        "</body></html>",
    ]
    return "\n".join(sections)
