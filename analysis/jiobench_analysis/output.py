"""The report's output directory, and the one way a file gets into it.

The report often runs as root, in a directory others may write to: a symbolic link (or a hard
link) planted under one of its file names must not make it write into another file. So every file
is written into a temporary file created exclusively beside it, under a name nobody can guess, and
then renamed onto its name: a rename replaces a link planted there, it never writes into its
target. The directory itself may be a link the user gave: that is followed, as any path is.
"""
from __future__ import annotations

import contextlib
import os
import secrets
from pathlib import Path
from typing import Iterator, Union

from .runs import ReportError


class Output:
    """A directory the report writes into, and what this report created in it."""

    def __init__(self, directory: Path):
        self.directory = directory
        self.created: list[Path] = []  # the directories made for it, outermost first
        self.written: list[Path] = []

    def write(self, name: str, content: Union[str, bytes]) -> Path:
        """Writes `content` (text as UTF-8) whole as the file `name`, replacing whatever is there
        without writing into it; returns its path."""
        path = self.directory / name
        temporary = self.directory / f".{name}.{secrets.token_hex(8)}.tmp"
        data = content.encode("utf-8") if isinstance(content, str) else content
        try:
            descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                                 0o666)
        except OSError as err:
            raise ReportError(f"{path}: cannot write: {err.strerror}") from None
        try:
            with open(descriptor, "wb") as out:
                out.write(data)
            os.replace(temporary, path)
        except OSError as err:
            raise ReportError(f"{path}: cannot write: {err.strerror}") from None
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
        self.written.append(path)
        return path

    def undo(self) -> None:
        """Removes what this report wrote and the directories it made (where nothing else is in
        them), as a report that failed leaves nothing behind."""
        for path in self.written:
            with contextlib.suppress(OSError):
                os.unlink(path)
        for directory in reversed(self.created):
            with contextlib.suppress(OSError):
                directory.rmdir()


@contextlib.contextmanager
def output_directory(directory: Path) -> Iterator[Output]:
    """The directory (made with its parents where missing) to write into; when the report fails
    inside, what it wrote and made is removed."""
    output = Output(directory)
    try:
        for path in reversed([path for path in (directory, *directory.parents) if not path.exists()]):
            try:
                path.mkdir()
            except FileExistsError:
                if path.is_dir():  # made by someone else meanwhile: theirs
                    continue
                raise
            output.created.append(path)
    except OSError as err:
        output.undo()
        if isinstance(err, (FileExistsError, NotADirectoryError)):
            raise ReportError(f"{directory}: exists and is not a directory") from None
        raise ReportError(f"{directory}: cannot create the output directory: {err.strerror}") from None
    if not directory.is_dir():
        raise ReportError(f"{directory}: exists and is not a directory")
    try:
        yield output
    except BaseException:
        output.undo()
        raise
