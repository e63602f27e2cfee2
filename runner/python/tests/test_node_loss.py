"""A node lost in the middle of a run (its link cut), on a virtual cluster of 2 nodes of its own:
the ranks that survive end the run within 30 s whatever Slurm's own timeouts, name the node and
its ranks, write the phases completed before and remove the test file, so that a requeued job
starts clean; nothing of the run is left on the surviving node."""
from __future__ import annotations

import json
import re
import shlex
import subprocess
import threading
import time

import pytest

from testing import JIOBENCH, VIRTUAL_CLUSTER, started_virtual_cluster
from test_nodes import jiobench_processes

pytestmark = pytest.mark.cluster

# data-stream's phases run to their 30 s deadline: the link is cut inside one of them.
SLOW = ["-a", "raw-bytes,data-stream", "-b", "16MiB", "-t", "1MiB", "-i", "1", "-D", "30"]
RAW_BYTES_DONE = "raw-bytes              read  fork 1 rep 1"
ENDED = "jiobench-exit="


@pytest.fixture
def cluster():
    with started_virtual_cluster(2) as cluster:
        yield cluster


class Output:
    """A stream's lines as they come, each with when it came."""

    def __init__(self, stream):
        self.lines: list[tuple[float, str]] = []
        threading.Thread(target=lambda: self.lines.extend((time.monotonic(), line) for line in stream),
                         daemon=True).start()

    def text(self) -> str:
        return "".join(line for _, line in self.lines)

    def wait_for(self, text: str, timeout: float) -> float:
        """When a line holding the text came."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for when, line in list(self.lines):
                if text in line:
                    return when
            time.sleep(0.1)
        pytest.fail(f"no '{text}' within {timeout} s:\n{self.text()}")


@pytest.mark.parametrize("launcher", ["srun", "mpirun"])
def test_a_lost_node_ends_the_run_within_30_s_and_keeps_what_was_measured(cluster, launcher):
    directory = cluster.home / f"lost-{launcher}"
    directory.mkdir()
    test_file = directory / "f.dat"
    run = [str(JIOBENCH), "run", "--launcher", launcher, "-n", "4"]
    if launcher == "mpirun":
        run.append(f"--launcher-args=--mca plm_rsh_agent {cluster.rsh_agent} --hostfile {cluster.hostfile} "
                   "--map-by ppr:2:node")
    run += ["--", *SLOW, "-o", str(test_file), "--results", str(directory / "results")]
    command = ["sh", "-c", f'{shlex.join(run)}; echo "{ENDED}$?"']
    if launcher == "srun":
        command = ["salloc", "-N", "2", "--ntasks-per-node", "2", *command]
    process = subprocess.Popen([*cluster.on(1), *command], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               cwd=directory, env=cluster.env, start_new_session=True)
    out, err = Output(process.stdout), Output(process.stderr)
    try:
        out.wait_for(RAW_BYTES_DONE, timeout=180)
        time.sleep(3)  # data-stream's JVMs are in their first phase
        subprocess.run([str(VIRTUAL_CLUSTER), "link", str(cluster.directory), "2", "down"], check=True, timeout=30)
        cut = time.monotonic()
        ended = out.wait_for(ENDED, timeout=90)
        left = jiobench_processes(cluster)["node1"]
        for _ in range(50):
            if not left:
                break
            time.sleep(0.1)
            left = jiobench_processes(cluster)["node1"]
    finally:
        cluster.stop_process(process)
    stderr = err.text()
    assert ended - cut < 30, f"ended {ended - cut:.1f} s after the link was cut\n{stderr}"
    assert f"{ENDED}1" in out.text(), stderr
    # During data-stream's start or its first phase, as the machine's load has it.
    assert re.search(r"^jiobench: ranks 2, 3 on node2 stopped answering for 10 s during .*data-stream .*the run file "
                     r"keeps the 4 phases completed before$", stderr, re.MULTILINE), stderr
    (run_file,) = (directory / "results").glob("*.json")
    written = json.loads(run_file.read_text())
    assert written["incomplete"]["reason"] == "failed", written["incomplete"]
    assert [phase["approach"] for phase in written["phases"]] == ["raw-bytes"] * 4
    assert not test_file.exists(), "a requeued job would find the file of the lost run"
    assert left == [], "still running on the node that survived"
