"""The built-in policies still play the committed games and searches, move for move (see tests/citywright/golden.py)."""

from __future__ import annotations

import dataclasses

import pytest

from tests.citywright.golden import GOLDEN, SEARCH_RULES


def test_every_set_is_committed():
    GOLDEN.check_committed()
    assert sorted(GOLDEN.digests) == sorted(SEARCH_RULES)


@pytest.mark.parametrize("name", list(GOLDEN.sets))
def test_games_unchanged(name):
    GOLDEN.check(name)


def test_the_fingerprint_sees_a_change_of_moves(monkeypatch):
    s = GOLDEN.sets["greedy-P-2p"]
    monkeypatch.setitem(GOLDEN.sets, "greedy-P-2p", dataclasses.replace(s, seed=s.seed + 1))  # another seed
    with pytest.raises(AssertionError, match=r"citywright greedy-P-2p: .* games no longer play as committed"):
        GOLDEN.check("greedy-P-2p")


@pytest.mark.parametrize("rules_name", SEARCH_RULES)
def test_searches_unchanged(rules_name):
    GOLDEN.check_digest(rules_name)
