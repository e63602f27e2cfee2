"""A sweep's directory (`jiobench sweep`, docs/sweep.md): the run files of its points, and the
points that have no complete run file to show, named so that a gap in a figure is never silent.

The manifest says which points were expected and what Slurm last said of each; the run files
say what was measured. Only complete run files count: a point whose run was killed keeps the
phases it finished in a run file marked incomplete, which `jiobench sweep --resume` replaces.
"""
from __future__ import annotations

from pathlib import Path
from typing import Iterable, NamedTuple

from jiobench.model import sweepfile


class Shortfall(NamedTuple):
    point: str
    label: str  # the point's parameters in words
    kind: str  # missing, incomplete, unreadable or failed
    why: str  # what the manifest and the run file say


def sweep_directories(inputs: Iterable[str]) -> list[Path]:
    return [Path(name) for name in inputs if Path(name).is_dir() and sweepfile.is_sweep(Path(name))]


def _job(point: dict) -> str:
    words = [point["state"]]
    code = sweepfile.exit_text(point["state"], point.get("exit_code"))
    if code not in ("-", "0"):
        words.append(f"exit {code}")
    if point.get("job_id"):
        words.append(f"job {point['job_id']}")
    return ", ".join(words)


def examine(directory: Path) -> tuple[list[Path], list[Shortfall]]:
    """The complete run files of the sweep's points, and every point that falls short: no run
    file (missing), one cut short (incomplete), one that cannot be read, or one whose run failed
    after writing it (failed: its figures are shown, its verification or exit code says why)."""
    manifest = sweepfile.read(directory)
    complete, short = [], []
    for point in manifest["points"]:
        path = sweepfile.point_run_file(directory, point)
        state, detail = sweepfile.run_file_state(path)
        label = sweepfile.point_label(point)
        if state == sweepfile.COMPLETE:
            complete.append(path)
            if point["state"] in sweepfile.BAD:
                short.append(Shortfall(point["id"], label, "failed", _job(point)))
        elif state == sweepfile.MISSING:
            waiting = " (not run yet)" if point["state"] in sweepfile.ACTIVE | {"RENDERED"} else ""
            short.append(Shortfall(point["id"], label, "missing", f"no run file{waiting}; {_job(point)}"))
        else:
            short.append(Shortfall(point["id"], label, state, f"{detail}; {_job(point)}"))
    return complete, short


def shortfalls(inputs: Iterable[str]) -> list[Shortfall]:
    return [fall for directory in sweep_directories(inputs) for fall in examine(directory)[1]]


def presets(inputs: Iterable[str]) -> list[dict]:
    """The presets (jiobench sweep --preset) of the sweeps among the inputs, each once: the
    figure of the paper that each redraws."""
    found: list[dict] = []
    for directory in sweep_directories(inputs):
        preset = sweepfile.read(directory).get("preset")
        if preset and preset not in found:
            found.append(preset)
    return found


def shortfall_line(fall: Shortfall) -> str:
    return f"{fall.point} ({fall.label}): {fall.kind}: {fall.why}"
