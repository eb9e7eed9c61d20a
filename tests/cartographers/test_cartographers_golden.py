"""Cartographers' built-in agents still play the committed games move for move, every tier (see
tests/cartographers/golden.py)."""

from __future__ import annotations

import pandas as pd
import pytest

from boardlab.testing import compare_fingerprints
from tests.cartographers import golden as G

REGENERATE = (
    "If the change of moves is intended, regenerate results/cartographers*/ and then "
    "`python -m tests.cartographers.golden --update` (see tests/cartographers/golden.py)."
)


@pytest.fixture(scope="module")
def committed() -> pd.DataFrame:
    return pd.read_csv(G.GAMES_PATH, dtype={"totals": str, "rows": str, "moves": str})


def test_every_set_is_committed_and_every_tier_has_one(committed):
    assert list(committed["set"].unique()) == list(G.SETS)
    assert committed.groupby("set", sort=False).size().to_dict() == {k: v[-1] for k, v in G.SETS.items()}
    played = {s.split(":")[0] for _, _, agents, *_ in G.SETS.values() for s in agents.split(",") if "=" not in s}
    assert {"random", "greedy", "planner", "strong", "expert"} <= played


@pytest.mark.parametrize("name", list(G.SETS))
def test_games_unchanged(name, committed):
    got = G.play(name)  # also: the move-by-move replay ends in the chunk player's totals
    want = committed[committed["set"] == name]
    compare_fingerprints(name, got, want, ("totals", "rows", "moves", "decisions"), REGENERATE)


def test_the_fingerprint_sees_a_change_of_moves(monkeypatch):
    # the same seeds with the random ambush in place of the first seat's adversarial one: other monsters
    rules, players, _agents, seating, seed, games = G.SETS["planner-2p"]
    monkeypatch.setitem(G.SETS, "planner-2p", (rules, players, "planner:ambush=random", seating, seed, games))
    want = pd.read_csv(G.GAMES_PATH, dtype=str).query("set == 'planner-2p'").reset_index(drop=True)
    got = G.play("planner-2p")
    assert (got["moves"] != want["moves"]).any() and (got["rows"] != want["rows"]).any()
