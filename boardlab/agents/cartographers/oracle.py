"""The brute-force oracle of the evaluator agents: every listed move scored from the public API alone.

It shares nothing with :mod:`boardlab.agents.cartographers.kernels` but the objective's definition (its
module doc): the weights come from the rule set's seasons, the map after a move is built from the
snapshot's grid and the move's cells, coins are recounted from the snapshot's coins and paid
mountains, and the points are the engine's scoring functions (held to the plain-Python reference by
tests/cartographers/test_cartographers_differential.py).  Ties are broken as the kernels promise: one number
``policy.rand(n)`` for the n best moves, the k-th of them in listing order.
"""

from __future__ import annotations

import numpy as np

from boardlab.sim.cartographers import engine as E
from boardlab.sim.cartographers.api import Game, grid_to_planes
from boardlab.sim.cartographers.moves import Move
from boardlab.sim.cartographers.rules import SIZE, STATE_LETTERS, STATES
from boardlab.sim.rng import POLICY, rand_below


def weights(game: Game, agent: str) -> tuple[list[int], int, int]:
    """(edict weights A-D, coin weight, monster weight) of `agent` ("greedy" or "planner") now.

    Parameters
    ----------
    game : Game
        A position of the public API.
    agent : str
        ``"greedy"`` or ``"planner"``.

    Returns
    -------
    tuple
        (list of four int, int, int).
    """
    season = game.snapshot()["season"]
    last = season if agent == "greedy" else len(game.rules.seasons) - 1
    w = [0, 0, 0, 0]
    for q in range(season, last + 1):
        for e in game.rules.seasons[q].edicts:
            w[e] += 1
    ahead = last - season + 1
    return w, ahead, ahead


def move_values(game: Game, agent: str, moves: list[Move] | None = None) -> tuple[list[Move], list[int]]:
    """Every legal move and the value of its target map after it (the mover's objective).

    Parameters
    ----------
    game : Game
        A position of the public API.
    agent : str
        ``"greedy"`` or ``"planner"``.
    moves : list of Move or None
        The moves valued (None: every legal move).

    Returns
    -------
    tuple of (list of Move, list of int)
        The moves and their values.
    """
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
                v += w[e] * int(E.score_card(np.int32(snap["edicts"][e]), pl, tb.rp, tb.masks))  # the loops' type
        values.append(v)
    return moves, values


def brute_force_best(game: Game, agent: str, rng: np.ndarray) -> Move:
    """The oracle's move for `agent` with ambush=adversarial (draws one number from rng's policy stream).

    Parameters
    ----------
    game : Game
        A position of the public API.
    agent : str
        ``"greedy"`` or ``"planner"``.
    rng : numpy.ndarray
        uint64, shape ``(2,)``: stream states, advanced in place.

    Returns
    -------
    Move
        The move.
    """
    moves, values = move_values(game, agent)
    if game.phase == "monster":
        values = [-v for v in values]
    best = max(values)
    tied = [m for m, v in zip(moves, values, strict=True) if v == best]
    return tied[int(rand_below(rng, POLICY, len(tied)))]


# --- the strong agent, from the public API alone ------------------------------------------------------
def _neighbours(i: int) -> tuple[int, ...]:
    r, c = divmod(i, SIZE)
    around = ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
    return tuple(SIZE * rr + cc for rr, cc in around if 0 <= rr < SIZE and 0 <= cc < SIZE)


_NEIGHBOURS = tuple(_neighbours(i) for i in range(SIZE * SIZE))  # once: the features ask a million times a test


def _nbrs(i: int) -> tuple[int, ...]:
    """The cells beside cell i (up, down, left, right; on the map)."""
    return _NEIGHBOURS[i]


