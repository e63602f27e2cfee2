"""The runner's AppCDS archive: the classes a rank's JVM loads (the runner's, picocli's and the
JDK's), parsed and verified once at `make build` into runner/target/jiobench-runner.jsa, which
every JVM of a run then maps at its start. It takes a third or more off a JVM's start CPU
(bench/jvm_start.py) and changes nothing that is measured: the same classes, compiled alike.

A static archive (-Xshare:dump from a class list) rather than a dynamic one
(-XX:ArchiveClassesAtExit), which JDK 17 makes without picocli's classes, compiled for Java 5:
measured alike, a dynamic archive took 0.71 of a one-phase run's JVM start CPU, a static one 0.61.
A static archive also replaces the JDK's default one, so a JVM that cannot map it has no class
sharing at all: it is given only to the java that made it, for the jar it was made from, with
compressed pointers as it was made.

    python -m jiobench.run.appcds [--java JAVA]     (make build runs it)
"""
from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Optional, Sequence

from ..paths import JAR
from .limits import explicit_heap_bytes

# What the training run does: every approach once, verified, so the archive holds the classes of
# whichever approaches a run names. A run loads the few classes the training missed (the launcher's
# line protocol) from the jar, as without an archive.
TRAINING = ("-a", "all", "-b", "64KiB", "-t", "16KiB", "-i", "1", "--warmup", "0", "--verify")
# Options by which the user chooses class sharing for themselves.
SHARING_OPTIONS = re.compile(r"-Xshare:|-XX:(SharedArchiveFile|ArchiveClassesAtExit|SharedClassListFile)=")
# The archive holds compressed oops and class pointers, which HotSpot gives up for a heap of 32 GiB
# or more (measured: -Xmx32736m keeps them, -Xmx32752m does not) or when told to.
COMPRESSED_OOPS_HEAP_LIMIT = (32 << 30) - (32 << 20)
UNCOMPRESSED = re.compile(r"-XX:-UseCompressed(Oops|ClassPointers)$")
# A JVM that cannot map the archive says so in a warning on standard output, the rank's; the
# run file says whether it was mapped (environment.jvm.class_sharing).
QUIET = "-Xlog:cds*=off"


def archive_of(jar: Path) -> Path:
    return jar.with_suffix(".jsa")


def stamp_of(jar: Path) -> Path:
    """What the archive was made from: the java and the jar, as `identity` describes them."""
    return jar.with_suffix(".jsa.json")


def identity(java: str, jar: Path) -> Optional[dict[str, Any]]:
    """The java (its binary, and its libjvm's size and time, which an update in place changes)
    and the jar (its size and time, which HotSpot checks too, beside its path, which it matches
    through links), or None where either is not found."""
    found = shutil.which(java)
    if found is None:
        return None
    binary = Path(os.path.realpath(found))
    try:
        libjvm = (binary.parent.parent / "lib" / "server" / "libjvm.so").stat()
        jar_stat = jar.stat()
    except OSError:
        return None
    return {"java": str(binary), "libjvm_bytes": libjvm.st_size, "libjvm_mtime_ns": libjvm.st_mtime_ns,
            "jar_bytes": jar_stat.st_size, "jar_mtime_ns": jar_stat.st_mtime_ns}


def made_for(java: str, jar: Path) -> bool:
    """Whether the archive beside the jar was made by this java from this jar as it is now."""
    try:
        stamp = json.loads(stamp_of(jar).read_text())
    except (OSError, ValueError):
        return False
    return archive_of(jar).is_file() and stamp == identity(java, jar)


def jvm_options(java: str, jar: Path, jvm_args: Sequence[str]) -> list[str]:
    """The options that map the archive, or none where this JVM could not map it or the user
    chose class sharing themselves."""
    if any(SHARING_OPTIONS.match(arg) or UNCOMPRESSED.match(arg) for arg in jvm_args):
        return []
    heap = explicit_heap_bytes(jvm_args)
    if heap is not None and heap >= COMPRESSED_OOPS_HEAP_LIMIT:
        return []  # the JDK's default archive has a variant without compressed oops; this one does not
    if not made_for(java, jar):
        return []
    return [f"-XX:SharedArchiveFile={archive_of(jar)}", QUIET]


def make(java: str, jar: Path, archive: Path) -> None:
    """Makes the archive from a training run of the runner on its own (no launcher, no MPI) in a
    scratch directory; raises CalledProcessError with the JVM's output where java cannot."""
    with tempfile.TemporaryDirectory(prefix="jiobench-appcds-") as work:
        classes = Path(work, "classes.lst")
        partial = Path(work, archive.name)
        for command in ([java, f"-XX:DumpLoadedClassList={classes}", "-jar", str(jar), *TRAINING,
                         "-o", str(Path(work, "training.dat"))],
                        # -cp with the path a run gives -jar: HotSpot matches the archive's class path to it.
                        [java, "-Xshare:dump", f"-XX:SharedClassListFile={classes}",
                         f"-XX:SharedArchiveFile={partial}", "-cp", str(jar)]):
            subprocess.run(command, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           check=True)
        shutil.move(str(partial), archive)


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m jiobench.run.appcds", description=__doc__.split("\n\n")[0])
    parser.add_argument("--java", default=os.environ.get("JIOBENCH_JAVA", "java"),
                        help="the java the runs use, which alone can map the archive (default: java)")
    java = parser.parse_args(argv).java
    if made_for(java, JAR):
        return 0
    made = identity(java, JAR)
    if made is None:
        print(f"appcds: no archive: {java} or {JAR} not found, or not a HotSpot JDK", file=sys.stderr)
        return 0
    stamp_of(JAR).unlink(missing_ok=True)
    try:
        make(java, JAR, archive_of(JAR))
    except (OSError, subprocess.CalledProcessError) as failed:
        # The runs start without it, as they did before it.
        said = getattr(failed, "output", None) or str(failed)
        print(f"appcds: no archive: {said.strip().splitlines()[-1] if said.strip() else failed}", file=sys.stderr)
        return 0
    stamp_of(JAR).write_text(json.dumps(made) + "\n")
    print(f"appcds: {archive_of(JAR)} ({archive_of(JAR).stat().st_size >> 20} MiB) for {made['java']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
