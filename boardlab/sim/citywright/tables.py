"""Rule set -> plain arrays for the kernels, and the bit layout they use.

Design notes: docs/games/citywright/engine.md#kernel-tables.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from boardlab.sim.bits import orient_cells
from boardlab.sim.layout import Layout

from .rules import (
    ACHIEVEMENT_CODES,
    BOARD_SIZE,
    DISTRICTS,
    MARKET_SIZE,
    MAX_PLAYERS,
    MAX_SHAPES,
    MAX_TIERS,
    N_SLOTS,
    Rules,
    opposite_slot,
    slot_line,
)

# --- bit layout -----------------------------------------------------------------
VALID = np.uint64(sum(1 << (8 * r + c) for r in range(7) for c in range(7)))
RING = np.uint64(sum(1 << (8 * r + c) for r in range(7) for c in range(7) if r in (0, 6) or c in (0, 6)))
BOARD_CELLS = BOARD_SIZE * BOARD_SIZE
MARKET_CELLS = MARKET_SIZE * MARKET_SIZE
PLAIN_CELLS = MARKET_SIZE  # a ruler's cells besides its star: one per tile of its line
MAX_SHAPE_CELLS = PLAIN_CELLS + 1  # with the star
NONE_TILE = 4  # "no tile" (only when the market depletes)


def bit_of(r: int, c: int) -> int:
    """A cell's bit on a bitboard (rows padded to 8 bits).

    Parameters
    ----------
    r, c : int
        Row and column (0-based).

    Returns
    -------
    int
        ``8 * r + c``.
    """
    return 8 * r + c


# --- slot geometry (boardlab.sim.citywright.rules.slot_line and opposite_slot, as tables) -------------
# SLOT_CELLS[slot, k]: the market cell (MARKET_SIZE * r + c) of the k-th tile of a slot's line.
SLOT_CELLS = np.array([[MARKET_SIZE * r + c for r, c in slot_line(s)] for s in range(N_SLOTS)], dtype=np.int64)
OPPOSITE_SLOT = np.array([opposite_slot(s) for s in range(N_SLOTS)], dtype=np.int64)  # the solo rival's target
SLOT_CELLS.setflags(write=False)
OPPOSITE_SLOT.setflags(write=False)


# --- rp: scalar parameters --------------------------------------------------------
# Offsets into rp, in this order (boardlab.sim.layout assigns them; tests/core/test_layout.py pins them).
_rp = Layout("rp")
RP_PLAYERS = _rp.add("players")
RP_ROUNDS = _rp.add("rounds")
RP_TURNS = _rp.add("turns")
RP_COMP = _rp.add("compensation", MAX_PLAYERS)  # seat 1 first
RP_SWAP = _rp.add("swap")
RP_SWAP_NEEDS_EMPTY = _rp.add("swap_needs_empty")
RP_SOLO_RIVAL = _rp.add("solo_rival")
RP_DEPLETES = _rp.add("depletes")
RP_RES_PAIRS = _rp.add("res_pairs")  # 1: floor(s1/2)*pair points; 0: s1*largest tile points
RP_RES_PAIR_PTS = _rp.add("res_pair_points")
RP_RES_LARGEST_TILE_PTS = _rp.add("res_largest_tile_points")
RP_RES_SECOND_TILE_PTS = _rp.add("res_second_tile_points")
RP_C_NTIERS = _rp.add("c_tiers")
RP_C_THRESH = _rp.add("c_thresholds", MAX_TIERS)
RP_C_POINTS = _rp.add("c_points", MAX_TIERS)
RP_C_EXTRA_FROM = _rp.add("c_extra_from")
RP_C_EXTRA_PER = _rp.add("c_extra_per_tile")
RP_C_ISO = _rp.add("c_isolated")
RP_P_ADJ = _rp.add("p_adjacent")
RP_P_ADJ_MASK = _rp.add("p_adjacent_mask")  # bit d set: parks next to district d score
RP_P_ROW = _rp.add("p_row")
RP_P_COL = _rp.add("p_column")
RP_I_RING = _rp.add("i_ring")
RP_I_PAIR = _rp.add("i_pair")
RP_N_SHAPES = _rp.add("shapes")
RP_N_ACH = _rp.add("achievements")
RP_INIT_DECK = _rp.add("init_deck", MAX_SHAPES)  # copies in play at setup
RP_INIT_REMOVED = _rp.add("init_removed", MAX_SHAPES)  # copies out of the game at setup
RP_RES_BIG = _rp.add("res_big", BOARD_CELLS + 1)  # points of a largest cluster of s tiles (derived)
RP_C_TABLE = _rp.add("c_table", BOARD_CELLS + 1)  # tier + extra points for n commercial tiles (derived)
RP_DECK_N = _rp.add("deck_sizes", 2)  # shapes in the tetromino (edge) and pentomino (corner) decks
RP_DECK_SHAPES = _rp.add("deck_shapes", 2 * MAX_SHAPES)  # those shapes, in rule-set order, MAX_SHAPES per deck
RP_TIE_SECOND_SEAT = _rp.add("tie_second_seat")  # 1: a 2-player game's last tie-break is the seat (two_player_tie)
RP_LEN = _rp.size

# --- shp ----------------------------------------------------------------------------
_shp = Layout("shp")
SHP_DECK = _shp.add("deck")
SHP_NCELLS = _shp.add("cells")
SHP_STAR = _shp.add("star")
SHP_PL_START = _shp.add("placements_start")
SHP_PL_END = _shp.add("placements_end")
SHP_PLAIN = _shp.add("plain", PLAIN_CELLS)
SHP_LEN = _shp.size

# --- pl_info ------------------------------------------------------------------------
_pl = Layout("pl_info")
PL_SHAPE = _pl.add("shape")
PL_ORIENT = _pl.add("orientation")
PL_AR = _pl.add("anchor_row")
PL_AC = _pl.add("anchor_col")
PL_STAR = _pl.add("star")
PL_NON = _pl.add("on_board")  # cells on the board
PL_BITS = _pl.add("bits", MAX_SHAPE_CELLS)  # -1 = off board
PL_LEN = _pl.size

# --- ach ------------------------------------------------------------------------------
_ach = Layout("ach")
ACH_KIND = _ach.add("kind")  # boardlab.sim.citywright.rules.ACHIEVEMENT_CODES (KIND_*)
ACH_DISTRICT = _ach.add("district")  # -1 = any
ACH_SHAPE = _ach.add("shape")
ACH_THRESHOLD = _ach.add("threshold")
ACH_POINTS = _ach.add("points")
ACH_SOLO = _ach.add("solo_threshold")
ACH_LEN = _ach.size
LAYOUTS = (_rp, _shp, _pl, _ach)


def distinct_orientations(cells, star: int) -> list[int]:
    """The orientation indices that give distinct placements of a shape.

    Parameters
    ----------
    cells : sequence of tuple of int
        The shape's cells.
    star : int
        The star's index among them (-1: none).

    Returns
    -------
    list of int
        The first orientation index (0..7) of each distinct placement (cells and star cell).
    """
    seen = set()
    out = []
    for o in range(8):
        oc = orient_cells(cells, o)
        key = (frozenset(oc), oc[star] if star >= 0 else None)
        if key not in seen:
            seen.add(key)
            out.append(o)
    return out


@dataclass(frozen=True, eq=False)  # hashed by identity: one object per (rules, players)
class Tables:
    """A rule set's arrays at a player count, as the kernels read them: rp, shp, pl_mask, pl_info, ach, and
    the search agents' placement tables (pl_plain, pl_star_bit, pl_canon)."""

    rp: np.ndarray
    shp: np.ndarray
    pl_mask: np.ndarray
    pl_info: np.ndarray
    ach: np.ndarray
    players: int
    # For search agents: on-board plain (non-star) cells, the star's board bit (-1 when
    # none or off the board), and whether the placement is the first of its shape with
    # the same (plain cells, star bit): placements equal on the board are equal moves.
    pl_plain: np.ndarray  # uint64[n_placements]
    pl_star_bit: np.ndarray  # int16[n_placements]
    pl_canon: np.ndarray  # bool[n_placements]
    _kernel_args: tuple = field(init=False, repr=False)

    def __post_init__(self):
        args = (self.rp, self.shp, self.pl_mask, self.pl_info, self.pl_plain, self.pl_star_bit, self.pl_canon, self.ach)
        object.__setattr__(self, "_kernel_args", args)

    def args(self):
        """The engine's tables.

        Returns
        -------
        tuple of numpy.ndarray
            ``(rp, shp, pl_mask, pl_info, ach)``.
        """
        return self.rp, self.shp, self.pl_mask, self.pl_info, self.ach

    def kernel_args(self) -> tuple:
        """Every table, as the one argument the agent kernels take (built once per rule set and player count).

        ``(rp, shp, pl_mask, pl_info, pl_plain, pl_star_bit, pl_canon, ach)``: a kernel unpacks it as
        ``rp, shp, pl_mask, pl_info, pl_plain, pl_star_bit, pl_canon, ach = tables``.

        Returns
        -------
        tuple of numpy.ndarray
            The eight arrays, in that order.
        """
        return self._kernel_args


