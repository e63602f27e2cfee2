"""Every mistake a user can make on `jiobench run` is one line, exit code 2, no trace, no rank
left waiting, and nothing created or changed: real runs under mpirun, one per mistake, but for
the mistakes the runner's option checks alone refuse, which one JVM checks together as each
run's would (DryRuns), a few of them end to end as well."""
from __future__ import annotations

import json
import os
import re
import resource
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

import pytest

from testing import EVERY_LAUNCH_PATH, JIOBENCH, plans_of_most_of_the_memory, run_bounded
from jiobench.paths import JAR
from jiobench.run.mpi import RANK_OVERHEAD_BYTES

TRACES = ("Traceback", "Exception in thread", "\tat org.", "\tat java.", "OutOfMemoryError")


@dataclass
class Mistake:
    id: str
    args: list[str]  # "{dir}" is the scratch directory; runner options after "--"
    words: str  # what the one line must say
    ranks: int = 2
    setup: Optional[Callable[[Path], None]] = None
    environment: Optional[dict] = None  # variables set for `jiobench run`
    limits: Optional[dict] = None  # resource: (soft, hard), as ulimit sets them


def make_dir(name):
    return lambda scratch: (scratch / name).mkdir()


def make_file(name, size=100):
    return lambda scratch: (scratch / name).write_bytes(b"x" * size)


def make_link(name, target):
    return lambda scratch: (scratch / name).symlink_to(scratch / target)


def make_all(*setups):
    return lambda scratch: [setup(scratch) for setup in setups]


def make_anothers_link(directory, name, target):
    """A link of nobody's, in a sticky directory every user can write, as another user would plant it."""
    def setup(scratch):
        shared = scratch / directory
        shared.mkdir(mode=0o1777)
        shared.chmod(0o1777)
        (shared / name).symlink_to(scratch / target)
        os.lchown(shared / name, NOBODY, NOBODY)
    return setup


def make_fifo(name):
    return lambda scratch: os.mkfifo(scratch / name)


def make_run_file(name, suffix=".json"):
    def setup(scratch):
        (scratch / "results").mkdir()
        (scratch / "results" / f"{name}{suffix}").write_text("{}")
    return setup


RUN = ["-a", "raw-bytes", "-b", "64KiB", "-t", "16KiB"]
NOBODY = 65534
# One rank more than all of this machine's memory holds, whatever the machine: free memory, which
# the launcher checks, changes between here and the test's run.
BEYOND = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // RANK_OVERHEAD_BYTES + 1

