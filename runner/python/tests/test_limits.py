"""This node's limits and what a run needs of them, said in one line before any rank starts
(jiobench.run.limits): its threads and processes, its address space."""
from __future__ import annotations

import os
import re
import resource
import shutil
import subprocess

import pytest

from testing import HOME, JIOBENCH, ended, nproc, pids_cgroup
from jiobench.errors import UsageError
from jiobench.run import limits
from jiobench.run.node import ThreadLimit

PYTHON = HOME / ".venv" / "bin" / "python"


def test_ranks_beyond_a_thread_limit_are_refused_saying_how_many_fit(thread_limits):
    thread_limits.append(nproc(1000, 600))
    limits.check_threads(12, 2)  # 16 + 12 * 30 = 376 <= 400
    with pytest.raises(UsageError) as refused:
        limits.check_threads(16, 2)
    assert str(refused.value) == (
        "the processes limit (ulimit -u, the threads of all this user's processes) is 1000 with 600 in use, and 16 "
        "ranks on this node need about 496 threads more (about 30 a rank: its JVM, sized for 2 processors, and its "
        "Python launcher): 12 ranks would fit; raise it (ulimit -u 1096)")
    thread_limits[0] = nproc(1000, 600, hard=1096)
    with pytest.raises(UsageError, match=r"would fit; raise it \(ulimit -u 1096\)$"):
        limits.check_threads(16, 2)
    thread_limits[0] = nproc(1000, 600, hard=1095)
    with pytest.raises(UsageError, match="would fit; its hard limit is 1095: run fewer ranks on this node, or ask for a "
                                         "higher limit$"):
        limits.check_threads(16, 2)


def test_larger_jvms_are_told_that_smaller_ones_would_fit(thread_limits):
    thread_limits.append(ThreadLimit("the cgroup's process limit (/sys/fs/cgroup/x/pids.max)", "pids.max 300", 300,
                                     0, "run fewer ranks on this node, or ask for a higher limit"))
    with pytest.raises(UsageError) as refused:
        limits.check_threads(8, 16)
    assert str(refused.value).endswith("(about 41 a rank: its JVM, sized for 16 processors, and its Python launcher): "
                                       "6 ranks would fit; run fewer ranks on this node, or ask for a higher limit, "
                                       "or size their JVMs for 2 processors (--jvm-cpus 2)")
    thread_limits[0] = ThreadLimit("x", "x", 20, 0, "remedy")
    with pytest.raises(UsageError, match="no ranks would fit; remedy$"):
        limits.check_threads(1, 2)


