"""One MPI rank of a run: `MpiRanks`, the mpi4py transport of `jiobench.run.driver`.

Each task of the run is one JVM child of every rank (org.jiobench.runner.LauncherWorld), which
sends JSON lines (created, ready, barrier, wear-out, repeat, phase, error, failed, finished) and
gets plain lines back; this side does all the MPI, in rounds with the other ranks
(jiobench.run.rank_rounds). The driver runs on every rank alike; rank 0's alone collects. Every
rank is told back only what it needs: rank 0's word, the reduced phase, the byte count of the
block its JVM reads next.

Started by `jiobench run` under mpirun, mpiexec or srun as
`python -m jiobench.run.rank REQUEST-JSON` (jiobench.run.request).
"""
from __future__ import annotations

import dataclasses
import glob
import os
import socket
import stat
import sys
import threading
import time
from typing import Any, Generator, Optional, Union, cast

from ..exitcode import ExitCode
from ..model import perrank, runfile
from . import mpi, wire
from .crashreports import new_directory, remove_if_empty
from .driver import FIRST, Driver, load_writer_libraries
from .endings import stopped_by
from .keeper import Keeper
from .node import available_memory
from .processes import stop_name
from .rank_jvm import STOP_GRACE_SECONDS, NotReady, RankJvm, file_identity, start_status
from .rank_rounds import MPI, RankRounds
from .request import RunRequest
from .rounds import RankState, RunEnds, answers_of, start_failure
from .startup import StartDeadline
from .transport import (Ended, Finished, NotStarted, PhaseRecords, PhaseReduced, Ready, RepeatAsked, Started,
                        TaskEvents)

# How long ranks on several hosts that see different files at the -o path are asked again: a
# FUSE client showed a file another node had just removed and created again for about a second.
FILE_LOOKS, FILE_LOOK_SECONDS = 6, 0.5

# How many of the ranks' messages at the end of a fork the run prints (each names its rank).
MESSAGES_SAID = 10


def as_seen_here(files: dict[str, str], same_host: bool) -> dict[str, str]:
    """Files another rank's JVM created (path: identity), as this host sees them: one file on a
    network file system has one inode number on every node, but each node's mount its own device
    number. Those whose name no longer holds that file are left out."""
    seen = {}
    for path, identity in files.items():
        device, inode = wire.read_identity(identity)
        try:
            status = os.lstat(path)
        except OSError:
            continue
        if stat.S_ISREG(status.st_mode) and status.st_ino == inode and (not same_host or status.st_dev == device):
            seen[path] = wire.identity(status)
    return seen


def holds_output(request: RunRequest) -> bool:
    """Whether a rank's keeper must hold its standard output and error: MPICH's Hydra (mpiexec, and
    Intel MPI's) ends the job once a rank's close, where srun and Open MPI watch the process."""
    if request.launcher == "srun":
        return False
    return mpi.identify(MPI.Get_library_version()).family in ("mpich", "intel")


def launcher_rank() -> Optional[str]:
    """This process's rank as the MPI launcher told it, before (and whatever) MPI says."""
    for variable in ("OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"):
        if variable in os.environ:
            return os.environ[variable]
    return None


