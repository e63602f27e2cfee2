"""jiobench across the nodes of a virtual cluster (scripts/virtual-cluster.sh): srun in an
allocation and in a batch job, mpirun through an rsh agent without Slurm, on 2 and 3 nodes; the
test file on the cluster's GlusterFS volume, the results on its shared home. What the volume's
bricks served comes from GlusterFS's own profile, and what a node's client caches from fincore
inside that node."""
from __future__ import annotations

import json
import os
import re
import shlex
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from testing import JIOBENCH, VIRTUAL_CLUSTER, VirtualCluster, ended, plans_of_most_of_the_memory, records
from test_ceph_volume import Volume
from test_gluster_volume import BrickProfile, alive
from test_runs import PAPER

pytestmark = pytest.mark.cluster

RANKS_PER_NODE = 2
# -D 1: data-stream writes an int per FUSE round trip (kB/s), the deadline ends its phases.
# --forks 0: one JVM per rank for every approach; each JVM's start takes seconds on the machine's
# two cores, which every node shares.
EVERY_APPROACH = ["-a", "paper,c-posix", "-b", "8MiB", "-t", "1MiB", "-D", "1", "--warmup", "0", "--forks", "0",
                  "--verify"]
ONE_PER_NODE = ["-N", "2", "--ntasks-per-node", "1"]
NODE_LOCAL = ("-o /tmp/jio.dat: the ranks on node1 and node2 do not see one file there (a directory local to each "
              "node, such as /tmp?); give -o a path on a file system every node shares")
# What the bricks may fall short of a dropped run's reads: a few pages that the FUSE client keeps
# in caches of its own, out of the kernel's reach (8 KiB of 128 MiB once, test_gluster_volume.py).
# Less than a block of the runs below: a node whose page cache answered a block falls short by all of it.
CLIENT_PAGES = 1 << 20


def run_file(output: str) -> dict:
    """The run file whose path `jiobench run` printed last (on the cluster's home, which this
    machine sees at the same path), with its per-rank file's records as `records`."""
    path = Path(output.strip().splitlines()[-1])
    return dict(json.loads(path.read_text()), records=records(path))


def jiobench_lines(stderr: str) -> list[str]:
    """What jiobench said, without the lines of Slurm and Open MPI around it."""
    return [line for line in stderr.splitlines() if line.startswith("jiobench")]


def in_allocation(cluster: VirtualCluster, directory: Path, salloc: list[str], ranks: int, runner: list[str],
                  timeout: float = 150):
    """`jiobench run --launcher srun` in an allocation of `salloc`'s shape, from node1."""
    return cluster.exec(1, "salloc", *salloc, str(JIOBENCH), "run", "--launcher", "srun", "-n", str(ranks), "--",
                        *runner, timeout=timeout, cwd=directory)


def over_rsh(cluster: VirtualCluster, directory: Path, per_node: int, ranks: int, runner: list[str],
             timeout: float = 150, env: tuple[str, ...] = ()):
    """`jiobench run --launcher mpirun` from node1 without Slurm, `per_node` ranks on each node it
    enters through the rsh agent; `env`: NAME=VALUE settings for rank 0's side of the run."""
    remote = f"--mca plm_rsh_agent {cluster.rsh_agent} --hostfile {cluster.hostfile} --map-by ppr:{per_node}:node"
    return cluster.exec(1, "env", *env, str(JIOBENCH), "run", "--launcher", "mpirun", "-n", str(ranks),
                        f"--launcher-args={remote}", "--", *runner, timeout=timeout, cwd=directory)


def submit(cluster: VirtualCluster, directory: Path, nodes: int, runner: list[str]) -> str:
    """A batch job of `jiobench run --launcher srun` on `nodes` nodes of RANKS_PER_NODE ranks, its
    output in directory/job.out; its id."""
    script = directory / "job.sh"
    script.write_text(f'#!/bin/bash\nexec {JIOBENCH} run --launcher srun -n "$SLURM_NTASKS" -- {shlex.join(runner)}\n')
    script.chmod(0o755)
    submitted = cluster.exec(1, "sbatch", "--parsable", "-N", str(nodes), "--ntasks-per-node", str(RANKS_PER_NODE),
                             "-o", "job.out", str(script), timeout=30, cwd=directory)
    assert submitted.returncode == 0, submitted
    return submitted.stdout.strip().split(";")[0]


