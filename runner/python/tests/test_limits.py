"""This node's limits on threads and processes, said before any rank starts, and the one line that
names the limit when JVMs could not start all the same (jiobench.run.limits)."""
from __future__ import annotations

import contextlib
import os
import re
import resource
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from testing import HOME, JIOBENCH, ended
from jiobench.errors import UsageError
from jiobench.run import limits
from jiobench.run.limits import ThreadLimit

JAR = HOME / "runner" / "target" / "jiobench-runner.jar"
PYTHON = HOME / ".venv" / "bin" / "python"

# What JDK 17.0.15 printed, word for word, when a limit stopped it at its start.
# prlimit --nproc=5 java -jar jiobench-runner.jar --version (as an unprivileged user)
G1_SERVICE = """\
[0.006s][warning][os,thread] Failed to start thread "G1 Refine#0" - pthread_create failed (EAGAIN) for attributes: stacksize: 1024k, guardsize: 4k, detached.
[0.006s][warning][gc       ] Failed to create refinement thread 0, no more OS threads
[0.006s][warning][os,thread] Failed to start thread "G1 Service" - pthread_create failed (EAGAIN) for attributes: stacksize: 1024k, guardsize: 4k, detached.
Error occurred during initialization of VM
Could not create G1ServiceThread
Error: Could not create the Java Virtual Machine.
Error: A fatal exception has occurred. Program will exit.
"""
# --nproc=1: a GC worker, which HotSpot calls insufficient memory.
GC_WORKER = """\
[0.012s][warning][os,thread] Failed to start thread "GC Thread#0" - pthread_create failed (EAGAIN) for attributes: stacksize: 1024k, guardsize: 4k, detached.
#
# There is insufficient memory for the Java Runtime Environment to continue.
# Cannot create worker GC thread. Out of system resources.
# An error report file with more information is saved as:
# /tmp/nb/hs_err_pid31792.log
"""
# --nproc=7
VM_THREAD = """\
[0.040s][warning][os,thread] Failed to start thread "VM Thread" - pthread_create failed (EAGAIN) for attributes: stacksize: 1024k, guardsize: 4k, detached.
Error occurred during initialization of VM
Cannot create VM thread. Out of system resources.
"""
# --nproc=10, and the same in a cgroup of pids.max 12
NATIVE_THREAD = """\
[0.048s][warning][os,thread] Failed to start thread "Unknown thread" - pthread_create failed (EAGAIN) for attributes: stacksize: 1024k, guardsize: 0k, detached.
Error occurred during initialization of VM
java.lang.OutOfMemoryError: unable to create native thread: possibly out of memory or process/resource limits reached
"""
# --nproc=18: the java launcher's own main thread, with its stack trace.
CLEANER = """\
[0.097s][warning][os,thread] Failed to start thread "Unknown thread" - pthread_create failed (EAGAIN) for attributes: stacksize: 1024k, guardsize: 0k, detached.
[0.098s][warning][os,thread] Failed to start the native thread for java.lang.Thread "Common-Cleaner"
Error: A JNI error has occurred, please check your installation and try again
Exception in thread "main" java.lang.OutOfMemoryError: unable to create native thread: possibly out of memory or process/resource limits reached
\tat java.base/java.lang.Thread.start0(Native Method)
\tat java.base/java.lang.Thread.start(Thread.java:809)
"""
# ulimit -v 500000
HEAP_SPACE = """\
Error occurred during initialization of VM
Could not reserve enough space for 251904KB object heap
"""
# ulimit -v 1500000
CLASS_SPACE = """\
Error occurred during initialization of VM
Could not allocate compressed class space: 1073741824 bytes
"""
# ulimit -v 4000000
METASPACE = """\
#
# There is insufficient memory for the Java Runtime Environment to continue.
# Native memory allocation (mmap) failed to map 67108864 bytes. Error detail: Failed to reserve memory for metaspace
# An error report file with more information is saved as:
# /tmp/nb/hs_err_pid31999.log
"""
# -Xms100g on a node of 23 GiB
COMMIT = """\
OpenJDK 64-Bit Server VM warning: INFO: os::commit_memory(0x00007efc08000000, 107374182400, 0) failed; error='Not enough space' (errno=12)
#
# There is insufficient memory for the Java Runtime Environment to continue.
# Native memory allocation (mmap) failed to map 107374182400 bytes. Error detail: committing reserved memory.
"""
# prlimit --nofile=5
LIBZIP = """\
Error: A JNI error has occurred, please check your installation and try again
Exception in thread "main" java.lang.UnsatisfiedLinkError: /usr/lib/jvm/java-17-openjdk-amd64/lib/libzip.so: /usr/lib/jvm/java-17-openjdk-amd64/lib/libzip.so: cannot open shared object file: Too many open files
\tat java.base/jdk.internal.loader.NativeLibraries.load(Native Method)
"""
# prlimit --nofile=3
LIBZ = "java: error while loading shared libraries: libz.so.1: cannot open shared object file: Error 24\n"
# What the rank says where it cannot fork its JVM (jiobench.run.rank: "cannot start JAVA: STRERROR").
FORK = "cannot start java: Resource temporarily unavailable"


