"""The policies still play the committed games, move for move (see tests/golden.py)."""

from __future__ import annotations

import pandas as pd
import pytest
from golden import PATH, SETS, play


@pytest.fixture(scope="module")
def committed() -> pd.DataFrame:
    return pd.read_csv(PATH, dtype={"totals": str, "moves": str})


def test_every_set_is_committed(committed):
    assert list(committed["set"].unique()) == list(SETS)
    assert committed.groupby("set", sort=False).size().to_dict() == {k: v[-1] for k, v in SETS.items()}


@pytest.mark.parametrize("name", list(SETS))
def test_moves_unchanged(name, committed):
    want = committed[committed["set"] == name].reset_index(drop=True)
    got = play(name)
    changed = got.index[(got["moves"] != want["moves"]) | (got["totals"] != want["totals"])].tolist()
    assert not changed, (
        f"{name}: games {changed} no longer play as committed (first: totals {got['totals'][changed[0]]!r}, "
        f"committed {want['totals'][changed[0]]!r}). If the change of moves is intended, regenerate results/ "
        "and then `python -m tests.golden --update` (see tests/golden.py)."
    )
