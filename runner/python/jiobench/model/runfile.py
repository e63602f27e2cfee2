"""The run file (docs/run-file.md): its schema and what each key holds, built by rank 0 from the
phases it reduced as they ended, written once and never over another, checked when read."""
from __future__ import annotations

import datetime
import errno
import json
import math
import os
import secrets
import shutil
from typing import Any, BinaryIO, Callable, Mapping, Optional, Union, cast

from . import perrank, reduce, repetitions, stats

SCHEMA = "jiobench-run/4"
# Version 1 (before forks and warm-up) still loads: its phases are fork 0, none of them warm-up.
# Versions 1 and 2 (before the median's interval and ratios) get those from their phases.
# Versions 1 to 3 hold every rank's records (`per_rank`) in the JSON; from version 4 the per-rank
# file beside it holds them (jiobench.model.perrank reads either).
READABLE_SCHEMAS = ("jiobench-run/1", "jiobench-run/2", "jiobench-run/3", SCHEMA)
SCHEMA_FAMILY = "jiobench-run/"
MIB = 1 << 20


def version_of(schema: str) -> int:
    """The version of one of READABLE_SCHEMAS: what a run file of it holds."""
    return int(schema.removeprefix(SCHEMA_FAMILY))


def now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")


def new_run_id() -> str:
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y%m%d-%H%M%S")
    return f"{stamp}-{secrets.token_hex(3)}"


def calibrate_jitter(parameters: dict[str, Any], ranks: int,
                     summary: list[dict[str, Any]]) -> Optional[dict[str, Any]]:
    """How far the run's own calibrate phases, which wait a programmed time, strayed from their
    programmed rate: the machine's noise, beside which an approach's own can be read."""
    rows = [row for row in summary if row["approach"] == "calibrate"]
    if not rows:
        return None
    programmed = parameters["calibrate_rate"] * ranks / MIB
    widest = max(stats.half_width_share(row["bw_mib_s"]["median"], row["median_ci95"]) for row in rows)
    return {"programmed_mib_s": programmed,
            "median_mib_s": {row["op"]: row["bw_mib_s"]["median"] for row in rows},
            # Half the median's interval over the median, at its widest: null with too few repetitions.
            "widest_share": widest if math.isfinite(widest) else None,
            # How far below the programmed rate its slowest phase fell.
            "slowest_share": max(1 - row["bw_mib_s"]["min"] / programmed for row in rows)}


def auto_block(parameters: dict[str, Any], stopped: dict[str, Any]) -> Optional[dict[str, Any]]:
    """-i auto's settings and why each approach stopped adding repetitions (docs/run-file.md)."""
    if repetitions.Rule.of(parameters) is None:
        return None
    return {"ci_target": parameters["ci_target"], "time_budget_s": parameters["time_budget_s"],
            "max_reps": parameters["max_reps"], "min_reps": stats.MIN_REPS, "stopped": stopped}


def build(context: dict[str, Any], phases: list[dict[str, Any]], incomplete: Optional[dict[str, Any]] = None,
          stopped: Optional[dict[str, Any]] = None, per_rank_rows: Optional[int] = None,
          no_per_rank: Optional[str] = None) -> dict[str, Any]:
    """The run file's content from the phases as `reduce.reduce_phase` made them when they ended;
    `incomplete` says what ended a run before all its phases ran, `stopped` why each approach of a
    run with -i auto ran no more repetitions. `per_rank_rows` counts the rows of the per-rank file
    written beside it; None where there is none, and `no_per_rank` then says why, as a warning,
    where records were lost. Nothing in it grows with the rank count, only with the hosts."""
    jvm_side = context["environment"]
    parameters = context["parameters"]
    rule = repetitions.Rule.of(parameters)
    summary = reduce.summarize(phases, rule.noise_share() if rule else stats.NOISY_SHARE)
    run_id = context.get("run_id") or new_run_id()
    return {
        "schema": SCHEMA,
        "run_id": run_id,
        "started": context["started"],
        "finished": now(),
        "incomplete": incomplete,
        "warnings": [*context.get("warnings", []), *([no_per_rank] if no_per_rank else [])],
        "parameters": context["parameters"],
        "environment": {
            "command_line": context["command_line"],
            "launcher": context["launcher"],
            "ranks": context["ranks"],
            "hosts": sorted(context["ranks_per_host"]),
            "ranks_per_host": context["ranks_per_host"],
            "jvm": jvm_side["jvm"],
            "mpi": context["mpi"],
            "os": jvm_side["os"],
            "cpu": jvm_side.get("cpu"),
            "filesystem": jvm_side["filesystem"],
            "slurm": context.get("slurm"),
        },
        "noise": {"load_average": context.get("load_average"), "calibrate": calibrate_jitter(parameters, context["ranks"], summary)},
        "auto": auto_block(parameters, stopped or {}),
        "phases": list(phases),
        "summary": summary,
        # The process that wrote this file (rank 0's launcher, or a survivor's): its rank and its
        # peak resident memory, which must not grow with the rank count.
        "writer": context.get("writer"),
        "per_rank_file": None if per_rank_rows is None else run_id + perrank.SUFFIX,
        "per_rank_rows": per_rank_rows,
    }


