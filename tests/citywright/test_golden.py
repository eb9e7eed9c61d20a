"""The built-in policies still play the committed games and searches, move for move (see tests/citywright/golden.py)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from boardlab.testing import compare_fingerprints
from tests.citywright.golden import GAMES_PATH, SEARCH_PATH, SEARCH_RULES, SETS, play, search_digest

REGENERATE = (
    "If the change of moves is intended, regenerate results/ and then "
    "`python -m tests.citywright.golden --update` (see tests/citywright/golden.py)."
)


@pytest.fixture(scope="module")
def committed() -> pd.DataFrame:
    return pd.read_csv(GAMES_PATH, dtype={"totals": str, "moves": str})


def test_every_set_is_committed(committed):
    assert list(committed["set"].unique()) == list(SETS)
    assert committed.groupby("set", sort=False).size().to_dict() == {k: v[-1] for k, v in SETS.items()}
    assert sorted(json.loads(SEARCH_PATH.read_text())) == sorted(SEARCH_RULES)


@pytest.mark.parametrize("name", list(SETS))
def test_games_unchanged(name, committed):
    compare_fingerprints(name, play(name), committed[committed["set"] == name], ("totals", "moves"), REGENERATE)


def test_the_fingerprint_sees_a_change_of_moves(monkeypatch, committed):
    rules, players, agents, seating, seed, games = SETS["greedy-P-2p"]
    monkeypatch.setitem(SETS, "greedy-P-2p", (rules, players, agents, seating, seed + 1, games))  # another seed
    with pytest.raises(AssertionError, match=r"greedy-P-2p: .* games no longer play as committed"):
        compare_fingerprints(
            "greedy-P-2p", play("greedy-P-2p"), committed[committed["set"] == "greedy-P-2p"], ("moves",), ""
        )


@pytest.mark.parametrize("rules_name", SEARCH_RULES)
def test_searches_unchanged(rules_name):
    want = json.loads(SEARCH_PATH.read_text())[rules_name]
    got = search_digest(rules_name)
    assert got == want, (
        f"{rules_name}: evaluator_search gives other worths, moves, candidate lists or random draws on the "
        f"fixed positions (digest {got}, committed {want}). {REGENERATE}"
    )
