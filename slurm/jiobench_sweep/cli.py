"""`jiobench sweep`: one description of a campaign, one `jiobench run` per point, the states of
all points, and a report at the end.

  jiobench sweep --dir DIR [--preset NAME] [--procs 1,2,4] [--nodes 1,2] [--tasks-per-node N] [--vary NAME=V1,V2,...]
                 [--partition P] [--account A] [--time T] [--exclusive] [--launcher-args ARGS]
                 [--submit | --allocation | --here] -- RUNNER-OPTIONS
  jiobench sweep status DIR
  jiobench sweep --resume DIR [--submit | --allocation | --here]

A point takes one value from every list (--procs, --nodes, each --vary). Every point is checked
with the runner's own option parser before anything runs; then --submit submits a job per point
and a report job after them, --allocation one job that runs the points as job steps, --here runs
them through mpirun on this machine, and none of these leaves DIR ready to review (docs/sweep.md).
"""
from __future__ import annotations

import argparse
import os
import sys
import textwrap
from pathlib import Path
from typing import Optional

from jiobench.errors import OneLineParser, UsageError
from jiobench.launchpaths import LAUNCH_PATHS
from jiobench.model import runfile, sweepfile

from . import presets, slurm
from .jobs import check_slurm, launcher_of, render_all, write_jobs
from .plan import SWEEP_OWNS, check_points, place, plan, seconds, tasks_per_node, varied
from .points import make_report, now, save_point, say, start
from .status import refresh, show_status
from .templates import quoted

# Options whose value may start with '-': argparse takes "--jvm-args -Xmx4g" for two options.
FREE_TEXT = ("--vary", "--launcher-args", "--jvm-args")


def parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="jiobench sweep", description=textwrap.fill(__doc__.split("\n\n")[2].replace("\n", " "), 79),
        usage="jiobench sweep --dir DIR [OPTIONS] [--submit | --allocation | --here] -- RUNNER-OPTIONS\n"
              "       jiobench sweep status DIR\n       jiobench sweep --resume DIR [--submit | --allocation | --here]",
        epilog="Lists are comma-separated. Runner options go after '--' ('jiobench run -- --help'\nlists them).\n\n"
               "Presets (--preset NAME; docs/sweep.md):\n" + presets.help_lines(),
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--dir", type=Path, help="the sweep's directory, which must not exist yet")
    parser.add_argument("--resume", type=Path, metavar="DIR",
                        help="run again the points of DIR without a complete run file")
    parser.add_argument("--preset", metavar="NAME",
                        help="a named sweep (below): its lists and runner options, which --vary and the runner "
                             "options after '--' replace option by option")
    parser.add_argument("--procs", metavar="LIST",
                        help="process counts (default: 1; with --nodes and --tasks-per-node, each node count "
                             "times the tasks per node)")
    parser.add_argument("--nodes", metavar="LIST", help="node counts; each pairs with the process counts it holds")
    parser.add_argument("--tasks-per-node", metavar="N", help="tasks per node (Slurm's --ntasks-per-node)")
    parser.add_argument("--vary", action="append", default=[], metavar="NAME=V1,V2,...",
                        help="a runner option (-t, --buffer-size, -a, --type, ...) or java or jvm-args, "
                             "with the values to sweep; repeatable")
    parser.add_argument("--partition", help="Slurm partition")
    parser.add_argument("--account", help="Slurm account")
    parser.add_argument("--time", metavar="LIMIT", help="time limit of each point (Slurm's format)")
    parser.add_argument("--exclusive", action="store_true", help="each job takes its nodes whole")
    parser.add_argument("--launcher", choices=list(LAUNCH_PATHS),
                        help="how a job starts its ranks (default: srun --mpi=pmix; --here: mpirun; MPJ Express on one node)")
    parser.add_argument("--launcher-args", default="", help="extra arguments for srun or mpirun, as one string")
    parser.add_argument("--java", help="the java every point runs (default: java)")
    parser.add_argument("--jvm-args", default="", help="JVM options for every rank, as one string")
    modes = parser.add_mutually_exclusive_group()
    for mode, text in (("submit", "submit a job per point and a report job after them"),
                       ("allocation", "submit one job that runs every point as a job step, and a report job"),
                       ("here", "run the points one after another on this machine through mpirun")):
        modes.add_argument(f"--{mode}", dest="mode", action="store_const", const=mode, help=text)
    return parser