@pytest.fixture
def node(monkeypatch):
    """A node of known thread limits, nothing of this one's read."""
    found: list[ThreadLimit] = []
    monkeypatch.setattr(limits, "thread_limits", lambda: iter(found))
    return found


def nproc(limit: int, in_use: int, hard: int = resource.RLIM_INFINITY) -> ThreadLimit:
    return ThreadLimit("the processes limit (ulimit -u, the threads of all this user's processes)", f"ulimit -u {limit}",
                       limit, in_use, "ulimit -u", hard)


@pytest.mark.parametrize("text", [G1_SERVICE, GC_WORKER, VM_THREAD, NATIVE_THREAD, CLEANER, FORK])
def test_a_jvm_that_could_not_start_its_threads_is_one_line_naming_the_thread_limits(text, node):
    node.extend([nproc(4096, 4000), ThreadLimit("kernel.pid_max", "kernel.pid_max 32768", 32768, 900, "")])
    line = limits.start_limit_line([text, text, ""])
    assert line.startswith("jiobench: error: 2 JVMs could not start their threads (")
    assert "\n" not in line
    # The tightest limit first, with what is in use of it.
    assert "the tightest first: ulimit -u 4096 (4000 in use), kernel.pid_max 32768 (900 in use); run fewer ranks" in line


def test_the_line_quotes_hotspot_s_cause_rather_than_its_headline(node):
    line = limits.start_limit_line([GC_WORKER])
    assert line.startswith("jiobench: error: a JVM could not start its threads (Cannot create worker GC thread. Out "
                           "of system resources.)"), line
    assert "(Could not create G1ServiceThread)" in limits.start_limit_line([G1_SERVICE])
    assert "insufficient memory" not in line


@pytest.mark.parametrize("text", [HEAP_SPACE, CLASS_SPACE, METASPACE, COMMIT, "cannot start java: Cannot allocate memory"])
def test_a_jvm_that_could_not_reserve_its_memory_is_one_line_naming_the_memory_limit(text, monkeypatch):
    monkeypatch.setattr(limits.resource, "getrlimit", lambda which: (500000 << 10, resource.RLIM_INFINITY))
    line = limits.start_limit_line([text])
    assert line.startswith("jiobench: error: a JVM could not reserve its memory (")
    assert line.endswith("): the virtual memory limit (ulimit -v) is 500000 KiB, which each JVM's heap, class space, "
                         "code cache and thread stacks all count against; give each JVM a smaller heap "
                         "(--jvm-args=-Xmx...), or lift the limit (ulimit -v unlimited)"), line
    monkeypatch.setattr(limits.resource, "getrlimit", lambda which: (resource.RLIM_INFINITY,) * 2)
    monkeypatch.setattr(limits, "available_memory", lambda: 3 << 30)
    assert "this node has 3.0 GiB available" in limits.start_limit_line([text])


