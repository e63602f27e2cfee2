"""How a run ended early, as the run file's `incomplete` holds it (docs/run-file.md), and the one
line that says it."""
from __future__ import annotations

from typing import Any, Optional


def failure(message: str, rank: Optional[int] = None, phase: Optional[str] = None,
            when: str = "during") -> dict[str, Any]:
    """What ended a run early when a rank failed, as the run file's `incomplete` holds it."""
    return {"reason": "failed", "signal": None, "rank": rank, "phase": phase, "when": when if phase else None,
            "message": message}


def stop(signal: Optional[str], message: str, rank: Optional[int] = None,
         phase: Optional[str] = None) -> dict[str, Any]:
    """What ended a run early when it was stopped (a signal, its MPI launcher gone)."""
    return {"reason": "stopped", "signal": signal, "rank": rank, "phase": phase, "when": "during" if phase else None,
            "message": message}


def ending_line(incomplete: dict[str, Any], completed: int) -> str:
    """The one line that says why a run ended early and what it kept."""
    if incomplete["reason"] == "failed" and incomplete["rank"] is not None:
        what = f"rank {incomplete['rank']} failed {incomplete['when']} {incomplete['phase']}: {incomplete['message']}"
    else:
        what = incomplete["message"]
    return f"jiobench: {what}; the run file keeps the {completed} phase{'' if completed == 1 else 's'} completed before"
