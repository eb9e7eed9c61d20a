"""The reference implementation of Cartographers: the slow, obvious oracle.

Design notes: docs/games/cartographers/engine.md#reference-implementation.
"""

from __future__ import annotations

import copy
from collections import deque

from .moves import Move
from .rules import (
    EMPTY,
    FARM,
    FOREST,
    MONSTER,
    MOUNTAIN,
    N_CELLS,
    SIZE,
    STATE_LETTERS,
    STATES,
    VILLAGE,
    WATER,
    Rules,
    load_rules,
)

MASK64 = (1 << 64) - 1
POLICY_XOR = 0x5851F42D4C957F2D
LAST = SIZE - 1


# --- random numbers (contract 2) ------------------------------------------------------------


class SplitMix64:
    """The SplitMix64 generator of docs/games/citywright/engine.md, in Python integers masked to 64 bits.

    Parameters
    ----------
    seed : int
        The initial state (taken modulo 2**64).
    """

    def __init__(self, seed: int):
        self.state = seed & MASK64

    def next(self) -> int:
        """Advance the state and return its output.

        Returns
        -------
        int
            The next 64-bit output (the state advanced).
        """
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def rand(self, n: int) -> int:
        """An integer in 0..n-1.

        Parameters
        ----------
        n : int
            The number of values.

        Returns
        -------
        int
            The draw.
        """
        return ((self.next() >> 32) * n) >> 32

    def shuffle(self, a: list) -> None:
        """Fisher-Yates from the last index down, in place (contract 2, "Shuffle").

        Parameters
        ----------
        a : list
            The list shuffled.
        """
        for i in range(len(a) - 1, 0, -1):
            j = self.rand(i + 1)
            a[i], a[j] = a[j], a[i]


# --- cells and grids (docs/games/cartographers.md 0, 1.1) -----------------------------------------------


def on_map(r: int, c: int) -> bool:
    """Whether (r, c) is on the map.

    Parameters
    ----------
    r, c : int
        Row and column.

    Returns
    -------
    bool
        True inside the 11 x 11 map.
    """
    return 0 <= r < SIZE and 0 <= c < SIZE


def _neighbours_of(i: int) -> tuple[int, ...]:
    r, c = divmod(i, SIZE)
    return tuple(SIZE * nr + nc for nr, nc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)) if on_map(nr, nc))


# The on-map cells sharing a side with each cell (up, down, left, right).
NEIGHBOURS = tuple(_neighbours_of(i) for i in range(N_CELLS))


def on_edge(i: int) -> bool:
    """Whether cell i lies on the map's edge.

    Parameters
    ----------
    i : int
        A cell index, row-major.

    Returns
    -------
    bool
        True on the map's outer ring.
    """
    r, c = divmod(i, SIZE)
    return r in (0, LAST) or c in (0, LAST)


def edges_touched(i: int) -> int:
    """How many sides of the map a cell lies on (2 at a corner).

    Parameters
    ----------
    i : int
        A cell index.

    Returns
    -------
    int
        0, 1 or 2.
    """
    r, c = divmod(i, SIZE)
    return (r in (0, LAST)) + (c in (0, LAST))


def sides_closed(grid: list[int], i: int) -> bool:
    """Every one of the 4 sides of cell i is a filled cell or off the map.

    Parameters
    ----------
    grid : list of int
        The map: 121 state codes.
    i : int
        A cell index.

    Returns
    -------
    bool
        True when closed on all four sides.
    """
    return all(grid[n] != EMPTY for n in NEIGHBOURS[i])


def to_grid(grid) -> list[int]:
    """A grid as 121 state codes, from a list of codes or text in the grid letters (whitespace ignored).

    Parameters
    ----------
    grid : list of int or str
        The map as codes or letters.

    Returns
    -------
    list of int
        121 state codes.
    """
    if isinstance(grid, str):
        text = "".join(grid.split())
        if len(text) != N_CELLS:
            raise ValueError(f"a grid has {N_CELLS} cells, got {len(text)}")
        bad = sorted(set(text) - set(STATE_LETTERS))
        if bad:
            raise ValueError(f"grid letters are {STATE_LETTERS!r}, got {bad}")
        return [STATE_LETTERS.index(ch) for ch in text]
    out = [int(x) for x in grid]
    if len(out) != N_CELLS or not all(0 <= x < len(STATES) for x in out):
        raise ValueError(f"a grid is {N_CELLS} state codes 0..{len(STATES) - 1}")
    return out


def grid_string(grid: list[int]) -> str:
    """A map as 121 state letters.

    Parameters
    ----------
    grid : list of int
        The map: 121 state codes.

    Returns
    -------
    str
        121 letters from ".TVFWGMX".
    """
    return "".join(STATE_LETTERS[x] for x in grid)


