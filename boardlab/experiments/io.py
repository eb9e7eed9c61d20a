"""Reading result files, and writing outputs whole or not at all: a temporary name beside the target, then a rename.

A reader never sees half a file, and Ctrl-C or ``kill -9`` leaves either the old
file or the new one (plus, at worst, a hidden ``.NAME.PID.tmp`` that the next write
of the same target does not trip over).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq


class ResultsError(ValueError):
    """A result file that cannot be read; one line, naming the file."""


def read_results(path: str | Path, columns: list[str] | None = None) -> pd.DataFrame:
    """A result file as a DataFrame (only `columns`, when given); ResultsError naming the file when it is
    missing, truncated or corrupted (a zstd error says nothing of the file it came from)."""
    try:
        return pd.read_parquet(path, columns=columns)
    except (OSError, pa.ArrowException) as e:
        lines = str(e).strip().splitlines()
        reason = getattr(e, "strerror", None) or (lines[0] if lines else type(e).__name__)
        raise ResultsError(f"{path}: cannot read it as a result file: {reason}") from None


def _tmp(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


def atomic_write_text(text: str, path: Path) -> None:
    path = Path(path)
    tmp = _tmp(path)
    tmp.write_text(text)
    os.replace(tmp, path)


def atomic_write_parquet(table: pa.Table, path: Path, compression: str = "zstd") -> None:
    path = Path(path)
    tmp = _tmp(path)
    pq.write_table(table, tmp, compression=compression)
    os.replace(tmp, path)


@contextmanager
def staged_directory(out: Path, last: str = "REPORT.md") -> Iterator[Path]:
    """Write a report's files into the yielded temporary directory beside `out`; on success each is moved
    into `out`, replacing its namesake whole, `last` after every other (so a report never names files that
    are not there yet).  Files of `out` not written are left alone; on an error nothing is moved."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    tmp = _tmp(out)
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir()
    try:
        yield tmp
        for f in sorted(tmp.iterdir(), key=lambda f: f.name == last):
            os.replace(f, out / f.name)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
