"""Runs the real thing: bin/jiobench under mpirun, with real JVMs and real files."""
from __future__ import annotations

import json
import os
import re
import shutil
import struct
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Optional

import pytest

HOME = Path(__file__).resolve().parents[3]
JIOBENCH = HOME / "bin" / "jiobench"
CLUSTER = HOME / "slurm" / "local-cluster.sh"
# The launch paths a behaviour that both paths promise is tested on (docs/reliability.md).
EVERY_LAUNCH_PATH = ["mpirun", "mpj-niodev", "mpj-multicore"]


class Run:
    def __init__(self, completed: subprocess.CompletedProcess):
        self.code = completed.returncode
        self.stdout = completed.stdout
        self.stderr = completed.stderr

    @property
    def file(self) -> dict:
        """The run file whose path is the last line printed."""
        path = self.stdout.strip().splitlines()[-1]
        return json.loads(Path(path).read_text())

    def __repr__(self):
        return f"exit {self.code}\n--- stdout\n{self.stdout}\n--- stderr\n{self.stderr}"


def run_bounded(command: list, timeout: float, **popen) -> subprocess.CompletedProcess:
    """subprocess.run with a timeout that ends the whole run: `jiobench run` is stopped as a user
    would stop it, so its launcher and ranks (in a session of their own, which killing it alone
    would leave running) go too and do not slow the tests after this one."""
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **popen) as process:
        try:
            stdout, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            process.terminate()
            try:
                process.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
            pytest.fail(f"{command} ran past {timeout} s")
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


@pytest.fixture
def jiobench(tmp_path):
    """Calls `bin/jiobench run -n RANKS -- ARGS` with results under the test's own directory."""

    def run(*args: str, ranks: int = 2, timeout: float = 120, results: bool = True,
            java: Optional[str] = None, jvm_args: Optional[str] = None) -> Run:
        runner_args = list(args) + (["--results", str(tmp_path / "results")] if results else [])
        own = (["--java", java] if java else []) + ([f"--jvm-args={jvm_args}"] if jvm_args else [])
        return Run(run_bounded([str(JIOBENCH), "run", "-n", str(ranks), *own, "--", *runner_args],
                               timeout=timeout, text=True, cwd=tmp_path))

    return run


def not_of_the_heap(warnings: list[str]) -> list[str]:
    """A run's warnings but the heap's (a humongous transfer array, which test_jvm_heap.py holds):
    for tests of other warnings, whose arrays G1's regions may or may not make humongous."""
    return [warning for warning in warnings if "is humongous under G1" not in warning]


def pattern_bits(g: int, seed: int) -> int:
    """The data pattern (org.jiobench.workloads.Pattern), written again from its definition."""
    mask = (1 << 64) - 1
    z = (g * 0x9E3779B97F4A7C15 + seed) & mask
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
    return z ^ (z >> 31)


def per_rank(run_file: dict, op: str, key: str = "bytes") -> list:
    """One figure of each rank's records of the run's phases of one kind, in rank order."""
    return [r[key] for r in sorted(run_file["per_rank"], key=lambda r: r["rank"]) if r["op"] == op]


def reference_bytes(type_id: str, elements: range, seed: int, byte_order: str = "big") -> bytes:
    """The pattern's bytes by Python's struct: big-endian as DataOutput writes them, or little-endian."""
    order = ">" if byte_order == "big" else "<"
    out = bytearray()
    for g in elements:
        bits = pattern_bits(g, seed)
        if type_id == "byte":
            out.append(bits & 0xFF)
        elif type_id == "int":
            out += struct.pack(order + "I", bits & 0xFFFF_FFFF)
        elif type_id == "long":
            out += struct.pack(order + "Q", bits)
        elif type_id == "float":
            out += struct.pack(order + "I", bits & 0xBFFF_FFFF)
        elif type_id == "double":
            out += struct.pack(order + "Q", bits & 0xBFFF_FFFF_FFFF_FFFF)
    return bytes(out)


@pytest.fixture(scope="session")
def slurm():
    """A real single-node Slurm (slurm/local-cluster.sh) for the session; yields the environment
    its clients need."""
    # munged wants every directory above its socket searchable by all: pytest's own are private.
    directory = Path(tempfile.mkdtemp(prefix="jiobench-slurm-"))
    directory.chmod(0o755)
    started = subprocess.run([str(CLUSTER), "start", str(directory)], capture_output=True, text=True, timeout=60)
    assert started.returncode == 0, started.stderr
    env = dict(os.environ, SLURM_CONF=str(directory / "slurm.conf"))
    yield env
    subprocess.run([str(CLUSTER), "stop", str(directory)], capture_output=True, timeout=60)
    shutil.rmtree(directory, ignore_errors=True)


def job_state(env, job_id: str) -> str:
    shown = subprocess.run(["scontrol", "show", "job", job_id], capture_output=True, text=True, env=env).stdout
    return next(field.split("=", 1)[1] for field in shown.split() if field.startswith("JobState="))


def wait_for_job(env, job_id: str, timeout: float = 240) -> str:
    """The job's state once it has ended (polling scontrol: sbatch --wait polls every few seconds)."""
    deadline = time.monotonic() + timeout
    state = job_state(env, job_id)
    while state in ("PENDING", "RUNNING", "CONFIGURING", "COMPLETING"):
        assert time.monotonic() < deadline, f"job {job_id} still {state}"
        time.sleep(0.2)
        state = job_state(env, job_id)
    return state


def modern_java() -> Optional[str]:
    """A java of JDK 22 or newer, which ffm needs, from /usr/lib/jvm, or None where there is none."""
    for release in sorted(Path("/usr/lib/jvm").glob("*/release"), reverse=True):
        version = re.search(r'^JAVA_VERSION="(\d+)', release.read_text(errors="replace"), re.MULTILINE)
        java = release.parent / "bin" / "java"
        if version and int(version.group(1)) >= 22 and java.is_file():
            return str(java)
    return None
