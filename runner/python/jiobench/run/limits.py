"""What this node's process limits and locale must allow before any rank starts: below them the
MPI launcher, a rank or a JVM fails in its own words (a segmentation fault, a wait for the
start-up deadline, an hs_err file in the working directory, an exception about a path), none of
which names the cause. Each is said here in one line instead; and where the JVMs failed to start
all the same (a limit reached by others meanwhile, or on a node this one cannot see),
`start_limit_line` names the limit from what they printed."""
from __future__ import annotations

import math
import os
import re
import resource
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Mapping, Optional, Sequence

from .. import vocabulary
from ..errors import UsageError
from .launching import available_memory

# Descriptors: the MPI launcher keeps pipes and sockets for each rank it starts (measured with
# Open MPI 4.1: 2 ranks start at 40 and not at 28, 4 at 48 and not 40, 8 at 64 and not 56), a
# rank and its JVM a few dozen each.
DESCRIPTORS_BASE, DESCRIPTORS_PER_RANK = 48, 6
# Address space a JVM takes beyond its heap, class space and code cache (which it says itself,
# JVM_FLAGS): its own native memory, about 330 MiB (thread stacks, metaspace, libraries; measured
# with one malloc arena, MALLOC_ARENA_MAX=1), and the C library's malloc arenas, 64 MiB of address
# space each, one for each of its threads that allocates at once, up to 8 a processor of the node
# (glibc). Measured (JDK 17, 2 processors, -Xmx512m): a rank's JVM peaks at 3118 MiB unlimited,
# 1342 MiB of it native. Under ulimit -v it does without the arenas it cannot have, until they
# have taken the room a thread stack or a compiler's buffer needs later: with about 1 GiB beside
# heap, class space and code cache whether a run ends is chance (ulimit -v 4 GiB: with -Xmx1808m
# no run of 4 ended, with -Xmx1552m 3 of 4), with room for every arena it is not (-Xmx1472m: 8 of
# 8). A run is refused where less than NATIVE_RESERVED is left, and told the heap that leaves room
# for every arena (native_unhindered).
NATIVE_RESERVED = 1 << 30
NATIVE_OWN = 336 << 20
MALLOC_ARENA = 64 << 20
HEAP_OPTION = re.compile(r"-(?:Xmx|XX:MaxHeapSize=)(\d+)([kKmMgGtT]?)$")
# What HotSpot reserves at its start, as -XX:+PrintFlagsFinal says it: "   size_t MaxHeapSize
# = 2147483648   {product} {ergonomic}".
JVM_FLAG = re.compile(r"^\s*\S+\s+(\w+)\s+:?=\s+(\S+)\s+\{[^}]*\}\s+\{([^}]*)\}", re.MULTILINE)
JVM_FLAGS = ("MaxHeapSize", "UseCompressedClassPointers", "CompressedClassSpaceSize", "ReservedCodeCacheSize")
# A heap a run could still have (its transfer arrays): below it, no heap fits.
SMALLEST_HEAP = 64 << 20
UTF8 = re.compile(r"utf-?8", re.IGNORECASE)