def map_after(game: Game, m: Move) -> tuple[str, int, set[int]]:
    """(grid, coins, paid mountains) of the target map after move m, recounted from the snapshot.

    Parameters
    ----------
    game : Game
        A position of the public API.
    m : Move
        A legal move.

    Returns
    -------
    tuple of (str, int, set of int)
        The grid's 121 letters, the coins and the paid mountains' cells.
    """
    snap = game.snapshot()
    rules = game.rules
    t, mover = snap["target"], snap["current"]
    cells = list(snap["grids"][t])
    for r, c in m.cells:
        cells[SIZE * r + c] = STATE_LETTERS[STATES.index(m.terrain)]
    coins = snap["coins"][t]
    cap = rules.coins["cap"]
    paid = set(snap["mountains_paid"][t])
    gain = 1 if (game.coin_shape(m) and mover == t) else 0
    for mtn in rules.map.mountains:
        if mtn not in paid and all(cells[j] != "." for j in _nbrs(mtn)):
            paid.add(mtn)
            gain += rules.coins["mountain_to_owner"] or mover == t
    return "".join(cells), max(coins, min(cap, coins + gain)), paid


def strong_features(game: Game, grid: str, coins: int, paid: set[int]) -> list[float]:
    """boardlab.agents.cartographers.value.map_features, cell by cell from its module doc: the features of a map
    (121 state letters, its coins and paid mountains) in game's position.

    Parameters
    ----------
    game : Game
        A position of the public API.
    grid : str
        121 state letters.
    coins : int
        The map's coins.
    paid : set of int
        Cells of the paid mountains.

    Returns
    -------
    list of float
        The features, in map_features' order.
    """
    snap = game.snapshot()
    rules = game.rules
    w, ends, _ = weights(game, "planner")
    empty = {i for i in range(SIZE * SIZE) if grid[i] == "."}
    filled = set(range(SIZE * SIZE)) - empty

    def beside(cells) -> set[int]:
        return {i for i in range(SIZE * SIZE) if any(j in cells for j in _nbrs(i))}

    def of(letter) -> set[int]:
        return {i for i in range(SIZE * SIZE) if grid[i] == letter}

    def n_empty_nbrs(i):
        return sum(j in empty for j in _nbrs(i))

    def clusters(cells) -> list[int]:
        left, sizes = set(cells), []
        while left:
            todo, size = [left.pop()], 0
            while todo:
                i = todo.pop()
                size += 1
                for j in _nbrs(i):
                    if j in left:
                        left.remove(j)
                        todo.append(j)
            sizes.append(size)
        return sizes

    edge = {i for i in range(SIZE * SIZE) if i // SIZE in (0, SIZE - 1) or i % SIZE in (0, SIZE - 1)}
    ruins = set(rules.map.ruins)
    forest, village, farm, water = of("T"), of("V"), of("F"), of("W")
    mountains = set(rules.map.mountains)
    holes = sum(n_empty_nbrs(i) == 0 for i in empty)
    nooks = sum(n_empty_nbrs(i) == 1 for i in empty)
    room = max(0, rules.coins["cap"] - coins)
    near = [sum(j in empty for j in _nbrs(mtn)) for mtn in rules.map.mountains if mtn not in paid]
    f = [1.0, len(empty) * ends, min(near.count(1), room) * ends, min(near.count(2), room) * ends]
    ambushes_left = len(rules.ambush_cards) - len(snap["ambushes_out"])
    f.append(sum(not any(j in filled for j in _nbrs(i)) for i in empty) * ambushes_left)
    f += [len(empty & ruins), holes, nooks]
    f += [0.0] * 32
    lines = [{SIZE * r + c for c in range(SIZE)} for r in range(SIZE)] + [
        {SIZE * r + c for r in range(SIZE)} for c in range(SIZE)
    ]
    diagonals = [{SIZE * (r + i) + i for i in range(SIZE - r)} for r in range(SIZE)]
    for e in range(4):
        if not w[e]:
            continue
        card = snap["edicts"][e]
        p1, p2 = 0, len(empty)
        if card == 26:
            p1, p2 = len(empty & edge), len(empty & beside(forest))
        elif card == 27:
            p1 = sum(not (line & forest) and bool(line & empty) for line in lines)
            p2 = len(empty & beside(forest))
        elif card == 28:
            p1, p2 = sum(n_empty_nbrs(i) > 0 for i in forest), holes
        elif card == 29:
            p1 = len(mountains & beside(forest) & beside(empty))
            p2 = len(empty & beside(mountains))
        elif card == 30:
            p1, p2 = len(empty & beside(farm)), len(empty & beside(water))
        elif card == 31:
            p1 = len(empty & beside(mountains))
        elif card == 32:
            p1, p2 = len(empty & ruins), len(empty & beside(ruins))
        elif card == 33:
            p1 = len(empty - beside(farm | water) - edge)
        elif card in (34, 36, 37):
            sizes = clusters(village)
            p1 = len(empty & beside(village))
            p2 = sum(3 <= s <= 5 for s in sizes) if card == 34 else len(sizes)
        elif card == 35:
            p1 = len((empty & beside(village)) - beside(mountains))
            p2 = len(empty - beside(mountains))
        elif card == 38:
            k = [len(line & empty) for line in lines]
            p1, p2 = sum(1 <= x <= 2 for x in k), sum(3 <= x <= 5 for x in k)
        elif card == 39:
            p1, p2 = len(filled), len(empty & beside(filled))
        elif card == 40:
            k = [len(d & empty) for d in diagonals]
            p1, p2 = sum(1 <= x <= 2 for x in k), sum(3 <= x <= 5 for x in k)
        elif card == 41:
            p1 = nooks
        c = 8 + 2 * (card - 26)
        f[c] += w[e] * p1
        f[c + 1] += w[e] * p2
    return f


def strong_best(game: Game, rng: np.ndarray, vw: np.ndarray, k: int, margin: int) -> Move:
    """strong's move (ambush adversarial) by its module doc (boardlab.agents.cartographers.strong), from the public API
    and the slow features; draws from rng's policy stream as the kernel promises.

    Parameters
    ----------
    game : Game
        A position of the public API.
    rng : numpy.ndarray
        uint64, shape ``(2,)``: stream states, advanced in place.
    vw : numpy.ndarray
        float64: the learned value's weights.
    k : int
        Candidates kept at most (strong's ``k``).
    margin : int
        A candidate's planner value is at least the best's minus this (strong's ``margin``).

    Returns
    -------
    Move
        The move.
    """
    moves, values = move_values(game, "planner")
    sign = -1 if game.phase == "monster" else 1
    values = [sign * v for v in values]
    best = max(values)
    gaps = [best - v for v in values]
    above, level = 0, margin  # every move above the level, and as many at it as fit (k in all)
    for d in range(margin + 1):
        at = gaps.count(d)
        if above + at >= k or d == margin:
            level = d
            break
        above += at
    cand = [i for i, d in enumerate(gaps) if d < level]
    slots = k - above
    seen = 0
    for i, d in enumerate(gaps):
        if d != level:
            continue
        if seen < slots:
            cand.append(i)
        else:
            j = int(rand_below(rng, POLICY, seen + 1))
            if j < slots:
                cand[above + j] = i
        seen += 1
    snap = game.snapshot()
    season = snap["season"]
    b = 2 * season + (2 * snap["time"] >= game.rules.seasons[season].threshold)
    top, ties, pick = -1e300, 0, None
    for i in cand:
        f = strong_features(game, *map_after(game, moves[i]))
        tot = values[i] + sign * sum(float(a) * x for a, x in zip(vw[b], f, strict=True))
        if tot > top + 1e-9:
            top, ties, pick = tot, 1, i
        elif tot > top - 1e-9:
            ties += 1
            if rand_below(rng, POLICY, ties) == 0:
                pick = i
    return moves[pick]