# What the runner's option checks alone refuse: its command line, -o's name, -Q against the rank
# count. Nothing of the node, its files or the launcher's sizing of the JVM plays a part.
OPTION_MISTAKES = [
    Mistake("unknown-approach", ["--", "-a", "nope"], "unknown approach 'nope'"),
    Mistake("empty-approach-at-the-end", ["--", "-a", "raw-bytes,,"], "names an empty approach"),
    Mistake("empty-approach-first", ["--", "-a", ",raw-bytes"], "names an empty approach"),
    Mistake("approach-empty", ["--", "-a", ""], "names an empty approach"),
    Mistake("block-not-multiple", ["--", "-b", "3MiB", "-t", "2MiB"], "is not a multiple of transfer size"),
    Mistake("transfer-not-whole-elements", ["--", "-b", "12", "-t", "6", "--type", "long"], "not a multiple of the long size"),
    Mistake("operations-smaller-than-an-element", ["--", "-a", "raw-bytes", "-b", "1KiB", "-t", "1"],
            "transfer size 1 is not a multiple of the int size (4 bytes; --type byte allows any size)"),
    Mistake("block-zero", ["--", "-b", "0"], "must be larger than zero"),
    Mistake("transfer-negative", ["--", "-t", "-4MiB"], "is not a size"),
    Mistake("size-unit-unknown", ["--", "-t", "4XB"], "is not a size"),
    Mistake("size-too-large", ["--", "-b", "99999999999999999999"], "is too large"),
    Mistake("too-many-transfers", ["--", "-s", "2147483647", "-b", "4KiB", "-t", "1KiB"], "too many transfers per rank"),
    Mistake("segments-zero", ["--", "-s", "0"], "segments must be at least 1"),
    Mistake("repetitions-zero", ["--", "-i", "0"], "repetitions must be at least 1"),
    Mistake("repetitions-not-a-number", ["--", "-i", "x"], "-i x: give a count or auto"),
    Mistake("ci-target-without-auto", ["--", "-i", "3", "--ci-target", "5%"], "--ci-target applies to -i auto only"),
    Mistake("ci-target-not-a-share", ["--", "-i", "auto", "--ci-target", "five"], "'five' is not a share (5% or 0.05)"),
    Mistake("time-budget-zero", ["--", "-i", "auto", "--time-budget", "0s"], "--time-budget must be more than 0"),
    Mistake("max-reps-below-the-minimum", ["--", "-i", "auto", "--max-reps", "5"], "--max-reps must be at least 6"),
    Mistake("warmup-negative", ["--", "--warmup", "-1"], "--warmup must be 0 or more"),
    Mistake("forks-negative", ["--", "--forks", "-1"], "--forks must be 0 or more"),
    Mistake("deadline-negative", ["--", "-D", "-1"], "the deadline must be 0 (none) or at least"),
    Mistake("deadline-too-short-to-time", ["--", "-D", "1e-9"], "the deadline must be 0 (none) or at least"),
    Mistake("deadline-not-a-number", ["--", "-D", "nan"], "'nan' is not a double"),
    Mistake("deadline-infinite", ["--", "-D", "Infinity"], "the deadline must be 0 (none) or at least"),
    Mistake("wear-out-without-deadline", ["--", "--wear-out"], "--wear-out needs a deadline"),
    Mistake("type-unknown", ["--", "--type", "short"], "unknown type 'short'"),
    Mistake("order-unknown", ["--", "--order", "backwards"], "unknown order 'backwards'"),
    Mistake("buffer-zero", ["--", "--buffer-size", "0"], "must be larger than zero"),
    Mistake("buffer-beyond-an-array", ["--", "--buffer-size", "3GiB"], "is too large"),
    Mistake("calibrate-rate-zero", ["--", "--calibrate-rate", "0"], "must be larger than zero"),
    Mistake("seed-not-a-number", ["--", "--seed", "x"], "Invalid value for option '--seed'"),
    Mistake("unknown-runner-option", ["--", "--no-such-option"], "Unknown option: '--no-such-option'"),
    Mistake("reorder-offset-without-reorder", ["--", *RUN, "-Q", "1"], "-Q sets how far -C looks: give -C too"),
    Mistake("reorder-offset-beyond-the-ranks", ["--", *RUN, "-C", "-Q", "2"], "-Q 2 must be from 1 to the rank count"),
    Mistake("object-size-not-of-whole-stripes", ["--", *RUN, "--stripe-size", "1MiB", "--object-size", "1536KiB"],
            "--object-size 1536KiB is not a multiple of --stripe-size 1MiB"),
    Mistake("object-size-off-the-unit", ["--", *RUN, "--object-size", "100KiB"], "is not a multiple of 64KiB"),
    Mistake("stripe-size-off-lustre-units", ["--", *RUN, "--stripe-size", "100KiB"], "is not a multiple of 64KiB"),
    Mistake("stripe-count-below-minus-one", ["--", *RUN, "--stripe-count", "-2"], "--stripe-count must be -1"),
    # The approaches' own options, and what each approach can do.
    Mistake("byte-order-little-for-data-stream", ["--", "-a", "data-stream", "--byte-order", "little"],
            "--byte-order little: data-stream writes big-endian only"),
    Mistake("byte-order-little-for-encode-decode", ["--", "-a", "encode-decode", "--byte-order", "little"],
            "--byte-order little: encode-decode writes big-endian only"),
    Mistake("byte-order-unknown", ["--", "--byte-order", "middle"],
            "unknown byte order 'middle' (expected big or little)"),
    Mistake("direct-for-raw-bytes", ["--", "-a", "raw-bytes", "--direct"],
            "--direct: raw-bytes cannot open its file with O_DIRECT"),
    Mistake("direct-for-mmap", ["--", "-a", "mmap", "--direct"], "--direct: mmap cannot open its file with O_DIRECT"),
    Mistake("piece-size-zero", ["--", "-a", "nio-bulk", "--nio-bulk.piece-size", "0"],
            "--nio-bulk.piece-size: '0' must be larger than zero"),
    Mistake("in-place-unknown", ["--", "-a", "bulk-jni", "--bulk-jni.in-place", "maybe"],
            "--bulk-jni.in-place: 'maybe' is not one of always, auto, no"),
    Mistake("ffm-on-jdk-17", ["--", "-a", "ffm"],
            "approach 'ffm' is unavailable: needs a JDK 22 or newer, and this JVM is 17"),
    Mistake("file-empty-name", ["--", *RUN, "-o", ""], "-o: the file name is empty"),
    Mistake("file-root", ["--", *RUN, "-o", "/"], "-o / ends with '/': name a file, not a directory"),
]
# Run end to end too, so that the runner's line is seen to reach the user through the launcher.
END_TO_END_TOO = {"unknown-approach", "block-not-multiple", "unknown-runner-option"}

