"""The expert tier's levers, measured: ``python -m experiments.citywright.expert_levers SPEC [SPEC ...]``.

Each spec plays one seat against ``--opponent`` in every other seat (default: 3 greedy, 4
players), seats rotated (game g puts it in seat g mod N), on the same game seeds for every
spec.  Per spec: its CPU time per own move (process CPU time around each of its moves, so
other work on the machine does not count; mean, 95th percentile and max over every move of
every game), its win share with a Wilson 95% interval, and its mean score margin over the
best opponent.  Games run in ``--jobs`` worker processes, each warmed up first.  One CSV row
per spec is appended to ``--out``; docs/search.md ("The expert") quotes these tables.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pandas as pd

from sim.seeds import game_seeds
from sim.stats import wilson


def _chunk(spec, opponent, players, rules_name, seeds, seats):
    from experiments.citywright.bench import timed_games

    timed_games(spec, opponent, players, rules_name, seeds[:1], seats[:1])  # warm-up (compile or load)
    return timed_games(spec, opponent, players, rules_name, seeds, seats)


def measure(
    spec: str,
    games: int,
    opponent: str = "greedy",
    players: int = 4,
    rules_name: str = "v1.1",
    seed: int = 11,
    jobs: int = 2,
) -> dict:
    """One row of the levers table (see the module docstring)."""
    from joblib import Parallel, delayed

    seeds = game_seeds(seed, 0, games)
    seats = np.arange(games) % players
    parts = np.array_split(np.arange(games), max(1, min(jobs, games)))
    res = Parallel(n_jobs=jobs)(
        delayed(_chunk)(spec, opponent, players, rules_name, seeds[i], seats[i]) for i in parts if len(i)
    )
    times = np.concatenate([r[0] for r in res])
    shares = np.concatenate([r[1] for r in res])
    margins = np.concatenate([r[2] for r in res])
    lo, hi = wilson(shares.sum(), games)
    measure.last = {"times": times, "shares": shares, "margins": margins}  # per game, for paired comparisons
    return {
        "spec": spec,
        "opponent": opponent,
        "players": players,
        "games": games,
        "seed": seed,
        "ms_per_move_mean": round(float(times.mean()), 2),
        "ms_per_move_p95": round(float(np.percentile(times, 95)), 2),
        "ms_per_move_max": round(float(times.max()), 2),
        "win_share": round(float(shares.mean()), 4),
        "lo": round(lo, 4),
        "hi": round(hi, 4),
        "margin_mean": round(float(margins.mean()), 2),
        "margin_se": round(float(margins.std(ddof=1) / np.sqrt(games)), 2) if games > 1 else 0.0,
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("specs", nargs="+")
    ap.add_argument("--games", type=int, default=400)
    ap.add_argument("--opponent", default="greedy")
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--rules", default="v1.1")
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--out", type=Path, default=Path("runs/expert_levers.csv"))
    a = ap.parse_args(argv)
    for spec in a.specs:
        t = time.perf_counter()
        row = measure(spec, a.games, a.opponent, a.players, a.rules, a.seed, a.jobs)
        row["wall_s"] = round(time.perf_counter() - t, 1)
        a.out.parent.mkdir(parents=True, exist_ok=True)
        df = pd.DataFrame([row])
        df.to_csv(a.out, mode="a", header=not a.out.exists(), index=False)
        per_game = a.out.with_suffix("")
        per_game.mkdir(exist_ok=True)
        np.savez(per_game / f"{spec.replace(':', '_').replace(',', '_')}-{a.games}-{a.seed}.npz", **measure.last)
        print(
            f"{spec}: {row['ms_per_move_mean']} ms/move (p95 {row['ms_per_move_p95']}, max {row['ms_per_move_max']}), "
            f"win {100 * row['win_share']:.1f}% [{100 * row['lo']:.1f}, {100 * row['hi']:.1f}] of {a.games}, "
            f"margin {row['margin_mean']} ± {row['margin_se']}",
            flush=True,
        )


if __name__ == "__main__":
    main()
