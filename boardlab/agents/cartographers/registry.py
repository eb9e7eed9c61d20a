"""Cartographers' agents by spec string (``boardlab agents --game cartographers`` lists them).

A spec is ``NAME`` or ``NAME:key=value,...``; the grammar, the parser and the Python agents every game
has (``ismcts``, ``py:module:Name``) are :mod:`boardlab.agents.specs` and :mod:`boardlab.agents.generic`.
This module is
Cartographers' list of agents and its built-in agents' parameter rows: parsing gives an
:class:`AgentSpec` whose :meth:`~AgentSpec.row` is the float64 parameter row the numba game loop
(:mod:`boardlab.agents.cartographers.play`) reads.  The interface is the one every game's agent registry has
(docs/architecture.md, "Adding a game"): ``available_agents``, ``parse_agent``, ``split_specs``,
``AgentError``, ``SPEC_EXAMPLES``, ``builtin_player``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from boardlab.agents.generic.registry import GENERIC
from boardlab.agents.specs import AgentDef, AgentError, Param, Registry, merged
from boardlab.agents.specs import AgentSpec as _Spec

from . import expert as X
from . import kernels as K
from .strong import MAX_K, MAX_MARGIN, STRONG_K, STRONG_MARGIN, WEIGHTS_VERSION

__all__ = ["AGENTS", "AgentDef", "AgentError", "AgentSpec", "Param", "parse_agent", "rows", "split_specs"]

_AMBUSH = Param(
    "ambush",
    "adversarial",
    "monster placement on a neighbour's map: adversarial (minimises that map's value under this agent's "
    "objective) or random (uniform over the legal placements)",
    choices=("adversarial", "random"),
)

_BUILTIN = {
    "random": AgentDef(
        "random",
        K.A_RANDOM,
        "uniform over the listed legal moves (every shape, orientation, position and terrain; "
        "the 1x1 fallback and the monster placements likewise)",
    ),
    "greedy": AgentDef(
        "greedy",
        K.A_GREEDY,
        "plays the draw that most increases its current season's score (the season's two edicts + coins - "
        "monster penalty), exactly over every legal move; ties by the policy stream",
        params=(_AMBUSH,),
        objective="worth = season score of its map after the draw: e1 + e2 + coins - monster penalty",
    ),
    "planner": AgentDef(
        "planner",
        K.A_PLANNER,
        "plays the draw that most increases the points every season end still ahead would give its map "
        "(each edict weighted by its scorings ahead), exactly; ties by the policy stream",
        params=(_AMBUSH,),
        objective="worth = sum_e (scorings of edict e ahead) * edict e + (season ends ahead) * (coins - monster)",
    ),
    "strong": AgentDef(
        "strong",
        K.A_STRONG,
        "values every legal move by the planner's exact objective, then re-ranks the k best (within margin"
        " points of the best; sampled evenly from a larger plateau) by that value plus a learned value of the"
        " map's potential, fitted by seeded self-play (boardlab train --game cartographers); its monster goes"
        " where the victim's value is least",
        params=(
            _AMBUSH,
            Param("k", STRONG_K, "candidates re-ranked by the learned value", lo=1, hi=MAX_K),
            Param(
                "margin", STRONG_MARGIN, "planner points below the best move a candidate may be", lo=0, hi=MAX_MARGIN
            ),
            Param(
                "weights",
                WEIGHTS_VERSION,
                "the learned value's weight file (boardlab/agents/cartographers/weights/)",
                choices=(WEIGHTS_VERSION,),
            ),
        ),
        objective="worth = planner's worth of the map after the draw + learned value of its potential"
        " (boardlab/agents/cartographers/value.py)",
    ),
    "expert": AgentDef(
        "expert",
        K.A_EXPERT,
        "a determinised flat Monte Carlo search over strong's k best draws: every playout redeals the unseen"
        " explore deck and ambushes from what the seat has seen, plays strong to the cut (the season's end, or"
        " horizon explore cards), and scores the mover's points + strong's value of its map there; common random"
        " numbers, successive halving over the budget (boardlab/agents/cartographers/expert.py); its monster is"
        " strong's",
        params=(
            _AMBUSH,
            Param("budget", X.EXPERT_BUDGET, "playouts per decision", lo=1, hi=X.MAX_BUDGET),
            Param("k", X.EXPERT_CANDS, "candidates searched: strong's best draws", lo=1, hi=X.MAX_CANDS),
            Param(
                "horizon",
                X.EXPERT_HORIZON,
                "explore cards a playout plays before its cut; 0: to the end of the current season",
                lo=0,
                hi=X.MAX_HORIZON,
            ),
            Param("rollout_k", X.EXPERT_ROLLOUT_K, "strong's k in the playouts", lo=1, hi=MAX_K),
            Param(
                "seats",
                "own",
                "the playouts play every seat (all) or only the decisions that reach the mover's map (own: its"
                " draws and the monsters drawn on it; the others' draws cannot change its reward)",
                choices=("own", "all"),
            ),
            Param(
                "weights",
                WEIGHTS_VERSION,
                "the learned value's weight file (boardlab/agents/cartographers/weights/)",
                choices=(WEIGHTS_VERSION,),
            ),
        ),
        objective="worth = the mover's points to the cut + planner's worth + learned value of its map there,"
        " mean over redealt playouts (boardlab/agents/cartographers/expert.py)",
    ),
}
AGENTS: dict[str, AgentDef] = merged(_BUILTIN.values(), GENERIC)  # ismcts beside the built-ins

SPEC_EXAMPLES = "random, greedy, planner:ambush=random, strong:k=32, expert:budget=32, ismcts:iters=50"


@dataclass(frozen=True)
class AgentSpec(_Spec):
    """A parsed agent (boardlab.agents.specs.AgentSpec) and, for a built-in agent, its numba parameter row."""

    def row(self) -> np.ndarray:
        """The float64 parameter row of the numba game loop (boardlab.agents.cartographers.play.P_*).

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
        if self.params.get("ambush") == "random":
            r[K.P_AMBUSH] = K.AMBUSH_RANDOM
        if self.definition.code == K.A_STRONG:
            r[K.P_K] = self.params["k"]
            r[K.P_MARGIN] = self.params["margin"]
        if self.definition.code == K.A_EXPERT:
            r[K.P_K] = STRONG_K
            r[K.P_MARGIN] = STRONG_MARGIN
            r[K.P_BUDGET] = self.params["budget"]
            r[K.P_CANDS] = self.params["k"]
            r[K.P_HORIZON] = self.params["horizon"]
            r[K.P_ROLLOUT_K] = self.params["rollout_k"]
            r[K.P_SEATS] = X.SEATS_ALL if self.params["seats"] == "all" else X.SEATS_OWN
        return r