def check_descriptors(ranks_here: int) -> None:
    """The open-files limit (ulimit -n) of the launcher that starts `ranks_here` ranks on this node."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    need = DESCRIPTORS_BASE + DESCRIPTORS_PER_RANK * ranks_here
    if soft == resource.RLIM_INFINITY or soft >= need:
        return
    remedy = (f"raise it (ulimit -n {need})" if hard == resource.RLIM_INFINITY or hard >= need
              else f"its hard limit is {hard}: run fewer ranks on this node, or ask for a higher limit")
    raise UsageError(f"the open-files limit (ulimit -n) is {soft}, and {ranks_here} rank{'s' if ranks_here > 1 else ''} "
                     f"on this node need about {need} (the MPI launcher keeps pipes for each rank): {remedy}")


def explicit_heap_bytes(jvm_args: Sequence[str]) -> Optional[int]:
    """The largest heap the JVM options ask for (-Xmx), or None where they leave it to the JVM."""
    for arg in reversed(jvm_args):
        match = HEAP_OPTION.match(arg)
        if match:
            return int(match.group(1)) << (10 * " kmgt".index(match.group(2).lower() or " "))
    return None


def jvm_flags(java: str, jvm_args: Sequence[str]) -> tuple[Optional[dict[str, tuple[str, str]]], str]:
    """What the JVM of these options takes, as it says itself (JVM_FLAGS: value and origin), and
    what it printed; no flags where it could not start. Its heap is HotSpot's to size from -Xmx,
    -XX:MaxHeapSize, MaxRAM, MaxRAMPercentage or MaxRAMFraction, -Xms (a larger -Xms raises it),
    the cgroup's memory limit, JAVA_TOOL_OPTIONS and JDK_JAVA_OPTIONS (which this java launcher
    reads as the ranks' does), and, left to itself, half the address-space limit (ulimit -v:
    Arguments::limit_heap_by_allocatable_memory, MaxVirtMemFraction 2): asked rather than
    computed, in one JVM start of about 40 ms."""
    try:
        done = vocabulary.question([java, *jvm_args, "-XX:+PrintFlagsFinal", "-version"])
    except (OSError, subprocess.TimeoutExpired):
        return None, ""  # the launch says why java cannot start
    printed = done.stderr + done.stdout
    flags = {name: (value, origin) for name, value, origin in JVM_FLAG.findall(done.stdout) if name in JVM_FLAGS}
    return (flags if done.returncode == 0 and set(flags) == set(JVM_FLAGS) else None), printed


def address_space_need(flags: dict[str, tuple[str, str]]) -> tuple[int, str]:
    """The address space a JVM of these flags reserves, and what it is made of."""
    heap = int(flags["MaxHeapSize"][0])
    class_space = int(flags["CompressedClassSpaceSize"][0]) if flags["UseCompressedClassPointers"][0] == "true" else 0
    code_cache = int(flags["ReservedCodeCacheSize"][0])
    whose = "as HotSpot sizes it" if flags["MaxHeapSize"][1] == "ergonomic" else "as the JVM options set it"
    parts = (f"a heap of {heap >> 20} MiB {whose}, {class_space >> 20} MiB of class space, {code_cache >> 20} MiB of "
             f"code cache and about {NATIVE_RESERVED >> 20} MiB for its threads and native memory")
    return heap + class_space + code_cache + NATIVE_RESERVED, parts


def native_unhindered(processors: int) -> int:
    """The native memory of a JVM sized for `processors` where nothing stops it: its own, and a
    malloc arena for each of its threads, no more than glibc's 8 a processor of the node."""
    arenas = min(8 * os.sysconf("SC_NPROCESSORS_ONLN"), threads_per_rank(processors) - LAUNCHER_THREADS)
    return NATIVE_OWN + arenas * MALLOC_ARENA


def check_address_space(java: str, jvm_args: Sequence[str], processors: int) -> None:
    """The virtual memory limit (ulimit -v): a JVM reserves address space for its whole heap and
    more at its start, far beyond what it uses. Asked of the JVM itself, under this limit, only
    where there is one; `processors`: those the JVM is sized for."""
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        return
    flags, printed = jvm_flags(java, jvm_args)
    if flags is None:
        failures = [failure for failure in (THREAD_FAILURES, MEMORY_FAILURES) if failure.search(printed)]
        if failures:
            raise UsageError(f"the virtual memory limit (ulimit -v) is {soft >> 10} KiB, and {java} cannot start "
                             f"under it ({said([printed], failures[0])[1]}): lift the limit (ulimit -v unlimited) or "
                             "give the JVM a smaller heap (--jvm-args=-Xmx...)")
        return  # another failure: the ranks' JVMs say it in their own words
    need, parts = address_space_need(flags)
    if soft >= need:
        return
    room = soft - need + int(flags["MaxHeapSize"][0])  # the largest heap let through
    fits = room + NATIVE_RESERVED - native_unhindered(processors)
    if fits >= SMALLEST_HEAP:
        remedy = (f" or give the JVM a heap of {fits >> 20} MiB (--jvm-args=-Xmx{fits >> 20}m), which leaves room "
                  "for its malloc arenas as well")
    elif room >= SMALLEST_HEAP:
        remedy = f" or give the JVM a heap of at most {room >> 20} MiB (--jvm-args=-Xmx{room >> 20}m)"
    else:
        remedy = ": no heap leaves room for the rest"
    raise UsageError(f"the virtual memory limit (ulimit -v) is {soft >> 10} KiB, and each rank's JVM reserves about "
                     f"{need >> 20} MiB of address space at its start ({parts}): lift the limit "
                     f"(ulimit -v unlimited){remedy}")


def jvm_locale(environment: Mapping[str, str]) -> str:
    """The locale the JVM names files in, as the C library picks it: LC_ALL, LC_CTYPE, then LANG."""
    for variable in ("LC_ALL", "LC_CTYPE", "LANG"):
        if environment.get(variable):
            return f"{variable}={environment[variable]}"
    return "no LANG"