class VolumeProfile(BrickProfile):
    """The profile of the cluster's volume, asked of node1's glusterd: only the nodes reach it."""

    def __init__(self, cluster: VirtualCluster):
        (volume,) = cluster.exec(1, "gluster", "--mode=script", "volume", "list", timeout=30).stdout.split()
        self.cli = [*cluster.on(1), "gluster", "--mode=script", "volume", "profile", volume]


def profiled(cluster: VirtualCluster, run) -> tuple[dict, dict]:
    """The run file of `run()`, a `jiobench run` that must succeed, and what the bricks served meanwhile."""
    done = []
    with VolumeProfile(cluster) as bricks:
        served = bricks.during(lambda: done.append(run()))
    assert done[0].returncode == 0, done[0].stdout + done[0].stderr
    return run_file(done[0].stdout), served


def read_by_the_nodes(run: dict) -> int:
    """The bytes the run's read phases took from the volume, node by node: a block that several
    ranks of one node read in one phase counts once, as their client may answer the second
    request from what it fetched for the first."""
    read_block_of = run["parameters"]["read_block_of"]
    fetched = {}
    for record in run["records"]:
        if record["op"] == "read":
            block = read_block_of[record["rank"]] if read_block_of else record["rank"]
            fetched[record["approach"], record["fork"], record["rep"], record["host"], block] = record["bytes"]
    return sum(fetched.values())


def cached(cluster: VirtualCluster, node: int, path: Path) -> tuple[int, int]:
    """The bytes of the file that node's FUSE client holds in its page cache, and the file's size."""
    shown = cluster.exec(node, "fincore", "--bytes", "--noheadings", "--output", "RES,SIZE", str(path), timeout=30)
    assert shown.returncode == 0, shown
    resident, size = shown.stdout.split()
    return int(resident), int(size)


def holds_the_file(resident: int, size: int) -> bool:
    """Whether a client's page cache holds the file, but for the few pages that may go on their
    own, even right after a read of all of it (20 of 12,288 once; 9 of 6,144 another time)."""
    return resident >= size * 9 // 10


def jiobench_processes(cluster: VirtualCluster) -> dict[str, list[int]]:
    """By node, the live processes of jiobench there: JVMs, and Python running jiobench's modules
    (`jiobench run`, each rank's launcher, the srun that starts them). Matched on the command
    line's words: the cluster's own directory, in its daemons' command lines, holds "jiobench" too."""
    holders = {name: (cluster.directory / "pids" / f"holder-{name}.pid").read_text().strip() for name in cluster.nodes}
    node_of_namespace = {os.readlink(f"/proc/{pid}/ns/net"): name for name, pid in holders.items()}
    found = {name: [] for name in cluster.nodes}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            node = node_of_namespace.get(os.readlink(entry / "ns" / "net"))
            words = [os.fsdecode(word) for word in (entry / "cmdline").read_bytes().split(b"\0")]
        except OSError:
            continue
        if node and (Path(words[0]).name == "java" or any(word.startswith("jiobench.") for word in words)) \
                and alive(int(entry.name)):
            found[node].append(int(entry.name))
    return found