def joined(argv: list[str]) -> list[str]:
    """`--jvm-args -Xmx4g` as `--jvm-args=-Xmx4g`, which argparse reads as one option."""
    out, words = [], iter(argv)
    for word in words:
        value = next(words, None) if word in FREE_TEXT else None
        out.append(f"{word}={value}" if value is not None else word)
    return out


def parse(argv: list[str]):
    own, runner_args = (argv[:argv.index("--")], argv[argv.index("--") + 1:]) if "--" in argv else (argv, [])
    options = parser().parse_args(joined(own))
    options.runner_args = runner_args
    return options


def taken(directory: Path) -> UsageError:
    return UsageError(f"{directory} exists: a sweep starts in a new directory "
                      f"(jiobench sweep --resume {directory} continues one)")


def to_make(directory: Path) -> list[Path]:
    """The directories a new sweep makes, the missing parents first and its own last: checked
    before anything else, made only once every point is. Refused where the path names no place
    for a new directory: it exists, a part of it is a file, its deepest existing directory is not
    writable, or '..' follows a directory that does not exist (which the system resolves to
    nothing; making that directory to resolve it would leave one no one asked for)."""
    here, missing = Path(directory.anchor), []
    try:
        if directory.exists() or directory.is_symlink():
            raise taken(directory)
        for part in directory.parts[1 if directory.anchor else 0:]:
            if missing and part == "..":
                raise UsageError(f"--dir {directory}: {missing[0]} does not exist, so '..' after it names no directory")
            here = here / part
            if missing or not here.exists():
                missing.append(here)
            elif not here.is_dir():
                raise UsageError(f"--dir {directory}: {here} is not a directory")
    except OSError as problem:
        raise UsageError(f"--dir {directory}: cannot look at {here} ({problem.strerror})") from None
    parent = missing[0].parent
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UsageError(f"--dir {directory}: cannot make a directory in {parent} (not writable here)")
    return missing


def make(missing: list[Path]) -> None:
    """Makes the sweep's directory, which nothing may have made meanwhile: of two sweeps started at
    once on one --dir, the second is refused."""
    for path in missing:
        try:
            os.mkdir(path)
        except FileExistsError:
            if path == missing[-1]:
                raise taken(path) from None
        except OSError as problem:
            raise UsageError(f"--dir {missing[-1]}: cannot make {path} ({problem.strerror})") from None


