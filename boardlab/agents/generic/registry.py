"""The generic agents' definitions, and the agent registry of a game that has no agents of its own.

Every game's registry offers :data:`GENERIC` beside its built-in agents (a game's own ``random``, where
it has one, keeps the name), and a ``py:module:Name`` agent (:mod:`boardlab.agents.specs`).  A game with no
agents of its own names this module as its ``agents_module``: its agents are then ``random``,
``ismcts`` and ``py:`` agents, all Python, all played by :mod:`boardlab.experiments.play`.
"""

from __future__ import annotations

from boardlab.agents.specs import AgentDef, AgentError, AgentSpec, Param, Registry, merged

from .ismcts import ISMCTS, REWARDS, ROLLOUTS
from .prefers import ISMCTSPrefers, RandomPrefers
from .uniform import RandomAgent

__all__ = ["GENERIC", "AgentError", "available_agents", "builtin_player", "parse_agent", "split_specs"]

# The family a restricted agent prefers (boardlab.agents.generic.prefers), given bare: random-prefers:R
_FAMILY = Param(
    "family",
    None,
    "the move family taken whenever one is listed (the game's move_families())",
    positional=True,
    parse=str,  # a name: the game checks it (boardlab.agents.generic.prefers.check_families)
)
_ISMCTS_PARAMS = (
    Param("iters", 100, "iterations per move (the budget unless ms > 0)", lo=1, hi=10_000_000),
    Param("ms", 0, "milliseconds per move instead of iters (0: iterations; not reproducible)", lo=0, hi=3_600_000),
    Param("c", 0.7, "UCB exploration constant (rewards on 0..1)", lo=0.0, hi=100.0),
    Param(
        "rollout",
        "random",
        "rollouts by the game's random policy (random_move()) or uniform over the listed moves",
        choices=ROLLOUTS,
    ),
    Param(
        "reward",
        "auto",
        "win share, or the total normalised by the range seen; auto: win with 2+ players, score solo",
        choices=REWARDS,
    ),
)

GENERIC = (
    AgentDef(
        "random",
        -1,
        "uniform over the listed legal moves, drawn with the agent's own generator (Python, any game)",
        make=RandomAgent,
    ),
    AgentDef(
        "ismcts",
        -1,
        "information-set Monte Carlo tree search over the public API: a fresh determinisation of what it cannot"
        " see each iteration, UCB selection, rollouts to the end (Python, any game; slow)",
        params=_ISMCTS_PARAMS,
        objective="reward = win share (or normalised total) of the mover, averaged over determinisations",
        make=ISMCTS,
    ),
    AgentDef(
        "random-prefers",
        -1,
        "restricted play: uniform over the listed moves of one family (the game's move_family) whenever one is"
        " listed, else over all (Python, a game that names move families)",
        params=(_FAMILY,),
        make=RandomPrefers,
    ),
    AgentDef(
        "ismcts-prefers",
        -1,
        "restricted play: ismcts over the listed moves of one family whenever one is listed, else over all; the"
        " search below the root is not restricted (Python, a game that names move families)",
        params=(_FAMILY, *_ISMCTS_PARAMS),
        objective="ismcts's, its choice at the root restricted to the family",
        make=ISMCTSPrefers,
    ),
)

AGENTS = merged(GENERIC)
SPEC_EXAMPLES = "random, ismcts:iters=200,c=0.5, random-prefers:hold, py:mypackage.agents:MyAgent:depth=2"
REGISTRY = Registry(AGENTS, AgentSpec, examples=SPEC_EXAMPLES)  # no kernel players: every spec is Python

available_agents = REGISTRY.available_agents
available_tiers = REGISTRY.available_tiers
parse_agent = REGISTRY.parse_agent
parse_agents = REGISTRY.parse_agents
split_specs = REGISTRY.split_specs

builtin_player = REGISTRY.builtin_player  # a game with no built-in agents: AgentError for any spec
