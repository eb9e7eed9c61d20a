"""Citadels' built-in agents still play the committed games move for move, every tier and player count (see
tests/citadels/golden.py).

Regenerate after an intended change of moves: ``python -m boardlab.testing.golden tests.citadels.golden --update``.
"""

from __future__ import annotations

import dataclasses

import pytest

from boardlab.agents.citadels.registry import TIERS, split_specs
from boardlab.sim.citadels.rules import load_rules
from tests.citadels.golden import GOLDEN


def test_every_set_is_committed():
    GOLDEN.check_committed()


def test_every_tier_and_player_count_has_a_set():
    specs = [a for s in GOLDEN.sets.values() for a in split_specs(s.agents)]
    assert set(TIERS) <= set(specs), "every tier by its name, as a ladder or reproduce seats it"
    assert {"random", "basic-prefers", "expert-prefers"} <= {a.split(":")[0] for a in specs}
    counts = {s.players for s in GOLDEN.sets.values()}
    for preset in ("official", "seed-summary"):  # 2-7, and 2-8
        assert set(load_rules(preset).players_allowed) <= counts, preset


@pytest.mark.parametrize("name", list(GOLDEN.sets))
def test_games_unchanged(name):
    GOLDEN.check(name)


@pytest.mark.parametrize("change", ["seed", "agent"])
def test_the_fingerprint_sees_a_change_of_moves(monkeypatch, change):
    s = GOLDEN.sets["basic-4p"]
    if change == "seed":
        s = dataclasses.replace(s, seed=s.seed + 1)
    else:
        s = dataclasses.replace(s, agents="basic,basic,basic,basic:prefers=2")  # one seat always takes the Thief
    monkeypatch.setitem(GOLDEN.sets, "basic-4p", s)
    with pytest.raises(AssertionError, match=r"citadels basic-4p: \d+ of 16 games no longer play as committed"):
        GOLDEN.check("basic-4p")
