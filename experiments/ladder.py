"""The agents' strength ladder: pairings played with seats rotated, win shares with 95% intervals.

Each pairing is a table of agents (one per seat); seats rotate game by game so
every agent sits in every seat equally often.  An agent's win share is the
mean over its seats of the games' win shares (a k-way shared win counts 1/k),
with a Wilson 95% interval over the number of (game, seat) rows it played.
"""

from __future__ import annotations

import pandas as pd
from joblib import Parallel, delayed

from agents.citywright.registry import parse_agent
from experiments.pipelines import win_share
from sim.citywright.rules import Rules, load_rules
from experiments.runner import play_chunk

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
    """Win share per agent with its Wilson interval, agents in the order they first sit (the pairing's order)."""
    order = list(dict.fromkeys(df["agent"]))
    return win_share(df, "agent").set_index("agent").loc[order].reset_index()
