"""The thin public API over Citadels' kernels.

    >>> from boardlab.sim.citadels.api import Game
    >>> g = Game(players=4, rules="official", seed=7)
    >>> while not g.done:
    ...     g.apply(g.random_move())          # or any move of g.legal_moves()
    >>> [s["total"] for s in g.scores()]

A move is a tuple ``(kind, *args)`` of the contract's canonical decision list (§8):
``(0, r)`` PICK, ``(1, r)`` DISCARD_CHAR, ``(2,)`` GOLD, ``(3,)`` DRAW, ``(4, (t, ...))`` KEEP
(the kept types, sorted), ``(5,)`` INCOME, ``(6, r)`` KILL, ``(7, r)`` ROB, ``(8, q)`` SWAP,
``(9, t)`` REDRAW, ``(10, t)`` LAB, ``(11,)`` SMITHY, ``(12, t)`` BUILD, ``(13, q, t)`` DESTROY,
``(14,)`` END, ``(15,)`` GRAVE_TAKE, ``(16,)`` GRAVE_PASS, ``(17,)`` REDRAW_DONE; seats and type ids
are ints.  :func:`move_text` writes one as ``KEEP 13,25`` or ``DESTROY 2 14`` (docs/games/citadels.md
§8.3), :func:`parse_move` reads exactly that form back.  This layer checks moves (an illegal one
raises :class:`IllegalMove` and changes nothing) and translates them to the kernels' int arrays; the
kernels trust their input.

``observation(player)`` is all that player may see (§7), the only input agents get.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from boardlab.sim.observation import Observation, as_generator

from . import engine as E
from . import infoset as I
from .rules import CHARACTERS, MAX_TYPES, N_RANKS, Rules, load_rules
from .tables import DT_COLOUR, RP_N_CARDS, Tables, tables_for

SEED_MASK = (1 << 64) - 1
# Room kept free in the event log before each move (a move writes far fewer events).
_EVENT_MARGIN = 2048

KIND_NAMES = (
    "PICK",
    "DISCARD_CHAR",
    "GOLD",
    "DRAW",
    "KEEP",
    "INCOME",
    "KILL",
    "ROB",
    "SWAP",
    "REDRAW",
    "LAB",
    "SMITHY",
    "BUILD",
    "DESTROY",
    "END",
    "GRAVE_TAKE",
    "GRAVE_PASS",
    "REDRAW_DONE",
)
_KIND_OF = {name: k for k, name in enumerate(KIND_NAMES)}
_N_ARGS = {
    E.K_PICK: 1,
    E.K_DISCARD_CHAR: 1,
    E.K_KILL: 1,
    E.K_ROB: 1,
    E.K_SWAP: 1,
    E.K_REDRAW: 1,
    E.K_LAB: 1,
    E.K_BUILD: 1,
    E.K_DESTROY: 2,
}
PHASES = ("select", "discard", "turn", "graveyard", "done")
# The observation's phase names (docs/games/citadels.md §7.2): a 2-player discard is a "select" phase too.
_OBS_PHASES = ("select", "select", "turn", "graveyard", "done")

# Each event kind (boardlab.sim.citadels.engine.E_*) as its tag and the meaning of its arguments A..D:
# "i" an int, "b" a bool, "n" the length of a tuple whose items follow in E_ITEM rows.
_EVENTS = {
    E.E_START: ("start", "ii"),
    E.E_HAND: ("hand", "n"),
    E.E_ROUND: ("round", "ii"),
    E.E_FACEDOWN: ("facedown", "i"),
    E.E_KING_RETURNED: ("king_returned", ""),
    E.E_FACEUP: ("faceup", "i"),
    E.E_FACEDOWN_SEEN: ("facedown_seen", "i"),
    E.E_OFFER: ("offer", "n"),
    E.E_PICK: ("pick", "i"),
    E.E_CHOSE: ("chose", "i"),
    E.E_DISCARD: ("discard", "i"),
    E.E_DISCARDED: ("discarded", "i"),
    E.E_CALL: ("call", "ii"),
    E.E_ROBBED: ("robbed", "iii"),
    E.E_CROWN: ("crown", "i"),
    E.E_GOLD: ("gold", "ii"),
    E.E_DRAW: ("draw", "iii"),
    E.E_DRAWN: ("drawn", "n"),
    E.E_KEEP: ("keep", "ii"),
    E.E_KEPT: ("kept", "nn"),
    E.E_MERCHANT_BONUS: ("merchant_bonus", "ii"),
    E.E_ARCHITECT_DRAW: ("architect_draw", "ii"),
    E.E_INCOME: ("income", "ii"),
    E.E_KILL: ("kill", "ii"),
    E.E_ROB: ("rob", "ii"),
    E.E_SWAP: ("swap", "ii"),
    E.E_RECEIVED: ("received", "n"),
    E.E_REDRAW: ("redraw", "ii"),
    E.E_REDREW: ("redrew", "nn"),
    E.E_LAB: ("lab", "ii"),
    E.E_LAB_CARD: ("lab_card", "i"),
    E.E_SMITHY: ("smithy", "ii"),
    E.E_BUILD: ("build", "iii"),
    E.E_COMPLETE: ("complete", "i"),
    E.E_DESTROY: ("destroy", "iiii"),
    E.E_GRAVE: ("grave", "iii"),
    E.E_END: ("end", "i"),
    E.E_HEIR: ("heir", "i"),
    E.E_GAME_END: ("game_end", "b"),  # + the final totals
    E.E_MURDERED_REVEALED: ("murdered_revealed", "ii"),
    E.E_HIDDEN_REVEALED: ("hidden_revealed", "i"),
}


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


class Move(tuple):
    """A move: the tuple ``(kind, *args)`` (equal to, and hashing as, the plain tuple), whose ``str`` is its
    :func:`move_text` (``"KEEP 13,25"``), which :func:`parse_move` reads back."""

    __slots__ = ()

    def __new__(cls, items=()):
        return super().__new__(cls, items)

    def __str__(self) -> str:
        return move_text(self)

    __repr__ = tuple.__repr__

    def __reduce__(self):
        return (Move, (tuple(self),))


def move_text(move) -> str:
    """``(13, 2, 14)`` -> ``"DESTROY 2 14"``; ``(4, (13, 25))`` -> ``"KEEP 13,25"`` (docs/games/citadels.md §8.3).

    Parameters
    ----------
    move : tuple
        A move tuple.

    Returns
    -------
    str
        Its text.
    """
    kind = move[0]
    if kind == E.K_KEEP:
        return f"{KIND_NAMES[kind]} {','.join(str(int(t)) for t in move[1])}"
    return " ".join([KIND_NAMES[kind], *(str(int(a)) for a in move[1:])])


def parse_move(text: str) -> tuple:
    """The inverse of :func:`move_text`; ValueError (one line) on anything else.

    Parameters
    ----------
    text : str
        A move's text.

    Returns
    -------
    tuple
        The move tuple.
    """
    parts = str(text).split(" ")
    if not parts or parts[0] not in _KIND_OF:
        raise ValueError(f"not a move: {text!r} (kinds: {', '.join(KIND_NAMES)})")
    kind = _KIND_OF[parts[0]]
    if kind == E.K_KEEP:
        if len(parts) != 2:
            raise ValueError(f"not a move: {text!r} (KEEP takes the kept types, comma-joined)")
        parts = [parts[0], *parts[1].split(",")]
    try:
        args = [int(a) for a in parts[1:]]
    except ValueError:
        raise ValueError(f"not a move: {text!r} (arguments are integers)") from None
    if kind == E.K_KEEP:
        return Move((kind, tuple(args)))
    if len(args) != _N_ARGS.get(kind, 0):
        raise ValueError(f"not a move: {text!r} ({KIND_NAMES[kind]} takes {_N_ARGS.get(kind, 0)} arguments)")
    return Move((kind, *args))


def _as_tuple(row) -> tuple:
    kind = int(row[E.MV_KIND])
    a, b = int(row[E.MV_A]), int(row[E.MV_B])
    if kind == E.K_KEEP:
        return Move((kind, (a,) if b < 0 else (a, b)))
    n = _N_ARGS.get(kind, 0)
    if n == 0:
        return Move((kind,))
    if n == 1:
        return Move((kind, a))
    return Move((kind, a, b))


class Game:
    """One game: its rules, seed and the kernels' state arrays.

    Parameters
    ----------
    players : int
        A player count the rules allow (official 2..7, seed-summary 2..8).
    rules : Rules or str or path or dict, optional
        A rule set, a preset name (``official``, ``seed-summary``), a TOML variant path or a mapping.
    seed : int
        The game seed (mod 2**64); with the rules it fixes every chance event (§1).
    log : bool
        Keep the event log (observations need it; bulk simulations do not).
    """

    information = "imperfect"  # hands, characters and the deck (docs/games/citadels.md §7)
    chance = True

    def __init__(self, players: int, rules: Rules | str | Path | dict | None = None, seed: int = 0, log: bool = True):
        self.rules = load_rules(rules)
        self.rules.check_players(players)
        self.players = int(players)
        self.seed = normalise_seed(seed)
        self.tables: Tables = tables_for(self.rules, self.players)
        self.st = np.zeros(E.ST_LEN, dtype=np.int32)
        self.rng = np.zeros(2, dtype=np.uint64)
        self.ev = np.zeros((4 * _EVENT_MARGIN if log else 1, E.EV_LEN), dtype=np.int32)
        self._moves = np.zeros((E.MAX_MOVES, E.MV_LEN), dtype=np.int32)
        self._mv = np.zeros(E.MV_LEN, dtype=np.int32)
        # The log decoded so far: per seat, the events it sees, as the documented tuples.
        self._logs: list[list[tuple]] = [[] for _ in range(self.players)]
        self._decoded = 0
        E.setup(self.st, self.rng, self.ev, np.uint64(self.seed), *self.tables.kernel_args(), int(log))

    # --- state ------------------------------------------------------------------------------------
    @property
    def done(self) -> bool:
        """Whether the game is over."""
        return int(self.st[E.ST_PHASE]) == E.PH_DONE

    @property
    def current(self) -> int:
        """The seat to decide; -1 when the game is over."""
        return int(self.st[E.ST_CURRENT])

    @property
    def phase(self) -> str:
        """The decision at hand (a name of PHASES)."""
        return PHASES[int(self.st[E.ST_PHASE])]

    @property
    def round(self) -> int:
        """The current round (1-based)."""
        return int(self.st[E.ST_ROUND])

    @classmethod
    def from_position(
        cls,
        players: int,
        rules: Rules | str | Path | dict | None = None,
        seed: int = 0,
        *,
        round: int = 1,
        crown: int = 0,
        gold: list[int],
        hands: list[list[int]],
        cities: list[list],
        deck_top: list[int] = (),
        bank: int | None = None,
        ranks: list[int] | None = None,
    ) -> Game:
        """A game at the start of round `round` from a given position (tests and worked examples).

        The deck is `deck_top` (top first) followed by every other card in canonical order.  The chance stream
        starts afresh at the game seed, as ``RefGame.from_position``'s does: the same seed draws the same
        chance from a position on both (the setup that ``Game(...)`` played first draws nothing of it).
        The event log starts empty.  ValueError (one line) on a position that breaks card or gold
        conservation.

        Parameters
        ----------
        players : int
            Number of seats.
        rules : Rules or str or pathlib.Path or dict or None
            The rule set (None: the default preset).
        seed : int
            The game seed.
        round : int
            The round about to start.
        crown : int
            The seat holding the crown.
        gold : list of int
            Each seat's gold.
        hands : list of list of int
            Each seat's hand, as type ids.
        cities : list of list
            Per seat, type ids or (type id, build round) pairs in build order (round 0 if not given: placed
            before the game).
        deck_top : sequence of int
            The deck's top cards, top first.
        bank : int or None
            The bank's gold (None: the rest of the rules' gold).
        ranks : list of int or None
            That round's rank shuffle, top first (None: drawn from the chance stream).

        Returns
        -------
        Game
            The game.
        """
        g = cls(players, rules, seed)
        n = g.players
        tb = g.tables
        deck = tb.rules.districts
        if not (len(gold) == len(hands) == len(cities) == n):
            raise ValueError(f"gold, hands and cities need one entry per seat ({n})")
        city_pairs = [[(c, 0) if isinstance(c, (int, np.integer)) else tuple(c) for c in city] for city in cities]
        used = [0] * len(deck)
        for t in [*(t for h in hands for t in h), *(t for c in city_pairs for t, _ in c), *deck_top]:
            if not 0 <= t < len(deck):
                raise ValueError(f"type id {t} is not in the deck (0..{len(deck) - 1})")
            used[t] += 1
        over = [deck[t].name for t in range(len(deck)) if used[t] > deck[t].copies]
        if over:
            raise ValueError(f"more copies than the deck has: {', '.join(over)}")
        for c in city_pairs:
            if len({t for t, _ in c}) != len(c):
                raise ValueError("a city holds at most one district of each name")
        total = tb.rules["bank_gold"]
        bank = total - sum(gold) if bank is None else bank
        if bank < 0 or min(gold) < 0:
            raise ValueError(f"gold {gold} and bank {bank}: no negative amounts")
        st = g.st
        keep = {i: int(st[i]) for i in (E.ST_PLAYERS, E.ST_LOG)}
        st[:] = 0
        for i, v in keep.items():
            st[i] = v
        st[E.ST_FIRST_COMPLETER] = -1
        st[E.ST_GRAVE_CARD] = -1
        st[E.ST_GRAVE_OWNER] = -1
        rest = [t for t in range(len(deck)) for _ in range(deck[t].copies - used[t])]
        for i, t in enumerate([*deck_top, *rest]):
            st[E.ST_DECK + i] = t
        st[E.ST_DECK_LEN] = len(deck_top) + len(rest)
        st[E.ST_BANK] = bank
        dt = tb.districts
        for p in range(n):
            st[E.ST_GOLD + p] = gold[p]
            for t in hands[p]:
                st[E.ST_HAND + p * MAX_TYPES + t] += 1
                st[E.ST_HAND_N + p] += 1
                st[E.ST_HAND_MASK + p] |= 1 << t
            for i, (t, rnd) in enumerate(city_pairs[p]):
                st[E.ST_CITY + p * MAX_TYPES + i] = t
                st[E.ST_CITY_ROUND + p * MAX_TYPES + i] = rnd
                st[E.ST_CITY_MASK + p] |= 1 << t
                st[E.ST_CITY_COLOUR + p * E.N_COLOURS + int(dt[t, DT_COLOUR])] += 1
            st[E.ST_CITY_N + p] = len(city_pairs[p])
        st[E.ST_CROWN] = crown
        st[E.ST_ROUND] = round - 1
        g.rng[E.CHANCE] = np.uint64(g.seed)  # a position's chance stream starts at the seed (RefGame's too)
        g._logs = [[] for _ in range(n)]
        g._decoded = 0
        if ranks is None:
            E.start_round(st, g.rng, g.ev, tb.rp)
        else:
            if sorted(ranks) != list(range(1, N_RANKS + 1)):
                raise ValueError(f"ranks must order 1..8, got {ranks!r}")
            E.start_round_with(st, g.rng, g.ev, tb.rp, np.asarray(ranks, dtype=np.int32))
        E.advance(st, g.rng, g.ev, *tb.kernel_args())
        return g

    def copy(self) -> Game:
        """An independent copy (state, streams and the event log's rows copied; the tables shared, being read-only).

        Returns
        -------
        Game
            The copy.
        """
        g = object.__new__(Game)
        g.__dict__.update(self.__dict__)
        g.st = self.st.copy()
        g.rng = self.rng.copy()
        g.ev = self.ev[: int(self.st[E.ST_N_EVENTS]) + _EVENT_MARGIN].copy()  # the rows written, and room
        g._moves = np.zeros_like(self._moves)
        g._mv = np.zeros_like(self._mv)
        g._logs = [list(log) for log in self._logs]
        return g

    def _int(self, off: int) -> int:
        return int(self.st[off])

    def _ints(self, off: int, n: int) -> list[int]:
        return [int(x) for x in self.st[off : off + n]]

    def deck(self) -> list[int]:
        """The deck's type ids, top first.

        Returns
        -------
        list of int
            Type ids, top first.
        """
        st = self.st
        cards = int(self.tables.rp[RP_N_CARDS])
        top, n = int(st[E.ST_DECK_TOP]), int(st[E.ST_DECK_LEN])
        return [int(st[E.ST_DECK + (top + i) % cards]) for i in range(n)]

    def hand(self, seat: int) -> list[int]:
        """Seat's hand as sorted type ids (copies repeated).

        Parameters
        ----------
        seat : int
            The seat (0-based).

        Returns
        -------
        list of int
            The type ids.
        """
        base = E.ST_HAND + seat * MAX_TYPES
        counts = self.st[base : base + MAX_TYPES].tolist()
        return [t for t, c in enumerate(counts) if c for _ in range(c)]

    def city(self, seat: int) -> list[tuple[int, int]]:
        """Seat's city in build order.

        Parameters
        ----------
        seat : int
            The seat (0-based).

        Returns
        -------
        list of tuple of (int, int)
            (type id, build round) per district.
        """
        base = seat * MAX_TYPES
        n = int(self.st[E.ST_CITY_N + seat])
        types = self.st[E.ST_CITY + base : E.ST_CITY + base + n].tolist()
        rounds = self.st[E.ST_CITY_ROUND + base : E.ST_CITY_ROUND + base + n].tolist()
        return list(zip(types, rounds, strict=True))

    def holder(self, rank: int) -> int:
        """The seat holding rank `rank` this round.

        Parameters
        ----------
        rank : int
            A character rank, 1..8.

        Returns
        -------
        int
            The seat, or -1 when nobody holds it.
        """
        return int(self.st[E.ST_HOLDER + rank])

    def characters(self, seat: int) -> list[int]:
        """The ranks seat holds this round, ascending.

        Parameters
        ----------
        seat : int
            The seat (0-based).

        Returns
        -------
        list of int
            Ranks 1..8.
        """
        holders = self.st[E.ST_HOLDER + 1 : E.ST_HOLDER + N_RANKS + 1].tolist()
        return [r for r, h in enumerate(holders, 1) if h == seat]

    def snapshot(self) -> dict:
        """The whole state as plain data (hidden parts included: agents get :meth:`observation`).

        Returns
        -------
        dict
            Plain data (JSON-serialisable).
        """
        st = self.st
        n = self.players
        turn = None
        if self.phase in ("turn", "graveyard"):
            turn = {
                "seat": self._int(E.ST_TURN_SEAT),
                "character": self._int(E.ST_TURN_CHAR),
                "acted": bool(st[E.ST_ACTED]),
                "ability_used": bool(st[E.ST_ABILITY]),
                "income_taken": bool(st[E.ST_INCOME_TAKEN]),
                "lab_used": bool(st[E.ST_LAB_USED]),
                "smithy_used": bool(st[E.ST_SMITHY_USED]),
                "destroy_used": bool(st[E.ST_DESTROY_USED]),
                "built": self._int(E.ST_BUILT),
                "limit": self._int(E.ST_LIMIT),
                "pending": self._ints(E.ST_PEND, self._int(E.ST_PEND_N)),
                "keep": self._int(E.ST_KEEP_K) if st[E.ST_PEND_N] else 0,
                "redraw": [t for t in range(MAX_TYPES) for _ in range(int(st[E.ST_REDRAW + t]))],
            }
        return {
            "players": n,
            "rules": self.rules.name,
            "seed": self.seed,
            "round": self.round,
            "phase": self.phase,
            "current": self.current,
            "done": self.done,
            "crown": self._int(E.ST_CROWN),
            "bank": self._int(E.ST_BANK),
            "deck": self.deck(),
            "out_of_game": [t for t in range(MAX_TYPES) for _ in range(int(st[E.ST_OUT + t]))],
            "gold": self._ints(E.ST_GOLD, n),
            "hands": [self.hand(p) for p in range(n)],
            "cities": [[list(x) for x in self.city(p)] for p in range(n)],
            "holder": self._ints(E.ST_HOLDER + 1, N_RANKS),
            "pile": self._ints(E.ST_PILE, self._int(E.ST_PILE_N)),
            "faceup": self._ints(E.ST_FU, self._int(E.ST_FU_N)),
            "facedown_removed": self._ints(E.ST_FD, self._int(E.ST_FD_N)),
            "offer": self._ints(E.ST_OFFER, self._int(E.ST_OFFER_N)),
            "called": self._int(E.ST_CALL),
            "killed": self._int(E.ST_KILLED),
            "robbed": self._int(E.ST_ROBBED),
            "final_round": bool(st[E.ST_FINAL]),
            "first_completer": self._int(E.ST_FIRST_COMPLETER),
            "capped": bool(st[E.ST_CAPPED]),
            "turn": turn,
            "grave": (
                {"owner": self._int(E.ST_GRAVE_OWNER), "card": self._int(E.ST_GRAVE_CARD)}
                if self.phase == "graveyard"
                else None
            ),
        }

    def scores(self) -> list[dict]:
        """Per seat (§6): score parts, total, gold, rank and win share (the k winners get 1/k each).

        Returns
        -------
        list of dict
            One entry per seat.
        """
        out = np.zeros((self.players, E.SC_LEN), dtype=np.int32)
        E.final_scores(self.st, *self.tables.kernel_args(), out)
        winners = int(out[:, E.SC_WINNER].sum())
        capped = bool(self.st[E.ST_CAPPED])
        res = []
        for p in range(self.players):
            cost = int(out[p, E.SC_COST])
            pts = int(out[p, E.SC_DISTRICT_POINTS])
            rank = int(out[p, E.SC_RANK])
            res.append(
                {
                    "district_points": pts,
                    "purple_extras": pts - cost,
                    "colour_bonus": int(out[p, E.SC_COLOUR_BONUS]),
                    "printed_cost": cost,
                    "completion_bonus": int(out[p, E.SC_COMPLETE_BONUS]),
                    "seat_points": int(out[p, E.SC_SEAT_POINTS]),
                    "total": int(out[p, E.SC_TOTAL]),
                    "gold": int(out[p, E.SC_GOLD]),
                    "capped": capped,
                    "rank": rank,
                    "win_share": 1.0 / winners if out[p, E.SC_WINNER] else 0.0,
                }
            )
        return res

    def progress(self, player: int) -> int:
        """Seat `player`'s score as the rules count it now (docs/games/citadels.md §6: its city's points, the
        colour and completion bonuses it holds, its seat points).  At the game's end, its final total.

        Parameters
        ----------
        player : int
            The seat, 0-based.

        Returns
        -------
        int
            Its current score.
        """
        player = self._check_seat(player)
        out = np.zeros((self.players, E.SC_LEN), dtype=np.int32)
        E.final_scores(self.st, *self.tables.kernel_args(), out)
        return int(out[player, E.SC_TOTAL])

    def capped(self) -> bool:
        """Whether the game ended at the round cap (``max_rounds``, §8.4) rather than by a completed city.

        Returns
        -------
        bool
            True only for a finished game that hit the cap.
        """
        return self.done and bool(self.st[E.ST_CAPPED])

    def decision_kind(self) -> str:
        """The decision at hand's kind.

        Returns
        -------
        str
            Its phase: ``select``, ``discard``, ``turn`` or ``graveyard``.
        """
        return self.phase

    # --- moves ----------------------------------------------------------------------------------
    move_text = staticmethod(move_text)
    parse_move = staticmethod(parse_move)

    def _legal_rows(self) -> np.ndarray:
        n = E.legal_moves(self.st, *self.tables.kernel_args(), self._moves)
        return self._moves[:n]

    def move_families(self) -> tuple[str, ...]:
        """The move families restricted play names (``random-prefers:king``): the eight characters, lower case.

        Returns
        -------
        tuple of str
            The families' names.
        """
        return tuple(c.name.lower() for c in CHARACTERS)

    def move_family(self, move) -> str:
        """The character a pick takes (lower case); "" for every other move.

        Parameters
        ----------
        move : tuple
            A move, as the API writes it (``(kind, a, ...)``).

        Returns
        -------
        str
            A name of :meth:`move_families`, or "".
        """
        return CHARACTERS[int(move[1]) - 1].name.lower() if int(move[0]) == E.K_PICK else ""

    def legal_moves(self) -> list[tuple]:
        """The canonical legal list of the decision at hand (§8, sorted); [] when the game is over.

        Returns
        -------
        list of tuple
            The moves.
        """
        if self.done:
            return []
        return [_as_tuple(row) for row in self._legal_rows()]

    def _encode(self, move) -> np.ndarray:
        if self.done:
            raise IllegalMove("the game is over")
        try:
            move = tuple(move)
        except TypeError:
            raise IllegalMove(f"not a move: {move!r}") from None
        for row in self._legal_rows():
            if _as_tuple(row) == move:
                mv = self._mv
                mv[:] = row
                return mv
        legal = ", ".join(map(move_text, self.legal_moves()))
        raise IllegalMove(f"{_safe_text(move)} is not legal now (legal: {legal})")

    def is_legal(self, move) -> bool:
        """Whether `move` may be played now by the seat to decide.

        Parameters
        ----------
        move : tuple
            A move, as the API writes it (``(kind, a, ...)``).

        Returns
        -------
        bool
            True when it encodes to a legal kernel move.
        """
        try:
            self._encode(move)
        except IllegalMove:
            return False
        return True

    def apply(self, move) -> None:
        """Play a move for the seat to decide; raises IllegalMove and leaves the game unchanged.

        Parameters
        ----------
        move : tuple
            A move, as the API writes it (``(kind, a, ...)``).
        """
        mv = self._encode(move)
        self._ensure_log_room()
        E.apply_move(self.st, self.rng, self.ev, *self.tables.kernel_args(), mv)

    def random_move(self) -> tuple:
        """The reference random player's move (§8): legal[rand_below(len(legal))] from its own stream.

        Returns
        -------
        tuple
            The move (the game does not move; its policy stream does).
        """
        if self.done:
            raise IllegalMove("the game is over")
        E.random_move(self.st, self.rng, *self.tables.kernel_args(), self._moves, self._mv)
        return _as_tuple(self._mv)

    def _ensure_log_room(self) -> None:
        if self.st[E.ST_LOG] and self.ev.shape[0] - int(self.st[E.ST_N_EVENTS]) < _EVENT_MARGIN:
            grown = np.zeros((2 * self.ev.shape[0], E.EV_LEN), dtype=np.int32)
            grown[: self.ev.shape[0]] = self.ev
            self.ev = grown

    # --- observations (§7) -------------------------------------------------------------------------
    def events(self) -> np.ndarray:
        """The event log so far: int32[n, EV_LEN] (boardlab.sim.citadels.engine.EV_*, E_*).

        Returns
        -------
        numpy.ndarray
            int32, shape ``(n, EV_LEN)``: a view of the log's rows.
        """
        return self.ev[: int(self.st[E.ST_N_EVENTS])]

    def _decode_log(self) -> None:
        """Turn the log's new rows into the documented event tuples, per seat that sees them."""
        ev = self.ev
        end = int(self.st[E.ST_N_EVENTS])
        i = self._decoded
        while i < end:
            vis, kind = int(ev[i, E.EV_VIS]), int(ev[i, E.EV_KIND])
            tag, spec = _EVENTS[kind]
            args: list = [tag]
            j = i + 1
            for k, code in enumerate(spec):
                x = int(ev[i, E.EV_A + k])
                if code == "n":
                    args.append(tuple(int(v) for v in ev[j : j + x, E.EV_A]))
                    j += x
                elif code == "b":
                    args.append(bool(x))
                else:
                    args.append(x)
            if kind == E.E_GAME_END:
                args.append(tuple(s["total"] for s in self.scores()))
            event = tuple(args)
            for p in range(self.players) if vis < 0 else (vis,):
                self._logs[p].append(event)
            i = j
        self._decoded = i

    def _check_seat(self, player) -> int:
        if isinstance(player, bool) or not isinstance(player, (int, np.integer)) or not 0 <= player < self.players:
            raise ValueError(f"player must be 0..{self.players - 1}, got {player!r}")
        return int(player)

    def observation(self, player: int) -> Observation:
        """All that `player` may see (docs/games/citadels.md §7.2): public state, own hand and characters,
        own pending decision, and the log of public events and events private to it; and ``sample(rng)``,
        a position consistent with it (:meth:`redeal`).

        Parameters
        ----------
        player : int
            The seat (0-based).

        Returns
        -------
        boardlab.sim.observation.Observation
            The seat's view (ValueError for a game that keeps no event log).
        """
        p = self._check_seat(player)
        if not self.st[E.ST_LOG]:
            raise ValueError("this game keeps no event log (Game(..., log=False)), so it has no observations")
        return Observation(p, self._observed(p), self.redeal(p))

    def redeal(self, player: int, rng: np.random.Generator | int | None = None) -> Game:
        """A copy whose hidden part is drawn afresh from `rng` (a numpy Generator or a seed), uniformly among
        the positions consistent with what `player` knows; `rng` None: the canonical form (the hidden parts
        in a canonical order, both streams zero), a function of `player`'s view only.

        The kernel :func:`boardlab.sim.citadels.infoset.redeal` does it (its docstring says what the seat is taken to
        know: the current state, its own hand, characters and pending decision, and its offers of the round
        where the state determines them): the unseen districts are dealt back keeping every size, the
        characters the seat cannot place are dealt among the places it cannot see (the FD list, the other
        seats' ranks, the pile and the offer during the selection), and both random streams are redrawn --
        from one 64-bit state drawn from `rng`, which is the copy's ``seed`` too (0 canonically: never the true
        game's).  Here only the event rows private to other seats are blanked.

        Parameters
        ----------
        player : int
            The seat whose view is kept.
        rng : numpy.random.Generator or int or None
            Where the hidden part is drawn from.

        Returns
        -------
        Game
            The copy.
        """
        p = self._check_seat(player)
        canonical = rng is None
        arng = np.zeros(1, dtype=np.uint64)
        if not canonical:
            arng[0] = as_generator(rng).integers(0, 1 << 64, dtype=np.uint64)
        self._decode_log()
        g = self.copy()
        scratch = np.zeros(I.SCRATCH_LEN, dtype=np.int32)
        g.seed = int(arng[0])  # the copy's seed: the agent's draw (0 canonically), never the true game's
        I.redeal(g.st, g.rng, g.tables.rp, np.int32(p), arng, canonical, scratch)  # (p as the agents pass it)
        if scratch[I.WK_STATUS]:
            raise RuntimeError(f"redeal: the kernel could not read this position (status {int(scratch[I.WK_STATUS])})")
        rows = int(g.st[E.ST_N_EVENTS])
        vis = g.ev[:rows, E.EV_VIS]
        private = (vis >= 0) & (vis != p)
        g.ev[:rows][private, E.EV_A :] = 0
        g._logs = [log if q == p else [] for q, log in enumerate(g._logs)]
        return g

    def _observed(self, p: int) -> dict:
        st = self.st
        n = self.players
        self._decode_log()
        ph = int(st[E.ST_PHASE])
        called = self._int(E.ST_CALL)
        holders = st[E.ST_HOLDER + 1 : E.ST_HOLDER + N_RANKS + 1].tolist()
        shown = st[E.ST_REVEALED + 1 : E.ST_REVEALED + N_RANKS + 1].tolist()
        selecting = ph in (E.PH_PICK, E.PH_DISCARD)
        revealed = [
            -2 if r > called or selecting else (h if v else -1)
            for r, h, v in zip(range(1, N_RANKS + 1), holders, shown, strict=True)
        ]
        held = [0] * n
        for h in holders:
            if h >= 0:
                held[h] += 1
        turn = None
        if ph in (E.PH_TURN, E.PH_GRAVE):
            turn = {
                "seat": self._int(E.ST_TURN_SEAT),
                "rank": self._int(E.ST_TURN_CHAR),
                "acted": bool(st[E.ST_ACTED]),
                "ability_used": bool(st[E.ST_ABILITY]),
                "income_taken": bool(st[E.ST_INCOME_TAKEN]),
                "lab_used": bool(st[E.ST_LAB_USED]),
                "smithy_used": bool(st[E.ST_SMITHY_USED]),
                "built": self._int(E.ST_BUILT),
                "limit": self._int(E.ST_LIMIT),
                "destroyed": bool(st[E.ST_DESTROY_USED]),
            }
        return {
            "seat": p,
            "players": n,
            "round": self.round,
            "phase": _OBS_PHASES[ph],
            "current": self.current,
            "crown": self._int(E.ST_CROWN),
            "bank": self._int(E.ST_BANK),
            "deck_size": self._int(E.ST_DECK_LEN),
            "discard_size": int(st[E.ST_OUT : E.ST_OUT + MAX_TYPES].sum()),
            "gold": self._ints(E.ST_GOLD, n),
            "hand_sizes": self._ints(E.ST_HAND_N, n),
            "cities": [self.city(q) for q in range(n)],
            "faceup_removed": self._ints(E.ST_FU, self._int(E.ST_FU_N)),
            "characters_held": held,
            "revealed": revealed,
            "called": called,
            "killed": self._int(E.ST_KILLED),
            "robbed": self._int(E.ST_ROBBED),
            "final_round": bool(st[E.ST_FINAL]),
            "first_completer": self._int(E.ST_FIRST_COMPLETER),
            "turn": turn,
            "hand": self.hand(p),
            "characters": self.characters(p),
            "decision": self._decision(p),
            "log": list(self._logs[p]),
            "scores": self.scores() if self.done else None,
        }

    def _decision(self, p: int) -> dict | None:
        """p's own pending decision (§7.2), None unless p is to decide."""
        if self.current != p:
            return None
        st = self.st
        ph = int(st[E.ST_PHASE])
        if ph in (E.PH_PICK, E.PH_DISCARD):
            offer = tuple(self._ints(E.ST_OFFER, self._int(E.ST_OFFER_N)))
            return {"kind": "pick" if ph == E.PH_PICK else "discard", "offer": offer}
        if ph == E.PH_GRAVE:
            return {"kind": "graveyard", "card": self._int(E.ST_GRAVE_CARD)}
        if st[E.ST_REDRAW_N]:
            chosen = tuple(t for t in range(MAX_TYPES) for _ in range(int(st[E.ST_REDRAW + t])))
            return {"kind": "redraw", "chosen": chosen}
        if st[E.ST_PEND_N]:
            return {
                "kind": "keep",
                "drawn": tuple(self._ints(E.ST_PEND, self._int(E.ST_PEND_N))),
                "keep": self._int(E.ST_KEEP_K),
            }
        return {"kind": "turn"}


def _safe_text(move) -> str:
    try:
        return move_text(move)
    except Exception:
        return repr(move)
