"""What the file system under the test file is, and how it lays a file out: Lustre's striping
(`lfs getstripe`), GlusterFS's bricks and shards (`gluster volume info`); and what of a run's
settings that layout or that kind of file system changes the meaning of."""
from __future__ import annotations

import re
import shutil
import subprocess
import xml.etree.ElementTree as ElementTree
from typing import Optional

from .table import size_text

# Where a cache control reaches this node's cache only: the servers of these answer reads too.
NETWORK_TYPES = re.compile(r"^(fuse\.|nfs|lustre|gpfs|beegfs|cifs|smb|ceph|9p)")
GLUSTER_UNITS = {"KB": 1 << 10, "MB": 1 << 20, "GB": 1 << 30, "TB": 1 << 40}
GLUSTER_DEFAULT_SHARD = 64 << 20


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


def gluster_layout(device: str) -> Optional[dict]:
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
    options = {option.findtext("name"): option.findtext("value") for option in found.iter("option")}
    sharded = options.get("features.shard", "off") in ("on", "enable", "true", "1")
    return {
        "volume": found.findtext("name"),
        "server": server,
        "type": found.findtext("typeStr"),
        "bricks": int(found.findtext("brickCount") or 0),
        "shard": sharded,
        "shard_block_size": gluster_size(options.get("features.shard-block-size", "64MB")) if sharded else None,
    }


def lustre_striping(directory: str) -> Optional[str]:
    """What `lfs getstripe` says of the directory, where Lustre's tools are installed."""
    text = _run(["lfs", "getstripe", "-d", directory])
    return text.strip() or None if text is not None else None


def describe(filesystem: dict) -> dict:
    """The run file's `environment.filesystem`, with the target's layout added where the file
    system tells it."""
    described = dict(filesystem)
    kind = filesystem.get("type") or ""
    described["striping"] = lustre_striping(filesystem["path"]) if kind == "lustre" else None
    described["layout"] = None
    if kind == "fuse.glusterfs":
        mount = mount_of(filesystem["path"])
        described["layout"] = gluster_layout(mount[0]) if mount else None
    return described


def warnings(filesystem: dict, parameters: dict) -> list[str]:
    """What the file system changes in what the run's numbers mean."""
    said = []
    layout = filesystem.get("layout") or {}
    shard = layout.get("shard_block_size")
    if shard and parameters["block_size"] % shard:
        said.append(f"block size {size_text(parameters['block_size'])} is not a multiple of the volume's "
                    f"{size_text(shard)} shards: neighbouring ranks write into the same shard and wait for each "
                    "other's locks")
    if parameters.get("drop_cache") and NETWORK_TYPES.match(filesystem.get("type") or ""):
        said.append(f"--drop-cache empties this node's cache of the {filesystem['type']} file; its servers may "
                    "still answer reads from their own memory")
    return said
