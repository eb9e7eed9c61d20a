"""Citadels' agents by spec string (``boardlab agents --game citadels`` lists them).

A spec is ``NAME`` or ``NAME:key=value,...``; the grammar, the parser and the Python agents every game
has (``ismcts``, ``py:module:Name``) are :mod:`agents.specs` and :mod:`agents.generic`.  This module is
Citadels' list of agents and its built-in agents' parameter rows (``available_agents``, ``parse_agent``,
``split_specs``, ``AgentError``, ``SPEC_EXAMPLES``, ``builtin_player``).

``random`` is the rules contract's **reference random player** (docs/games/citadels.md §9): its
own SplitMix64 stream seeded with ``seed ^ 0xA5A5A5A5A5A5A5A5``, shared by all seats, and
``legal[rand_below(len(legal))]`` over the canonical legal list at every decision -- so a game of
random players is a function of (rules, players, seed) alone, and any independent engine can be
compared with ours seed by seed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from agents.generic.registry import GENERIC
from agents.specs import AgentDef, AgentError, Param, Registry, merged
from agents.specs import AgentSpec as _Spec

__all__ = ["AGENTS", "AgentDef", "AgentError", "AgentSpec", "Param", "parse_agent", "rows", "split_specs"]

# The parameter row of an agent: its code, then its parameters.
P_CODE = 0
P_LEN = 1
A_RANDOM = 0

_BUILTIN = {
    "random": AgentDef(
        "random",
        A_RANDOM,
        "the reference random player: uniform over the canonical legal list at every decision, from one "
        "stream seeded with seed ^ 0xA5A5A5A5A5A5A5A5 shared by all seats",
    ),
}
AGENTS: dict[str, AgentDef] = merged(_BUILTIN.values(), GENERIC)  # ismcts beside the built-ins

SPEC_EXAMPLES = "random, ismcts:iters=50"


@dataclass(frozen=True)
class AgentSpec(_Spec):
    """A parsed agent (agents.specs.AgentSpec) and, for a built-in agent, its numba parameter row."""

    def row(self) -> np.ndarray:
        """The float64 parameter row of a numba game loop (P_*)."""
        if self.python:
            raise AgentError(f"{self}: a Python agent has no parameter row (it plays through experiments.play)")
        r = np.zeros(P_LEN, dtype=np.float64)
        r[P_CODE] = self.definition.code
        return r


REGISTRY = Registry(AGENTS, AgentSpec)
available_agents = REGISTRY.available_agents
parse_agent = REGISTRY.parse_agent
parse_agents = REGISTRY.parse_agents
split_specs = REGISTRY.split_specs


def rows(specs: list[AgentSpec]) -> np.ndarray:
    """float64[len(specs), P_LEN]: the parameter rows of a list of agents."""
    return np.stack([s.row() for s in specs])


def builtin_player(spec: AgentSpec):
    """A built-in agent as a per-move player of a public-API game (sim.citadels.api.Game): play(game) makes
    the seat's move in place, exactly as the chunk player's kernel would (the reference random player's
    draw from the game's policy stream)."""
    if spec.python or spec.definition.code != A_RANDOM:
        raise AgentError(f"{spec}: not a built-in Citadels agent")

    def play(game) -> None:
        game.apply(game.random_move())

    return play
