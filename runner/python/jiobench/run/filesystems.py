"""What the file system under the test file is, and how it lays a file out: Lustre's striping
(`lfs getstripe`), CephFS's layout of the file over its OSDs (the file's `ceph.file.layout`
attribute, the cluster's OSDs and pools as `ceph` tells them), GlusterFS's bricks and shards
(`gluster volume info`); and what of a run's settings that layout or that kind of file system
changes the meaning of."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import xml.etree.ElementTree as ElementTree
from typing import Any, Optional

from ..model.text import size_text

# Where a cache control reaches this node's cache only: the servers of these answer reads too.
NETWORK_TYPES = re.compile(r"^(fuse\.|nfs|lustre|gpfs|beegfs|cifs|smb|ceph|9p)")
GLUSTER_UNITS = {"KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40}
GLUSTER_DEFAULT_SHARD = 64 << 20
# The mount table's names of CephFS: the kernel client's and ceph-fuse's.
CEPH_TYPES = ("ceph", "fuse.ceph-fuse", "fuse.ceph")
# The file systems whose files the stripe options lay out (the runner's Striping).
STRIPED_TYPES = ("lustre", *CEPH_TYPES)


def mount_of(path: str) -> Optional[tuple[str, str, str]]:
    """(device, mount point, type) of the mount that holds `path`, from /proc/mounts."""
    best = None
    try:
        with open("/proc/mounts") as mounts:
            for line in mounts:
                device, point, kind = (field.replace("\\040", " ") for field in line.split()[:3])
                inside = path == point or path.startswith(point.rstrip("/") + "/")
                if inside and (best is None or len(point) > len(best[1])):
                    best = (device, point, kind)
    except OSError:
        return None
    return best


def _run(command: list[str]) -> Optional[str]:
    if shutil.which(command[0]) is None:
        return None
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return done.stdout if done.returncode == 0 else None


def gluster_size(text: str) -> Optional[int]:
    match = re.fullmatch(r"(\d+)\s*([KMGT]B)?", text.strip(), re.IGNORECASE)
    return int(match.group(1)) * GLUSTER_UNITS.get((match.group(2) or "").upper(), 1) if match else None


def gluster_layout(device: str) -> Optional[dict[str, Any]]:
    """Volume, bricks and sharding of the GlusterFS volume mounted from `device` (SERVER:VOLUME),
    as its glusterd tells any client."""
    server, _, volume = device.partition(":")
    text = _run(["gluster", f"--remote-host={server}", "volume", "info", volume.lstrip("/"), "--xml"])
    if text is None:
        return None
    try:
        found = ElementTree.fromstring(text).find("./volInfo/volumes/volume")
    except ElementTree.ParseError:
        return None
    if found is None:
        return None
    options = {option.findtext("name"): option.findtext("value", "") for option in found.iter("option")}
    sharded = options.get("features.shard", "off") in ("on", "enable", "true", "1")
    return {
        "volume": found.findtext("name"),
        "server": server,
        "type": found.findtext("typeStr"),
        "bricks": int(found.findtext("brickCount") or 0),
        "shard": sharded,
        "shard_block_size": gluster_size(options.get("features.shard-block-size", "64MB")) if sharded else None,
    }


def lustre_layout(target: str) -> Optional[dict[str, Any]]:
    """What `lfs getstripe` says of the test file (of its directory, while there is no file):
    its stripe count and size, and the whole text."""
    text = _run(["lfs", "getstripe", target] if os.path.exists(target) else
                ["lfs", "getstripe", "-d", os.path.dirname(target)])
    if not text or not text.strip():
        return None
    fields = dict(re.findall(r"(?:lmm_)?(stripe_count|stripe_size):\s*(-?\d+)", text))
    return {"stripe_count": int(fields["stripe_count"]) if "stripe_count" in fields else None,
            "stripe_size": int(fields["stripe_size"]) if "stripe_size" in fields else None,
            "getstripe": text.strip()}


def _ceph_json(*command: str) -> Any:
    """What the ceph CLI answers, as JSON (an object or a list, as the command has it); None where
    it cannot reach the cluster's monitors (CEPH_CONF, else /etc/ceph/ceph.conf, names them)."""
    text = _run(["ceph", "--connect-timeout", "10", *command, "--format", "json"]) or ""
    start = re.search(r"[{\[]", text)  # past any warning the CLI printed first
    try:
        return json.loads(text[start.start():]) if start else None
    except ValueError:
        return None


