"""Interrupted runs for the tests of run identity: a run's parts and manifest as an interrupted ``simulate``
leaves them, other runs' chunks copied in, damaged chunks and manifests, and a lock held by "another writer".

Every run here is the one :data:`ARGS` names on the command line (`run_args`), so that ``--resume`` of it is
the original command.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from boardlab.experiments import simulate as S

PLAYERS, GAMES, SEED, CHUNK = 2, 40, 5, 10
ARGS = ["--players", PLAYERS, "--agents", "random", "--games", GAMES, "--seed", SEED, "--chunk-size", CHUNK]


def spec() -> S.RunSpec:
    """The run of ARGS (Citywright's default rules)."""
    from boardlab.sim.games import get_game

    g = get_game("citywright")
    return S.make_spec(PLAYERS, ["random"], GAMES, SEED, g.load_rules(g.default_preset), "rotate", CHUNK, game=g)


def run_args(out: Path, *more) -> list:
    """`simulate` of ARGS into `out`."""
    return ["simulate", *ARGS, "--out", out, "--quiet", *more]


def interrupted(out: Path, chunks=(0, 1)) -> S.RunPaths:
    """A run of ARGS at `out` stopped with `chunks` written: its manifest and stamped parts."""
    paths = S.RunPaths(Path(out))
    manifest = S.prepare(spec(), paths, resume=False, force=False)
    for i in chunks:
        _, table, _ = S.run_chunk(spec(), i)
        S._atomic_write_table(table, paths.chunk(i), manifest[S.RUN_ID])
    return paths


def run_id(paths: S.RunPaths) -> str:
    return S.read_manifest(paths)[S.RUN_ID]


def with_foreign_chunk(d: Path, i: int = 2) -> S.RunPaths:
    """``d/r.parquet``, interrupted after chunks 0 and 1, with chunk `i` of another run of the same command
    (``d/other.parquet``) copied into its parts."""
    paths = interrupted(d / "r.parquet")
    other = interrupted(d / "other.parquet", chunks=(i,))
    shutil.copyfile(other.chunk(i), paths.chunk(i))
    return paths


def with_truncated_chunk(d: Path, i: int = 1) -> S.RunPaths:
    """``d/r.parquet``, interrupted after chunks 0 and 1, chunk `i` cut to half its bytes."""
    paths = interrupted(d / "r.parquet")
    data = paths.chunk(i).read_bytes()
    paths.chunk(i).write_bytes(data[: len(data) // 2])
    return paths


def with_manifest(d: Path, text: str) -> S.RunPaths:
    """``d/r.parquet``, interrupted after chunks 0 and 1, its run.json replaced by `text`."""
    paths = interrupted(d / "r.parquet")
    paths.manifest.write_text(text)
    return paths


HELD: dict[Path, int] = {}


def hold_lock(out: Path) -> Path:
    """Take `out`'s writer lock as another writer would (boardlab.experiments.simulate's own helper) and keep it
    until `release`."""
    HELD[Path(out)] = S._lock(S.RunPaths(Path(out)))
    return Path(out)


def release(out: Path) -> None:
    os.close(HELD.pop(Path(out)))


def snapshot(d: Path) -> dict:
    """Every file under `d`: (size, mtime in ns, inode), to show that nothing was touched."""
    return {
        str(p.relative_to(d)): (st.st_size, st.st_mtime_ns, st.st_ino)
        for p in sorted(Path(d).rglob("*"))
        for st in [p.stat()]
    }
