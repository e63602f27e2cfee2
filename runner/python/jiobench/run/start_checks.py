"""The checks of a run before its first phase, once every rank's JVM is up, made where the
process that speaks for rank 0 runs (jiobench.run.driver): why the run cannot go on, in one line."""
from __future__ import annotations

from collections import Counter
from typing import Any, Iterable, Optional

from ..model import runfile
from .mpi import RANK_OVERHEAD_BYTES
from .request import RunRequest


def memory_refusal(memory: list[tuple[Optional[int], Optional[int]]], hosts: Iterable[str]) -> Optional[str]:
    """The ranks of each host need their JVMs' plans and their own overhead: more than the host
    has available is refused before anything runs. `memory` holds each rank's (plan, available)."""
    need: Counter[str] = Counter()
    largest: Counter[str] = Counter()  # the most one rank of the host needs
    ranks: Counter[str] = Counter()
    have: dict[str, int] = {}
    for host, (plan, available) in zip(hosts, memory):
        ranks[host] += 1
        need[host] += (plan or 0) + RANK_OVERHEAD_BYTES
        largest[host] = max(largest[host], (plan or 0) + RANK_OVERHEAD_BYTES)
        if available is not None:
            have[host] = available
    for host, needed in need.items():
        if host in have and needed > have[host]:
            fit = have[host] // largest[host]
            return (f"{ranks[host]} ranks on {host} need about {needed / 2 ** 30:.1f} GiB (their plans "
                    f"and JVMs), more than the {have[host] / 2 ** 30:.1f} GiB it has available: "
                    + (f"run at most {fit} per node, or " if fit else "")
                    + "shrink the plan (a lower -b or -s; with tiny transfers, whose offsets it holds, a larger -t)")
    return None


def shared_file_refusal(identities: Optional[list[Optional[int]]], hosts: Iterable[str],
                        parameters: dict[str, Any]) -> Optional[str]:
    """The ranks of several hosts must see one file: a path local to each node (its /tmp) gives each
    host a file of its own, and each rank's read then checks what only its own host wrote.
    `identities` holds each rank's inode number of the file (None where it sees none); a shared
    file system gives one file one number on every node."""
    if identities is None or len(set(hosts)) < 2 or parameters["file_per_process"]:
        return None
    seen: dict[Optional[int], list[str]] = {}
    for host, identity in zip(hosts, identities):
        seen.setdefault(identity, []).append(host)
    if len(seen) < 2:
        return None
    apart = sorted({hosts_of[0] for hosts_of in seen.values()})
    return (f"-o {parameters['file']}: the ranks on {' and '.join(apart[:2])}{' and others' if len(apart) > 2 else ''} "
            "do not see one file there (a directory local to each node, such as /tmp?); give -o a path on a file "
            "system every node shares")


def run_id_refusal(request: RunRequest, ready: dict[str, Any]) -> Optional[str]:
    """A run never writes over another run's file: a name already taken is found before the first phase."""
    results = ready["parameters"]["results"]
    if request.run_id and runfile.exists(request.run_id, results):
        return (f"--run-id {request.run_id}: {results} already holds a run of that name (a run never writes "
                "over another run's file)")
    return None
