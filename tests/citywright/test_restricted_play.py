"""Citywright's own specialists in restricted play: a tier's agent as the specialist of a district at its strength."""

from __future__ import annotations

import pytest

from boardlab.experiments import anatomy_report as AR
from boardlab.sim.games import get_game

GAME = get_game("citywright")
REG = GAME.agents()


@pytest.mark.parametrize(
    ("agent", "specialist"),
    [("greedy", "specialist"), ("strong", "strong-specialist"), ("expert", "expert-specialist")],
)
def test_a_tiers_specialist_keeps_the_agents_parameters_and_takes_the_district(agent, specialist):
    given = REG.tiers[agent][0] if agent in REG.tiers else agent
    base = REG.parse_agent(given)
    for district in "RCPI":
        parsed = REG.parse_agent(AR.restricted_spec(given, district, GAME))
        assert parsed.name == specialist
        assert parsed.params["district"] == "RCPI".index(district)  # the district as its index
        assert all(parsed.params[k] == v for k, v in base.params.items())


def test_agents_without_a_specialist_get_none():
    assert AR.restricted_spec("mcts:iters=10", "R", GAME) is None
    assert REG.restricted(REG.parse_agent("greedy"), "X") is None


def test_the_plan_plays_the_strong_and_expert_specialists():
    runs = [r for r in AR.plan(GAME, 200) if r.kind == "restricted"]
    assert [(r.tier, r.family, REG.parse_agent(r.agents[0]).name) for r in runs] == [
        *[("strong", d, "strong-specialist") for d in "RCPI"],
        *[("expert", d, "expert-specialist") for d in "RCPI"],
    ]


def test_the_report_finds_a_specialists_rows_under_the_spec_results_store(tmp_path):
    """strong-specialist's weights=auto is stored as the weights it played: the report looks its rows up so."""
    from boardlab.experiments import simulate as S

    rules = GAME.load_rules(GAME.default_preset)
    spec = AR.restricted_spec(REG.tiers["strong"][0], "P", GAME)
    run = S.make_spec(2, [spec, REG.tiers["strong"][0]], 4, 0, rules, chunk_size=4, game=GAME)
    _, table, _ = S.run_chunk(run, 0)
    agents = set(table.column("agent").to_pylist())
    assert AR.stored_spec(GAME, spec, rules) in agents and spec not in agents  # auto is not what is stored


def test_the_report_says_which_tiers_play_the_games_own_specialists():
    import pandas as pd

    table = pd.DataFrame({"tier": ["strong", "expert"], "family": ["R", "R"]})
    said = AR.own_specialists(GAME, table)
    assert "strong: `strong-specialist`" in said and "expert: `expert-specialist`" in said
    assert AR.own_specialists(get_game("pig"), pd.DataFrame({"tier": ["random"], "family": ["hold"]})) == ""
