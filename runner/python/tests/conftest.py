"""Runs the real thing: bin/jiobench under mpirun, with real JVMs and real files."""
from __future__ import annotations

import json
import re
import struct
import subprocess
from pathlib import Path
from typing import Optional

import pytest

HOME = Path(__file__).resolve().parents[3]
JIOBENCH = HOME / "bin" / "jiobench"


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


@pytest.fixture
def jiobench(tmp_path):
    """Calls `bin/jiobench run -n RANKS -- ARGS` with results under the test's own directory."""

    def run(*args: str, ranks: int = 2, timeout: float = 120, results: bool = True,
            java: Optional[str] = None) -> Run:
        runner_args = list(args) + (["--results", str(tmp_path / "results")] if results else [])
        own = ["--java", java] if java else []
        completed = subprocess.run([str(JIOBENCH), "run", "-n", str(ranks), *own, "--", *runner_args],
                                   capture_output=True, text=True, timeout=timeout, cwd=tmp_path)
        return Run(completed)

    return run


def pattern_bits(g: int, seed: int) -> int:
    """The data pattern (org.jiobench.workloads.Pattern), written again from its definition."""
    mask = (1 << 64) - 1
    z = (g * 0x9E3779B97F4A7C15 + seed) & mask
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
    return z ^ (z >> 31)


def reference_bytes(type_id: str, elements: range, seed: int, byte_order: str = "big") -> bytes:
    """The pattern's bytes by Python's struct: big-endian as DataOutput writes them, or little-endian."""
    order = ">" if byte_order == "big" else "<"
    out = bytearray()
    for g in elements:
        bits = pattern_bits(g, seed)
        if type_id == "int":
            out += struct.pack(order + "I", bits & 0xFFFF_FFFF)
        elif type_id == "long":
            out += struct.pack(order + "Q", bits)
        elif type_id == "float":
            out += struct.pack(order + "I", bits & 0xBFFF_FFFF)
        elif type_id == "double":
            out += struct.pack(order + "Q", bits & 0xBFFF_FFFF_FFFF_FFFF)
    return bytes(out)


def modern_java() -> Optional[str]:
    """A java of JDK 22 or newer, which ffm needs, from /usr/lib/jvm, or None where there is none."""
    for release in sorted(Path("/usr/lib/jvm").glob("*/release"), reverse=True):
        version = re.search(r'^JAVA_VERSION="(\d+)', release.read_text(errors="replace"), re.MULTILINE)
        java = release.parent / "bin" / "java"
        if version and int(version.group(1)) >= 22 and java.is_file():
            return str(java)
    return None
