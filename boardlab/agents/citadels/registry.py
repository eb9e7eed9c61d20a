"""Citadels' agents by spec string (``boardlab agents --game citadels`` lists them).

Design notes: docs/games/citadels/agents.md#registry-module.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace

import numpy as np

from boardlab.agents.generic.registry import GENERIC
from boardlab.agents.specs import AgentDef, AgentError, Param, Registry, merged
from boardlab.agents.specs import AgentSpec as _Spec
from boardlab.sim.citadels.rules import CHARACTERS

from . import kernels as K
from . import strong as S

E_MAX_MOVES = 352  # boardlab.sim.citadels.engine.MAX_MOVES (the registry imports no engine)

__all__ = ["AGENTS", "TIERS", "AgentDef", "AgentError", "AgentSpec", "Param", "parse_agent", "rows", "split_specs"]

# The row's codes and length (kept under these names for the callers of the first registry).
P_CODE = K.P_CODE
P_LEN = K.P_LEN
A_RANDOM = K.A_RANDOM
A_BASIC = K.A_BASIC
A_STRONG = K.A_STRONG

# basic's parameters, in the order of boardlab.agents.citadels.kernels.BASIC_PARAMS (its rules say where each acts)
_BASIC_PARAMS = (
    Param("arch_hand", 3, "Architect: buildable cards in hand from which it is worth arch_bonus more", lo=0, hi=30),
    Param("arch_bonus", 3.0, "Architect: its extra worth (gold) with arch_hand buildable cards", lo=0.0, hi=100.0),
    Param("draw_below", 2, "DRAW rather than GOLD with fewer buildable cards in hand than this", lo=0, hi=30),
    Param("rich", 4, "Thief: worth half the richest rival's gold when he has at least this much", lo=0, hi=100),
    Param(
        "swap_gain",
        2,
        "Magician: swap when the biggest other hand has this many more cards than its own buildable ones",
        lo=1,
        hi=30,
    ),
    Param("threat", 1, "a rival this many districts or fewer from completing is about to complete", lo=0, hi=8),
    Param("urgent", 4.0, "Assassin / Warlord: extra worth (gold) against a rival about to complete", lo=0.0, hi=100.0),
    Param("shield", 2.0, "Bishop: extra worth when it leads and the Warlord is not face up", lo=0.0, hi=100.0),
    Param("crown", 1.0, "King: the crown's worth (gold), besides his yellow income", lo=0.0, hi=100.0),
    Param(
        "destroy_max",
        1,
        "Warlord: the most it pays to destroy (against a rival close to completing: any cost it can pay)",
        lo=0,
        hi=10,
    ),
    Param("grave_min", 2, "Graveyard: take a destroyed card costing at least this (for 1 gold)", lo=0, hi=10),
    Param("smithy_hand", 1, "Smithy: pay 2, draw 3 with at most this many buildable cards", lo=0, hi=30),
    Param("hand_max", 5, "Laboratory: discard the worst card of a hand bigger than this", lo=0, hi=70),
    Param("reach", 4, "card worth: a price above its gold + reach costs the excess", lo=0, hi=30),
    Param("purple", 1.0, "card worth: extra for a purple district", lo=0.0, hi=100.0),
    Param(
        "new_colour",
        1.0,
        "card worth: extra for a colour the city lacks (twice in the final stretch)",
        lo=0.0,
        hi=100.0,
    ),
    # expert / specialists: restricted play
    Param("prefers", 0, "specialist: takes this rank whenever offered, never discards it (0: none)", lo=0, hi=8),
)

# --- expert / specialists --------------------------------------------------------------------------------------
# expert's search parameters (boardlab.agents.citadels.search); the defaults are the expert tier's
_REWARDS = ("win", "margin")  # boardlab.agents.citadels.search.REWARD_WIN, REWARD_MARGIN
_SEARCH_PARAMS = (
    Param("budget", 256, "playouts per decision (over every candidate, by successive halving)", lo=1, hi=1_000_000),
    Param("k", 6, "candidates: basic's move and the k - 1 best others by a one-move prior", lo=1, hi=E_MAX_MOVES),
    Param("horizon", 2, "round changes a playout covers, then a cheap evaluation (0: to the end)", lo=0, hi=30),
    Param(
        "reward",
        "margin",
        "a playout's reward: the win share, or the score margin over the best rival",
        choices=_REWARDS,
    ),
)
_PREFERS_RANK = Param("rank", None, "the rank it prefers (1 Assassin .. 8 Warlord)", positional=True, lo=1, hi=8)
_EXPERT_DEFS = {
    "expert": AgentDef(
        "expert",
        K.A_EXPERT,
        "determinised flat Monte Carlo: basic's move and the prior's best, each tried in playouts of basic from"
        " redeals of what the seat cannot see (common random numbers, successive halving)",
        params=(
            *_SEARCH_PARAMS,
            Param("prefers", 0, "specialist: takes this rank whenever offered (0: none)", lo=0, hi=8),
        ),
    ),
    "expert-prefers": AgentDef(
        "expert-prefers",
        K.A_EXPERT,
        "expert restricted to a character: takes rank R whenever offered, never discards it, else searches",
        params=(_PREFERS_RANK, *_SEARCH_PARAMS),
    ),
    "basic-prefers": AgentDef(
        "basic-prefers",
        K.A_BASIC,
        "basic restricted to a character: takes rank R whenever offered, never discards it, else basic",
        params=(_PREFERS_RANK,),
    ),
}
# --- end expert / specialists -----------------------------------------------------------------------------------

_BUILTIN = {
    "random": AgentDef(
        "random",
        K.A_RANDOM,
        "the reference random player: uniform over the canonical legal list at every decision, from one "
        "stream seeded with seed ^ 0xA5A5A5A5A5A5A5A5 shared by all seats",
    ),
    "basic": AgentDef(
        "basic",
        K.A_BASIC,
        "rules of thumb: the character worth most gold this round (Architect with cards, Merchant with green, "
        "King with yellow, Assassin / Warlord against a city about to complete, Thief on the rich), gold unless "
        "short of cards, the costliest district it can build, income at the best moment, strikes at the leader",
        params=_BASIC_PARAMS,
    ),
    # --- strong (boardlab.agents.citadels.strong) ---
    "strong": AgentDef(
        "strong",
        K.A_STRONG,
        "basic, but each character by a one-move lookahead on its own view (a canonical redeal): every offered "
        "rank picked in turn and the position after scored by a learned linear value of what the seat sees "
        "(fitted by `boardlab train --game citadels`)",
        params=(
            Param(
                "weights",
                S.WEIGHTS_VERSION,
                "the learned value's weight file (boardlab/agents/citadels/weights/)",
                choices=S.weight_versions() or (S.WEIGHTS_VERSION,),
            ),
            Param("prefers", 0, "take this rank whenever offered at a selection decision (0: none)", lo=0, hi=8),
        ),
        objective="pick: weights . features of the position after the pick (fitted on the final score margin over the"
        " best rival); the turn: basic's rules",
    ),
}
_BUILTIN.update(_EXPERT_DEFS)  # expert / specialists
AGENTS: dict[str, AgentDef] = merged(_BUILTIN.values(), GENERIC)  # ismcts beside the built-ins

SPEC_EXAMPLES = (
    "random, basic, basic:draw_below=1,crown=2, strong, strong:prefers=6, expert, expert-prefers:6, ismcts:iters=50"
)

# Skill tiers: a name for a full spec, so tables and reports can say "expert" while every result stores the full
# spec it played (the agent column) and the tier it was asked for (run metadata).  name: (full spec, description)
TIERS: dict[str, tuple[str, str]] = {}
TIERS["basic"] = (
    "basic:" + ",".join(f"{p.name}={p.default:g}" for p in _BASIC_PARAMS),  # the canonical text (%g)
    "for 100,000-game tables: basic's rules of thumb",
)
TIERS["strong"] = (
    "strong:weights=" + S.WEIGHTS_VERSION + ",prefers=0",
    "for 100,000-game tables: basic's turns, each character picked by a one-move lookahead scored by a learned value",
)
TIERS["expert"] = (
    "expert:budget=256,k=6,horizon=2,reward=margin,prefers=0",
    "for 2,000-game tables, about 3 ms per decision: basic's move and the prior's 5 best, each tried in 256"
    " playouts of basic over two round changes from redeals of the hidden part, scored by the margin of points +"
    " gold and cards over the best rival (common random numbers, successive halving)",
)


@dataclass(frozen=True)
class AgentSpec(_Spec):
    """A parsed agent (boardlab.agents.specs.AgentSpec) and, for a built-in agent, its numba parameter row."""

    def row(self) -> np.ndarray:
        """The float64 parameter row of the numba game loop (boardlab.agents.citadels.kernels.P_*).

        Returns
        -------
        numpy.ndarray
            float64, shape ``(P_LEN,)`` (AgentError for a Python agent).
        """
        if self.python:
            raise AgentError(
                f"{self}: a Python agent has no parameter row (it plays through boardlab.experiments.play)"
            )
        r = np.zeros(K.P_LEN, dtype=np.float64)
        r[K.P_CODE] = self.definition.code
        if self.name == "basic":
            for name, off in K.BASIC_PARAMS.items():
                r[off] = self.params[name]
        # expert / specialists: basic's defaults under the search's and the preference
        if self.name in ("expert", "expert-prefers", "basic-prefers"):
            for p in _BASIC_PARAMS:
                r[K.BASIC_PARAMS[p.name]] = p.default
            q = self.params
            r[K.P_PREFERS] = q["rank"] if "rank" in q else q.get("prefers", 0)
            if self.name != "basic-prefers":
                r[K.P_BUDGET] = q["budget"]
                r[K.P_K] = q["k"]
                r[K.P_HORIZON] = q["horizon"]
                r[K.P_REWARD] = _REWARDS.index(q["reward"])
        if self.name == "strong":
            r[:] = strong_row(_weights(self.params["weights"]), self.params["prefers"])
        return r


def strong_row(weights: np.ndarray, prefers: int = 0) -> np.ndarray:
    """strong's parameter row with the given weights (float64[strong.N_FEATURES]) -- a weight file's or, in
    training, a fit's not yet written.

    Parameters
    ----------
    weights : numpy.ndarray
        float64, shape ``(strong.N_FEATURES,)``.
    prefers : int
        The rank taken whenever offered (0: none).

    Returns
    -------
    numpy.ndarray
        float64, shape ``(P_LEN,)``.
    """
    r = np.zeros(K.P_LEN, dtype=np.float64)
    r[K.P_CODE] = K.A_STRONG
    for p in _BASIC_PARAMS:  # the decisions it leaves to basic are basic's with its defaults
        r[K.BASIC_PARAMS[p.name]] = p.default
    r[K.P_PREFERS] = prefers
    r[K.P_WEIGHTS : K.P_WEIGHTS + S.N_FEATURES] = weights
    return r


@functools.cache
def _weights(version: str) -> np.ndarray:
    """strong's weights of file `version` (read once)."""
    w = S.load_weights(version)
    w.setflags(write=False)
    return w


