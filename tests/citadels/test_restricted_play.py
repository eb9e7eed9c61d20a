"""Citadels' own specialists in restricted play: a tier's agent with ``prefers`` set to the family's rank."""

from __future__ import annotations

import pytest

from boardlab.experiments import anatomy_report as AR
from boardlab.sim.citadels.rules import CHARACTERS
from boardlab.sim.games import get_game

GAME = get_game("citadels")
REG = GAME.agents()


@pytest.mark.parametrize("tier", ["basic", "strong", "expert"])
def test_a_tiers_specialist_prefers_the_familys_rank_and_keeps_every_other_parameter(tier):
    base = REG.parse_agent(REG.tiers[tier][0])
    for rank, character in enumerate(CHARACTERS, start=1):
        spec = AR.restricted_spec(REG.tiers[tier][0], character.name.lower(), GAME)
        parsed = REG.parse_agent(spec)
        assert parsed.name == base.name and parsed.params["prefers"] == rank
        assert {k: v for k, v in parsed.params.items() if k != "prefers"} == {
            k: v for k, v in base.params.items() if k != "prefers"
        }
        assert parsed.row()[:].tolist() != base.row().tolist()  # the kernels see the preference


def test_agents_without_a_preference_get_the_generic_form_or_none():
    assert AR.restricted_spec("random", "king", GAME) == "random-prefers:king"
    assert REG.restricted(REG.parse_agent("basic"), "jester") is None  # not a character


def test_the_plan_plays_the_first_and_last_tiers_specialists_of_every_character():
    runs = [r for r in AR.plan(GAME, 200) if r.kind == "restricted"]
    families = [c.name.lower() for c in CHARACTERS]
    assert [(r.tier, r.family) for r in runs] == [(t, f) for t in ("basic", "expert") for f in families]
    for r in runs:
        assert r.agents[1:] == (REG.tiers[r.tier][0],) and r.players == 2
        assert REG.parse_agent(r.agents[0]).params["prefers"] == families.index(r.family) + 1
    assert {r.games for r in runs if r.tier == "basic"} == {200} and {r.games for r in runs if r.tier == "expert"} == {
        20
    }


def test_the_report_names_the_preference_the_specialists_play():
    import pandas as pd

    said = AR.own_specialists(GAME, pd.DataFrame({"tier": ["basic", "expert"], "family": ["king", "king"]}))
    assert "basic: `basic` with prefers=4 for king" in said and "expert: `expert` with prefers=4 for king" in said
