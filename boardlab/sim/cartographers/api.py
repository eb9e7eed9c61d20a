"""The thin public API over Cartographers' kernels (docs/games/cartographers/engine.md §9).

    >>> from boardlab.sim.cartographers.api import Game
    >>> g = Game(players=3, rules="base-a", seed=7)
    >>> while not g.done:
    ...     g.apply(g.random_move())          # or any Move of g.legal_moves()
    >>> [s["total"] for s in g.scores()]

Moves are :class:`boardlab.sim.cartographers.moves.Move` objects a person can read; this
layer checks them (an illegal move raises :class:`IllegalMove` and changes
nothing) and translates them to the kernels' int arrays.  The kernels in
:mod:`boardlab.sim.cartographers.engine` trust their input.

Hidden information (:mod:`boardlab.sim.observation`): the explore deck is face down, and so is the
ambush deck.  What is public: the cards revealed so far (this season's, and every ambush out),
hence which explore cards are still in the deck, how many ambushes were shuffled into it, and
which ambushes are not yet out.  What is hidden: the deck's order, which of the unseen ambushes
are in it and which still wait in the ambush deck, and the chance stream's future (the shuffles
of the seasons ahead).  ``observation(player)`` is ``snapshot()`` with the two decks replaced by
those public facts; ``redeal(player, rng)`` deals a fresh, uniformly drawn deck and ambush deck
consistent with them.

The seats decide one after another although the game has them draw at once (``simultaneous``):
a seat's observation shows the maps as they are, the moves of the seats before it on this card
included, as when players look across the table.
"""

from __future__ import annotations

import ast
import re
from functools import lru_cache
from pathlib import Path

import numpy as np

from boardlab.sim.observation import Observation, as_generator, copy_seed, fresh_streams

from . import engine as E
from .moves import Move
from .rules import MAX_PLAYERS, MIN_PLAYERS, SIZE, STATE_LETTERS, STATES, Rules, load_rules
from .tables import (
    CD_COIN,
    CD_N_OPTIONS,
    CD_N_TERRAINS,
    CD_TERRAINS,
    FM_H,
    FM_ORIENT,
    FM_W,
    RP_FALLBACK,
    RP_FALLBACK_ANY,
    RP_N_FALLBACK,
    Tables,
    tables_for,
)

SEED_MASK = (1 << 64) - 1
PHASES = ("draw", "monster", "done")
_KINDS = {"draw": E.K_DRAW, "fallback": E.K_FALLBACK, "monster": E.K_MONSTER, "skip": E.K_SKIP}
_LETTERS = np.frombuffer(STATE_LETTERS.encode(), dtype=np.uint8)
_FAMILIES = ("forest", "village", "farm", "water")  # the move families of restricted play: the terrains a seat draws


class IllegalMove(ValueError):
    """A move the rules do not allow in the current position (the game is left unchanged)."""


