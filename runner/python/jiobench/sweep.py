"""`jiobench sweep`: one description of a campaign, one `jiobench run` per point, the states of
all points, and a report at the end.

  jiobench sweep --dir DIR [--procs 1,2,4] [--nodes 1,2] [--tasks-per-node N] [--vary NAME=V1,V2,...]
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
import datetime
import itertools
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Optional, Sequence

from . import batch, sweepfile
from .cli import JAR, OneLineParser

# Runner options the sweep sets itself, and launcher options a --vary may name.
SWEEP_OWNS = ("--results", "--dry-run")
LAUNCHER_OPTIONS = {"java": "java", "--java": "java", "jvm-args": "jvm-args", "--jvm-args": "jvm-args"}
# Options whose value may start with '-': argparse takes "--jvm-args -Xmx4g" for two options.
FREE_TEXT = ("--vary", "--launcher-args", "--jvm-args")
DEFAULT_FILE = "jiobench.dat"
TIME = re.compile(r"^(?:(\d+)-)?(\d+)(?::(\d+))?(?::(\d+))?$")


class UsageError(Exception):
    """A mistake in what the user asked for: one line, exit code 2, nothing submitted."""


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


def now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


# --- what the user asked for ------------------------------------------------------------------

def counts(option: str, text: Optional[str]) -> list:
    """`1,2,4` -> [1, 2, 4]; None -> [None] (the option not given)."""
    if text is None:
        return [None]
    values = []
    for word in text.split(","):
        if not word.strip().isdigit() or int(word) < 1:
            raise UsageError(f"{option} {text}: '{word}' is not a whole number of at least 1")
        if int(word) in values:
            raise UsageError(f"{option} {text}: {int(word)} appears twice")
        values.append(int(word))
    return values


def varied(text: str) -> tuple[str, list[str]]:
    """`-t=1MiB,4MiB` -> ('-t', ['1MiB', '4MiB']): a runner option as it is written after '--'
    (a bare name gets its dashes), or a launcher option (java, jvm-args)."""
    name, equals, values = text.partition("=")
    if not equals or not name or not values:
        raise UsageError(f"--vary {text}: write it NAME=V1,V2,... (for example --vary -t=1MiB,4MiB)")
    if name in LAUNCHER_OPTIONS:
        name = LAUNCHER_OPTIONS[name]
    elif not name.startswith("-"):
        name = ("-" if len(name) == 1 else "--") + name
    if name in SWEEP_OWNS or name.startswith(tuple(f"{owned}=" for owned in SWEEP_OWNS)):
        raise UsageError(f"--vary {name}: the sweep sets {name} itself (run files go to DIR/results)")
    words = values.split(",")
    for word in words:
        if not word:
            raise UsageError(f"--vary {text}: an empty value")
        if words.count(word) > 1:
            raise UsageError(f"--vary {text}: {word} appears twice")
    return name, words


def seconds(text: str) -> int:
    """A Slurm time limit (minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS) in seconds."""
    match = TIME.match(text)
    if not match:
        raise UsageError(f"--time {text}: not a Slurm time limit (minutes, HH:MM:SS or D-HH:MM:SS)")
    days, first, second, third = (int(part) if part else None for part in match.groups())
    if days is None:
        if second is None:
            return first * 60
        if third is None:
            return first * 60 + second
        return (first * 60 + second) * 60 + third
    return ((days * 24 + first) * 60 + (second or 0)) * 60 + (third or 0)


def slurm_time(total: int) -> str:
    days, rest = divmod(total, 86400)
    return (f"{days}-" if days else "") + f"{rest // 3600:02d}:{rest % 3600 // 60:02d}:{rest % 60:02d}"


# --- the points -------------------------------------------------------------------------------

def slug(name: str, value: str) -> str:
    """A value as part of a point id: `-t`, `1MiB` -> `t1MiB`; a JDK's path -> its directory's name."""
    if "/" in value:
        parts = [part for part in value.split("/") if part and part not in ("bin", "java", "jre")]
        value = parts[-1] if parts else value
    text = re.sub(r"[^A-Za-z0-9._-]+", "", value).strip("-._")
    label = name.lstrip("-")
    if text.startswith(label):
        return text
    return f"{label}{text}" if len(label) == 1 else f"{label}-{text}"


def id_parts(name: str, values: Sequence[str]) -> list[str]:
    """Each value's part of the point ids; the value's position where values read alike."""
    parts = [slug(name, value) for value in values]
    if len(set(parts)) < len(parts) or any(len(part) > 32 or not part for part in parts):
        parts = [f"{name.lstrip('-')}{index + 1}" for index in range(len(values))]
    return parts


def placements(procs: list, nodes: list, per_node: Optional[int]) -> tuple[list[tuple], list[str]]:
    """The (nodes, procs) pairs that make sense, and the words for those left out: a process
    count that no node count holds, or a node count no process count fills, is a mistake."""
    kept, left_out = [], []
    for node_count in nodes:
        for count in procs:
            if node_count is not None and count < node_count:
                left_out.append(f"{plural(count, 'proc')} on {plural(node_count, 'node')}")
            elif node_count is not None and per_node is not None and count > node_count * per_node:
                left_out.append(f"{plural(count, 'proc')} on {plural(node_count, 'node')} of {per_node} tasks")
            else:
                kept.append((node_count, count))
    for count in procs:
        if not any(pair[1] == count for pair in kept):
            hold = max(n for n in nodes) * per_node if per_node else None
            raise UsageError(f"--procs {count}: no --nodes count holds {count} processes"
                             + (f" (at most {hold} on {max(nodes)} nodes of {per_node} tasks)" if hold else ""))
    for node_count in nodes:
        if not any(pair[0] == node_count for pair in kept):
            raise UsageError(f"--nodes {node_count}: no --procs count fills {node_count} nodes")
    return kept, left_out


def point_file(runner_args: list[str], point_id: str) -> tuple[list[str], str]:
    """The runner options with this point's own test file, FILE.POINT-ID, so that points running
    at once, or one killed before it removed its file, never meet in a file."""
    args = list(runner_args)
    for index, arg in enumerate(args):
        for option in ("-o", "--file"):
            if arg == option and index + 1 < len(args):
                args[index + 1] = os.path.abspath(args[index + 1]) + f".{point_id}"
                return args, args[index + 1]
            if arg.startswith(f"{option}=") or (option == "-o" and arg.startswith("-o") and len(arg) > 2):
                value = arg.split("=", 1)[1] if arg.startswith(f"{option}=") else arg[2:]
                args[index] = f"{option}={os.path.abspath(value)}.{point_id}"
                return args, args[index].split("=", 1)[1]
    # Without -o the runner writes in its working directory, which for a point is DIR.
    return args + ["-o", f"{DEFAULT_FILE}.{point_id}"], f"{DEFAULT_FILE}.{point_id}"


def option_words(name: str, value: str) -> list[str]:
    """A runner option with its value; `NAME=VALUE` where a value could pass for an option or a
    flag's on/off (picocli takes `-e=false`)."""
    if value.startswith("-") or value in ("true", "false"):
        return [f"{name}={value}"]
    return [name, value]


