"""Cold compile seconds per game and tier, each measured in a private empty numba cache (``bench --compile``)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable


def cold_warmup(games: list[str], jobs: int) -> float:
    """Seconds ``boardlab warmup --tiers-only --game ... --jobs N`` takes in a subprocess with a fresh empty
    NUMBA_CACHE_DIR: the game loops of each game's default agents, tiers and ladder (the public API's per-move
    players, self-play and random agents alone, which the full warm-up compiles after them, are not timed).

    Parameters
    ----------
    games : list[str]
        Game ids.
    jobs : int
        Processes.

    Returns
    -------
    float
        Wall-clock seconds.
    """
    with tempfile.TemporaryDirectory(prefix="boardlab-compile-") as tmp:
        env = {**os.environ, "NUMBA_CACHE_DIR": tmp}
        cmd = [sys.executable, "-m", "boardlab.experiments.cli", "warmup", "--tiers-only", "--jobs", str(jobs)]
        for g in games:
            cmd += ["--game", g]
        t0 = time.perf_counter()
        subprocess.run(cmd, env=env, check=True, capture_output=True)
        return time.perf_counter() - t0


def run(games: list[str], log: Callable[[str], None]) -> dict[str, float]:
    """Cold compile seconds per game, one process and ``--jobs 2``.

    Parameters
    ----------
    games : list[str]
        Game ids.
    log : callable(str)
        Each figure as it comes.

    Returns
    -------
    dict[str, float]
        ``<game>_cold_compile_s`` and ``<game>_cold_compile_jobs2_s``.
    """
    out = {}
    for g in games:
        for jobs in (1, 2):
            key = f"{g}_cold_compile_s" if jobs == 1 else f"{g}_cold_compile_jobs2_s"
            out[key] = round(cold_warmup([g], jobs), 1)
            log(f"  {key}: {out[key]} s")
    return out
