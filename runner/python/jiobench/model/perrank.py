"""A run's per-rank file (docs/run-file.md): every rank's record of every phase, a row each, in
Parquet, which pandas, polars and DuckDB read alike.

Rank 0 appends each phase's records as the phase ends (`Stream`), so that it holds at most a row
group's records, never the run's: at 10,000 ranks a run's records are gigabytes as Python objects
and tens of bytes a row here. The report reads the records of any run file through `frame`, from
the per-rank file or, in run files before it existed, from the JSON itself.

pyarrow (and pandas, for `frame`) are imported where they are used: every rank imports this
module through its collector, and only rank 0 writes a per-rank file.
"""
from __future__ import annotations

import functools
import importlib.abc
import json
import os
import sys
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Mapping, Optional, Sequence, Union

from .reduce import phase_key

if TYPE_CHECKING:
    import pandas
    import pyarrow
    import pyarrow.parquet

SUFFIX = ".ranks.parquet"

# Each column and what it holds in the file. `name`: text of a few values (approach, op, host),
# dictionary-encoded, read back as pandas categories. `seconds`: float32, 7 significant digits
# (a tenth of a microsecond at a second), far finer than the timings vary from run to run, and
# half of float64's bytes on disk; the run file's figures are reduced from the records as measured.
COLUMNS = (("approach", "name"), ("op", "name"), ("fork", "int32"), ("rep", "int32"), ("warmup", "flag"),
           ("rank", "int32"), ("host", "name"), ("bytes", "int64"), ("transfers", "int64"),
           ("open_s", "seconds"), ("transfer_s", "seconds"), ("close_s", "seconds"), ("elapsed_s", "seconds"),
           ("bookkeeping_s", "seconds"), ("stalled_s", "seconds"), ("stonewalled", "flag"),
           ("stonewall_bytes", "int64"), ("stonewall_s", "seconds"), ("verified", "flag"), ("error", "text"),
           ("array_page_offset", "int32"), ("array_copy_crawls", "flag"))
NAMES = [name for name, _ in COLUMNS]

# A row group holds whole phases, at least this many rows unless it is the last: at thousands of
# ranks a phase a group, at a few ranks many phases a group, as each group costs its own metadata.
ROW_GROUP_ROWS = 8192

# What runs before the per-rank file (schemas 1 to 3) lack, as jiobench.model.reduce reads them.
EARLIER_DEFAULTS = {"fork": 0, "warmup": False}


@functools.cache
def schema() -> pyarrow.Schema:
    import pyarrow as pa

    types = {"name": pa.dictionary(pa.int32(), pa.string()), "text": pa.string(), "int32": pa.int32(),
             "int64": pa.int64(), "seconds": pa.float32(), "flag": pa.bool_()}
    return pa.schema([(name, types[kind]) for name, kind in COLUMNS])


class _PandasUnseen(importlib.abc.MetaPathFinder):
    """Refuses pandas to pyarrow's first look for it. Converting Python values for the first time,
    pyarrow loads pandas to see whether they are pandas' own: half a second of CPU, on the writer's
    critical path at the end of every run, for records that are plain dicts. Refused, pyarrow goes
    on without pandas until something asks it for pandas' objects, and then imports it after all."""

    def find_spec(self, name: str, path: Optional[Sequence[str]] = None,
                  target: Optional[ModuleType] = None) -> Optional[ModuleSpec]:
        if name == "pandas":
            raise ImportError("pandas is not needed to write the per-rank file")
        return None


# What a rank's launcher adds to its records that goes to the run file's phases, not to this file.
KEPT_IN_THE_PHASES = ("began_at", "ended_at")


def table(records: Sequence[Mapping[str, Any]], *, strict: bool = True) -> pyarrow.Table:
    """The records as an Arrow table of the file's columns. A field it does not know is an error
    (`strict`: a field added to the runner's records and not here would be lost without a word);
    an earlier run's records, read back, may hold fields since dropped, which are left out."""
    import pyarrow as pa

    if strict:
        unknown = {key for record in records for key in record} - set(NAMES) - set(KEPT_IN_THE_PHASES)
        if unknown:
            raise KeyError(f"fields the per-rank file does not know: {', '.join(sorted(unknown))}")

    unseen = None if "pandas" in sys.modules else _PandasUnseen()
    if unseen:
        sys.meta_path.insert(0, unseen)
    try:
        return pa.Table.from_pylist(list(records), schema=schema())
    finally:
        if unseen:
            sys.meta_path.remove(unseen)


