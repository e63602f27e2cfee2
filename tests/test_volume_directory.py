"""scripts/ceph-volume.sh and scripts/gluster-volume.sh act only on a directory they made: start
writes the script's marker there before anything else, and stop, mount and unmount refuse a
directory without it in one line, exit 2, touching nothing; start refuses a directory that holds
what it would replace. No daemon starts: each refusal comes before any. The other script's
directory is refused too, with its volume running (test_ceph_volume.py, test_gluster_volume.py)."""
from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Iterator

import pytest

from testing import HOME

WHAT = {"ceph": "file system", "gluster": "volume"}


def volume_script(name: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([str(HOME / "scripts" / f"{name}-volume.sh"), *args], capture_output=True, text=True,
                          timeout=60)


def tree(directory: Path) -> dict[str, bytes | None]:
    """Every path under the directory with its content (None: a directory)."""
    return {str(path.relative_to(directory)): path.read_bytes() if path.is_file() else None
            for path in sorted(directory.rglob("*"))}


@pytest.fixture
def users_directory() -> Iterator[Path]:
    """A directory of the user's own whose names are those the scripts make there; in the temporary
    directory itself, as the CephFS script takes a DIR short enough for Ceph's admin sockets (the
    test's own, under pytest-xdist's worker, is not)."""
    directory = Path(tempfile.mkdtemp(prefix="jiobench-mine-"))
    for name in ("run", "osd", "mon", "pids", "state", "bricks"):
        (directory / name).mkdir(parents=True)
        (directory / name / "notes.txt").write_text(f"the user's own {name}\n")
    (directory / "ceph.conf").write_text("[global]\n")
    yield directory
    shutil.rmtree(directory)


@pytest.mark.parametrize("name, action, outcome", [
    ("ceph", "stop", "nothing stopped or removed"),
    ("ceph", "mount", "start it first: ceph-volume.sh start {dir}"),
    ("ceph", "unmount", "nothing unmounted"),
    ("gluster", "stop", "nothing stopped or removed"),
])
def test_a_directory_the_script_did_not_make_is_refused_in_one_line_and_kept(users_directory, name, action,
                                                                            outcome):
    before = tree(users_directory)
    refused = volume_script(name, action, str(users_directory))
    assert refused.returncode == 2, refused
    assert refused.stdout == ""
    assert refused.stderr.splitlines() == [
        f"{name}-volume.sh: no {WHAT[name]} in {users_directory} (it has no made-by-{name}-volume): "
        f"{outcome.format(dir=users_directory)}"], refused.stderr
    assert tree(users_directory) == before


@pytest.mark.parametrize("name, held", [("ceph", "mon osd run ceph.conf"), ("gluster", "state run bricks pids")])
def test_start_refuses_a_directory_holding_what_it_would_replace(users_directory, name, held):
    before = tree(users_directory)
    refused = volume_script(name, "start", str(users_directory))
    if refused.returncode == 0:  # started over the user's files: what started must not outlive the test
        volume_script(name, "stop", str(users_directory))
    assert refused.returncode == 2, refused
    assert refused.stderr.splitlines() == [
        f"{name}-volume.sh: {users_directory} holds {held}, which {name}-volume.sh did not make (it has no "
        f"made-by-{name}-volume): nothing started; choose another directory"], refused.stderr
    assert tree(users_directory) == before


@pytest.mark.parametrize("name", ["ceph", "gluster"])
def test_status_of_a_directory_the_script_did_not_make_is_not_running(users_directory, name):
    status = volume_script(name, "status", str(users_directory))
    assert (status.returncode, status.stdout, status.stderr) == (
        3, f"not running: no {WHAT[name]} in {users_directory}\n", "")


def test_a_marker_of_another_directory_is_no_marker(users_directory):
    """A directory moved, or a marker copied: its words name the directory start ran in."""
    marker = users_directory / "made-by-ceph-volume"
    marker.write_text("made by ceph-volume.sh start /somewhere/else\n")
    refused = volume_script("ceph", "stop", str(users_directory))
    assert refused.returncode == 2
    assert refused.stderr.splitlines() == [
        f"ceph-volume.sh: no file system in {users_directory} (its made-by-ceph-volume does not read 'made by "
        f"ceph-volume.sh start {users_directory}'): nothing stopped or removed"], refused.stderr
    assert (users_directory / "run" / "notes.txt").exists() and marker.exists()
