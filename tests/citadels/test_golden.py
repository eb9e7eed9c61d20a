"""Citadels' built-in agents still play the committed games move for move, every tier (see tests/citadels/golden.py).

Regenerate after an intended change of moves: ``python -m tests.citadels.golden --update``.
"""

from __future__ import annotations

import pandas as pd
import pytest

from boardlab.testing import compare_fingerprints
from tests.citadels import golden as G

REGENERATE = (
    "If the change of moves is intended, regenerate results/citadels*/ and then "
    "`python -m tests.citadels.golden --update` (see tests/citadels/golden.py)."
)


@pytest.fixture(scope="module")
def committed() -> pd.DataFrame:
    return pd.read_csv(G.GAMES_PATH, dtype={"totals": str, "rows": str})


def test_every_set_is_committed_and_every_tier_has_one(committed):
    assert list(committed["set"].unique()) == list(G.SETS)
    assert committed.groupby("set", sort=False).size().to_dict() == {k: v[-1] for k, v in G.SETS.items()}
    played = {s.split(":")[0] for _, _, agents, *_ in G.SETS.values() for s in G.split_specs(agents)}
    assert {"random", "basic", "strong", "expert"} <= played


@pytest.mark.parametrize("name", list(G.SETS))
def test_games_unchanged(name, committed):
    compare_fingerprints(name, G.play(name), committed[committed["set"] == name], ("totals", "rows"), REGENERATE)


@pytest.mark.parametrize("change", ["seed", "agent"])
def test_the_fingerprint_sees_a_change_of_moves(monkeypatch, committed, change):
    rules, players, agents, seating, seed, games = G.SETS["basic-4p"]
    if change == "seed":
        seed += 1
    else:
        agents = "basic,basic,basic,basic:prefers=2"  # one seat always takes the Thief: other moves
    monkeypatch.setitem(G.SETS, "basic-4p", (rules, players, agents, seating, seed, games))
    with pytest.raises(AssertionError, match=r"basic-4p: \d+ of 16 games no longer play as committed"):
        compare_fingerprints("basic-4p", G.play("basic-4p"), committed[committed["set"] == "basic-4p"], ("rows",), "")
