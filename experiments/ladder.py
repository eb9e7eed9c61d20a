"""The agents' strength ladder: pairings played with seats rotated, win shares with 95% intervals.

Each pairing is a table of agents (one per seat); seats rotate game by game so
every agent sits in every seat equally often.  An agent's win share is the
mean over its seats of the games' win shares (a k-way shared win counts 1/k),
with a Wilson 95% interval over the number of (game, seat) rows it played.
"""

from __future__ import annotations

import pandas as pd
from joblib import Parallel, delayed

from agents.registry import parse_agent
from sim.rules import Rules, load_rules
from sim.runner import play_chunk
from sim.stats import wilson

# (name, seats, the claim being checked, the target win share of the first agent)
PAIRINGS = [
    ("greedy vs random, 2 players", ["greedy", "random"], 0.95),
    ("mcts vs greedy, 2 players", ["mcts", "greedy"], 0.60),
    ("mcts + 3 greedy, 4 players", ["mcts", "greedy", "greedy", "greedy"], 0.40),
]


def play_pairing(
    specs: list[str], games: int, seed: int = 0, rules: Rules | None = None, jobs: int = 1, chunk: int = 100
) -> pd.DataFrame:
    rules = rules or load_rules()
    agents = [parse_agent(s) for s in specs]
    bounds = [(a, min(a + chunk, games)) for a in range(0, games, chunk)]
    parts = Parallel(n_jobs=jobs)(
        delayed(play_chunk)(rules, len(agents), agents, "rotate", seed, a, b) for a, b in bounds
    )
    return pd.concat(parts, ignore_index=True)


def win_shares(df: pd.DataFrame) -> pd.DataFrame:
    g = df.groupby("agent", sort=False)["win_share"].agg(["sum", "count"])
    out = []
    for agent, row in g.iterrows():
        lo, hi = wilson(row["sum"], int(row["count"]))
        out.append({"agent": agent, "n": int(row["count"]), "win_share": row["sum"] / row["count"], "lo": lo, "hi": hi})
    return pd.DataFrame(out)