def test_a_real_cgroup_process_limit_refuses_the_run_in_one_line_before_any_rank_starts(tmp_path):
    with pids_cgroup(100) as inside:
        done = subprocess.run([*inside, str(JIOBENCH), "run", "-n", "8", "--", "-a", "calibrate", "-b", "1MiB",
                               "-o", str(tmp_path / "f.dat")], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert re.fullmatch(r"jiobench: error: the cgroup's process limit \(/sys/fs/cgroup/\S+/pids\.max\) is 100 with \d+ in "
                        r"use, and 8 ranks on this node need about \d+ threads more \(about \d+ a rank: its JVM, sized "
                        r"for \d+ processors, and its Python launcher\): \d ranks? would fit; run fewer ranks on this node, "
                        r"or ask for a higher limit\n", done.stderr), done.stderr
    assert not (tmp_path / "f.dat").exists()


def unprivileged() -> list[str]:
    """The prefix that runs a command as a user whom ulimit -u binds: root is exempt from it."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("needs setpriv to run as another user than root")
    return ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--inh-caps=-all"]


@pytest.mark.skipif(shutil.which("prlimit") is None, reason="needs prlimit (util-linux)")
def test_a_real_processes_limit_refuses_the_run_in_one_line_before_any_rank_starts(tmp_path):
    # bin/jiobench's own program, started by setpriv: the checkout's Python may lie where only root looks.
    done = subprocess.run(["prlimit", "--nproc=100:100", *unprivileged(), str(PYTHON), "-m", "jiobench.run.cli", "-n",
                           "8", "--", "-a", "calibrate", "-b", "1MiB", "-o", str(tmp_path / "f.dat")],
                          capture_output=True, text=True, timeout=60, cwd="/", env=dict(os.environ, JIOBENCH_HOME=str(HOME)))
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("jiobench: error: the processes limit (ulimit -u, the threads of all this user's "
                                  "processes) is 100 with "), done.stderr
    assert "8 ranks on this node need about" in done.stderr and done.stderr.count("\n") == 1, done.stderr
    assert not (tmp_path / "f.dat").exists()


def under_address_space(kib: int):
    """preexec_fn: the command and all it starts under ulimit -v KIB (soft and hard, as bash sets it)."""
    return lambda: resource.setrlimit(resource.RLIMIT_AS, (kib << 10, kib << 10))


def address_space_checked(kib: int, jvm_args: tuple[str, ...] = (), **environment: str) -> subprocess.CompletedProcess:
    """limits.check_address_space of a JVM of `jvm_args` sized for 2 processors, in a process of its
    own under ulimit -v KIB: exit code 0, or 1 and its refusal on standard error."""
    code = ("import sys\nfrom jiobench.errors import UsageError\nfrom jiobench.run import limits\n"
            "try:\n    limits.check_address_space('java', sys.argv[1:], 2)\n"
            "except UsageError as refused:\n    sys.exit(f'jiobench: error: {refused}')")
    return subprocess.run([str(PYTHON), "-c", code, *jvm_args], capture_output=True, text=True, timeout=60, cwd="/",
                          env=dict(os.environ, **environment), preexec_fn=under_address_space(kib))


def physical_memory() -> int:
    return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def test_a_jvm_that_cannot_start_under_the_address_space_limit_refuses_the_run_in_one_line_creating_nothing(tmp_path):
    # HotSpot's default heap under ulimit -v 3 GiB, half of it, leaves no room for its 1 GiB of class space.
    done = subprocess.run([str(JIOBENCH), "run", "-n", "1", "--", "-a", "calibrate,raw-bytes", "-b", "4MiB", "-t",
                           "1MiB", "-i", "1", "-o", str(tmp_path / "f.dat")], capture_output=True, text=True,
                          timeout=60, cwd=tmp_path, preexec_fn=under_address_space(3145728))
    assert done.returncode == 2, done.stderr
    assert re.fullmatch(r"jiobench: error: the virtual memory limit \(ulimit -v\) is 3145728 KiB, and (java cannot "
                        r"start under it \((Could not allocate compressed class space|Native memory allocation).*\)"
                        r"|each rank's JVM reserves about \d+ MiB .* as HotSpot sizes it, .*): lift the limit "
                        r"\(ulimit -v unlimited\).*\n", done.stderr), done.stderr
    assert list(tmp_path.iterdir()) == []


def test_the_heap_refused_under_an_address_space_limit_is_the_one_hotspot_takes_there(tmp_path):
    # Left to itself under ulimit -v, HotSpot takes half the limit for its heap, not a quarter of the memory.
    if physical_memory() < 8 << 30:
        pytest.skip("needs a quarter of the memory to be more than half of ulimit -v 4 GiB")
    done = subprocess.run([str(JIOBENCH), "run", "-n", "1", "--", "-a", "calibrate", "-b", "4MiB", "-o",
                           str(tmp_path / "f.dat")], capture_output=True, text=True, timeout=60, cwd=tmp_path,
                          preexec_fn=under_address_space(4194304))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    refused = re.fullmatch(r"jiobench: error: the virtual memory limit \(ulimit -v\) is 4194304 KiB, and each rank's "
                           r"JVM reserves about (\d+) MiB of address space at its start \(a heap of (\d+) MiB as "
                           r"HotSpot sizes it, 1024 MiB of class space, 240 MiB of code cache and about 1024 MiB for "
                           r"its threads and native memory\): lift the limit \(ulimit -v unlimited\) or give the JVM "
                           r"a heap of (\d+) MiB \(--jvm-args=-Xmx(\d+)m\), which leaves room for its malloc arenas "
                           r"as well\n", done.stderr)
    assert refused, done.stderr
    need, heap, fits, option = map(int, refused.groups())
    assert (need, heap) == (2048 + 2288, 2048) and fits == option < 4096 - 2288
    assert list(tmp_path.iterdir()) == []


def test_the_heap_the_jvm_options_set_in_the_environment_is_the_one_checked():
    for variable in ("JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS"):
        assert address_space_checked(3670016, **{variable: "-Xmx512m"}).returncode == 0
        refused = address_space_checked(2621440, **{variable: "-Xmx512m"})
        assert refused.stderr == (
            "jiobench: error: the virtual memory limit (ulimit -v) is 2621440 KiB, and each rank's JVM reserves about "
            "2800 MiB of address space at its start (a heap of 512 MiB as the JVM options set it, 1024 MiB of class "
            "space, 240 MiB of code cache and about 1024 MiB for its threads and native memory): lift the limit "
            "(ulimit -v unlimited) or give the JVM a heap of at most 272 MiB (--jvm-args=-Xmx272m)\n"), variable


def test_a_heap_hotspot_sizes_from_the_jvm_options_is_the_one_checked():
    # A twentieth of the memory, with room beside it for the rest and 700 MiB to spare.
    heap = physical_memory() * 5 // 100
    assert address_space_checked((heap + (3 << 30)) >> 10, ("-XX:MaxRAMPercentage=5",)).returncode == 0
    refused = address_space_checked(2621440, ("-XX:MaxRAM=8g", "-XX:MaxRAMPercentage=5"))
    assert "(a heap of 410 MiB as HotSpot sizes it, 1024 MiB of class space" in refused.stderr, refused.stderr


def test_a_smaller_class_space_the_jvm_options_set_lowers_the_need():
    refused = address_space_checked(1048576, ("-Xmx64m", "-XX:CompressedClassSpaceSize=128m"))
    assert "reserves about 1456 MiB of address space at its start (a heap of 64 MiB as the JVM options set it, " \
           "128 MiB of class space, 240 MiB of code cache" in refused.stderr, refused.stderr


@pytest.mark.runs
def test_a_run_hotspot_sizes_to_the_address_space_limit_is_not_refused(tmp_path):
    # ulimit -v 6 GiB: HotSpot's heap of 3 GiB and the rest fit, where a quarter of the memory would not.
    done = subprocess.run([str(JIOBENCH), "run", "-n", "1", "--", "-a", "calibrate", "-b", "4MiB", "-i", "1", "-o",
                           str(tmp_path / "f.dat")], capture_output=True, text=True, timeout=120, cwd=tmp_path,
                          preexec_fn=under_address_space(6291456))
    assert done.returncode == 0, ended(done)


@pytest.mark.runs
def test_a_run_whose_heap_fits_the_address_space_limit_ends_with_a_humongous_array_s_warning(tmp_path):
    # The run's JVMs of -Xmx512m fit ulimit -v 3.5 GiB; a 1 MiB array is humongous in their 1 MiB
    # regions, and the warning asks the runner which approaches read in place: a JVM of its own,
    # which must start where they do.
    done = subprocess.run([str(JIOBENCH), "run", "-n", "1", "--jvm-args=-Xmx512m", "--", "-a", "calibrate,raw-bytes",
                           "-b", "4MiB", "-t", "1MiB", "-i", "1", "-o", str(tmp_path / "f.dat")],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path,
                          preexec_fn=under_address_space(3670016))
    assert done.returncode == 0 and "Traceback" not in done.stderr, ended(done)
    assert "is humongous under G1" in done.stdout, ended(done)
