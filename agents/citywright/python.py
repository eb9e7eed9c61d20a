"""Plain-Python agents: write a policy as a class, seat it against built-in agents.

The protocol is one method::

    class MyAgent:
        name = "my-agent"
        def act(self, game: Game, legal_moves: list[Move], rng: np.random.Generator) -> Move:
            ...

``game`` is a copy of the position (a :class:`sim.citywright.api.Game`: ``game.current``
is your seat; ``snapshot()``, ``scores()``, ``board_string(seat)``,
``line_tiles(slot)`` and ``legal_moves(...)`` are there to read; changing the
copy changes nothing).  ``legal_moves`` lists one move per (slot, placement,
free pick) with the tiles in line order, plus the swaps and forced discards;
any other tile assignment of a listed placement is legal too (build it with
``dataclasses.replace(move, tiles=...)``), and
``game.legal_moves()`` lists them all.  ``rng`` is a numpy Generator seeded
from the game seed and your seat, so a game replays identically.

The same engine kernels decide legality and score the game; built-in agents
in the same game play inside numba as usual.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from sim.citywright import engine as E
from sim.citywright.api import Game
from sim.citywright.moves import Move
from sim.citywright.rules import Rules

from .kernels import A_PYTHON, P_CODE
from .play import policy_move
from .registry import AgentSpec, parse_agent


@runtime_checkable
class Agent(Protocol):
    def act(self, game: Game, legal_moves: list[Move], rng: np.random.Generator) -> Move: ...


def play_game(agents: list[Agent | AgentSpec | str], rules: Rules | str | None = None, seed: int = 0) -> Game:
    """Play one game, seat i taken by agents[i] (Python agents or built-in specs); returns the finished game."""
    game = Game(len(agents), rules, seed)
    seats: list[Agent | np.ndarray] = []
    rngs = []
    for i, a in enumerate(agents):
        if isinstance(a, str):
            a = parse_agent(a)
        seats.append(a.row() if isinstance(a, AgentSpec) else a)
        if not isinstance(a, AgentSpec) and not isinstance(a, Agent):
            raise TypeError(f"seat {i + 1}: {a!r} is neither an agent spec nor an object with act()")
        rngs.append(np.random.default_rng([game.seed, i]))
    tb = game.tables
    mv = np.zeros(E.MV_LEN, dtype=np.int32)
    while not game.done:
        p = game.current
        a = seats[p]
        if isinstance(a, np.ndarray) and int(a[P_CODE]) != A_PYTHON:
            policy_move(game.boards, game.st, game.rng, mv, a, tb.kernel_args())
            E.apply_move(game.boards, game.st, game.rng, mv, tb.rp, tb.shp, tb.pl_info)
        else:
            move = a.act(game.copy(), game.legal_moves(assignments="one"), rngs[p])
            game.apply(move)  # checked: an illegal move raises sim.citywright.api.IllegalMove
    return game