def normalise_seed(seed) -> int:
    """Every seed enters the engine through here: any Python or numpy integer, taken modulo 2**64.

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


def planes_to_codes(planes: np.ndarray) -> np.ndarray:
    """Cell state codes of maps: planes uint64[..., N_PLANES, 2] -> uint8[..., 121].

    The state planes 0..7 partition the cells, so a cell's code is the plane holding it: the sum over
    the planes of (plane number x the cell's bit), one bit being set per cell.  (A cell in no plane reads 0.)

    Parameters
    ----------
    planes : numpy.ndarray
        uint64, shape ``(..., N_PLANES, 2)``: 121-bit planes as two words each.

    Returns
    -------
    numpy.ndarray
        uint8, shape ``(..., 121)``.
    """
    words = np.ascontiguousarray(planes[..., :8, :], dtype="<u8")
    bits = np.unpackbits(words.view(np.uint8), axis=-1, bitorder="little")[..., :121]  # [..., 8, 121]
    codes = np.zeros((*bits.shape[:-2], 121), dtype=np.uint8)
    for k in range(1, 8):
        codes += bits[..., k, :] * np.uint8(k)
    return codes


def codes_to_strings(codes: np.ndarray) -> np.ndarray:
    """State codes -> one string of 121 characters from ".TVFWGMX" per map.

    Parameters
    ----------
    codes : numpy.ndarray
        uint8, shape ``(M, 121)``.

    Returns
    -------
    numpy.ndarray
        str, shape ``(M,)``.
    """
    return _LETTERS[codes].view("S121").ravel().astype(str)


def grid_to_planes(grid: str | list[int], rules: Rules) -> np.ndarray:
    """A map as 121 state letters (or codes) -> planes uint64[N_PLANES, 2] (no mountain paid).

    For scoring hand-drawn maps; mountains and wasteland are taken from the grid as given.

    Parameters
    ----------
    grid : str or list of int
        The map: 121 state letters from ".TVFWGMX", or 121 state codes, row-major.
    rules : Rules
        The rule set.

    Returns
    -------
    numpy.ndarray
        uint64, shape ``(N_PLANES, 2)``.
    """
    codes = [STATE_LETTERS.index(ch) for ch in grid] if isinstance(grid, str) else [int(x) for x in grid]
    if len(codes) != SIZE * SIZE:
        raise ValueError(f"a map has {SIZE * SIZE} cells, got {len(codes)}")
    pl = np.zeros((E.N_PLANES, 2), dtype=np.uint64)
    for i, code in enumerate(codes):
        pl[code, i // 64] |= np.uint64(1) << np.uint64(i % 64)
    return pl


def score_card(card_id: int, grid: str | list[int], rules: Rules | str | None = None) -> int:
    """Points of scoring card `card_id` (26..41) on a map under `rules`.

    Parameters
    ----------
    card_id : int
        The scoring card.
    grid : str or list of int
        The map: 121 state letters from ".TVFWGMX", or 121 state codes, row-major.
    rules : Rules or str or None
        A rule set, a preset name or a TOML variant path (None: the default preset).

    Returns
    -------
    int
        The card's points.
    """
    rules = load_rules(rules)
    tb = tables_for(rules, 1)
    return int(E.score_card(np.int32(card_id), grid_to_planes(grid, rules), tb.rp, tb.masks))


def monster_penalty(grid: str | list[int], rules: Rules | str | None = None) -> int:
    """The monster penalty of a map: its empty cells with a monster neighbour, each once (empty ruins only if the
    rules count them; 0 when the rules have no penalty).

    Parameters
    ----------
    grid : str or list of int
        The map: 121 state letters from ".TVFWGMX", or 121 state codes, row-major.
    rules : Rules or str or None
        A rule set, a preset name or a TOML variant path (None: the default preset).

    Returns
    -------
    int
        The number of such cells (the points lost).
    """
    rules = load_rules(rules)
    tb = tables_for(rules, 1)
    return int(E.monster_penalty(grid_to_planes(grid, rules), tb.rp, tb.masks))


class Game:
    """One game: its rules, seed and the kernels' state arrays.

    Parameters
    ----------
    players : int
        1..5 (1 = the solo game).
    rules : Rules or str or path, optional
        A rule set, a preset name (``base-a``, ``base-b``) or a TOML variant path.
    seed : int
        The game seed (mod 2**64); with the rules it fixes the whole game but the players' choices.
    """

    information = "imperfect"  # the decks' order (boardlab.sim.observation)
    chance = True

    def __init__(self, players: int, rules: Rules | str | Path | None = None, seed: int = 0):
        if isinstance(players, bool) or not isinstance(players, (int, np.integer)):
            raise ValueError(f"players must be {MIN_PLAYERS}..{MAX_PLAYERS}, got {players!r}")
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ValueError(f"players must be {MIN_PLAYERS}..{MAX_PLAYERS}, got {players!r}")
        self.players = int(players)
        self.rules = load_rules(rules)
        self.seed = normalise_seed(seed)
        self.tables: Tables = tables_for(self.rules, self.players)
        self.bb = np.zeros((self.players, E.N_PLANES, 2), dtype=np.uint64)
        self.st = np.zeros(E.ST_LEN, dtype=np.int32)
        self.rng = np.zeros(2, dtype=np.uint64)
        self._mv = np.zeros(E.MV_LEN, dtype=np.int32)
        E.setup(self.bb, self.st, self.rng, np.uint64(self.seed), *self.tables.kernel_args())

    # --- state ------------------------------------------------------------------------------
    @property
    def done(self) -> bool:
        """Whether the game is over."""
        return int(self.st[E.ST_PHASE]) == E.PHASE_DONE

    @property
    def current(self) -> int:
        """The seat to decide (0-based)."""
        return int(self.st[E.ST_CURRENT])

    @property
    def target(self) -> int:
        """The map the current seat draws on (its own, or a neighbour's in a monster phase); -1 when done."""
        return int(self.st[E.ST_TARGET])

    @property
    def phase(self) -> str:
        """The decision at hand (a name of PHASES)."""
        return PHASES[int(self.st[E.ST_PHASE])]

    @property
    def card(self) -> int:
        """The explore card being played (its id)."""
        return int(self.st[E.ST_CARD])

    def copy(self) -> Game:
        """An independent copy (maps, state and streams copied; the rules and tables shared, being read-only).

        Returns
        -------
        Game
            The copy.
        """
        g = object.__new__(Game)
        g.__dict__.update(self.__dict__)
        g.bb = self.bb.copy()
        g.st = self.st.copy()
        g.rng = self.rng.copy()
        g._mv = self._mv.copy()
        return g

    def grid_codes(self, seat: int) -> np.ndarray:
        """The state code of each cell of seat's map.

        Parameters
        ----------
        seat : int
            The seat (0-based).

        Returns
        -------
        numpy.ndarray
            uint8, shape ``(121,)``.
        """
        return planes_to_codes(self.bb[seat])

    def grid_string(self, seat: int) -> str:
        """The seat's map as 121 state letters from ".TVFWGMX".

        Parameters
        ----------
        seat : int
            The seat (0-based).

        Returns
        -------
        str
            The map, row-major.
        """
        return "".join(STATE_LETTERS[c] for c in self.grid_codes(seat))

    def _ints(self, off: int, n: int) -> list[int]:
        return [int(x) for x in self.st[off : off + n]]

    def snapshot(self) -> dict:
        """The observation shared with the reference implementation (§8).

        Returns
        -------
        dict
            Plain data (JSON-serialisable).
        """
        st = self.st
        n = self.players
        codes = planes_to_codes(self.bb)
        # the cells of each seat's PAID plane: bit i % 64 of word i // 64, as little-endian bytes, least bit first
        words = np.ascontiguousarray(self.bb[:n, E.PAID], dtype="<u8").view(np.uint8)
        bits = np.unpackbits(words, axis=1, bitorder="little")[:, :121]
        paid = [np.flatnonzero(bits[p]).tolist() for p in range(n)]
        scored = int(st[E.ST_SCORED])
        keys = ("e1", "e2", "coins", "monster", "total")
        seasons = []
        for p in range(n):
            recs = []
            for s in range(scored):
                r = E.ST_RECORDS + (p * E.N_SEASONS + s) * E.REC_LEN
                recs.append({k: int(st[r + j]) for j, k in enumerate(keys)})
            seasons.append(recs)
        return {
            "players": n,
            "side": self.rules.side,
            "edicts": self._ints(E.ST_EDICTS, 4),
            "season": int(st[E.ST_SEASON]),
            "time": int(st[E.ST_TIME]),
            "phase": self.phase,
            "card": int(st[E.ST_CARD]),
            "current": int(st[E.ST_CURRENT]),
            "target": int(st[E.ST_TARGET]),
            "ruins_pending": bool(st[E.ST_RUINS]),
            "revealed": self._ints(E.ST_REVEALED, int(st[E.ST_N_REVEALED])),
            "deck": [int(x) for x in st[E.ST_DECK + st[E.ST_DECK_POS] : E.ST_DECK + st[E.ST_DECK_END]]],
            "ambush_deck": [int(x) for x in st[E.ST_AMBUSH + st[E.ST_AMBUSH_POS] : E.ST_AMBUSH + st[E.ST_AMBUSH_END]]],
            "ambushes_out": self._ints(E.ST_OUT, int(st[E.ST_N_OUT])),
            "grids": [STATE_LETTERS_ARRAY[codes[p]].tobytes().decode() for p in range(n)],
            "coins": self._ints(E.ST_COINS, n),
            "mountains_paid": paid,
            "seasons": seasons,
            "done": self.done,
        }

    def observation(self, player: int) -> Observation:
        """What seat `player` may see: snapshot() without the two decks' order -- instead ``deck_size``,
        ``deck_cards`` (the explore and ruins cards still in the deck, ascending), ``deck_ambushes`` (how
        many ambushes are in it), ``ambush_deck_size`` and ``ambushes_unseen`` (those not yet out,
        ascending) -- and ``sample(rng)``, a position consistent with it (:meth:`redeal`).

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
        snap = self.snapshot()
        deck, waiting = snap.pop("deck"), snap.pop("ambush_deck")
        ambush = self._ambush_ids()
        in_deck = [c for c in deck if c in ambush]
        snap.update(
            deck_size=len(deck),
            deck_cards=sorted(c for c in deck if c not in ambush),
            deck_ambushes=len(in_deck),
            ambush_deck_size=len(waiting),
            ambushes_unseen=sorted(in_deck + waiting),
        )
        return Observation(player, snap, self.redeal(player))

    def redeal(self, player: int, rng: np.random.Generator | int | None = None) -> Game:
        """A copy with the hidden part drawn afresh from `rng` (a numpy Generator or a seed): the unseen
        ambushes dealt anew between the explore deck and the ambush deck, the explore deck shuffled, and
        both random streams new (and the copy's ``seed`` with them).  Depends on the public state and `rng`
        only (the decks are sorted before they are dealt, and what the kernels do not read of them is
        cleared).  With `rng` None: both decks in ascending order (the ambushes in the deck the lowest unseen
        ones), the streams zero (and the seed 0).

        Parameters
        ----------
        player : int
            The seat whose view is kept (every seat sees the same here).
        rng : numpy.random.Generator or int or None
            Where the hidden part is drawn from.

        Returns
        -------
        Game
            The copy.
        """
        self._check_seat(player)
        gen = None if rng is None else as_generator(rng)
        g = self.copy()
        st = g.st
        pos, end = int(st[E.ST_DECK_POS]), int(st[E.ST_DECK_END])
        apos, aend = int(st[E.ST_AMBUSH_POS]), int(st[E.ST_AMBUSH_END])
        ambush = self._ambush_ids()
        deck = [int(c) for c in st[E.ST_DECK + pos : E.ST_DECK + end]]
        unseen = sorted(
            [c for c in deck if c in ambush] + [int(c) for c in st[E.ST_AMBUSH + apos : E.ST_AMBUSH + aend]]
        )
        if gen is not None:
            unseen = [unseen[i] for i in gen.permutation(len(unseen))]
        k = len(deck) - sum(c not in ambush for c in deck)
        cards = sorted(c for c in deck if c not in ambush) + unseen[:k]
        st[E.ST_DECK + pos : E.ST_DECK + end] = (
            sorted(cards) if gen is None else [cards[i] for i in gen.permutation(len(cards))]
        )
        st[E.ST_DECK + end : E.ST_DECK + E.MAX_DECK] = 0
        st[E.ST_AMBUSH : E.ST_AMBUSH + apos] = 0  # which ambushes went into the deck: hidden, and never read again
        st[E.ST_AMBUSH + apos : E.ST_AMBUSH + aend] = unseen[k:]
        g.rng[:] = fresh_streams(gen)
        g.seed = copy_seed(g.rng)  # drawn with the streams (0 canonically): never the true game's seed
        return g

    def _ambush_ids(self) -> frozenset[int]:
        return _ambush_ids(self.rules)

    def _check_seat(self, player) -> int:
        if not _is_int(player) or isinstance(player, bool) or not 0 <= player < self.players:
            raise ValueError(f"player must be a seat 0..{self.players - 1}, got {player!r}")
        return int(player)

    def scores(self) -> list[dict]:
        """Per seat (§7.3): season records, points per edict, coins, monster penalty, total, rank, win share;
        solo rating and title (None with 2+ players).

        Returns
        -------
        list of dict
            One entry per seat.
        """
        out = np.zeros((self.players, E.SC_LEN), dtype=np.int32)
        E.final_scores(self.st, self.tables.rp, out)
        snap_seasons = self.snapshot()["seasons"]
        names = [s.name for s in self.rules.seasons]
        winners = int((out[:, E.SC_RANK] == 1).sum())
        edicts = self._ints(E.ST_EDICTS, 4)
        res = []
        for p in range(self.players):
            total = int(out[p, E.SC_TOTAL])
            rank = int(out[p, E.SC_RANK])
            d = {
                "seasons": [{"season": names[s], **rec} for s, rec in enumerate(snap_seasons[p])],
                "edicts": [int(x) for x in out[p, E.SC_EDICT : E.SC_EDICT + 4]],
                "edict_points": int(out[p, E.SC_EDICT_POINTS]),
                "coin_points": int(out[p, E.SC_COIN_POINTS]),
                "monster_penalty": int(out[p, E.SC_MONSTER]),
                "total": total,
                "rank": rank,
                "win_share": 1.0 / winners if rank == 1 else 0.0,
                "rating": None,
                "title": None,
            }
            if self.players == 1:
                d["rating"], d["title"] = solo_rating(total, edicts, self.rules)
            res.append(d)
        return res

    def progress(self, player: int) -> int:
        """Seat `player`'s points so far: its records of the seasons scored (docs/games/cartographers.md, §7.2)
        plus, while a season is under way, its coins (each season scores the coins held, and coins never
        decrease).  At the game's end, its final total.

        Parameters
        ----------
        player : int
            The seat, 0-based.

        Returns
        -------
        int
            Its points so far.
        """
        player = self._check_seat(player)
        scored = 0
        for s in range(int(self.st[E.ST_SCORED])):
            scored += int(self.st[E.ST_RECORDS + (player * E.N_SEASONS + s) * E.REC_LEN + E.REC_TOTAL])
        return scored if self.done else scored + int(self.st[E.ST_COINS + player])

    def decision_kind(self) -> str:
        """The decision at hand's kind.

        Returns
        -------
        str
            ``draw`` (a seat draws on its own map) or ``monster`` (on a neighbour's).
        """
        return self.phase

    # --- moves ------------------------------------------------------------------------------
    def decode(self, row: np.ndarray) -> Move:
        """A kernel move of the current decision as a readable Move.

        Parameters
        ----------
        row : numpy.ndarray
            int32, shape ``(MV_LEN,)``.

        Returns
        -------
        Move
            The move.
        """
        kind = int(row[E.MV_KIND])
        t = int(row[E.MV_MAP])
        card = self.card
        if kind == E.K_SKIP:
            return Move("skip", t, card)
        a = int(row[E.MV_ANCHOR])
        anchor = (a // SIZE, a % SIZE)
        terrain = STATES[int(row[E.MV_TERRAIN])]
        if kind == E.K_FALLBACK:
            return Move("fallback", t, card, -1, -1, anchor, (anchor,), terrain)
        f = int(row[E.MV_FORM])
        ar, ac = anchor
        cells = tuple((ar + r, ac + c) for r, c in self.tables.form_cells[f])
        orient = int(self.tables.forms[f, FM_ORIENT])
        kind_name = "draw" if kind == E.K_DRAW else "monster"
        return Move(kind_name, t, card, int(row[E.MV_OPTION]), orient, anchor, cells, terrain)

    def move_families(self) -> tuple[str, ...]:
        """The move families restricted play names (``random-prefers:forest``): the four terrains a seat draws.

        Returns
        -------
        tuple of str
            The families' names.
        """
        return _FAMILIES

    def move_family(self, move: Move) -> str:
        """The terrain a draw (or a fallback) puts on the mover's own map; "" for a monster (drawn by anyone) or a
        skip.

        Parameters
        ----------
        move : Move
            A move.

        Returns
        -------
        str
            A terrain of :meth:`move_families`, or "".
        """
        return move.terrain if move.kind in ("draw", "fallback") and move.terrain in _FAMILIES else ""

    def legal_moves(self) -> list[Move]:
        """Every legal move of the decision at hand, in the contract's listing order (§5.3); [] when done.

        Returns
        -------
        list of Move
            The moves.
        """
        if self.done:
            return []
        out = np.zeros((E.MAX_MOVES, E.MV_LEN), dtype=np.int32)
        tb = self.tables
        n = E.enumerate_moves(self.bb, self.st, tb.rp, tb.cards, tb.forms, tb.form_anchors, tb.masks, -1, out)
        return [self.decode(out[i]) for i in range(n)]

    def count_moves(self) -> int:
        """How many legal moves the decision at hand has (len(legal_moves()) without building them).

        Returns
        -------
        int
            The number of legal moves.
        """
        tb = self.tables
        out = self._mv.reshape(1, -1)
        return int(E.enumerate_moves(self.bb, self.st, tb.rp, tb.cards, tb.forms, tb.form_anchors, tb.masks, -2, out))

    def _fallback_terrains(self) -> tuple[str, ...]:
        tb = self.tables
        if self.phase == "monster":
            return ("monster",)
        if tb.rp[RP_FALLBACK_ANY] or self.st[E.ST_RUINS]:
            return tuple(STATES[int(x)] for x in tb.rp[RP_FALLBACK : RP_FALLBACK + tb.rp[RP_N_FALLBACK]])
        return self._card_terrains()

    def _card_terrains(self) -> tuple[str, ...]:
        row = self.tables.cards[self.card]
        return tuple(STATES[int(x)] for x in row[CD_TERRAINS : CD_TERRAINS + row[CD_N_TERRAINS]])

    def _encode(self, m) -> np.ndarray:
        """Check m against the position (it must equal a move of legal_moves()); fill the kernel move."""
        if not isinstance(m, Move):
            raise IllegalMove(f"not a Move: {m!r}")
        if self.done:
            raise IllegalMove("the game is over")
        kind = _KINDS.get(m.kind)
        if kind is None:
            raise IllegalMove(f"unknown move kind {m.kind!r} (valid: {', '.join(_KINDS)})")
        t = self.target
        if m.map != t:
            raise IllegalMove(f"{m.kind}: the map to draw on is seat {t}'s, not {m.map!r}")
        if m.card != self.card:
            raise IllegalMove(f"{m.kind}: the card is {self.card:02d}, not {m.card!r}")
        tb = self.tables
        full = not (self.bb[t, E.EMPTY, 0] or self.bb[t, E.EMPTY, 1])
        mv = self._mv
        mv[:] = 0
        mv[E.MV_KIND] = kind
        mv[E.MV_MAP] = t
        mv[E.MV_OPTION] = -1
        mv[E.MV_FORM] = -1
        mv[E.MV_ANCHOR] = -1
        if kind == E.K_SKIP:
            if not full:
                raise IllegalMove("skip: only when the map has no empty cell")
            canonical = Move("skip", t, self.card)
        else:
            if full:
                raise IllegalMove(f"{m.kind}: the map is full (the only move is skip)")
            anchor = _cell(m.anchor)
            if anchor is None:
                raise IllegalMove(f"{m.kind}: anchor must be a (row, col) pair on the map, got {m.anchor!r}")
            ar, ac = anchor
            if kind == E.K_FALLBACK:
                cell = SIZE * ar + ac
                if int(self.bb[t, E.EMPTY, cell // 64]) >> (cell % 64) & 1 == 0:
                    raise IllegalMove(f"fallback: cell {anchor} is not empty")
                if E.shape_fits(self.bb, self.st, tb.rp, tb.cards, tb.forms, tb.form_anchors, tb.masks):
                    raise IllegalMove("fallback: a shape can be placed, so no 1x1 fallback")
                terrains = self._fallback_terrains()
                if m.terrain not in terrains:
                    raise IllegalMove(f"fallback: terrain must be one of {', '.join(terrains)}, got {m.terrain!r}")
                mv[E.MV_ANCHOR] = cell
                mv[E.MV_TERRAIN] = STATES.index(m.terrain)
                canonical = Move("fallback", t, self.card, -1, -1, anchor, (anchor,), m.terrain)
            else:
                if (kind == E.K_DRAW) != (self.phase == "draw"):
                    raise IllegalMove(f"{m.kind}: not in a {self.phase} phase")
                n_opt = int(tb.cards[self.card, CD_N_OPTIONS])
                if not _is_int(m.option) or not 0 <= m.option < n_opt:
                    raise IllegalMove(f"{m.kind}: option must be 0..{n_opt - 1}, got {m.option!r}")
                f = tb.form_of.get((self.card, int(m.option), m.orientation)) if _is_int(m.orientation) else None
                if f is None:
                    raise IllegalMove(f"{m.kind}: {m.orientation!r} is not a canonical orientation of the shape")
                h, w = int(tb.forms[f, FM_H]), int(tb.forms[f, FM_W])
                if not (ar <= SIZE - h and ac <= SIZE - w):
                    raise IllegalMove(f"{m.kind}: the shape at {anchor} leaves the map")
                terrains = self._card_terrains() if kind == E.K_DRAW else ("monster",)
                if m.terrain not in terrains:
                    raise IllegalMove(f"{m.kind}: terrain must be one of {', '.join(terrains)}, got {m.terrain!r}")
                a = SIZE * ar + ac
                if not E.placement_ok(self.bb, self.st, tb.masks, tb.forms, tb.form_anchors, f, a):
                    need = " and cover an empty ruins cell" if self.st[E.ST_RUINS] and kind == E.K_DRAW else ""
                    raise IllegalMove(f"{m.kind}: the shape at {anchor} must lie on empty cells{need}")
                mv[E.MV_OPTION] = int(m.option)
                mv[E.MV_FORM] = f
                mv[E.MV_ANCHOR] = a
                mv[E.MV_TERRAIN] = STATES.index(m.terrain)
                canonical = self.decode(mv)
        if m != canonical:
            raise IllegalMove(f"{m.kind}: fields differ from the legal move {canonical}")
        return mv

    def agent_moves(self) -> list[Move]:
        """The moves an agent chooses from: every legal move (legal_moves()).

        Returns
        -------
        list of Move
            The moves.
        """
        return self.legal_moves()

    @staticmethod
    def parse_move(text: str) -> Move:
        """A move's text (``str(move)``) -> the Move (:func:`parse_move`).

        Parameters
        ----------
        text : str
            The move's text.

        Returns
        -------
        Move
            The move.
        """
        return parse_move(text)

    def is_legal(self, m: Move) -> bool:
        """Whether `m` may be played now by the seat to decide.

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
        """Play a move for the seat to decide; raises IllegalMove and leaves the game unchanged.

        Parameters
        ----------
        m : Move
            A move.
        """
        mv = self._encode(m)
        tb = self.tables
        E.apply_move(self.bb, self.st, self.rng, mv, *_apply_args(tb))

    def random_move(self) -> Move:
        """The random policy's move: moves[policy.rand(len(moves))] (drawn from the game's policy stream).

        Returns
        -------
        Move
            The move (the game does not move; its policy stream does).
        """
        if self.done:
            raise IllegalMove("the game is over")
        tb = self.tables
        mv = np.zeros(E.MV_LEN, dtype=np.int32)
        E.random_move(self.bb, self.st, self.rng, mv, tb.rp, tb.cards, tb.forms, tb.form_anchors, tb.masks)
        return self.decode(mv)

    def coin_shape(self, m: Move) -> bool:
        """Whether a draw move uses a coin shape.

        Parameters
        ----------
        m : Move
            A move.

        Returns
        -------
        bool
            True for a draw of its card's coin shape.
        """
        return m.kind == "draw" and bool(self.tables.cards[m.card, CD_COIN + m.option])


STATE_LETTERS_ARRAY = _LETTERS


@lru_cache(maxsize=64)
def _ambush_ids(rules: Rules) -> frozenset[int]:
    return frozenset(a.id for a in rules.ambush_cards)


_PAIR = r"\((-?\d+), (-?\d+)\)"
_MOVE_TEXT = {
    "draw": re.compile(rf"map (\d+): card (\d+) shape ([AB]) o(\d) at {_PAIR} ([a-z]+) (\[.*\])"),
    "monster": re.compile(rf"map (\d+): ambush (\d+) monster o(\d) at {_PAIR} (\[.*\])"),
    "fallback": re.compile(rf"map (\d+): card (\d+) 1x1 ([a-z]+) at {_PAIR}"),
    "skip": re.compile(r"map (\d+): card (\d+) skip \(map full\)"),
}


def parse_move(text: str) -> Move:
    """A move's text (``str(move)``) -> the Move; IllegalMove for text that is no move's.

    Whether the move is legal in a position is ``Game.is_legal``'s business.

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
    kind, m = next(((k, m) for k, pattern in _MOVE_TEXT.items() if (m := pattern.fullmatch(text))), (None, None))
    if m is None:
        raise IllegalMove(f"not a move: {text!r} (moves read as str(move) prints them)")
    g = m.groups()
    if kind == "draw":
        cells = tuple(tuple(c) for c in ast.literal_eval(g[7]))
        move = Move("draw", int(g[0]), int(g[1]), "AB".index(g[2]), int(g[3]), (int(g[4]), int(g[5])), cells, g[6])
    elif kind == "monster":
        cells = tuple(tuple(c) for c in ast.literal_eval(g[5]))
        move = Move("monster", int(g[0]), int(g[1]), 0, int(g[2]), (int(g[3]), int(g[4])), cells, "monster")
    elif kind == "fallback":
        anchor = (int(g[3]), int(g[4]))
        move = Move("fallback", int(g[0]), int(g[1]), -1, -1, anchor, (anchor,), g[2])
    else:
        move = Move("skip", int(g[0]), int(g[1]))
    if str(move) != text:
        raise IllegalMove(f"not a move: {text!r} (moves read as str(move) prints them)")
    return move


def _apply_args(tb: Tables) -> tuple:
    return tb.rp, tb.cards, tb.forms, tb.form_anchors, tb.walk, tb.masks


def _is_int(x) -> bool:
    return isinstance(x, (int, np.integer))


def _cell(x) -> tuple[int, int] | None:
    try:
        r, c = x
    except (TypeError, ValueError):
        return None
    if not (_is_int(r) and _is_int(c)) or not (0 <= r < SIZE and 0 <= c < SIZE):
        return None
    return int(r), int(c)


def solo_rating(total: int, edicts: list[int], rules: Rules) -> tuple[int, str | None]:
    """§6.2: rating = total - the solo numbers of the 4 edict cards; the title of the first row it meets.

    Parameters
    ----------
    total : int
        The solo player's total.
    edicts : list of int
        The four edict (scoring) cards' ids.
    rules : Rules
        The rule set (its solo numbers and titles).

    Returns
    -------
    tuple of (int, str or None)
        The rating and its title.
    """
    solo = {c.id: c.solo for c in rules.scoring_cards}
    rating = int(total) - sum(solo[e] for e in edicts)
    for threshold, title in rules.titles:
        if rating >= threshold:
            return rating, title
    below = rules.solo["below_titles"]
    return rating, (rules.titles[-1][1] if below == "lowest" else None)
