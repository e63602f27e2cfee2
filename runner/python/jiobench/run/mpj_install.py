"""MPJ Express's installation as the MPJ launch paths use it (jiobench.run.mpj).

Debian's libmpj-java does not start as packaged: its jars name log4j and commons-* next to
themselves in their manifests, where Debian has none. MPJ runs here from a private MPJ_HOME
(runner/target/mpj-home) that holds copies of MPJ's jars and of those four; each run uses it
through an MPJ_HOME of its own, whose configuration gives the run's starter and daemon free ports.
"""
from __future__ import annotations

import os
import shutil
import tempfile
import zipfile
from pathlib import Path
from typing import Optional


# MPJ_HOME names another installation, such as MPJ Express's own release; Debian's by default.
INSTALLED_HOME = Path(os.environ.get("MPJ_HOME", "/usr/share/mpj"))
# What MPJ's jars name in their manifests, and where Debian keeps them.
MANIFEST_JARS = ["log4j-1.2.jar", "commons-codec.jar", "commons-cli.jar", "commons-io.jar"]
DEBIAN_JAVA = Path("/usr/share/java")
INSTALL_HINT = ("it is optional (--launcher mpirun or srun need none of it); on Debian 'apt-get install libmpj-java' "
                "(scripts/debian-packages.sh run), then 'make build'")
MPJ_WORLD_CLASS = "org/jiobench/runner/MpjWorld.class"


def missing(jar: Path) -> Optional[str]:
    """Why MPJ Express cannot run here, or None."""
    if not (INSTALLED_HOME / "lib" / "mpj.jar").is_file():
        return f"MPJ Express is not installed ({INSTALLED_HOME / 'lib' / 'mpj.jar'} is missing): {INSTALL_HINT}"
    for name in MANIFEST_JARS:
        if not (INSTALLED_HOME / "lib" / name).is_file() and not (DEBIAN_JAVA / name).is_file():
            return f"MPJ Express needs {name}, found neither in {INSTALLED_HOME / 'lib'} nor in {DEBIAN_JAVA}"
    with zipfile.ZipFile(jar) as runner:
        if MPJ_WORLD_CLASS not in runner.namelist():
            return f"the runner was built without MPJ Express: run 'make build' in {jar.parents[2]}"
    return None


def private_home(target: Path) -> Path:
    """An MPJ_HOME whose lib/ holds real copies of MPJ's jars and of the jars their manifests
    name; made again when the installed MPJ changes."""
    source_jar = INSTALLED_HOME / "lib" / "mpj.jar"
    stamp = f"{source_jar.resolve()} {source_jar.stat().st_size} {source_jar.stat().st_mtime_ns}\n"
    stamp_file = target / "installed-from"
    if stamp_file.is_file() and stamp_file.read_text() == stamp:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    building = Path(tempfile.mkdtemp(prefix=".mpj-home-", dir=target.parent))
    (building / "lib").mkdir()
    for jar in (INSTALLED_HOME / "lib").glob("*.jar"):
        shutil.copy(jar, building / "lib" / jar.name)
    for name in MANIFEST_JARS:
        if not (building / "lib" / name).exists():
            shutil.copy(DEBIAN_JAVA / name, building / "lib" / name)
    shutil.copytree(INSTALLED_HOME / "conf", building / "conf")
    (building / "installed-from").write_text(stamp)
    if target.exists():
        shutil.rmtree(target, ignore_errors=True)
    try:
        building.rename(target)
    except OSError:  # another run made it at the same moment
        shutil.rmtree(building, ignore_errors=True)
    return target


def configuration(home: Path) -> dict[str, str]:
    """mpjexpress.conf as key → value."""
    values = {}
    for line in (home / "conf" / "mpjexpress.conf").read_text().splitlines():
        if "=" in line and not line.lstrip().startswith("#"):
            key, value = line.split("=", 1)
            values[key.strip()] = value.strip()
    return values


def run_home(shared: Path, target: Path, ports: dict[str, int]) -> Path:
    """An MPJ_HOME for one run: the shared one's jars, and its configuration with this run's ports.
    A port of its own keeps MPJ's starter (and a daemon of this run's own) clear of other runs and
    of the closing connections that a run before it left on the usual ports."""
    (target / "conf").mkdir(parents=True)
    (target / "lib").symlink_to(shared / "lib")
    lines = []
    for line in (shared / "conf" / "mpjexpress.conf").read_text().splitlines():
        key = line.split("=", 1)[0].strip()
        lines.append(f"{key}={ports[key]}" if key in ports and not line.lstrip().startswith("#") else line)
    (target / "conf" / "mpjexpress.conf").write_text("\n".join(lines) + "\n")
    return target