def tasks_per_node(options) -> Optional[int]:
    if options.tasks_per_node and "," in options.tasks_per_node:
        raise UsageError("--tasks-per-node takes one number")
    return counts("--tasks-per-node", options.tasks_per_node)[0]


def plan(options, dimensions: list[tuple[str, list[str]]]) -> tuple[list[dict], list[str]]:
    """Every point of the sweep, in order, and the (nodes, procs) pairs left out."""
    procs = counts("--procs", options.procs)
    nodes = counts("--nodes", options.nodes)
    per_node = tasks_per_node(options)
    pairs, left_out = placements(procs, nodes, per_node)
    parts = {name: dict(zip(values, id_parts(name, values))) for name, values in dimensions}
    combinations = list(itertools.product(*(values for _, values in dimensions)))
    total = len(pairs) * len(combinations)
    width = len(str(total))
    points = []
    for node_count, count in pairs:
        for combination in combinations:
            index = len(points) + 1
            values = dict(zip((name for name, _ in dimensions), combination))
            words = [f"n{count}"] + ([f"N{node_count}"] if options.nodes else [])
            words += [parts[name][value] for name, value in values.items() if len(parts[name]) > 1]
            point_id = f"p{index:0{width}d}-" + "-".join(words)
            runner_args = list(options.runner_args)
            for name, value in values.items():
                if name not in LAUNCHER_OPTIONS.values():
                    runner_args += option_words(name, value)
            runner_args, test_file = point_file(runner_args, point_id)
            points.append({
                "id": point_id, "procs": count, "nodes": node_count, "vary": values,
                "java": values.get("java", options.java), "jvm_args": values.get("jvm-args", options.jvm_args),
                "runner_args": runner_args + ["--results", "results"], "file": test_file,
                "script": f"jobs/{point_id}.sbatch", "run_file": f"results/{point_id}.json",
                "mode": None, "job_id": None, "state": "RENDERED", "exit_code": None, "attempts": [],
            })
    return points, left_out


