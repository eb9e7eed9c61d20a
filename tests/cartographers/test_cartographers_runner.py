"""Cartographers' chunk player (experiments/cartographers_runner.py) and agent registry: each row is the
game the public API plays from the same seed with the random policy, column for column."""

from __future__ import annotations

import math

import pytest

from boardlab.agents.cartographers.registry import AgentError, parse_agent, split_specs
from boardlab.experiments.cartographers.runner import play_chunk
from boardlab.sim.cartographers.api import Game
from boardlab.sim.cartographers.game import EDICT_KEYS, RESULT_COLUMNS, SEASON_KEYS
from boardlab.sim.cartographers.rules import load_rules


@pytest.mark.parametrize(("players", "side"), [(1, "base-a"), (2, "base-b"), (5, "base-a")])
def test_rows_are_the_api_games(players, side):
    rules = load_rules(side)
    df = play_chunk(rules, players, [parse_agent("random")] * players, "rotate", 99, 3, 9)
    assert tuple(df.columns) == RESULT_COLUMNS and len(df) == 6 * players
    assert list(df["game"].unique()) == list(range(3, 9))
    for seed, rows in df.groupby("game_seed", sort=False):
        g = Game(players, rules, int(seed))
        while not g.done:
            g.apply(g.random_move())
        snap, scores = g.snapshot(), g.scores()
        for p, row in enumerate(rows.itertuples(index=False)):
            sc = scores[p]
            assert row.seat == p + 1 and row.side == side[-1].upper()
            assert [getattr(row, f"card_{e}") for e in EDICT_KEYS] == snap["edicts"]
            seasons = [(getattr(row, f"{s}_e1"), getattr(row, f"{s}_e2")) for s in SEASON_KEYS]
            assert seasons == [(r["e1"], r["e2"]) for r in snap["seasons"][p]]
            assert [getattr(row, f"points_{e}") for e in EDICT_KEYS] == sc["edicts"]
            assert (row.edict_points, row.coin_points, row.monster_penalty) == (
                sc["edict_points"],
                sc["coin_points"],
                sc["monster_penalty"],
            )
            assert row.coins == snap["coins"][p]
            assert (row.total, row.rank, row.win_share, row.win) == (
                sc["total"],
                sc["rank"],
                sc["win_share"],
                sc["rank"] == 1,
            )
            if players == 1:
                assert row.rating == sc["rating"] and row.title == (sc["title"] or "")
            else:
                assert math.isnan(row.rating) and row.title == ""
            assert row.grid == snap["grids"][p]


def test_agent_specs():
    assert str(parse_agent(" Random ")) == "random"
    assert split_specs("random,random") == ["random", "random"]
    for bad in ("", "nosuch", "random:x=1", "greedy:ambush=kind"):
        with pytest.raises(AgentError):
            parse_agent(bad)
