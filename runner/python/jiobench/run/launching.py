"""What every launch path does alike, whichever way its ranks start (mpi4py or MPJ Express).

Kept apart from `jiobench.run.rank`, whose import starts MPI through mpi4py.
"""
from __future__ import annotations

import os
from collections import Counter
from typing import Iterable, Mapping, Optional, Sequence, Union

from . import filesystems, jvmheap
from .filesystems import NETWORK_TYPES


def fork_tasks(parameters: dict) -> list[str]:
    """The JVMs of the run after the first, as tasks "FORK:APPROACH-INDEX": fork 1 of every
    approach, then fork 2 of every approach, ... so a slow spell falls on all approaches alike."""
    if parameters["forks"] == 0:
        return []
    tasks = [f"{fork}:{index}" for fork in range(1, parameters["forks"] + 1)
             for index in range(len(parameters["approaches"]))]
    return tasks[1:]  # fork 1 of the first approach is the first JVM


def run_environment(ready: dict, ranks_per_host: dict) -> tuple[dict, list[str]]:
    """The run's environment as its first JVM reported it, with the test file's layout where the
    file system tells it, and the warnings: what the file system and the options change in what
    the numbers mean."""
    parameters = ready["parameters"]
    target = parameters["file"] + (".00000000" if parameters["file_per_process"] else "")
    environment = dict(ready["environment"],
                       filesystem=filesystems.describe(ready["environment"]["filesystem"], target))
    warnings = filesystems.warnings(environment["filesystem"], parameters, sum(ranks_per_host.values()))
    warnings += jvmheap.warnings(environment["jvm"], parameters["approaches"])
    if environment["filesystem"].get("type") in filesystems.STRIPED_TYPES and filesystems.striping_asked(parameters) \
            and parameters["write"] and target not in ready["created"]:
        warnings.append(f"--stripe-count, --stripe-size and --object-size apply to a file the run creates: {target} "
                        "existed, and keeps the layout it had (environment.filesystem.layout)")
    if parameters.get("reorder") and sum(ranks_per_host.values()) == 1:
        # As IOR does; a sweep's smallest point is then the same run as its others.
        warnings.append("-C with one rank: it reads the block it wrote itself")
    elif parameters.get("reorder") and len(ranks_per_host) == 1:
        warnings.append("-C on one node: each rank reads its neighbour's block, which this node's page "
                        "cache may still hold")
    warnings += shared_reads(parameters.get("read_block_of"), ranks_per_host)
    return environment, warnings


def shared_reads(read_block_of: Optional[list[int]], ranks_per_host: dict) -> list[str]:
    """-C with a host that holds more than half the ranks: its ranks outnumber the blocks written
    elsewhere, so some blocks are read by several ranks at once and others by none."""
    readers = Counter(read_block_of or [])
    if all(count == 1 for count in readers.values()):
        return []
    host, most = max(ranks_per_host.items(), key=lambda item: item[1])
    shared = sum(1 for count in readers.values() if count > 1)
    unread = len(read_block_of) - len(readers)
    return [f"-C: {host} holds {most} of the {len(read_block_of)} ranks, more than half, so each rank reads a block "
            f"written on another node but not each a different one: {shared} block{'s' if shared > 1 else ''} read "
            f"by several ranks, {unread} by none (parameters.read_block_of says whose each rank read)"]


def files_to_empty(ready: dict) -> list[str]:
    """The files to empty before every JVM of the run after the first (its first JVM's ready
    message says what it created and where): those this rank created, as they were for the first
    approach, so that no approach writes into what another left. The page cache keeps the shape
    the last writes gave a file (a file written in 8 MiB calls is held in large folios, into which
    a 1-byte pwrite costs 15 times what it costs in an empty file, on Linux 6.18 ext4). A file the
    run did not create is never touched, nor one on a network file system, where a truncation
    reaches the servers later (GlusterFS removes shards in the background: a file rewritten at
    once came out 256 KiB too long)."""
    filesystem = ready["environment"].get("filesystem") or {}
    return [] if NETWORK_TYPES.match(filesystem.get("type") or "") else list(ready["created"])


def slurm_environment() -> Optional[dict]:
    """The Slurm job and step this run belongs to, as Slurm tells its tasks."""
    if "SLURM_JOB_ID" not in os.environ:
        return None
    names = {"job_id": "SLURM_JOB_ID", "step_id": "SLURM_STEP_ID", "nodes": "SLURM_JOB_NODELIST",
             "node_count": "SLURM_JOB_NUM_NODES", "tasks_per_node": "SLURM_TASKS_PER_NODE",
             "partition": "SLURM_JOB_PARTITION", "account": "SLURM_JOB_ACCOUNT"}
    slurm = {key: os.environ.get(variable) for key, variable in names.items()}
    # srun describes its step; mpirun's ranks inherit the batch script's task, which is in no
    # numbered step (a shell from salloc has no task at all), and the allocation's layout.
    slurm["tasks_per_node"] = os.environ.get("SLURM_STEP_TASKS_PER_NODE", slurm["tasks_per_node"])
    if slurm["step_id"] is None and "SLURM_TASK_PID" in os.environ:
        slurm["step_id"] = "batch"
    return slurm


def spans(numbers: list[int]) -> str:
    """Sorted numbers as runs: 0-2, 5."""
    runs: list[list[int]] = []
    for number in sorted(numbers):
        if runs and number == runs[-1][-1] + 1:
            runs[-1].append(number)
        else:
            runs.append([number])
    return ", ".join(f"{run[0]}-{run[-1]}" if len(run) > 2 else ", ".join(map(str, run)) for run in runs)


def ranks_on(ranks: Iterable[int], hosts: Union[Mapping[int, str], Sequence[str]]) -> str:
    """Ranks by host (`hosts[rank]`): 'rank 1 on vm', 'ranks 0-2 on node1; rank 5 on node2'."""
    by_host: dict[str, list[int]] = {}
    for rank in sorted(ranks):
        by_host.setdefault(hosts[rank], []).append(rank)
    return "; ".join(f"{'rank' if len(group) == 1 else 'ranks'} {spans(group)} on {host}"
                     for host, group in by_host.items())
