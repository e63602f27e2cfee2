"""The runner's vocabulary as the runner itself tells it (`java -jar JAR --describe`): its
approaches, their groups and options, its run-wide options, -i auto's fewest repetitions. The
verbs that start the runner read these names here rather than keep copies of them; the report
verb works from run files alone and does not.

One JVM per process and java: the description is the same for every question asked of it."""
from __future__ import annotations

import functools
import json
import os
import re
import resource
import subprocess
from typing import Any, Optional, Sequence

from .errors import UsageError
from .paths import HOME, JAR

# A JVM asked a question leaves nothing in the working directory: one that cannot start under a
# limit would write its crash report (hs_err_pid*.log) or its compiler's replay file there.
QUESTION_OPTIONS = ("-XX:ErrorFile=/dev/null", "-XX:-DumpReplayDataOnError")
# And takes one malloc arena of the C library's 64 MiB each (up to 8 a processor otherwise): under
# an address-space limit whether it starts is then not left to chance (jiobench.run.limits).
QUESTION_ENVIRONMENT = {"MALLOC_ARENA_MAX": "1"}
# --describe prints names and runs nothing, so its JVM is kept small, that it starts wherever a
# run's JVM does: a heap sized as for a machine of 1 GiB (256 MiB), 64 MiB of class space, 32 MiB
# of code cache, C1 alone. With HotSpot's defaults (a quarter of the memory, or half the
# address-space limit; 1 GiB of class space; 240 MiB of code cache) it did not start under ulimit
# -v 3 GiB, where the runs' JVMs of -Xmx512m did; with these it starts from 700 MiB (JDK 17).
DESCRIBE_OPTIONS = ("-XX:MaxRAM=1g", "-XX:CompressedClassSpaceSize=64m", "-XX:ReservedCodeCacheSize=32m",
                    "-XX:TieredStopAtLevel=1")
# HotSpot's headlines where a JVM could not get going or ran out of memory, and where its class
# files are newer than it.
JVM_DID_NOT_START = re.compile(r"Error occurred during initialization of VM|insufficient memory for the Java Runtime"
                               r"|OutOfMemoryError")
TOO_OLD = re.compile(r"UnsupportedClassVersionError")
# HotSpot's decorations of a line: "[0.006s][warning][os,thread] " and "# ".
DECORATION = re.compile(r"^(\[[^\]]*\])+\s*|^#\s*")
# A JVM's lines that are not its words on why it failed: where its report went, a stack frame.
NOT_THE_CAUSE = re.compile(r"^$|^An error report file|^/|^at ")


def default_java() -> str:
    return os.environ.get("JIOBENCH_JAVA", "java")


def solo_environment() -> dict[str, str]:
    """The environment of a runner JVM asked a question outside a run: a launcher's control
    variable (jiobench.run.wire.CONTROL_VARIABLE) would make it look for the launcher that set it."""
    return {key: value for key, value in os.environ.items() if key != "JIOBENCH_CONTROL"}


def question(command: Sequence[str]) -> subprocess.CompletedProcess[str]:
    """A JVM asked a question outside a run: `command` is java and its options, QUESTION_OPTIONS
    go in after java (the options after them win). OSError where java cannot be started."""
    java, *rest = command
    return subprocess.run([java, *QUESTION_OPTIONS, *rest], capture_output=True, text=True,
                          env={**solo_environment(), **QUESTION_ENVIRONMENT}, timeout=120)


def cause(printed: str) -> str:
    """The line in which a JVM that failed says why, without HotSpot's decorations."""
    lines = [DECORATION.sub("", line).strip() for line in printed.splitlines()]
    causes = [line for line in lines if not NOT_THE_CAUSE.search(line)]
    return causes[-1] if causes else ""


@functools.cache
def description(java: Optional[str] = None) -> dict[str, Any]:
    """The runner's description, as the runner JAR prints it; a UsageError where there is none."""
    java = java or default_java()
    if not JAR.is_file():
        raise UsageError(f"the runner is not built ({JAR} is missing): run 'make build' in {HOME}")
    try:
        done = question([java, *DESCRIBE_OPTIONS, "-jar", str(JAR), "--describe"])
    except OSError as problem:
        raise UsageError(f"cannot start {java} to ask the runner for its options: {problem.strerror}") from None
    if done.returncode != 0:
        printed = done.stderr + done.stdout
        said = cause(printed)
        limit, _ = resource.getrlimit(resource.RLIMIT_AS)
        if TOO_OLD.search(printed):
            raise UsageError(f"{java} cannot run the runner ({said}): is it a JDK 17 or later?")
        if limit != resource.RLIM_INFINITY and JVM_DID_NOT_START.search(printed):
            raise UsageError(f"{java} could not start under the virtual memory limit (ulimit -v) of {limit >> 10} KiB "
                             f"to describe the runner ({said}): raise the limit, or lift it (ulimit -v unlimited)")
        raise UsageError(f"{java} -jar {JAR} --describe failed (exit code {done.returncode})"
                         + (f": {said}" if said else ""))
    described: dict[str, Any] = json.loads(done.stdout)
    return described


def option_name(name: str, java: Optional[str] = None) -> str:
    """A run-wide option's one name, its first short name where it has one: `--block-size` and
    `-b` are both `-b`. A name the runner does not know stays as it is, for its parser to refuse."""
    for option in description(java)["options"]:
        if name == option["name"] or name in option["short_names"]:
            short_or_long: str = (option["short_names"] or [option["name"]])[0]
            return short_or_long
    return name


def approaches_reading_in_place(java: Optional[str] = None) -> list[str]:
    """The approaches whose reads hand the transfer array itself to the kernel."""
    return [approach["id"] for approach in description(java)["approaches"] if approach["reads_in_place"]]