# What a run writes in its results directory, each name its run id and one of these; while a
# file is written, a temporary name beside it (the final name, then TEMPORARY_SUFFIX's shape).
RUN_FILE_SUFFIXES = (perrank.SUFFIX, ".json")
TEMPORARY_SUFFIX = ".{}.tmp"
TEMPORARY_TOKEN_BYTES = 4
# The longest run id whose files a POSIX file system can name (NAME_MAX, 255 bytes).
LONGEST_RUN_ID = 255 - max(map(len, RUN_FILE_SUFFIXES)) - len(TEMPORARY_SUFFIX.format("x" * 2 * TEMPORARY_TOKEN_BYTES))


def exists(run_id: str, results_dir: str) -> bool:
    """Whether any file of a run of that name is in the results directory already: a run's
    per-rank file alone (left by a run killed as it wrote) takes the name as surely as its JSON."""
    return any(os.path.lexists(os.path.join(results_dir, run_id + suffix)) for suffix in RUN_FILE_SUFFIXES)


def temporary_name(path: str) -> str:
    """A name beside `path` for the file while it is written, that no other writer takes."""
    return path + TEMPORARY_SUFFIX.format(secrets.token_hex(TEMPORARY_TOKEN_BYTES))


def per_rank_temporary(run_id: str, results_dir: str) -> str:
    """Where rank 0 writes the run's per-rank file while the run goes (the results directory made
    where missing): under a temporary name, so that a file cut short never holds the final one."""
    os.makedirs(results_dir, exist_ok=True)
    return temporary_name(os.path.join(results_dir, run_id + perrank.SUFFIX))


# No hard links here: across file systems, or on one without them.
_NO_LINK = (errno.EXDEV, errno.EPERM, errno.EOPNOTSUPP, errno.ENOTSUP)


def _write_new(path: str, fill: Callable[[BinaryIO], object]) -> None:
    """Writes a file that must not exist yet, whole or not at all: a temporary file beside it,
    filled through a binary file object, then a link to the final name, which fails rather than
    replace another run's file."""
    temporary = temporary_name(path)
    try:
        with open(temporary, "xb") as out:
            fill(out)
        try:
            os.link(temporary, path)
        except OSError as no_link:
            # File systems without hard links: rename, which is atomic too, after a last look.
            if no_link.errno not in _NO_LINK or os.path.exists(path):
                raise
            os.rename(temporary, path)
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)


def _publish(whole: str, path: str) -> None:
    """Gives a whole file a final name that must not exist yet, leaving `whole` where it is: a
    hard link where one can be made, else a copy written as _write_new writes."""
    try:
        os.link(whole, path)
    except OSError as no_link:
        if no_link.errno not in _NO_LINK:
            raise
        with open(whole, "rb") as source:
            _write_new(path, lambda out: shutil.copyfileobj(source, out))


def write(run: dict[str, Any], results_dir: str, per_rank: Optional[str] = None) -> str:
    """Writes <run-id>.ranks.parquet, from the whole per-rank file at `per_rank` where the run
    names one, and then <run-id>.json, each atomically and never over an existing file; returns
    the JSON's path. Where the JSON cannot be written, the per-rank file written just before it
    goes too: a half of a run would take its name."""
    os.makedirs(results_dir, exist_ok=True)
    stem = os.path.join(results_dir, run["run_id"])
    if run["per_rank_file"] is not None:
        assert per_rank is not None  # a run that names a per-rank file was given the one written
        _publish(per_rank, stem + perrank.SUFFIX)
    try:
        _write_new(stem + ".json", lambda out: out.write(json.dumps(run, indent=1).encode("utf-8") + b"\n"))
    except BaseException:
        if run["per_rank_file"] is not None:
            os.unlink(stem + perrank.SUFFIX)
        raise
    return stem + ".json"


