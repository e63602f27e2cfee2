"""Where the crash reports (hs_err) and compiler replay data of a rank's JVMs go: a directory of
the rank's own in its node's temporary directory, of this user alone (mode 0700), under a name no
other user can guess or plant a link at (`-XX:ErrorFile` in a shared /tmp followed one). Made
before the rank starts MPI, removed at the end where no JVM crashed into it: by the rank, or by
its keeper (jiobench.run.keeper) where the rank died first. Light to import: the keeper does."""
from __future__ import annotations

import contextlib
import os
import tempfile

PREFIX = "jiobench-crash-reports-"


def new_directory() -> str:
    return tempfile.mkdtemp(prefix=PREFIX)


def remove_if_empty(directory: str) -> None:
    with contextlib.suppress(OSError):
        os.rmdir(directory)