def new_sweep(options, argv: list[str]) -> int:
    directory = options.dir
    missing = to_make(directory)
    owned = [arg for arg in options.runner_args if arg.split("=", 1)[0] in SWEEP_OWNS]
    if owned:
        raise UsageError(f"{owned[0]}: the sweep sets it itself (run files go to DIR/results)")
    dimensions = [varied(text) for text in options.vary]
    names = [name for name, _ in dimensions]
    for name in names:
        if names.count(name) > 1:
            raise UsageError(f"--vary {name} is given twice")
    preset = None
    if options.preset:
        dimensions, options.runner_args, preset = presets.apply(options.preset, dimensions, options.runner_args,
                                                                   options.java)
    for launcher_option in ("java", "jvm-args", "launcher"):
        if launcher_option in names and getattr(options, launcher_option.replace("-", "_")):
            raise UsageError(f"--{launcher_option} and --vary {launcher_option}: give it in one place")
    if options.mode == "here" and "srun" in (options.launcher, *dict(dimensions).get("launcher", [])):
        raise UsageError("--here runs the points on this machine (mpirun, mpiexec or MPJ Express), not through srun")
    if options.time:
        seconds(quoted("--time", options.time, sbatch_line=True))
    points, left_out = plan(options, dimensions)
    for index, point in enumerate(points):
        launcher = point["launcher"] or options.launcher
        if launcher and not LAUNCH_PATHS[launcher].spans_nodes and (point["nodes"] or 1) > 1:
            raise UsageError(f"{place(index, points)}: {launcher} starts its ranks on one node; srun or mpirun "
                             "spans several")
    manifest = {
        "schema": sweepfile.SCHEMA, "created": now(), "command_line": ["jiobench", "sweep", *argv],
        "launcher": options.launcher or ("mpirun" if options.mode == "here" else "srun"),
        "launcher_args": options.launcher_args,
        "slurm": {"partition": options.partition, "account": options.account, "time": options.time,
                  "exclusive": options.exclusive, "tasks_per_node": tasks_per_node(options)},
        "points": points, "report": None, "preset": preset,
    }
    scripts = render_all(manifest, points)
    if options.mode in ("submit", "allocation"):
        check_slurm(manifest, points, options.mode)
    check_points(points, manifest["launcher"])
    check_test_files(directory, points, "pass --overwrite after '--' to write over it, or give another -o")
    make(missing)
    with sweepfile.working(directory):
        for folder in ("jobs", "logs", "results"):
            (directory / folder).mkdir()
        write_jobs(directory, scripts)
        sweepfile.write(directory, manifest)
        print(f"jiobench sweep: {len(points)} points in {directory}, each checked with the runner's options"
              + (f"; left out: {', '.join(left_out)}" if left_out else ""))
        return start(directory, manifest, points, options.mode)


def files_of(directory: Path, point: dict) -> list[Path]:
    """The files the point's run writes: FILE.POINT, or with -F one per rank, FILE.POINT.RANK."""
    test_file = directory / point["file"]
    if not point["parameters"].get("file_per_process"):
        return [test_file]
    return [test_file.with_name(f"{test_file.name}.{rank:08d}") for rank in range(point["procs"])]


def check_test_files(directory: Path, points: list[dict], advice: str) -> None:
    """Refuses, in one line, points whose run would refuse its test file for being there already.

    A sweep removes no test file, not even one named as its own points name theirs: the name
    proves nothing. Point ids repeat from sweep to sweep, so two sweeps given one -o name the same
    files; another user may have made the file; and of a run killed outright (SIGKILL at a time
    limit) the run file records the name, not who made the file now at that path. The run itself
    removes its file at every end it lives through; what is left after one it did not is the
    user's to judge, and this says which file and why, before anything runs."""
    for point in points:
        if point["parameters"].get("overwrite"):
            continue
        there = [path for path in files_of(directory, point) if path.exists() or path.is_symlink()]
        if there:
            more = f" (and {sweepfile.plural(len(there) - 1, 'more file')})" if len(there) > 1 else ""
            raise UsageError(f"{there[0]}{more} exists, and the run of point {point['id']} would refuse to "
                             f"write over it: {advice}")


def set_aside(directory: Path, point: dict) -> None:
    """Makes room for a point's next attempt: its incomplete run file goes to DIR/attempts (the
    report reads only DIR/results)."""
    run_file = sweepfile.point_run_file(directory, point)
    if run_file.exists():
        attempts = directory / "attempts"
        attempts.mkdir(exist_ok=True)
        number = len(point["attempts"]) + 1
        # The pair keeps one stem, by which the report finds the per-rank file of a renamed run file.
        for path in (run_file.with_suffix(suffix) for suffix in runfile.RUN_FILE_SUFFIXES):
            if path.exists():
                path.rename(attempts / path.name.replace(point["id"], f"{point['id']}.{number}", 1))


