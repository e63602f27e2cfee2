"""A user's mistake is one line and exit code 2, in every verb of jiobench."""
from __future__ import annotations

import argparse
import sys
from typing import NoReturn

from .exitcode import ExitCode


class UsageError(Exception):
    """A mistake in the command, or in what it names: said in one line, exit code 2."""


def error(message: str, code: int = ExitCode.MISTAKE) -> int:
    """Says one line on standard error; returns the exit code to end with."""
    print(f"jiobench: error: {message}", file=sys.stderr)
    return code


class OneLineParser(argparse.ArgumentParser):
    """argparse, whose mistakes are one line and exit code 2 rather than its usage block."""

    def error(self, message: str) -> NoReturn:
        print(f"jiobench: error: {message} (see 'jiobench {self.prog.split()[-1]} --help')", file=sys.stderr)
        sys.exit(ExitCode.MISTAKE)