class MpiRanks(RankRounds):
    """This rank's JVMs and its rounds with the other ranks, as events for the driver: the
    transport (`jiobench.run.transport.Transport`) of a run under mpirun, mpiexec or srun."""

    def __init__(self, comm: MPI.Comm, request: RunRequest, keeper: Keeper, crash_reports: str):
        super().__init__(comm, keeper)
        self.request = request
        self.crash_reports = crash_reports  # where its JVMs' crash reports go (jiobench.run.crashreports)
        self.ranks_here = self.hosts.ranks_per_host()[self.host]  # each JVM is sized for its share
        # What other ranks' JVMs created, as this host sees it, removed here should they be lost:
        # rank 0's on every rank, every rank's on rank 0.
        self.files_of: dict[int, dict[str, str]] = {}
        self.barrier_left: Optional[float] = None  # when the last barrier let this rank's JVM go

    @property
    def speaks_for(self) -> range:
        return range(self.rank, self.rank + 1)

    def said_stop(self) -> None:
        wire.say(wire.STOP_SAID_MARKER)

    def stop(self, signal_name: str) -> None:
        """Asks this rank's JVM to end its phase; the next round tells every rank."""
        with self.lock:
            self.stop_signal = self.stop_signal or signal_name
            jvm = self.jvm
        if jvm is not None:
            jvm.ask_to_stop()
            timer = threading.Timer(STOP_GRACE_SECONDS, lambda: jvm.kill() if jvm.process.poll() is None else None)
            timer.daemon = True
            timer.start()

    # Tasks -------------------------------------------------------------------------------------

    def task(self, task: str, label: str, unable: Optional[str], deadline: StartDeadline) -> TaskEvents:
        try:
            if self.lost is not None:
                raise RunEnds(self.lost)
            yield from self.run_task(task, label, unable, deadline)
        except RunEnds as ends:
            if self.jvm is not None:
                if self.lost is not None:
                    self.jvm.ask_to_stop()  # it may be mid-phase, and no round will end the phase
                self.jvm.close()
            yield Ended(ends.ending, created=self.created())

    def created(self) -> dict[str, str]:
        """What this rank's JVM of the task created (path: identity), ready or not; once ranks were
        lost, what theirs created too, as far as this rank knows it."""
        files = dict(self.jvm.created) if self.jvm is not None else {}
        for rank in self.lost_ranks:
            files.update(self.files_of.get(rank, {}))
        return files

    def note_files_of_others(self, every_rank: Optional[list[dict[str, str]]], rank_0: dict[str, str]) -> None:
        """What the other ranks' JVMs created: rank 0 hears every rank's, the others rank 0's."""
        if every_rank is not None:
            for rank, files in enumerate(every_rank):
                if rank != self.rank and files:
                    self.files_of[rank] = as_seen_here(files, self.hosts[rank] == self.host)
        elif rank_0:
            self.files_of[0] = as_seen_here(rank_0, self.hosts[0] == self.host)

    def run_task(self, task: str, label: str, unable: Optional[str], deadline: StartDeadline) -> TaskEvents:
        jvm, ready, outcome = self.start_jvm(task, label, unable, deadline)
        memory = (ready["environment"].get(wire.PLAN_MEMORY_BYTES) if ready else None, available_memory())
        starts = self.to_rank_0((outcome, memory, self.created()))
        failure = None
        if starts is not None and any(code for (code, _), _, _ in starts):
            failure = start_failure([start for start, _, _ in starts], self.hosts)
        failure, rank_0_files = self.comm.bcast((failure, self.created()) if self.rank == 0 else None, root=0)
        self.note_files_of_others([files for _, _, files in starts] if starts is not None else None, rank_0_files)
        if failure is not None:
            if jvm is not None and ready is not None:
                jvm.close()
            yield dataclasses.replace(failure, created=self.created())
            return
        assert jvm is not None and ready is not None  # every rank's JVM is up, or a round ended the task
        files = self.files_seen(ready) if task == FIRST else None
        # Rank 0 checks every rank's plan and file: the others hand in None.
        every_rank_memory = [memory for _, memory, _ in starts] if starts is not None else None
        refusal = yield Ready(ready, files=files, memory=every_rank_memory)
        refusal = self.rank_0_says(refusal)
        if refusal:
            jvm.close()
            yield NotStarted(exit=ExitCode.MISTAKE, messages=[refusal], created=self.created())
            return
        yield Started(ready, self.run_id)
        jvm.pass_through()
        jvm.answer(wire.Answer.START)
        yield from self.serve(jvm)

    def files_seen(self, ready: dict[str, Any]) -> Optional[list[Optional[int]]]:
        """Every rank's inode number of the test file, where the ranks are on several hosts and
        share one file: asked once every JVM is up, rank 0's having created it. A FUSE client may
        show a file removed and created again under its name by the old number for a second or
        so: ranks that disagree are asked again for a while before the driver hears of it. Rank 0
        alone hears every rank's number: the list there, None elsewhere."""
        if len(self.hosts.names) < 2 or ready["parameters"]["file_per_process"]:
            return None
        for _ in range(FILE_LOOKS):
            seen = self.to_rank_0(file_identity(ready))
            if self.rank_0_says(seen is not None and len(set(seen)) == 1):
                break
            time.sleep(FILE_LOOK_SECONDS)
        return seen

    def start_jvm(self, task: str, label: str, unable: Optional[str],
                  deadline: StartDeadline) -> tuple[Optional[RankJvm], Optional[dict[str, Any]], tuple[int, str]]:
        """(jvm, ready message, (exit code, message)): this rank's JVM for one task, up or not."""
        if unable is not None:
            return None, None, (ExitCode.FAILED, unable)
        if self.stop_signal is not None:
            return None, None, (ExitCode.DONE, "")
        command = self.request.jvm_command(self.ranks_here, self.crash_reports)
        try:
            jvm = RankJvm(command, self.rank, self.size, wire.host_runs(self.hosts.runs), task, label)
        except OSError as problem:
            return None, None, (ExitCode.MISTAKE, f"cannot start {command[0]}: {problem.strerror}")
        self.keeper.watch_jvm(jvm.process.pid)
        with self.lock:
            self.jvm = jvm

        def tend_until_deadline() -> None:
            self.tend()
            if deadline.passed():
                raise NotReady

        try:
            code, text, ready = start_status(jvm, jvm.receive(tend_until_deadline))
        except NotReady:
            jvm.kill()
            jvm.end()
            return jvm, None, (ExitCode.LATE, jvm.held_text())
        if self.stop_signal is not None:
            jvm.ask_to_stop()
        return jvm, ready, (code, text)

    def ended_by_a_stop(self, jvm: RankJvm) -> bool:
        """Whether the JVM that went without a word ended as a stop ends it (endings.stopped_by), or
        was killed here once its stop's grace was over. A stop signalled to the JVM before this
        launcher heard of it (Slurm signals every process of the step) is this rank's stop too."""
        said = stopped_by(jvm.end())
        with self.lock:
            self.stop_signal = self.stop_signal or (stop_name(said) if said is not None else None)
        return said is not None or (jvm.killed and self.stop_signal is not None)

    def serve(self, jvm: RankJvm) -> TaskEvents:
        """Answers one JVM until it finishes."""
        while True:
            message = jvm.receive(self.tend)
            kind = message["type"] if message else None
            if message is None or kind in (None, wire.Kind.FAILED, wire.Kind.REFUSED):
                text = "; ".join(message["messages"]) if message else jvm.death()
                asked = self.peer_failed or (message is None and self.ended_by_a_stop(jvm))
                if not asked:
                    self.liveness.announce_failure()
                jvm.end()
                self.round(status=None if asked else (RankState.FAILED, {"phase": jvm.phase, "when": jvm.when, "message": text}))
            elif kind == wire.Kind.BARRIER:
                jvm.phase, jvm.when = message["phase"], "during"
                self.round()
                self.barrier_left = time.time()
                jvm.answer(wire.Answer.GO)
            elif kind == wire.Kind.WEAR_OUT:
                jvm.answer(self.round(most=message["bytes"]))
            elif kind == wire.Kind.REPEAT:
                going = yield RepeatAsked(message["fork"], message["approaches"])
                # Rank 0 alone decides, from the phases it collected: every rank answers its JVM alike.
                jvm.answer(",".join(self.rank_0_says(going)))
            elif kind == wire.Kind.PHASE:
                jvm.answer((yield from self.end_phase(message)))
                jvm.when = "after"
            elif kind == wire.Kind.FINISHED:
                code = jvm.end()
                ends = self.to_rank_0((message["exit"], message["messages"]))
                said = [text for _, texts in ends for text in texts] if ends is not None else []
                exit_code = self.comm.bcast(max(exit_code for exit_code, _ in ends) if ends is not None else None,
                                            root=0)
                if len(said) > MESSAGES_SAID:
                    said = said[:MESSAGES_SAID] + [f"{len(said) - MESSAGES_SAID} more ranks said the like"]
                yield Finished(max(code, exit_code), said)
                return
            else:
                jvm.end()
                self.round(status=(RankState.FAILED, {"phase": jvm.phase, "when": jvm.when,
                                            "message": f"unexpected message from the JVM: {message!r}"}))


    def end_phase(self, message: dict[str, Any]
                  ) -> Generator[Union[PhaseRecords, PhaseReduced], Optional[dict[str, Any]], int]:
        """A phase's records to rank 0, which reduces them (the driver's reply to the phase event)
        and tells every rank the phase and its JVM the bytes of the block it reads next."""
        (record,) = message["records"]
        # When this launcher let its JVM start the phase and heard it end, by the wall clock: what a
        # phase costs beyond its own time is from the last rank's end to the next phase's barrier.
        timed = dict(record, host=self.host, began_at=self.barrier_left, ended_at=time.time())
        payloads = self.to_rank_0((timed, message.get("block_read", self.rank)))
        if payloads is not None:
            phase = yield PhaseRecords([record for record, _ in payloads])
            every, each = answers_of(payloads)
            phase, every = self.comm.bcast((phase, every), root=0)
        else:
            phase, every = self.comm.bcast(None, root=0)
            each = None
            yield PhaseReduced(phase)
        return every if every is not None else cast(int, self.comm.scatter(each, root=0))