# --- checks before anything runs --------------------------------------------------------------

JVM_FAILS = "the JVM does not start"


def runner_message(stderr: str) -> str:
    """The runner's one line without its prefix and its pointer to --help; else what the JVM said."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    for line in lines:
        if line.startswith("jiobench: error: "):
            return line[len("jiobench: error: "):].removesuffix(" (see --help)")
    return f"{JVM_FAILS}: {lines[0]}" if lines else f"{JVM_FAILS}, and says nothing"


def dry_run(point: dict) -> tuple[Optional[dict], Optional[str]]:
    """The point's runner options through the runner's own parser, in the point's own JVM:
    (parameters, None) or (None, what is wrong)."""
    java = point["java"] or os.environ.get("JIOBENCH_JAVA", "java")
    command = [java, *shlex.split(point["jvm_args"]), "-jar", str(JAR), *point["runner_args"], "--dry-run"]
    env = {key: value for key, value in os.environ.items() if key != "JIOBENCH_CONTROL"}
    try:
        done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120)
    except OSError as problem:
        return None, f"{JVM_FAILS}: {java}: {problem.strerror}"
    if done.returncode != 0:
        return None, runner_message(done.stderr)
    try:
        return json.loads(done.stdout.strip().splitlines()[-1]), None
    except (IndexError, json.JSONDecodeError):
        return None, f"{java} printed no parameters: is it a JDK 17 or later?"


def check_points(points: list[dict]) -> None:
    """Every point through the runner's parser, in parallel; the first mistake in the sweep's
    order is the one reported (once for all points when all have it)."""
    if not JAR.is_file():
        raise UsageError(f"the runner is not built ({JAR} is missing): run 'make build'")
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        results = list(pool.map(dry_run, points))
    problems = [(index, point, problem) for index, (point, (_, problem)) in enumerate(zip(points, results))
                if problem]
    if problems:
        for name in points[0]["vary"]:
            if any(problem.startswith("Unknown option") and f"'{name}" in problem for _, _, problem in problems):
                raise UsageError(f"--vary {name}: the runner has no option {name} (see 'jiobench run -- --help')")
        messages = {problem for _, _, problem in problems}
        if len(problems) == len(points) and len(messages) == 1:
            message = messages.pop()
            raise UsageError(message if message.startswith(JVM_FAILS) else f"{message} (see 'jiobench run -- --help')")
        index, point, problem = problems[0]
        raise UsageError(f"point {index + 1} of {len(points)}, {point['id']} ({sweepfile.point_label(point)}): "
                         f"{problem}")
    for point, (parameters, _) in zip(points, results):
        if not parameters["write"]:
            raise UsageError("a sweep's points write their own files: -r alone (read an existing file) "
                             "does not make a sweep")
        expected = os.path.abspath(point["file"])
        if parameters["file"] != expected:
            raise UsageError(f"give the test file as -o FILE or --file FILE: the runner read {parameters['file']}")
        point["parameters"] = parameters


def job_options(manifest: dict, name: str, ntasks: int, nodes: Optional[int], limit: Optional[str],
                whole: bool = True) -> dict:
    """The #SBATCH options of one job of the sweep; `whole` false for the report's small job."""
    slurm = manifest["slurm"]
    return {"job-name": f"jiobench-{name}", "nodes": nodes if whole else None, "ntasks": ntasks,
            "ntasks-per-node": slurm["tasks_per_node"] if whole else None, "time": limit,
            "partition": slurm["partition"], "account": slurm["account"],
            "exclusive": slurm["exclusive"] and whole, "output": f"logs/{name}.%j.out",
            "error": f"logs/{name}.%j.err"}


def point_job(manifest: dict, point: dict) -> dict:
    return job_options(manifest, point["id"], point["procs"], point["nodes"], manifest["slurm"]["time"])


def allocation_job(manifest: dict, points: list[dict]) -> dict:
    """The largest point's nodes and tasks, for as long as all points' time limits together."""
    limit = manifest["slurm"]["time"]
    nodes = [point["nodes"] for point in points if point["nodes"]]
    return job_options(manifest, "sweep", max(point["procs"] for point in points), max(nodes) if nodes else None,
                       slurm_time(seconds(limit) * len(points)) if limit else None)


