"""Golden games: fingerprints of fixed games that pin down every policy's moves.

The committed results (``results/``) were played by the policies as they are now.
A kernel change that alters any move -- even which of two equally good moves is
kept, since ties are broken by the game's random stream -- silently changes every
game after it, and the committed figures no longer come from the code.  The
fingerprints here catch that: `tests/test_golden.py` replays these games and
compares each game's full move log and final totals with the committed file.

If a change of moves is intended (a new rule, a better search), regenerate the
committed results (`make reproduce-full`, the ladder and the sweep; see README)
and then this file::

    python -m tests.golden --update
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pandas as pd

from agents.registry import parse_agent, split_specs
from sim.rules import from_mapping, load_rules
from sim.runner import play_chunk_with_moves

PATH = Path(__file__).parent / "data" / "golden_games.csv"

# name: (rules, players, agents, seating, run seed, games) -- every policy, player count,
# rule version, the swap, a depleting market and extra board achievements
SETS: dict[str, tuple[str, int, str, str, int, int]] = {
    "random-4p": ("v1.1", 4, "random,random,random,random", "fixed", 101, 60),
    "greedy-4p": ("v1.1", 4, "greedy,greedy,greedy,greedy", "fixed", 102, 30),
    "specialists-4p": ("v1.1", 4, "specialist:R,specialist:C,specialist:P,specialist:I", "rotate", 103, 40),
    "greedy-P-2p": ("v1.1", 2, "greedy,specialist:P", "rotate", 104, 30),
    "mixed-3p": ("v1.1", 3, "greedy,specialist:I,random", "rotate", 105, 24),
    "solo": ("v1.1", 1, "greedy", "fixed", 106, 20),
    "v1.0-2p": ("v1.0", 2, "greedy,specialist:R", "rotate", 107, 20),
    "depletes-4p": ("v1.0-depletes", 4, "greedy,specialist:C,greedy,specialist:C", "rotate", 108, 12),
    "achievements-4p": ("v1.1-extra-cards", 4, "greedy,specialist:R,specialist:C,specialist:I", "rotate", 109, 12),
    "mcts-2p": ("v1.1", 2, "mcts:iters=40,k=6,greedy", "rotate", 110, 4),
}


def rules_named(name: str):
    if name == "v1.0-depletes":
        return from_mapping({"name": name, "game": {"market_depletes": True}}, base="v1.0")
    if name == "v1.1-extra-cards":
        cards = {
            "many-R": {"kind": "district_count", "district": "R", "threshold": 12, "points": 5},
            "full-line": {"kind": "full_line", "district": "any", "points": 3},
            "no-empty": {"kind": "no_empty", "points": 6},
            "two-O": {"kind": "shape_count", "shape": "O", "threshold": 2, "points": 2},
        }
        return from_mapping({"name": name, "achievements": {"cards": cards}}, base="v1.1")
    return load_rules(name)


def play(name: str) -> pd.DataFrame:
    """One row per game of set `name`: the seats' totals and a digest of the whole move log."""
    rules, players, agents, seating, seed, games = SETS[name]
    specs = [parse_agent(a) for a in split_specs(agents)]
    df, logs = play_chunk_with_moves(rules_named(rules), players, specs, seating, seed, 0, games)
    totals = df.groupby("game", sort=True)["total"].apply(lambda s: " ".join(map(str, s)))
    digests = [hashlib.sha256(logs[g].tobytes()).hexdigest()[:16] for g in range(games)]
    return pd.DataFrame({"set": name, "game": range(games), "totals": totals.to_numpy(), "moves": digests})


def play_all() -> pd.DataFrame:
    return pd.concat([play(name) for name in SETS], ignore_index=True)


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit("usage: python -m tests.golden --update   (rewrites " + str(PATH) + ")")
    PATH.parent.mkdir(parents=True, exist_ok=True)
    play_all().to_csv(PATH, index=False)
    print(f"wrote {PATH}")
