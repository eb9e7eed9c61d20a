"""Citywright's seat compensation as the generic solver (:mod:`experiments.compensation`) reads it, and the
agent of the seat games ``tune scoring`` measures (GameDef.seat_agent).

Each seat's compensation is in the result's ``compensation`` column and in ``total``; the rules hold the
N-player vector at ``game.compensation.N``; players rank by :data:`sim.citywright.rules.RANKING` (more
points, then fewer empty cells, then more distinct shapes, then a shared win), one int64 key per player
(:func:`sim.citywright.ranking.rank_key`).
"""

from __future__ import annotations

from experiments.compensation import SeatCompensation
from sim.citywright.ranking import rank_key
from sim.citywright.rules import RANKING

SEAT_COMPENSATION = SeatCompensation(
    column="compensation",
    rule_key="game.compensation.{players}",
    rank_key=rank_key,
    rank_columns=tuple(name for name, _ in RANKING),
    score="total",
)


# A tier's restricted specialists -> its every-seat agent (experiments.citywright.skill.TIERS: the skill
# report's seat tables are played by these)
SEAT_AGENTS = {"specialist": "greedy", "strong-specialist": "strong", "expert-specialist": "flatmc"}


def seat_agent(agents: list[str]) -> str:
    """GameDef.seat_agent: the every-seat agent of the first agent's tier, as the skill report measures seats.

    ``specialist:X`` -> ``greedy``; ``strong-specialist:X[,k=..,weights=..]`` -> ``strong`` with the same k and
    weights; ``expert-specialist:X,<flatmc levers>`` -> ``flatmc`` with the same levers (with the skill report's
    levers: the ``expert`` tier).  Any other agent is its own seat agent."""
    from agents.citywright.registry import AGENTS, AgentSpec, parse_agent

    first = parse_agent(agents[0])
    target = SEAT_AGENTS.get(first.name)
    if target is None:
        return str(first)
    d = AGENTS[target]
    return str(AgentSpec(target, {p.name: first.params.get(p.name, p.default) for p in d.params}, definition=d))