@pytest.mark.parametrize("launch, nodes", [("allocation", 2), ("batch-job", 2), ("mpirun-over-rsh", 3)])
def test_every_approach_verifies_with_the_ranks_of_each_node(virtual_cluster, launch, nodes):
    cluster = virtual_cluster
    ranks = nodes * RANKS_PER_NODE
    directory = cluster.home / f"every-approach-{launch}"
    directory.mkdir()
    test_file = cluster.mount / f"{launch}.dat"
    runner = [*EVERY_APPROACH, "-o", str(test_file), "--results", str(directory / "results")]
    if launch == "allocation":
        done = in_allocation(cluster, directory, ["-N", str(nodes), "--ntasks-per-node", str(RANKS_PER_NODE)], ranks,
                             runner)
        assert done.returncode == 0, ended(done)
        output = done.stdout
    elif launch == "batch-job":
        state = cluster.wait_for_job(submit(cluster, directory, nodes, runner), timeout=150)
        output = (directory / "job.out").read_text()
        assert state == "COMPLETED", output
    else:
        done = over_rsh(cluster, directory, RANKS_PER_NODE, ranks, runner)
        assert done.returncode == 0, ended(done)
        output = done.stdout
    run = run_file(output)
    names = cluster.nodes[:nodes]
    assert run["environment"]["hosts"] == names
    assert run["environment"]["ranks_per_host"] == {name: RANKS_PER_NODE for name in names}
    assert run["environment"]["ranks"] == ranks
    assert {phase["approach"] for phase in run["phases"]} == {*PAPER, "c-posix"}
    # Every byte a rank moved was checked. A rank that the deadline stopped before its first int
    # reached the crowded FUSE client moved none and has nothing to check: null, never false.
    moved = [record for record in run["records"] if record["bytes"] > 0]
    assert [record for record in moved if record["verified"] is not True] == []
    assert {record["approach"] for record in moved} == {*PAPER, "c-posix"}
    assert [record for record in run["records"] if record["verified"] is False] == []
    assert run["environment"]["filesystem"]["type"] == "fuse.glusterfs"
    if launch == "mpirun-over-rsh":
        assert run["environment"]["slurm"] is None
    else:
        assert run["environment"]["slurm"]["node_count"] == str(nodes)
    left = cluster.exec(nodes, "ls", "-A", str(cluster.mount), timeout=30)
    assert f"{launch}.dat" not in left.stdout.split(), "the run removes its file, seen from another node too"


def test_the_memory_check_counts_the_ranks_of_each_host(virtual_cluster):
    """3 ranks on 2 nodes, 2 of them on node1: each rank plans 55% of the memory a node has
    available, so node1's two need more than it has while node2's one fits, as would the whole
    run's if its need were spread over its nodes or checked rank by rank. The refusal names the
    host and its ranks, before any plan is built."""
    cluster = virtual_cluster
    directory = cluster.home / "memory"
    directory.mkdir()
    done = cluster.exec(1, "salloc", "-N", "2", "-n", "3", str(JIOBENCH), "run", "--launcher", "srun", "-n", "3",
                        *plans_of_most_of_the_memory(), "-o", str(cluster.mount / "memory.dat"),
                        "--results", str(directory / "results"), timeout=120, cwd=directory)
    assert done.returncode == 2, ended(done)
    ours = jiobench_lines(done.stderr)
    assert len(ours) == 1 and re.fullmatch(
        r"jiobench: error: 2 ranks on node1 need about [\d.]+ GiB \(their plans and JVMs\), more than the [\d.]+ GiB "
        r"it has available: run at most 1 per node, or shrink the plan .*", ours[0]), done.stderr
    assert "Traceback" not in done.stderr
    assert list(directory.iterdir()) == [], "no results"
    assert "memory.dat" not in cluster.exec(2, "ls", "-A", str(cluster.mount), timeout=30).stdout.split()


@pytest.mark.parametrize("placement, salloc, ranks_per_host", [
    ("even", ["-N", "2", "--ntasks-per-node", "2"], {"node1": 2, "node2": 2}),
    # Slurm fills the first node and leaves the second one task.
    ("uneven", ["-N", "2", "-n", "4"], {"node1": 3, "node2": 1}),
])
def test_reorder_reads_a_block_another_node_wrote_and_the_bricks_serve_it(virtual_cluster, placement, salloc,
                                                                            ranks_per_host):
    """-C across nodes: every rank reads a block written on another node, verified, and each node's
    client fetched what its ranks read from the bricks. With 3 ranks on one node of 2 no rotation
    reads each block once: the run says so."""
    cluster = virtual_cluster
    directory = cluster.home / f"reorder-{placement}"
    directory.mkdir()
    runner = ["-a", "raw-bytes", "-b", "4MiB", "-t", "1MiB", "-i", "2", "--warmup", "0", "-C", "--drop-cache", "-e",
              "--verify", "-o", str(cluster.mount / f"reorder-{placement}.dat"),
              "--results", str(directory / "results")]
    run, served = profiled(cluster, lambda: in_allocation(cluster, directory, salloc, 4, runner))
    assert run["environment"]["ranks_per_host"] == ranks_per_host
    host = {record["rank"]: record["host"] for record in run["records"]}
    read_block_of = run["parameters"]["read_block_of"]
    assert [host[block] != host[rank] for rank, block in enumerate(read_block_of)] == [True] * 4, (read_block_of, host)
    assert [(phase["op"], phase["verified"]) for phase in run["phases"]] == [("write", True), ("read", True)] * 2
    shared = [warning for warning in run["warnings"] if warning.startswith("-C: ")]
    if placement == "even":
        assert sorted(read_block_of) == [0, 1, 2, 3] and shared == [], (read_block_of, shared)
    else:
        assert shared == ["-C: node1 holds 3 of the 4 ranks, more than half, so each rank reads a block written on "
                          "another node but not each a different one: 1 block read by several ranks, 2 by none "
                          "(parameters.read_block_of says whose each rank read)"], run["warnings"]
    assert served["read"] >= read_by_the_nodes(run) - CLIENT_PAGES, (served, read_by_the_nodes(run))


