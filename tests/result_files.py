"""Small result files of one game for the tests of reading several files (:class:`ResultFiles`): runs of one seed,
copies, files with a run id in their metadata (the format ``simulate`` records it in), and damaged files of every
kind.  tests/core/conftest.py's ``result_files`` plays Pig; tests/citywright/conftest.py's plays Citywright, for the
tests that need its seat compensation and ``rescore``.  Each source run is played once per test session (into a
session temporary folder) and copied into a test's folder.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pyarrow.parquet as pq

from boardlab.experiments import simulate as S


class ResultFiles:
    """Small 2-player result files of one game (40 games, seed 1) and damaged files of every kind.

    The runs are of two agents of the game: :attr:`main` (the default run seats it twice, ``main,main``) and
    :attr:`other` (``main,other`` is another run of the same seed).
    """

    SEED = 1
    GAMES = 40

    def __init__(self, cache: Path, game: str, preset: str, main: str, other: str) -> None:
        self._cache = cache
        self.game, self.preset, self.main, self.other = game, preset, main, other

    @property
    def pair(self) -> str:
        """The default run's agents: ``main,main``."""
        return f"{self.main},{self.main}"

    @property
    def mixed(self) -> str:
        """Another run's agents: ``main,other``."""
        return f"{self.main},{self.other}"

    def _source(self, agents: str, seating: str) -> Path:
        from boardlab.sim.games import get_game

        out = self._cache / f"{self.game}-{agents.replace(',', '-').replace(':', '_')}-{seating}.parquet"
        if not out.exists():
            g = get_game(self.game)
            rules = g.load_rules(self.preset)
            spec = S.make_spec(2, agents.split(","), self.GAMES, self.SEED, rules, seating, self.GAMES, game=g)
            S.run(spec, out)
        return out

    def run_file(
        self, folder: Path, name: str = "F.parquet", agents: str | None = None, seating: str = "fixed"
    ) -> Path:
        """A 2-player run of `agents` (default :attr:`pair`; 40 games, seed 1) at ``folder/name``; every call with
        the same agents and seating gives the same run (a copy of one file)."""
        agents = self.pair if agents is None else agents
        path = Path(folder) / name
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(self._source(agents, seating), path)
        return path

    @staticmethod
    def with_run_id(src: Path, dst: Path, run_id: str) -> Path:
        """`src` rewritten at `dst` with ``run_id`` in its run metadata, as ``simulate`` records it."""
        t = pq.read_table(src)
        md = dict(t.schema.metadata)
        meta = json.loads(md[S.METADATA_KEY])
        meta["run_id"] = run_id
        md[S.METADATA_KEY] = json.dumps(meta).encode()
        pq.write_table(t.replace_schema_metadata(md), dst)
        return dst

    def zero_rows(self, folder: Path) -> Path:
        """A result file with its run metadata and schema whole and no row."""
        t = pq.read_table(self.run_file(folder, "src.parquet"))
        out = Path(folder) / "zero.parquet"
        pq.write_table(t.slice(0, 0), out)
        (Path(folder) / "src.parquet").unlink()
        return out

    def truncated(self, folder: Path) -> Path:
        """A result file cut in the middle (its footer lost)."""
        out = self.run_file(folder, "cut.parquet")
        data = out.read_bytes()
        out.write_bytes(data[: len(data) // 2])
        return out

    @staticmethod
    def corrupt(path: Path) -> Path:
        """`path` with bytes of its largest column chunk zeroed in the middle, in place: its footer is whole, but
        its compressed pages no longer decode, so it is found bad only when its rows are read."""
        meta = pq.ParquetFile(path).metadata.row_group(0)
        col = max((meta.column(i) for i in range(meta.num_columns)), key=lambda c: c.total_compressed_size)
        data = bytearray(Path(path).read_bytes())
        start = col.data_page_offset + 40
        size = min(300, col.total_compressed_size - 60)
        data[start : start + size] = bytes(size)
        Path(path).write_bytes(bytes(data))
        return Path(path)

    def corrupted(self, folder: Path) -> Path:
        """A result file corrupted mid-way (:meth:`corrupt`)."""
        return self.corrupt(self.run_file(folder, "bad.parquet"))

    @staticmethod
    def not_parquet(folder: Path) -> Path:
        out = Path(folder) / "notes.parquet"
        out.write_text("game,seat,total\n0,1,30\n")
        return out

    @staticmethod
    def empty(folder: Path) -> Path:
        out = Path(folder) / "empty.parquet"
        out.write_bytes(b"")
        return out

    @staticmethod
    def fifo(folder: Path) -> Path:
        out = Path(folder) / "pipe.parquet"
        os.mkfifo(out)
        return out

    @staticmethod
    def directory(folder: Path) -> Path:
        out = Path(folder) / "dir.parquet"
        out.mkdir()
        return out


#: the two forms of a result file the pairing tests read: as ``simulate`` wrote it, and with a run id written in
FORMATS = ["as-written", "with-run-id"]


def paired_files(rf: ResultFiles, folder: Path, fmt: str, names=("F", "G")) -> list[Path]:
    """Runs of one seed (1) with other agents (``rf.pair`` and ``rf.mixed``), each in its own file, in the format
    `fmt` (one of :data:`FORMATS`)."""
    out = []
    for name, a in zip(names, (rf.pair, rf.mixed), strict=True):
        path = rf.run_file(folder / "src", f"{name}.parquet", agents=a)
        if fmt == "with-run-id":
            path = rf.with_run_id(path, folder / f"{name}.parquet", f"run-{name}-{a}")
        else:
            path = path.rename(folder / f"{name}.parquet")
        out.append(path)
    return out