def check_path_encoding(runner_args: Sequence[str], environment: Mapping[str, str]) -> None:
    """A name that is not ASCII reaches the JVM intact only under a UTF-8 locale."""
    locale = jvm_locale(environment)
    if UTF8.search(locale):
        return
    for index, arg in enumerate(runner_args):
        if not arg.isascii():
            raise UsageError(f"{option_of(runner_args, index)} {arg}: the name is not ASCII and the JVM would read it under {locale}, which "
                             "is not UTF-8: run under a UTF-8 locale (LC_ALL=C.UTF-8) or use an ASCII name")


def option_of(runner_args: Sequence[str], index: int) -> str:
    """The option whose value runner_args[index] is, or the word itself."""
    return runner_args[index - 1] if index and runner_args[index - 1].startswith("-") else runner_args[index]


def check_utf8(runner_args: Sequence[str]) -> None:
    """A path with bytes that are not UTF-8 reaches the JVM under another name."""
    for index, arg in enumerate(runner_args):
        if any("\udc80" <= ch <= "\udcff" for ch in arg):
            shown = arg.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
            raise UsageError(f"{option_of(runner_args, index)}: {shown!r} holds bytes that are not UTF-8, which the "
                             "JVM cannot name faithfully: rename the file or directory")


# Threads at their most, measured with bench/threads.py (Open MPI 4.1, JDK 17, -a all and
# calibrate, 1 and 8 ranks): a rank's Python launcher holds 6 to 8 (its main thread, MPI's, the
# relays of its JVM's output, the liveness watch); its JVM 19 to 21 sized for two processors
# (HotSpot's VM thread, compilers, G1's service, marker and refinement threads, the Java system
# threads, the runner's own; one more since, the watch of the JVM's stalls), more for more processors, as G1 starts workers while its heap
# grows: 24 to 33 for 16 processors, where HotSpot allows 13 workers (ParallelGCThreads), which
# the estimate counts in full. mpirun, its helpers, jiobench run and its guardian hold 10.
LAUNCHER_THREADS = 8
JVM_THREADS_AT_TWO_PROCESSORS = 22
NODE_THREADS = 16
# Capabilities that exempt a process from the per-user process limit (capability(7): 21 is
# CAP_SYS_ADMIN, 24 CAP_SYS_RESOURCE), as they exempt root.
NPROC_EXEMPT_CAPABILITIES = (1 << 21) | (1 << 24)


def gc_workers(processors: int) -> int:
    """HotSpot's ParallelGCThreads for a JVM of that many processors: one each up to 8, then 5 for
    every 8 more."""
    return processors if processors <= 8 else 8 + (processors - 8) * 5 // 8


def threads_per_rank(processors: int) -> int:
    """The most threads a rank holds: its launcher and its JVM of that many processors."""
    return LAUNCHER_THREADS + JVM_THREADS_AT_TWO_PROCESSORS + gc_workers(processors) - gc_workers(2)


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


def read_text(path) -> Optional[str]:
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