def restricted(spec: AgentSpec, family: str) -> str | None:
    """The specialist of a character at `spec`'s strength: `spec` with ``prefers`` set to the character's rank
    (it takes that character whenever offered), for an agent that has the parameter (basic, strong, expert).

    Parameters
    ----------
    spec : AgentSpec
        A parsed agent (a tier's).
    family : str
        A character's name, lower case (the API's ``move_families()``).

    Returns
    -------
    str or None
        The specialist's spec, or None for an agent without ``prefers`` or an unknown name.
    """
    names = [c.name.lower() for c in CHARACTERS]
    if "prefers" not in spec.params or family not in names:
        return None
    return str(replace(spec, params={**spec.params, "prefers": names.index(family) + 1}, tier=None))


REGISTRY = Registry(AGENTS, AgentSpec, TIERS, examples=SPEC_EXAMPLES)
REGISTRY.restricted = restricted
available_agents = REGISTRY.available_agents
available_tiers = REGISTRY.available_tiers
parse_agent = REGISTRY.parse_agent
parse_agents = REGISTRY.parse_agents
split_specs = REGISTRY.split_specs


def rows(specs: list[AgentSpec]) -> np.ndarray:
    """float64[len(specs), P_LEN]: the parameter rows of a list of agents.

    Parameters
    ----------
    specs : list of AgentSpec
        Built-in agents, in seat order.

    Returns
    -------
    numpy.ndarray
        float64, shape ``(len(specs), P_LEN)``.
    """
    return np.stack([s.row() for s in specs])


def builtin_player(spec: AgentSpec):
    """A built-in agent as a per-move player of a public-API game (boardlab.sim.citadels.api.Game): play(game) makes
    the seat's move in place, exactly as the numba game loop would (boardlab.agents.citadels.kernels.choose_move on
    the game's arrays: the reference random player's draw from the game's policy stream, basic's from its
    seat's own stream, its memory read from the game's event log).

    Parameters
    ----------
    spec : AgentSpec
        A built-in agent.

    Returns
    -------
    callable
        ``play(game)``, moving the game in place.
    """
    if spec.python:
        raise AgentError(f"{spec}: not a built-in Citadels agent")
    row = spec.row()
    chooser = K.Chooser()

    def play(game) -> None:
        game.apply(chooser.move(game, row))

    return play


REGISTRY.player = builtin_player  # the registry's optional hook (boardlab.agents.specs.Registry)