def watch_parent(driver: Driver, ranks: MpiRanks) -> None:
    """mpirun gone (killed from outside) leaves no MPI to end the run with, and its library may
    end this process within a second: at once, this rank removes what it created and rank 0
    writes what it has; then the JVM, whose phase cannot be completed, is killed."""
    parent = os.getppid()
    while os.getppid() == parent:
        time.sleep(0.05)
    # Its output went with it: nothing said now may stop what must be done.
    sys.stdout = sys.stderr = open(os.devnull, "w")
    driver.abandon("the MPI launcher ended before the run did")
    with ranks.lock:
        jvm = ranks.jvm
    if jvm is not None and jvm.process.poll() is None:
        jvm.kill()
    remove_if_empty(ranks.crash_reports)
    ranks.keeper.done()
    os._exit(ExitCode.FAILED)


def say_per_rank_file_left(driver: Driver) -> None:
    """Rank 0, lost, wrote the per-rank file as the run went: what it left is named, unfinished
    (its records went to rank 0 alone, and are lost). Named, not removed: nothing here knows it
    for the file rank 0 created but its name."""
    if driver.collector is None:
        return
    unfinished = os.path.join(driver.parameters["results"], driver.collector.context["run_id"] + perrank.SUFFIX)
    for path in sorted(glob.glob(glob.escape(unfinished) + runfile.TEMPORARY_SUFFIX.format("*"))):
        print(f"jiobench: rank 0 was lost as it wrote the per-rank file: {path} is left unfinished (its records are "
              "lost; the run file holds the phases without them): remove it", file=sys.stderr, flush=True)


