"""What this node's process limits and locale must allow before any rank starts: below them the
MPI launcher, a rank or a JVM fails in its own words (a segmentation fault, a wait for the
start-up deadline, an hs_err file in the working directory, an exception about a path), none of
which names the cause. Each is said here in one line instead."""
from __future__ import annotations

import os
import re
import resource
from typing import Mapping, Optional, Sequence

from ..errors import UsageError

# Descriptors: the MPI launcher keeps pipes and sockets for each rank it starts (measured with
# Open MPI 4.1: 2 ranks start at 40 and not at 28, 4 at 48 and not 40, 8 at 64 and not 56), a
# rank and its JVM a few dozen each.
DESCRIPTORS_BASE, DESCRIPTORS_PER_RANK = 48, 6
# Address space a JVM reserves beyond its heap: 1 GiB of compressed class space, 240 MiB of code
# cache, and its native memory and thread stacks. A JVM of the default heap (a quarter of the
# memory) did not start under 4 GB and crashed mid-run under 5 GB on a node of 23 GiB.
JVM_RESERVED_BEYOND_HEAP = (1 << 30) + (240 << 20) + (1 << 30)
HEAP_OPTION = re.compile(r"-(?:Xmx|XX:MaxHeapSize=)(\d+)([kKmMgGtT]?)$")
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


def heap_bytes(jvm_args: Sequence[str]) -> int:
    """The JVM's largest heap: its -Xmx, else the JVM's default, a quarter of the memory."""
    for arg in reversed(jvm_args):
        match = HEAP_OPTION.match(arg)
        if match:
            return int(match.group(1)) << (10 * " kmgt".index(match.group(2).lower() or " "))
    return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 4


def check_address_space(jvm_args: Sequence[str]) -> None:
    """The virtual memory limit (ulimit -v): a JVM reserves address space for its whole heap and
    more at its start, far beyond what it uses."""
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        return
    heap = heap_bytes(jvm_args)
    need = heap + JVM_RESERVED_BEYOND_HEAP
    if soft < need:
        raise UsageError(f"the virtual memory limit (ulimit -v) is {soft >> 10} KiB, and each rank's JVM reserves about "
                         f"{need >> 20} MiB of address space at its start (a heap of {heap >> 20} MiB, its class space "
                         f"and code cache): lift the limit (ulimit -v unlimited) or give the JVM a smaller heap "
                         f"(--jvm-args=-Xmx...), which lowers the need by as much")


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


def check(ranks_here: Optional[int], jvm_args: Sequence[str], runner_args: Sequence[str]) -> None:
    """Every limit above; `ranks_here` is None where another (Slurm) starts the ranks on each node."""
    if ranks_here is not None:
        check_descriptors(ranks_here)
    check_address_space(jvm_args)
    check_path_encoding(runner_args, os.environ)