MISTAKES = [
    # The launcher's own options.
    Mistake("ranks-zero", ["-n", "0", "--", *RUN], "-n must be at least 1"),
    Mistake("ranks-negative", ["-n", "-3", "--", *RUN], "-n must be at least 1"),
    Mistake("ranks-not-a-number", ["-n", "x", "--", *RUN], "argument -n/--ranks: invalid int value"),
    Mistake("ranks-beyond-the-node", ["-n", str(BEYOND), "--", *RUN], f"-n {BEYOND}: every rank is a launcher and a JVM"),
    Mistake("unknown-launcher", ["--launcher", "foo", "--", *RUN], "invalid choice: 'foo'"),
    Mistake("unknown-launcher-option", ["--frobnicate", "--", *RUN], "unrecognized arguments: --frobnicate"),
    Mistake("jvm-args-unclosed-quote", ["--jvm-args", "-Xmx1g '-Dx", "--", *RUN], "--jvm-args \"-Xmx1g '-Dx\": No closing"),
    Mistake("launcher-args-unclosed-quote", ["--launcher-args", "'--tag", "--", *RUN], "--launcher-args \"'--tag\""),
    Mistake("run-id-with-slash", ["--run-id", "a/b", "--", *RUN], "--run-id 'a/b' is not a name"),
    Mistake("run-id-empty", ["--run-id", "", "--", *RUN], "--run-id '' is not a name"),
    Mistake("run-id-taken", ["--run-id", "mine", "--", *RUN, "--results", "{dir}/results"],
            "--run-id mine: {dir}/results already holds a run of that name", setup=make_run_file("mine")),
    Mistake("run-id-taken-by-a-per-rank-file", ["--run-id", "mine", "--", *RUN, "--results", "{dir}/results"],
            "--run-id mine: {dir}/results already holds a run of that name",
            setup=make_run_file("mine", ".ranks.parquet")),
    Mistake("start-timeout-zero", ["--start-timeout", "0", "--", *RUN],
            "--start-timeout must be a number of seconds above 0 and at most 86400, not 0.0"),
    Mistake("start-timeout-infinite", ["--start-timeout", "inf", "--", *RUN],
            "--start-timeout must be a number of seconds above 0 and at most 86400, not inf"),
    Mistake("run-id-too-long-to-name-a-file", ["--run-id", "r" * 250, "--", *RUN],
            "--run-id of 250 characters: the run's files could not be named (at most 228)"),
    Mistake("java-missing", ["--java", "/nonexistent/java", "--", *RUN], "cannot start /nonexistent/java"),
    Mistake("java-that-is-no-java", ["--java", "/bin/true", "--", *RUN], "/bin/true exited without running the jiobench runner"),
    Mistake("jvm-args-that-end-the-jvm", ["--jvm-args=-version", "--", *RUN], "exited without running the jiobench runner"),
    Mistake("heap-too-small-to-start", ["--jvm-args=-Xmx1k", "--", *RUN], "Too small maximum heap"),
    Mistake("path-not-utf8", ["--", *RUN, "-o", "{dir}/bad\udcff.dat"], "bytes that are not UTF-8"),
    Mistake("path-not-ascii-under-the-c-locale", ["--", *RUN, "-o", "{dir}/café.dat"],
            "-o {dir}/café.dat: the name is not ASCII and the JVM would read it under LC_ALL=C, which is not UTF-8",
            environment={"LC_ALL": "C"}),
    # This node's limits, as ulimit sets them.
    Mistake("descriptors-too-few-for-the-launcher", ["--", *RUN], "the open-files limit (ulimit -n) is 20, and 2 ranks on "
            "this node need about 60 (the MPI launcher keeps pipes for each rank): its hard limit is 20",
            limits={resource.RLIMIT_NOFILE: (20, 20)}),
    Mistake("descriptors-below-a-higher-hard-limit", ["--", *RUN], "the open-files limit (ulimit -n) is 32, and 2 ranks "
            "on this node need about 60 (the MPI launcher keeps pipes for each rank): raise it (ulimit -n 60)",
            limits={resource.RLIMIT_NOFILE: (32, 4096)}),
    Mistake("address-space-too-small-for-the-jvm", ["--jvm-args=-Xmx1g", "--", *RUN],
            "the virtual memory limit (ulimit -v) is 2097152 KiB, and java cannot start under it (Could not allocate "
            "compressed class space: 1073741824 bytes): lift the limit",
            limits={resource.RLIMIT_AS: (2 << 30, 2 << 30)}),
    # The per-rank options.
    Mistake("transfer-beyond-the-heap", ["--", "-a", "paper", "-t", "2047MiB", "-b", "2047MiB"],
            "more than this JVM may use"),
    Mistake("transfer-beyond-a-small-heap", ["--jvm-args=-Xmx512m", "--", "-t", "1GiB", "-b", "1GiB"],
            "pass --jvm-args=-Xmx"),
    Mistake("offsets-beyond-the-heap", ["--", "-b", "1TiB", "-t", "1KiB"], "offsets of 1073741824 transfers"),
    Mistake("segments-beyond-the-heap", ["--", "-s", "2147483647", "-b", "1MiB", "-t", "1MiB"], "more than this JVM may use"),
    Mistake("stripes-off-lustre", ["--", *RUN, "--stripe-count", "4"],
            "set a Lustre or CephFS layout, but {dir} is on ext4"),
    # What the runner would touch.
    Mistake("file-trailing-slash", ["--", *RUN, "-F", "-o", "{dir}/adir/"], "ends with '/': name a file",
            setup=make_dir("adir")),
    Mistake("file-is-a-directory", ["--", *RUN, "-o", "{dir}/adir"], "{dir}/adir is a directory", setup=make_dir("adir")),
    Mistake("file-exists", ["--", *RUN, "-o", "{dir}/precious.dat"], "exists; pass --overwrite",
            setup=make_file("precious.dat")),
    Mistake("file-dangling-link", ["--", *RUN, "-o", "{dir}/link.dat"], "is a symbolic link to {dir}/gone.dat, which does not exist",
            setup=make_link("link.dat", "gone.dat")),
    Mistake("file-a-link", ["--", *RUN, "-o", "{dir}/jio.dat"], "{dir}/jio.dat is a symbolic link to {dir}/victim.dat; "
            "pass --overwrite to write over {dir}/victim.dat through it",
            setup=make_all(make_file("victim.dat"), make_link("jio.dat", "victim.dat"))),
    Mistake("file-another-user-s-link-with-overwrite", ["--", *RUN, "--overwrite", "-o", "{dir}/shared/jio.dat"],
            f"{{dir}}/shared/jio.dat is a symbolic link to {{dir}}/victim.dat made by uid {NOBODY} in a directory of uid "
            f"{os.getuid()}: a run follows only a link of its own user or of the directory's owner (as the kernel's "
            "protected_symlinks does); name the file itself",
            setup=make_all(make_file("victim.dat"), make_anothers_link("shared", "jio.dat", "victim.dat"))),
    Mistake("file-in-unwritable-directory", ["--", *RUN, "-o", "/proc/self/jiobench.dat"], "cannot write in directory /proc/self"),
    Mistake("file-in-missing-directory", ["--", *RUN, "-o", "/nonexistent-dir/jiobench.dat"], "directory /nonexistent-dir does not exist"),
    Mistake("read-missing-file", ["--", *RUN, "-r", "-o", "{dir}/missing.dat"], "does not exist: nothing to read"),
    Mistake("read-a-directory", ["--", *RUN, "-r", "-o", "{dir}/adir"], "{dir}/adir is a directory", setup=make_dir("adir")),
    Mistake("read-a-fifo", ["--", *RUN, "-r", "-o", "{dir}/fifo"], "is not a regular file (a device, FIFO or socket)",
            setup=make_fifo("fifo")),
    Mistake("read-a-device", ["--", *RUN, "-r", "-o", "/dev/null"], "/dev/null is not a regular file"),
    Mistake("read-a-small-file", ["--", *RUN, "-r", "-o", "{dir}/small.dat"], "holds 100 bytes but the plan reads",
            setup=make_file("small.dat")),
    Mistake("results-is-a-file", ["--", *RUN, "--results", "{dir}/results.txt"], "--results {dir}/results.txt is not a directory",
            setup=make_file("results.txt")),
    Mistake("results-cannot-be-written", ["--", *RUN, "--results", "/proc/self/results"], "--results /proc/self/results: cannot write there"),
    *(mistake for mistake in OPTION_MISTAKES if mistake.id in END_TO_END_TOO),
]