# Skill tiers: a name for a full spec, so tables and reports can say "expert" while every result stores the full
# spec it played (the agent column) and the tier it was asked for (run metadata).  name: (full spec, description)
_PLAIN = Registry(AGENTS, AgentSpec)
TIERS: dict[str, tuple[str, str]] = {
    "greedy": (str(_PLAIN.parse_agent("greedy")), "the current season's score, exactly: the weakest sensible player"),
    "planner": (str(_PLAIN.parse_agent("planner")), "every scoring still ahead, exactly (the balance report's player)"),
    "strong": (
        str(_PLAIN.parse_agent("strong")),
        "planner's value plus a learned value of the map's potential; about 130 four-player games/s",
    ),
    "expert": (
        str(_PLAIN.parse_agent("expert")),
        "determinised flat Monte Carlo over strong's best draws; about 4 ms per decision",
    ),
}
REGISTRY = Registry(AGENTS, AgentSpec, TIERS, examples=SPEC_EXAMPLES)
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
    """A built-in agent as a per-move player of a public-API game (boardlab.sim.cartographers.api.Game): play(game)
    makes the seat's move in place, exactly as the numba game loop would (its policy stream included).

    Parameters
    ----------
    spec : AgentSpec
        A built-in agent.

    Returns
    -------
    callable
        ``play(game)``, moving the game in place.
    """
    from boardlab.sim.cartographers import engine as E

    from .play import policy_entry
    from .strong import STRONG_WEIGHTS, workspace

    row = spec.row()
    mv = np.zeros(E.MV_LEN, dtype=np.int32)
    ws = workspace()
    vw = np.array(STRONG_WEIGHTS)  # writable, as the game loop's (one numba compilation)
    by_tables: dict = {}  # id of a game's tables -> (the tables, policy_move's machine code for them)

    def play(game) -> None:
        args = game.tables.kernel_args()
        if id(game.tables) not in by_tables:
            by_tables[id(game.tables)] = (game.tables, policy_entry((*args, vw, ws)))
        by_tables[id(game.tables)][1](game.bb, game.st, game.rng, mv, row, *args, vw, ws)
        E.apply_move(game.bb, game.st, game.rng, mv, *args)

    return play


REGISTRY.player = builtin_player  # the registry's optional hook (boardlab.agents.specs.Registry)
