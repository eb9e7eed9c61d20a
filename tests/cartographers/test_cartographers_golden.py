"""Cartographers' built-in agents still play the committed games move for move, every tier (see
tests/cartographers/golden.py)."""

from __future__ import annotations

import dataclasses

import pytest

from tests.cartographers.golden import GOLDEN


def test_every_set_is_committed_and_every_tier_has_one():
    GOLDEN.check_committed()
    played = {a.split(":")[0] for s in GOLDEN.sets.values() for a in s.agents.split(",") if "=" not in a}
    assert {"random", "greedy", "planner", "strong", "expert"} <= played


@pytest.mark.parametrize("name", list(GOLDEN.sets))
def test_games_unchanged(name):
    GOLDEN.check(name)  # also: the move-by-move replay ends in the chunk player's totals


def test_the_fingerprint_sees_a_change_of_moves():
    # the same seeds with the random ambush in place of the first seat's adversarial one: other monsters
    s = dataclasses.replace(GOLDEN.sets["planner-2p"], agents="planner:ambush=random")
    got = GOLDEN.play(s)
    want = GOLDEN.committed().query("set == 'planner-2p'").reset_index(drop=True)
    assert (got["moves"] != want["moves"]).any() and (got["rows"] != want["rows"]).any()
