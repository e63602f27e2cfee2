"""What a sweep's points are: the lists of `jiobench sweep` turned into points (one value from
every list), each point's runner options and test file, and the check of every point with the
runner's own option parser, in the point's own JVM, before anything runs."""
from __future__ import annotations

import itertools
import json
import os
import re
import shlex
import subprocess
from concurrent.futures import ThreadPoolExecutor
from typing import Optional, Sequence

from jiobench.model import sweepfile
from jiobench.errors import UsageError
from jiobench.launchpaths import LAUNCH_PATHS, is_mpj
from jiobench.paths import JAR
from jiobench.model.sweepfile import plural
from jiobench.vocabulary import default_java, solo_environment

# Runner options the sweep sets itself, and launcher options a --vary may name.
SWEEP_OWNS = ("--results", "--dry-run", "--dry-run-ranks")
LAUNCHER_OPTIONS = {"java": "java", "--java": "java", "jvm-args": "jvm-args", "--jvm-args": "jvm-args",
                    "launcher": "launcher", "--launcher": "launcher"}
DEFAULT_FILE = "jiobench.dat"
TIME = re.compile(r"(?:(\d+)-)?(\d+)(?::(\d+))?(?::(\d+))?")


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
    (a bare name gets its dashes), or a launcher option (java, jvm-args, launcher)."""
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
        if name == "launcher" and word not in LAUNCH_PATHS:
            raise UsageError(f"--vary {text}: {word} is no launcher ({', '.join(LAUNCH_PATHS)})")
        if words.count(word) > 1:
            raise UsageError(f"--vary {text}: {word} appears twice")
    return name, words


def seconds(text: str) -> int:
    """A Slurm time limit (minutes, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS) in seconds."""
    match = TIME.fullmatch(text)
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
    nodes = counts("--nodes", options.nodes)
    per_node = tasks_per_node(options)
    if options.procs is None and options.nodes and per_node:
        # The user gave the nodes and the tasks each runs: full nodes are the points, which the
        # default of one process would leave empty.
        pairs, left_out = [(node_count, node_count * per_node) for node_count in nodes], []
    else:
        pairs, left_out = placements(counts("--procs", "1" if options.procs is None else options.procs), nodes,
                                     per_node)
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
                "launcher": values.get("launcher"),
                "runner_args": runner_args + ["--results", "results"], "file": test_file,
                "script": f"jobs/{point_id}.sbatch", "run_file": f"results/{point_id}.json",
                "mode": None, "job_id": None, "state": "RENDERED", "exit_code": None, "attempts": [],
            })
    return points, left_out


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
    java = point["java"] or default_java()
    try:
        jvm_args = shlex.split(point["jvm_args"])
    except ValueError as problem:
        return None, f"--jvm-args {point['jvm_args']!r}: {problem}"
    command = [java, *jvm_args, "-jar", str(JAR), *point["runner_args"], "--dry-run",
               f"--dry-run-ranks={point['procs']}"]
    env = solo_environment()
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


def place(index: int, points: list[dict]) -> str:
    """Which point a message is about: `point 2 of 6, p2-n1-t4MiB (1 proc, -t 4MiB)`."""
    point = points[index]
    return f"point {index + 1} of {len(points)}, {point['id']} ({sweepfile.point_label(point)})"


def check_points(points: list[dict], launcher: str) -> None:
    """Every point through the runner's parser, in parallel; the first mistake in the sweep's
    order is the one reported (once for all points when all have it). `launcher` is the sweep's,
    for the points that vary none."""
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
        index, _, problem = problems[0]
        raise UsageError(f"{place(index, points)}: {problem}")
    for index, (point, (parameters, _)) in enumerate(zip(points, results)):
        if parameters["repetitions"] == "auto" and is_mpj(point["launcher"] or launcher):
            raise UsageError(f"{place(index, points)}: -i auto: MPJ Express's ranks cannot hear the launcher "
                             "decide each next repetition; give a count (-i N)")
        if not parameters["write"]:
            raise UsageError("a sweep's points write their own files: -r alone (read an existing file) "
                             "does not make a sweep")
        expected = os.path.abspath(point["file"])
        if parameters["file"] != expected:
            raise UsageError(f"give the test file as -o FILE or --file FILE: the runner read {parameters['file']}")
        point["parameters"] = parameters
