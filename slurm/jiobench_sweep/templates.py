"""The job scripts of a sweep, rendered from template files: slurm/jiobench.sbatch (a point's job,
and the job a user copies and edits by hand) and slurm/templates/*.sbatch (the allocation's job
and the report's). Each template is a job as it stands, with example values; rendering replaces
its first comment, sets its #SBATCH lines by name and puts the job's commands in place of its
last paragraph. Every value a user gives reaches a script through `quoted`."""
from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Optional, Sequence

from jiobench.errors import UsageError
from jiobench.paths import HOME

POINT = HOME / "slurm" / "jiobench.sbatch"
ALLOCATION = HOME / "slurm" / "templates" / "allocation.sbatch"
REPORT = HOME / "slurm" / "templates" / "report.sbatch"

SBATCH_LINE = re.compile(r"^#{1,2}SBATCH --([a-z-]+)(?:=(.*))?$")
# C0 controls and DEL: a newline or carriage return would end the value's line of the script, and
# the others are no part of any name, path or option a job is given.
CONTROL = re.compile(r"[\x00-\x1f\x7f]")
# sbatch reads an #SBATCH line's value up to white space or an unquoted '#', and takes quotes and
# backslashes as quoting, which no shell undoes there: a value with one of these cannot be written.
SBATCH_SPECIAL = re.compile(r"[\s'\"\\#]")


def quoted(option: str, value: str, sbatch_line: bool = False) -> str:
    """`value` as it is to stand in a job script: one shell word, or with `sbatch_line` the value
    of an #SBATCH line as sbatch reads it. A value that cannot stand there as itself is the
    user's mistake in one line, naming the `option` that gave it."""
    if CONTROL.search(value):
        raise UsageError(f"{option} {value!r}: holds a control character, which a job script cannot carry")
    if any("\udc80" <= character <= "\udcff" for character in value):
        shown = value.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
        raise UsageError(f"{option} '{shown}': holds bytes that are not UTF-8, which a job script cannot carry")
    if not sbatch_line:
        return shlex.quote(value)
    if SBATCH_SPECIAL.search(value):
        raise UsageError(f"{option} {value!r}: an #SBATCH line cannot hold white space, quotes, backslashes "
                         "or '#' in a value")
    return value


def sbatch_line(name: str, value, placeholder: Optional[str]) -> str:
    """One #SBATCH line: set (True for a flag), or left commented with the template's example."""
    if value is None or value is False:
        return f"##SBATCH --{name}" + (f"={placeholder}" if placeholder else "")
    return f"#SBATCH --{name}" + ("" if value is True else f"={quoted(f'--{name}', str(value), sbatch_line=True)}")


def render(template: Path, header: Sequence[str], options: dict, commands: Optional[Sequence[str]] = None) -> str:
    """The template with `header` as its first comment, its #SBATCH lines set from `options`
    (name -> value; an option left out stays commented, as an example), and `commands` in place
    of its last paragraph (kept where None)."""
    lines = template.read_text(encoding="utf-8").splitlines()
    first_option = next(index for index, line in enumerate(lines) if SBATCH_LINE.match(line))
    rendered = [lines[0], *(f"# {line}".rstrip() for line in header)]
    known = set()
    for line in lines[first_option:]:
        match = SBATCH_LINE.match(line)
        if match:
            name, placeholder = match.groups()
            known.add(name)
            line = sbatch_line(name, options.get(name), placeholder)
        rendered.append(line)
    unknown = set(options) - known
    assert not unknown, f"{template} has no #SBATCH line for {sorted(unknown)}"
    if commands is not None:
        last_paragraph = len(rendered) - rendered[::-1].index("")
        rendered[last_paragraph:] = commands
    return "\n".join(rendered) + "\n"


def source(template: Path) -> str:
    """The template's name as the rendered job's header gives it."""
    return str(template.relative_to(HOME))
