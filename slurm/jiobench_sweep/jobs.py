"""The jobs of a sweep: one per point, one that runs every point as a step of one allocation, and
the report's, each rendered from its template (templates.py); and the `jiobench run` command of a
point, which `--here` runs as it is."""
from __future__ import annotations

import textwrap
from pathlib import Path
from typing import Optional

from jiobench.errors import UsageError
from jiobench.launchpaths import LAUNCH_PATHS, is_mpj
from jiobench.model import sweepfile
from jiobench.model.sweepfile import plural

from . import slurm, templates
from .plan import seconds, slurm_time
from .templates import quoted


def job_options(manifest: dict, name: str, ntasks: int, nodes: Optional[int], limit: Optional[str]) -> dict:
    """The #SBATCH options of a job that runs points."""
    settings = manifest["slurm"]
    return {**small_job_options(manifest, name, ntasks, limit), "nodes": nodes,
            "ntasks-per-node": settings["tasks_per_node"], "exclusive": settings["exclusive"]}


def small_job_options(manifest: dict, name: str, ntasks: int, limit: Optional[str]) -> dict:
    """The #SBATCH options every job of the sweep has; the report's job has only these."""
    settings = manifest["slurm"]
    return {"job-name": f"jiobench-{name}", "ntasks": ntasks, "time": limit, "partition": settings["partition"],
            "account": settings["account"], "output": f"logs/{name}.%j.out", "error": f"logs/{name}.%j.err"}


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
    return small_job_options(manifest, "report", 1, slurm_time(min(seconds(limit), REPORT_SECONDS)) if limit else None)


def check_slurm(manifest: dict, points: list[dict], mode: str) -> None:
    """sbatch --test-only on every distinct job: an unknown partition or account, a job larger
    than the cluster, a wrong time limit are Slurm's own one line, before anything is submitted."""
    if not slurm.has_slurm():
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
            slurm.test_only(dict(shape))
        except slurm.SlurmError as refused:
            nodes = job.get("nodes")
            size = plural(job["ntasks"], "task") + (f" on {plural(nodes, 'node')}" if nodes else "")
            raise UsageError(f"sbatch refuses {job['job-name']} ({size}): {refused}") from None


class ShellText(str):
    """A word the script writes as it is (a variable the shell expands), not quoted."""


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


def option_of(words: list[str], index: int) -> str:
    """The option a word gives or belongs to, as a mistake in it is to name it."""
    word = words[index]
    if word.startswith("-"):
        return word.split("=", 1)[0]
    previous = words[index - 1] if index else ""
    return previous if previous.startswith("-") and previous != "--" else "a runner argument"


def shell_word(words: list[str], index: int) -> str:
    """A word quoted for bash; of `--name=value`, only the value, which reads better."""
    word = words[index]
    if isinstance(word, ShellText):
        return word
    option = option_of(words, index)
    name, equals, value = word.partition("=")
    if word.startswith("--") and equals and quoted(option, name) == name:
        return f"{name}={quoted(option, value)}"
    return quoted(option, word)


def shell_line(prefix: str, words: list[str]) -> list[str]:
    """A command for bash, wrapped before the runner options: between the words `--` and the first
    of them, never within a value (one may hold ` -- `), and never split again where some text
    ends a line (a value may hold U+2028 or U+0085, which bash takes as any other character)."""
    shell_words = [shell_word(words, index) for index in range(len(words))]
    runner = words.index("--") + 1 if "--" in words else len(words)
    first = prefix + " ".join(shell_words[:runner])
    return [first + " \\", "    " + " ".join(shell_words[runner:])] if shell_words[runner:] else [first]


def launcher_of(manifest: dict, point: dict) -> str:
    """The point's own launcher where the sweep varies it, else the sweep's."""
    return point.get("launcher") or manifest["launcher"]


def point_commands(manifest: dict, point: dict) -> list[str]:
    """The run of the point's job; for an MPI launcher, the other way of starting it in a job too."""
    launcher = launcher_of(manifest, point)
    ntasks = ShellText('"$SLURM_NTASKS"')
    commands = [f"# {LAUNCH_PATHS[launcher].job_note}.",
                *shell_line('exec "$jiobench" run ', run_words(point, launcher, ntasks, manifest["launcher_args"]))]
    if is_mpj(launcher):
        return commands
    other = "mpirun" if launcher == "srun" else "srun"
    alternative = shell_line('exec "$jiobench" run ', run_words(point, other, ntasks, ""))
    return commands + [f"# Or {LAUNCH_PATHS[other].job_note}:", *(f"# {line}" for line in alternative)]


def step_words(manifest: dict, point: dict) -> list[str]:
    """One point as a step of the allocation: srun gets the point's nodes, a name, a time limit."""
    launcher_args = manifest["launcher_args"]
    if launcher_of(manifest, point) == "srun":
        step = ([f"-N {point['nodes']}"] if point["nodes"] else []) + [f"-J {point['id']}"]
        if manifest["slurm"]["time"]:
            step.append(f"--time={manifest['slurm']['time']}")
        launcher_args = " ".join(step + ([launcher_args] if launcher_args else []))
    return run_words(point, launcher_of(manifest, point), str(point["procs"]), launcher_args)


def header(what: str, template: Path) -> list[str]:
    return [f"{what}.", *textwrap.wrap(f"Rendered from {templates.source(template)} by `jiobench sweep`; submit it "
                                        "from the sweep's directory, which holds sweep.json, logs/ and results/. "
                                        "`jiobench sweep status DIR` follows it.", 95, break_on_hyphens=False)]


def render_all(manifest: dict, points: list[dict]) -> dict[str, str]:
    """A script per point, the allocation's for `points`, and the report's: path within the
    sweep's directory -> text. A value that cannot stand in a script is refused here, before
    anything is written."""
    scripts = {}
    for point in points:
        what = f"Point {point['id']} of a jiobench sweep ({sweepfile.point_label(point)})"
        scripts[point["script"]] = templates.render(templates.POINT, header(what, templates.POINT),
                                                    point_job(manifest, point), point_commands(manifest, point))
    steps = [line for point in points
             for line in shell_line(f"step {quoted('--run-id', point['id'])} \"$jiobench\" run ",
                                    step_words(manifest, point))]
    what = f"All {len(points)} points of a jiobench sweep in one allocation"
    scripts["jobs/allocation.sbatch"] = templates.render(templates.ALLOCATION, header(what, templates.ALLOCATION),
                                                         allocation_job(manifest, points), steps)
    scripts["jobs/report.sbatch"] = templates.render(templates.REPORT, header("The report of a jiobench sweep",
                                                                              templates.REPORT), report_job(manifest))
    return scripts


def write_jobs(directory: Path, scripts: dict[str, str]) -> None:
    (directory / "jobs").mkdir(exist_ok=True)
    for path, text in scripts.items():
        (directory / path).write_text(text, encoding="utf-8")
