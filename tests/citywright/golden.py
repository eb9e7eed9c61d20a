"""Golden games and searches: fingerprints that pin down the built-in policies' moves.

The committed results (``results/``) were played by the policies as they are now.
A kernel change that alters any move -- even which of two equally good moves is
kept, since ties are broken by the game's random stream -- silently changes every
game after it, and the committed figures no longer come from the code.  Two kinds
of fingerprint catch that (`tests/citywright/test_golden.py`):

* **games**: fixed games of every built-in agent; per game, the seats' totals and
  a digest of the full move log;
* **searches**: `evaluator_search` on fixed positions from random play, under
  several rule sets and parameter rows (pruned and unpruned, best move only and
  the k best); per rule set, one digest of every output: worth, move, the k best
  and their worths, and the random state afterwards.  This also pins worths
  that do not flip a move.

Both are declared once in ``GOLDEN`` (the shared helper ``boardlab.testing.Golden``;
``docs/guides/project.md``, "Golden games").  If a change of moves is intended (a new
rule, a better search), regenerate the committed results (`make reproduce-full`, the
ladder and the sweep; see README) and then these files (fingerprints:
``boardlab.testing.digest``)::

    python -m boardlab.testing.golden tests.citywright.golden --update
"""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pandas as pd

from boardlab.agents.citywright import kernels as K
from boardlab.agents.citywright.registry import EXPERT_LEVERS, EXPERT_V1, parse_agent, split_specs
from boardlab.experiments.citywright.runner import play_chunk_with_moves
from boardlab.sim.citywright import engine as E
from boardlab.sim.citywright.api import Game
from boardlab.sim.citywright.rules import load_rules
from boardlab.testing import Golden, GoldenSet
from boardlab.testing import digest as _digest

# evaluator_search fingerprints: positions per rule set, and the parameter rows searched
SEARCH_RULES = ("v1.1", "v1.0", "v1.0-depletes", "v1.1-depletes", "v1.1-extra-cards")
SEARCH_POSITIONS = 150
SEARCH_AGENTS = (
    "greedy",
    "specialist:R",
    "specialist:C",
    "specialist:P",
    "specialist:I",
    "specialist:C,weight=10,progress=2",
    "specialist:P,weight=0.3,progress=0.1",
)


def rules_named(name: str):
    if name.endswith("-depletes"):
        return load_rules(name.removesuffix("-depletes")).with_overrides({"game.market_depletes": True})
    if name == "v1.1-extra-cards":
        return load_rules("v1.1").with_overrides(
            {
                "achievements.cards.many-R": {"kind": "district_count", "district": "R", "threshold": 12, "points": 5},
                "achievements.cards.full-line": {"kind": "full_line", "district": "any", "points": 3},
                "achievements.cards.no-empty": {"kind": "no_empty", "points": 6},
                "achievements.cards.two-O": {"kind": "shape_count", "shape": "O", "threshold": 2, "points": 2},
            }
        )
    return load_rules(name)


def play(s: GoldenSet) -> pd.DataFrame:
    """One row per game of set `s`: the seats' totals and a digest of the whole move log."""
    specs = [parse_agent(a) for a in split_specs(s.agents)]
    df, logs = play_chunk_with_moves(rules_named(s.rules), s.players, specs, s.seating, s.seed, 0, s.games)
    totals = df.groupby("game", sort=True)["total"].apply(lambda t: " ".join(map(str, t)))
    digests = [_digest(logs[g]) for g in range(s.games)]
    return pd.DataFrame({"game": range(s.games), "totals": totals.to_numpy(), "moves": digests})


def search_rows():
    """The parameter rows searched: SEARCH_AGENTS, plus greedy with a negative industrial weight
    (not prunable, so every placement is evaluated exactly)."""
    out = [parse_agent(s).row() for s in SEARCH_AGENTS]
    unpruned = parse_agent("greedy").row()
    unpruned[K.P_W + 3] = -1.0
    out.append(unpruned)
    return out


