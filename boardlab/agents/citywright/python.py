"""Plain-Python agents: write a policy as a class, seat it against built-in agents.

The protocol is the one every game's Python agents have (:mod:`boardlab.agents.generic.base`)::

    class MyAgent:
        name = "my-agent"
        def act(self, observation, legal_moves: list[Move], rng: np.random.Generator) -> Move:
            ...

``observation`` is what your seat may see (``observation.player`` is your seat; the fields of
:meth:`boardlab.sim.citywright.api.Game.snapshot`: boards, market, slots, deck counts, ...), and
``observation.sample(rng)`` a game consistent with it to search on (its future markets and deals
drawn anew).  ``legal_moves`` lists one move per (slot, placement, free pick) with the tiles in line
order, plus the swaps and forced discards; any other tile assignment of a listed placement is legal
too (build it with ``dataclasses.replace(move, tiles=...)``).  ``rng`` is a numpy Generator seeded
from a keyed hash of the game seed and your seat, so a game replays identically.

The same engine kernels decide legality and score the game; built-in agents in the same game play
inside numba as usual.  For whole runs (``boardlab simulate``, ``ladder``, ...), name your agent
``py:package.module:MyAgent`` (:mod:`boardlab.agents.specs`).
"""

from __future__ import annotations

from boardlab.agents.generic.base import Agent, agent_rng, decide
from boardlab.agents.specs import PythonSpec
from boardlab.sim.citywright.api import Game
from boardlab.sim.citywright.rules import Rules

from .registry import AgentSpec, builtin_player, parse_agent

__all__ = ["Agent", "play_game"]


def play_game(agents: list, rules: Rules | str | None = None, seed: int = 0) -> Game:
    """Play one game, seat i taken by agents[i] (Python agents, or built-in or generic specs); returns the
    finished game.

    Parameters
    ----------
    agents : list
        One per seat: a Python agent, or a built-in or generic spec string.
    rules : Rules or str or None
        The rule set (None: the default preset).
    seed : int
        The game seed.

    Returns
    -------
    Game
        The finished game.
    """
    game = Game(len(agents), rules, seed)
    seats = []
    rngs = []
    for i, a in enumerate(agents):
        if isinstance(a, str):
            a = parse_agent(a)
        if isinstance(a, (AgentSpec, PythonSpec)):
            a = a.make() if a.python else builtin_player(a)
        elif not isinstance(a, Agent):
            raise TypeError(f"seat {i + 1}: {a!r} is neither an agent spec nor an object with act()")
        seats.append(a)
        rngs.append(agent_rng(game.seed, i))
    while not game.done:
        p = game.current
        a = seats[p]
        if isinstance(a, Agent):
            game.apply(
                decide(a, game, rngs[p])
            )  # checked: an illegal move raises boardlab.sim.citywright.api.IllegalMove
        else:
            a(game)
    return game
