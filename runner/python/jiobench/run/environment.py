"""The run's environment as the run file keeps it: what its first JVM reported, with the test
file's layout where the file system tells it, the Slurm job and step it belongs to, and the
warnings of what the file system and the options change in what the numbers mean."""
from __future__ import annotations

import os
from collections import Counter
from typing import Any, Optional

from . import filesystems, jvmheap


def run_environment(ready: dict[str, Any], ranks_per_host: dict[str, int]) -> tuple[dict[str, Any], list[str]]:
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


def shared_reads(read_block_of: Optional[list[int]], ranks_per_host: dict[str, int]) -> list[str]:
    """-C with a host that holds more than half the ranks: its ranks outnumber the blocks written
    elsewhere, so some blocks are read by several ranks at once and others by none."""
    blocks = read_block_of or []
    readers = Counter(blocks)
    if all(count == 1 for count in readers.values()):
        return []
    host, most = max(ranks_per_host.items(), key=lambda item: item[1])
    shared = sum(1 for count in readers.values() if count > 1)
    unread = len(blocks) - len(readers)
    return [f"-C: {host} holds {most} of the {len(blocks)} ranks, more than half, so each rank reads a block "
            f"written on another node but not each a different one: {shared} block{'s' if shared > 1 else ''} read "
            f"by several ranks, {unread} by none (parameters.read_block_of says whose each rank read)"]


def slurm_environment() -> Optional[dict[str, Optional[str]]]:
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
