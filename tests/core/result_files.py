"""Small Citywright result files for the tests of reading several files: runs of one seed, copies, files with
a run id in their metadata (the format ``simulate`` records it in), and damaged files of every kind.

Each source run is played once per test process (into a temporary folder removed at exit) and copied into a
test's folder by the builders.
"""

from __future__ import annotations

import atexit
import functools
import json
import os
import shutil
import tempfile
from pathlib import Path

import pyarrow.parquet as pq

SEED = 1
GAMES = 40


@functools.cache
def _cache() -> Path:
    d = Path(tempfile.mkdtemp(prefix="boardlab-pairing-"))
    atexit.register(shutil.rmtree, d, ignore_errors=True)
    return d


@functools.cache
def _source(agents: str, seating: str) -> Path:
    from boardlab.experiments import simulate as S
    from boardlab.sim.citywright.rules import load_rules

    out = _cache() / f"{agents.replace(',', '-')}-{seating}.parquet"
    S.run(S.make_spec(2, agents.split(","), GAMES, SEED, load_rules("v1.1"), seating, GAMES), out)
    return out


def run_file(folder: Path, name: str = "F.parquet", agents: str = "greedy,greedy", seating: str = "fixed") -> Path:
    """A 2-player run of `agents` (40 games, seed 1) at ``folder/name``; every call with the same agents and
    seating gives the same run (a copy of one file)."""
    path = Path(folder) / name
    path.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(_source(agents, seating), path)
    return path


def with_run_id(src: Path, dst: Path, run_id: str) -> Path:
    """`src` rewritten at `dst` with ``run_id`` in its run metadata, as ``simulate`` records it."""
    from boardlab.experiments import simulate as S

    t = pq.read_table(src)
    md = dict(t.schema.metadata)
    meta = json.loads(md[S.METADATA_KEY])
    meta["run_id"] = run_id
    md[S.METADATA_KEY] = json.dumps(meta).encode()
    pq.write_table(t.replace_schema_metadata(md), dst)
    return dst


def zero_rows(folder: Path) -> Path:
    """A result file with its run metadata and schema whole and no row."""
    t = pq.read_table(run_file(folder, "src.parquet"))
    out = Path(folder) / "zero.parquet"
    pq.write_table(t.slice(0, 0), out)
    (Path(folder) / "src.parquet").unlink()
    return out


def truncated(folder: Path) -> Path:
    """A result file cut in the middle (its footer lost)."""
    out = run_file(folder, "cut.parquet")
    data = out.read_bytes()
    out.write_bytes(data[: len(data) // 2])
    return out


def corrupt(path: Path) -> Path:
    """`path` with bytes of its largest column chunk zeroed in the middle, in place: its footer is whole, but its
    compressed pages no longer decode, so it is found bad only when its rows are read."""
    meta = pq.ParquetFile(path).metadata.row_group(0)
    col = max((meta.column(i) for i in range(meta.num_columns)), key=lambda c: c.total_compressed_size)
    data = bytearray(Path(path).read_bytes())
    start = col.data_page_offset + 40
    size = min(300, col.total_compressed_size - 60)
    data[start : start + size] = bytes(size)
    Path(path).write_bytes(bytes(data))
    return Path(path)


def corrupted(folder: Path) -> Path:
    """A result file corrupted mid-way (:func:`corrupt`)."""
    return corrupt(run_file(folder, "bad.parquet"))


def not_parquet(folder: Path) -> Path:
    out = Path(folder) / "notes.parquet"
    out.write_text("game,seat,total\n0,1,30\n")
    return out


def empty(folder: Path) -> Path:
    out = Path(folder) / "empty.parquet"
    out.write_bytes(b"")
    return out


def fifo(folder: Path) -> Path:
    out = Path(folder) / "pipe.parquet"
    os.mkfifo(out)
    return out


def directory(folder: Path) -> Path:
    out = Path(folder) / "dir.parquet"
    out.mkdir()
    return out


def rescore_args(*files) -> list:
    """`boardlab rescore FILES --rules v1.0 --out out.parquet`."""
    return ["rescore", *files, "--rules", "v1.0", "--out", "out.parquet"]


def no_out(folder: Path) -> None:
    """Nothing written: no ``out.parquet`` in `folder`."""
    assert not (Path(folder) / "out.parquet").exists()
