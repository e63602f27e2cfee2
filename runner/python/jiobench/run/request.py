"""What `jiobench run` was asked for, parsed once and handed to whichever launch path runs it."""
from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass


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

    def jvm_command(self) -> list[str]:
        """The runner as each rank starts it: java, the JVM options, the jar, the runner's options."""
        return [self.java, *self.jvm_args, "-jar", self.jar, *self.runner_args]

    def to_json(self) -> str:
        return json.dumps(dataclasses.asdict(self))

    @classmethod
    def from_json(cls, text: str) -> RunRequest:
        fields = json.loads(text)
        return cls(**{name: tuple(value) if isinstance(value, list) else value for name, value in fields.items()})
