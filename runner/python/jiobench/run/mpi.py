"""The MPI behind `mpirun`/`mpiexec` and mpi4py, and the command line that starts ranks there.

Each MPI spells its launcher's options its own way: Open MPI 5 refuses Open MPI 4's `-q`, MPICH's
Hydra knows no `--allow-run-as-root` or `--oversubscribe`. jiobench asks the launcher what it is
and uses only flags that exist there.
"""
from __future__ import annotations

import ctypes
import os
import re
import subprocess
from dataclasses import dataclass
from typing import Optional

# Memory a rank needs besides its JVM's plan: the JVM itself and its launcher.
RANK_OVERHEAD_BYTES = 100 << 20
# What Open MPI 4.1's mpirun says of jiobench's own doing, which -q used to hide: each stop passed on
# to the ranks ("mpirun: Forwarding signal 10 to job"), and, under --enable-recovery (with PMIx 4),
# each rank's process that ends without MPI_Finalize (one killed, or the survivors of lost ranks,
# which cannot finalize with them): its daemon's notice, which its own PMIx refuses. The run says
# what happened in its own words; these say nothing to the user, and are not passed on.
NOISE = re.compile(rb"^(\[[^\]]*\] PMIX ERROR: BAD-PARAM in file \S*pmix_event_notification\.c at line \d+"
                   rb"|\S*mpirun: Forwarding signal \d+ to job)\s*$")


# The PMIx client library, by the name Open MPI (Debian's, and PyPI's wheels) loads it.
PMIX_LIBRARY = "libpmix.so.2"


@dataclass(frozen=True)
class Mpi:
    family: str  # "open-mpi", "mpich", "intel", or "unknown"
    version: str
    text: str  # the first line the launcher printed about itself

    @property
    def major(self) -> int:
        match = re.match(r"(\d+)", self.version)
        return int(match.group(1)) if match else 0

    def describe(self) -> str:
        names = {"open-mpi": "Open MPI", "mpich": "MPICH", "intel": "Intel MPI"}
        return f"{names.get(self.family, 'an unknown MPI')} {self.version}".strip()


def identify(text: str) -> Mpi:
    """Which MPI a launcher's `--version` output (or a library version string) names."""
    first = text.strip().splitlines()[0] if text.strip() else ""
    patterns = [("open-mpi", r"Open MPI\)?\s*v?(\d[\w.]*)"), ("intel", r"Intel\(R\) MPI Library[^\d]*(\d[\w.]*)"),
                ("mpich", r"(?:HYDRA|MPICH)(?:.|\n)*?Version:?\s*(\d[\w.]*)"), ("mpich", r"MPICH\s+(\d[\w.]*)")]
    for family, pattern in patterns:
        match = re.search(pattern, text)
        if match:
            return Mpi(family, match.group(1), first)
    return Mpi("unknown", "", first)


def launcher_mpi(program: str) -> Optional[Mpi]:
    """What `program --version` says it is; None when it cannot be run."""
    try:
        done = subprocess.run([program, "--version"], capture_output=True, text=True, timeout=60,
                              stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return identify(done.stdout + done.stderr)


def mpi4py_mpi() -> Optional[Mpi]:
    """The MPI library mpi4py loads, asked without initialising MPI in this process."""
    try:
        import mpi4py
        mpi4py.rc.initialize = False
        mpi4py.rc.finalize = False
        from mpi4py import MPI
        return identify(MPI.Get_library_version())
    except Exception:  # noqa: BLE001 - any failure to load it means: cannot tell
        return None


def core_count() -> int:
    """Cores this process may run on, as Open MPI counts slots (hardware threads of a core are one)."""
    cpus = os.sched_getaffinity(0)
    cores = set()
    for cpu in cpus:
        base = f"/sys/devices/system/cpu/cpu{cpu}/topology"
        try:
            with open(f"{base}/physical_package_id") as package, open(f"{base}/core_id") as core:
                cores.add((package.read().strip(), core.read().strip()))
        except OSError:
            cores.add((str(cpu), ""))
    return len(cores) or 1


def available_slots() -> int:
    """Slots the launcher grants without oversubscribing: the allocation under Slurm, else the cores."""
    for variable in ("SLURM_NTASKS", "SLURM_NPROCS"):
        if os.environ.get(variable, "").isdigit():
            return int(os.environ[variable])
    return core_count()


def launch_prefix(program: str, mpi: Mpi, ranks: int, extra: list[str]) -> list[str]:
    """`mpirun -np N` and the flags this MPI needs: as root, with more ranks than slots, and
    unpinned (a JVM runs many threads, JIT and GC: pinning its rank to one core starves them).
    Never -q (Open MPI 5 refuses it): Open MPI 4's -q hides what mpirun says of a mistake in its
    own options (a hostfile it cannot open, a mapping it does not know), and a run that ends in
    order, or whose ranks end it after a loss, leaves it nothing to say but NOISE."""
    if mpi.family == "open-mpi":
        command = [program, "-np", str(ranks)]
        if os.geteuid() == 0:
            command.append("--allow-run-as-root")
        if ranks > available_slots():
            command.append("--oversubscribe")
        # A rank's process that dies (killed, the OOM killer) would have its daemon kill every other
        # rank within a second or two, their phases unwritten: left alone, they find it silent and
        # end the run themselves (jiobench.run.liveness, .keeper).
        command.append("--enable-recovery")
        return command + ["--bind-to", "none", *extra]
    # MPICH's and Intel's Hydra run as root, oversubscribe and leave ranks unbound by themselves. No
    # -disable-auto-cleanup: its proxy kills every rank once it reaps one that a signal ended all the
    # same (MPICH 5.0.2), and the option only adds a SIGUSR1 to the survivors, which they would take
    # for a stop (jiobench.run.keeper).
    return [program, "-n", str(ranks), *extra]


def await_every_rank_started() -> None:
    """Returns once every rank is past MPI_Init, through a fence of the process manager's own (PMIx's),
    where this process's MPI loaded its library: a message that reaches a rank still inside MPI_Init
    kills it (Open MPI 4.1 hands it to a handler its PML registers later in MPI_Init: SIGSEGV at address
    0), and under srun --mpi=pmix (Slurm 22.05.8, PMIx 4.2.2) MPI_Init's own fences have let ranks out
    before others had got that far (bench/srun_first_message.sh). Where the fence fails, the ranks go
    on, as MPI_Init goes on from its own; an MPI without PMIx's library (MPICH's Hydra) goes on at once."""
    try:
        pmix = ctypes.CDLL(PMIX_LIBRARY, mode=os.RTLD_NOLOAD)
    except OSError:
        return
    # PMIx_Fence(procs, nprocs, info, ninfo): no procs is every process of this one's job.
    pmix.PMIx_Fence(None, ctypes.c_size_t(0), None, ctypes.c_size_t(0))