class Stream:
    """The per-rank file being written at `path` (a temporary name: runfile gives it its final
    one), a row group at a time. Created exclusively: it never writes into another's file."""

    def __init__(self, path: str):
        import pyarrow.parquet as pq

        self.path = path
        self.rows = 0
        self.written_rows = 0  # of them, those in the file (a row group's written whole or not at all)
        self._pending: list[Sequence[Mapping[str, Any]]] = []
        self._pending_rows = 0
        self._file = open(path, "xb")
        self._writer: Optional[pyarrow.parquet.ParquetWriter] = None
        try:
            # Seconds split into byte streams before zstd: their exponents, alike from rank to rank,
            # then compress apart from their mantissas' noise.
            self._writer = pq.ParquetWriter(
                self._file, schema(), compression="zstd",
                use_byte_stream_split=[name for name, kind in COLUMNS if kind == "seconds"],
                use_dictionary=[name for name, kind in COLUMNS if kind == "name"])
        except BaseException:
            self.discard()
            raise

    def append(self, records: Sequence[Mapping[str, Any]]) -> None:
        """One phase's records, in the order given; written once enough rows wait."""
        self._pending.append(records)
        self._pending_rows += len(records)
        self.rows += len(records)
        if self._pending_rows >= ROW_GROUP_ROWS:
            self._flush()

    def _flush(self) -> None:
        if self._pending_rows:
            assert self._writer is not None  # made in __init__, or there is no Stream
            rows = table(self.pending())
            self._writer.write_table(rows, row_group_size=len(rows))
            self.written_rows += self._pending_rows
            self._pending, self._pending_rows = [], 0

    def pending(self) -> list[Mapping[str, Any]]:
        """The records appended but not yet written, in order."""
        return [record for records in self._pending for record in records]

    def close(self) -> None:
        """Writes what waits and the file's footer: the file at `path` is whole. Where that fails,
        what waited is still pending (a full file system takes the bytes it buffered only now)."""
        waiting, written = self._pending, self.written_rows
        try:
            self._flush()
            assert self._writer is not None  # made in __init__, or there is no Stream
            self._writer.close()
            self._file.close()
        except OSError:
            self._pending, self._pending_rows, self.written_rows = waiting, sum(map(len, waiting)), written
            raise

    def discard(self) -> None:
        """Removes the file at `path`, whole or not (what it held was published, or is lost)."""
        # What is still buffered cannot be written (a full file system) and is not wanted: the file
        # is closed all the same. The writer first, else its finalizer would write into the closed file.
        closes = [self._file.close] if self._writer is None else [self._writer.close, self._file.close]
        for close in closes:
            try:
                close()
            except (OSError, ValueError):
                pass
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass


class Unreadable(ValueError):
    """A run file names a per-rank file that is not there, not a per-rank file, or one that
    contradicts what the run file says of its records."""


def frame(run_path: Union[str, Path], run: Optional[dict[str, Any]] = None, columns: Optional[Sequence[str]] = None,
          checked: bool = False) -> Optional[pandas.DataFrame]:
    """A run's per-rank records as a pandas DataFrame, a row per rank and phase, in the order the
    phases ran, whatever the run file's schema: from its per-rank file (schema 4 on; the name it
    gives, beside the JSON, else the JSON's own name with SUFFIX for a pair renamed together, as a
    sweep's attempts/ are), or from the records the JSON holds (schemas 1 to 3, whose `.ranks.csv`
    is a copy of them). `run` is the JSON already read, `columns` those wanted (default: all);
    `checked`: a per-rank file is first held against the JSON (`contradiction`), as one is before
    anything is drawn from it. None where the run has no records: its run file was written by a
    rank that survived rank 0, which held them. Unreadable says which file is missing, broken, or
    at odds with its run file, and how."""
    run_path = Path(run_path)
    if run is None:
        run = json.loads(run_path.read_text(encoding="utf-8"))
    if "per_rank" in run:
        rows = table([{**EARLIER_DEFAULTS, **record} for record in run["per_rank"]], strict=False)
        return (rows.select(list(columns)) if columns else rows).to_pandas()
    if run.get("per_rank_file") is None:
        return None
    import pyarrow.parquet as pq

    named = run_path.parent / run["per_rank_file"]
    path = named if named.exists() else run_path.with_name(run_path.name.removesuffix(".json") + SUFFIX)
    if not path.exists():
        raise Unreadable(f"{run_path}: its per-rank file {named.name} is missing")
    wanted = list(columns) if columns else None
    read = None if wanted is None else wanted + [name for name in CHECKED if checked and name not in wanted]
    try:
        records = pq.read_table(path, columns=read).to_pandas()
    except (OSError, ValueError) as problem:  # pyarrow's ArrowInvalid is a ValueError
        raise Unreadable(f"{path}: not a per-rank file ({problem})") from None
    if checked:
        disagreement = contradiction(run, records)
        if disagreement:
            raise Unreadable(f"{path} contradicts its run file {run_path.name}: {disagreement}")
    return records if wanted is None else records[wanted]