def check_threads(ranks_here: int, processors: int) -> None:
    """Whether the threads of `ranks_here` ranks, their JVMs sized for `processors` processors,
    fit under every limit on this node's threads: beyond one, JVMs fail to start their threads,
    each with a dump of its own."""
    per_rank = threads_per_rank(processors)
    need = NODE_THREADS + ranks_here * per_rank
    for limit in thread_limits():
        if need <= limit.free:
            continue
        fit = max(0, (limit.free - NODE_THREADS) // per_rank)
        ranks = f"{ranks_here} rank{'s' if ranks_here > 1 else ''}"
        smaller = ""
        if processors > 2 and NODE_THREADS + ranks_here * threads_per_rank(2) <= limit.free:
            smaller = ", or size their JVMs for 2 processors (--jvm-cpus 2)"
        raise UsageError(f"{limit.name} is {limit.limit} with {limit.in_use} in use, and {ranks} on this node need "
                         f"about {need} threads more (about {per_rank} a rank: its JVM, sized for {processors} "
                         f"processors, and its Python launcher): {fit or 'no'} rank{'' if fit == 1 else 's'} "
                         f"would fit; {limit.remedy_for(need)}{smaller}")


def check(ranks_here: Optional[int], java: str, jvm_args: Sequence[str], runner_args: Sequence[str],
          processors: Optional[int]) -> None:
    """Every limit above; `ranks_here` is None where another (Slurm) starts the ranks on each node,
    `processors` those each rank's JVM is sized for, None where the ranks are no launcher and JVM
    each (MPJ Express)."""
    if ranks_here is not None:
        check_descriptors(ranks_here)
        if processors is not None:
            check_threads(ranks_here, processors)
    check_address_space(java, jvm_args, processors or cpus_available())
    check_path_encoding(runner_args, os.environ)


# What JVMs print when a limit stops them at their start (JDK 17's own words, provoked under
# prlimit, ulimit and cgroups: runner/python/tests/test_limits.py holds them), and what Python
# says when the launcher cannot start its JVM. A GC thread that cannot start is also "insufficient
# memory" in HotSpot's words: threads are looked for first.
THREAD_FAILURES = re.compile("|".join([
    r"pthread_create failed \(EAGAIN\)", r"unable to create native thread", r"Cannot create (worker GC|VM) thread",
    r"Could not create \w*Thread\b", r"cannot start .*: Resource temporarily unavailable", r"can't start new thread"]))
DESCRIPTOR_FAILURES = re.compile(r"Too many open files|cannot open shared object file: Error 24|EMFILE")
MEMORY_FAILURES = re.compile("|".join([
    r"There is insufficient memory for the Java Runtime Environment", r"Could not reserve enough space",
    r"Could not allocate compressed class space", r"Native memory allocation \((mmap|malloc)\) failed",
    r"Failed to reserve memory", r"Cannot allocate memory", r"errno=12"]))


def said(texts: Sequence[str], failure: re.Pattern) -> tuple[int, str]:
    """How many of the texts show the failure, and the line of the first that says it best."""
    matching = [text for text in texts if failure.search(text)]
    if not matching:
        return 0, ""
    lines = [vocabulary.DECORATION.sub("", line).strip() for line in matching[0].splitlines()]
    said_lines = [line for line in lines if failure.search(line)]
    # HotSpot's own line on the cause ("Cannot create worker GC thread. Out of system resources.")
    # rather than its headline ("There is insufficient memory ...").
    return len(matching), (said_lines[-1] if said_lines else lines[0])


def start_limit_line(texts: list[str]) -> Optional[str]:
    """One line naming the limit that kept JVMs from starting, from what they printed (one text
    per JVM that failed), or None where none of them ran into a limit."""
    def jvms(count: int, did: str) -> str:
        return f"a JVM {did.format(its='its')}" if count == 1 else f"{count} JVMs {did.format(its='their')}"

    address_space, _ = resource.getrlimit(resource.RLIMIT_AS)

    def address_space_line(count: int, did: str, line: str) -> str:
        return (f"jiobench: error: {jvms(count, did)} ({line}): the virtual memory limit (ulimit -v) is "
                f"{address_space >> 10} KiB, which each JVM's heap, class space, code cache and thread stacks all "
                "count against; give each JVM a smaller heap (--jvm-args=-Xmx...), or lift the limit (ulimit -v "
                "unlimited)")

    count, line = said(texts, THREAD_FAILURES)
    if count:
        tightest = sorted(thread_limits(), key=lambda limit: limit.free)
        # A thread's stack is address space too: under ulimit -v, with threads to spare, it is
        # the address space that ran out.
        if address_space != resource.RLIM_INFINITY and all(
                limit.free >= threads_per_rank(cpus_available()) for limit in tightest):
            return address_space_line(count, "could not start {its} threads", line)
        listed = ", ".join(f"{limit.short} ({limit.in_use} in use)" for limit in tightest) or "none found"
        return (f"jiobench: error: {jvms(count, 'could not start {its} threads')} ({line}): a limit on this node's "
                f"threads or processes is reached, the tightest first: {listed}; run fewer ranks on this node, "
                "size their JVMs smaller (--jvm-cpus 2), or raise the limit")
    count, line = said(texts, DESCRIPTOR_FAILURES)
    if count:
        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        return (f"jiobench: error: {jvms(count, 'ran out of file descriptors')} ({line}): the open-files limit "
                f"(ulimit -n) is {limit_text(soft)} (hard limit {limit_text(hard)}); raise it, or run fewer ranks "
                "on this node")
    count, line = said(texts, MEMORY_FAILURES)
    if count:
        if address_space != resource.RLIM_INFINITY:
            return address_space_line(count, "could not reserve {its} memory", line)
        available = available_memory()
        where = (f"this node has {available / 2 ** 30:.1f} GiB available" if available is not None
                 else "this node's memory is spent")
        return (f"jiobench: error: {jvms(count, 'could not reserve {its} memory')} ({line}): {where}; give each JVM a "
                "smaller heap (--jvm-args=-Xmx...), or run fewer ranks on this node")
    return None


# HotSpot's last words where it wrote a report (hs_err).
ERROR_REPORT = re.compile(r"An error report file with more information is saved as:\s*\n#\s*(\S+)")


def error_reports(texts: Sequence[str]) -> list[str]:
    """The crash reports (hs_err) the JVMs named in what they printed: those of JVMs that a limit
    kept from starting say nothing the one line does not, and may go."""
    return [match.group(1) for text in texts for match in ERROR_REPORT.finditer(text)]


def limit_text(value: int) -> str:
    return "unlimited" if value == resource.RLIM_INFINITY else str(value)
