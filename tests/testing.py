"""The fixtures and helpers every test tree shares (runner/python/tests, slurm/tests,
analysis/tests, tests): the checkout and bin/jiobench, real runs under mpirun with real JVMs and real
files, a real single-node Slurm, a virtual cluster of several nodes. A pytest plugin, which the
root conftest.py loads (pytest_plugins): a test names its fixtures as arguments, and imports its
helpers from here (`from testing import HOME`), never the fixtures themselves: a module that
imports a fixture holds a second one, a second Slurm or cluster for the session."""
from __future__ import annotations

import contextlib
import json
import os
import re
import resource
import shlex
import shutil
import signal
import struct
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional, Sequence

import pytest

from jiobench.model import perrank
from jiobench.run import node, processes
from jiobench.run.node import ThreadLimit, available_memory

HOME = Path(__file__).resolve().parents[1]
JIOBENCH = HOME / "bin" / "jiobench"
CLUSTER = HOME / "slurm" / "local-cluster.sh"
VIRTUAL_CLUSTER = HOME / "scripts" / "virtual-cluster.sh"
# The launch paths a behaviour that both paths promise is tested on (docs/reliability.md).
EVERY_LAUNCH_PATH = ["mpirun", "mpj-niodev", "mpj-multicore"]


class Run:
    def __init__(self, completed: subprocess.CompletedProcess):
        self.completed = completed
        self.code = completed.returncode
        self.stdout = completed.stdout
        self.stderr = completed.stderr

    @property
    def path(self) -> Path:
        """The run file's path: the last line printed."""
        return Path(self.stdout.strip().splitlines()[-1])

    @property
    def file(self) -> dict:
        return json.loads(self.path.read_text())

    @property
    def records(self) -> list[dict]:
        return records(self.path)

    def __repr__(self):
        return ended(self.completed)


def wait_until_dead(pid: int, timeout: float = 10) -> None:
    """Until a process killed is gone (or a zombie): what it was doing has ended."""
    deadline = time.monotonic() + timeout
    while processes.alive(pid):
        assert time.monotonic() < deadline, f"process {pid} still runs {timeout} s after it was killed"
        time.sleep(0.01)


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


def ended(done: subprocess.CompletedProcess) -> str:
    """A finished command's exit code and its output, whole, as an assertion's message: pytest
    cuts an object's repr short, and with it what the ranks said before they ended."""
    return f"exit code {done.returncode}\n--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}"


# A run whose rank's launcher a test kills: six phases of about 2 s of data-stream, so that the kill,
# after the first, lands inside the run however busy the machine (kill the rank after its last
# round, and the run's end is a silent wait of its own, which issue 47 closes).
KILLED_LAUNCHER_RUN = ["-a", "data-stream", "-b", "16MiB", "-t", "1MiB", "-D", "2", "-i", "3", "--warmup", "0"]
KILLED_LAUNCHER_AFTER = "data-stream            write fork 1 rep 0"


def phases_kept_after_a_lost_rank(said: str, rank: int, host: str) -> int:
    """The phases the survivors kept, by the line that names the lost rank, wherever in the run it went."""
    line = re.search(rf"jiobench: rank {rank} on {re.escape(host)} stopped answering for 10 s (during|after) "
                     r"data-stream (write|read) fork 1 rep \d \(a node lost, or its launcher killed\); the run file "
                     r"keeps the (\d) phases? completed before", said)
    assert line, said
    return int(line.group(3))


def plans_of_most_of_the_memory() -> list[str]:
    """`jiobench run` options whose every rank plans 55% of the memory this machine has
    available: tiny transfers make a plan of many offsets (36 bytes each), and -Xmx lets the
    JVM's own heap check through, for two ranks in one JVM too (it asks a third more), so that
    only the launcher's count of a host's ranks can refuse them."""
    block_mib = available_memory() * 55 // 100 // 36 // 2 ** 20
    heap_gib = block_mib * 36 * 3 // 1024 + 2
    return [f"--jvm-args=-Xmx{heap_gib}g", "--", "-a", "raw-bytes", "--type", "byte", "-b", f"{block_mib}MiB",
            "-t", "1"]


def not_of_the_heap(warnings: list[str]) -> list[str]:
    """A run's warnings but the heap's (a humongous transfer array, which test_jvm_heap.py holds):
    for tests of other warnings, whose arrays G1's regions may or may not make humongous."""
    return [warning for warning in warnings if "is humongous under G1" not in warning]


