"""A rank's JVM (one fork of the run): its start, its two control pipes (docs/protocol.md) and its
output, held back until it has started so that the ranks' start-up complaints are said once."""
from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import threading
from typing import IO, Any, BinaryIO, Callable, Optional, Union, cast

from ..exitcode import ExitCode
from . import wire
from .startup import HeldOutput

# How long a JVM asked to stop may take before it is killed.
STOP_GRACE_SECONDS = 5.0
# How often a launcher waiting for its JVM looks at the other ranks.
LOOK_SECONDS = 0.05


class OutputRelay(threading.Thread):
    """Reads one output stream of the JVM into a HeldOutput, which passes it on once the rank has
    started. Relayed as bytes: a JVM may print what is not UTF-8 (a -D value, a file name), and the
    relay must never stop reading, or the JVM blocks on a full pipe."""

    def __init__(self, stream: IO[bytes], out: BinaryIO) -> None:
        super().__init__(daemon=True)
        self.stream = stream
        self.out = out
        self.output: HeldOutput[bytes] = HeldOutput(self.write)

    def run(self) -> None:
        for line in self.stream:
            self.output.add(line)

    def write(self, data: bytes) -> None:
        try:
            self.out.write(data)
            self.out.flush()
        except (OSError, ValueError):
            pass  # the output is gone (a killed launcher took it); the JVM's pipe is still read

    def held_text(self) -> str:
        self.join(timeout=5)
        return b"".join(self.output.lines()).decode(errors="backslashreplace").strip()


class RankJvm:
    """One JVM child of this rank (one fork of the run) and its two control pipes."""

    def __init__(self, command: list[str], rank: int, size: int, host_runs: str, task: str, start: str):
        reply_read, reply_write = os.pipe()
        message_read, message_write = os.pipe()
        env = dict(os.environ)
        env[wire.CONTROL_VARIABLE] = wire.control(rank, size, host_runs, reply_read, message_write, task)
        # A process group of its own: MPI launchers signal each rank's group, and the JVM must hear
        # a stop from this launcher only, as a SIGTERM it handles, not die of a forwarded SIGUSR1.
        self.process = subprocess.Popen(command, env=env, pass_fds=(reply_read, message_write),
                                        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, process_group=0)
        os.close(reply_read)
        os.close(message_write)
        self.replies = os.fdopen(reply_write, "w", buffering=1)
        # Unbuffered: what select says is there is all there is.
        self.messages = os.fdopen(message_read, "rb", buffering=0)
        self.unread = b""
        self.created: dict[str, str] = {}  # what the JVM created (path: identity), as it said the moment it did
        assert self.process.stdout is not None and self.process.stderr is not None  # both are pipes
        self.relays = [OutputRelay(self.process.stdout, sys.stdout.buffer),
                       OutputRelay(self.process.stderr, sys.stderr.buffer)]
        for relay in self.relays:
            relay.start()
        self.phase = start
        self.when = "during"  # or "after" the phase, between two of them
        self.killed = False  # by this launcher: a stop's grace over, a start too late

    def receive(self, tend: Callable[[], None]) -> Optional[dict[str, Any]]:
        """The JVM's next message, None when it is gone; `tend` is called while it is awaited.
        What the JVM created is noted here, whatever is awaited."""
        while True:
            message = self.next_message(tend)
            if message is None or message["type"] != wire.Kind.CREATED:
                return message
            self.created.update(message["files"])

    def next_message(self, tend: Callable[[], None]) -> Optional[dict[str, Any]]:
        while b"\n" not in self.unread:
            if not select.select([self.messages], [], [], LOOK_SECONDS)[0]:
                tend()
                continue
            try:
                chunk = self.messages.read(1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                return None
            self.unread += chunk
        line, self.unread = self.unread.split(b"\n", 1)
        return wire.message(line)

    def answer(self, text: Union[str, int]) -> None:
        try:
            self.replies.write(f"{text}\n")
            self.replies.flush()
        except (BrokenPipeError, ValueError):
            pass  # the JVM is gone; what it left is reported from its exit

    def pass_through(self) -> None:
        for relay in self.relays:
            relay.output.release()

    def held_text(self) -> str:
        return "\n".join(text for text in (relay.held_text() for relay in self.relays) if text)

    def ask_to_stop(self) -> None:
        """SIGTERM, which the runner takes as a request to end its phase at the next check."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)

    def end(self, grace: float = STOP_GRACE_SECONDS) -> int:
        """Waits for the JVM to exit, killing it if it takes longer than the grace."""
        try:
            return self.process.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            self.kill()
            return self.process.wait()

    def kill(self) -> None:
        """Kills the JVM's whole process group: a java wrapper's children (a sleep, a JVM it did not
        exec) would otherwise hold the output pipes open after it."""
        self.killed = True
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass

    def close(self) -> None:
        """Tells the JVM the run ends here and waits for it to go."""
        self.answer(wire.Answer.STOP)
        self.end()

    def death(self) -> str:
        """How the JVM ended, in words."""
        code = self.end()
        if code < 0:
            return f"the JVM was killed by {signal.Signals(-code).name}"
        return f"the JVM exited with code {code}"


def start_status(jvm: RankJvm, first: Optional[dict[str, Any]]) -> tuple[int, str, Optional[dict[str, Any]]]:
    """(exit code, message, ready message): how this rank's JVM came up."""
    if first is None:
        code = jvm.end()
        text = jvm.held_text()
        if code == 0:
            java = cast("list[str]", jvm.process.args)[0]  # RankJvm starts it from a list
            return ExitCode.MISTAKE, (f"{java} exited without running the jiobench runner"
                       + (f": {text}" if text else " (is it a Java 17 or newer runtime?)")), None
        return (ExitCode.MISTAKE if code in (ExitCode.FAILED, ExitCode.MISTAKE) else code), text or f"{jvm.death()} before it started", None
    if first["type"] == wire.Kind.REFUSED:
        jvm.end()
        return first.get("exit", ExitCode.MISTAKE), "\n".join(first["messages"]), None
    if first["type"] == wire.Kind.READY:
        return ExitCode.DONE, "", first
    if first["type"] == wire.Kind.FAILED:
        # A later JVM whose files are not what the run began with ends before it is ready.
        jvm.end()
        return ExitCode.FAILED, "; ".join(first["messages"]), None
    return ExitCode.FAILED, f"unexpected first message {first!r}", None


def file_identity(ready: Optional[dict[str, Any]]) -> Optional[int]:
    """This rank's inode number of the run's test file, None where it sees none."""
    if ready is None:
        return None
    try:
        return os.stat(ready["parameters"]["file"]).st_ino
    except OSError:
        return None


class NotReady(Exception):
    """A JVM not ready within the start-up deadline."""