def main(argv: Optional[list[str]] = None) -> int:
    (request_json,) = sys.argv[1:] if argv is None else argv
    request = RunRequest.from_json(request_json)
    wire.say(wire.rank_up(launcher_rank(), socket.gethostname()))
    MPI.Init_thread()
    comm = MPI.COMM_WORLD
    if comm.Get_size() != request.ranks:
        # Every process thinks it is alone: mpi4py's MPI is not the one that started it.
        if launcher_rank() in ("0", None):
            print(f"jiobench: error: started {request.ranks} ranks but MPI sees {comm.Get_size()}: mpi4py uses "
                  f"{MPI.Get_library_version().splitlines()[0].strip()}, not the MPI of the launcher; install "
                  "mpi4py for that MPI (or run the launcher of mpi4py's MPI)", file=sys.stderr, flush=True)
        return ExitCode.MISTAKE
    # Before any other rank can hear of this one: from now on its death, however sudden, leaves the
    # others to end the run (jiobench.run.keeper).
    crash_reports = new_directory()
    keeper = Keeper(holds_output(request), crash_reports)
    if comm.Get_rank() == 0:
        # While the other ranks wait for it to start, before any listens for its heartbeats.
        load_writer_libraries()
    mpi.await_every_rank_started()
    ranks = MpiRanks(comm, request, keeper, crash_reports)
    if ranks.rank == 0:
        wire.say(wire.ALL_UP_MARKER)
    driver = Driver(request, ranks)
    threading.Thread(target=watch_parent, args=(driver, ranks), daemon=True).start()
    code = driver.run()
    remove_if_empty(ranks.crash_reports)
    if ranks.rank == ranks.writer:
        if 0 in ranks.lost_ranks and ranks.rank != 0:
            say_per_rank_file_left(driver)
        wire.say(wire.exit_code_line(code))
    keeper.done()
    if ranks.lost is not None:
        # MPI's finalize waits for every rank, the lost ones too.
        sys.stderr.flush()
        os._exit(0)
    return 0


if __name__ == "__main__":
    sys.exit(main())
