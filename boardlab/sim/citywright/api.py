"""The thin public API over the kernels: create a game, list and apply moves, score.

    >>> from boardlab.sim.citywright.api import Game
    >>> g = Game(players=2, rules="v1.1", seed=7)
    >>> moves = g.legal_moves(slot=0)        # every legal move from slot row0-left
    >>> g.apply(moves[0])
    >>> g.scores()[0]["total"]

Moves are :class:`boardlab.sim.citywright.moves.Move` objects a person can read; this layer checks
them (a bad move raises :class:`IllegalMove`) and translates them to the
kernels' int arrays.  The kernels in :mod:`boardlab.sim.citywright.engine` trust their input.

Hidden information (:mod:`boardlab.sim.observation`): the rulers' deck is face down.  Its composition is
public (every ruler's count in the deck, the discard pile, on offer, used and out of the game can
be counted at the table), its order is not: the engine draws each ruler, and each market, from the
game's chance stream, so the order *is* that stream's future.  ``observation(player)`` is
``snapshot()`` (which holds no random stream) and the player's seat; ``redeal(player, rng)`` is a
copy with both random streams drawn afresh -- the same re-sampling the built-in ``mcts`` agent does.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from functools import lru_cache

import numpy as np

from boardlab.sim.observation import Observation, copy_seed, fresh_streams

from . import engine as E
from .moves import Move, placement
from .rules import DISTRICTS, MAX_PLAYERS, N_EDGE_SLOTS, N_SLOTS, SLOT_NAMES, Rules, load_rules
from .tables import (
    NONE_TILE,
    PL_AC,
    PL_AR,
    PL_BITS,
    PL_ORIENT,
    RP_COMP,
    RP_DEPLETES,
    RP_SWAP,
    RP_SWAP_NEEDS_EMPTY,
    SHP_PL_END,
    SHP_PL_START,
    SHP_PLAIN,
    SHP_STAR,
    Tables,
    orient_cells,
    tables_for,
)

SEED_MASK = (1 << 64) - 1
_TILE_CHARS = (*DISTRICTS, "")


class IllegalMove(ValueError):
    """A move the rules do not allow in the current position."""


def normalise_seed(seed: int) -> int:
    """Every seed enters the engine through here: any Python int, taken modulo 2**64.

    Parameters
    ----------
    seed : int
        The seed (a bool is refused: TypeError).

    Returns
    -------
    int
        The seed modulo 2**64.
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an integer, got {seed!r}")
    return int(seed) & SEED_MASK


@lru_cache(maxsize=64)
def _placement_index(tb: Tables) -> dict:
    """(shape, orientation, anchor) -> placement index."""
    out = {}
    for i in range(len(tb.pl_mask)):
        info = tb.pl_info[i]
        out[(int(info[0]), int(info[PL_ORIENT]), (int(info[PL_AR]), int(info[PL_AC])))] = i
    return out


@lru_cache(maxsize=64)
def _placements(tb: Tables, rules: Rules) -> tuple:
    """Per placement index, as Python values: (shape name, orientation, anchor, board cells in the shape's
    cell order, the cell index of each of the 4 plain tiles, the star's cell index or -1) -- what a
    listed move is made of, read from the tables once rather than for every move."""
    out = []
    for info in tb.pl_info.tolist():
        s, o, ar, ac = info[0], info[PL_ORIENT], info[PL_AR], info[PL_AC]
        shape = rules.shapes[s]
        cells = tuple((r + ar, c + ac) for r, c in orient_cells(shape.cells, o))
        plain = tuple(int(tb.shp[s, SHP_PLAIN + k]) for k in range(4))
        out.append((shape.name, o, (ar, ac), cells, plain, int(tb.shp[s, SHP_STAR])))
    return tuple(out)


_CELL_BITS = np.array([8 * r + c for r in range(7) for c in range(7)], dtype=np.uint64)


def board_to_string(board: np.ndarray) -> str:
    """uint64[4] bitboards -> 49 characters, row-major, from 'RCPI.'.

    Parameters
    ----------
    board : numpy.ndarray
        uint64, shape ``(4,)``: one bitboard per district R, C, P, I.

    Returns
    -------
    str
        49 characters ('.' for an empty cell).
    """
    chars = np.full(49, ".", dtype="<U1")
    for d in range(4):
        chars[((board[d] >> _CELL_BITS) & np.uint64(1)).astype(bool)] = DISTRICTS[d]
    return "".join(chars)


