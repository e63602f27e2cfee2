"""What this node's process limits and locale must allow before any rank starts: below them the
MPI launcher, a rank or a JVM fails in its own words (a segmentation fault, a wait for the
start-up deadline, an hs_err file in the working directory, an exception about a path), none of
which names the cause. Each is said here in one line instead; where the JVMs failed to start all
the same, `jiobench.run.jvm_diagnosis` names the limit from what they printed."""
from __future__ import annotations

import os
import re
import resource
import subprocess
from typing import Mapping, Optional, Sequence

from .. import vocabulary
from ..errors import UsageError
from . import node
from .jvm_diagnosis import MEMORY_FAILURES, THREAD_FAILURES, said
from .threads import LAUNCHER_THREADS, NODE_THREADS, threads_per_rank

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


def check_threads(ranks_here: int, processors: int) -> None:
    """Whether the threads of `ranks_here` ranks, their JVMs sized for `processors` processors,
    fit under every limit on this node's threads: beyond one, JVMs fail to start their threads,
    each with a dump of its own."""
    per_rank = threads_per_rank(processors)
    need = NODE_THREADS + ranks_here * per_rank
    for limit in node.thread_limits():
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
    check_address_space(java, jvm_args, processors or node.cpus_available())
    check_path_encoding(runner_args, os.environ)
