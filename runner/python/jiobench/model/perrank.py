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
from pathlib import Path
from typing import Mapping, Optional, Sequence, Union

SUFFIX = ".ranks.parquet"

# Each column and what it holds in the file. `name`: text of a few values (approach, op, host),
# dictionary-encoded, read back as pandas categories. `seconds`: float32, 7 significant digits
# (a tenth of a microsecond at a second), far finer than the timings vary from run to run, and
# half of float64's bytes on disk; the run file's figures are reduced from the records as measured.
COLUMNS = (("approach", "name"), ("op", "name"), ("fork", "int32"), ("rep", "int32"), ("warmup", "flag"),
           ("rank", "int32"), ("host", "name"), ("bytes", "int64"), ("transfers", "int64"),
           ("open_s", "seconds"), ("transfer_s", "seconds"), ("close_s", "seconds"), ("elapsed_s", "seconds"),
           ("bookkeeping_s", "seconds"), ("stonewalled", "flag"), ("stonewall_bytes", "int64"),
           ("stonewall_s", "seconds"), ("verified", "flag"), ("error", "text"), ("array_page_offset", "int32"),
           ("array_copy_crawls", "flag"))
NAMES = [name for name, _ in COLUMNS]

# A row group holds whole phases, at least this many rows unless it is the last: at thousands of
# ranks a phase a group, at a few ranks many phases a group, as each group costs its own metadata.
ROW_GROUP_ROWS = 8192

# What runs before the per-rank file (schemas 1 to 3) lack, as jiobench.model.reduce reads them.
EARLIER_DEFAULTS = {"fork": 0, "warmup": False}


@functools.cache
def schema():
    import pyarrow as pa

    types = {"name": pa.dictionary(pa.int32(), pa.string()), "text": pa.string(), "int32": pa.int32(),
             "int64": pa.int64(), "seconds": pa.float32(), "flag": pa.bool_()}
    return pa.schema([(name, types[kind]) for name, kind in COLUMNS])


class _PandasUnseen(importlib.abc.MetaPathFinder):
    """Refuses pandas to pyarrow's first look for it. Converting Python values for the first time,
    pyarrow loads pandas to see whether they are pandas' own: half a second of CPU, on the writer's
    critical path at the end of every run, for records that are plain dicts. Refused, pyarrow goes
    on without pandas until something asks it for pandas' objects, and then imports it after all."""

    def find_spec(self, name, path=None, target=None):
        if name == "pandas":
            raise ImportError("pandas is not needed to write the per-rank file")
        return None


def _table(records: Sequence[Mapping]):
    """The records as an Arrow table of the file's columns; keys beyond them are left out."""
    import pyarrow as pa

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
        self._pending: list[Sequence[Mapping]] = []
        self._pending_rows = 0
        self._file = open(path, "xb")
        self._writer = None
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

    def append(self, records: Sequence[Mapping]) -> None:
        """One phase's records, in the order given; written once enough rows wait."""
        self._pending.append(records)
        self._pending_rows += len(records)
        self.rows += len(records)
        if self._pending_rows >= ROW_GROUP_ROWS:
            self._flush()

    def _flush(self) -> None:
        if self._pending_rows:
            table = _table([record for records in self._pending for record in records])
            self._pending, self._pending_rows = [], 0
            self._writer.write_table(table, row_group_size=len(table))

    def close(self) -> None:
        """Writes what waits and the file's footer: the file at `path` is whole."""
        self._flush()
        self._writer.close()
        self._file.close()

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
    """A run file names a per-rank file that is not there, or not a per-rank file."""


def frame(run_path: Union[str, Path], run: Optional[dict] = None, columns: Optional[Sequence[str]] = None):
    """A run's per-rank records as a pandas DataFrame, a row per rank and phase, in the order the
    phases ran, whatever the run file's schema: from its per-rank file (schema 4 on; the name it
    gives, beside the JSON, else the JSON's own name with SUFFIX for a pair renamed together, as a
    sweep's attempts/ are), or from the records the JSON holds (schemas 1 to 3, whose `.ranks.csv`
    is a copy of them). `run` is the JSON already read, `columns` those wanted (default: all).
    None where the run has no records: its run file was written by a rank that survived rank 0,
    which held them. Unreadable says which file is missing or broken."""
    run_path = Path(run_path)
    if run is None:
        run = json.loads(run_path.read_text(encoding="utf-8"))
    if "per_rank" in run:
        table = _table([{**EARLIER_DEFAULTS, **record} for record in run["per_rank"]])
        return (table.select(list(columns)) if columns else table).to_pandas()
    if run.get("per_rank_file") is None:
        return None
    import pyarrow.parquet as pq

    named = run_path.parent / run["per_rank_file"]
    path = named if named.exists() else run_path.with_name(run_path.name.removesuffix(".json") + SUFFIX)
    if not path.exists():
        raise Unreadable(f"{run_path}: its per-rank file {named.name} is missing")
    try:
        return pq.read_table(path, columns=list(columns) if columns else None).to_pandas()
    except (OSError, ValueError) as problem:  # pyarrow's ArrowInvalid is a ValueError
        raise Unreadable(f"{path}: not a per-rank file ({problem})") from None