def board_from_string(text: str) -> np.ndarray:
    """49 characters from 'RCPI.' (any case) -> uint64[4] bitboards.

    Parameters
    ----------
    text : str
        The board, row-major.

    Returns
    -------
    numpy.ndarray
        uint64, shape ``(4,)``: one bitboard per district R, C, P, I.
    """
    board = np.zeros(4, dtype=np.uint64)
    for i, ch in enumerate(text.upper()):
        if ch != ".":
            board[DISTRICTS.index(ch)] |= np.uint64(1) << _CELL_BITS[i]
    return board


_DISCARD_TEXT = re.compile(r"(\S+) forced discard")
_SWAP_TEXT = re.compile(r"swap (\S+) for ([RCPI]) at \((-?\d+), (-?\d+)\)")
_PLACE_TEXT = re.compile(
    r"(\S+) o(\d) at \((-?\d+), (-?\d+)\) tiles ([RCPI-]+)(?: free ([RCPI]))? \(\d+/\d+ on board\)"
)


def _bit_to_cell(b: int) -> tuple[int, int]:
    return (b // 8, b % 8)


class Game:
    """One game: its rules, seed and the kernels' state arrays.

    Parameters
    ----------
    players : int
        1..4.
    rules : Rules or str or path, optional
        A rule set, a preset name (``v1.1``, ``v1.0``) or a TOML variant path.
    seed : int
        The 64-bit game seed; it alone fixes markets, deals and the random policy.
    """

    information = "imperfect"  # the deck's order (boardlab.sim.observation)
    chance = True

    def __init__(self, players: int, rules: Rules | str | None = None, seed: int = 0):
        if isinstance(players, bool) or not isinstance(players, (int, np.integer)) or not 1 <= players <= MAX_PLAYERS:
            raise ValueError(f"players must be 1..{MAX_PLAYERS}, got {players!r}")
        self.players = int(players)
        self.rules = load_rules(rules)
        self.seed = normalise_seed(seed)
        self.tables = tables_for(self.rules, self.players)
        self.boards = np.zeros((self.players, 4), dtype=np.uint64)
        self.st = np.zeros(E.ST_LEN, dtype=np.int32)
        self.rng = np.zeros(2, dtype=np.uint64)
        self._mv = np.zeros(E.MV_LEN, dtype=np.int32)
        E.setup(self.boards, self.st, self.rng, np.uint64(self.seed), self.tables.rp, self.tables.shp)

    # --- state ----------------------------------------------------------------
    @property
    def done(self) -> bool:
        """Whether the game is over."""
        return bool(self.st[E.ST_DONE])

    @property
    def current(self) -> int:
        """The seat to move (0-based)."""
        return int(self.st[E.ST_CUR])

    @property
    def round(self) -> int:
        """The current round."""
        return int(self.st[E.ST_ROUND])

    def copy(self) -> Game:
        """An independent copy (boards, state and streams copied; the rules and tables shared, being read-only).

        Returns
        -------
        Game
            The copy.
        """
        g = object.__new__(Game)
        g.__dict__.update(self.__dict__)
        g.boards = self.boards.copy()
        g.st = self.st.copy()
        g.rng = self.rng.copy()
        g._mv = self._mv.copy()
        return g

    def _shape_name(self, s: int) -> str | None:
        return self.rules.shapes[s].name if s >= 0 else None

    def board_string(self, seat: int) -> str:
        """The board as 49 characters, row-major, from 'RCPI.'.

        Parameters
        ----------
        seat : int
            The seat (0-based).

        Returns
        -------
        str
            The board.
        """
        return board_to_string(self.boards[seat])

    def snapshot(self) -> dict:
        """The observation shared with the reference implementation (docs/games/citywright/engine.md).

        Returns
        -------
        dict
            Plain data (JSON-serialisable).
        """
        st = self.st
        names = [s.name for s in self.rules.shapes]

        def counts(off: int) -> dict:
            return {n: int(st[off + i]) for i, n in enumerate(names)}

        market = "".join(DISTRICTS[d] if d >= 0 else "." for d in st[E.ST_MARKET : E.ST_MARKET + 16])
        n = self.players
        return {
            "round": int(st[E.ST_ROUND]),
            "turn": int(st[E.ST_TURN]),
            "current": int(st[E.ST_CUR]),
            "done": bool(st[E.ST_DONE]),
            "market": market,
            "slots": [self._shape_name(int(s)) for s in st[E.ST_SLOTS : E.ST_SLOTS + N_SLOTS]],
            "deck": counts(E.ST_DECK),
            "discard": counts(E.ST_DISC),
            "used": counts(E.ST_USED),
            "removed": counts(E.ST_REMOVED),
            "boards": [self.board_string(p) for p in range(n)],
            "waste": [int(st[E.ST_WASTE + p]) for p in range(n)],
            "taken": [int(st[E.ST_TAKEN + p]) for p in range(n)],
            "forced": [int(st[E.ST_FORCED + p]) for p in range(n)],
            "turns": [int(st[E.ST_TURNS + p]) for p in range(n)],
            "placed": [{nm: int(st[E.ST_PLACED + p * 16 + i]) for i, nm in enumerate(names)} for p in range(n)],
        }

    def observation(self, player: int) -> Observation:
        """What seat `player` may see: every field of snapshot() (the deck as counts per shape), and
        ``sample(rng)``, a position consistent with it (:meth:`redeal`).

        Parameters
        ----------
        player : int
            The seat (0-based).

        Returns
        -------
        boardlab.sim.observation.Observation
            The seat's view.
        """
        player = self._check_seat(player)
        return Observation(player, self.snapshot(), self.redeal(player))

    def redeal(self, player: int, rng: np.random.Generator | int | None = None) -> Game:
        """A copy whose hidden part -- the deck's order, i.e. the chance stream's future -- is drawn afresh
        from `rng` (a numpy Generator or a seed; None: both streams zero); the policy stream too, and the
        copy's ``seed`` (:func:`boardlab.sim.observation.copy_seed`: never the true game's).  Depends on the public
        state and `rng` only.

        Parameters
        ----------
        player : int
            The seat whose view is kept (every seat sees the same here).
        rng : numpy.random.Generator or int or None
            Where the new streams are drawn from.

        Returns
        -------
        Game
            The copy.
        """
        self._check_seat(player)
        g = self.copy()
        g.rng[:] = fresh_streams(rng)
        g.seed = copy_seed(g.rng)
        return g

    def _check_seat(self, player) -> int:
        if isinstance(player, bool) or not isinstance(player, (int, np.integer)) or not 0 <= player < self.players:
            raise ValueError(f"player must be a seat 0..{self.players - 1}, got {player!r}")
        return int(player)

    def scores(self) -> list[dict]:
        """Per seat: district breakdown, achievements, compensation, total, empty, rank, win share.

        Returns
        -------
        list of dict
            One entry per seat.
        """
        out = np.zeros((self.players, E.SC_LEN), dtype=np.int32)
        tb = self.tables
        E.final_scores(self.boards, self.st, tb.rp, tb.ach, out)
        winners = int((out[:, E.SC_RANK] == 1).sum())
        keys = (
            "residential",
            "commercial",
            "park",
            "industrial",
            "districts",
            "achievements",
            "compensation",
            "total",
            "empty",
            "shapes_distinct",
            "rank",
        )
        res = []
        for p in range(self.players):
            d = {k: int(out[p, i]) for i, k in enumerate(keys)}
            d["win_share"] = 1.0 / winners if d["rank"] == 1 else 0.0
            res.append(d)
        return res

    def progress(self, player: int) -> int:
        """Seat `player`'s points so far: the total :meth:`scores` gives for the boards as they stand (districts,
        the achievements held now, compensation; docs/games/citywright.md).  At the game's end, its final total.

        Parameters
        ----------
        player : int
            The seat, 0-based.

        Returns
        -------
        int
            Its current total.
        """
        player = self._check_seat(player)
        out = np.zeros((self.players, E.SC_LEN), dtype=np.int32)
        E.final_scores(self.boards, self.st, self.tables.rp, self.tables.ach, out)
        return int(out[player, E.SC_TOTAL])

    # --- moves -------------------------------------------------------------------
    @staticmethod
    def _check_slot(slot) -> int:
        if isinstance(slot, bool) or not isinstance(slot, (int, np.integer)) or not 0 <= slot < N_SLOTS:
            raise ValueError(
                f"slot must be 0..{N_SLOTS - 1} (see boardlab.sim.citywright.rules.SLOT_NAMES), got {slot!r}"
            )
        return int(slot)

    def line_tiles(self, slot: int) -> list[str]:
        """District letters the slot gives now ('' for a tile gone from a depleting market).

        Parameters
        ----------
        slot : int
            The market slot (0-based).

        Returns
        -------
        list of str
            Four letters (or '') in line order.
        """
        slot = self._check_slot(slot)
        return [
            DISTRICTS[d] if d >= 0 else "" for d in (int(self.st[E.ST_MARKET + E.line_cell(slot, k)]) for k in range(4))
        ]

    def _free_options(self, slot: int) -> list[str]:
        if not self.tables.rp[RP_DEPLETES]:
            return list(DISTRICTS)
        line = {E.line_cell(slot, k) for k in range(4)}
        present = {int(self.st[E.ST_MARKET + c]) for c in range(16) if c not in line}
        opts = [DISTRICTS[d] for d in range(4) if d in present]
        return opts or [""]

    def _occupied(self, seat: int) -> int:
        return int(self.boards[seat, 0] | self.boards[seat, 1] | self.boards[seat, 2] | self.boards[seat, 3])

    def legal_placements(self, slot: int) -> list[int]:
        """Placement indices (into the tables) legal for the ruler in `slot` on the mover's board.

        Parameters
        ----------
        slot : int
            The market slot (0-based).

        Returns
        -------
        list of int
            The placements (none for an empty slot or a finished game).
        """
        slot = self._check_slot(slot)
        s = int(self.st[E.ST_SLOTS + slot])
        if s < 0 or self.done:
            return []
        occ = np.uint64(self._occupied(self.current))
        shp = self.tables.shp
        lo, hi = int(shp[s, SHP_PL_START]), int(shp[s, SHP_PL_END])
        legal = (self.tables.pl_mask[lo:hi] & occ) == 0
        return [lo + int(i) for i in np.flatnonzero(legal)]

    def _placement_move(self, slot: int, pl: int, plain_tiles: tuple[str, ...], free: str) -> Move:
        return self._placement_moves(slot, pl, [plain_tiles], [free])[0]

    def _placement_moves(self, slot: int, pl: int, perms: list, frees: list[str]) -> list[Move]:
        """Placement pl's moves from `slot`: one per assignment of the line's tiles (`perms`) and free pick."""
        shape, o, anchor, cells, plain, star = _placements(self.tables, self.rules)[pl]
        out = []
        for perm in perms:
            tiles = [""] * len(cells)
            for k in range(4):
                tiles[plain[k]] = perm[k]
            for f in frees:
                if star >= 0:
                    tiles[star] = f
                out.append(placement(slot, shape, o, anchor, cells, tuple(tiles), f if star >= 0 else ""))
        return out

    def move_families(self) -> tuple[str, ...]:
        """The move families restricted play names (``random-prefers:R``): the four districts, R C P I.

        Returns
        -------
        tuple of str
            The families' names.
        """
        return DISTRICTS

    def move_family(self, move: Move) -> str:
        """The district a move places most (its tiles and free pick; ties in R C P I order), the district a swap
        puts down; "" for a discard or a pass.

        Parameters
        ----------
        move : Move
            A move.

        Returns
        -------
        str
            A district letter, or "".
        """
        if move.kind == "swap":
            return move.district
        placed = [t for t in (*move.tiles, move.free) if t]
        if move.kind != "place" or not placed:
            return ""
        return max(DISTRICTS, key=lambda d: (placed.count(d), -DISTRICTS.index(d)))

    def legal_moves(self, slot: int | None = None, assignments: str = "all") -> list[Move]:
        """Every legal move (optionally from one slot).

        Parameters
        ----------
        slot : int or None
            Only this slot's moves (None: every slot's); with no ruler in any slot the one move is a pass.
        assignments : str
            ``"all"`` lists every distinct tile assignment and free pick; ``"one"`` lists one move per (slot,
            placement, free pick) with the tiles in line order (every other assignment of those tiles is legal too).

        Returns
        -------
        list of Move
            The moves (none once the game is over).
        """
        if self.done:
            return []
        if assignments not in ("all", "one"):
            raise ValueError("assignments must be 'all' or 'one'")
        slots = range(N_SLOTS) if slot is None else [self._check_slot(slot)]
        if not any(self.st[E.ST_SLOTS + s] >= 0 for s in range(N_SLOTS)):
            return [Move(kind="pass")]
        out: list[Move] = []
        for s, name, perms, frees, pls, swap_cells in self._slot_choices(slots, assignments):
            if not pls:
                out.append(Move(kind="discard", slot=s, shape=name))
            for pl in pls:
                out.extend(self._placement_moves(s, pl, perms, frees))
            for cell in swap_cells:
                for d in DISTRICTS:
                    out.append(Move(kind="swap", slot=s, shape=name, cell=cell, district=d))
        return out

    def legal_count(self) -> int:
        """How many moves ``legal_moves()`` lists, counted without listing them (a position early in a 4-player
        game has tens of thousands: the anatomy panel's branching counts them at every decision).

        Returns
        -------
        int
            ``len(legal_moves())``.
        """
        if self.done:
            return 0
        if not any(self.st[E.ST_SLOTS + s] >= 0 for s in range(N_SLOTS)):
            return 1  # the pass
        n = 0
        for _s, _name, perms, frees, pls, swap_cells in self._slot_choices(range(N_SLOTS), "all"):
            n += len(pls) * len(perms) * len(frees) if pls else 1  # the placements, or the forced discard
            n += len(swap_cells) * len(DISTRICTS)
        return n

    def _slot_choices(self, slots, assignments: str) -> Iterator[tuple]:
        """Per slot of `slots` holding a ruler, what its moves are made of: ``(slot, shape name, tile
        assignments, free picks, legal placements, swap cells)`` (legal_moves lists every combination; a slot with
        no placement has its forced discard instead)."""
        swap_ok = bool(self.tables.rp[RP_SWAP])
        occ = self._occupied(self.current)
        empty_cells = [(r, c) for r in range(7) for c in range(7) if not (occ >> (8 * r + c)) & 1]
        for s in slots:
            shape = int(self.st[E.ST_SLOTS + s])
            if shape < 0:
                continue
            line = tuple(self.line_tiles(s))
            perms = sorted(set(itertools.permutations(line))) if assignments == "all" else [line]
            frees = self._free_options(s) if self.rules.shapes[shape].has_star else [""]
            swap_cells: list[tuple[int, int]] = []
            if swap_ok and s >= N_EDGE_SLOTS:
                if empty_cells:
                    swap_cells = empty_cells
                elif not self.tables.rp[RP_SWAP_NEEDS_EMPTY]:
                    swap_cells = [(-1, -1)]
            yield s, self.rules.shapes[shape].name, perms, frees, self.legal_placements(s), swap_cells

    def agent_moves(self) -> list[Move]:
        """The moves an agent chooses from (boardlab.sim.observation's generic agents and Python agents): one per
        (slot, placement, free pick) with the tiles in line order, and the swaps and forced discards --
        ``legal_moves(assignments="one")``.  Every other assignment of a listed placement's tiles is legal
        too; listing them all (``legal_moves()``) multiplies the moves by up to 24.

        Returns
        -------
        list of Move
            The moves.
        """
        return self.legal_moves(assignments="one")

    def parse_move(self, text: str) -> Move:
        """A move's text (``str(move)``) -> the Move, its cells from this rule set's shape; IllegalMove for
        text that is no move's.  Whether the move is legal here is :meth:`is_legal`'s business.

        Parameters
        ----------
        text : str
            The move's text.

        Returns
        -------
        Move
            The move.
        """
        text = str(text).strip()
        if text == "pass":
            return Move(kind="pass")
        bad = IllegalMove(f"not a move: {text!r} (moves read as str(move) prints them)")
        slot_name, sep, rest = text.partition(": ")
        if not sep or slot_name not in SLOT_NAMES:
            raise bad
        slot = SLOT_NAMES.index(slot_name)
        names = [sh.name for sh in self.rules.shapes]
        if m := _DISCARD_TEXT.fullmatch(rest):
            move = Move(kind="discard", slot=slot, shape=m[1])
        elif m := _SWAP_TEXT.fullmatch(rest):
            move = Move(kind="swap", slot=slot, shape=m[1], cell=(int(m[3]), int(m[4])), district=m[2])
        elif (m := _PLACE_TEXT.fullmatch(rest)) and m[1] in names:
            shape = self.rules.shapes[names.index(m[1])]
            o, anchor = int(m[2]), (int(m[3]), int(m[4]))
            if not 0 <= o < 8:
                raise bad
            cells = tuple((r + anchor[0], c + anchor[1]) for r, c in orient_cells(shape.cells, o))
            tiles = tuple("" if t == "-" else t for t in m[5])
            move = Move(
                kind="place", slot=slot, shape=shape.name, orientation=o, anchor=anchor, cells=cells, tiles=tiles,
                free=m[6] or "",
            )  # fmt: skip
        else:
            raise bad
        if str(move) != text:
            raise bad
        return move

    def _encode(self, m: Move) -> np.ndarray:
        """Check `m` against the position and fill the kernel move array; raise IllegalMove."""
        if not isinstance(m, Move):
            raise IllegalMove(f"not a Move: {m!r}")
        if self.done:
            raise IllegalMove("the game is over")
        mv = self._mv
        mv[:] = 0
        mv[E.MV_FREE] = -1
        tb = self.tables
        open_slots = [s for s in range(N_SLOTS) if self.st[E.ST_SLOTS + s] >= 0]
        if m.kind == "pass":
            if open_slots:
                raise IllegalMove("pass: only when every slot is empty")
            mv[E.MV_KIND] = E.K_PASS
            return mv
        if m.kind not in ("place", "discard", "swap"):
            raise IllegalMove(f"unknown move kind {m.kind!r}")
        if not isinstance(m.slot, (int, np.integer)) or not 0 <= m.slot < N_SLOTS:
            raise IllegalMove(f"slot must be 0..{N_SLOTS - 1}, got {m.slot!r}")
        s = int(self.st[E.ST_SLOTS + m.slot])
        if s < 0:
            raise IllegalMove(f"{SLOT_NAMES[m.slot]} is empty")
        shape = self.rules.shapes[s]
        if m.shape and m.shape != shape.name:
            raise IllegalMove(f"{SLOT_NAMES[m.slot]} holds {shape.name}, not {m.shape}")
        mv[E.MV_SLOT] = m.slot
        p = self.current
        occ = self._occupied(p)
        if m.kind == "swap":
            if not tb.rp[RP_SWAP]:
                raise IllegalMove(f"the swap is not allowed with {self.players} player(s)")
            if m.slot < N_EDGE_SLOTS:
                raise IllegalMove("the swap needs a corner ruler")
            if m.district not in DISTRICTS:
                raise IllegalMove(f"swap district must be one of R C P I, got {m.district!r}")
            r, c = m.cell
            has_empty = (occ & int(E._VALID)) != int(E._VALID)
            if (r, c) == (-1, -1) and not has_empty and not tb.rp[RP_SWAP_NEEDS_EMPTY]:
                mv[E.MV_KIND] = E.K_SWAP
                mv[E.MV_PL] = -1  # nothing lands on the board
                mv[E.MV_TILES] = DISTRICTS.index(m.district)
                return mv
            if not (0 <= r < 7 and 0 <= c < 7) or (occ >> (8 * r + c)) & 1:
                raise IllegalMove(f"swap cell {m.cell} is not an empty cell of the board")
            mv[E.MV_KIND] = E.K_SWAP
            mv[E.MV_PL] = 8 * r + c
            mv[E.MV_TILES] = DISTRICTS.index(m.district)
            return mv
        legal = self.legal_placements(m.slot)
        if m.kind == "discard":
            if legal:
                raise IllegalMove(f"{shape.name} from {SLOT_NAMES[m.slot]} can be placed: no forced discard")
            mv[E.MV_KIND] = E.K_DISCARD
            return mv
        key = (s, m.orientation, tuple(m.anchor))
        pl = _placement_index(tb).get(key)
        if pl is None:
            raise IllegalMove(f"{shape.name}: no placement with orientation {m.orientation} at {m.anchor}")
        if pl not in legal:
            raise IllegalMove(f"{shape.name} at {m.anchor}: covers a filled cell")
        info = tb.pl_info[pl]
        ncells = len(shape.cells)
        if m.cells:
            expect = tuple((r + info[PL_AR], c + info[PL_AC]) for r, c in orient_cells(shape.cells, m.orientation))
            if tuple(tuple(x) for x in m.cells) != tuple((int(a), int(b)) for a, b in expect):
                raise IllegalMove("cells do not match orientation and anchor")
        if len(m.tiles) != ncells or any(t not in _TILE_CHARS for t in m.tiles):
            raise IllegalMove(f"tiles: expected {ncells} letters from R C P I")
        plain = [m.tiles[int(tb.shp[s, SHP_PLAIN + k])] for k in range(4)]
        if sorted(plain) != sorted(self.line_tiles(m.slot)):
            raise IllegalMove(f"tiles {''.join(t or '-' for t in plain)} are not the line's {self.line_tiles(m.slot)}")
        star = shape.star
        if star >= 0:
            free = m.tiles[star]
            if m.free and m.free != free:
                raise IllegalMove("free pick does not match the star cell's tile")
            if free not in self._free_options(m.slot):
                raise IllegalMove(f"free pick {free!r} is not available")
            mv[E.MV_FREE] = DISTRICTS.index(free) if free else NONE_TILE
        elif m.free:
            raise IllegalMove("only corner rulers bring a free pick")
        mv[E.MV_KIND] = E.K_PLACE
        mv[E.MV_PL] = pl
        for k in range(4):
            mv[E.MV_TILES + k] = DISTRICTS.index(plain[k]) if plain[k] else NONE_TILE
        return mv

    def is_legal(self, m: Move) -> bool:
        """Whether `m` may be played now by the seat to move.

        Parameters
        ----------
        m : Move
            A move.

        Returns
        -------
        bool
            True when it encodes to a legal kernel move.
        """
        try:
            self._encode(m)
        except IllegalMove:
            return False
        return True

    def apply(self, m: Move) -> None:
        """Play a move for the seat to move; raises IllegalMove and leaves the game unchanged.

        Parameters
        ----------
        m : Move
            A legal move.
        """
        mv = self._encode(m)
        tb = self.tables
        E.apply_move(self.boards, self.st, self.rng, mv, tb.rp, tb.shp, tb.pl_info)

    def decode(self, mv: np.ndarray) -> Move:
        """A kernel move array (for the current position) as a readable Move.

        Parameters
        ----------
        mv : numpy.ndarray
            int32, shape ``(MV_LEN,)``: the kernel move.

        Returns
        -------
        Move
            The move.
        """
        kind = int(mv[E.MV_KIND])
        slot = int(mv[E.MV_SLOT])
        if kind == E.K_PASS:
            return Move(kind="pass")
        s = int(self.st[E.ST_SLOTS + slot])
        name = self.rules.shapes[s].name
        if kind == E.K_DISCARD:
            return Move(kind="discard", slot=slot, shape=name)
        if kind == E.K_SWAP:
            return Move(
                kind="swap",
                slot=slot,
                shape=name,
                cell=_bit_to_cell(int(mv[E.MV_PL])),
                district=DISTRICTS[int(mv[E.MV_TILES])],
            )
        plain = tuple(_TILE_CHARS[int(mv[E.MV_TILES + k])] for k in range(4))
        free = _TILE_CHARS[int(mv[E.MV_FREE])] if int(mv[E.MV_FREE]) >= 0 else ""
        return self._placement_move(slot, int(mv[E.MV_PL]), plain, free)

    def random_move(self) -> Move:
        """The uniform-random policy's move (drawn from the game's policy stream).

        Returns
        -------
        Move
            The move (the game does not move; its policy stream does).
        """
        tb = self.tables
        mv = np.zeros(E.MV_LEN, dtype=np.int32)
        E.random_move(self.boards, self.st, self.rng, mv, tb.rp, tb.shp, tb.pl_mask)
        return self.decode(mv)

    def compensation(self) -> tuple[int, ...]:
        """The seats' compensation points under the rules, at this player count.

        Returns
        -------
        tuple of int
            One value per seat.
        """
        return tuple(int(self.tables.rp[RP_COMP + p]) for p in range(self.players))


def placement_bits(tb: Tables, pl: int) -> list[int]:
    """Board bits of a placement's cells (-1 off the board), for tests and tools.

    Parameters
    ----------
    tb : Tables
        The rule set's tables.
    pl : int
        The placement's index.

    Returns
    -------
    list of int
        Five bit indices.
    """
    return [int(b) for b in tb.pl_info[pl, PL_BITS : PL_BITS + 5]]