REPORT_SECONDS = 600  # a report of hundreds of runs takes a minute; a short limit backfills soon


def report_job(manifest: dict) -> dict:
    limit = manifest["slurm"]["time"]
    return job_options(manifest, "report", 1, None,
                       slurm_time(min(seconds(limit), REPORT_SECONDS)) if limit else None, whole=False)


def check_slurm(manifest: dict, points: list[dict], mode: str) -> None:
    """sbatch --test-only on every distinct job: an unknown partition or account, a job larger
    than the cluster, a wrong time limit are Slurm's own one line, before anything is submitted."""
    if not batch.has_slurm():
        raise UsageError(f"--{mode} needs Slurm's sbatch, which is not installed here (--here runs the "
                         "points on this machine)")
    jobs = [allocation_job(manifest, points)] if mode == "allocation" else [point_job(manifest, p) for p in points]
    seen = set()
    for job in jobs + [report_job(manifest)]:
        shape = tuple((name, value) for name, value in job.items() if name not in ("job-name", "output", "error"))
        if shape in seen:
            continue
        seen.add(shape)
        try:
            batch.test_only({name: value for name, value in shape})
        except batch.SlurmError as refused:
            size = plural(job["ntasks"], "task") + (f" on {plural(job['nodes'], 'node')}" if job["nodes"] else "")
            raise UsageError(f"sbatch refuses {job['job-name']} ({size}): {refused}") from None


# --- the batch scripts ------------------------------------------------------------------------

class Ranks(str):
    """The rank count as the shell is to read it (a variable, not a quoted word)."""


def run_words(point: dict, launcher: str, ranks: str, launcher_args: str) -> list[str]:
    """What follows `jiobench run` for this point."""
    words = ["--launcher", launcher, "-n", ranks, "--run-id", point["id"]]
    if point["java"]:
        words += ["--java", point["java"]]
    if point["jvm_args"]:
        words.append(f"--jvm-args={point['jvm_args']}")
    if launcher_args:
        words.append(f"--launcher-args={launcher_args}")
    return words + ["--", *point["runner_args"]]


def shell_word(word: str) -> str:
    """A word quoted for bash; of `--name=value`, only the value, which reads better."""
    if isinstance(word, Ranks):
        return word
    name, equals, value = word.partition("=")
    if word.startswith("--") and equals and shlex.quote(name) == name:
        return f"{name}={shlex.quote(value)}"
    return shlex.quote(word)


def shell_line(prefix: str, words: list[str]) -> str:
    """A command line for bash, wrapped before the runner options."""
    text = " ".join(shell_word(word) for word in words)
    return prefix + text.replace(" -- ", " -- \\\n    ", 1)


LAUNCHER_NOTES = {"srun": "srun --mpi=pmix starts one rank per task of the job",
                  "mpirun": "mpirun takes its slots from the job's allocation"}


def point_body(manifest: dict, point: dict) -> list[str]:
    launcher = manifest["launcher"]
    other = "mpirun" if launcher == "srun" else "srun"
    ntasks = Ranks('"$SLURM_NTASKS"')
    alternative = shell_line('"$jiobench" run ', run_words(point, other, ntasks, ""))
    return [f"# {LAUNCHER_NOTES[launcher]}.",
            shell_line('"$jiobench" run ', run_words(point, launcher, ntasks, manifest["launcher_args"])),
            f"# Or {LAUNCHER_NOTES[other]}:",
            *(f"# {line}" for line in alternative.splitlines())]


def step_words(manifest: dict, point: dict) -> list[str]:
    """One point as a step of the allocation: srun gets the point's nodes, a name, a time limit."""
    launcher_args = manifest["launcher_args"]
    if manifest["launcher"] == "srun":
        step = ([f"-N {point['nodes']}"] if point["nodes"] else []) + [f"-J {point['id']}"]
        if manifest["slurm"]["time"]:
            step.append(f"--time={manifest['slurm']['time']}")
        launcher_args = " ".join(step + ([launcher_args] if launcher_args else []))
    return run_words(point, manifest["launcher"], str(point["procs"]), launcher_args)


