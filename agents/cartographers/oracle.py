"""The brute-force oracle of the evaluator agents: every listed move scored from the public API alone.

It shares nothing with :mod:`agents.cartographers.kernels` but the objective's definition (its
module doc): the weights come from the rule set's seasons, the map after a move is built from the
snapshot's grid and the move's cells, coins are recounted from the snapshot's coins and paid
mountains, and the points are the engine's scoring functions (held to the plain-Python reference by
tests/cartographers/test_cartographers_differential.py).  Ties are broken as the kernels promise: one number
``policy.rand(n)`` for the n best moves, the k-th of them in listing order.
"""

from __future__ import annotations

import numpy as np

from sim.cartographers import engine as E
from sim.cartographers.api import Game, grid_to_planes
from sim.cartographers.moves import Move
from sim.cartographers.rules import SIZE, STATES
from sim.rng import POLICY, rand_below


def weights(game: Game, agent: str) -> tuple[list[int], int, int]:
    """(edict weights A-D, coin weight, monster weight) of `agent` ("greedy" or "planner") now."""
    season = game.snapshot()["season"]
    last = season if agent == "greedy" else len(game.rules.seasons) - 1
    w = [0, 0, 0, 0]
    for q in range(season, last + 1):
        for e in game.rules.seasons[q].edicts:
            w[e] += 1
    ahead = last - season + 1
    return w, ahead, ahead


def move_values(game: Game, agent: str, moves: list[Move] | None = None) -> tuple[list[Move], list[int]]:
    """Every legal move and the value of its target map after it (the mover's objective)."""
    snap = game.snapshot()
    rules = game.rules
    tb = game.tables
    w, wc, wm = weights(game, agent)
    moves = game.legal_moves() if moves is None else moves
    t = snap["target"]
    mover = snap["current"]
    grid = snap["grids"][t]
    base = grid_to_planes(grid, rules)
    paid = set(snap["mountains_paid"][t])
    cap = rules.coins["cap"]
    to_owner = rules.coins["mountain_to_owner"] or mover == t
    values = []
    for m in moves:
        pl = base.copy()
        cells = list(grid)
        for r, c in m.cells:
            i = SIZE * r + c
            cells[i] = "x"  # filled
            bit = np.uint64(1) << np.uint64(i % 64)
            pl[0, i // 64] &= ~bit
            pl[STATES.index(m.terrain), i // 64] |= bit
        coins = snap["coins"][t]
        gain = 1 if (game.coin_shape(m) and mover == t) else 0
        if to_owner:
            for mtn in rules.map.mountains:
                r, c = divmod(mtn, SIZE)
                nbrs = [SIZE * rr + cc for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))]
                if mtn not in paid and all(cells[j] != "." for j in nbrs):
                    gain += 1
        coins = max(coins, min(cap, coins + gain))
        v = wc * coins - wm * int(E.monster_penalty(pl, tb.rp, tb.masks))
        for e in range(4):
            if w[e]:
                v += w[e] * int(E.score_card(snap["edicts"][e], pl, tb.rp, tb.masks))
        values.append(v)
    return moves, values


def brute_force_best(game: Game, agent: str, rng: np.ndarray) -> Move:
    """The oracle's move for `agent` with ambush=adversarial (draws one number from rng's policy stream)."""
    moves, values = move_values(game, agent)
    if game.phase == "monster":
        values = [-v for v in values]
    best = max(values)
    tied = [m for m, v in zip(moves, values, strict=True) if v == best]
    return tied[int(rand_below(rng, POLICY, len(tied)))]
