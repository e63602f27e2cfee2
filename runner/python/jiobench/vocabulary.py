"""The runner's vocabulary as the runner itself tells it (`java -jar JAR --describe`): its
approaches, their groups and options, its run-wide options, -i auto's fewest repetitions. The
verbs that start the runner read these names here rather than keep copies of them; the report
verb works from run files alone and does not.

One JVM per process and java: the description is the same for every question asked of it."""
from __future__ import annotations

import functools
import json
import os
import subprocess
from typing import Optional

from .errors import UsageError
from .paths import HOME, JAR


def default_java() -> str:
    return os.environ.get("JIOBENCH_JAVA", "java")


def solo_environment() -> dict[str, str]:
    """The environment of a runner JVM asked a question outside a run: a launcher's control
    variable (jiobench.run.wire.CONTROL_VARIABLE) would make it look for the launcher that set it."""
    return {key: value for key, value in os.environ.items() if key != "JIOBENCH_CONTROL"}


@functools.cache
def description(java: Optional[str] = None) -> dict:
    """The runner's description, as the runner JAR prints it; a UsageError where there is none."""
    java = java or default_java()
    if not JAR.is_file():
        raise UsageError(f"the runner is not built ({JAR} is missing): run 'make build' in {HOME}")
    env = solo_environment()
    try:
        done = subprocess.run([java, "-jar", str(JAR), "--describe"], capture_output=True, text=True, env=env,
                              timeout=120)
    except OSError as problem:
        raise UsageError(f"cannot start {java} to ask the runner for its options: {problem.strerror}") from None
    if done.returncode != 0:
        said = [line for line in done.stderr.splitlines() if line.strip()]
        raise UsageError(f"{java} -jar {JAR} --describe failed (exit code {done.returncode})"
                         + (f": {said[-1].strip()}" if said else "") + ": is it a JDK 17 or later?")
    return json.loads(done.stdout)


def option_name(name: str, java: Optional[str] = None) -> str:
    """A run-wide option's one name, its first short name where it has one: `--block-size` and
    `-b` are both `-b`. A name the runner does not know stays as it is, for its parser to refuse."""
    for option in description(java)["options"]:
        if name == option["name"] or name in option["short_names"]:
            return (option["short_names"] or [option["name"]])[0]
    return name


def approaches_reading_in_place(java: Optional[str] = None) -> list[str]:
    """The approaches whose reads hand the transfer array itself to the kernel."""
    return [approach["id"] for approach in description(java)["approaches"] if approach["reads_in_place"]]
