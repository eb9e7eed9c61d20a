"""``boardlab warmup``'s tasks for Citadels: its default agents, then each skill tier's, or the agents given."""

from __future__ import annotations

from boardlab.experiments import warmup as W
from boardlab.sim.games import get_game


def test_tasks_are_each_game_and_tier_or_the_agents_given():
    g = get_game("citadels")
    tiers = g.require("skill_tiers")()
    assert W.tasks([g]) == [("citadels", None, None)] + [("citadels", t, [s]) for t, (s, _) in tiers.items()]
    assert W.tasks([g], ["random"]) == [("citadels", None, ["random"])]