@lru_cache(maxsize=64)
def _placements(shape_key: tuple) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    masks, infos = [], []
    starts = []
    for si, (cells, star) in enumerate(shape_key):
        starts.append(len(masks))
        for o in distinct_orientations(cells, star):
            oc = orient_cells(cells, o)
            h = max(r for r, _ in oc) + 1
            w = max(c for _, c in oc) + 1
            for ar in range(-(h - 1), BOARD_SIZE):
                for ac in range(-(w - 1), BOARD_SIZE):
                    bits = []
                    mask = 0
                    for r, c in oc:
                        rr, cc = r + ar, c + ac
                        if 0 <= rr < BOARD_SIZE and 0 <= cc < BOARD_SIZE:
                            bits.append(bit_of(rr, cc))
                            mask |= 1 << bit_of(rr, cc)
                        else:
                            bits.append(-1)
                    if mask == 0:
                        continue
                    info = (
                        [si, o, ar, ac, star, sum(b >= 0 for b in bits)] + bits + [-1] * (MAX_SHAPE_CELLS - len(bits))
                    )
                    masks.append(mask)
                    infos.append(info)
    starts.append(len(masks))
    return (
        np.array(masks, dtype=np.uint64),
        np.array(infos, dtype=np.int16).reshape(-1, PL_LEN),
        np.array(starts, dtype=np.int32),
    )