def snapshot(directory: Path) -> list[tuple]:
    return sorted((str(p.relative_to(directory)), p.is_dir() or p.is_fifo() or p.stat().st_size)
                  for p in directory.rglob("*") if not p.is_symlink())


def run_jiobench(args: list[str], ranks: int, cwd: Path, environment: Optional[dict] = None,
                 limits: Optional[dict] = None) -> subprocess.CompletedProcess:
    if "-n" not in args[:args.index("--") if "--" in args else len(args)]:
        args = ["-n", str(ranks), *args]
    encoded = [os.fsencode(arg) for arg in args]

    def set_limits():
        for limit, values in (limits or {}).items():
            resource.setrlimit(limit, values)

    return run_bounded([os.fsencode(str(JIOBENCH)), b"run", *encoded], timeout=120, cwd=cwd,
                       env=dict(os.environ, **(environment or {})), preexec_fn=set_limits)


@pytest.mark.runs
@pytest.mark.parametrize("mistake", MISTAKES, ids=[m.id for m in MISTAKES])
def test_a_mistake_is_one_line_and_exit_two_and_changes_nothing(tmp_path, mistake):
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    if mistake.setup:
        mistake.setup(scratch)
    args = [arg.replace("{dir}", str(scratch)) for arg in mistake.args]
    if "--" in args and not any(arg in ("-o", "--file") for arg in args):
        args += ["-o", str(scratch / "f.dat")]
    before = snapshot(scratch)
    done = run_jiobench(args, mistake.ranks, scratch, mistake.environment, mistake.limits)
    stderr = done.stderr.decode("utf-8", "replace")
    assert done.returncode == 2, f"exit {done.returncode}\n{stderr}"
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("jiobench: error: ") and mistake.words.replace("{dir}", str(scratch)) in lines[0], lines[0]
    assert not any(trace in stderr for trace in TRACES), stderr
    assert snapshot(scratch) == before, "a refused run creates and changes nothing"


