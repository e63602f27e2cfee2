"""What `jiobench run` was asked for, parsed once and handed to whichever launch path runs it."""
from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional, Union

from . import appcds, wire
from .node import cpus_available

# --jvm-cpus: each JVM sized for its share of its node's processors, or left to count them all.
AUTO, ALL = "auto", "all"
# Below two processors HotSpot takes its machine for a client and picks the Serial collector
# over G1, which lays out the heap otherwise (measured: -XX:ActiveProcessorCount=1 turns on
# UseSerialGC, 2 keeps UseG1GC): a share is never below two where the JVM would see two or more.
LEAST_SHARE = 2
# A JVM's crash report (hs_err), in a directory of its rank's own (crash_reports) rather than once
# per rank in the working directory, or under a name another user of a shared temporary directory
# could guess and plant a link at; the JVM says where in its last words, which the rank relays.
ERROR_FILE = "hs_err_pid%p.log"
# A JIT compiler's crash leaves its replay data beside the report, rather than in the working directory.
REPLAY_DATA_FILE = "replay_pid%p.log"
ACTIVE_PROCESSOR_COUNT = "-XX:ActiveProcessorCount="


@dataclass(frozen=True)
class RunRequest:
    ranks: int
    launcher: str
    launcher_args: tuple[str, ...]
    jvm_args: tuple[str, ...]
    java: str
    jar: str
    run_id: str | None
    # The user's own command (`jiobench run ...`), as the run file records it.
    command_line: tuple[str, ...]
    runner_args: tuple[str, ...]
    # How long every rank's JVM has to come up and say it is ready before the run ends without it.
    start_timeout: float = 120.0
    # The processors each JVM sizes its threads for (GC workers, compilers): AUTO, its node's
    # shared among the ranks there; ALL, as many as the JVM finds; or a count.
    jvm_cpus: Union[int, str] = AUTO

    def jvm_command(self, ranks_on_node: int = 1, crash_reports: Optional[str] = None) -> list[str]:
        """The runner as each rank starts it: java, jiobench's JVM options, the user's (which
        come later and win), the jar, the runner's options. `ranks_on_node`: the ranks of the run
        on this rank's node, which share its processors; `crash_reports`: the directory its JVMs'
        crash reports go to (crashreports.new_directory)."""
        own = self.own_jvm_options(ranks_on_node, crash_reports)
        counted = [wire.own_options_count(len(own))] if own else []
        return [self.java, *own, *counted, *self.jvm_args, "-jar", self.jar, *self.runner_args]

    def own_jvm_options(self, ranks_on_node: int, crash_reports: Optional[str]) -> list[str]:
        """What jiobench adds: the JVM's processors, where its crash report goes, and the runner's
        class archive (jiobench.run.appcds); each only where the user's options do not say it."""
        own = []
        active = self.active_processors(ranks_on_node)
        if active is not None:
            own.append(f"{ACTIVE_PROCESSOR_COUNT}{active}")
        for option, name in (("-XX:ErrorFile=", ERROR_FILE), ("-XX:ReplayDataFile=", REPLAY_DATA_FILE)):
            if crash_reports is not None and not self.user_sets(option):
                own.append(f"{option}{Path(crash_reports, name)}")
        return own + appcds.jvm_options(self.java, Path(self.jar), self.jvm_args)

    def user_sets(self, option: str) -> bool:
        return any(arg.startswith(option) for arg in self.jvm_args)

    def active_processors(self, ranks_on_node: int) -> Optional[int]:
        """The processors jiobench sizes each JVM for, None where the JVM counts them itself
        (--jvm-cpus all, or the user's own -XX:ActiveProcessorCount)."""
        if self.jvm_cpus == ALL or self.user_sets(ACTIVE_PROCESSOR_COUNT):
            return None
        if self.jvm_cpus != AUTO:
            return int(self.jvm_cpus)
        cpus = cpus_available()
        return min(cpus, max(LEAST_SHARE, cpus // max(1, ranks_on_node)))

    def jvm_processors(self, ranks_on_node: int) -> int:
        """The processors each JVM sizes its threads for, whoever chose them."""
        for arg in reversed(self.jvm_args):
            if arg.startswith(ACTIVE_PROCESSOR_COUNT) and arg[len(ACTIVE_PROCESSOR_COUNT):].isdigit():
                return max(1, int(arg[len(ACTIVE_PROCESSOR_COUNT):]))
        active = self.active_processors(ranks_on_node)
        return cpus_available() if active is None else active

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self))

    @classmethod
    def from_json(cls, text: str) -> RunRequest:
        fields = json.loads(text)
        arguments: dict[str, Any] = {name: tuple(value) if isinstance(value, list) else value
                                     for name, value in fields.items()}
        return cls(**arguments)