def test_under_an_address_space_limit_a_thread_that_could_not_start_is_the_address_space(node, monkeypatch):
    # NATIVE_THREAD's words are also what java -Xmx512m said under ulimit -v 2867200, the need
    # the check computes for that heap: a thread's stack is address space too.
    monkeypatch.setattr(limits.resource, "getrlimit", lambda which: (2867200 << 10,) * 2 if which == resource.RLIMIT_AS
                        else (resource.RLIM_INFINITY,) * 2)
    node.extend([nproc(4096, 300), ThreadLimit("kernel.pid_max", "kernel.pid_max 32768", 32768, 900, "")])
    assert limits.start_limit_line([NATIVE_THREAD, GC_WORKER]) == (
        "jiobench: error: 2 JVMs could not start their threads (java.lang.OutOfMemoryError: unable to create native "
        "thread: possibly out of memory or process/resource limits reached): the virtual memory limit (ulimit -v) is "
        "2867200 KiB, which each JVM's heap, class space, code cache and thread stacks all count against; give each "
        "JVM a smaller heap (--jvm-args=-Xmx...), or lift the limit (ulimit -v unlimited)")
    # With a limit on threads within a rank's threads of its end, that limit is the likelier one.
    node[0] = nproc(4096, 4090)
    assert "a limit on this node's threads or processes is reached, the tightest first: ulimit -u 4096 (4090 in use)" \
        in limits.start_limit_line([NATIVE_THREAD])


@pytest.mark.parametrize("text", [LIBZIP, LIBZ])
def test_a_jvm_out_of_descriptors_is_one_line_naming_the_open_files_limit(text, monkeypatch):
    monkeypatch.setattr(limits.resource, "getrlimit", lambda which: (5, 4096))
    line = limits.start_limit_line([text])
    assert line.startswith("jiobench: error: a JVM ran out of file descriptors (")
    assert "the open-files limit (ulimit -n) is 5 (hard limit 4096)" in line


def test_the_reports_of_jvms_a_limit_stopped_are_named_for_removal():
    assert limits.error_reports([GC_WORKER, METASPACE, VM_THREAD]) == ["/tmp/nb/hs_err_pid31792.log",
                                                                      "/tmp/nb/hs_err_pid31999.log"]


@pytest.mark.parametrize("text", ["Error occurred during initialization of VM\nToo small maximum heap\n",
                                  "Exception in thread \"main\" java.lang.IllegalStateException: no\n", ""])
def test_other_failures_are_left_to_the_caller(text):
    assert limits.start_limit_line([text]) is None


def test_ranks_beyond_a_thread_limit_are_refused_saying_how_many_fit(node):
    node.append(nproc(1000, 600))
    limits.check_threads(12, 2)  # 16 + 12 * 30 = 376 <= 400
    with pytest.raises(UsageError) as refused:
        limits.check_threads(16, 2)
    assert str(refused.value) == (
        "the processes limit (ulimit -u, the threads of all this user's processes) is 1000 with 600 in use, and 16 "
        "ranks on this node need about 496 threads more (about 30 a rank: its JVM, sized for 2 processors, and its "
        "Python launcher): 12 ranks would fit; raise it (ulimit -u 1096)")
    node[0] = nproc(1000, 600, hard=1096)
    with pytest.raises(UsageError, match=r"would fit; raise it \(ulimit -u 1096\)$"):
        limits.check_threads(16, 2)
    node[0] = nproc(1000, 600, hard=1095)
    with pytest.raises(UsageError, match="would fit; its hard limit is 1095: run fewer ranks on this node, or ask for a "
                                         "higher limit$"):
        limits.check_threads(16, 2)


