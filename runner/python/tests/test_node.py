"""This node's facts as a run reads them (jiobench.run.node): how crowded its processors are, which
sets how often a waiting rank looks; the processors a cgroup's CPU quota leaves; its cgroups, and
the limits on its threads with what is in use of each."""
from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

from jiobench.run import node, rank_rounds


def test_crowding_is_the_ready_tasks_per_processor_and_one_where_they_fit_or_cannot_be_counted(tmp_path, monkeypatch):
    counts = tmp_path / "loadavg"
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    counts.write_text("3.10 2.50 1.20 40/2075 31503\n")
    assert node.crowding(str(counts)) == 20
    counts.write_text("0.10 0.20 0.30 1/200 31503\n")
    assert node.crowding(str(counts)) == 1
    counts.write_text("not the kernel's counts\n")
    assert node.crowding(str(counts)) == 1
    assert node.crowding(str(tmp_path / "absent")) == 1


def test_a_waiting_rank_looks_less_often_on_crowded_processors_and_never_sleeps_past_the_longest():
    cpus = os.cpu_count() or 1
    # Busy loops, each always ready to run: the kernel's count holds them whenever it is read.
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(8 * cpus)]
    try:
        assert node.crowding() >= 4
        assert rank_rounds.poll_sleep() >= 4 * rank_rounds.POLL_SECONDS
        assert rank_rounds.poll_sleep() <= rank_rounds.SLOW_POLL_SECONDS
    finally:
        for process in busy:
            process.kill()
            process.wait()


def test_the_processes_limit_counts_the_user_s_threads_and_spares_the_privileged(monkeypatch):
    monkeypatch.setattr(resource, "getrlimit",
                        lambda which: (4096, 8192) if which == resource.RLIMIT_NPROC else (resource.RLIM_INFINITY,) * 2)
    monkeypatch.setattr(node, "user_threads", lambda uid: 1234)
    monkeypatch.setattr(node, "cgroup_dirs", lambda controller: [])
    monkeypatch.setattr(node, "node_tasks", lambda: None)
    monkeypatch.setattr(node, "nproc_exempt", lambda: False)
    [found] = node.thread_limits()
    assert (found.short, found.limit, found.in_use, found.hard) == ("ulimit -u 4096", 4096, 1234, 8192)
    monkeypatch.setattr(node, "nproc_exempt", lambda: True)  # root, CAP_SYS_RESOURCE, CAP_SYS_ADMIN
    assert list(node.thread_limits()) == []


def test_the_kernel_s_limits_count_every_task_of_the_node(monkeypatch):
    monkeypatch.setattr(resource, "getrlimit", lambda which: (resource.RLIM_INFINITY,) * 2)
    monkeypatch.setattr(node, "cgroup_dirs", lambda controller: [])
    found = {limit.short.split()[0]: limit for limit in node.thread_limits()}
    assert found["kernel.pid_max"].limit == int(Path("/proc/sys/kernel/pid_max").read_text())
    assert found["kernel.threads-max"].in_use == node.node_tasks() > 10


def test_every_cgroup_up_the_tree_with_a_process_limit_counts(tmp_path, monkeypatch):
    own, parent = tmp_path / "job" / "step", tmp_path / "job"
    own.mkdir(parents=True)
    (own / "pids.max").write_text("max\n")
    (own / "pids.current").write_text("7\n")
    (parent / "pids.max").write_text("512\n")
    (parent / "pids.current").write_text("100\n")
    monkeypatch.setattr(resource, "getrlimit", lambda which: (resource.RLIM_INFINITY,) * 2)
    monkeypatch.setattr(node, "cgroup_dirs", lambda controller: [own, parent, tmp_path])
    monkeypatch.setattr(node, "node_tasks", lambda: None)
    [found] = node.thread_limits()
    assert (found.name, found.limit, found.in_use) == (f"the cgroup's process limit ({parent}/pids.max)", 512, 100)


def test_cgroups_are_found_in_v1_v2_and_a_container_s_view():
    v2 = "0::/user.slice/job_7/step_0\n"
    v2_mount = "30 25 0:26 / /sys/fs/cgroup rw,nosuid shared:4 - cgroup2 cgroup2 rw,nsdelegate\n"
    assert node.cgroup_paths("pids", v2, v2_mount) == [Path("/sys/fs/cgroup/user.slice/job_7/step_0"),
                                                         Path("/sys/fs/cgroup/user.slice/job_7"),
                                                         Path("/sys/fs/cgroup/user.slice"), Path("/sys/fs/cgroup")]
    v1 = "8:pids:/slurm/uid_1000/job_7\n4:cpu,cpuacct:/slurm/uid_1000/job_7\n0::/\n"
    v1_mounts = ("35 25 0:30 / /sys/fs/cgroup/pids rw shared:9 - cgroup cgroup rw,pids\n"
                 "36 25 0:31 / /sys/fs/cgroup/cpu,cpuacct rw shared:10 - cgroup cgroup rw,cpu,cpuacct\n"
                 "37 25 0:32 / /sys/fs/cgroup/unified rw shared:11 - cgroup2 cgroup2 rw\n")
    assert node.cgroup_paths("pids", v1, v1_mounts)[:2] == [Path("/sys/fs/cgroup/pids/slurm/uid_1000/job_7"),
                                                              Path("/sys/fs/cgroup/pids/slurm/uid_1000")]
    assert node.cgroup_paths("cpu", v1, v1_mounts)[0] == Path("/sys/fs/cgroup/cpu,cpuacct/slurm/uid_1000/job_7")
    # A container's own cgroup bind-mounted as the tree's root: nothing above it is in sight.
    docker = "0::/docker/abc\n"
    docker_mount = "40 30 0:26 /docker/abc /sys/fs/cgroup ro - cgroup2 cgroup2 rw\n"
    assert node.cgroup_paths("pids", docker, docker_mount) == [Path("/sys/fs/cgroup")]
    spaced = "41 30 0:26 / /mnt/my\\040cgroups rw - cgroup2 cgroup2 rw\n"
    assert node.cgroup_paths("pids", "0::/a\n", spaced) == [Path("/mnt/my cgroups/a"), Path("/mnt/my cgroups")]


def test_a_cgroup_s_cpu_quota_bounds_the_processors_as_the_jvm_counts_them(tmp_path, monkeypatch):
    (tmp_path / "cpu.max").write_text("250000 100000\n")
    monkeypatch.setattr(node, "cgroup_dirs", lambda controller: [tmp_path])
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(16)))
    assert node.cpus_available() == 3
    (tmp_path / "cpu.max").write_text("max 100000\n")
    assert node.cpus_available() == 16
    (tmp_path / "cpu.max").unlink()
    (tmp_path / "cpu.cfs_quota_us").write_text("-1\n")
    (tmp_path / "cpu.cfs_period_us").write_text("100000\n")
    assert node.cpus_available() == 16