def chose_launcher(manifest: dict) -> bool:
    """Whether the sweep's launcher is the user's own --launcher, not the default for jobs."""
    own = manifest["command_line"][2:]
    own = own[:own.index("--")] if "--" in own else own
    return any(word.split("=", 1)[0] == "--launcher" for word in joined(own))


def run_here_with(manifest: dict, points: list[dict]) -> dict:
    """The manifest as --here runs the points: through mpirun where the sweep has srun only
    because it was made for jobs (no --launcher, no mode); srun the user chose is refused."""
    for point in points:
        if launcher_of(manifest, point) == "srun" and (point["launcher"] or chose_launcher(manifest)):
            given = "--vary launcher" if point["launcher"] else "--launcher srun"
            raise UsageError(f"point {point['id']} runs through srun ({given}), which --here cannot: "
                             "resume with --submit or --allocation")
    return {**manifest, "launcher": "mpirun"} if manifest["launcher"] == "srun" else manifest


def resume(options) -> int:
    directory = options.resume
    sweepfile.read(directory, whole=True)  # a sweep, and one this verb can go on with
    with sweepfile.working(directory):
        return resume_points(directory, options.mode)


def resume_points(directory: Path, mode: Optional[str]) -> int:
    manifest = refresh(directory)
    short = [point for point in manifest["points"]
             if sweepfile.run_file_state(sweepfile.point_run_file(directory, point))[0] != sweepfile.COMPLETE]
    # A job that has yet to end is left to finish; the new report job waits for it too.
    running = [point for point in short if point["state"] in sweepfile.ACTIVE and point["mode"] != "here"]
    pending = [point for point in short if point not in running]
    if not pending:
        print(f"jiobench sweep: no point of {directory} to run again"
              + (f": {len(running)} still pending or running" if running else ", every one has a complete run file"))
        return make_report(directory) if mode == "here" and not running else 0
    scripts = render_all(manifest, pending)
    if mode in ("submit", "allocation"):
        check_slurm(manifest, pending, mode)
    runs = run_here_with(manifest, pending) if mode == "here" else manifest
    check_test_files(directory, pending, "a killed attempt of this sweep may have left it, or it is another's; "
                                         "remove it if it is this sweep's and resume again (a sweep removes no file)")
    print(f"jiobench sweep: {len(pending)} of {len(manifest['points'])} points of {directory} to run again"
          + (f"; {len(running)} still pending or running are left to finish" if running else ""))
    for point in pending:
        if point["mode"]:
            point["attempts"].append({key: point[key] for key in ("mode", "job_id", "state", "exit_code")})
        set_aside(directory, point)
        point.update(mode=None, job_id=None, state="RENDERED", exit_code=None)
        save_point(directory, point)
    write_jobs(directory, scripts)
    code = start(directory, runs, pending, mode, [point["job_id"] for point in running])
    replaced = manifest.get("report")
    if code == 0 and mode in ("submit", "allocation") and replaced and replaced["state"] == "PENDING":
        slurm.cancel(replaced["job_id"])  # the new report job reports every point
        print(f"  cancelled report job {replaced['job_id']}, which the new one replaces")
    return code


def status(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0].startswith("-"):
        raise UsageError("usage: jiobench sweep status DIR")
    show_status(Path(argv[0]))
    return 0


def main(argv: list[str]) -> int:
    try:
        if argv[:1] == ["status"]:
            return status(argv[1:])
        options = parse(argv)
        if options.resume:
            defaults = vars(parse([]))
            if any(value != defaults[name] for name, value in vars(options).items() if name not in ("resume", "mode")):
                raise UsageError("--resume DIR takes only --submit, --allocation or --here: "
                                 "the points are those of DIR/sweep.json")
            return resume(options)
        if options.dir is None:
            raise UsageError("--dir DIR is missing (see 'jiobench sweep --help')")
        return new_sweep(options, argv)
    except UsageError as mistake:
        return say(str(mistake), 2)
    except sweepfile.SweepError as problem:
        return say(str(problem), 2)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
