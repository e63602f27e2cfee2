"""The ways `jiobench run` starts its ranks, in one table that `run`, the sweep and its job scripts read."""
from __future__ import annotations

from typing import NamedTuple


class LaunchPath(NamedTuple):
    name: str
    # "mpi4py": a Python launcher per MPI rank, each starting the rank's JVM; "mpj": MPJ Express's ranks.
    kind: str
    # Whether its ranks may run on several nodes of one job.
    spans_nodes: bool
    # What it does inside a Slurm job, for the comment above a job script's command.
    job_note: str


LAUNCH_PATHS = {path.name: path for path in (
    LaunchPath("mpirun", "mpi4py", True, "mpirun takes its slots from the job's allocation"),
    LaunchPath("mpiexec", "mpi4py", True, "mpiexec takes its slots from the job's allocation"),
    LaunchPath("srun", "mpi4py", True, "srun --mpi=pmix starts one rank per task of the job"),
    LaunchPath("mpj-multicore", "mpj", False, "MPJ Express runs the ranks as threads of one JVM on the job's node"),
    # Its daemons start the ranks' JVMs from the launching node's private copy of MPJ Express,
    # which other nodes do not see: one node.
    LaunchPath("mpj-niodev", "mpj", False, "MPJ Express starts a JVM per rank on the job's node"),
)}
DEFAULT = "mpirun"
# MPJ Express's device for each of its launch paths.
MPJ_DEVICES = {"mpj-multicore": "multicore", "mpj-niodev": "niodev"}


def is_mpj(name: str) -> bool:
    return LAUNCH_PATHS[name].kind == "mpj"
