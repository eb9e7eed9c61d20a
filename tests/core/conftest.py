"""Fixtures of the shared layers' tests: interrupted runs (`run_files`) and small result files (`result_files`).

`run_files` builds runs of a toy game (Pig: pure Python, nothing to compile) as an interrupted ``simulate`` leaves
them: their parts and manifest, other runs' chunks copied in, damaged chunks and manifests, and a lock held by
"another writer" (released when the test ends).  Every run is the one :attr:`InterruptedRuns.ARGS` names on the
command line (:meth:`InterruptedRuns.run_args`), so that ``--resume`` of it is the original command.

`result_files` builds small Citywright result files for the tests of reading several files: runs of one seed,
copies, files with a run id in their metadata (the format ``simulate`` records it in), and damaged files of
every kind.  Those tests need a real seat advantage and ``rescore``, which Pig has not.  Each source run is
played once per test session (into a session temporary folder) and copied into a test's folder.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from boardlab.experiments import simulate as S


class InterruptedRuns:
    """Interrupted runs of :attr:`ARGS` (Pig, 2 players, random agents, 40 games in chunks of 10, seed 5)."""

    GAME = "pig"
    PLAYERS, GAMES, SEED, CHUNK = 2, 40, 5, 10
    ARGS = ("--game", GAME, "--players", PLAYERS, "--agents", "random", "--games", GAMES, "--seed", SEED,
            "--chunk-size", CHUNK)  # fmt: skip

    def __init__(self) -> None:
        self._held: dict[Path, int] = {}

    def spec(self) -> S.RunSpec:
        """The run of ARGS (Pig's default rules)."""
        from boardlab.sim.games import get_game

        g = get_game(self.GAME)
        rules = g.load_rules(g.default_preset)
        return S.make_spec(self.PLAYERS, ["random"], self.GAMES, self.SEED, rules, "rotate", self.CHUNK, game=g)

    def run_args(self, out: Path | str, *more) -> list:
        """`simulate` of ARGS into `out`."""
        return ["simulate", *self.ARGS, "--out", out, "--quiet", *more]

    def interrupted(self, out: Path, chunks=(0, 1)) -> S.RunPaths:
        """A run of ARGS at `out` stopped with `chunks` written: its manifest and stamped parts."""
        paths = S.RunPaths(Path(out))
        manifest = S.prepare(self.spec(), paths, resume=False, force=False)
        for i in chunks:
            _, table, _ = S.run_chunk(self.spec(), i)
            S._atomic_write_table(table, paths.chunk(i), manifest[S.RUN_ID])
        return paths

    @staticmethod
    def run_id(paths: S.RunPaths) -> str:
        return S.read_manifest(paths)[S.RUN_ID]

    def with_foreign_chunk(self, d: Path, i: int = 2) -> S.RunPaths:
        """``d/r.parquet``, interrupted after chunks 0 and 1, with chunk `i` of another run of the same command
        (``d/other.parquet``) copied into its parts."""
        paths = self.interrupted(d / "r.parquet")
        other = self.interrupted(d / "other.parquet", chunks=(i,))
        shutil.copyfile(other.chunk(i), paths.chunk(i))
        return paths

    def with_truncated_chunk(self, d: Path, i: int = 1) -> S.RunPaths:
        """``d/r.parquet``, interrupted after chunks 0 and 1, chunk `i` cut to half its bytes."""
        paths = self.interrupted(d / "r.parquet")
        data = paths.chunk(i).read_bytes()
        paths.chunk(i).write_bytes(data[: len(data) // 2])
        return paths

    def with_manifest(self, d: Path, text: str) -> S.RunPaths:
        """``d/r.parquet``, interrupted after chunks 0 and 1, its run.json replaced by `text`."""
        paths = self.interrupted(d / "r.parquet")
        paths.manifest.write_text(text)
        return paths

    def hold_lock(self, out: Path) -> Path:
        """Take `out`'s writer lock as another writer would (boardlab.experiments.simulate's own helper) and
        keep it until :meth:`release` (or the test's end)."""
        self._held[Path(out)] = S._lock(S.RunPaths(Path(out)))
        return Path(out)

    def release(self, out: Path) -> None:
        os.close(self._held.pop(Path(out)))

    def release_all(self) -> None:
        for out in list(self._held):
            self.release(out)

    @staticmethod
    def snapshot(d: Path) -> dict:
        """Every file under `d`: (size, mtime in ns, inode), to show that nothing was touched."""
        return {
            str(p.relative_to(d)): (st.st_size, st.st_mtime_ns, st.st_ino)
            for p in sorted(Path(d).rglob("*"))
            for st in [p.stat()]
        }


@pytest.fixture
def run_files():
    """Interrupted runs of a toy game (:class:`InterruptedRuns`); locks it holds are released at the end."""
    runs = InterruptedRuns()
    yield runs
    runs.release_all()


class ResultFiles:
    """Small 2-player Citywright result files (40 games, seed 1, rules v1.1) and damaged files of every kind."""

    SEED = 1
    GAMES = 40

    def __init__(self, cache: Path) -> None:
        self._cache = cache

    def _source(self, agents: str, seating: str) -> Path:
        from boardlab.sim.citywright.rules import load_rules

        out = self._cache / f"{agents.replace(',', '-')}-{seating}.parquet"
        if not out.exists():
            spec = S.make_spec(2, agents.split(","), self.GAMES, self.SEED, load_rules("v1.1"), seating, self.GAMES)
            S.run(spec, out)
        return out

    def run_file(
        self, folder: Path, name: str = "F.parquet", agents: str = "greedy,greedy", seating: str = "fixed"
    ) -> Path:
        """A 2-player run of `agents` (40 games, seed 1) at ``folder/name``; every call with the same agents and
        seating gives the same run (a copy of one file)."""
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

    @staticmethod
    def rescore_args(*files) -> list:
        """`boardlab rescore FILES --rules v1.0 --out out.parquet`."""
        return ["rescore", *files, "--rules", "v1.0", "--out", "out.parquet"]

    @staticmethod
    def no_out(folder: Path) -> None:
        """Nothing written: no ``out.parquet`` in `folder`."""
        assert not (Path(folder) / "out.parquet").exists()


@pytest.fixture(scope="session")
def _result_sources(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("result-sources")


@pytest.fixture
def result_files(_result_sources) -> ResultFiles:
    """Small Citywright result files (:class:`ResultFiles`), each source run played once per session."""
    return ResultFiles(_result_sources)


@pytest.fixture
def pig_spec():
    """A factory of runs of the toy game: ``pig_spec(games=40, players=3, chunk=20)`` is a checked
    :class:`~boardlab.experiments.simulate.RunSpec` of Pig's default rules, random agents, rotating seats, seed 11;
    for tests of how runs are played and written that need no particular game."""
    from boardlab.sim.games import get_game

    g = get_game("pig")

    def make(games: int = 40, players: int = 3, chunk: int | None = 20, agents=("random",), seating="rotate"):
        rules = g.load_rules(g.default_preset)
        return S.make_spec(players, list(agents), games, 11, rules, seating, chunk, game=g)

    return make
