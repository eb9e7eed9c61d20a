"""Citywright's seat compensation as the generic solver (:mod:`boardlab.experiments.compensation`) reads it, and the
agent of the seat games ``tune scoring`` measures (GameDef.scoring.seat_agent).

Each seat's compensation is in the result's ``compensation`` column and in ``total``; the rules hold the
N-player vector at ``game.compensation.N``; players rank by :data:`boardlab.sim.citywright.rules.RANKING` (more
points, then fewer empty cells, then more distinct shapes -- or, at 2 players under ``game.two_player_tie =
"second_seat"``, the later seat -- then a shared win), one int64 key per player
(:func:`boardlab.sim.citywright.ranking.rank_key`).
"""

from __future__ import annotations

from boardlab.experiments.compensation import SeatCompensation
from boardlab.sim.citywright.ranking import rank_key
from boardlab.sim.citywright.rules import RANKING


def rank_options(rules: dict) -> dict:
    """rank_key's keyword from the rules the games were played under: ``game.two_player_tie`` (absent in
    rule sets stored before the rule existed: the rulebook's tie-break).

    Parameters
    ----------
    rules : dict
        The mapping the games were played under.

    Returns
    -------
    dict
        ``{"two_player_tie": ...}``.
    """
    return {"two_player_tie": rules.get("game", {}).get("two_player_tie", "distinct_shapes")}


SEAT_COMPENSATION = SeatCompensation(
    column="compensation",
    rule_key="game.compensation.{players}",
    rank_key=rank_key,
    # the seat and player count: the last tie-break of a 2-player game under game.two_player_tie
    rank_columns=(*(name for name, _ in RANKING), "seat", "players"),
    score="total",
    rank_options=rank_options,
)


# A tier's restricted specialists -> its every-seat agent (boardlab.experiments.citywright.skill.TIERS: the skill
# report's seat tables are played by these)
SEAT_AGENTS = {"specialist": "greedy", "strong-specialist": "strong", "expert-specialist": "flatmc"}


def seat_agent(agents: list[str]) -> str:
    """GameDef.scoring.seat_agent: the every-seat agent of the first agent's tier, as the skill report measures seats.

    ``specialist:X`` -> ``greedy``; ``strong-specialist:X[,k=..,weights=..]`` -> ``strong`` with the same k and
    weights; ``expert-specialist:X,<flatmc levers>`` -> ``flatmc`` with the same levers (with the skill report's
    levers: the ``expert`` tier).  Any other agent is its own seat agent.

    Parameters
    ----------
    agents : list of str
        The study's agent specs.

    Returns
    -------
    str
        The every-seat agent's spec.
    """
    from boardlab.agents.citywright.registry import AGENTS, AgentSpec, parse_agent

    first = parse_agent(agents[0])
    target = SEAT_AGENTS.get(first.name)
    if target is None:
        return str(first)
    d = AGENTS[target]
    return str(AgentSpec(target, {p.name: first.params.get(p.name, p.default) for p in d.params}, definition=d))