def ceph_layout(target: str) -> Optional[dict[str, Any]]:
    """The test file's layout as CephFS reads it back (its directory's while there is no file):
    stripe unit, stripe count, object size and pool; and the OSDs and pools of the cluster, where
    the ceph CLI can ask its monitors."""
    exists = os.path.exists(target)
    try:
        text = os.getxattr(target if exists else os.path.dirname(target),
                           "ceph.file.layout" if exists else "ceph.dir.layout").decode()
    except OSError:  # a directory without a layout of its own has none to read
        return None
    fields = dict(re.findall(r"(\w+)=(\S+)", text))
    numbers = {key: int(fields[key]) for key in ("stripe_unit", "stripe_count", "object_size") if key in fields}
    osds = _ceph_json("osd", "stat") or {}
    filesystems = _ceph_json("fs", "ls") or []
    data_pool = fields.get("pool")
    serving = next((fs for fs in filesystems if data_pool in fs.get("data_pools", [])), None)
    return {**numbers,
            # Lustre's word for the stripe unit, so that what is said of a block across stripes holds for both.
            "stripe_size": numbers.get("stripe_unit"),
            "pool": data_pool,
            "osds": osds.get("num_in_osds"),
            "osds_up": osds.get("num_up_osds"),
            "filesystem": serving.get("name") if serving else None,
            "metadata_pool": serving.get("metadata_pool") if serving else None,
            "getfattr": text.strip()}


def describe(filesystem: dict[str, Any], target: str) -> dict[str, Any]:
    """The run file's `environment.filesystem`, with the layout of the test file `target` added
    where the file system tells it."""
    described = dict(filesystem)
    kind = filesystem.get("type") or ""
    described["layout"] = None
    if kind == "lustre":
        described["layout"] = lustre_layout(target)
    elif kind in CEPH_TYPES:
        described["layout"] = ceph_layout(target)
    elif kind == "fuse.glusterfs":
        mount = mount_of(filesystem["path"])
        described["layout"] = gluster_layout(mount[0]) if mount else None
    layout = described["layout"] or {}
    described["striping"] = layout.get("getstripe") or layout.get("getfattr")
    return described


def warnings(filesystem: dict[str, Any], parameters: dict[str, Any], ranks: int) -> list[str]:
    """What the file system changes in what the run's numbers mean, or in the file it leaves."""
    said = []
    layout = filesystem.get("layout") or {}
    for key, piece in (("shard_block_size", "shards"), ("stripe_size", "stripes")):
        size = layout.get(key)
        if size and size > 0 and parameters["block_size"] % size:
            said.append(f"block size {size_text(parameters['block_size'])} is not a multiple of the {size_text(size)} "
                        f"{piece}: neighbouring ranks write into the same {piece[:-1]} and wait for each other's locks")
    if layout.get("shard") and parameters["write"] and ranks > 1 and not parameters["file_per_process"]:
        # Each write adds to the size the volume keeps as the writer last saw it, so concurrent
        # writers count an extension twice (5 of 40 2-rank runs here came out 128-384 KiB long);
        # the shards themselves hold exactly what was written.
        said.append("GlusterFS shards: ranks writing one file at once can leave its size larger than what they "
                    "wrote (GlusterFS issue 2680); reads and --verify cover only the ranks' blocks")
    if parameters.get("stripe_ignore") and striping_asked(parameters) and filesystem.get("type") not in STRIPED_TYPES:
        said.append(f"--stripe-count, --stripe-size and --object-size ignored: {filesystem['path']} is on "
                    f"{filesystem.get('type')}, not Lustre or CephFS")
    if parameters.get("drop_cache") and NETWORK_TYPES.match(filesystem.get("type") or ""):
        said.append(f"--drop-cache empties this node's cache of the {filesystem['type']} file; its servers may "
                    "still answer reads from their own memory")
    return said


def striping_asked(parameters: dict[str, Any]) -> bool:
    return any(parameters.get(key) for key in ("stripe_count", "stripe_size", "object_size"))
