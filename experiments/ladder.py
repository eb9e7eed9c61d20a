"""The agents' strength ladder: pairings played with seats rotated, win shares with 95% intervals.

Each pairing is a table of agents (one per seat); seats rotate game by game so
every agent sits in every seat equally often.  An agent's win share is the
mean over its seats of the games' win shares (a k-way shared win counts 1/k),
with a Wilson 95% interval over the number of (game, seat) rows it played.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pandas as pd
from joblib import Parallel, delayed

from experiments.pipelines import win_share
from sim.games import get_game

# Per game: (name, seats, the target win share of the first agent)
PAIRINGS = {
    "citywright": [
        ("greedy vs random, 2 players", ["greedy", "random"], 0.95),
        ("mcts vs greedy, 2 players", ["mcts", "greedy"], 0.60),
        ("mcts + 3 greedy, 4 players", ["mcts", "greedy", "greedy", "greedy"], 0.40),
    ]
}


def play_pairing(
    specs: list[str], games: int, seed: int = 0, rules=None, jobs: int = 1, chunk: int = 100, game: str = "citywright"
) -> pd.DataFrame:
    g = get_game(game)
    rules = rules if rules is not None else g.load_rules(g.default_preset)
    agents = [g.agents().parse_agent(s) for s in specs]
    bounds = [(a, min(a + chunk, games)) for a in range(0, games, chunk)]
    parts = Parallel(n_jobs=jobs)(
        delayed(g.play_chunk)(rules, len(agents), agents, "rotate", seed, a, b) for a, b in bounds
    )
    return pd.concat(parts, ignore_index=True)


def ladder(
    rules, games: int, seed: int = 0, jobs: int = 1, game: str = "citywright", log: Callable[[str], None] = print
) -> pd.DataFrame:
    """Every pairing of `game`: one row per (pairing, agent) with win share, interval and target; a line per pairing."""
    tables = []
    for name, specs, target in PAIRINGS[get_game(game).id]:
        t = time.perf_counter()
        ws = win_shares(play_pairing(specs, games, seed=seed, rules=rules, jobs=jobs, game=game))
        first = ws.iloc[0]
        verdict = "met" if first["win_share"] >= target else "NOT met"
        log(
            f"{name}: {first['agent']} win share {100 * first['win_share']:.1f}% "
            f"[95% Wilson {100 * first['lo']:.1f}, {100 * first['hi']:.1f}] over {first['n']} games "
            f"(target >= {100 * target:.0f}%: {verdict}; {time.perf_counter() - t:.0f} s)"
        )
        ws.insert(0, "pairing", name)
        ws["target"] = [target] + [float("nan")] * (len(ws) - 1)
        tables.append(ws)
    return pd.concat(tables, ignore_index=True)


def win_shares(df: pd.DataFrame) -> pd.DataFrame:
    """Win share per agent with its Wilson interval, agents in the order they first sit (the pairing's order)."""
    order = list(dict.fromkeys(df["agent"]))
    return win_share(df, "agent").set_index("agent").loc[order].reset_index()