def assert_at_calibrated_rate(bw_mib_s: float, ranks: int, rate_mib: float, context) -> None:
    """calibrate's phase of about a second reports its ranks' programmed rate. No rank can finish
    before its programmed time (its clock starts before it opens), so the rate is never exceeded;
    a thread woken late on a crowded machine, or a slow close, makes the slowest rank later, so
    a few hundredths below it is a busy machine, not a wrong reduction (which misses by whole factors)."""
    programmed = ranks * rate_mib
    assert programmed * 0.95 <= bw_mib_s <= programmed * 1.001, (bw_mib_s, programmed, context)


def processes_naming(directory: Path) -> list[int]:
    """Live processes whose command line names the directory: what a daemon script's start there
    left running."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if f"{directory}/" in cmdline and processes.alive(int(entry.name)):
            found.append(int(entry.name))
    return found


def wait_for_first_phase_of_next_jvms(test_file: Path, jvms_up: Callable[[], bool], timeout: float = 120) -> None:
    """Until the next approach's JVMs are in their first phase (`jvms_up` says they all run): the
    test file, emptied before they start, holds what they write. A fixed sleep lost this race on a
    loaded machine."""
    deadline = time.monotonic() + timeout
    emptied = False
    while time.monotonic() < deadline:
        size = test_file.stat().st_size if test_file.exists() else 0
        emptied = emptied or size == 0
        if emptied and size > 0 and jvms_up():
            return
        time.sleep(0.02)
    pytest.fail(f"the next JVMs did not start writing {test_file} within {timeout} s")


def rank_jvm(directory: Path, rank: int) -> Optional[int]:
    """The JVM that one rank's launcher (rank_launcher) runs now, None between two."""
    return next((child for child in processes.children_of(rank_launcher(directory, rank))
                 if Path(f"/proc/{child}/cmdline").read_bytes().split(b"\0")[0].endswith(b"java")), None)


def rank_launcher(directory: Path, rank: int) -> int:
    """The launcher (python -m jiobench.run.rank) of one rank of the run whose command line names the
    directory, by the rank its MPI launcher (mpirun, mpiexec or srun) gave it in its environment."""
    names = [f"{variable}={rank}".encode() for variable in ("OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID")]
    for entry in Path("/proc").iterdir():
        try:
            command = (entry / "cmdline").read_bytes().split(b"\0")
            environment = (entry / "environ").read_bytes().split(b"\0")
        except OSError:
            continue
        if command[1:3] == [b"-m", b"jiobench.run.rank"] and str(directory).encode() in command[3] \
                and any(name in environment for name in names):
            return int(entry.name)
    pytest.fail(f"no launcher of rank {rank}")


def mounted_type(mount: Path) -> Optional[str]:
    """The type the mount table gives the mount at exactly that path; None where nothing is mounted."""
    for line in Path("/proc/mounts").read_text().splitlines():
        fields = line.split()
        if fields[1] == str(mount):
            return fields[2]
    return None


def assert_a_failed_start_left_nothing(directory: Path) -> None:
    """What a volume script's start that failed halfway leaves in its directory: nothing running or
    mounted, and of what it made only its log and mount point."""
    assert processes_naming(directory) == []
    assert mounted_type(directory / "mnt") is None
    # The marker came first, so the start's own stop acted, and removed everything it had made.
    assert sorted(path.name for path in directory.iterdir()) == ["log", "mnt"]


def tracked(home: Path) -> list[str]:
    """The checkout's files, those not yet added included, the ignored (built) ones not."""
    return subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=home,
                          capture_output=True, text=True, check=True).stdout.split()


def pattern_bits(g: int, seed: int) -> int:
    """The data pattern (org.jiobench.workloads.Pattern), written again from its definition."""
    mask = (1 << 64) - 1
    z = (g * 0x9E3779B97F4A7C15 + seed) & mask
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
    return z ^ (z >> 31)


def records(run_path: Path) -> list[dict]:
    """Every rank's record of every phase of a run, as its per-rank file holds them (null: None)."""
    frame = perrank.frame(run_path)
    return [] if frame is None else frame.astype(object).where(frame.notna(), None).to_dict("records")


