"""Pig's agents still play the committed golden games (golden.py), through boardlab's shared helper."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from boardlab.testing import load_golden

GOLDEN = load_golden(str(Path(__file__).parent / "golden.py"))


def test_every_set_is_committed():
    GOLDEN.check_committed()


def test_every_player_count_has_a_set():
    assert {s.players for s in GOLDEN.sets.values()} == set(range(1, 7))


@pytest.mark.parametrize("name", list(GOLDEN.sets))
def test_games_unchanged(name):
    GOLDEN.check(name)


@pytest.mark.parametrize("change", ["seed", "agent", "rules"])
def test_the_fingerprint_sees_a_change_of_play(monkeypatch, change):
    s = GOLDEN.sets["random-2p"]
    other = {
        "seed": dataclasses.replace(s, seed=s.seed + 1),
        "agent": dataclasses.replace(s, agents="random,random-prefers:roll"),
        "rules": dataclasses.replace(s, rules="quick"),
    }[change]
    monkeypatch.setitem(GOLDEN.sets, "random-2p", other)
    with pytest.raises(AssertionError, match=r"pig random-2p: \d+ of 20 games no longer play as committed"):
        GOLDEN.check("random-2p")
