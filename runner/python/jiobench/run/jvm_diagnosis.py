"""What JVMs printed when they failed to start, read for the limit that stopped them: one line that
names it (`start_limit_line`), where the checks before launch let them through all the same (a
limit reached by others meanwhile, or on a node this one cannot see), and the crash reports they
left (`error_reports`), which say nothing more."""
from __future__ import annotations

import re
import resource
from typing import Optional, Sequence

from .. import vocabulary
from . import node
from .threads import threads_per_rank

# What JVMs print when a limit stops them at their start (JDK 17's own words, provoked under
# prlimit, ulimit and cgroups: runner/python/tests/test_jvm_diagnosis.py holds them), and what
# Python says when the launcher cannot start its JVM. A GC thread that cannot start is also
# "insufficient memory" in HotSpot's words: threads are looked for first.
THREAD_FAILURES = re.compile("|".join([
    r"pthread_create failed \(EAGAIN\)", r"unable to create native thread", r"Cannot create (worker GC|VM) thread",
    r"Could not create \w*Thread\b", r"cannot start .*: Resource temporarily unavailable", r"can't start new thread"]))
DESCRIPTOR_FAILURES = re.compile(r"Too many open files|cannot open shared object file: Error 24|EMFILE")
MEMORY_FAILURES = re.compile("|".join([
    r"There is insufficient memory for the Java Runtime Environment", r"Could not reserve enough space",
    r"Could not allocate compressed class space", r"Native memory allocation \((mmap|malloc)\) failed",
    r"Failed to reserve memory", r"Cannot allocate memory", r"errno=12"]))


def said(texts: Sequence[str], failure: re.Pattern[str]) -> tuple[int, str]:
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
        tightest = sorted(node.thread_limits(), key=lambda limit: limit.free)
        # A thread's stack is address space too: under ulimit -v, with threads to spare, it is
        # the address space that ran out.
        if address_space != resource.RLIM_INFINITY and all(
                limit.free >= threads_per_rank(node.cpus_available()) for limit in tightest):
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
        available = node.available_memory()
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