class Malformed(ValueError):
    """A run file whose keys do not hold what docs/run-file.md says."""


# The largest number a run file holds: the runner counts bytes, transfers and nanoseconds in Java
# longs. Past it, the report's statistics (sums, squares of deviations) would leave the floats.
LARGEST = 2 ** 63 - 1


# What each key of a run file must hold (docs/run-file.md). A check is a function of the value that
# returns what was expected when the value is wrong, else None; keys marked optional came later
# than schema 1 or are informative only.
Check = Callable[[Any], Optional[str]]


def _number(low: float = 0.0, whole: bool = False) -> Check:
    def check(value: Any) -> Optional[str]:
        kind = "a whole" if whole else "a finite"
        # Compared, never converted: an integer past the floats' range would raise OverflowError.
        if (isinstance(value, bool) or not isinstance(value, (int,) if whole else (int, float))
                or not -math.inf < value < math.inf or value < low):
            return f"{kind} number of at least {low:g}"
        if value > LARGEST:
            return f"{kind} number of at least {low:g} and at most {LARGEST if whole else f'{LARGEST:.4g}'}"
        return None
    return check


def _text(value: Any) -> Optional[str]:
    return None if isinstance(value, str) and value else "a non-empty text"


def _flag(value: Any) -> Optional[str]:
    return None if isinstance(value, bool) else "true or false"


def _optional(check: Check) -> Check:
    return lambda value: None if value is None else check(value)


def _one_of(*choices: object) -> Check:
    return lambda value: None if value in choices else " or ".join(map(repr, choices))


def _either(*checks: Check) -> Check:
    def check(value: Any) -> Optional[str]:
        problems = [one(value) for one in checks]
        return None if None in problems else " or ".join(cast("list[str]", problems))
    return check


def _object(value: Any) -> Optional[str]:
    return None if isinstance(value, dict) else "an object"


def _file_name(value: Any) -> Optional[str]:
    """A name in the JSON's own directory: the report opens it there, and nowhere else."""
    plain = isinstance(value, str) and value not in ("", ".", "..") and not {"/", "\0"} & set(value)
    return None if plain else "a file name, without a directory"


def _list_of(check: Check) -> Check:
    def checked(value: Any) -> Optional[str]:
        if not isinstance(value, list):
            return "a list"
        return next((f"a list of {problem}" for problem in map(check, value) if problem), None)
    return checked


def _interval(value: Any) -> Optional[str]:
    if value is None:
        return None
    if not isinstance(value, list) or len(value) != 2 or any(_number(-math.inf)(v) for v in value):
        return "null or [low, high]"
    return None


WHOLE, RATE, SECONDS = _number(whole=True), _number(), _number()
RUN_KEYS = {"schema": _text, "run_id": _text, "parameters": None, "environment": None, "phases": None,
            "summary": None}
PARAMETER_KEYS = {"approaches": _list_of(_text), "block_size": _number(1, True), "transfer_size": _number(1, True),
                  "segments": _number(1, True), "repetitions": _number(1, True), "type": _text}
# From schema 3 on, `-i auto` leaves the count to the runner, which writes it in each summary row.
AUTO_PARAMETER_KEYS = {**PARAMETER_KEYS, "repetitions": _either(_number(1, True), _one_of("auto"))}
# What the report writes as sizes and rates, where a run file has them.
LATER_PARAMETER_KEYS = {key: _optional(_number()) for key in ("buffer_size", "stripe_size", "calibrate_rate")}
ENVIRONMENT_KEYS = {"ranks": _number(1, True), "hosts": _list_of(_text), "launcher": _text}
PHASE_KEYS = {"approach": _text, "op": _one_of("write", "read"), "rep": WHOLE, "ranks": _number(1, True),
              "bytes": WHOLE, "seconds": SECONDS, "bw_mib_s": RATE, "stonewalled": _flag,
              "verified": _optional(_flag)}
LATER_PHASE_KEYS = {"fork": WHOLE, "warmup": _flag, "short": _flag, "first_done_s": SECONDS, "transfers": WHOLE,
                    "overran_deadline_s": _optional(SECONDS), "straggler": _object}
# From schema 4 on, the per-rank file's name (null where there is none) instead of `per_rank`.
PER_RANK_FILE_KEYS = {"per_rank_file": _optional(_file_name), "per_rank_rows": _optional(WHOLE)}
SUMMARY_KEYS = {"approach": _text, "op": _one_of("write", "read"), "ranks": _number(1, True),
                "reps": _number(1, True), "bw_mib_s": None, "stonewalled": _flag, "verified": _optional(_flag)}
