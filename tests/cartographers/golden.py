"""Golden games of Cartographers: fingerprints that pin down every built-in agent's moves, tier by tier.

The committed results (``results/cartographers/``) were played by the agents as they are now.  A kernel
change that alters any move -- even which of two equally good draws is kept, since ties are broken by the
game's policy stream -- silently changes every game after it, and the committed figures no longer come
from the code.  As Citywright's (tests/citywright/golden.py), each set is a few seeded games of fixed
agents, and per game it stores:

* ``totals``: the seats' final totals;
* ``rows``: a digest of the chunk player's every result column for the game (what ``simulate`` writes:
  edicts, season records, coins, rank, rating and title, the final maps);
* ``moves``: a digest of the full move log, every decision in order as move text (``Move.__str__``: the
  draws with their card, option, rotation, cells and terrain, and the monster placements), played move by
  move through the public API with the agents' own kernel (``policy_move``, by its address: ``policy_entry``),
  which must end in the same totals as the chunk player's batch loop.

Cartographers has no move log part (``simulate --moves``), so the log is replayed here from the game seeds
and seating the chunk player uses.  The sets cover every built-in agent and tier -- random, greedy,
planner, strong, expert -- both ambush policies, every player count, both map sides, the strong and expert
levers, and a variant of the interpretation keys.

The sets are declared once in ``GOLDEN`` (the shared helper ``boardlab.testing.Golden``;
``docs/guides/project.md``, "Golden games").  If a change of moves is intended (a new rule, a better search,
new weights), regenerate the committed results (``boardlab reproduce --game cartographers``, and ``--skill``;
see README) and then this file's data (fingerprints: ``boardlab.testing.digest``)::

    python -m boardlab.testing.golden tests.cartographers.golden --update
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from boardlab.agents.cartographers.play import policy_entry
from boardlab.agents.cartographers.registry import parse_agent, rows, split_specs
from boardlab.agents.cartographers.strong import STRONG_WEIGHTS, workspace
from boardlab.experiments.cartographers.runner import chunk_table
from boardlab.experiments.seating import seat_orders
from boardlab.sim.cartographers import engine as E
from boardlab.sim.cartographers.api import Game
from boardlab.sim.cartographers.rules import load_rules
from boardlab.sim.seeds import game_seeds
from boardlab.testing import Golden, GoldenSet
from boardlab.testing import digest as _digest


def rules_named(name: str):
    if name == "base-b-other":  # the other reading of every interpretation key that changes play
        return load_rules("base-b").with_overrides(
            {
                "setup.edict_order": "category",
                "draw.fallback_from": "card",
                "ambush.pass_clockwise_to": "previous",
                "coins.mountain_to_owner": False,
                "scoring.stoneside_forest.link": "any",
                "scoring.shieldgate.second": "distinct",
                "solo.walk": "side",
            }
        )
    return load_rules(name)


def _seats(s: GoldenSet):
    specs = [parse_agent(a) for a in split_specs(s.agents)]
    if len(specs) == 1:
        specs = specs * s.players
    return rules_named(s.rules), s.players, specs, s.seating, s.seed, s.games


def move_logs(s: GoldenSet) -> tuple[list[list[str]], list[list[int]]]:
    """Every game of set `s` played move by move through the public API: its move texts and final totals."""
    rules, players, specs, seating, seed, games = _seats(s)
    seeds = game_seeds(seed, 0, games)
    prms = rows(specs)[seat_orders(players, seating, 0, games, pool=len(specs), seeds=seeds)]
    vw, ws = np.array(STRONG_WEIGHTS, dtype=np.float64), workspace()  # one of each for the batch, as run_games
    logs, totals = [], []
    for g in range(games):
        game = Game(players, rules, int(seeds[g]))
        args = game.tables.kernel_args()
        mv = np.zeros(E.MV_LEN, dtype=np.int32)
        log = []
        while not game.done:
            policy_entry((*args, vw, ws))(game.bb, game.st, game.rng, mv, prms[g, game.current], *args, vw, ws)
            log.append(f"{game.current}:{game.decode(mv)}")
            E.apply_move(game.bb, game.st, game.rng, mv, *args)
        logs.append(log)
        totals.append([s["total"] for s in game.scores()])
    return logs, totals


def play(s: GoldenSet) -> pd.DataFrame:
    """One row per game of set `s`: the seats' totals, a digest of its result rows and of its move log.
    AssertionError if the move-by-move replay does not end where the chunk player's batch loop does."""
    rules, players, specs, seating, seed, games = _seats(s)
    df = chunk_table(rules, players, specs, seating, seed, 0, games).to_pandas()
    logs, api_totals = move_logs(s)
    out = []
    for g, sub in df.groupby("game", sort=True):
        totals = [int(t) for t in sub["total"]]
        assert totals == api_totals[g], f"{s} game {g}: chunk player totals {totals}, move by move {api_totals[g]}"
        out.append(
            {
                "game": int(g),
                "totals": " ".join(map(str, totals)),
                "rows": _digest(sub.drop(columns=["rules"]).to_csv(index=False)),
                "moves": _digest("\n".join(logs[g])),
                "decisions": len(logs[g]),
            }
        )
    return pd.DataFrame(out)


# (rules, players, agents, seating, run seed, games)
GOLDEN = Golden(
    game="cartographers",
    path=Path(__file__).parent / "data" / "golden_games.csv",
    module="tests.cartographers.golden",
    play=play,
    regenerate="Regenerate results/cartographers*/ (`boardlab reproduce --game cartographers`, and `--skill`)",
    sets={
        "random-4p": GoldenSet("base-a", 4, "random,random,random,random", "fixed", 201, 20),
        "random-5p-b": GoldenSet("base-b", 5, "random", "fixed", 202, 4),
        "greedy-4p": GoldenSet("base-a", 4, "greedy,greedy,greedy,greedy", "fixed", 203, 12),
        "greedy-solo-b": GoldenSet("base-b", 1, "greedy", "fixed", 204, 6),
        "mixed-3p": GoldenSet("base-a", 3, "greedy:ambush=random,planner,random", "rotate", 205, 6),
        "planner-2p": GoldenSet("base-a", 2, "planner,planner:ambush=random", "rotate", 206, 6),
        "planner-solo": GoldenSet("base-a", 1, "planner", "fixed", 207, 16),
        "interpretations-3p": GoldenSet("base-b-other", 3, "planner,greedy,random", "rotate", 208, 4),
        "interpretations-solo": GoldenSet("base-b-other", 1, "planner", "fixed", 209, 4),
        # the strong tier (its moves also pin the committed weights strong-v1) and its levers
        "strong-4p": GoldenSet("base-a", 4, "strong,planner,strong:k=8,margin=2,greedy", "rotate", 210, 8),
        "strong-solo": GoldenSet("base-a", 1, "strong", "fixed", 211, 10),
        "strong-2p-b": GoldenSet("base-b", 2, "strong:ambush=random,strong", "rotate", 212, 4),
        # the expert tier (determinised flat Monte Carlo) and its levers
        "expert-solo": GoldenSet("base-a", 1, "expert", "fixed", 213, 6),
        "expert-2p": GoldenSet("base-a", 2, "expert,strong", "rotate", 214, 4),
        "expert-levers-3p": GoldenSet(
            "base-b",
            3,
            "expert:budget=8,k=3,horizon=2,rollout_k=2,seats=all,planner,strong:ambush=random",
            "rotate",
            215,
            2,
        ),
    },
)

if __name__ == "__main__":
    raise SystemExit(GOLDEN.main())
