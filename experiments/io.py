"""Writing outputs whole or not at all: a temporary name beside the target, then a rename.

A reader never sees half a file, and Ctrl-C or ``kill -9`` leaves either the old
file or the new one (plus, at worst, a hidden ``.NAME.PID.tmp`` that the next write
of the same target does not trip over).
"""

from __future__ import annotations

import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq


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