ALLOCATION_PROLOGUE = [
    "# The points one job step after another; a point that fails leaves the others running. Each",
    "# point's output goes to logs/POINT.JOB.out and .err, its exit code to logs/steps.JOB.",
    "step() {",
    "  local point=$1 code=0",
    "  shift",
    '  "$@" >"logs/$point.$SLURM_JOB_ID.out" 2>"logs/$point.$SLURM_JOB_ID.err" || code=$?',
    '  echo "$point $code" >>"logs/steps.$SLURM_JOB_ID"',
    "}",
]

REPORT_BODY = [
    "# After every point has ended (afterany): the state of each, then the report of their run files.",
    '"$jiobench" sweep status .',
    '"$jiobench" report . -o report',
]


def header(what: str) -> list[str]:
    return [f"{what}.",
            "Rendered from slurm/jiobench.sbatch by `jiobench sweep`; submit it from the sweep's directory,",
            "which holds sweep.json, logs/ and results/. `jiobench sweep status DIR` follows it."]


def render_all(directory: Path, manifest: dict, points: list[dict]) -> None:
    """A script per point, the allocation's for `points`, and the report's, into DIR/jobs."""
    jobs = directory / "jobs"
    jobs.mkdir(exist_ok=True)
    for point in points:
        text = batch.render(header(f"Point {point['id']} of a jiobench sweep ({sweepfile.point_label(point)})"),
                            point_job(manifest, point), point_body(manifest, point))
        (directory / point["script"]).write_text(text, encoding="utf-8")
    steps = [shell_line(f"step {point['id']} \"$jiobench\" run ", step_words(manifest, point)) for point in points]
    text = batch.render(header(f"All {len(points)} points of a jiobench sweep in one allocation"),
                        allocation_job(manifest, points), ALLOCATION_PROLOGUE + steps)
    (jobs / "allocation.sbatch").write_text(text, encoding="utf-8")
    text = batch.render(header("The report of a jiobench sweep"), report_job(manifest), REPORT_BODY)
    (jobs / "report.sbatch").write_text(text, encoding="utf-8")


# --- running the points -----------------------------------------------------------------------

def save_point(directory: Path, point: dict) -> None:
    def change(manifest):
        for index, old in enumerate(manifest["points"]):
            if old["id"] == point["id"]:
                manifest["points"][index] = point
    sweepfile.update(directory, change)


def submit(directory: Path, points: list[dict], mode: str) -> int:
    """Submits the points (a job each, or one allocation), then the report job after them."""
    try:
        if mode == "allocation":
            job_id = batch.submit("jobs/allocation.sbatch", directory)
            for point in points:
                point.update(mode=mode, job_id=job_id, state="PENDING", exit_code=None)
                save_point(directory, point)
            job_ids = [job_id]
            print(f"  {len(points)} points in allocation job {job_id}")
        else:
            job_ids = []
            for point in points:
                job_id = batch.submit(point["script"], directory)
                point.update(mode=mode, job_id=job_id, state="PENDING", exit_code=None)
                save_point(directory, point)
                job_ids.append(job_id)
                print(f"  {point['id']:<{width(points)}}  job {job_id}")
        report = batch.submit("jobs/report.sbatch", directory,
                              dependency="afterany:" + ":".join(job_ids))
    except batch.SlurmError as refused:
        return say(f"sbatch refused a job: {refused}; what was submitted is in {directory}/sweep.json "
                   f"(jiobench sweep --resume {directory} submits the rest)", 1)
    sweepfile.update(directory, lambda m: m.update(report={"job_id": report, "state": "PENDING", "exit_code": None}))
    print(f"  {'report':<{width(points)}}  job {report}, after all of them\n"
          f"Follow it with: jiobench sweep status {directory}")
    return 0


def width(points: Sequence[dict]) -> int:
    return max([len("report")] + [len(point["id"]) for point in points])


