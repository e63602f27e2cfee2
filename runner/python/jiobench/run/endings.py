"""How a run ends, whichever way its ranks start: its exit code, decided here alone
(`run_exit_code`), and what is said of a run stopped before its run file.

`jiobench run`'s supervisor of mpirun, the driver (on every mpi4py rank, or for every MPJ Express
rank) and the runner's JVMs (Main.java, through ExitCode.java) follow one rule
(jiobench.exitcode): 0 done, 1 failed, 2 a user's mistake, 128 + the signal that stopped it; and a
failure says more than the stop it may have caused, or that races it. A JVM ends as a stop ends it
where it exits with the stop's code (`stopped_by`: asked by its launcher, or signalled directly, as
Slurm signals every process of a job step), or where its launcher killed it once the stop's grace
was over; a JVM that ends otherwise, a stop asked or not (killed by another hand, by the OOM
killer, or crashed), is a failure, and the run's exit code is 1 on every launch path.
"""
from __future__ import annotations

import signal
from typing import Optional, Sequence

from ..exitcode import SIGNALLED, ExitCode
from .processes import PASSED_ON_STOP, STOP_SIGNALS


def signal_exit_code(name: str) -> int:
    """128 + the signal; SIGUSR1 is how `jiobench run` passes on a SIGTERM."""
    return SIGNALLED + (signal.SIGTERM if name == PASSED_ON_STOP.name else signal.Signals[name])


def stopped_by(code: int) -> Optional[signal.Signals]:
    """The stop signal a JVM's exit code says it ended by: 128 + the signal, as the runner exits
    once it has ended its phase; or killed by it, as Popen gives it (before its handler was in
    place, or by the SIGUSR1 that srun passes on to every process of the step, the JVMs too).
    None where it ended otherwise: done, failed, or killed by another signal."""
    number = code - SIGNALLED if code > SIGNALLED else -code
    return next((stop for stop in (*STOP_SIGNALS, PASSED_ON_STOP) if stop == number), None)


def run_exit_code(code: int = ExitCode.DONE, *, failed: bool = False, stop_signal: Optional[str] = None) -> int:
    """The run's exit code: 1 when it failed (a failure says more than the stop it may have
    caused), else 128 + the signal that stopped it, else the code its JVMs or its launcher ended
    with (a process killed by a signal, as Popen gives it: 128 + that signal)."""
    if failed:
        return ExitCode.FAILED
    if stop_signal is not None:
        return signal_exit_code(stop_signal)
    return signal_exit_code(signal.Signals(-code).name) if code < 0 else code


def complaints(said: Sequence[tuple[int, str]]) -> tuple[list[str], Optional[int]]:
    """What the ranks that cannot go on said, from each one's (rank, text): one line where they all
    said the same, else a line for each, naming its rank; and the rank, where one alone complained
    (`named` names it in its line)."""
    if len({text for _, text in said}) == 1:
        return [said[0][1]], said[0][0] if len(said) == 1 else None
    return [f"rank {rank}: {text}" for rank, text in said], None


def named(lines: list[str], rank: Optional[int]) -> list[str]:
    """The lines of `complaints`, each naming the one rank that said them, where one alone did."""
    return lines if rank is None else [f"rank {rank}: {line}" for line in lines]


def stopped_line(signal_name: str, phases_kept: bool, said: Optional[str] = None,
                 results: Optional[str] = None) -> str:
    """What is said of a run a signal stopped, where its ranks could not say it themselves.
    `phases_kept`: every rank was up, so phases may have completed. A run file is claimed only where
    the ranks said they wrote one (`said`: its path, or where it is); where they said nothing (a rank
    held in an unlink on a dead file system never gets to), where to look (`results`)."""
    if not phases_kept:
        return f"jiobench: stopped by {signal_name} before any phase; no run file was written"
    if said is not None:
        return f"jiobench: stopped by {signal_name}; the run file of the phases completed before is {said}"
    return (f"jiobench: stopped by {signal_name}; the ranks did not say whether they wrote a run file (look in "
            f"{results or 'the --results directory'}): a rank may be held by a file system that stopped answering")