def search_digest(rules_name: str) -> str:
    """One digest of every evaluator_search output on SEARCH_POSITIONS positions of random play
    at 1-4 players, for each parameter row, keeping the best move only and the 6 best."""
    rules = rules_named(rules_name)
    rnd = random.Random(rules_name)
    rows = search_rows()
    mv = np.zeros(E.MV_LEN, dtype=np.int32)
    parts = []
    for _ in range(SEARCH_POSITIONS):
        players = rnd.randint(1, 4)
        g = Game(players, rules, rnd.getrandbits(63))
        for _ in range(rnd.randrange(0, 12 * players)):
            g.apply(g.random_move())
        tb = g.tables
        for prm in rows:
            for cap in (0, 6):
                rng = g.rng.copy()
                cand = np.zeros((cap, E.MV_LEN), dtype=np.int32)
                cand_val = np.zeros(cap, dtype=np.float64)
                mv[:] = 0
                best, ncand = K.evaluator_search(g.boards, g.st, rng, mv, prm, tb.kernel_args(), cand, cand_val)
                parts += [np.float64(best), np.int64(ncand), mv.copy(), rng, cand, cand_val]
    return _digest(*parts)


# every built-in agent and mcts option, every player count, both rule versions, the swap, a depleting market,
# extra cards; sets: (rules, players, agents, seating, run seed, games)
GOLDEN = Golden(
    game="citywright",
    path=Path(__file__).parent / "data" / "golden_games.csv",
    module="tests.citywright.golden",
    play=play,
    regenerate="Regenerate results/ (`make reproduce-full`, the ladder and the sweep; see README)",
    digests_path=Path(__file__).parent / "data" / "golden_search.json",
    digests={name: (lambda name=name: search_digest(name)) for name in SEARCH_RULES},
    sets={
        "random-4p": GoldenSet("v1.1", 4, "random,random,random,random", "fixed", 101, 60),
        "greedy-4p": GoldenSet("v1.1", 4, "greedy,greedy,greedy,greedy", "fixed", 102, 30),
        "specialists-4p": GoldenSet(
            "v1.1", 4, "specialist:R,specialist:C,specialist:P,specialist:I", "rotate", 103, 40
        ),
        "greedy-P-2p": GoldenSet("v1.1", 2, "greedy,specialist:P", "rotate", 104, 30),
        "mixed-3p": GoldenSet("v1.1", 3, "greedy,specialist:I,random", "rotate", 105, 24),
        "solo": GoldenSet("v1.1", 1, "greedy", "fixed", 106, 20),
        "v1.0-2p": GoldenSet("v1.0", 2, "greedy,specialist:R", "rotate", 107, 20),
        "depletes-4p": GoldenSet("v1.0-depletes", 4, "greedy,specialist:C,greedy,specialist:C", "rotate", 108, 12),
        "achievements-4p": GoldenSet(
            "v1.1-extra-cards", 4, "greedy,specialist:R,specialist:C,specialist:I", "rotate", 109, 12
        ),
        "mcts-2p": GoldenSet("v1.1", 2, "mcts:iters=40,k=6,greedy", "rotate", 110, 4),
        "mcts-margin-3p": GoldenSet("v1.1", 3, "mcts:iters=30,k=6,reward=margin,greedy,specialist:C", "rotate", 111, 3),
        "mcts-greedy-rollout-2p": GoldenSet("v1.1", 2, "mcts:iters=8,k=4,rollout=greedy,greedy", "rotate", 112, 2),
        "mcts-solo": GoldenSet("v1.1", 1, "mcts:iters=30,k=6,reward=margin", "fixed", 113, 3),
        # the strong tier and its specialists (their moves also pin the committed weights strong-v1)
        "strong-4p": GoldenSet("v1.1", 4, "strong,greedy,strong-specialist:C,strong-specialist:P", "rotate", 114, 8),
        "strong-2p": GoldenSet("v1.1", 2, "strong,strong-specialist:I", "rotate", 115, 6),
        "strong-v1.0-3p": GoldenSet("v1.0", 3, "strong,strong-specialist:R,greedy", "rotate", 116, 4),
        # the expert tier (flatmc) and its specialists, and flatmc's other levers
        "expert-4p": GoldenSet(
            "v1.1", 4, f"{EXPERT_V1},greedy,expert-specialist:C,strong", "rotate", 117, 2
        ),  # the tier before its levers
        "expert-fast-4p": GoldenSet(
            "v1.1", 4, f"expert,greedy,expert-specialist:C,{EXPERT_LEVERS},strong", "rotate", 120, 2
        ),
        "expert-2p": GoldenSet(
            "v1.1",
            2,
            "expert-specialist:I,flatmc:budget=6,k=3,horizon=1,turns=-1,own=greedy,rank=worth,leaf=points,per_slot=1",
            "rotate",
            118,
            2,
        ),
        "flatmc-solo": GoldenSet("v1.1", 1, "flatmc:budget=8,k=3,select=ucb,crn=off,memo=off,taper=1", "fixed", 119, 2),
    },
)

if __name__ == "__main__":
    raise SystemExit(GOLDEN.main())
