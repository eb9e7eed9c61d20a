"""The built-in policies still play the committed games and searches, move for move (see tests/citywright/golden.py)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

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
    want = committed[committed["set"] == name].reset_index(drop=True)
    got = play(name)
    assert len(got) == len(want), f"{name}: {len(got)} games played, {len(want)} committed"
    moves = got["moves"] != want["moves"]
    totals = got["totals"] != want["totals"]
    changed = got.index[moves | totals].tolist()
    if changed:
        g = changed[0]
        what = "totals and move log" if totals[g] else "move log only (same totals)"
        pytest.fail(
            f"{name}: {len(changed)} of {len(got)} games no longer play as committed, games {changed}. "
            f"Game {g}: {what}; totals {got['totals'][g]!r} (committed {want['totals'][g]!r}), "
            f"moves digest {got['moves'][g]} (committed {want['moves'][g]}). {REGENERATE}"
        )


@pytest.mark.parametrize("rules_name", SEARCH_RULES)
def test_searches_unchanged(rules_name):
    want = json.loads(SEARCH_PATH.read_text())[rules_name]
    got = search_digest(rules_name)
    assert got == want, (
        f"{rules_name}: evaluator_search gives other worths, moves, candidate lists or random draws on the "
        f"fixed positions (digest {got}, committed {want}). {REGENERATE}"
    )
