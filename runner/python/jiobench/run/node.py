"""This node's facts as a run reads them: its memory and load, how crowded its processors are,
the processors this process may run on (its affinity, its cgroups' CPU quota), its cgroups, and the
limits on its threads with what is in use of each."""
from __future__ import annotations

import math
import os
import re
import resource
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Optional, Union

# Capabilities that exempt a process from the per-user process limit (capability(7): 21 is
# CAP_SYS_ADMIN, 24 CAP_SYS_RESOURCE), as they exempt root.
NPROC_EXEMPT_CAPABILITIES = (1 << 21) | (1 << 24)


def available_memory() -> Optional[int]:
    """MemAvailable of this node, in bytes: what can be had without swapping, the page cache's
    reclaimable part included."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


def load_average() -> Optional[list[float]]:
    """This node's load average over 1, 5 and 15 minutes: a run file that holds it for its start
    and its end tells a busy machine from a noisy approach."""
    try:
        return [round(load, 2) for load in os.getloadavg()]
    except OSError:
        return None


def crowding(counts: str = "/proc/loadavg") -> float:
    """The tasks ready to run on this node now for each of its processors (the kernel's count in
    /proc/loadavg, whoever's they are), 1 where they fit or the count cannot be read."""
    try:
        with open(counts) as loadavg:
            runnable = int(loadavg.read().split()[3].split("/")[0])
    except (OSError, ValueError, IndexError):
        return 1.0
    return max(1.0, runnable / (os.cpu_count() or 1))


def unescaped(path: str) -> str:
    """A path of /proc/self/mountinfo, where a space is \\040."""
    return re.sub(r"\\([0-7]{3})", lambda octal: chr(int(octal.group(1), 8)), path)


def cgroup_dirs(controller: str) -> list[Path]:
    """This process's cgroup directories under the controller that exist, its own first."""
    try:
        memberships = Path("/proc/self/cgroup").read_text()
        mounts = Path("/proc/self/mountinfo").read_text()
    except OSError:
        return []
    return [directory for directory in cgroup_paths(controller, memberships, mounts) if directory.is_dir()]


def cgroup_paths(controller: str, memberships: str, mounts: str) -> list[Path]:
    """The directories of a process's cgroup under the controller, from its /proc/PID/cgroup and
    /proc/PID/mountinfo: in cgroup v2's one tree or v1's hierarchy of that controller, its own
    first, then each parent up to the mount's root, as a limit of any of them holds for it."""
    found = []
    for mount in mounts.splitlines():
        fields = mount.split()
        if "-" not in fields[6:]:
            continue
        after = fields.index("-", 6)
        fstype, super_options = fields[after + 1], fields[after + 3].split(",") if len(fields) > after + 3 else []
        for membership in memberships.splitlines():
            hierarchy, controllers, path = (membership.split(":", 2) + ["", ""])[:3]
            if not ((fstype == "cgroup2" and hierarchy == "0" and not controllers)
                    or (fstype == "cgroup" and controller in controllers.split(",") and controller in super_options)):
                continue
            root, point = unescaped(fields[3]), Path(unescaped(fields[4]))
            # A container sees its own cgroup as the mount's root (a namespace, or a bind mount of it).
            inside = path[len(root):] if path.startswith(root) else path
            directory = point / inside.lstrip("/")
            while True:
                found.append(directory)
                if directory == point:
                    break
                directory = directory.parent
    return found


def read_text(path: Union[str, Path]) -> Optional[str]:
    try:
        return Path(path).read_text().strip()
    except OSError:
        return None


def cpu_quota() -> Optional[float]:
    """The processors this process's cgroups allow it over time (cpu.max, or v1's CFS quota), the
    tightest of its cgroup and their parents; None where none is set."""
    quotas = []
    for directory in cgroup_dirs("cpu"):
        pair = (read_text(directory / "cpu.max") or "").split()
        if len(pair) != 2:
            pair = [read_text(directory / "cpu.cfs_quota_us") or "", read_text(directory / "cpu.cfs_period_us") or ""]
        quota, period = pair
        if quota.isdigit() and period.isdigit() and int(period) > 0:
            quotas.append(int(quota) / int(period))
    return min(quotas, default=None)


def cpus_available() -> int:
    """The processors this process may run on, as the JVM counts them: its CPU affinity (which a
    cgroup's cpuset, Slurm's allocation and taskset narrow), no more than its cgroups' CPU quota."""
    cpus = len(os.sched_getaffinity(0))
    quota = cpu_quota()
    return cpus if quota is None else max(1, min(cpus, math.ceil(quota)))


@dataclass(frozen=True)
class ThreadLimit:
    """A limit on this node's threads: the processes of the user, of a cgroup, or of the kernel."""
    name: str  # as the one line says it
    short: str  # as a list of limits says it
    limit: int
    in_use: int
    remedy: str
    hard: Optional[int] = None  # the most the user may raise it to (ulimit -u's hard limit)

    def remedy_for(self, need: int) -> str:
        if self.hard is None:
            return self.remedy
        if self.hard == resource.RLIM_INFINITY or self.hard >= self.in_use + need:
            return f"raise it ({self.remedy} {self.in_use + need})"
        return f"its hard limit is {self.hard}: run fewer ranks on this node, or ask for a higher limit"

    @property
    def free(self) -> int:
        return self.limit - self.in_use


def nproc_exempt() -> bool:
    """Root, and a process with CAP_SYS_ADMIN or CAP_SYS_RESOURCE, may exceed ulimit -u."""
    if os.getuid() == 0:
        return True
    for line in (read_text("/proc/self/status") or "").splitlines():
        if line.startswith("CapEff:"):
            return bool(int(line.split()[1], 16) & NPROC_EXEMPT_CAPABILITIES)
    return False


def user_threads(uid: int) -> int:
    """The threads of every process of this real user on this node: what ulimit -u counts."""
    count = 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            fields = dict(line.split(":", 1) for line in (read_text(f"/proc/{entry.name}/status") or "").splitlines()
                          if ":" in line)
            if fields.get("Uid", "").split()[:1] == [str(uid)]:
                count += int(fields.get("Threads", "1"))
    return count


def node_tasks() -> Optional[int]:
    """The threads of every process on this node (the kernel's tasks, each holding a PID)."""
    fields = (read_text("/proc/loadavg") or "").split()
    return int(fields[3].split("/")[1]) if len(fields) > 3 and "/" in fields[3] else None


def thread_limits() -> Iterator[ThreadLimit]:
    """The limits on this node's threads that hold for this process and the ranks it starts."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NPROC)
    if soft != resource.RLIM_INFINITY and not nproc_exempt():
        yield ThreadLimit("the processes limit (ulimit -u, the threads of all this user's processes)",
                          f"ulimit -u {soft}", soft, user_threads(os.getuid()), "ulimit -u", hard)
    for directory in cgroup_dirs("pids"):
        limit, current = read_text(directory / "pids.max"), read_text(directory / "pids.current")
        if limit and limit.isdigit() and current and current.isdigit():
            yield ThreadLimit(f"the cgroup's process limit ({directory}/pids.max)", f"pids.max {limit} of {directory}",
                              int(limit), int(current), "run fewer ranks on this node, or ask for a higher limit")
    tasks = node_tasks()
    for name in ("threads-max", "pid_max"):
        value = read_text(f"/proc/sys/kernel/{name}")
        if tasks is not None and value and value.isdigit():
            yield ThreadLimit(f"the kernel's limit kernel.{name} (/proc/sys/kernel/{name})", f"kernel.{name} {value}",
                              int(value), tasks, "run fewer ranks on this node, or ask its administrator to raise it")
