"""The job scripts a sweep renders carry every value a user gives as that value and nothing more:
each script runs under bash with stand-ins for jiobench, srun and mpirun that print their
arguments, and each value arrives as one argument, or is refused in one line before anything is
made. The templates themselves are bash."""
from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from testing import HOME, JIOBENCH

TEMPLATES = [HOME / "slurm" / "jiobench.sbatch", *sorted((HOME / "slurm" / "templates").glob("*.sbatch"))]
# Each would make a file named CANARY if the shell ran what it holds.
HOSTILE = "$(touch CANARY) `touch CANARY` 'single' \"double\" \\ ; touch CANARY & *"
# In place of a command: a line of its name and arguments, each ended by a NUL (no value a job
# script carries holds a newline).
STAND_IN = "#!/bin/bash\nprintf '%s\\0' \"$(basename \"$0\")\" \"$@\"\necho\n"


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda path: path.name)
def test_every_template_is_bash(template):
    checked = subprocess.run(["bash", "-n", str(template)], capture_output=True, text=True)
    assert checked.returncode == 0, checked.stderr


def stand_ins(directory: Path) -> dict:
    """The environment a rendered job runs in here: jiobench (through JIOBENCH_HOME), srun and
    mpirun are stand-ins, and Slurm's variables are set."""
    home_bin = directory / "home" / "bin"
    home_bin.mkdir(parents=True)
    for tool in (home_bin / "jiobench", directory / "srun", directory / "mpirun"):
        tool.write_text(STAND_IN)
        tool.chmod(0o755)
    return dict(os.environ, PATH=f"{directory}:{os.environ['PATH']}", JIOBENCH_HOME=str(directory / "home"),
                SLURM_NTASKS="1", SLURM_JOB_ID="7")


def run_script(text: str, directory: Path, env: dict) -> list[list[str]]:
    """The script run by bash in `directory`: the arguments of each stand-in it ran."""
    done = subprocess.run(["bash", "-c", text], capture_output=True, text=True, cwd=directory, env=env, timeout=30)
    assert done.returncode == 0, done.stderr
    return calls(done.stdout)


def calls(output: str) -> list[list[str]]:
    """The stand-ins' printed arguments, one list per call (each starts with its name)."""
    return [line.split("\0")[:-1] for line in output.split("\n")[:-1]]


def uncommented_alternative(script: str) -> str:
    """The script with the run it offers instead (`# exec ...` and its continuation) uncommented
    in place of its own."""
    lines = script.split("\n")  # not splitlines(): a value may hold U+2028, which ends no line for bash
    prologue = lines[:next(index for index, line in enumerate(lines) if line.startswith("jiobench=")) + 1]
    start = next(index for index, line in enumerate(lines) if line.startswith('# exec "$jiobench"'))
    return "\n".join(prologue + [line[2:] for line in lines[start:start + 2]]) + "\n"