def test_drop_cache_empties_the_client_cache_of_each_node_of_the_run_only(virtual_cluster):
    """Every node's client holds the whole file before a read run on node1 and node2 with
    --drop-cache; the bricks still serve every byte the ranks read, and node3, outside the run,
    holds the file after it as before."""
    cluster = virtual_cluster
    directory = cluster.home / "drop-cache"
    directory.mkdir()
    test_file = cluster.mount / "drop-cache.dat"
    common = ["-a", "raw-bytes", "-b", "8MiB", "-t", "1MiB", "--warmup", "0", "-o", str(test_file),
              "--results", str(directory / "results")]
    written = in_allocation(cluster, directory, ONE_PER_NODE, 2, [*common, "-w", "-i", "1", "--keep"])
    assert written.returncode == 0, written
    for node in (1, 2, 3):
        read = cluster.exec(node, "dd", f"if={test_file}", "of=/dev/null", "bs=1M", "status=none", timeout=60)
        assert read.returncode == 0, read
    before = [cached(cluster, node, test_file) for node in (1, 2, 3)]
    assert all(size >= 16 << 20 and holds_the_file(resident, size) for resident, size in before), before
    run, served = profiled(cluster, lambda: in_allocation(cluster, directory, ONE_PER_NODE, 2,
                                                          [*common, "-r", "-i", "2", "--drop-cache", "--verify"]))
    assert run["environment"]["ranks_per_host"] == {"node1": 1, "node2": 1}
    assert [(phase["op"], phase["verified"]) for phase in run["phases"]] == [("read", True)] * 2
    assert read_by_the_nodes(run) == 2 * 2 * (8 << 20)
    assert served["read"] >= read_by_the_nodes(run) - CLIENT_PAGES, served
    resident, size = cached(cluster, 3, test_file)
    assert holds_the_file(resident, size), (resident, size)
    assert cluster.exec(1, "rm", str(test_file), timeout=30).returncode == 0


def test_a_file_striped_over_a_cephfs_verifies_from_two_nodes_whose_osds_serve_every_read(virtual_cluster):
    """CephFS across nodes (virtual-cluster.sh cephfs: its daemons on node1, a ceph-fuse client on
    each node): a rank on node1 and one on node2 write one file laid out over the three OSDs, then
    each reads the block the other node wrote (-C) once --drop-cache has emptied its own node's
    client, so that the OSDs serve every byte read."""
    cluster = virtual_cluster
    added = subprocess.run([str(VIRTUAL_CLUSTER), "cephfs", str(cluster.directory)], capture_output=True, text=True,
                           timeout=180)
    assert added.returncode == 0, added.stderr
    mount = Path(next(line.split("=", 1)[1] for line in added.stdout.splitlines() if line.startswith("cephfs=")))
    volume = Volume(mount.parent, mount, tuple(cluster.on(1)))
    directory = cluster.home / "cephfs"
    directory.mkdir()
    target = mount / "striped.dat"
    runner = ["-a", "raw-bytes", "-b", "8MiB", "-t", "1MiB", "-i", "2", "--warmup", "0", "--stripe-count", "3",
              "--stripe-size", "1MiB", "-C", "--drop-cache", "--verify", "--keep", "-o", str(target),
              "--results", str(directory / "results")]
    served = volume.bytes_the_osds_read()
    done = over_rsh(cluster, directory, 1, 2, runner, timeout=180, env=(f"CEPH_CONF={volume.conf}",))
    assert done.returncode == 0, ended(done)
    served = volume.bytes_the_osds_read() - served
    run = run_file(done.stdout)
    assert run["environment"]["ranks_per_host"] == {"node1": 1, "node2": 1}
    assert run["parameters"]["read_block_of"] == [1, 0]
    assert [(phase["op"], phase["verified"]) for phase in run["phases"]] == [("write", True), ("read", True)] * 2
    layout = run["environment"]["filesystem"]["layout"]
    assert (layout["stripe_unit"], layout["stripe_count"], layout["osds"]) == (1 << 20, 3, 3), layout
    assert served >= read_by_the_nodes(run), (served, read_by_the_nodes(run))
    assert len(set(volume.osds_holding(target).values())) >= 2, "the file's objects spread over the OSDs"
    assert cluster.exec(1, "rm", str(target), timeout=30).returncode == 0