LATER_SUMMARY_KEYS = {"forks": WHOLE, "short": _flag, "seconds_mean": SECONDS, "bytes_mean": RATE,
                      "median_ci95": _interval, "noisy": _flag, "ratio": _optional(_object),
                      "overran_deadline": WHOLE}
STATISTICS = {"max": RATE, "min": RATE, "mean": RATE, "stddev": RATE}
LATER_STATISTICS = {"median": RATE, "ci95": _interval}
RATIO_KEYS = {"to": _text, "value": RATE, "ci95": _interval,
              "verdict": _one_of(stats.FASTER, stats.SLOWER, stats.SAME, stats.UNCLEAR)}


def _check(where: str, mapping: Any, required: Mapping[str, Optional[Check]],
           later: Optional[Mapping[str, Optional[Check]]] = None) -> None:
    """Every required key present and right, every later key right where present."""
    if not isinstance(mapping, dict):
        raise Malformed(f"{where} is not an object")
    missing = [key for key in required if key not in mapping]
    if missing:
        raise Malformed(f"{where} lacks {', '.join(missing)}")
    for key, check in [*required.items(), *(later or {}).items()]:
        if check is None or key not in mapping:
            continue
        problem = check(mapping[key])
        if problem:
            raise Malformed(f"{where}.{key} is {_shown(mapping[key])}, expected {problem}")


def _shown(value: Any, most: int = 60) -> str:
    """A value as the file holds it, cut short where it is long (a number of 400 digits)."""
    text = json.dumps(value)
    return text if len(text) <= most else f"{text[:most - 3]}..."


def check(path: Union[str, os.PathLike[str]], run: dict[str, Any]) -> None:
    """Raises Malformed, naming the file and the key, where the run does not hold what
    docs/run-file.md says its keys hold."""
    version = version_of(run["schema"])
    _check(str(path), run, {**RUN_KEYS, **(PER_RANK_FILE_KEYS if version >= 4 else {})},
           {key: _optional(_object) for key in ("incomplete", "noise", "auto")})
    _check(f"{path}: parameters", run["parameters"], AUTO_PARAMETER_KEYS if version >= 3 else PARAMETER_KEYS,
           LATER_PARAMETER_KEYS)
    _check(f"{path}: environment", run["environment"], ENVIRONMENT_KEYS,
           {"ranks_per_host": lambda v: None if isinstance(v, dict) and not any(_number(1, True)(c) for c in v.values())
            else "an object of host: rank count"})
    for name, required, later in (("phases", PHASE_KEYS, LATER_PHASE_KEYS), ("summary", SUMMARY_KEYS, LATER_SUMMARY_KEYS)):
        rows = run[name]
        if not isinstance(rows, list):
            raise Malformed(f"{path}: '{name}' is not a list")
        for index, row in enumerate(rows):
            _check(f"{path}: {name}[{index}]", row, required, later)
            if name == "summary":
                _check(f"{path}: {name}[{index}].bw_mib_s", row["bw_mib_s"], STATISTICS, LATER_STATISTICS)
                if row.get("ratio") is not None:
                    _check(f"{path}: {name}[{index}].ratio", row["ratio"], RATIO_KEYS)
    _check_summary_against_phases(path, run)


def _check_summary_against_phases(path: Union[str, os.PathLike[str]], run: dict[str, Any]) -> None:
    """What no key shows alone: each summary row comes from measured phases, and its median lies in
    its interval (a figure draws the interval around the median)."""
    measured = {(phase["approach"], phase["op"], phase["ranks"]) for phase in run["phases"]
                if not phase.get("warmup", False)}
    for index, row in enumerate(run["summary"]):
        if (row["approach"], row["op"], row["ranks"]) not in measured:
            raise Malformed(f"{path}: summary[{index}] ({row['approach']} {row['op']}, {row['ranks']} ranks) "
                            "has no measured phase in 'phases'")
        median, interval = row["bw_mib_s"].get("median"), row.get("median_ci95")
        if median is not None and interval is not None and not interval[0] <= median <= interval[1]:
            raise Malformed(f"{path}: summary[{index}].median_ci95 is {json.dumps(interval)}, expected null or an "
                            f"interval holding bw_mib_s.median, {json.dumps(median)}")
