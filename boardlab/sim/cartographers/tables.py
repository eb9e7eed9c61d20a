"""Cartographers' rule set -> plain arrays for the kernels, and the map's bit layout.

Design notes: docs/games/cartographers/engine.md#kernel-tables.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from boardlab.sim.bits import orient_cells
from boardlab.sim.layout import Layout

from .rules import (
    ARROWS,
    CORNERS,
    MAX_OPTIONS,
    MAX_PLAYERS,
    MAX_SHAPE_CELLS,
    MIN_PLAYERS,
    N_CELLS,
    SIZE,
    STATES,
    TERRAINS,
    Rules,
)

N_CARDS = 42  # printed ids 1..41; index 0 unused
MAX_TERRAINS = 5
MAX_DECK = 17  # 13 explore cards + 4 ambushes
MAX_REVEALED = 13
N_AMBUSH = 4
N_EDICTS = 4
N_SEASONS = 4
N_CATEGORIES = 4
MAX_CATEGORY_CARDS = 16

# --- 128-bit boards as Python ints (the kernels get them split into (lo, hi) words) -----------
_M64 = (1 << 64) - 1


def board_of(cells) -> int:
    """A board with the given cells set.

    Parameters
    ----------
    cells : iterable of int
        Cell indices.

    Returns
    -------
    int
        The board as a Python int (bit i: cell i).
    """
    b = 0
    for i in cells:
        b |= 1 << i
    return b


def split(board: int) -> tuple[int, int]:
    """A board's two 64-bit words.

    Parameters
    ----------
    board : int
        A 121-bit board.

    Returns
    -------
    tuple of int
        (lo, hi): bits 0..63 and the rest.
    """
    return board & _M64, board >> 64


ALL_CELLS = board_of(range(N_CELLS))
COL0 = board_of(11 * r for r in range(SIZE))
COL10 = board_of(11 * r + 10 for r in range(SIZE))
EDGE = board_of(11 * r + c for r in range(SIZE) for c in range(SIZE) if r in (0, 10) or c in (0, 10))
ROWS = [board_of(11 * r + c for c in range(SIZE)) for r in range(SIZE)]
COLS = [board_of(11 * r + c for r in range(SIZE)) for c in range(SIZE)]
# The Broken Road's diagonals: from (r, 0) down-right to the bottom edge.
DIAGONALS = [board_of(11 * (r + i) + i for i in range(SIZE - r)) for r in range(SIZE)]


def board_array(boards: list[int]) -> np.ndarray:
    """Python-int boards -> uint64[len, 2] (lo, hi).

    Parameters
    ----------
    boards : list of int
        Boards as Python ints.

    Returns
    -------
    numpy.ndarray
        uint64, shape ``(len(boards), 2)``.
    """
    a = np.zeros((len(boards), 2), dtype=np.uint64)
    for k, b in enumerate(boards):
        a[k] = split(b)
    return a


# Board constants the kernels read as module globals (numba freezes them).  Each is uint64[2].
B_ALL, B_NOT_COL0, B_NOT_COL10, B_EDGE = board_array([ALL_CELLS, ALL_CELLS & ~COL0, ALL_CELLS & ~COL10, EDGE])
B_ROWS = board_array(ROWS)  # uint64[11, 2]
B_COLS = board_array(COLS)
B_DIAGONALS = board_array(DIAGONALS)

# --- rp: scalar parameters ------------------------------------------------------------------------
_rp = Layout("rp")
RP_PLAYERS = _rp.add("players")
RP_COIN_CAP = _rp.add("coins.cap")
RP_MTN_TO_OWNER = _rp.add("coins.mountain_to_owner")
RP_PASS_NEXT = _rp.add("ambush.pass_clockwise_to == next")
RP_FALLBACK_ANY = _rp.add("draw.fallback_from == any")
RP_N_FALLBACK = _rp.add("len(draw.fallback_terrains)")
RP_FALLBACK = _rp.add("draw.fallback_terrains (codes)", MAX_TERRAINS)
RP_EDICTS_FIXED = _rp.add("setup.edicts given")
RP_EDICTS = _rp.add("setup.edicts", N_EDICTS)
RP_EDICT_RANDOM = _rp.add("setup.edict_order == random")
RP_CAT_N = _rp.add("scoring cards per category", N_CATEGORIES)
RP_CAT_CARDS = _rp.add("their ids ascending", N_CATEGORIES * MAX_CATEGORY_CARDS)
RP_N_RUINS = _rp.add("ruins cards")
RP_N_EXPLORE = _rp.add("shape cards")
RP_EXPLORE_IDS = _rp.add("ruins then shape card ids, ascending", MAX_REVEALED)
RP_N_AMBUSH = _rp.add("ambush cards")
RP_AMBUSH_IDS = _rp.add("ambush ids, ascending", N_AMBUSH)
RP_THRESHOLD = _rp.add("seasons.*.threshold", N_SEASONS)
RP_SEASON_EDICTS = _rp.add("seasons.*.edicts (2 per season)", 2 * N_SEASONS)
RP_SENTINEL_ONCE = _rp.add("scoring.sentinel_wood.corner_once")
RP_STONESIDE_CLUSTER = _rp.add("scoring.stoneside_forest.link == cluster")
RP_GRANARY_WATER = _rp.add("scoring.golden_granary.water_points")
RP_GRANARY_FILLED = _rp.add("scoring.golden_granary.filled_ruins_count")
RP_GREENGOLD_TYPES = _rp.add("scoring.greengold_plains.types (bit per state code)")
RP_SHIELDGATE_ENTRY = _rp.add("scoring.shieldgate.second == entry")
RP_PENALTY = _rp.add("scoring.monster_penalty")
RP_PENALTY_RUINS = _rp.add("scoring.penalty_counts_empty_ruins")
RP_TIES_MONSTER = _rp.add("ties.monster_penalty")
RP_N_MOUNTAINS = _rp.add("mountains on the map side")
RP_MOUNTAINS = _rp.add("their cells, ascending (the mountain order)", N_CELLS)
RP_LEN = _rp.size

# --- cards: per printed card id ------------------------------------------------------------------
CARD_NONE, CARD_AMBUSH, CARD_RUINS, CARD_EXPLORE, CARD_SCORING = range(5)
_cd = Layout("cards")
CD_KIND = _cd.add("kind")
CD_TIME = _cd.add("time (explore)")
CD_N_TERRAINS = _cd.add("terrains (explore)")
CD_TERRAINS = _cd.add("terrain codes in card order", MAX_TERRAINS)
CD_N_OPTIONS = _cd.add("shape options (explore; ambush: 1)")
CD_COIN = _cd.add("coin flag per option", MAX_OPTIONS)
CD_FORM_START = _cd.add("first form per option", MAX_OPTIONS)
CD_FORM_END = _cd.add("end of forms per option", MAX_OPTIONS)
CD_SOLO_FORM = _cd.add("ambush: the printed orientation's form")
CD_CLOCKWISE = _cd.add("ambush: arrow is clockwise")
CD_WALK_START = _cd.add("ambush: solo walk range start")
CD_WALK_END = _cd.add("ambush: solo walk range end")
CD_CATEGORY = _cd.add("scoring: category index")
CD_SOLO = _cd.add("scoring: solo number")
CD_LEN = _cd.size

# --- forms: canonical orientations -----------------------------------------------------------------
_fm = Layout("forms")
FM_ORIENT = _fm.add("orientation index")
FM_N = _fm.add("cells")
FM_H = _fm.add("height")
FM_W = _fm.add("width")
FM_OFF = _fm.add("cell offsets 11dr+dc, shape cell order", MAX_SHAPE_CELLS)
FM_DR = _fm.add("cell rows", MAX_SHAPE_CELLS)
FM_DC = _fm.add("cell columns", MAX_SHAPE_CELLS)
FM_LEN = _fm.size

# --- masks: the map side's boards -----------------------------------------------------------------
_mk = Layout("masks")
MK_MOUNTAINS = _mk.add("mountains")
MK_RUINS = _mk.add("ruins")
MK_WASTELAND = _mk.add("wasteland")
MK_MTN_NBR = _mk.add("neighbours of each mountain", N_CELLS)
MK_LEN = _mk.size


def canonical_orientations(cells) -> list[int]:
    """The first orientation index of each distinct cell set, increasing.

    Parameters
    ----------
    cells : iterable of tuple of int
        A shape's cells.

    Returns
    -------
    list of int
        Orientation indices, 0..7.
    """
    seen: set[frozenset] = set()
    out = []
    for o in range(8):
        key = frozenset(orient_cells(cells, o))
        if key not in seen:
            seen.add(key)
            out.append(o)
    return out


def ring_walk(h: int, w: int, corner: str, clockwise: bool, walk: str) -> list[tuple[int, int]]:
    """A solo ambush's anchors in test order (docs/games/cartographers/engine.md §6), every ring.

    Parameters
    ----------
    h, w : int
        The monster's height and width.
    corner : str
        The corner each ring starts at.
    clockwise : bool
        The walk's direction.
    walk : str
        ``ring`` or ``side``.

    Returns
    -------
    list of tuple of int
        The anchors (r, c), ring after ring.
    """
    out: list[tuple[int, int]] = []
    k = 0
    while True:
        bottom = SIZE - 1 - k - (h - 1)
        right = SIZE - 1 - k - (w - 1)
        if bottom < k or right < k:
            return out
        raw = [(k, c) for c in range(k, right + 1)]
        raw += [(r, right) for r in range(k + 1, bottom + 1)]
        raw += [(bottom, c) for c in range(right - 1, k - 1, -1)]
        raw += [(r, k) for r in range(bottom - 1, k, -1)]
        cycle = list(dict.fromkeys(raw))
        starts = {
            "top-left": (k, k),
            "top-right": (k, right),
            "bottom-right": (bottom, right),
            "bottom-left": (bottom, k),
        }
        i = cycle.index(starts[corner])
        step = 1 if clockwise else -1
        order = [cycle[(i + step * j) % len(cycle)] for j in range(len(cycle))]
        if walk == "side":
            corners = set(starts.values())
            for j in range(1, len(order)):
                if order[j] in corners:
                    order = order[: j + 1]
                    break
        out += order
        k += 1


@dataclass(frozen=True, eq=False)  # hashed by identity: one object per (rules, players)
class Tables:
    """A rule set's arrays at a player count, as the kernels read them, and the API's form look-ups."""

    rp: np.ndarray
    cards: np.ndarray
    forms: np.ndarray
    form_anchors: np.ndarray
    walk: np.ndarray
    masks: np.ndarray
    players: int
    # For the API: (card, option, orientation) -> form id (an ambush's option is 0), and each
    # form's cells (dr, dc) in the shape's cell order.
    form_of: dict
    form_cells: tuple

    def kernel_args(self) -> tuple:
        """The arrays the engine's kernels take, in their order.

        Returns
        -------
        tuple of numpy.ndarray
            ``(rp, cards, forms, form_anchors, walk, masks)``.
        """
        return self.rp, self.cards, self.forms, self.form_anchors, self.walk, self.masks


class _FormBuilder:
    def __init__(self) -> None:
        self.rows: list[list[int]] = []
        self.anchors: list[int] = []

    def add(self, cells) -> tuple[int, int, dict]:
        """Every canonical orientation of `cells` as a form; returns (start, end, {orientation: form})."""
        start = len(self.rows)
        index = {}
        for o in canonical_orientations(cells):
            oc = orient_cells(cells, o)
            h = max(r for r, _ in oc) + 1
            w = max(c for _, c in oc) + 1
            row = [0] * FM_LEN
            row[FM_ORIENT], row[FM_N], row[FM_H], row[FM_W] = o, len(oc), h, w
            for k, (r, c) in enumerate(oc):
                row[FM_OFF + k] = SIZE * r + c
                row[FM_DR + k] = r
                row[FM_DC + k] = c
            index[o] = len(self.rows)
            self.rows.append(row)
            self.anchors.append(board_of(SIZE * r + c for r in range(SIZE - h + 1) for c in range(SIZE - w + 1)))
        return start, len(self.rows), index


@lru_cache(maxsize=64)
def _tables(rules: Rules, players: int) -> Tables:
    rp = np.zeros(RP_LEN, dtype=np.int32)
    rp[RP_PLAYERS] = players
    rp[RP_COIN_CAP] = rules.coins["cap"]
    rp[RP_MTN_TO_OWNER] = rules.coins["mountain_to_owner"]
    rp[RP_PASS_NEXT] = rules.ambush["pass_clockwise_to"] == "next"
    rp[RP_FALLBACK_ANY] = rules.draw["fallback_from"] == "any"
    fb = rules.draw["fallback_terrains"]
    rp[RP_N_FALLBACK] = len(fb)
    rp[RP_FALLBACK : RP_FALLBACK + len(fb)] = [STATES.index(t) for t in fb]
    setup = rules.setup
    rp[RP_EDICTS_FIXED] = bool(setup["edicts"])
    if setup["edicts"]:
        rp[RP_EDICTS : RP_EDICTS + N_EDICTS] = setup["edicts"]
    rp[RP_EDICT_RANDOM] = setup["edict_order"] == "random"
    scoring_cards = rules.scoring_cards
    for ci, cat in enumerate(rules.categories):
        ids = sorted(c.id for c in scoring_cards if c.category == cat)
        rp[RP_CAT_N + ci] = len(ids)
        rp[RP_CAT_CARDS + ci * MAX_CATEGORY_CARDS : RP_CAT_CARDS + ci * MAX_CATEGORY_CARDS + len(ids)] = ids
    explore = rules.explore_cards
    ids = sorted(rules.ruins_cards) + sorted(c.id for c in explore)
    rp[RP_N_RUINS] = len(rules.ruins_cards)
    rp[RP_N_EXPLORE] = len(explore)
    rp[RP_EXPLORE_IDS : RP_EXPLORE_IDS + len(ids)] = ids
    ambushes = rules.ambush_cards
    rp[RP_N_AMBUSH] = len(ambushes)
    rp[RP_AMBUSH_IDS : RP_AMBUSH_IDS + len(ambushes)] = sorted(a.id for a in ambushes)
    for s, season in enumerate(rules.seasons):
        rp[RP_THRESHOLD + s] = season.threshold
        rp[RP_SEASON_EDICTS + 2 * s : RP_SEASON_EDICTS + 2 * s + 2] = season.edicts
    sc = rules.scoring
    rp[RP_SENTINEL_ONCE] = sc["sentinel_wood"]["corner_once"]
    rp[RP_STONESIDE_CLUSTER] = sc["stoneside_forest"]["link"] == "cluster"
    rp[RP_GRANARY_WATER] = sc["golden_granary"]["water_points"]
    rp[RP_GRANARY_FILLED] = sc["golden_granary"]["filled_ruins_count"]
    rp[RP_GREENGOLD_TYPES] = sum(1 << STATES.index(t) for t in sc["greengold_plains"]["types"])
    rp[RP_SHIELDGATE_ENTRY] = sc["shieldgate"]["second"] == "entry"
    rp[RP_PENALTY] = sc["monster_penalty"]
    rp[RP_PENALTY_RUINS] = sc["penalty_counts_empty_ruins"]
    rp[RP_TIES_MONSTER] = rules.ties["monster_penalty"]
    m = rules.map
    rp[RP_N_MOUNTAINS] = len(m.mountains)
    rp[RP_MOUNTAINS : RP_MOUNTAINS + len(m.mountains)] = m.mountains

    masks = np.zeros((MK_LEN, 2), dtype=np.uint64)
    masks[MK_MOUNTAINS] = split(board_of(m.mountains))
    masks[MK_RUINS] = split(board_of(m.ruins))
    masks[MK_WASTELAND] = split(board_of(m.wasteland))
    for j, i in enumerate(m.mountains):
        r, c = divmod(i, SIZE)
        sides = ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
        masks[MK_MTN_NBR + j] = split(board_of(SIZE * rr + cc for rr, cc in sides))

    cards = np.zeros((N_CARDS, CD_LEN), dtype=np.int32)
    forms = _FormBuilder()
    form_of: dict[tuple[int, int, int], int] = {}
    walk: list[int] = []
    for cid in rules.ruins_cards:
        cards[cid, CD_KIND] = CARD_RUINS
    for card in explore:
        row = cards[card.id]
        row[CD_KIND] = CARD_EXPLORE
        row[CD_TIME] = card.time
        row[CD_N_TERRAINS] = len(card.terrains)
        row[CD_TERRAINS : CD_TERRAINS + len(card.terrains)] = [STATES.index(t) for t in card.terrains]
        row[CD_N_OPTIONS] = len(card.options)
        for o, opt in enumerate(card.options):
            start, end, index = forms.add(opt.cells)
            row[CD_COIN + o] = opt.coin
            row[CD_FORM_START + o] = start
            row[CD_FORM_END + o] = end
            form_of.update({(card.id, o, orient): f for orient, f in index.items()})
    for amb in ambushes:
        row = cards[amb.id]
        row[CD_KIND] = CARD_AMBUSH
        row[CD_N_OPTIONS] = 1
        start, end, index = forms.add(amb.cells)
        row[CD_FORM_START] = start
        row[CD_FORM_END] = end
        row[CD_SOLO_FORM] = index[0]
        form_of.update({(amb.id, 0, orient): f for orient, f in index.items()})
        clockwise = amb.arrow == ARROWS[0]
        row[CD_CLOCKWISE] = clockwise
        assert amb.corner in CORNERS
        f = forms.rows[index[0]]
        anchors = ring_walk(f[FM_H], f[FM_W], amb.corner, clockwise, rules.solo["walk"])
        row[CD_WALK_START] = len(walk)
        walk += [SIZE * r + c for r, c in anchors]
        row[CD_WALK_END] = len(walk)
    categories = rules.categories
    for card in scoring_cards:
        row = cards[card.id]
        row[CD_KIND] = CARD_SCORING
        row[CD_CATEGORY] = categories.index(card.category)
        row[CD_SOLO] = card.solo

    forms_arr = np.array(forms.rows, dtype=np.int32).reshape(-1, FM_LEN)
    anchors_arr = board_array(forms.anchors)
    walk_arr = np.array(walk, dtype=np.int32)
    for a in (rp, cards, forms_arr, anchors_arr, walk_arr, masks):
        a.setflags(write=False)
    form_cells = tuple(tuple((row[FM_DR + k], row[FM_DC + k]) for k in range(row[FM_N])) for row in forms.rows)
    return Tables(rp, cards, forms_arr, anchors_arr, walk_arr, masks, players, form_of, form_cells)


def tables_for(rules: Rules, players: int) -> Tables:
    """The kernels' arrays for `rules` at `players` (cached per rule set and player count).

    Parameters
    ----------
    rules : Rules
        The rule set.
    players : int
        1..5.

    Returns
    -------
    Tables
        The arrays.
    """
    if not MIN_PLAYERS <= players <= MAX_PLAYERS:
        raise ValueError(f"players must be {MIN_PLAYERS}..{MAX_PLAYERS}, got {players}")
    return _tables(rules, players)


# Terrain codes of the five drawable terrains, for the API (names in TERRAINS order).
TERRAIN_CODES = {t: STATES.index(t) for t in TERRAINS}