def run_here(directory: Path, manifest: dict, points: list[dict]) -> int:
    """The points one after another through mpirun on this machine, then the report."""
    (directory / "logs").mkdir(exist_ok=True)
    interrupted = False
    for index, point in enumerate(points, 1):
        point.update(mode="here", job_id=None, state="RUNNING", exit_code=None)
        save_point(directory, point)
        words = run_words(point, "mpirun", str(point["procs"]), manifest["launcher_args"])
        started = time.monotonic()
        with open(directory / "logs" / f"{point['id']}.here.out", "w") as out, \
                open(directory / "logs" / f"{point['id']}.here.err", "w") as err:
            process = subprocess.Popen([sys.executable, "-m", "jiobench.cli", "run", *words], cwd=directory,
                                       stdout=out, stderr=err, start_new_session=True)
            try:
                code = process.wait()
            except KeyboardInterrupt:
                os.killpg(process.pid, signal.SIGTERM)
                code = process.wait()
                interrupted = True
        state = "CANCELLED" if interrupted else "COMPLETED" if code == 0 else "FAILED"
        # A run killed by a signal reads as Slurm writes it: code:signal.
        point.update(state=state, exit_code=str(code) if code >= 0 else f"0:{-code}")
        save_point(directory, point)
        print(f"  {index}/{len(points)} {point['id']:<{width(points)}}  {state:<9} "
              f"{time.monotonic() - started:6.1f} s  {sweepfile.point_label(point)}", flush=True)
        if interrupted:
            return say(f"interrupted; jiobench sweep --resume {directory} --here runs the points left", 130)
    print()
    show_status(directory)
    return make_report(directory)


def make_report(directory: Path) -> int:
    from jiobench_analysis import report

    print()
    return report.main([str(directory), "-o", str(directory / "report")])


def say(message: str, code: int) -> int:
    print(f"jiobench: {'error: ' if code else ''}{message}", file=sys.stderr)
    return code


# --- states -----------------------------------------------------------------------------------

def steps_done(directory: Path, job_id: str) -> dict[str, str]:
    """Point -> exit code of the steps an allocation job has finished (its logs/steps.JOB)."""
    try:
        lines = (directory / "logs" / f"steps.{job_id}").read_text().splitlines()
    except FileNotFoundError:
        return {}
    return {fields[0]: fields[1] for fields in (line.split() for line in lines) if len(fields) == 2}


def refresh(directory: Path) -> dict:
    """The manifest with every job's state as Slurm tells it now, written back."""
    manifest = sweepfile.read(directory)
    lookups = [point["job_id"] for point in manifest["points"]
               if point["mode"] in ("submit", "allocation") and point["job_id"]]
    if manifest.get("report"):
        lookups.append(manifest["report"]["job_id"])
    known = batch.job_states(lookups)
    updates = {}
    for point in manifest["points"]:
        if point["mode"] == "submit" and point["job_id"] in known:
            job = known[point["job_id"]]
            updates[point["id"]] = (job["state"], job["exit_code"])
    allocations = {point["job_id"] for point in manifest["points"] if point["mode"] == "allocation"}
    for job_id in allocations:
        done = steps_done(directory, job_id)
        job = known.get(job_id)
        running = True
        for point in manifest["points"]:
            if point["mode"] != "allocation" or point["job_id"] != job_id:
                continue
            if point["id"] in done:
                updates[point["id"]] = ("COMPLETED" if done[point["id"]] == "0" else "FAILED", done[point["id"]])
            elif job and job["state"] == "RUNNING":
                # Steps run in the sweep's order: the first without an exit code is the one running.
                updates[point["id"]] = ("RUNNING" if running else "PENDING", None)
                running = False
            elif job:
                updates[point["id"]] = (job["state"], None)
    report = manifest.get("report")
    report_update = known.get(report["job_id"]) if report else None

    def change(latest):
        for point in latest["points"]:
            if point["id"] in updates:
                point["state"], point["exit_code"] = updates[point["id"]]
        if report_update and latest.get("report") and latest["report"]["job_id"] == report["job_id"]:
            latest["report"].update(state=report_update["state"], exit_code=report_update["exit_code"])
    if not (updates or report_update):
        return manifest
    try:
        return sweepfile.update(directory, change)
    except OSError:  # a sweep someone else owns: its states are shown, not kept
        change(manifest)
        return manifest


def run_file_text(directory: Path, point: dict) -> tuple[str, str]:
    state, detail = sweepfile.run_file_state(sweepfile.point_run_file(directory, point))
    if state == sweepfile.COMPLETE:
        return state, point["run_file"]
    return state, state + (f" ({detail})" if detail else "")


def last_error(directory: Path, point: dict) -> Optional[str]:
    """The last line the point's run wrote to its error log: what went wrong, in its words."""
    pattern = f"{point['id']}.{point['job_id'] or 'here'}.err"
    try:
        lines = [line.strip() for line in (directory / "logs" / pattern).read_text(errors="replace").splitlines()]
    except OSError:
        return None
    ours = [line for line in lines if line.startswith("jiobench")]
    return (ours or [line for line in lines if line] or [None])[-1]