@pytest.fixture(scope="module")
def dry_runs(tmp_path_factory) -> dict:
    """The runner's answer to each option mistake, all from one JVM (DryRuns, of the runner's
    tests) in an empty directory, each checked as the run of its rank count would check it; and
    what that JVM said besides."""
    scratch = tmp_path_factory.mktemp("dry-runs")
    lines = [json.dumps([*m.args[m.args.index("--") + 1:], f"--dry-run-ranks={m.ranks}",
                         *([] if "-o" in m.args else ["-o", str(scratch / "f.dat")])]) for m in OPTION_MISTAKES]
    done = subprocess.run(["java", "-cp", f"{JAR}:{JAR.parent / 'test-classes'}", "org.jiobench.runner.DryRuns"],
                          input="\n".join(lines) + "\n", capture_output=True, text=True, cwd=scratch, timeout=120)
    assert done.returncode == 0 and not any(trace in done.stderr for trace in TRACES), done.stderr
    assert list(scratch.iterdir()) == [], "a dry run creates nothing"
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert len(answers) == len(OPTION_MISTAKES), done.stdout
    return {mistake.id: answer for mistake, answer in zip(OPTION_MISTAKES, answers)}


@pytest.mark.parametrize("mistake", OPTION_MISTAKES, ids=[m.id for m in OPTION_MISTAKES])
def test_an_option_mistake_is_one_line_and_exit_two_as_the_runner_checks_it(dry_runs, mistake):
    answer = dry_runs[mistake.id]
    assert answer["code"] == 2 and answer["stdout"] == "", answer
    lines = answer["stderr"].strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("jiobench: error: ") and mistake.words in lines[0], answer
    assert not any(trace in answer["stderr"] for trace in TRACES), answer


