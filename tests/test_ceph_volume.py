"""A real CephFS (scripts/ceph-volume.sh): a monitor, three OSDs keeping their objects in memory, an
MDS and a ceph-fuse client, with jiobench laying its file out over the OSDs (--stripe-count,
--stripe-size, --object-size) and the layout checked from the objects the OSDs hold."""
from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from testing import (HOME, JIOBENCH, Run, assert_a_failed_start_left_nothing, mounted_type, processes_naming,
                     run_bounded)
from jiobench.run.processes import alive, kill

pytestmark = pytest.mark.ceph

VOLUME = HOME / "scripts" / "ceph-volume.sh"
OSDS = 3


def volume_script(*args: str, timeout: float = 180, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([str(VOLUME), *args], capture_output=True, text=True, timeout=timeout, env=env)


@dataclass(frozen=True)
class Volume:
    """A file system of scripts/ceph-volume.sh: its directory, where it is mounted, and the words
    that reach its daemons' network (none here; a node's in a virtual cluster)."""
    directory: Path
    mount: Path
    on: tuple[str, ...] = ()

    @property
    def conf(self) -> Path:
        return self.directory / "ceph.conf"

    def tool(self, *command: str) -> str:
        done = subprocess.run([*self.on, *command], capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        return done.stdout

    def ceph(self, *args: str) -> str:
        """The cluster's CLI, as the volume's `cli` line says to call it."""
        return self.tool("ceph", "-c", str(self.conf), *args)

    def osds_holding(self, path: Path) -> dict[str, int]:
        """Each object of the file in the data pool, as the OSDs hold it, and the OSD it is on."""
        prefix = f"{int(self.tool('stat', '-c', '%i', str(path))):x}."  # objects are named INODE.NUMBER
        objects = self.tool("rados", "-c", str(self.conf), "-p", "cephfs_data", "ls").split()
        placed = {}
        for name in sorted(o for o in objects if o.startswith(prefix)):
            mapping = json.loads(self.ceph("osd", "map", "cephfs_data", name, "--format", "json"))
            placed[name] = mapping["acting_primary"]
        return placed

    def bytes_the_osds_read(self) -> int:
        """What every OSD has served to reads since it started, by its own counters."""
        total = 0
        for socket in sorted((self.directory / "run").glob("osd.*.asok")):
            counters = json.loads(self.tool("ceph", "--admin-daemon", str(socket), "perf", "dump"))
            total += counters["osd"]["op_r_out_bytes"]
        return total

    def jiobench(self, cwd: Path, *args: str, ranks: int = 2) -> Run:
        """`jiobench run` from `cwd`, its results there, with the cluster's configuration where the
        ceph CLI looks for it."""
        return Run(run_bounded([str(JIOBENCH), "run", "-n", str(ranks), "--", *args, "--results", str(cwd / "results")],
                               timeout=240, text=True, cwd=cwd, env={**os.environ, "CEPH_CONF": str(self.conf)}))


def mount_of(said: str) -> Path:
    """The mount point a start printed (`mount PATH`)."""
    return Path(next(line.split(" ", 1)[1] for line in said.splitlines() if line.startswith("mount ")))


@pytest.fixture(scope="module")
def volume():
    # Short: the admin sockets' paths under it must fit a Unix socket's 107 bytes.
    directory = Path(tempfile.mkdtemp(prefix="jiobench-ceph-"))
    try:
        started = volume_script("start", str(directory), "--osds", str(OSDS), "--osd-size", "1GiB")
        assert started.returncode == 0, started.stderr
        yield Volume(directory, mount_of(started.stdout))
    finally:
        volume_script("stop", str(directory))
        shutil.rmtree(directory, ignore_errors=True)


@pytest.fixture
def workdir(volume, tmp_path):
    """A directory of the test's own on the file system, removed with what the test left there
    (the run's results stay in tmp_path)."""
    directory = volume.mount / tmp_path.name
    directory.mkdir()
    yield directory
    shutil.rmtree(directory, ignore_errors=True)


def test_the_file_system_is_mounted_through_ceph_fuse_with_every_daemon_running(volume):
    assert mounted_type(volume.mount) == "fuse.ceph-fuse"
    status = volume_script("status", str(volume.directory))
    assert status.returncode == 0, status.stdout
    daemons = {line.split(" pid ")[0] for line in status.stdout.splitlines() if " pid " in line}
    assert {"mon.a", "mgr.x", "mds.a", *(f"osd.{i}" for i in range(OSDS))} <= daemons, status.stdout
    assert json.loads(volume.ceph("osd", "stat", "--format", "json"))["num_up_osds"] == OSDS


def test_a_striped_run_lays_its_file_over_the_osds_and_reads_back_what_it_wrote(volume, workdir, tmp_path):
    target = workdir / "striped.dat"
    run = volume.jiobench(tmp_path, "-a", "raw-bytes,c-posix", "-b", "8MiB", "-t", "1MiB", "-i", "1", "--warmup", "0",
                          "--forks", "0", "--verify", "--keep", "--stripe-count", "3", "--stripe-size", "1MiB",
                          "-o", str(target))
    assert run.code == 0, run
    assert all(phase["verified"] is True for phase in run.file["phases"]), run.file["phases"]
    layout = run.file["environment"]["filesystem"]["layout"]
    assert run.file["environment"]["filesystem"]["type"] == "fuse.ceph-fuse"
    assert {key: layout[key] for key in ("stripe_unit", "stripe_count", "object_size", "pool", "osds")} == \
        {"stripe_unit": 1 << 20, "stripe_count": 3, "object_size": 4 << 20, "pool": "cephfs_data", "osds": OSDS}
    assert layout["filesystem"] == "cephfs" and layout["metadata_pool"] == "cephfs_metadata"
    assert run.file["parameters"]["stripe_count"] == 3 and run.file["parameters"]["object_size"] is None
    assert "(3 stripe(s) of 1MiB in objects of 4MiB of 3 OSDs)" in run.stdout
    # What CephFS reads back from the file, and where its 16 MiB went: 1 MiB units dealt round
    # three 4 MiB objects, so objects 0-2 fill first, then 3-5 take the last 4 units.
    assert os.getxattr(target, "ceph.file.layout").decode() == \
        "stripe_unit=1048576 stripe_count=3 object_size=4194304 pool=cephfs_data"
    placed = volume.osds_holding(target)
    assert [name.split(".")[1] for name in placed] == [f"{n:08x}" for n in range(6)], placed
    assert len(set(placed.values())) >= 2, f"the file's objects all sit on one OSD: {placed}"


@pytest.mark.parametrize("args, words", [
    (["--stripe-count", str(OSDS + 1)], f"--stripe-count {OSDS + 1} is more than the {OSDS} OSDs of this CephFS"),
    # The directory's stripe unit is Ceph's 4 MiB, which 17 x 64 KiB objects cannot hold whole.
    (["--object-size", "1088KiB"], "(the object size must be a multiple of the directory's stripe unit: "
                                   "give --stripe-size too)"),
    (["--stripe-size", "1MiB", "--object-size", "1536KiB"], "--object-size 1536KiB is not a multiple of --stripe-size"),
], ids=["more-stripes-than-osds", "objects-not-of-whole-units", "objects-not-of-whole-stripes"])
def test_a_layout_cephfs_cannot_take_is_refused_in_one_line_and_leaves_no_file(volume, workdir, tmp_path, args,
                                                                              words):
    target = workdir / "refused.dat"
    run = volume.jiobench(tmp_path, "-a", "raw-bytes", "-b", "1MiB", "-t", "256KiB", *args, "-o", str(target))
    assert run.code == 2, run
    assert len(run.stderr.strip().splitlines()) == 1 and words in run.stderr, run.stderr
    assert not target.exists()
    assert list(workdir.iterdir()) == [], "nothing created, nothing left"


def test_every_osd_is_minus_one(volume, workdir, tmp_path):
    run = volume.jiobench(tmp_path, "-a", "c-posix", "-b", "1MiB", "-t", "256KiB", "-i", "1", "--warmup", "0",
                          "--stripe-count", "-1", "-F", "-o", str(workdir / "each.dat"))
    assert run.code == 0, run
    assert run.file["environment"]["filesystem"]["layout"]["stripe_count"] == OSDS, "each file of -F laid out"
    assert run.file["parameters"]["stripe_count"] == -1


def test_a_reordered_read_on_ceph_fuse_needs_drop_cache(volume, workdir, tmp_path):
    run = volume.jiobench(tmp_path, "-a", "c-posix", "-b", "1MiB", "-t", "256KiB", "-C", "-o", str(workdir / "f.dat"))
    assert run.code == 2, run
    assert re.search(r"-C on fuse\.ceph-fuse \(.*\) needs --drop-cache", run.stderr), run.stderr


def test_drop_cache_empties_ceph_fuses_own_cache_so_that_the_osds_serve_the_reads(volume, workdir, tmp_path):
    """ceph-fuse answers a read of what it has cached (here all of the file: 96 MiB, within its
    200 MiB) from its own memory, past any page cache call; --drop-cache empties it through the
    client's admin socket, and the OSDs serve every byte again."""
    target = workdir / "cached.dat"
    common = ["-a", "c-posix", "-b", "48MiB", "-t", "1MiB", "--warmup", "0", "-o", str(target)]
    assert volume.jiobench(tmp_path, *common, "-w", "--keep", "-i", "1").code == 0
    rates = {}
    for dropped in (False, True):
        served = volume.bytes_the_osds_read()
        run = volume.jiobench(tmp_path, *common, "-r", "--verify", "-i", "3", *(["--drop-cache"] if dropped else []))
        assert run.code == 0, run
        assert all(phase["verified"] is True for phase in run.file["phases"]), run.file["phases"]
        served = volume.bytes_the_osds_read() - served
        rates[dropped] = run.file["summary"][0]["bw_mib_s"]["median"]
        if dropped:
            assert served >= 3 * (96 << 20), f"each of 3 reads came from the OSDs: {served} bytes"
        else:
            assert served < 96 << 20, f"the client's cache answered: the OSDs served {served} bytes"
    assert rates[True] < 0.5 * rates[False], rates


def test_gluster_volumes_stop_refuses_the_file_systems_directory_and_leaves_it_running(volume):
    refused = subprocess.run([str(HOME / "scripts" / "gluster-volume.sh"), "stop", str(volume.directory)],
                             capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2
    assert refused.stderr.splitlines() == [
        f"gluster-volume.sh: no volume in {volume.directory} (ceph-volume.sh made what is there): "
        "nothing stopped or removed"], refused.stderr
    assert volume_script("status", str(volume.directory)).returncode == 0
    assert mounted_type(volume.mount) == "fuse.ceph-fuse"


def test_stop_ends_a_client_wedged_on_its_lost_mds_within_30_s_and_leaves_nothing_behind():
    """With the MDS lost, a call on the mount waits for it forever, and so did stop's umount, which
    looks at the mount first, in a wait that no signal ends: stop detaches the mount and kills
    ceph-fuse, which fails the waiting calls, and says so."""
    directory = Path(tempfile.mkdtemp(prefix="jiobench-ceph-"))
    mount = directory / "mnt"
    hanging = None
    try:
        started = volume_script("start", str(directory), "--osds", "1", "--osd-size", "256MiB")
        assert started.returncode == 0, started.stderr
        again = volume_script("start", str(directory))
        assert again.returncode == 2 and "already runs" in again.stderr, again.stderr
        pids = {path.name.split(".")[0]: int(path.read_text()) for path in (directory / "run").glob("*.pid")}
        assert len(pids) == 5, "monitor, manager, OSD, MDS and client"
        # A daemon lost on its own leaves the file system partly running, which stop also ends.
        os.kill(pids["mds"], signal.SIGKILL)
        status = volume_script("status", str(directory))
        assert status.returncode == 1 and status.stdout.startswith("partly running"), status.stdout
        hanging = subprocess.Popen(["touch", str(mount / "new")], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(2)
        assert hanging.poll() is None, "a call on the mount waits for the MDS"
        began = time.monotonic()
        stopped = volume_script("stop", str(directory), timeout=60)
        took = time.monotonic() - began
        assert stopped.returncode == 0, stopped.stderr
        assert took < 30, took
        said = [re.sub(r"^ceph-volume\.sh: \[ *\d+\.\d\d s\] ", "", line) for line in stopped.stderr.splitlines()]
        assert said == [f"umount {mount} failed (busy, or its client does not answer): detaching it (umount -l)",
                        f"killing the client of {mount}, pid {pids['client']} (ceph-fuse)"], stopped.stderr
        hanging.wait(timeout=10)  # the call ends with its client (TimeoutExpired where it still waits)
        assert [pid for pid in pids.values() if alive(pid)] == []
        assert processes_naming(directory) == []
        assert mounted_type(mount) is None
        assert sorted(path.name for path in directory.iterdir()) == ["log", "mnt"]
        status = volume_script("status", str(directory))
        assert status.returncode == 3 and status.stdout == f"not running: no file system in {directory}\n"
    finally:
        with contextlib.suppress(subprocess.TimeoutExpired):
            volume_script("stop", str(directory), timeout=60)
        kill(processes_naming(directory))  # what a stop that failed left
        if hanging:
            hanging.kill()
            hanging.wait()
        shutil.rmtree(directory, ignore_errors=True)


def test_a_start_that_fails_halfway_leaves_nothing_running(tmp_path):
    """The monitor, manager and OSD are up when the metadata server, a stand-in that fails, does
    not start: everything started is stopped."""
    stand_ins = tmp_path / "bin"
    stand_ins.mkdir()
    (stand_ins / "ceph-mds").write_text("#!/bin/sh\nexit 1\n")
    (stand_ins / "ceph-mds").chmod(0o755)
    directory = Path(tempfile.mkdtemp(prefix="jiobench-ceph-"))
    try:
        failed = volume_script("start", str(directory), "--osds", "1", "--osd-size", "256MiB",
                               env={**os.environ, "PATH": f"{stand_ins}:{os.environ['PATH']}"})
        assert failed.returncode == 1
        assert failed.stderr.strip() == f"ceph-volume.sh: ceph-mds did not start; see {directory}/log", failed.stderr
        assert (directory / "log" / "osd.0.log").exists(), "the OSD had started"
        assert_a_failed_start_left_nothing(directory)
    finally:
        volume_script("stop", str(directory))
        shutil.rmtree(directory, ignore_errors=True)