def show_status(directory: Path) -> dict:
    manifest = refresh(directory)
    points = manifest["points"]
    names = list(points[0]["vary"]) if points else []
    headers = ["", "point", "procs", "nodes", *names, "job", "state", "exit", "run file"]
    rows, files = [], {}
    for point in points:
        files[point["id"]], text = run_file_text(directory, point)
        rows.append(["!" if point["state"] in sweepfile.BAD else "", point["id"], str(point["procs"]),
                     str(point["nodes"] or "-"), *(point["vary"][name] for name in names),
                     point["job_id"] or point["mode"] or "-", point["state"],
                     sweepfile.exit_text(point["state"], point["exit_code"]), text])
    report = manifest.get("report")
    if report:
        rows.append(["!" if report["state"] in sweepfile.BAD else "", "report", "", "", *("" for _ in names),
                     report["job_id"], report["state"], sweepfile.exit_text(report["state"], report.get("exit_code")),
                     "report/report.html" if (directory / "report" / "report.html").is_file() else "-"])
    widths = [max(len(row[i]) for row in [headers, *rows]) for i in range(len(headers))]
    numeric = {2, 3}
    for row in [headers, *rows]:
        print("  ".join(cell.rjust(widths[i]) if i in numeric else cell.ljust(widths[i])
                        for i, cell in enumerate(row)).rstrip())
    states: dict[str, list[str]] = {}
    for point in points:
        states.setdefault(point["state"], []).append(point["id"])
    by_file = {state: sum(1 for f in files.values() if f == state) for state in dict.fromkeys(files.values())}
    print(f"{len(points)} points: " + ", ".join(f"{len(ids)} {state}" for state, ids in states.items())
          + "; run files: " + ", ".join(f"{count} {state}" for state, count in by_file.items()))
    for point in points:
        if point["state"] in sweepfile.BAD:
            why = last_error(directory, point)
            print(f"! {point['id']} {point['state']}" + (f": {why}" if why else ""))
    return manifest


# --- the verb ---------------------------------------------------------------------------------

def parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="jiobench sweep", description=__doc__.split("\n\n")[2].replace("\n", " "),
        usage="jiobench sweep --dir DIR [OPTIONS] [--submit | --allocation | --here] -- RUNNER-OPTIONS\n"
              "       jiobench sweep status DIR\n       jiobench sweep --resume DIR [--submit | --allocation | --here]",
        epilog="Lists are comma-separated. Runner options go after '--' ('jiobench run -- --help' lists them).")
    parser.add_argument("--dir", type=Path, help="the sweep's directory, which must not exist yet")
    parser.add_argument("--resume", type=Path, metavar="DIR",
                        help="run again the points of DIR without a complete run file")
    parser.add_argument("--procs", default="1", metavar="LIST", help="process counts (default: 1)")
    parser.add_argument("--nodes", metavar="LIST", help="node counts; each pairs with the process counts it holds")
    parser.add_argument("--tasks-per-node", metavar="N", help="tasks per node (Slurm's --ntasks-per-node)")
    parser.add_argument("--vary", action="append", default=[], metavar="NAME=V1,V2,...",
                        help="a runner option (-t, --buffer-size, -a, --type, ...) or java or jvm-args, "
                             "with the values to sweep; repeatable")
    parser.add_argument("--partition", help="Slurm partition")
    parser.add_argument("--account", help="Slurm account")
    parser.add_argument("--time", metavar="LIMIT", help="time limit of each point (Slurm's format)")
    parser.add_argument("--exclusive", action="store_true", help="each job takes its nodes whole")
    parser.add_argument("--launcher", choices=["srun", "mpirun"],
                        help="how a job starts its ranks (default: srun --mpi=pmix; --here: mpirun)")
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