def per_rank(run: Run, op: str, key: str = "bytes") -> list:
    """One figure of each rank's records of the run's phases of one kind, in rank order."""
    return [r[key] for r in sorted(run.records, key=lambda r: r["rank"]) if r["op"] == op]


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


def written_as_the_independent_writer(run: Run, approaches: list[str], target: Path, expected: bytes) -> None:
    """Every approach of one run wrote `expected`, the independent writer's bytes: each in a JVM of
    its own (--forks 1) on the file the run created, emptied before it (jiobench.run.launching
    .files_to_empty), each write checked by --verify against the pattern's definition alone
    (ExpectedData, which shares no code with the approaches' conversions), and the file the last
    one left equals `expected`, which holds that definition to Python's struct."""
    assert run.code == 0, run
    writes = [p for p in run.file["phases"] if p["op"] == "write" and not p["warmup"]]
    assert [p["approach"] for p in writes] == approaches, writes
    assert all(p["verified"] is True and p["bytes"] == len(expected) for p in writes), writes
    assert target.read_bytes() == expected, f"{approaches[-1]} wrote other bytes than the reference"


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


def job_state(env, job_id: str, on: Sequence[str] = ()) -> str:
    """The job's state, asked of scontrol here or through `on`, a command that runs it elsewhere."""
    shown = subprocess.run([*on, "scontrol", "show", "job", job_id], capture_output=True, text=True, env=env,
                           timeout=30).stdout
    return next(field.split("=", 1)[1] for field in shown.split() if field.startswith("JobState="))


def wait_for_job(env, job_id: str, timeout: float = 240, on: Sequence[str] = ()) -> str:
    """The job's state once it has ended (polling scontrol: sbatch --wait polls every few seconds)."""
    deadline = time.monotonic() + timeout
    state = job_state(env, job_id, on)
    while state in ("PENDING", "RUNNING", "CONFIGURING", "COMPLETING"):
        assert time.monotonic() < deadline, f"job {job_id} still {state}"
        time.sleep(0.2)
        state = job_state(env, job_id, on)
    return state


@dataclass(frozen=True)
class VirtualCluster:
    """A cluster of nodes on this machine (scripts/virtual-cluster.sh), as `start` describes it.
    Only the nodes reach its Slurm and see its volume: Slurm's clients and jiobench run there."""
    directory: Path
    nodes: list[str]
    mount: Path  # the GlusterFS volume, at this path on every node
    home: Path  # a directory every node sees, on this machine's disk: results, sweeps, job scripts
    env: dict  # this environment without a Slurm job's variables, with the cluster's SLURM_CONF
    rsh_agent: str
    hostfile: str

    def on(self, node: int) -> list[str]:
        """The words that run a command on node `node` (1-based)."""
        return [str(VIRTUAL_CLUSTER), "exec", str(self.directory), str(node)]

    def exec(self, node: int, *command: str, timeout: float, cwd: Optional[Path] = None) -> subprocess.CompletedProcess:
        """`command` on node `node`, in `cwd` (which the node must see; default: home). Past the
        timeout, what it started is stopped, its process group and the cluster's jobs, and the
        test fails: a rank that cannot reach another node waits forever."""
        with subprocess.Popen([*self.on(node), *command], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              cwd=cwd or self.home, env=self.env, start_new_session=True) as process:
            try:
                stdout, stderr = process.communicate(timeout=timeout)
            except subprocess.TimeoutExpired:
                stdout, stderr = self.stop_process(process)
                pytest.fail(f"{shlex.join(command)} on node{node} ran past {timeout} s\n--- stdout\n{stdout}\n"
                            f"--- stderr\n{stderr}")
        return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)

    def stop_process(self, process: subprocess.Popen) -> tuple[str, str]:
        """As a user would: TERM to the command's process group (salloc and `jiobench run` end
        their ranks on TERM), KILL after a grace period, then scancel of every job."""
        output = ("", "")
        for sent, grace in ((signal.SIGTERM, 30), (signal.SIGKILL, 10)):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, sent)
            with contextlib.suppress(subprocess.TimeoutExpired):
                output = process.communicate(timeout=grace)
                break
        subprocess.run([*self.on(1), "scancel", "--me"], capture_output=True, env=self.env, timeout=30)
        return output

    def wait_for_job(self, job_id: str, timeout: float = 240) -> str:
        return wait_for_job(self.env, job_id, timeout, on=self.on(1))