def _shape_key(rules: Rules) -> tuple:
    return tuple((s.cells, s.star) for s in rules.shapes)


@lru_cache(maxsize=64)
def _tables(rules: Rules, players: int) -> Tables:
    pl_mask, pl_info, starts = _placements(_shape_key(rules))
    ns = len(rules.shapes)
    shp = np.zeros((ns, SHP_LEN), dtype=np.int32)
    for i, s in enumerate(rules.shapes):
        shp[i, SHP_DECK] = 1 if s.has_star else 0
        shp[i, SHP_NCELLS] = len(s.cells)
        shp[i, SHP_STAR] = s.star
        shp[i, SHP_PL_START] = starts[i]
        shp[i, SHP_PL_END] = starts[i + 1]
        plain = [k for k in range(len(s.cells)) if k != s.star]
        shp[i, SHP_PLAIN : SHP_PLAIN + PLAIN_CELLS] = plain
    rp = np.zeros(RP_LEN, dtype=np.int32)
    rounds, turns = rules.rounds(players)
    rp[RP_PLAYERS] = players
    rp[RP_ROUNDS] = rounds
    rp[RP_TURNS] = turns
    for i, c in enumerate(rules.compensation(players)):
        rp[RP_COMP + i] = c
    g = rules.game
    rp[RP_SWAP] = rules.swap_allowed(players)
    rp[RP_SWAP_NEEDS_EMPTY] = g["swap_requires_empty_cell"]
    rp[RP_SOLO_RIVAL] = g["solo_rival"]
    rp[RP_DEPLETES] = g["market_depletes"]
    rp[RP_TIE_SECOND_SEAT] = players == 2 and g["two_player_tie"] == "second_seat"
    res = rules.scoring["residential"]
    rp[RP_RES_PAIRS] = res["largest"] == "pairs"
    rp[RP_RES_PAIR_PTS] = res["pair_points"]
    rp[RP_RES_LARGEST_TILE_PTS] = res["largest_tile_points"]
    rp[RP_RES_SECOND_TILE_PTS] = res["second_tile_points"]
    com = rules.scoring["commercial"]
    rp[RP_C_NTIERS] = len(com["tier_thresholds"])
    for i, (t, p) in enumerate(zip(com["tier_thresholds"], com["tier_points"], strict=True)):
        rp[RP_C_THRESH + i] = t
        rp[RP_C_POINTS + i] = p
    rp[RP_C_EXTRA_FROM] = com["extra_from"]
    rp[RP_C_EXTRA_PER] = com["extra_per_tile"]
    rp[RP_C_ISO] = com["isolated_points"]
    park = rules.scoring["park"]
    rp[RP_P_ADJ] = park["adjacent_points"]
    rp[RP_P_ADJ_MASK] = sum(1 << DISTRICTS.index(ch) for ch in set(park["adjacent_to"].upper()))
    rp[RP_P_ROW] = park["row_points"]
    rp[RP_P_COL] = park["column_points"]
    ind = rules.scoring["industrial"]
    rp[RP_I_RING] = ind["ring_points"]
    rp[RP_I_PAIR] = ind["pair_points"]
    # Derived lookup tables (the kernels' fast path; the fields above stay the source).
    for n in range(BOARD_CELLS + 1):
        big = (n // 2) * res["pair_points"] if res["largest"] == "pairs" else n * res["largest_tile_points"]
        rp[RP_RES_BIG + n] = big
        pts = 0
        for t, p in zip(com["tier_thresholds"], com["tier_points"], strict=True):
            if n >= t:
                pts = p
        rp[RP_C_TABLE + n] = pts + max(0, n - com["extra_from"]) * com["extra_per_tile"]
    rp[RP_N_SHAPES] = ns
    for deck in (0, 1):
        members = [i for i, s in enumerate(rules.shapes) if int(s.has_star) == deck]
        rp[RP_DECK_N + deck] = len(members)
        rp[RP_DECK_SHAPES + deck * MAX_SHAPES : RP_DECK_SHAPES + deck * MAX_SHAPES + len(members)] = members
    for i, s in enumerate(rules.shapes):
        removed = s.two_player_remove if players == 2 else 0
        rp[RP_INIT_DECK + i] = s.copies - removed
        rp[RP_INIT_REMOVED + i] = removed
    achs = rules.achievements()
    ach = np.zeros((len(achs), ACH_LEN), dtype=np.int32)
    for i, a in enumerate(achs):
        ach[i, ACH_KIND] = ACHIEVEMENT_CODES[a.kind]
        ach[i, ACH_DISTRICT] = DISTRICTS.index(a.district) if a.district in DISTRICTS else -1
        ach[i, ACH_SHAPE] = rules.shape_index(a.shape) if a.shape else -1
        ach[i, ACH_THRESHOLD] = a.threshold
        ach[i, ACH_POINTS] = a.points
        ach[i, ACH_SOLO] = a.solo_threshold
    rp[RP_N_ACH] = len(achs)
    pl_plain, pl_star_bit, pl_canon = _placement_keys(pl_mask, pl_info, shp)
    for a in (rp, shp, pl_mask, pl_info, ach, pl_plain, pl_star_bit, pl_canon):
        a.setflags(write=False)
    return Tables(
        rp=rp,
        shp=shp,
        pl_mask=pl_mask,
        pl_info=pl_info,
        ach=ach,
        players=players,
        pl_plain=pl_plain,
        pl_star_bit=pl_star_bit,
        pl_canon=pl_canon,
    )


def _placement_keys(pl_mask, pl_info, shp):
    n = len(pl_mask)
    plain = np.zeros(n, dtype=np.uint64)
    star_bit = np.full(n, -1, dtype=np.int16)
    canon = np.zeros(n, dtype=bool)
    for s in range(len(shp)):
        seen = set()
        star = int(shp[s, SHP_STAR])
        for i in range(int(shp[s, SHP_PL_START]), int(shp[s, SHP_PL_END])):
            m = 0
            for k in range(int(shp[s, SHP_NCELLS])):
                b = int(pl_info[i, PL_BITS + k])
                if b >= 0 and k != star:
                    m |= 1 << b
            sb = int(pl_info[i, PL_BITS + star]) if star >= 0 else -1
            plain[i] = m
            star_bit[i] = sb
            key = (m, sb)
            if key not in seen:
                seen.add(key)
                canon[i] = True
    return plain, star_bit, canon


def tables_for(rules: Rules, players: int) -> Tables:
    """The kernels' arrays for `rules` at `players`.

    Parameters
    ----------
    rules : Rules
        The rule set.
    players : int
        1..4.

    Returns
    -------
    Tables
        The arrays (cached per rule set and player count).
    """
    if not 1 <= players <= MAX_PLAYERS:
        raise ValueError(f"players must be 1..{MAX_PLAYERS}, got {players}")
    return _tables(rules, players)
