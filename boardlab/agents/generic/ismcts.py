"""``ismcts``: information-set Monte Carlo tree search over the public API, for every game.

Single-observer ISMCTS (Cowling, Powley and Whitehouse, 2012): one tree over the agent's own
information sets, its edges the moves.  Each iteration

1. **determinises**: ``observation.sample(rng)`` is a position consistent with what the agent saw,
   its hidden part (a deck's order, the chance stream's future) drawn anew;
2. **selects**: from the root, while every move available in this determinisation has been tried at
   the node, follows the move of best UCB, ``mean + c * sqrt(ln(availability) / visits)``, where a
   move's availability counts the iterations in which it could be played there (what is legal
   below the root differs between determinisations);
3. **expands** one untried available move, drawn uniformly;
4. **rolls out** to the end of the game: by the game's own random policy (``random_move()``, drawn
   from the determinisation's policy stream, itself drawn from the agent's generator), uniformly
   over ``agent_moves()`` with the agent's generator, or by a given Python policy;
5. **backs up** at every node of the path the reward of the seat that moved into it: its win share,
   or its total normalised to 0..1 by the lowest and highest totals the search has seen (in the game's score
   direction, :func:`boardlab.sim.ranking.direction_of`: where the lowest score wins, the lowest total is 1).

The move played is the root's most visited (ties: the better mean, then the listing's order).  The
search is separate from the evaluation it uses (the rollout policy and the reward).  The budget is
``iters`` iterations, or, with ``ms`` > 0, that many milliseconds of wall time instead -- which no
longer replays identically (a slower machine searches less).  Plain Python: slow, and meant for
games whose numba agents do not exist yet, and to check those against.
"""

from __future__ import annotations

import math
import time

import numpy as np

from boardlab.sim.ranking import direction_of

from .base import agent_moves

ROLLOUTS = ("random", "uniform")
REWARDS = ("auto", "win", "score")


class _Node:
    __slots__ = ("avail", "children", "n", "w")

    def __init__(self) -> None:
        self.children: dict = {}
        self.n = 0  # visits
        self.w = 0.0  # sum of the rewards backed up (raw: win share or total)
        self.avail = 0  # iterations in which its move was available at its parent


class ISMCTS:
    """Information-set MCTS (module docstring).

    Parameters
    ----------
    iters : int
        Iterations per move (the budget unless `ms` > 0), at least 1.
    ms : int
        Milliseconds per move instead of `iters` (0: iterations).
    c : float
        UCB exploration constant (rewards are on 0..1), finite and at least 0.
    rollout : str
        ``"random"`` (the game's ``random_move()``) or ``"uniform"`` (uniform over ``agent_moves()``, the agent's rng).
    reward : str
        ``"win"`` (win share), ``"score"`` (normalised total, better = larger in the game's score direction),
        ``"auto"`` (win with 2+ players, score solo).
    policy : object or None
        A Python agent (``act(observation, legal_moves, rng)``) to roll out with instead.
    """

    name = "ismcts"

    def __init__(
        self, iters: int = 100, ms: int = 0, c: float = 0.7, rollout: str = "random", reward: str = "auto", policy=None
    ):
        if int(iters) < 1 or int(ms) < 0 or not math.isfinite(c) or c < 0:
            raise ValueError(f"ismcts: iters >= 1, ms >= 0 and a finite c >= 0, got {iters}, {ms}, {c}")
        if rollout not in ROLLOUTS or reward not in REWARDS:
            raise ValueError(f"ismcts: rollout one of {ROLLOUTS}, reward one of {REWARDS}")
        self.iters, self.ms, self.c = int(iters), int(ms), float(c)
        self.rollout, self.reward, self.policy = rollout, reward, policy
        self.iterations = 0  # of the last search

    def act(self, observation, legal_moves: list, rng: np.random.Generator):
        """The move with the most visits after the search (ties: the better mean reward, then the listing's order);
        a single legal move is returned without searching.  ``self.iterations`` holds the search's iterations.

        Parameters
        ----------
        observation : boardlab.sim.observation.Observation or None
            What the seat to move may see (None for an agent with ``observes = False``).
        legal_moves : list
            The moves to choose from (the game's ``agent_moves()``), not empty.
        rng : numpy.random.Generator
            The agent's own generator (:func:`boardlab.agents.generic.base.agent_rng`).

        Returns
        -------
        object
            The chosen move, one of `legal_moves`.
        """
        if not legal_moves:
            raise ValueError("no legal move to choose from")
        if len(legal_moves) == 1:
            return legal_moves[0]
        root = _Node()
        self._win: bool | None = None  # reward by win share? (known at the first rollout: "auto" asks the player count)
        seen = [math.inf, -math.inf]  # the lowest and highest totals rolled out (reward "score")
        deadline = time.perf_counter() + self.ms / 1000 if self.ms else None
        it = 0
        while it == 0 or (it < self.iters if deadline is None else time.perf_counter() < deadline):
            self._iterate(root, observation.sample(rng), legal_moves, rng, seen)
            it += 1
        self.iterations = it
        best, key = legal_moves[0], (-1, -math.inf)
        for m in legal_moves:
            child = root.children.get(m)
            if child is not None and (child.n, child.w / child.n) > key:
                best, key = m, (child.n, child.w / child.n)
        return best

    def _iterate(self, root: _Node, game, legal_moves: list, rng: np.random.Generator, seen: list[float]) -> None:
        moves: list | None = legal_moves  # None below the root: the node's moves are listed when it is reached
        node, path = root, []
        while not game.done:
            if moves is None:
                moves = agent_moves(game)
            mover = game.current
            untried = []
            for m in moves:
                child = node.children.get(m)
                if child is None:
                    untried.append(m)
                else:
                    child.avail += 1
            if untried:
                m = untried[int(rng.integers(len(untried)))]
                child = node.children[m] = _Node()
                child.avail = 1
                game.apply(m)
                path.append((child, mover))
                break
            m, child = self._select(node, moves, seen)
            game.apply(m)
            path.append((child, mover))
            node, moves = child, None
        self._roll_out(game, rng)
        rewards = self._rewards(game, seen)
        for child, mover in path:
            child.n += 1
            child.w += rewards[mover]

    def _select(self, node: _Node, moves: list, seen: list[float]):
        lo, hi = (0.0, 1.0) if self._win else (seen[0], seen[1])
        span = hi - lo if hi > lo else 1.0
        best, best_child, best_u = None, None, -math.inf
        for m in moves:
            child = node.children[m]
            u = (child.w / child.n - lo) / span + self.c * math.sqrt(math.log(child.avail) / child.n)
            if u > best_u:
                best, best_child, best_u = m, child, u
        return best, best_child

    def _roll_out(self, game, rng: np.random.Generator) -> None:
        if self.policy is not None:
            while not game.done:
                game.apply(self.policy.act(game.observation(game.current), agent_moves(game), rng))
        elif self.rollout == "random":
            while not game.done:
                game.apply(game.random_move())
        else:
            while not game.done:
                moves = agent_moves(game)
                game.apply(moves[int(rng.integers(len(moves)))])

    def _rewards(self, game, seen: list[float]) -> list[float]:
        scores = game.scores()
        if self._win is None:
            self._win = self.reward == "win" or (self.reward == "auto" and len(scores) > 1)
        if self._win:
            return [float(s["win_share"]) for s in scores]
        sign = 1.0 if direction_of(game) == "higher" else -1.0  # the reward is larger for a better total
        totals = [sign * float(s["total"]) for s in scores]
        seen[0], seen[1] = min(seen[0], *totals), max(seen[1], *totals)
        return totals