def test_larger_jvms_are_told_that_smaller_ones_would_fit(node):
    node.append(ThreadLimit("the cgroup's process limit (/sys/fs/cgroup/x/pids.max)", "pids.max 300", 300, 0,
                            "run fewer ranks on this node, or ask for a higher limit"))
    with pytest.raises(UsageError) as refused:
        limits.check_threads(8, 16)
    assert str(refused.value).endswith("(about 41 a rank: its JVM, sized for 16 processors, and its Python launcher): "
                                       "6 ranks would fit; run fewer ranks on this node, or ask for a higher limit, "
                                       "or size their JVMs for 2 processors (--jvm-cpus 2)")
    node[0] = ThreadLimit("x", "x", 20, 0, "remedy")
    with pytest.raises(UsageError, match="no ranks would fit; remedy$"):
        limits.check_threads(1, 2)


def test_a_jvm_holds_hotspot_s_gc_workers_for_its_processors():
    assert [limits.gc_workers(n) for n in (1, 2, 8, 16, 64, 128)] == [1, 2, 8, 13, 43, 83]
    assert limits.threads_per_rank(2) == limits.LAUNCHER_THREADS + limits.JVM_THREADS_AT_TWO_PROCESSORS


def test_the_processes_limit_counts_the_user_s_threads_and_spares_the_privileged(monkeypatch):
    monkeypatch.setattr(limits.resource, "getrlimit",
                        lambda which: (4096, 8192) if which == resource.RLIMIT_NPROC else (resource.RLIM_INFINITY,) * 2)
    monkeypatch.setattr(limits, "user_threads", lambda uid: 1234)
    monkeypatch.setattr(limits, "cgroup_dirs", lambda controller: [])
    monkeypatch.setattr(limits, "node_tasks", lambda: None)
    monkeypatch.setattr(limits, "nproc_exempt", lambda: False)
    [found] = limits.thread_limits()
    assert (found.short, found.limit, found.in_use, found.hard) == ("ulimit -u 4096", 4096, 1234, 8192)
    monkeypatch.setattr(limits, "nproc_exempt", lambda: True)  # root, CAP_SYS_RESOURCE, CAP_SYS_ADMIN
    assert list(limits.thread_limits()) == []


def test_the_kernel_s_limits_count_every_task_of_the_node(monkeypatch):
    monkeypatch.setattr(limits.resource, "getrlimit", lambda which: (resource.RLIM_INFINITY,) * 2)
    monkeypatch.setattr(limits, "cgroup_dirs", lambda controller: [])
    found = {limit.short.split()[0]: limit for limit in limits.thread_limits()}
    assert found["kernel.pid_max"].limit == int(Path("/proc/sys/kernel/pid_max").read_text())
    assert found["kernel.threads-max"].in_use == limits.node_tasks() > 10


def test_every_cgroup_up_the_tree_with_a_process_limit_counts(tmp_path, monkeypatch):
    own, parent = tmp_path / "job" / "step", tmp_path / "job"
    own.mkdir(parents=True)
    (own / "pids.max").write_text("max\n")
    (own / "pids.current").write_text("7\n")
    (parent / "pids.max").write_text("512\n")
    (parent / "pids.current").write_text("100\n")
    monkeypatch.setattr(limits.resource, "getrlimit", lambda which: (resource.RLIM_INFINITY,) * 2)
    monkeypatch.setattr(limits, "cgroup_dirs", lambda controller: [own, parent, tmp_path])
    monkeypatch.setattr(limits, "node_tasks", lambda: None)
    [found] = limits.thread_limits()
    assert (found.name, found.limit, found.in_use) == (f"the cgroup's process limit ({parent}/pids.max)", 512, 100)