def new_sweep(options, argv: list[str]) -> int:
    directory = options.dir
    if directory.exists():
        raise UsageError(f"{directory} exists: a sweep starts in a new directory "
                         f"(jiobench sweep --resume {directory} continues one)")
    owned = [arg for arg in options.runner_args if arg.split("=", 1)[0] in SWEEP_OWNS]
    if owned:
        raise UsageError(f"{owned[0]}: the sweep sets it itself (run files go to DIR/results)")
    dimensions = [varied(text) for text in options.vary]
    names = [name for name, _ in dimensions]
    for name in names:
        if names.count(name) > 1:
            raise UsageError(f"--vary {name} is given twice")
    for launcher_option in ("java", "jvm-args"):
        if launcher_option in names and getattr(options, launcher_option.replace("-", "_")):
            raise UsageError(f"--{launcher_option} and --vary {launcher_option}: give it in one place")
    if options.mode == "here" and options.launcher == "srun":
        raise UsageError("--here runs the points through mpirun, not srun")
    if options.time:
        seconds(options.time)
    points, left_out = plan(options, dimensions)
    manifest = {
        "schema": sweepfile.SCHEMA, "created": now(), "command_line": ["jiobench", "sweep", *argv],
        "launcher": options.launcher or ("mpirun" if options.mode == "here" else "srun"),
        "launcher_args": options.launcher_args,
        "slurm": {"partition": options.partition, "account": options.account, "time": options.time,
                  "exclusive": options.exclusive, "tasks_per_node": tasks_per_node(options)},
        "points": points, "report": None,
    }
    if options.mode in ("submit", "allocation"):
        check_slurm(manifest, points, options.mode)
    check_points(points)
    for folder in ("jobs", "logs", "results"):
        (directory / folder).mkdir(parents=True, exist_ok=folder != "jobs")
    render_all(directory, manifest, points)
    sweepfile.write(directory, manifest)
    print(f"jiobench sweep: {len(points)} points in {directory}, each checked with the runner's options"
          + (f"; left out: {', '.join(left_out)}" if left_out else ""))
    return start(directory, manifest, points, options.mode)


def start(directory: Path, manifest: dict, points: list[dict], mode: Optional[str]) -> int:
    if mode == "here":
        return run_here(directory, manifest, points)
    if mode in ("submit", "allocation"):
        return submit(directory, points, mode)
    for point in points:
        print(f"  {point['id']:<{width(points)}}  {sweepfile.point_label(point)}")
    print(f"Nothing submitted. The jobs are in {directory}/jobs; --submit would run, from {directory}:\n"
          f"  sbatch --parsable jobs/POINT.sbatch                 (each of the {len(points)} points)\n"
          f"  sbatch --dependency=afterany:JOB:... jobs/report.sbatch\n"
          f"then: jiobench sweep --resume {directory} --submit   (or --allocation, or --here)")
    return 0


def set_aside(directory: Path, point: dict) -> None:
    """Makes room for a point's next attempt: its incomplete run file goes to DIR/attempts (the
    report reads only DIR/results), and a test file its killed run left behind is removed (its
    name is the sweep's own)."""
    run_file = sweepfile.point_run_file(directory, point)
    if run_file.exists():
        attempts = directory / "attempts"
        attempts.mkdir(exist_ok=True)
        number = len(point["attempts"]) + 1
        for path in (run_file, run_file.with_suffix(".ranks.csv")):
            if path.exists():
                path.rename(attempts / path.name.replace(point["id"], f"{point['id']}.{number}", 1))
    test_file = directory / point["file"]
    leftovers = [test_file] + [test_file.with_name(f"{test_file.name}.{rank:08d}") for rank in range(point["procs"])]
    for leftover in leftovers:
        if leftover.is_file():
            leftover.unlink()
            print(f"  removed {leftover}, left by the earlier attempt of {point['id']}")


def resume(options) -> int:
    directory = options.resume
    manifest = refresh(directory)
    pending = [point for point in manifest["points"]
               if sweepfile.run_file_state(sweepfile.point_run_file(directory, point))[0] != sweepfile.COMPLETE]
    active = [point for point in pending if point["state"] in sweepfile.ACTIVE and point["mode"] != "here"]
    if active:
        point = active[0]
        raise UsageError(f"{point['id']} is still {point['state']} (job {point['job_id']}): --resume runs a point "
                         "again once its job has ended (scancel it to run it again now)")
    if not pending:
        print(f"jiobench sweep: every point of {directory} has a complete run file")
        return make_report(directory) if options.mode == "here" else 0
    mode = options.mode
    if mode in ("submit", "allocation"):
        check_slurm(manifest, pending, mode)
    print(f"jiobench sweep: {len(pending)} of {len(manifest['points'])} points of {directory} to run again")
    for point in pending:
        if point["mode"]:
            point["attempts"].append({key: point[key] for key in ("mode", "job_id", "state", "exit_code")})
        set_aside(directory, point)
        point.update(mode=None, job_id=None, state="RENDERED", exit_code=None)
        save_point(directory, point)
    render_all(directory, manifest, pending)
    return start(directory, manifest, pending, mode)


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
