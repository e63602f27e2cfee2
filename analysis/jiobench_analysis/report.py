"""`jiobench report`: run files in, tables, figures and report.html out; or two sets compared.

    jiobench report RESULTS... [-o DIR]
    jiobench report --compare A B [-o DIR]

`main(argv)` is what `bin/jiobench report ...` calls; it returns the exit code.
"""
from __future__ import annotations

import argparse
import os
import sys
import textwrap
from pathlib import Path
from typing import Optional, Sequence

from jiobench.model import stats
from jiobench.model.reduce import reference_approach

from .compare import compare, compare_cells, matched, notes, shared_parameters, write_compare
from .figures import draw_figures, setting_line
from .operations import draw_preset_figure
from .output import output_directory
from .page import render
from .points import approach_order, bandwidth_points, phase_rows, varied_parameters
from .runs import SCHEMA, ReportError, load_runs
from .stragglers import draw_straggler_figure
from .sweeps import presets, shortfall_line, shortfalls
from .tables import NOISY_NOTE, OVERRUN_NOTE, SHORT_NOTE, STONEWALL_MARK, VERDICT_RULE, write_tables
from .terminal import summary_table, text_table, wrap
from .units import plural

PROG = "jiobench report"

def _paragraphs(*texts: str) -> str:
    """--help text in 80 columns, whatever the length of the names filled in."""
    return "\n\n".join(textwrap.fill(text, 79) for text in texts)


DESCRIPTION = _paragraphs(
    "Aggregate-bandwidth report of jiobench runs: report.html (figures embedded), the figures as PNG "
    "and SVG, the tables as Markdown and CSV, and a summary on the terminal.",
    f"RESULTS are run files (<run-id>.json, schema {SCHEMA}) or directories searched recursively for "
    "them; a sweep's directory (jiobench sweep) gives the complete run files of its points, and the "
    "report names its points that have none. Runs at the same approach, op, process count, parameters "
    "and JVM pool their repetitions.",
    "The figure of a point is the median MiB/s of its measured repetitions, with its 95% interval from "
    f"order statistics (none under {stats.MIN_REPS} repetitions). The ratio column compares each approach "
    "with c-posix at the same point (with raw-bytes when the runs hold no c-posix; calibrate has none): "
    "the ratio of the medians, its 95% interval from the bootstrap (BCa) and a verdict, "
    f"{VERDICT_RULE}.",
    NOISY_NOTE)

EPILOG = _paragraphs(
    "--compare A B: A and B are each a run file or a directory of runs (before/after a JDK upgrade, "
    "say). For every point (approach, op, ranks, transfer size) it prints B/A, the ratio of the median "
    "MiB/s, with its 95% interval and a verdict as above. With -o it also writes compare.md and "
    "compare.csv.",
    "Exit codes: 0 done, 2 a mistake in the input (the message says which).")