def test_the_form_help_shows_for_jvm_args_is_accepted(jiobench, tmp_path):
    done = subprocess.run([str(JIOBENCH), "run", "-n", "1", "--jvm-args", "-Xmx256m", "--", "-a", "calibrate", "-b", "1MiB",
                           "-t", "1MiB", "--results", str(tmp_path / "results")], capture_output=True, text=True,
                          timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    run = json.loads(Path(done.stdout.strip().splitlines()[-1]).read_text())
    assert run["environment"]["jvm"]["args"] == ["-Xmx256m"]


@pytest.fixture
def small_filesystem(tmp_path):
    """A 40 MiB tmpfs: what a plan larger than the free space meets."""
    mount = tmp_path / "small"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=40m", "tmpfs", str(mount)], check=True)
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=True)


@pytest.mark.runs
def test_a_plan_larger_than_the_free_space_is_refused_before_anything_is_written(small_filesystem):
    done = subprocess.run([str(JIOBENCH), "run", "-n", "2", "--", "-a", "raw-bytes", "-b", "1GiB", "-t", "4MiB",
                           "-o", str(small_filesystem / "f.dat"), "--results", str(small_filesystem / "results")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().count("\n") == 0 and "the plan writes 2GiB but" in done.stderr, done.stderr
    assert not (small_filesystem / "f.dat").exists(), "no sparse file left to block the rerun"


@pytest.mark.runs
@pytest.mark.parametrize("launcher", EVERY_LAUNCH_PATH)
def test_a_plan_larger_than_the_node_s_memory_is_refused_before_it_is_built(tmp_path, launcher):
    """Tiny transfers make a plan of many offsets: each rank's here is 55% of the memory the node
    has available, which the JVM's own heap check lets through (-Xmx allows it, for both ranks
    where they share one JVM), so the launcher refuses the two ranks together before either
    builds its plan (under MPJ Express, whose ranks do not wait for a word, as it begins)."""
    done = subprocess.run([str(JIOBENCH), "run", "-n", "2", f"--launcher={launcher}", *plans_of_most_of_the_memory(),
                           "-o", str(tmp_path / "f.dat"), "--results", str(tmp_path / "results")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert re.fullmatch(r"jiobench: error: 2 ranks on \S+ need about [\d.]+ GiB \(their plans and JVMs\), more than "
                        r"the [\d.]+ GiB it has available: run at most 1 per node, or shrink the plan \(a lower -b or "
                        r"-s; with tiny transfers, whose offsets it holds, a larger -t\)\n", done.stderr), done.stderr
    assert list(tmp_path.iterdir()) == [], "nothing created"


@pytest.mark.runs
@pytest.mark.parametrize("launcher", EVERY_LAUNCH_PATH)
def test_a_run_id_already_taken_is_refused_before_the_first_phase(tmp_path, launcher):
    results = tmp_path / "results"
    results.mkdir()
    (results / "mine.json").write_text("{}")
    done = run_bounded([str(JIOBENCH), "run", "-n", "2", f"--launcher={launcher}", "--run-id", "mine", "--", *RUN,
                        "-i", "1", "--results", str(results), "-o", str(tmp_path / "f.dat")],
                       timeout=120, cwd=tmp_path)
    stderr = done.stderr.decode()
    assert done.returncode == 2, stderr
    assert stderr.splitlines() == [f"jiobench: error: --run-id mine: {results} already holds a run of that name "
                                   "(a run never writes over another run's file)"], stderr
    assert b"fork 1 rep" not in done.stdout, "no phase ran"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results"] and [p.name for p in results.iterdir()] == [
        "mine.json"] and (results / "mine.json").read_text() == "{}"