@pytest.mark.parametrize("launch, target, options, message", [
    ("allocation", "/tmp/jio.dat", [], NODE_LOCAL),
    ("mpirun-over-rsh", "/tmp/jio.dat", [], NODE_LOCAL),
    ("allocation", "{mount}/reorder-cached.dat", ["-C"],
     "-C on fuse.glusterfs ({mount}) needs --drop-cache: its clients may keep what they cached of a block another "
     "node has since rewritten, and read it from there"),
], ids=["node-local-file-allocation", "node-local-file-mpirun-over-rsh", "reorder-without-drop-cache"])
def test_a_run_across_nodes_that_would_mislead_is_refused_before_the_first_phase(virtual_cluster, launch, target,
                                                                                 options, message):
    """One rank on each of 2 nodes. A file in each node's own /tmp is found by its inode number
    differing between the ranks, once every JVM is up; -C on the volume needs --drop-cache."""
    cluster = virtual_cluster
    target = target.format(mount=cluster.mount)
    directory = cluster.home / f"refused-{launch}-{Path(target).stem}"
    directory.mkdir()
    runner = ["-a", "raw-bytes", "-b", "1MiB", "-t", "1MiB", *options, "-o", target,
              "--results", str(directory / "results")]
    if launch == "allocation":
        done = in_allocation(cluster, directory, ONE_PER_NODE, 2, runner, timeout=120)
    else:
        done = over_rsh(cluster, directory, 1, 2, runner, timeout=120)
    assert done.returncode == 2, ended(done)
    assert jiobench_lines(done.stderr) == [f"jiobench: error: {message.format(mount=cluster.mount)}"], done.stderr
    assert "Traceback" not in done.stderr
    assert list(directory.iterdir()) == [], "no run file"
    for node in (1, 2):
        seen = cluster.exec(node, "ls", "-A", str(Path(target).parent), timeout=30)
        assert Path(target).name not in seen.stdout.split(), f"{target} left on node{node}"


def test_scancel_of_a_two_node_job_stops_every_rank_and_keeps_the_completed_phases(virtual_cluster):
    """A batch job of 2 nodes x 2 ranks cancelled in its data-stream write (-D 30 holds it there)
    after raw-bytes's phases: within 10 s nothing of the run lives on any node, well before Slurm
    would kill what is left (KillWait, 30 s); the run file keeps raw-bytes's phases. --forks 0:
    data-stream's write follows raw-bytes's read at once, with no JVM to start between them, so
    the cancel comes inside a phase on every rank."""
    cluster = virtual_cluster
    directory = cluster.home / "scancel"
    directory.mkdir()
    test_file = cluster.mount / "scancel.dat"
    job = submit(cluster, directory, 2, ["-a", "raw-bytes,data-stream", "-b", "16MiB", "-t", "1MiB", "-i", "1",
                                         "--warmup", "0", "--forks", "0", "-D", "30", "-o", str(test_file),
                                         "--results", str(directory / "results")])
    output = directory / "job.out"
    deadline = time.monotonic() + 150
    while not (output.exists() and re.search(r"^raw-bytes\s+read\s", output.read_text(), re.M)):
        assert time.monotonic() < deadline, output.read_text() if output.exists() else "no output"
        time.sleep(0.2)
    running = jiobench_processes(cluster)
    assert running["node1"] and running["node2"], running
    cancelled = time.monotonic()
    assert cluster.exec(1, "scancel", job, timeout=30).returncode == 0
    left = jiobench_processes(cluster)
    while any(left.values()) and time.monotonic() < cancelled + 60:
        time.sleep(0.1)
        left = jiobench_processes(cluster)
    stopped = time.monotonic() - cancelled
    assert not any(left.values()), left
    assert stopped <= 10, f"the run's processes took {stopped:.1f} s to end"
    assert cluster.wait_for_job(job, timeout=60) == "CANCELLED"
    (path,) = (directory / "results").glob("*.json")
    run = json.loads(path.read_text())
    assert run["incomplete"]["reason"] == "stopped", run["incomplete"]
    assert run["incomplete"]["phase"].startswith("data-stream write"), run["incomplete"]
    assert [(phase["approach"], phase["op"]) for phase in run["phases"]] == [("raw-bytes", "write"),
                                                                           ("raw-bytes", "read")]
    assert "scancel.dat" not in cluster.exec(2, "ls", "-A", str(cluster.mount), timeout=30).stdout.split()


