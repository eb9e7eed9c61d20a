"""Restricted play (Jaffe et al. 2012): agents that take a move of one family whenever one is legal.

A game that names move families (the optional public-API capability ``move_families()`` and
``move_family(move) -> str``: Citywright the district placed most, Cartographers the terrain drawn, Citadels the
character taken) can be played by ``random-prefers:FAMILY`` and ``ismcts-prefers:FAMILY``: whenever some listed
move is of that family, the agent chooses among those moves only (uniformly, or by its search); otherwise among
all of them, as its tier would.  The restriction is applied by whoever offers the agent its moves
(:func:`restrict`, called by the generic chunk player), so the agent still sees only its observation, the
moves and its generator.  An ISMCTS agent's search below the root is not restricted: it plays the family now and
expects to play as its tier later.
"""

from __future__ import annotations

from .ismcts import ISMCTS
from .uniform import RandomAgent


class RandomPrefers(RandomAgent):
    """Uniform over the listed moves of family `family` when there is one, else over all of them.

    Parameters
    ----------
    family : str
        The move family preferred (the game's ``move_families()`` names them); :func:`restrict` applies it.
    """

    name = "random-prefers"

    def __init__(self, family: str):
        self.prefers = str(family)


class ISMCTSPrefers(ISMCTS):
    """ISMCTS over the listed moves of family `family` when there is one, else over all of them.

    Parameters
    ----------
    family : str
        The move family preferred at the root; :func:`restrict` applies it.
    **search
        :class:`boardlab.agents.generic.ismcts.ISMCTS`'s parameters.
    """

    name = "ismcts-prefers"

    def __init__(self, family: str, **search):
        super().__init__(**search)
        self.prefers = str(family)


PREFERS = ("random-prefers", "ismcts-prefers")


def family_of(spec) -> str | None:
    """The move family a parsed agent spec prefers (None for an agent that is not restricted).

    Parameters
    ----------
    spec
        A parsed agent spec (:class:`boardlab.agents.specs.AgentSpec`, or a game's).

    Returns
    -------
    str or None
        Its ``family`` parameter when it is one of :data:`PREFERS`.
    """
    return spec.params.get("family") if getattr(spec, "name", "") in PREFERS else None


def restrict(game, agent, moves: list) -> list:
    """The moves to offer `agent` in `game`: those of its preferred family (``agent.prefers``) when any is listed,
    else `moves` unchanged (also for an agent that prefers nothing).

    Parameters
    ----------
    game
        A public-API game at the agent's decision (with ``move_family(move)`` when the agent prefers a family).
    agent
        A Python agent.
    moves : list
        The moves listed for the decision.

    Returns
    -------
    list
        A non-empty sub-list of `moves` in their order, or `moves` itself.
    """
    family = getattr(agent, "prefers", None)
    if not family:
        return moves
    mine = [m for m in moves if game.move_family(m) == family]
    return mine or moves


def check_families(game, agents: list) -> str | None:
    """Why these parsed agents cannot play `game` (a public-API game object), or None: an agent preferring a family
    in a game that names none, or a family the game does not name.

    Parameters
    ----------
    game
        A public-API game (a new one will do: families do not depend on the position).
    agents : list
        Parsed agent specs (a restricted agent has a ``family`` parameter).

    Returns
    -------
    str or None
        A one-line reason, or None.
    """
    for a in agents:
        family = family_of(a)
        if family is None:
            continue
        names = getattr(game, "move_families", None)
        if not callable(names) or not callable(getattr(game, "move_family", None)):
            return f"{a}: this game names no move families (move_families() and move_family(move))"
        if family not in names():
            return f"{a}: no move family {family!r} (the game's: {', '.join(names())})"
    return None