class _Usage(ReportError):
    """A mistake on the command line."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, not argparse's usage block
        raise _Usage(f"{message} (see {PROG} --help)")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description=DESCRIPTION, epilog=EPILOG,
                     usage=f"{PROG} RESULTS... [-o DIR]\n       {PROG} --compare A B [-o DIR]",
                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", nargs="*", metavar="RESULTS",
                        help="run files or directories of run files")
    parser.add_argument("-o", "--output", metavar="DIR", type=Path,
                        help="where to write the report (default for a report: ./report; "
                             "--compare writes files only when given)")
    parser.add_argument("--compare", nargs=2, metavar=("A", "B"),
                        help="compare two sets of runs: B/A of median MiB/s per point, with its interval "
                             "and verdict")
    return parser


def make_report(inputs: Sequence[str], out_dir: Path) -> Path:
    """Reads the runs, writes tables, figures and report.html into `out_dir`, prints the
    terminal summary; returns the path of report.html."""
    runs = load_runs(inputs)
    falls = shortfalls(inputs)
    parameters = varied_parameters(runs)
    points = bandwidth_points(runs, parameters)
    approaches = approach_order(runs)
    reference = reference_approach(approaches)
    phases = phase_rows(runs, parameters)
    setting = setting_line(runs, parameters)
    with output_directory(out_dir) as out:
        written = write_tables(points, phases, parameters, reference, out)
        # A preset sweep's paper figure leads: it is what the sweep was made for.
        figures = [figure for figure in (draw_preset_figure(points, runs, parameters, approaches, reference, out,
                                                            setting, preset) for preset in presets(inputs)) if figure]
        figures += draw_figures(points, parameters, approaches, reference, out, setting)
        stragglers = draw_straggler_figure(runs, approaches, reference, out)
        if stragglers:
            figures.append(stragglers)
        for figure in figures:
            written += [figure.png, figure.svg]
        page = out.write("report.html", render(runs, points, phases, parameters, reference, approaches, figures,
                                               [path.name for path in written], falls))
    print(summary_table(points, parameters, reference))
    counts = points["ranks"].unique()
    print("\n" + wrap(plural(len(runs), "run") + (f" at {plural(counts[0], 'rank')}" if len(counts) == 1 else "")
                      + "; MiB/s: median of the measured repetitions"
                      + (f"; /{reference}: ratio of the medians to {reference} at the same point, its 95% "
                         f"interval (BCa bootstrap) and verdict: {VERDICT_RULE}" if reference else "")
                      + (f"; {STONEWALL_MARK} stonewalled: the phase stopped at its deadline"
                         if points["stonewalled"].any() else "")
                      + (f"; {OVERRUN_NOTE}" if (points["overran_deadline"] > 0).any() else "")
                      + (f"; {SHORT_NOTE}" if points["short"].any() else ".")))
    if points["noisy"].any():
        print(wrap(NOISY_NOTE))
    if falls:
        print(f"\nSweep points missing, incomplete or failed ({len(falls)}):")
        print("\n".join(f"  {shortfall_line(fall)}" for fall in falls))
    print(page)
    return page


def make_comparison(a: str, b: str, out_dir: Optional[Path]) -> None:
    """Prints the points both A and B measured, B/A with its interval and verdict; with `out_dir`,
    writes compare.md and compare.csv (every point, also those only one side measured)."""
    table, parameters = compare(load_runs([a]), load_runs([b]))
    both = matched(table)
    if both.empty:
        raise ReportError(f"{a} and {b} have no point (approach, op, ranks, transfer size) in common")
    cells = compare_cells(both, parameters)
    shared = shared_parameters(both, parameters)
    print(f"A: {a}\nB: {b}\n" + (f"At every point: {shared}\n" if shared else ""))
    print(text_table(cells.headers, cells.rows, cells.numeric))
    only_a, only_b = table["b_median"].isna().sum(), table["a_median"].isna().sum()
    one_sided = f" Measured by one side only: {only_a} points in A, {only_b} in B." if only_a or only_b else ""
    print("\n" + wrap(f"{notes(both)}{one_sided}"))
    if out_dir is not None:
        with output_directory(out_dir) as out:
            for path in write_compare(table, parameters, (a, b), out):
                print(path)


def main(argv: Optional[Sequence[str]] = None) -> int:
    try:
        args = _parser().parse_args(argv)
        if args.compare and args.results:
            raise _Usage(f"give either RESULTS or --compare A B, not both (see {PROG} --help)")
        if args.compare:
            make_comparison(*args.compare, args.output)
        elif not args.results:
            raise _Usage(f"no RESULTS given: name run files or directories (see {PROG} --help)")
        else:
            make_report(args.results, args.output or Path("report"))
    except SystemExit as done:  # --help
        return done.code if isinstance(done.code, int) else 0
    except BrokenPipeError:  # the reader (head, less) went away: nothing left to say
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except ReportError as err:
        print(f"{PROG}: error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