def clusters(grid: list[int], state: int) -> list[set[int]]:
    """The maximal 4-connected groups of cells holding `state` (breadth-first search), by first cell.

    Parameters
    ----------
    grid : list of int
        The map: 121 state codes.
    state : int
        The state code.

    Returns
    -------
    list of set of int
        The groups' cells.
    """
    seen: set[int] = set()
    out = []
    for start in range(N_CELLS):
        if grid[start] != state or start in seen:
            continue
        group = {start}
        seen.add(start)
        queue = deque([start])
        while queue:
            i = queue.popleft()
            for n in NEIGHBOURS[i]:
                if grid[n] == state and n not in seen:
                    seen.add(n)
                    group.add(n)
                    queue.append(n)
        out.append(group)
    return out


def _cells_of(grid: list[int], state: int) -> list[int]:
    return [i for i in range(N_CELLS) if grid[i] == state]


def _touches(grid: list[int], i: int, state: int) -> bool:
    return any(grid[n] == state for n in NEIGHBOURS[i])


# --- scoring cards (docs/games/cartographers.md 4; contract 7.1) -------------------------------------------


def sentinel_wood(grid, ruins, p) -> int:
    """Scoring card 26: its points on a map (docs/games/cartographers.md 4).

    Parameters
    ----------
    grid : list of int
        The map: 121 state codes.
    ruins : tuple of int
        The ruins cells.
    p : dict
        The rules' scoring parameters (``Rules.scoring``).

    Returns
    -------
    int
        The card's points.
    """
    forest = [i for i in _cells_of(grid, FOREST) if on_edge(i)]
    if p["sentinel_wood"]["corner_once"]:
        return len(forest)
    return sum(edges_touched(i) for i in forest)


