"""Beyond the papers, end to end: the modern approaches, c-swap, both byte orders, --direct, ffm on
a JDK 22+, and the approaches' own options, under real mpirun with real JVMs and files."""
from __future__ import annotations

import os
import subprocess

import pytest

from testing import JIOBENCH, modern_java, reference_bytes, written_as_the_independent_writer

pytestmark = pytest.mark.runs

NEW = ["nio-bulk", "nio-heap", "mmap", "c-swap"]
# Those whose own conversion makes a little-endian file; test_runs.py holds every approach to the
# big-endian bytes, and raw-bytes and c-posix move bytes that the runner prepared untimed.
MODERN = NEW + ["bulk-jni"]
PIECED = ["nio-bulk", "c-swap", "ffm", "ffm-pread"]
JAVA22 = modern_java()
needs_java22 = pytest.mark.skipif(JAVA22 is None, reason="no JDK 22 or newer in /usr/lib/jvm: ffm cannot run here")


def write_and_compare(jiobench, tmp_path, approaches, type_id, byte_order, java=None, extra=()):
    """The approaches write a 2-rank, 2-segment, shuffled file, each must equal the independent
    writer's: see written_as_the_independent_writer."""
    seed, ranks, block, segments = 5, 2, 32 * 1024, 2
    element = {"byte": 1, "int": 4, "float": 4, "long": 8, "double": 8}[type_id]
    expected = reference_bytes(type_id, range(ranks * block * segments // element), seed, byte_order)
    target = tmp_path / f"{type_id}-{byte_order}.dat"
    # Small pieces, so that a transfer moves in several.
    pieces = [arg for approach in approaches if approach in PIECED for arg in (f"--{approach}.piece-size", "3KiB")]
    run = jiobench("-a", ",".join(approaches), "-w", "--keep", "--verify", "--forks", "1", "--warmup", "0",
                   "--type", type_id, "--byte-order", byte_order, "--seed", str(seed), "-b", "32KiB", "-t", "8KiB",
                   "-s", str(segments), "--order", "shuffled", *pieces, *extra, "-o", str(target), ranks=ranks, java=java)
    written_as_the_independent_writer(run, approaches, target, expected)


@pytest.mark.parametrize("byte_order", ["big", "little"])
@pytest.mark.parametrize("type_id", ["byte", "int", "long", "float", "double"])
def test_every_new_approach_writes_the_independent_writers_bytes(jiobench, tmp_path, type_id, byte_order):
    write_and_compare(jiobench, tmp_path, NEW if byte_order == "big" else MODERN, type_id, byte_order)


@pytest.mark.parametrize("byte_order", ["big", "little"])
@pytest.mark.parametrize("type_id", ["byte", "int", "long", "float", "double"])
def test_every_approach_round_trips_every_type_in_either_order(jiobench, tmp_path, type_id, byte_order):
    """With -e too: every approach's sync (mmap's force) runs before its phase ends."""
    approaches = MODERN + ["raw-bytes", "c-posix"] if byte_order == "little" else ["all"]
    run = jiobench("-a", ",".join(approaches), "--type", type_id, "--byte-order", byte_order, "-b", "64KiB",
                   "-t", "16KiB", "--verify", "--warmup", "0", "--forks", "0", "-D", "1", "-e",
                   "-o", str(tmp_path / "f.dat"))
    assert run.code == 0, run
    phases = [p for p in run.file["phases"] if p["approach"] != "calibrate"]
    assert {p["approach"] for p in phases} >= set(MODERN)
    assert all(p["verified"] is True for p in phases), phases
    assert run.file["parameters"]["byte_order"] == byte_order and run.file["parameters"]["fsync"] is True


@needs_java22
@pytest.mark.parametrize("byte_order", ["big", "little"])
@pytest.mark.parametrize("type_id", ["int", "long", "float", "double"])
def test_ffm_on_a_jdk_22_writes_the_independent_writers_bytes(jiobench, tmp_path, type_id, byte_order):
    # From JDK 22 mmap unmaps through an arena: once per order on that path too.
    approaches = ["ffm", "ffm-pread"] + (["mmap"] if type_id == "int" else [])
    write_and_compare(jiobench, tmp_path, approaches, type_id, byte_order, java=JAVA22)
    # And the other ways ffm offers: a mapped segment, and MemorySegment.copy rather than the loop.
    other = {"int": ["--ffm.segment", "mapped"], "double": ["--ffm.copy", "bulk"]}.get(type_id)
    if other:
        (tmp_path / f"{type_id}-{byte_order}.dat").unlink()
        write_and_compare(jiobench, tmp_path, ["ffm"], type_id, byte_order, java=JAVA22, extra=other)


@needs_java22
def test_ffm_ffm_pread_and_bulk_jni_in_place_round_trip_on_a_jdk_22(jiobench, tmp_path):
    run = jiobench("-a", "ffm,ffm-pread,mmap,bulk-jni", "--bulk-jni.chunk-size", "4KiB", "-b", "64KiB", "-t", "16KiB",
                   "--verify", "--warmup", "0", "--forks", "0", "-o", str(tmp_path / "f.dat"), java=JAVA22)
    assert run.code == 0, run
    assert all(p["verified"] is True for p in run.file["phases"]), run.file["phases"]
    assert "Unsafe" not in run.stderr and "WARNING" not in run.stderr, run.stderr


def test_direct_io_writes_and_reads_verified_and_is_recorded(jiobench, tmp_path):
    approaches = "c-posix,c-swap,nio-bulk,nio-heap" + (",ffm" if JAVA22 else "")
    run = jiobench("-a", approaches, "--direct", "-b", "256KiB", "-t", "64KiB", "--verify", "--warmup", "0",
                   "--byte-order", "little", "-o", str(tmp_path / "f.dat"), java=JAVA22)
    assert run.code == 0, run
    assert all(p["verified"] is True for p in run.file["phases"]), run.file["phases"]
    parameters = run.file["parameters"]
    assert parameters["direct"] is True
    assert parameters["approach_options"]["c-swap"] == {"piece-size": 1 << 20}


@pytest.fixture(scope="module")
def ramfs(tmp_path_factory):
    """A ramfs, which refuses O_DIRECT (tmpfs allows it since Linux 6.6); skipped where mounting is not allowed."""
    mount_point = tmp_path_factory.mktemp("ramfs")
    mounted = subprocess.run(["mount", "-t", "ramfs", "jiobench-test", str(mount_point)],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a ramfs here: {mounted.stderr.strip()}")
    yield mount_point
    subprocess.run(["umount", str(mount_point)], check=True)


def test_direct_io_on_a_file_system_that_refuses_it_is_one_line(jiobench, ramfs):
    run = jiobench("-a", "c-posix", "--direct", "-b", "64KiB", "-t", "64KiB", "-o", str(ramfs / "f.dat"),
                   results=False)
    assert run.code == 2, run
    assert run.stderr.strip() == f"jiobench: error: --direct: the file system of {ramfs} refuses O_DIRECT " \
                                 f"(Invalid argument)", run
    assert os.listdir(ramfs) == [], "nothing is left behind"


# The approaches' options that the runner's option checks alone refuse are among test_bad_input's
# OPTION_MISTAKES; these two ask the file system for its block size.
@pytest.mark.parametrize("args, message", [
    (["-a", "c-swap", "--direct", "-t", "1000", "-b", "1000"], "--direct: transfer size 1000 bytes is not a multiple"),
    (["-a", "c-swap", "--direct", "--c-swap.piece-size", "6KiB"], "--direct: --c-swap.piece-size 6144 bytes is not"),
])
def test_what_cannot_work_is_refused_in_one_line(jiobench, tmp_path, args, message):
    run = jiobench(*args, "-o", str(tmp_path / "f.dat"), ranks=2, timeout=60, results=False)
    assert run.code == 2, run
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("jiobench: error: ") and message in lines[0], run
    assert not (tmp_path / "f.dat").exists()


@needs_java22
def test_ffm_refuses_direct_io_through_a_mapping(jiobench, tmp_path):
    run = jiobench("-a", "ffm", "--direct", "--ffm.segment", "mapped", "-o", str(tmp_path / "f.dat"), results=False,
                   java=JAVA22)
    assert run.code == 2, run
    assert run.stderr.strip() == "jiobench: error: --direct: ffm with --ffm.segment mapped cannot open its file " \
                                 "with O_DIRECT (see --help)", run


def test_help_lists_each_approachs_options_under_its_name():
    shown = subprocess.run([str(JIOBENCH), "run", "--", "--help"], capture_output=True, text=True, timeout=60)
    assert shown.returncode == 0, shown.stderr
    text = shown.stdout
    for approach, option in [("nio-bulk", "piece-size"), ("c-swap", "piece-size"), ("bulk-jni", "chunk-size"),
                             ("bulk-jni", "in-place")]:
        heading = text.index(f"{approach} options:")
        assert f"--{approach}.{option}" in text[heading:].split("options:")[1], approach
    assert "ffm" in text and "--byte-order" in text and "--direct" in text


def test_the_run_file_records_the_options_in_force(jiobench, tmp_path):
    run = jiobench("-a", "bulk-jni,c-posix", "--bulk-jni.chunk-size", "256KiB", "-b", "64KiB", "-t", "64KiB",
                   "--warmup", "0", "-o", str(tmp_path / "f.dat"), ranks=1)
    assert run.code == 0, run
    parameters = run.file["parameters"]
    assert parameters["approach_options"] == {"bulk-jni": {"chunk-size": 256 * 1024, "in-place": "always"}}
    assert parameters["byte_order"] == "big" and parameters["direct"] is False
