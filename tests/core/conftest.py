"""Fixtures of the shared layers' tests: interrupted runs (`run_files`) and small result files (`result_files`).

`run_files` builds runs of a toy game (Pig: pure Python, nothing to compile) as an interrupted ``simulate`` leaves
them: their parts and manifest, other runs' chunks copied in, damaged chunks and manifests, and a lock held by
"another writer" (released when the test ends).  Every run is the one :attr:`InterruptedRuns.ARGS` names on the
command line (:meth:`InterruptedRuns.run_args`), so that ``--resume`` of it is the original command.

`result_files` builds small Pig result files for the tests of reading several files (tests/result_files.py): runs
of one seed, copies, files with a run id in their metadata, and damaged files of every kind.  The tests that need
a seat compensation or ``rescore`` (which Pig has not) play Citywright's in tests/citywright (its conftest.py).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from boardlab.experiments import simulate as S
from tests.result_files import ResultFiles


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


@pytest.fixture(scope="session")
def _result_sources(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("result-sources")


@pytest.fixture
def result_files(_result_sources) -> ResultFiles:
    """Small Pig result files (:class:`tests.result_files.ResultFiles`: random against random, or against
    random-prefers:hold), each source run played once per session."""
    return ResultFiles(_result_sources, "pig", "standard", "random", "random-prefers:hold")


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
