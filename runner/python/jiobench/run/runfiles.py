"""The files a run created, from the moment its JVM says so (with what each is: its device and
inode) to their end: held by a descriptor of this process all the while, so that their inodes
cannot be freed and given to another file that would then pass for them; each emptied between
forks through that descriptor, and removed at the end only where its name still holds it. What
took a file's name meanwhile (another user's link to a file of root's, in a directory anyone can
write) is never written, truncated or removed, and is named."""
from __future__ import annotations

import os
import stat
from typing import Mapping, Optional

from . import wire


class Replaced(Exception):
    """A file the run created no longer holds its name; the message says what does."""

    def __init__(self, path: str):
        super().__init__(f"{path} is now {what_is_at(path)}, not the file the run created")


def what_is_at(path: str) -> str:
    """What is at `path`, as a message says it."""
    try:
        status = os.lstat(path)
    except FileNotFoundError:
        return "gone"
    except OSError as problem:
        return f"unreadable ({problem.strerror})"
    if stat.S_ISLNK(status.st_mode):
        try:
            return f"a symbolic link to {os.readlink(path)}"
        except OSError:
            return "a symbolic link"
    if stat.S_ISDIR(status.st_mode):
        return "a directory"
    if not stat.S_ISREG(status.st_mode):
        return "a device, FIFO or socket"
    return "another file"


def is_file(status: os.stat_result, identity: str) -> bool:
    return stat.S_ISREG(status.st_mode) and wire.identity(status) == identity


class CreatedFiles:
    """The files the run created here, each held (O_PATH: opened for neither reading nor writing)
    from the moment it is noted."""

    def __init__(self) -> None:
        self.identities: dict[str, str] = {}  # path: identity, as the JVM that created it said
        self.held: dict[str, int] = {}  # path: descriptor

    def note(self, files: Mapping[str, str]) -> None:
        for path, identity in files.items():
            if path in self.identities:
                continue
            self.identities[path] = identity
            try:
                descriptor = os.open(path, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC)
            except OSError:
                continue  # gone already, or not to be looked at: removed, if at all, by identity alone
            if is_file(os.fstat(descriptor), identity):
                self.held[path] = descriptor
            else:
                os.close(descriptor)

    def empty(self, path: str) -> None:
        """Truncates the file the run created under `path`, through the descriptor that holds it:
        Replaced where its name no longer holds it."""
        try:
            if not is_file(os.lstat(path), self.identities[path]) or path not in self.held:
                raise Replaced(path)
        except FileNotFoundError:
            raise Replaced(path) from None
        descriptor = os.open(f"/proc/self/fd/{self.held[path]}", os.O_WRONLY | os.O_CLOEXEC)
        try:
            os.ftruncate(descriptor, 0)
        finally:
            os.close(descriptor)

    def remove(self) -> list[str]:
        """Removes the files that still hold their names, and lets them go; what could not be
        removed, each said in a line."""
        left = [problem for problem in map(self.remove_one, self.identities) if problem is not None]
        for descriptor in self.held.values():
            os.close(descriptor)
        self.held.clear()
        return left

    def remove_one(self, path: str) -> Optional[str]:
        try:
            if not is_file(os.lstat(path), self.identities[path]):
                return f"{Replaced(path)}: left as it is"
            os.unlink(path)
        except FileNotFoundError:
            pass
        except OSError as problem:
            # A file system that failed under the run (a lost server, a dead mount) must not cost the
            # phases measured: the file stays, and the user is told where.
            return f"cannot remove {path}: {problem.strerror}"
        return None
