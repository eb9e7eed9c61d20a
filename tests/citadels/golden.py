"""Golden games of Citadels: fingerprints that pin down every built-in agent's moves, tier by tier.

The committed results (``results/citadels*/``) were played by the agents as they are now.  A kernel change
that alters any move silently changes every game after it, and the committed figures no longer come from
the code.  As Citywright's and Cartographers' (``tests/citywright/golden.py``, ``tests/cartographers/golden.py``),
each set is a few seeded games of fixed agents, fingerprinted by the shared helper
``boardlab.testing.chunk_fingerprints``; per game it stores:

* ``totals``: the seats' final totals;
* ``rows``: a digest (``boardlab.testing.digest``) of the chunk player's every result column for the game
  (what ``simulate`` writes: scores, ranks, gold, characters taken, rounds).

The sets cover every built-in agent -- random, basic, strong, expert and the specialists (``prefers``) --
every player count of the official rules, and the other preset.

If a change of moves is intended (a new rule, a better search, new weights), regenerate the committed
results (``boardlab reproduce --game citadels``; see README) and then this file's data::

    python -m tests.citadels.golden --update
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd

from boardlab.agents.citadels.registry import split_specs
from boardlab.testing import chunk_fingerprints

GAMES_PATH = Path(__file__).parent / "data" / "golden_games.csv"

# name: (rules, players, agents, seating, run seed, games)
SETS: dict[str, tuple[str, int, str, str, int, int]] = {
    "random-2p": ("official", 2, "random,random", "fixed", 301, 20),
    "random-7p": ("official", 7, "random", "fixed", 302, 10),
    "basic-4p": ("official", 4, "basic,basic,basic,basic", "fixed", 303, 16),
    "basic-prefers-3p": ("official", 3, "basic:prefers=4,basic:prefers=6,random", "rotate", 304, 10),
    "seed-summary-5p": ("seed-summary", 5, "basic,random,basic,random,basic", "rotate", 305, 8),
    "strong-4p": ("official", 4, "strong,basic,strong:prefers=7,random", "rotate", 306, 8),
    "expert-3p": ("official", 3, "expert:budget=16,k=3,basic,strong", "rotate", 307, 2),
}


def play(name: str) -> pd.DataFrame:
    """One row per game of set `name`: the seats' totals and a digest of its result rows."""
    rules, players, agents, seating, seed, games = SETS[name]
    df = chunk_fingerprints("citadels", rules, players, split_specs(agents), seating, seed, games)
    return pd.concat([pd.DataFrame({"set": [name] * len(df)}), df], axis=1)


def play_all() -> pd.DataFrame:
    return pd.concat([play(name) for name in SETS], ignore_index=True)


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit(f"usage: python -m tests.citadels.golden --update   (rewrites {GAMES_PATH})")
    GAMES_PATH.parent.mkdir(parents=True, exist_ok=True)
    play_all().to_csv(GAMES_PATH, index=False)
    print(f"wrote {GAMES_PATH}")
