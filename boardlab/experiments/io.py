"""Reading result files, and writing outputs whole or not at all: a temporary name beside the target, then a rename.

A reader never sees half a file, and Ctrl-C or ``kill -9`` leaves either the old
file or the new one (plus, at worst, a hidden ``.NAME.PID.tmp`` that the next write
of the same target does not trip over).

Several result files are read by one reader, :func:`read_runs`, which every command over several files uses
(``tune seats``, ``rescore``, ``ladder``'s ratings, :func:`boardlab.experiments.pipelines.load_results`).  It adds a
``run_id`` column: the rows of one game are those sharing ``(run_id, game)``, never those sharing a game seed
(two runs with the same ``--seed`` play the same seeds).  A file's run identity is, in this order:

1. the values of its own ``run_id`` column (a rescored table keeps its source runs' identities);
2. its run metadata's ``run_id`` (what ``simulate`` records);
3. for a table rescored from one file with no run id, its source's identity (the source's metadata is stored
   in it as ``original``), so that a rescored table and its source are one run;
4. ``meta-`` and a SHA-256 of its run metadata as canonical JSON (the spec, the rules, when the run started and
   finished, the code's commit): a copy of a file keeps it, another run of the same spec started at another
   second does not;
5. for a file with no run metadata at all, ``file-`` and a SHA-256 of its bytes.

A file given twice, or two files of the same run (a copy), are refused in one line naming both paths: pooled,
their games would count twice.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq


class ResultsError(ValueError):
    """A result file that cannot be read; one line, naming the file."""


def read_results(path: str | Path, columns: list[str] | None = None) -> pd.DataFrame:
    """A result file as a DataFrame, with an error that names the file.

    Parameters
    ----------
    path : str or pathlib.Path
        The Parquet result file.
    columns : list of str or None
        Only these columns; None: every column.

    Returns
    -------
    pandas.DataFrame
        The file's rows.

    Raises
    ------
    ResultsError
        The file is missing, truncated or corrupted (one line naming it: a zstd error says nothing of the
        file it came from).
    """
    try:
        return pd.read_parquet(path, columns=columns)
    except (OSError, pa.ArrowException) as e:
        lines = str(e).strip().splitlines()
        reason = getattr(e, "strerror", None) or (lines[0] if lines else type(e).__name__)
        raise ResultsError(f"{path}: cannot read it as a result file: {reason}") from None


RUN_ID = "run_id"  # the column naming each row's run: a game is its rows sharing (run_id, game)
GAME_KEYS = (RUN_ID, "game")

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def check_result_path(path: str | Path) -> Path:
    """`path` if it names a non-empty regular file, else ResultsError in one line saying what it is.

    It is examined with ``stat`` before anything opens it: opening a FIFO would wait for a writer.

    Parameters
    ----------
    path : str or Path
        A result file given by the user.

    Returns
    -------
    Path
        The same path.
    """
    p = Path(path)
    try:
        st = p.stat()
    except (FileNotFoundError, NotADirectoryError):
        raise ResultsError(f"{p}: no such file") from None
    except OSError as e:
        raise ResultsError(f"{p}: cannot read it: {e.strerror or type(e).__name__}") from None
    if not stat.S_ISREG(st.st_mode):
        kind = next((name for test, name in _KINDS if test(st.st_mode)), "not a regular file")
        raise ResultsError(f"{p}: is {kind}, not a result file")
    if st.st_size == 0:
        raise ResultsError(f"{p}: is empty (0 bytes), not a result file")
    return p


@dataclass(frozen=True)
class RunFile:
    """One result file as :func:`open_runs` found it, before its rows are read.

    Attributes
    ----------
    path : Path
        The file.
    meta : dict
        Its run metadata (empty for a Parquet file with none).
    runs : tuple of str
        The identities of the runs whose games it holds (one, but for a rescored table of several runs).
    rows : int
        Its number of rows.
    has_column : bool
        Whether it stores a ``run_id`` column of its own.
    """

    path: Path
    meta: dict
    runs: tuple[str, ...]
    rows: int
    has_column: bool


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()[:20]


def _file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()[:20]


def run_identity(path: str | Path, meta: dict) -> str:
    """The identity of the run a result file holds, from its metadata (see the module's docstring).

    Parameters
    ----------
    path : str or Path
        The file (its bytes are hashed only when `meta` is empty).
    meta : dict
        Its run metadata, as :func:`boardlab.experiments.simulate.read_metadata` returns it, or ``{}``.

    Returns
    -------
    str
        The run id the metadata records, else ``meta-`` or ``file-`` and a hash.
    """
    if meta.get(RUN_ID):
        return str(meta[RUN_ID])
    if not meta:
        return "file-" + _file_digest(Path(path))
    original = meta.get("original")
    if isinstance(original, dict) and original and len(meta.get("rescored_from") or []) == 1:
        meta = original
        if meta.get(RUN_ID):
            return str(meta[RUN_ID])
    return "meta-" + _digest(json.dumps(meta, sort_keys=True, separators=(",", ":"), default=str).encode())


def _open_one(path: Path) -> RunFile:
    from boardlab.experiments.simulate import METADATA_KEYS

    check_result_path(path)
    try:
        with pq.ParquetFile(path) as pf:
            md = pf.schema_arrow.metadata or {}
            rows = pf.metadata.num_rows
            key = next((k for k in METADATA_KEYS if k in md), None)
            meta = json.loads(md[key]) if key is not None and md[key] else {}
            runs = None
            if RUN_ID in pf.schema_arrow.names:
                column = pf.read(columns=[RUN_ID]).column(0).cast(pa.large_string()).unique()
                runs = tuple(v for v in column.to_pylist() if v is not None)
    except (OSError, pa.ArrowException, ValueError) as e:  # ValueError: metadata that is not JSON
        lines = str(e).strip().splitlines()
        reason = getattr(e, "strerror", None) or (lines[0] if lines else type(e).__name__)
        raise ResultsError(f"{path}: cannot read it as a result file: {reason}") from None
    if not isinstance(meta, dict):
        raise ResultsError(f"{path}: cannot read it as a result file: its run metadata is not a mapping")
    if rows == 0:
        raise ResultsError(f"{path}: holds no games (0 rows)")
    if runs is not None and len(runs) == 0:
        raise ResultsError(f"{path}: its {RUN_ID} column is empty")
    return RunFile(path, meta, runs or (run_identity(path, meta),), rows, runs is not None)


def open_runs(paths: Iterable[str | Path]) -> list[RunFile]:
    """Result files checked before their rows are read: each a non-empty regular file, readable as Parquet, with
    at least one row; no file given twice and no run in two files.  ResultsError, one line naming the path(s).

    Parameters
    ----------
    paths : iterable of str or Path
        The result files.

    Returns
    -------
    list of RunFile
        One per path, in order.
    """
    files = [_open_one(Path(p)) for p in paths]
    if not files:
        raise ResultsError("no result files given")
    seen: dict[str, RunFile] = {}
    for f in files:
        for run in f.runs:
            first = seen.setdefault(run, f)
            if first is f:
                continue
            if os.path.samefile(first.path, f.path):
                raise ResultsError(f"{f.path}: the same file as {first.path}; give each result file once")
            raise ResultsError(
                f"{f.path}: holds the same run as {first.path} (run id {run}); give each run once (a copy?)"
            )
    return files


def read_runs(paths: Iterable[str | Path], columns: list[str] | None = None) -> pd.DataFrame:
    """Result files as one DataFrame with a categorical ``run_id`` column first (categories in the files' order):
    the rows of one game are those sharing ``(run_id, game)``.

    Every file is checked by :func:`open_runs` before any is read; ResultsError (one line, naming the file) when
    one cannot be read or holds a (run, game, seat) twice.

    Parameters
    ----------
    paths : iterable of str or Path
        The result files.
    columns : list of str, optional
        Read only these columns (``game`` and ``seat`` are always read); all when None.

    Returns
    -------
    pandas.DataFrame
        The rows of every file, in order, with ``run_id``.
    """
    files = open_runs(paths)
    want = None if columns is None else list(dict.fromkeys([*columns, "game", "seat"]))
    parts: list[pd.DataFrame] = []
    runs: list[str] = []
    for f in files:
        df = read_results(f.path, None if want is None else [*want, *([RUN_ID] if f.has_column else [])])
        if not f.has_column:
            df.insert(0, RUN_ID, f.runs[0])
        else:
            df.insert(0, RUN_ID, df.pop(RUN_ID).astype(object))
        missing = [c for c in ("game", "seat") if c not in df.columns]
        if missing:
            raise ResultsError(f"{f.path}: has no {', '.join(missing)} column: not a result table")
        twice = df.duplicated([RUN_ID, "game", "seat"])
        if twice.any():
            r = df[twice].iloc[0]
            raise ResultsError(
                f"{f.path}: holds game {r['game']} seat {r['seat']} twice (rows of several runs with no"
                f" {RUN_ID} column to tell them apart)"
            )
        parts.append(df)
        runs.extend(f.runs)
    out = pd.concat(parts, ignore_index=True)
    out[RUN_ID] = pd.Categorical(out[RUN_ID], categories=list(dict.fromkeys(runs)))
    return out


def _tmp(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


def atomic_write_text(text: str, path: Path) -> None:
    """Write `text` to `path` through a temporary file beside it, replaced in one step (a reader never sees half).

    Parameters
    ----------
    text : str
        The content.
    path : pathlib.Path
        The file to (re)place.
    """
    path = Path(path)
    tmp = _tmp(path)
    tmp.write_text(text)
    os.replace(tmp, path)


def atomic_write_parquet(table: pa.Table, path: Path, compression: str = "zstd") -> None:
    """Write `table` to `path` as Parquet through a temporary file beside it, replaced in one step.

    Parameters
    ----------
    table : pyarrow.Table
        The rows.
    path : pathlib.Path
        The file to (re)place.
    compression : str
        Parquet's compression codec.
    """
    path = Path(path)
    tmp = _tmp(path)
    pq.write_table(table, tmp, compression=compression)
    os.replace(tmp, path)


@contextmanager
def staged_directory(out: Path, last: str = "REPORT.md") -> Iterator[Path]:
    """Write a report's files into the yielded temporary directory beside `out`; on success each is moved
    into `out`, replacing its namesake whole, `last` after every other (so a report never names files that
    are not there yet).  Files of `out` not written are left alone; on an error nothing is moved.

    Parameters
    ----------
    out : pathlib.Path
        The report's directory (created when missing).
    last : str
        The file moved last.

    Yields
    ------
    pathlib.Path
        The temporary directory to write into (removed afterwards).
    """
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