def test_every_value_a_user_gives_arrives_as_one_argument_and_runs_nothing(tmp_path):
    odd = tmp_path / f"odd {HOSTILE.replace('/', '')}"
    odd.mkdir()
    java = odd / "java"
    java.symlink_to(shutil.which("java"))
    jvm_args = f"-Dq={shlex.quote(HOSTILE)}"  # one JVM option, as `jiobench run` splits it
    launcher_args = f"--label {HOSTILE}"
    test_file = odd / "f.dat"
    partition, account = "batch$(touch${IFS}CANARY)", "proj`touch${IFS}CANARY`"
    directory = tmp_path / "sweep"
    done = subprocess.run(
        [str(JIOBENCH), "sweep", "--dir", str(directory), "--procs", "1", "--partition", partition, "--account",
         account, "--time", "5", "--java", str(java), "--launcher-args", launcher_args,
         "--vary", f"jvm-args={jvm_args},-Dq=$HOME", "--", "-a", "calibrate", "-b", "1MiB", "-o", str(test_file)],
        capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    manifest = json.loads((directory / "sweep.json").read_text())
    points = manifest["points"]
    assert [point["jvm_args"] for point in points] == [jvm_args, "-Dq=$HOME"]
    env = stand_ins(tmp_path / "stand-ins")
    for point in points:
        script = (directory / point["script"]).read_text()
        assert f"\n#SBATCH --partition={partition}\n#SBATCH --account={account}\n" in script, script
        for call in (run_script(script, directory, env), run_script(uncommented_alternative(script), directory, env)):
            (args,) = call
            assert args[:2] == ["jiobench", "run"]
            assert args[args.index("--java") + 1] == str(java)
            assert f"--jvm-args={point['jvm_args']}" in args
            assert args[args.index("--") + 1:] == point["runner_args"]
            assert args[args.index("--") + 1:][-4:-2] == ["-o", f"{test_file}.{point['id']}"]
        assert f"--launcher-args={launcher_args}" in run_script(script, directory, env)[0]

    (directory / "logs").mkdir(exist_ok=True)
    assert run_script((directory / "jobs" / "allocation.sbatch").read_text(), directory, env) == []
    for point in points:
        (args,) = calls((directory / "logs" / f"{point['id']}.7.out").read_text())
        assert f"--launcher-args=-J {point['id']} --time=5 {launcher_args}" in args, args
        assert args[args.index("--") + 1:] == point["runner_args"]
    assert (directory / "logs" / "steps.7").read_text().split("\n")[:-1] == [f"{p['id']} 0" for p in points]
    report = run_script((directory / "jobs" / "report.sbatch").read_text(), directory, env)
    assert report == [["jiobench", "sweep", "status", "."], ["jiobench", "report", ".", "-o", "report"]]
    assert not list(tmp_path.rglob("CANARY")), "a value ran as a command"


def test_values_holding_a_double_dash_or_a_unicode_line_end_reach_every_job_byte_for_byte(tmp_path):
    """A job's command is wrapped before the runner's options, at their `--`: the wrap fell at the
    first ` -- ` of the line instead, within a value that held one, and the lines were split again
    wherever Python ends a line (U+2028, U+0085, which bash takes as any other character), so that
    such a value reached the job changed. Each now arrives byte for byte, in every job."""
    odd = tmp_path / "j -- k"
    odd.mkdir()
    java = odd / "java"
    java.symlink_to(shutil.which("java"))
    held = ["a -- b", "$(touch CANARY) 'q' \"d\" -- e\u2028f\x85g"]
    jvm_args = [f"-Dq={shlex.quote(value)}" for value in held]
    launcher_args = f"--label {shlex.quote(held[1])}"
    test_file = odd / "f -- g.dat"
    directory = tmp_path / "sweep"
    done = subprocess.run(
        [str(JIOBENCH), "sweep", "--dir", str(directory), "--procs", "1", "--time", "5", "--java", str(java),
         "--launcher-args", launcher_args, "--vary", f"jvm-args={','.join(jvm_args)}", "--", "-a", "calibrate",
         "-b", "1MiB", "-o", str(test_file)],
        capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert done.returncode == 0, done.stderr
    points = json.loads((directory / "sweep.json").read_text())["points"]
    assert [point["jvm_args"] for point in points] == jvm_args
    env = stand_ins(tmp_path / "stand-ins")
    for point in points:
        script = (directory / point["script"]).read_text(encoding="utf-8")
        for call, launcher in ((run_script(script, directory, env), launcher_args),
                               (run_script(uncommented_alternative(script), directory, env), None)):
            (args,) = call
            assert args[:2] == ["jiobench", "run"] and args[args.index("--java") + 1] == str(java), args
            assert f"--jvm-args={point['jvm_args']}" in args, args
            assert launcher is None or f"--launcher-args={launcher}" in args, args
            assert args[args.index("--") + 1:] == point["runner_args"], args
    (directory / "logs").mkdir(exist_ok=True)
    assert run_script((directory / "jobs" / "allocation.sbatch").read_text(encoding="utf-8"), directory, env) == []
    for point in points:
        (args,) = calls((directory / "logs" / f"{point['id']}.7.out").read_text(encoding="utf-8"))
        assert f"--jvm-args={point['jvm_args']}" in args, args
        assert f"--launcher-args=-J {point['id']} --time=5 {launcher_args}" in args, args
        assert args[args.index("--") + 1:] == point["runner_args"], args
    assert not list(tmp_path.rglob("CANARY")), "a value ran as a command"


@pytest.mark.parametrize("arguments, message", [
    (["--partition", "batch\ntouch /tmp/x"], r"--partition 'batch\ntouch /tmp/x': holds a control character"),
    (["--account", "a\nb"], r"--account 'a\nb': holds a control character"),
    (["--account", "a\rb"], r"--account 'a\rb': holds a control character"),
    (["--time", "5\n"], r"--time '5\n': holds a control character"),
    (["--java", "/usr/bin/java\nid"], r"--java '/usr/bin/java\nid': holds a control character"),
    (["--jvm-args", "-Xmx1g\n-Xms1g"], r"--jvm-args '-Xmx1g\n-Xms1g': holds a control character"),
    (["--launcher-args", "--x\ttab"], r"--launcher-args '--x\ttab': holds a control character"),
    (["--vary", "jvm-args=-Da=1,-Da=\x7f"], r"--jvm-args '-Da=\x7f': holds a control character"),
    (["--vary", "-t=1MiB,2\nMiB"], r"-t '2\nMiB': holds a control character"),
    (["--", "-o", "f\n.dat"], "-o '"),
    (["--partition", "batch debug"], "--partition 'batch debug': an #SBATCH line cannot hold white space"),
    (["--account", "it's"], "--account \"it's\": an #SBATCH line cannot hold white space, quotes"),
    (["--partition", "a#b"], "--partition 'a#b': an #SBATCH line cannot hold"),
])
def test_a_value_no_job_script_can_carry_is_one_line_and_leaves_nothing(tmp_path, arguments, message):
    options, runner = (arguments[:arguments.index("--")], arguments[arguments.index("--") + 1:]) \
        if "--" in arguments else (arguments, [])
    done = subprocess.run([str(JIOBENCH), "sweep", "--dir", "sweep", *options, "--", "-a", "calibrate", *runner],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 2, done
    assert re.fullmatch(r"jiobench: error: [^\n]*\n", done.stderr), done.stderr
    assert message in done.stderr
    assert not (tmp_path / "sweep").exists()
