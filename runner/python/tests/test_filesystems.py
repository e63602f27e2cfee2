"""Layouts and warnings of the file systems jiobench meets; Lustre through a stand-in lfs (no
Lustre runs here), GlusterFS for real in test_gluster_volume.py."""
from __future__ import annotations

import os

import pytest

from testing import HOME
from jiobench.run import filesystems
from jiobench.run.environment import run_environment

STAND_INS = HOME / "runner" / "src" / "test" / "stand-ins"


@pytest.fixture
def stand_in_lfs(monkeypatch, tmp_path):
    record = tmp_path / "lfs-arguments"
    monkeypatch.setenv("PATH", f"{STAND_INS}:{os.environ['PATH']}")
    monkeypatch.setenv("LFS_RECORD", str(record))
    return record


def test_lustre_layout_is_lfs_getstripe_of_the_file_itself(stand_in_lfs, tmp_path):
    target = tmp_path / "f.dat"
    target.write_bytes(b"")
    described = filesystems.describe({"path": str(tmp_path), "type": "lustre"}, str(target))
    assert described["layout"]["stripe_count"] == 4 and described["layout"]["stripe_size"] == 1 << 20
    assert described["striping"].startswith("lmm_stripe_count:  4")
    assert stand_in_lfs.read_text() == f"getstripe {target}\n"


@pytest.mark.parametrize("created", [True, False], ids=["created-by-the-run", "there-before"])
def test_stripe_options_on_a_lustre_file_that_was_there_before_are_said_to_change_nothing(stand_in_lfs, tmp_path,
                                                                                          created):
    target = tmp_path / "f.dat"
    target.write_bytes(b"")
    parameters = {"file": str(target), "file_per_process": False, "block_size": 4 << 20, "write": True,
                  "stripe_count": 8, "stripe_size": None, "approaches": ["raw-bytes"]}
    ready = {"parameters": parameters, "created": [str(target)] if created else [],
             "environment": {"filesystem": {"path": str(tmp_path), "type": "lustre"}, "jvm": {"version": "17"}}}
    environment, warnings = run_environment(ready, {"node1": 2})
    assert environment["filesystem"]["layout"]["stripe_count"] == 4, "what lfs getstripe says the file has"
    assert warnings == ([] if created else [
        f"--stripe-count, --stripe-size and --object-size apply to a file the run creates: {target} existed, and "
        "keeps the layout it had (environment.filesystem.layout)"])


def test_without_a_file_yet_lustre_layout_is_the_directorys(stand_in_lfs, tmp_path):
    filesystems.describe({"path": str(tmp_path), "type": "lustre"}, str(tmp_path / "absent.dat"))
    assert stand_in_lfs.read_text() == f"getstripe -d {tmp_path}\n"


@pytest.mark.parametrize("block, warned", [(4 << 20, False), (3 << 20, False), (1536 << 10, True), (5 << 19, True)])
def test_blocks_that_straddle_stripes_are_warned_of(block, warned):
    said = filesystems.warnings({"path": "/lustre", "type": "lustre", "layout": {"stripe_size": 1 << 20}},
                                {"block_size": block}, 2)
    assert bool(said) == warned
    if warned:
        assert said[0].endswith("is not a multiple of the 1MiB stripes: neighbouring ranks write into the same "
                                "stripe and wait for each other's locks")


SHARDED = {"path": "/mnt/gv", "type": "fuse.glusterfs", "layout": {"shard": True, "shard_block_size": 4 << 20}}
SIZE_WARNING = ("GlusterFS shards: ranks writing one file at once can leave its size larger than what they wrote "
                "(GlusterFS issue 2680); reads and --verify cover only the ranks' blocks")


@pytest.mark.parametrize("shard, write, ranks, file_per_process, warned",
                         [(True, True, 2, False, True), (False, True, 2, False, False),
                          (True, False, 2, False, False), (True, True, 1, False, False),
                          (True, True, 2, True, False)],
                         ids=["shared-file-written-by-2", "unsharded", "read-only", "one-rank", "file-per-process"])
def test_a_sharded_file_written_by_several_ranks_is_warned_of_its_size(shard, write, ranks, file_per_process, warned):
    filesystem = dict(SHARDED, layout=dict(SHARDED["layout"], shard=shard))
    parameters = {"block_size": 4 << 20, "write": write, "file_per_process": file_per_process}
    assert filesystems.warnings(filesystem, parameters, ranks) == ([SIZE_WARNING] if warned else [])


def test_other_file_systems_have_no_layout(tmp_path):
    assert filesystems.describe({"path": str(tmp_path), "type": "ext4"}, str(tmp_path / "f"))["layout"] is None


def test_stripe_options_on_ext4_run_unstriped_when_told_and_say_so(jiobench, tmp_path):
    run = jiobench("-a", "raw-bytes", "-b", "1MiB", "-t", "256KiB", "--stripe-count", "4", "--stripe-size", "1MiB",
                   "--stripe-ignore", "-o", str(tmp_path / "f.dat"))
    assert run.code == 0, run
    assert run.file["parameters"]["stripe_count"] == 4 and run.file["parameters"]["stripe_size"] == 1 << 20
    warning = f"--stripe-count, --stripe-size and --object-size ignored: {tmp_path} is on ext4, not Lustre or CephFS"
    assert run.file["warnings"] == [warning] and f"warning: {warning}" in run.stdout