def test_a_rank_s_launcher_killed_leaves_the_other_node_to_write_the_run_file(virtual_cluster):
    """kill -9 of rank 0's launcher on node1, mpirun over rsh, one rank a node: Open MPI's daemon lets
    the other live (--enable-recovery), and the dead rank's keeper holds its TCP connection (closed,
    it would leave the survivor spinning in MPI_Iprobe for good). Rank 1 on node2 writes the run file
    and removes the test file rank 0 created, which it knows by its inode number."""
    cluster = virtual_cluster
    directory = cluster.home / "killed-launcher"
    directory.mkdir()
    test_file = cluster.mount / "killed-launcher.dat"
    remote = f"--mca plm_rsh_agent {cluster.rsh_agent} --hostfile {cluster.hostfile} --map-by ppr:1:node"
    # Phases of up to 3 s each, six of them: the kill, after the first, lands well inside the run
    # (data-stream moves 20 to 70 kB/s on GlusterFS: its read of what it wrote was over in 10 ms).
    command = [str(JIOBENCH), "run", "--launcher", "mpirun", "-n", "2", f"--launcher-args={remote}", "--", "-a",
               "raw-bytes", "-b", "64MiB", "-t", "1MiB", "-D", "3", "-i", "3", "--warmup", "0", "-o", str(test_file),
               "--results", str(directory / "results")]
    process = subprocess.Popen([*cluster.on(1), *command], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               cwd=directory, env=cluster.env, start_new_session=True)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(process.stdout), daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 120
        while not any(line.startswith("raw-bytes              write fork 1 rep 0") for line in lines):
            assert time.monotonic() < deadline and process.poll() is None, "".join(lines)
            time.sleep(0.1)
        (victim,) = [pid for pid in jiobench_processes(cluster)["node1"]
                     if b"jiobench.run.rank" in Path(f"/proc/{pid}/cmdline").read_bytes()
                     and b"OMPI_COMM_WORLD_RANK=0" in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")]
        os.kill(victim, signal.SIGKILL)
        stderr = process.communicate(timeout=60)[1]
    except BaseException:
        cluster.stop_process(process)
        raise
    reader.join(timeout=5)
    assert process.returncode == 1, "".join(lines) + stderr
    said = re.fullmatch(r"jiobench: rank 0 on node1 stopped answering for 10 s (during|after) raw-bytes (write|read) "
                        r"fork 1 rep \d \(a node lost, or its launcher killed\); the run file keeps the (\d) phases? "
                        r"completed before", jiobench_lines(stderr)[0])
    assert said, stderr
    # Read from the results directory: the survivor's last lines through mpirun's forwarding may
    # trail its end.
    (run_file,) = (directory / "results").glob("*.json")
    run = json.loads(run_file.read_text())
    assert run["incomplete"]["reason"] == "failed" and run["writer"]["rank"] == 1
    assert 1 <= len(run["phases"]) == int(said.group(3)) < 6
    assert test_file.name not in cluster.exec(2, "ls", "-A", str(cluster.mount), timeout=30).stdout.split()
    deadline = time.monotonic() + 5
    while any((left := jiobench_processes(cluster)).values()) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(left.values()), left
