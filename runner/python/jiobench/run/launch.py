"""The seam above the transports: one `Launch` a family of launch paths (launchpaths.LaunchPath's
kind), which says what it refuses before anything starts and gives the command that starts the
run's ranks. `jiobench run` runs that command alike on every path (jiobench.run.supervisor): in a
session of its own, with the guardian, the stop note and the ranks' markers (docs/protocol.md).

mpi4py: the MPI launcher (mpirun, mpiexec, srun) starts one `jiobench.run.rank` a rank, each the
`MpiRanks` transport of its own rank. MPJ Express: one `jiobench.run.mpj` process, the `MpjRanks`
transport that speaks for every rank of MPJ's jobs.
"""
from __future__ import annotations

import sys
from typing import Optional, Protocol

from ..errors import UsageError
from ..launchpaths import LAUNCH_PATHS
from . import mpi, mpj
from .request import RunRequest


class Launch(Protocol):
    """How one family of launch paths starts a run's ranks."""

    def jvm_processors(self, request: RunRequest, ranks_here: int) -> Optional[int]:
        """The processors each rank's JVM is sized for, as the limits before launch take them
        (jiobench.run.limits.check); None where the JVMs start unsized."""

    def command(self, request: RunRequest) -> list[str]:
        """The command that starts the run's ranks; UsageError for what this family refuses before
        anything starts."""


class MpiLaunch:
    """mpirun, mpiexec or srun, starting `python -m jiobench.run.rank` on every rank."""

    def jvm_processors(self, request: RunRequest, ranks_here: int) -> Optional[int]:
        return request.jvm_processors(ranks_here)

    def command(self, request: RunRequest) -> list[str]:
        rank_program = [sys.executable, "-m", "jiobench.run.rank", request.to_json()]
        extra = list(request.launcher_args)
        if request.launcher == "srun":
            return ["srun", "--mpi=pmix", "-n", str(request.ranks), *extra, *rank_program]
        found = mpi.launcher_mpi(request.launcher)
        if found is None:
            raise UsageError(f"cannot run {request.launcher}: is an MPI installed (Debian: openmpi-bin or mpich)?")
        library = mpi.mpi4py_mpi()
        if library is not None and found.family != "unknown" and library.family != found.family:
            raise UsageError(f"{request.launcher} is {found.describe()} but mpi4py uses {library.describe()}: the "
                             f"ranks would not find each other; put the {library.describe()} launcher first on PATH "
                             "or install mpi4py for the other")
        return mpi.launch_prefix(request.launcher, found, request.ranks, extra) + rank_program


class MpjLaunch:
    """MPJ Express's starter, run by `python -m jiobench.run.mpj` on this node."""

    def jvm_processors(self, request: RunRequest, ranks_here: int) -> Optional[int]:
        return None  # MPJ's starter and daemon start the JVMs with no option of the run's

    def command(self, request: RunRequest) -> list[str]:
        refusal = mpj.refusal(request)
        if refusal is not None:
            raise UsageError(refusal)
        return [sys.executable, "-m", "jiobench.run.mpj", request.to_json()]


FAMILIES: dict[str, Launch] = {"mpi4py": MpiLaunch(), "mpj": MpjLaunch()}


def launch_for(request: RunRequest) -> Launch:
    return FAMILIES[LAUNCH_PATHS[request.launcher].kind]
