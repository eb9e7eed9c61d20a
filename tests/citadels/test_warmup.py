"""``boardlab warmup`` for Citadels: its tasks (its default agents, then each skill tier's, then the public API's
per-move players and self-play training; or the agents given), and
an agent its registry does not know refused in one line, nothing compiled."""

from __future__ import annotations

from boardlab.experiments import warmup as W
from boardlab.sim.games import get_game
from tests.cli import cli
from tests.core.test_warmup import private_cache

__all__ = ["private_cache"]  # the fixture: a private numba cache


def test_tasks_are_each_game_and_tier_or_the_agents_given():
    g = get_game("citadels")
    tiers = g.require("skill_tiers")()
    assert W.tasks([g]) == [("citadels", None, None)] + [("citadels", t, [s]) for t, (s, _) in tiers.items()] + [
        ("citadels", "api", None), ("citadels", "train", None),
    ]  # fmt: skip
    assert W.tasks([g], ["random"]) == [("citadels", None, ["random"])]


def test_warmup_of_an_unknown_agent_is_one_line(capsys, private_cache):
    code, _out, err = cli(capsys, "warmup", "--game", "citadels", "--agents", "nosuchagent")
    assert code == 2 and "--agents:" in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not list(private_cache.rglob("*.nbi"))