def greenbough(grid, ruins, p) -> int:
    """Scoring card 27: its points on a map (docs/games/cartographers.md 4).

    Parameters
    ----------
    grid : list of int
        The map: 121 state codes.
    ruins : tuple of int
        The ruins cells.
    p : dict
        The rules' scoring parameters (``Rules.scoring``).

    Returns
    -------
    int
        The card's points.
    """
    forest = _cells_of(grid, FOREST)
    return len({i // SIZE for i in forest}) + len({i % SIZE for i in forest})


def treetower(grid, ruins, p) -> int:
    """Scoring card 28: its points on a map (docs/games/cartographers.md 4).

    Parameters
    ----------
    grid : list of int
        The map: 121 state codes.
    ruins : tuple of int
        The ruins cells.
    p : dict
        The rules' scoring parameters (``Rules.scoring``).

    Returns
    -------
    int
        The card's points.
    """
    return sum(1 for i in _cells_of(grid, FOREST) if sides_closed(grid, i))


def stoneside_forest(grid, ruins, p) -> int:
    """Scoring card 29: its points on a map (docs/games/cartographers.md 4).

    Parameters
    ----------
    grid : list of int
        The map: 121 state codes.
    ruins : tuple of int
        The ruins cells.
    p : dict
        The rules' scoring parameters (``Rules.scoring``).

    Returns
    -------
    int
        The card's points.
    """
    if p["stoneside_forest"]["link"] == "any":
        return 3 * sum(1 for m in _cells_of(grid, MOUNTAIN) if _touches(grid, m, FOREST))
    linked: set[int] = set()
    for group in clusters(grid, FOREST):
        touching = {n for i in group for n in NEIGHBOURS[i] if grid[n] == MOUNTAIN}
        if len(touching) >= 2:  # this cluster joins each of these mountains to another one
            linked |= touching
    return 3 * len(linked)


def canal_lake(grid, ruins, p) -> int:
    """Scoring card 30: its points on a map (docs/games/cartographers.md 4).

    Parameters
    ----------
    grid : list of int
        The map: 121 state codes.
    ruins : tuple of int
        The ruins cells.
    p : dict
        The rules' scoring parameters (``Rules.scoring``).

    Returns
    -------
    int
        The card's points.
    """
    water = sum(1 for i in _cells_of(grid, WATER) if _touches(grid, i, FARM))
    farm = sum(1 for i in _cells_of(grid, FARM) if _touches(grid, i, WATER))
    return water + farm


def mages_valley(grid, ruins, p) -> int:
    """Scoring card 31: its points on a map (docs/games/cartographers.md 4).

    Parameters
    ----------
    grid : list of int
        The map: 121 state codes.
    ruins : tuple of int
        The ruins cells.
    p : dict
        The rules' scoring parameters (``Rules.scoring``).

    Returns
    -------
    int
        The card's points.
    """
    water = sum(1 for i in _cells_of(grid, WATER) if _touches(grid, i, MOUNTAIN))
    farm = sum(1 for i in _cells_of(grid, FARM) if _touches(grid, i, MOUNTAIN))
    return 2 * water + farm


def golden_granary(grid, ruins, p) -> int:
    """Scoring card 32: its points on a map (docs/games/cartographers.md 4).

    Parameters
    ----------
    grid : list of int
        The map: 121 state codes.
    ruins : tuple of int
        The ruins cells.
    p : dict
        The rules' scoring parameters (``Rules.scoring``).

    Returns
    -------
    int
        The card's points.
    """
    q = p["golden_granary"]
    spaces = set(ruins) if q["filled_ruins_count"] else {i for i in ruins if grid[i] == EMPTY}
    water = sum(1 for i in _cells_of(grid, WATER) if any(n in spaces for n in NEIGHBOURS[i]))
    farm_on_ruins = sum(1 for i in ruins if grid[i] == FARM)
    return q["water_points"] * water + 3 * farm_on_ruins


def shoreside_expanse(grid, ruins, p) -> int:
    """Scoring card 33: its points on a map (docs/games/cartographers.md 4).

    Parameters
    ----------
    grid : list of int
        The map: 121 state codes.
    ruins : tuple of int
        The ruins cells.
    p : dict
        The rules' scoring parameters (``Rules.scoring``).

    Returns
    -------
    int
        The card's points.
    """

    def lonely(state: int, other: int) -> int:
        return sum(
            1
            for group in clusters(grid, state)
            if not any(on_edge(i) for i in group) and not any(_touches(grid, i, other) for i in group)
        )

    return 3 * lonely(FARM, WATER) + 3 * lonely(WATER, FARM)


def wildholds(grid, ruins, p) -> int:
    """Scoring card 34: its points on a map (docs/games/cartographers.md 4).

    Parameters
    ----------
    grid : list of int
        The map: 121 state codes.
    ruins : tuple of int
        The ruins cells.
    p : dict
        The rules' scoring parameters (``Rules.scoring``).

    Returns
    -------
    int
        The card's points.
    """
    return 8 * sum(1 for group in clusters(grid, VILLAGE) if len(group) >= 6)


def great_city(grid, ruins, p) -> int:
    """Scoring card 35: its points on a map (docs/games/cartographers.md 4).

    Parameters
    ----------
    grid : list of int
        The map: 121 state codes.
    ruins : tuple of int
        The ruins cells.
    p : dict
        The rules' scoring parameters (``Rules.scoring``).

    Returns
    -------
    int
        The card's points.
    """
    sizes = [len(g) for g in clusters(grid, VILLAGE) if not any(_touches(grid, i, MOUNTAIN) for i in g)]
    return max(sizes, default=0)


def greengold_plains(grid, ruins, p) -> int:
    """Scoring card 36: its points on a map (docs/games/cartographers.md 4).

    Parameters
    ----------
    grid : list of int
        The map: 121 state codes.
    ruins : tuple of int
        The ruins cells.
    p : dict
        The rules' scoring parameters (``Rules.scoring``).

    Returns
    -------
    int
        The card's points.
    """
    counted = {STATES.index(name) for name in p["greengold_plains"]["types"]}
    points = 0
    for group in clusters(grid, VILLAGE):
        around = {grid[n] for i in group for n in NEIGHBOURS[i] if grid[n] != VILLAGE}
        if len(around & counted) >= 3:
            points += 3
    return points


def shieldgate(grid, ruins, p) -> int:
    """Scoring card 37: its points on a map (docs/games/cartographers.md 4).

    Parameters
    ----------
    grid : list of int
        The map: 121 state codes.
    ruins : tuple of int
        The ruins cells.
    p : dict
        The rules' scoring parameters (``Rules.scoring``).

    Returns
    -------
    int
        The card's points.
    """
    sizes = sorted((len(g) for g in clusters(grid, VILLAGE)), reverse=True)
    if p["shieldgate"]["second"] == "distinct":
        sizes = sorted(set(sizes), reverse=True)
    return 2 * sizes[1] if len(sizes) >= 2 else 0


def borderlands(grid, ruins, p) -> int:
    """Scoring card 38: its points on a map (docs/games/cartographers.md 4).

    Parameters
    ----------
    grid : list of int
        The map: 121 state codes.
    ruins : tuple of int
        The ruins cells.
    p : dict
        The rules' scoring parameters (``Rules.scoring``).

    Returns
    -------
    int
        The card's points.
    """
    rows = sum(1 for r in range(SIZE) if all(grid[SIZE * r + c] != EMPTY for c in range(SIZE)))
    cols = sum(1 for c in range(SIZE) if all(grid[SIZE * r + c] != EMPTY for r in range(SIZE)))
    return 6 * (rows + cols)


def lost_barony(grid, ruins, p) -> int:
    """Scoring card 39: its points on a map (docs/games/cartographers.md 4).

    Parameters
    ----------
    grid : list of int
        The map: 121 state codes.
    ruins : tuple of int
        The ruins cells.
    p : dict
        The rules' scoring parameters (``Rules.scoring``).

    Returns
    -------
    int
        The card's points.
    """

    def square_filled(r: int, c: int, k: int) -> bool:
        return all(grid[SIZE * (r + dr) + c + dc] != EMPTY for dr in range(k) for dc in range(k))

    best = 0
    for k in range(1, SIZE + 1):
        if any(square_filled(r, c, k) for r in range(SIZE - k + 1) for c in range(SIZE - k + 1)):
            best = k
    return 3 * best


def broken_road(grid, ruins, p) -> int:
    """Scoring card 40: its points on a map (docs/games/cartographers.md 4).

    Parameters
    ----------
    grid : list of int
        The map: 121 state codes.
    ruins : tuple of int
        The ruins cells.
    p : dict
        The rules' scoring parameters (``Rules.scoring``).

    Returns
    -------
    int
        The card's points.
    """
    full = sum(1 for r in range(SIZE) if all(grid[SIZE * (r + i) + i] != EMPTY for i in range(SIZE - r)))
    return 3 * full


def cauldrons(grid, ruins, p) -> int:
    """Scoring card 41: its points on a map (docs/games/cartographers.md 4).

    Parameters
    ----------
    grid : list of int
        The map: 121 state codes.
    ruins : tuple of int
        The ruins cells.
    p : dict
        The rules' scoring parameters (``Rules.scoring``).

    Returns
    -------
    int
        The card's points.
    """
    return sum(1 for i in _cells_of(grid, EMPTY) if sides_closed(grid, i))


SCORING = {
    26: sentinel_wood,
    27: greenbough,
    28: treetower,
    29: stoneside_forest,
    30: canal_lake,
    31: mages_valley,
    32: golden_granary,
    33: shoreside_expanse,
    34: wildholds,
    35: great_city,
    36: greengold_plains,
    37: shieldgate,
    38: borderlands,
    39: lost_barony,
    40: broken_road,
    41: cauldrons,
}


def _ruins_of(map) -> tuple[int, ...]:
    """Ruins cells from a MapSide (or anything with `.ruins`) or a collection of cell indices."""
    return tuple(getattr(map, "ruins", map))


def score_card(card_id: int, grid, map, rules: Rules | None = None) -> int:
    """Points of scoring card `card_id` (26-41) on `grid` (121 codes or letters), ruins from `map`.

    Parameters
    ----------
    card_id : int
        The scoring card, 26-41.
    grid : list of int or str
        The map.
    map : MapSide or collection of int
        Where the ruins are.
    rules : Rules or None
        The rule set (None: the default preset).

    Returns
    -------
    int
        The card's points.
    """
    if card_id not in SCORING:
        raise ValueError(f"scoring cards are 26-41, got {card_id!r}")
    rules = load_rules(rules)
    return SCORING[card_id](to_grid(grid), _ruins_of(map), rules.scoring)


def monster_penalty(grid, map, rules: Rules | None = None) -> int:
    """Empty cells next to at least one monster, each once (docs/games/cartographers.md 5.5, §7.13).

    Parameters
    ----------
    grid : list of int or str
        The map.
    map : MapSide or collection of int
        Where the ruins are.
    rules : Rules or None
        The rule set (None: the default preset).

    Returns
    -------
    int
        The number of such cells (0 when the rules have no penalty).
    """
    rules = load_rules(rules)
    if not rules.scoring["monster_penalty"]:
        return 0
    g = to_grid(grid)
    ruins = set(_ruins_of(map))
    skip_ruins = not rules.scoring["penalty_counts_empty_ruins"]
    return sum(1 for i in _cells_of(g, EMPTY) if _touches(g, i, MONSTER) and not (skip_ruins and i in ruins))


# --- shapes (contract 5.1) ---------------------------------------------------------------------


def orient(cells, orientation: int) -> tuple[tuple[int, int], ...]:
    """A shape's cells under one orientation index, shifted to start at (0, 0); cell k -> cell k.

    Parameters
    ----------
    cells : iterable of tuple of int
        The shape's (row, col) cells.
    orientation : int
        0..7.

    Returns
    -------
    tuple of tuple of int
        The oriented cells.
    """
    points = list(cells)
    if orientation >= 4:
        points = [(r, -c) for r, c in points]
    for _ in range(orientation % 4):
        points = [(c, -r) for r, c in points]
    top = min(r for r, _ in points)
    left = min(c for _, c in points)
    return tuple((r - top, c - left) for r, c in points)


def canonical_orientations(cells) -> list[tuple[int, tuple[tuple[int, int], ...]]]:
    """(index, oriented cells) for the first index giving each distinct set of cells, increasing.

    Parameters
    ----------
    cells : iterable of tuple of int
        The shape's cells.

    Returns
    -------
    list of tuple
        (orientation index, cells).
    """
    seen = set()
    out = []
    for o in range(8):
        oriented = orient(cells, o)
        key = frozenset(oriented)
        if key not in seen:
            seen.add(key)
            out.append((o, oriented))
    return out


def placements(grid: list[int], oriented) -> list[tuple[tuple[int, int], tuple[tuple[int, int], ...]]]:
    """(anchor, cells) of every free placement of one oriented shape, anchors row-major.

    Parameters
    ----------
    grid : list of int
        The map: 121 state codes.
    oriented : tuple of tuple of int
        An oriented shape's cells.

    Returns
    -------
    list of tuple
        (anchor, cells) per placement.
    """
    h = 1 + max(r for r, _ in oriented)
    w = 1 + max(c for _, c in oriented)
    out = []
    for ar in range(SIZE - h + 1):
        for ac in range(SIZE - w + 1):
            cells = tuple((ar + r, ac + c) for r, c in oriented)
            if all(grid[SIZE * r + c] == EMPTY for r, c in cells):
                out.append(((ar, ac), cells))
    return out


# --- solo ambush (docs/games/cartographers.md 6.1; contract 6) ---------------------------------------------


def ring_walk(h: int, w: int, corner: str, arrow: str, walk: str = "ring") -> list[list[tuple[int, int]]]:
    """Anchors of a h x w box, ring by ring (outer first), each ring in walk order.

    Parameters
    ----------
    h, w : int
        The box's height and width.
    corner : str
        The corner each ring starts at: ``top-left``, ``top-right``, ``bottom-right`` or ``bottom-left``.
    arrow : str
        ``clockwise`` or counter-clockwise (any other value).
    walk : str
        ``ring`` (round each ring) or ``side`` (each ring only up to the next corner).

    Returns
    -------
    list of list of tuple of int
        Per ring, its anchors in order.
    """
    rings = []
    k = 0
    while True:
        bottom = LAST - k - (h - 1)
        right = LAST - k - (w - 1)
        if bottom < k or right < k:
            return rings
        cycle: list[tuple[int, int]] = []

        def add(a, cycle=cycle):
            if a not in cycle:
                cycle.append(a)

        for c in range(k, right + 1):  # top, left to right
            add((k, c))
        for r in range(k + 1, bottom + 1):  # right side, down
            add((r, right))
        for c in range(right - 1, k - 1, -1):  # bottom, right to left
            add((bottom, c))
        for r in range(bottom - 1, k, -1):  # left side, up
            add((r, k))
        corners = {
            "top-left": (k, k),
            "top-right": (k, right),
            "bottom-right": (bottom, right),
            "bottom-left": (bottom, k),
        }
        start = cycle.index(corners[corner])
        step = 1 if arrow == "clockwise" else -1
        order = [cycle[(start + step * i) % len(cycle)] for i in range(len(cycle))]
        if walk == "side":
            corner_anchors = set(corners.values())
            for i in range(1, len(order)):
                if order[i] in corner_anchors:
                    order = order[: i + 1]
                    break
        rings.append(order)
        k += 1


def solo_ambush_cells(grid, ambush, rules: Rules | None = None) -> tuple[tuple[int, int], ...] | None:
    """Where a solo ambush (an AmbushCard) draws its monster on `grid`, or None when it is ignored.

    Parameters
    ----------
    grid : list of int or str
        The solo map.
    ambush : AmbushCard
        The ambush card.
    rules : Rules or None
        The rule set.

    Returns
    -------
    tuple of tuple of int or None
        The monster's cells.
    """
    rules = load_rules(rules)
    g = to_grid(grid)
    h = 1 + max(r for r, _ in ambush.cells)
    w = 1 + max(c for _, c in ambush.cells)
    for ring in ring_walk(h, w, ambush.corner, ambush.arrow, rules.solo["walk"]):
        for ar, ac in ring:
            cells = tuple((ar + r, ac + c) for r, c in ambush.cells)
            if all(g[SIZE * r + c] == EMPTY for r, c in cells):
                return cells
    return None


def solo_title(rating: int, rules: Rules) -> str | None:
    """The title of the highest row of the title table that `rating` meets (docs/games/cartographers.md 6.2).

    Parameters
    ----------
    rating : int
        The solo rating.
    rules : Rules
        The rule set (its title table).

    Returns
    -------
    str or None
        The title.
    """
    for threshold, title in rules.titles:
        if rating >= threshold:
            return title
    if rules.solo["below_titles"] == "lowest":
        return rules.titles[-1][1]
    return None


# --- the game ------------------------------------------------------------------------------------


class RefGame:
    """One game, played decision by decision (docs/games/cartographers/engine.md).

    State, all plain Python:
      grids    : per seat, a list of 121 state codes
      coins    : per seat;  paid : per seat, the set of paid mountain cells
      deck, ambush, revealed, ambushes_out : lists of card ids, top (or first) at index 0
      season, time, phase ("draw" | "monster" | "done"), card, k (decisions made this phase),
      ruins_pending, records (per seat, one dict per scored season)

    Parameters
    ----------
    players : int
        1..5.
    rules : Rules
        The rule set.
    seed : int
        The game seed.
    """

    def __init__(self, players: int, rules, seed: int):
        if not isinstance(players, int) or not 1 <= players <= 5:
            raise ValueError(f"1 to 5 players, got {players!r}")
        self.players = players
        self.rules = load_rules(rules)
        self.seed = seed & MASK64
        self.chance = SplitMix64(self.seed)
        self.policy = SplitMix64(self.seed ^ POLICY_XOR)

        r = self.rules
        self.map = r.map
        self.explore = {card.id: card for card in r.explore_cards}
        self.ambush_cards = {card.id: card for card in r.ambush_cards}
        self.ruins_ids = r.ruins_cards
        self.seasons = r.seasons
        self.solo_numbers = {card.id: card.solo for card in r.scoring_cards}
        # Canonical orientations of every shape, computed once.
        self.shapes = {
            (card.id, o): canonical_orientations(opt.cells)
            for card in r.explore_cards
            for o, opt in enumerate(card.options)
        }
        self.monster_shapes = {a.id: canonical_orientations(a.cells) for a in r.ambush_cards}

        self.grids = [self.map.initial_grid() for _ in range(players)]
        self.coins = [0] * players
        self.paid: list[set[int]] = [set() for _ in range(players)]
        self.records: list[list[dict]] = [[] for _ in range(players)]
        self.decisions = [0] * players  # decisions made by each seat (for invariants)

        self.season = 0
        self.time = 0
        self.revealed: list[int] = []
        self.ambushes_out: list[int] = []
        self.ruins_pending = False
        self.phase = "draw"
        self.card = -1
        self.k = 0
        self._legal: list[Move] | None = None
        self._setup()
        self._explore()

    # --- chance (contract 3) ---------------------------------------------------------------

    def _setup(self) -> None:
        r = self.rules
        if r.setup["edicts"]:
            self.edicts = [int(x) for x in r.setup["edicts"]]
        else:
            chosen = []
            for category in r.categories:
                cards = [c.id for c in r.scoring_cards if c.category == category]
                chosen.append(cards[self.chance.rand(len(cards))])
            if r.setup["edict_order"] == "random":
                self.chance.shuffle(chosen)
            self.edicts = chosen
        self.ambush = sorted(self.ambush_cards)
        self.chance.shuffle(self.ambush)
        self.deck = sorted(self.ruins_ids) + sorted(self.explore)
        self.chance.shuffle(self.deck)
        x = self.ambush.pop(0)
        self.deck.insert(self.chance.rand(len(self.deck) + 1), x)

    def _next_season(self) -> None:
        pool = self.deck + self.revealed
        if self.ambush:
            pool.append(self.ambush.pop(0))
        self.chance.shuffle(pool)
        self.deck = pool
        self.revealed = []
        self.time = 0
        self.season += 1

    # --- the turn loop (contract 4) -------------------------------------------------------------

    def _explore(self) -> None:
        while True:
            if not self.deck:  # pragma: no cover - the rule set's threshold check makes this impossible
                raise RuntimeError("the explore deck ran out within a season")
            x = self.deck.pop(0)
            if x in self.ruins_ids:
                self.revealed.append(x)
                self.ruins_pending = True
                continue
            if x in self.ambush_cards:
                self.ambushes_out.append(x)
                if self.players == 1:
                    self._solo_ambush(self.ambush_cards[x])
                    continue
                self.phase, self.card, self.k = "monster", x, 0
                return
            self.revealed.append(x)
            self.time += self.explore[x].time
            self.phase, self.card, self.k = "draw", x, 0
            return

    def _solo_ambush(self, ambush) -> None:
        cells = solo_ambush_cells(self.grids[0], ambush, self.rules)
        if cells is not None:
            self._fill(0, cells, MONSTER, mover=None)

    def _source(self, receiver: int) -> int:
        """The map the receiving seat holds during an ambush (contract 4.2)."""
        clockwise = self.ambush_cards[self.card].arrow == "clockwise"
        to_next = self.rules.ambush["pass_clockwise_to"] == "next"
        step = -1 if clockwise == to_next else 1
        return (receiver + step) % self.players

    @property
    def done(self) -> bool:
        """Whether the game is over."""
        return self.phase == "done"

    @property
    def current(self) -> int:
        """The seat to decide (0-based)."""
        return -1 if self.done else self.k

    @property
    def target(self) -> int:
        """The map the decision draws on (the seat's own, or the one a monster is drawn on); -1 when done."""
        if self.done:
            return -1
        return self.k if self.phase == "draw" else self._source(self.k)

    # --- moves (contract 5) ----------------------------------------------------------------------

    def legal_moves(self) -> list[Move]:
        """Every legal move of the decision at hand.

        Returns
        -------
        list of Move
            In the contract's listing order.
        """
        if self.done:
            return []
        if self._legal is None:
            self._legal = self._list_moves()
        return list(self._legal)

    def _list_moves(self) -> list[Move]:
        target = self.target
        grid = self.grids[target]
        card = self.card
        if EMPTY not in grid:
            return [Move("skip", target, card)]
        moves = []
        if self.phase == "draw":
            terrains = self.explore[card].terrains
            ruins = set(self.map.ruins)
            for option in range(len(self.explore[card].options)):
                for o, oriented in self.shapes[(card, option)]:
                    for anchor, cells in placements(grid, oriented):
                        if self.ruins_pending and not any(SIZE * r + c in ruins for r, c in cells):
                            continue
                        for t in terrains:
                            moves.append(Move("draw", target, card, option, o, anchor, cells, t))
            if not moves:
                if self.rules.draw["fallback_from"] == "any" or self.ruins_pending:
                    terrains = tuple(self.rules.draw["fallback_terrains"])
                moves = [
                    Move("fallback", target, card, -1, -1, divmod(i, SIZE), (divmod(i, SIZE),), t)
                    for i in _cells_of(grid, EMPTY)
                    for t in terrains
                ]
        else:
            for o, oriented in self.monster_shapes[card]:
                for anchor, cells in placements(grid, oriented):
                    moves.append(Move("monster", target, card, 0, o, anchor, cells, "monster"))
            if not moves:
                moves = [
                    Move("fallback", target, card, -1, -1, divmod(i, SIZE), (divmod(i, SIZE),), "monster")
                    for i in _cells_of(grid, EMPTY)
                ]
        return moves

    def is_legal(self, move) -> bool:
        """Whether `move` is legal now.

        Parameters
        ----------
        move : Move
            A move.

        Returns
        -------
        bool
            True when legal now.
        """
        return not self.done and move in self.legal_moves()

    def random_move(self) -> Move:
        """The reference random player's move (the policy stream advances; the game does not move).

        Returns
        -------
        Move
            legal[rand(len(legal))] from the policy stream.
        """
        moves = self.legal_moves()
        if not moves:
            raise ValueError("the game is over: no move to choose")
        return moves[self.policy.rand(len(moves))]

    def _fill(self, seat: int, cells, state: int, mover: int | None) -> None:
        """Draw `state` on `cells` of `seat`'s map, then pay its newly surrounded mountains (contract 5.4)."""
        grid = self.grids[seat]
        for r, c in cells:
            grid[SIZE * r + c] = state
        self._mountain_coins(seat, mover)

    def _gain(self, seat: int) -> None:
        self.coins[seat] = min(self.rules.coins["cap"], self.coins[seat] + 1)

    def _mountain_coins(self, seat: int, mover: int | None) -> None:
        grid = self.grids[seat]
        for m in self.map.mountains:
            if m in self.paid[seat] or not sides_closed(grid, m):
                continue
            self.paid[seat].add(m)
            receiver = seat if self.rules.coins["mountain_to_owner"] else mover
            if receiver is not None:
                self._gain(receiver)

    def apply(self, move) -> None:
        """Play `move` for the current decision-maker (ValueError if it is illegal; nothing changes then).

        Parameters
        ----------
        move : Move
            A legal move.
        """
        if self.done:
            raise ValueError("the game is over: no one is to move")
        if not isinstance(move, Move):
            raise ValueError(f"expected a boardlab.sim.cartographers.moves.Move, got {type(move).__name__}")
        if move not in self.legal_moves():
            raise ValueError(f"illegal move for seat {self.current}: {move}")
        seat = self.current
        if move.kind != "skip":
            state = STATES.index(move.terrain)
            if move.kind == "draw" and self.explore[move.card].options[move.option].coin:
                self._gain(seat)  # the card coin comes first (contract 5.4); both are capped
            self._fill(move.map, move.cells, state, mover=seat)
        self.decisions[seat] += 1
        self._legal = None
        self.k += 1
        if self.k < self.players:
            return
        if self.phase == "draw":
            self.ruins_pending = False
            if self.time >= self.seasons[self.season].threshold:
                self._score_season()
                if self.season == len(self.seasons) - 1:
                    self.phase, self.card = "done", -1
                    return
                self._next_season()
        self._explore()

    # --- scoring (contract 7) --------------------------------------------------------------------

    def _score_season(self) -> None:
        first, second = self.seasons[self.season].edicts
        for seat in range(self.players):
            grid = self.grids[seat]
            e1 = score_card(self.edicts[first], grid, self.map, self.rules)
            e2 = score_card(self.edicts[second], grid, self.map, self.rules)
            m = monster_penalty(grid, self.map, self.rules)
            c = self.coins[seat]
            self.records[seat].append({"e1": e1, "e2": e2, "coins": c, "monster": m, "total": e1 + e2 + c - m})

    def scores(self) -> list[dict]:
        """Per seat: season records, edict points, coins, monster penalty, total, rank and win share.

        Returns
        -------
        list of dict
            One entry per seat.
        """
        out = []
        for seat in range(self.players):
            recs = self.records[seat]
            by_edict = [0, 0, 0, 0]
            for s, rec in enumerate(recs):
                first, second = self.seasons[s].edicts
                by_edict[first] += rec["e1"]
                by_edict[second] += rec["e2"]
            row = {
                "seasons": [{"season": self.seasons[s].name, **rec} for s, rec in enumerate(recs)],
                "edicts": by_edict,
                "edict_points": sum(r["e1"] + r["e2"] for r in recs),
                "coin_points": sum(r["coins"] for r in recs),
                "monster_penalty": sum(r["monster"] for r in recs),
                "total": sum(r["total"] for r in recs),
                "rating": None,
                "title": None,
            }
            out.append(row)

        def standing(row):  # larger is better
            if self.rules.ties["monster_penalty"]:
                return (row["total"], -row["monster_penalty"])
            return (row["total"],)

        for row in out:
            row["rank"] = 1 + sum(1 for other in out if standing(other) > standing(row))
        winners = sum(1 for row in out if row["rank"] == 1)
        for row in out:
            row["win_share"] = 1.0 / winners if row["rank"] == 1 else 0.0
        if self.players == 1:
            row = out[0]
            row["rating"] = row["total"] - sum(self.solo_numbers[e] for e in self.edicts)
            row["title"] = solo_title(row["rating"], self.rules)
        return out

    # --- observation (contract 8) ----------------------------------------------------------------

    def snapshot(self) -> dict:
        """The position as plain data, in the engine's snapshot() format.

        Returns
        -------
        dict
            The engine's snapshot() format.
        """
        return {
            "players": self.players,
            "side": self.map.side,
            "edicts": list(self.edicts),
            "season": self.season,
            "time": self.time,
            "phase": self.phase,
            "card": self.card,
            "current": self.current,
            "target": self.target,
            "ruins_pending": self.ruins_pending,
            "revealed": list(self.revealed),
            "deck": list(self.deck),
            "ambush_deck": list(self.ambush),
            "ambushes_out": list(self.ambushes_out),
            "grids": [grid_string(g) for g in self.grids],
            "coins": list(self.coins),
            "mountains_paid": [sorted(p) for p in self.paid],
            "seasons": [[dict(r) for r in recs] for recs in self.records],
            "done": self.done,
        }

    def copy(self) -> RefGame:
        """An independent copy.

        Returns
        -------
        RefGame
            The copy.
        """
        return copy.deepcopy(self, {id(self.rules): self.rules})

    # --- for tests and puzzles -------------------------------------------------------------------

    def set_grid(self, seat: int, grid) -> None:
        """Overwrite a seat's map (bypasses the rules; mountains and wasteland are the caller's business).

        Parameters
        ----------
        seat : int
            The seat.
        grid : list of int or str
            The map.
        """
        self.grids[seat] = to_grid(grid)
        self._legal = None