def test_cgroups_are_found_in_v1_v2_and_a_container_s_view():
    v2 = "0::/user.slice/job_7/step_0\n"
    v2_mount = "30 25 0:26 / /sys/fs/cgroup rw,nosuid shared:4 - cgroup2 cgroup2 rw,nsdelegate\n"
    assert limits.cgroup_paths("pids", v2, v2_mount) == [Path("/sys/fs/cgroup/user.slice/job_7/step_0"),
                                                         Path("/sys/fs/cgroup/user.slice/job_7"),
                                                         Path("/sys/fs/cgroup/user.slice"), Path("/sys/fs/cgroup")]
    v1 = "8:pids:/slurm/uid_1000/job_7\n4:cpu,cpuacct:/slurm/uid_1000/job_7\n0::/\n"
    v1_mounts = ("35 25 0:30 / /sys/fs/cgroup/pids rw shared:9 - cgroup cgroup rw,pids\n"
                 "36 25 0:31 / /sys/fs/cgroup/cpu,cpuacct rw shared:10 - cgroup cgroup rw,cpu,cpuacct\n"
                 "37 25 0:32 / /sys/fs/cgroup/unified rw shared:11 - cgroup2 cgroup2 rw\n")
    assert limits.cgroup_paths("pids", v1, v1_mounts)[:2] == [Path("/sys/fs/cgroup/pids/slurm/uid_1000/job_7"),
                                                              Path("/sys/fs/cgroup/pids/slurm/uid_1000")]
    assert limits.cgroup_paths("cpu", v1, v1_mounts)[0] == Path("/sys/fs/cgroup/cpu,cpuacct/slurm/uid_1000/job_7")
    # A container's own cgroup bind-mounted as the tree's root: nothing above it is in sight.
    docker = "0::/docker/abc\n"
    docker_mount = "40 30 0:26 /docker/abc /sys/fs/cgroup ro - cgroup2 cgroup2 rw\n"
    assert limits.cgroup_paths("pids", docker, docker_mount) == [Path("/sys/fs/cgroup")]
    spaced = "41 30 0:26 / /mnt/my\\040cgroups rw - cgroup2 cgroup2 rw\n"
    assert limits.cgroup_paths("pids", "0::/a\n", spaced) == [Path("/mnt/my cgroups/a"), Path("/mnt/my cgroups")]


def test_a_cgroup_s_cpu_quota_bounds_the_processors_as_the_jvm_counts_them(tmp_path, monkeypatch):
    (tmp_path / "cpu.max").write_text("250000 100000\n")
    monkeypatch.setattr(limits, "cgroup_dirs", lambda controller: [tmp_path])
    monkeypatch.setattr(limits.os, "sched_getaffinity", lambda pid: set(range(16)))
    assert limits.cpus_available() == 3
    (tmp_path / "cpu.max").write_text("max 100000\n")
    assert limits.cpus_available() == 16
    (tmp_path / "cpu.max").unlink()
    (tmp_path / "cpu.cfs_quota_us").write_text("-1\n")
    (tmp_path / "cpu.cfs_period_us").write_text("100000\n")
    assert limits.cpus_available() == 16


@contextlib.contextmanager
def pids_cgroup(limit: int):
    """A cgroup of its own whose pids.max is `limit` (cgroup v1's pids hierarchy, or v2's root
    where it hands the pids controller down), and the prefix that runs a command in it."""
    for root in (Path("/sys/fs/cgroup/pids"), Path("/sys/fs/cgroup")):
        v1 = (root / "tasks").exists() and (root / "cgroup.clone_children").exists()
        v2 = "pids" in (limits.read_text(root / "cgroup.subtree_control") or "").split()
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


def test_a_real_jvm_short_of_threads_in_its_cgroup_is_named_in_one_line(node):
    node.append(nproc(8, 0))
    with pids_cgroup(12) as inside:
        done = subprocess.run([*inside, "java", "-jar", str(JAR), "--version"], capture_output=True, text=True,
                              timeout=60, cwd="/")
    printed = done.stdout + done.stderr
    assert done.returncode != 0, printed
    line = limits.start_limit_line([printed])
    assert line and line.startswith("jiobench: error: a JVM could not start its threads ("), printed


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