@pytest.fixture(scope="session")
def virtual_cluster():
    """A cluster of 3 nodes (scripts/virtual-cluster.sh) for the session, started when a test
    first asks for it. pytest's tmp_path is in this machine's /tmp, which no node sees: what a
    run on several nodes writes belongs on the cluster's home or its volume."""
    with started_virtual_cluster(3) as cluster:
        yield cluster


@contextlib.contextmanager
def started_virtual_cluster(nodes: int):
    """A cluster of its own for a test that harms its nodes (cuts a link), stopped at the end."""
    # A short path: the daemons' sockets are under it.
    directory = Path(tempfile.mkdtemp(prefix="jiobench-vc-"))
    directory.chmod(0o755)
    began = time.monotonic()
    try:
        started = subprocess.run([str(VIRTUAL_CLUSTER), "start", str(directory), str(nodes)], capture_output=True,
                                 text=True, timeout=180)
        assert started.returncode == 0, started.stderr
        print(f"virtual cluster: {nodes} nodes started in {time.monotonic() - began:.1f} s")
        said = {}
        for line in started.stdout.splitlines():
            name, _, value = line.removeprefix("export ").partition("=")
            said[name] = shlex.split(value)[0]
        env = {name: value for name, value in os.environ.items() if not name.startswith("SLURM_")}
        yield VirtualCluster(directory, said["nodes"].split(), Path(said["mount"]), Path(said["home"]),
                             dict(env, SLURM_CONF=said["SLURM_CONF"]), said["rsh_agent"], said["hostfile"])
    finally:
        began = time.monotonic()
        stopped = subprocess.run([str(VIRTUAL_CLUSTER), "stop", str(directory)], capture_output=True, text=True,
                                 timeout=180)
        print(f"virtual cluster: stopped in {time.monotonic() - began:.1f} s")
        shutil.rmtree(directory, ignore_errors=True)
    assert stopped.returncode == 0, stopped.stderr


def modern_java() -> Optional[str]:
    """A java of JDK 22 or newer, which ffm needs, from /usr/lib/jvm, or None where there is none."""
    for release in sorted(Path("/usr/lib/jvm").glob("*/release"), reverse=True):
        version = re.search(r'^JAVA_VERSION="(\d+)', release.read_text(errors="replace"), re.MULTILINE)
        java = release.parent / "bin" / "java"
        if version and int(version.group(1)) >= 22 and java.is_file():
            return str(java)
    return None


@pytest.fixture
def thread_limits(monkeypatch) -> list:
    """A node of known thread limits (jiobench.run.node.thread_limits), nothing of this one's read:
    what the check before launch and the line after a failure see."""
    found: list[ThreadLimit] = []
    monkeypatch.setattr(node, "thread_limits", lambda: iter(found))
    return found


def nproc(limit: int, in_use: int, hard: int = resource.RLIM_INFINITY) -> ThreadLimit:
    """The processes limit (ulimit -u) as the node's thread limits list it."""
    return ThreadLimit("the processes limit (ulimit -u, the threads of all this user's processes)", f"ulimit -u {limit}",
                       limit, in_use, "ulimit -u", hard)


@contextlib.contextmanager
def pids_cgroup(limit: int):
    """A cgroup of its own whose pids.max is `limit` (cgroup v1's pids hierarchy, or v2's root
    where it hands the pids controller down), and the prefix that runs a command in it."""
    for root in (Path("/sys/fs/cgroup/pids"), Path("/sys/fs/cgroup")):
        v1 = (root / "tasks").exists() and (root / "cgroup.clone_children").exists()
        v2 = "pids" in (node.read_text(root / "cgroup.subtree_control") or "").split()
        if v1 or v2:
            break
    else:
        pytest.skip("needs a pids cgroup controller to make a cgroup in")
    group = root / f"jiobench-test-{os.getpid()}"
    try:
        group.mkdir()
        (group / "pids.max").write_text(f"{limit}\n")
    except OSError as refused:
        pytest.skip(f"cannot make a cgroup here: {refused}")
    try:
        yield ["sh", "-c", f'echo $$ > {group}/cgroup.procs && exec "$@"', "sh"]
    finally:
        for _ in range(50):
            try:
                group.rmdir()
                break
            except OSError:
                time.sleep(0.1)  # its last processes are being reaped