# What `contradiction` reads of the records: a phase's rows, their ranks, sums and extremes, which a
# per-rank file of another run, or one cut, doubled or altered, does not share with the JSON.
CHECKED = ("approach", "op", "fork", "rep", "warmup", "rank", "bytes", "transfers", "elapsed_s")


def contradiction(run: Mapping[str, Any], records: pandas.DataFrame) -> Optional[str]:
    """How a run's per-rank records (a DataFrame of at least the CHECKED columns, as the per-rank
    file holds them) contradict its JSON, in words: its rows (`per_rank_rows`), its phases in the
    order they ran, each phase's ranks (0 to `ranks` - 1, a row each), warm-up, bytes and
    transfers (their sums), and its slowest, median and fastest rank's times (`seconds`,
    `straggler`, `first_done_s`, to float32's 7 digits); the first phase that disagrees, and how
    many others do. None where they agree. A pass over the records and one over the phases."""
    rows = run.get("per_rank_rows")
    if rows is not None and len(records) != rows:
        return f"{len(records)} rows, where per_rank_rows says {rows}"
    groups = records.groupby(list(PHASE_KEY), observed=True, sort=False)
    phases = groups.agg(rows=("rank", "size"), ranks=("rank", "nunique"), lowest_rank=("rank", "min"),
                        highest_rank=("rank", "max"), any_warmup=("warmup", "max"), all_warmup=("warmup", "min"),
                        bytes=("bytes", "sum"), transfers=("transfers", "sum"), slowest=("elapsed_s", "max"),
                        median=("elapsed_s", "median"), fastest=("elapsed_s", "min"))
    found = [(str(approach), str(op), int(fork), int(rep)) for approach, op, fork, rep in phases.index]
    said = [phase_key(phase) for phase in run["phases"]]
    if len(found) != len(said):
        return f"{len(found)} phases, where the run file has {len(said)}"
    if found != said:
        index = next(index for index, (one, other) in enumerate(zip(found, said)) if one != other)
        return f"its phase {index + 1} is {_label(found[index])}, where the run file's is {_label(said[index])}"
    disagreements = [f"{_label(key)}: {what}" for key, (_, aggregate), phase
                     in zip(found, phases.iterrows(), run["phases"])
                     for what in [_phase_contradiction(aggregate, phase)] if what]
    if not disagreements:
        return None
    others = len(disagreements) - 1
    return disagreements[0] + (f" (and {others} other phase{'' if others == 1 else 's'})" if others else "")


PHASE_KEY = ("approach", "op", "fork", "rep")
# Times are float32 in the per-rank file, float64 in the JSON: alike to 7 significant digits.
SECONDS_ALIKE = 1e-6


def _label(key: tuple[str, str, int, int]) -> str:
    approach, op, fork, rep = key
    return f"{approach} {op} fork {fork} rep {rep}"


def _phase_contradiction(aggregate: pandas.Series, phase: Mapping[str, Any]) -> Optional[str]:
    """How one phase's records (their aggregate) contradict the phase the JSON holds, or None."""
    rows, ranks = int(aggregate["rows"]), phase["ranks"]
    if rows != ranks:
        return f"{rows} rows, where the run file says {ranks} ranks"
    if (int(aggregate["ranks"]), int(aggregate["lowest_rank"]), int(aggregate["highest_rank"])) != (rows, 0, rows - 1):
        return f"its rows are not ranks 0 to {rows - 1}, one each"
    if phase.get("warmup", False) and not aggregate["all_warmup"]:
        return "some of its rows are measured, where the phase is a warm-up"
    if not phase.get("warmup", False) and aggregate["any_warmup"]:
        return "some of its rows are warm-up, where the phase is measured"
    for name in ("bytes", "transfers"):
        if int(aggregate[name]) != phase[name]:
            return f"its ranks moved {int(aggregate[name])} {name} in all, where the run file says {phase[name]}"
    times = [("slowest", phase["seconds"], "seconds"), ("fastest", phase["first_done_s"], "first_done_s")]
    if phase.get("straggler"):
        times.insert(1, ("median", phase["straggler"]["elapsed_s"]["median"], "straggler.elapsed_s.median"))
    for which, seconds, key in times:
        if abs(float(aggregate[which]) - seconds) > SECONDS_ALIKE * max(abs(seconds), 1e-3):
            return (f"its {which} rank took {float(aggregate[which]):.7g} s, where the run file says "
                    f"{seconds:.7g} s ({key})")
    return None
