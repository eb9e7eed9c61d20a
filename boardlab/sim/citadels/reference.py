"""The reference implementation of Citadels (classic edition): the slow, readable oracle.

Design notes: docs/games/citadels/engine.md#reference-implementation.
"""

from __future__ import annotations

import copy
import pickle
from dataclasses import dataclass, field
from itertools import combinations

MASK64 = (1 << 64) - 1
PLAYER_STREAM_XOR = 0xA5A5A5A5A5A5A5A5  # §9: the reference random player's stream


# --- randomness (§9) --------------------------------------------------------------------------------------


class SplitMix64:
    """SplitMix64, the one chance stream of a game (and, separately, of the reference random player).

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

    def rand_below(self, k: int) -> int:
        """A draw in 0..k-1: the next output modulo k (plain modulo on purpose: both engines must draw the same
        numbers, bias or not).

        Parameters
        ----------
        k : int
            The number of values.

        Returns
        -------
        int
            The draw.
        """
        return self.next() % k

    def shuffle(self, items: list) -> None:
        """Shuffle `items` in place (§9's shuffle).

        Parameters
        ----------
        items : list
            Shuffled in place.
        """
        for i in range(len(items) - 1, 0, -1):
            j = self.rand_below(i + 1)
            items[i], items[j] = items[j], items[i]


# --- components (§2) --------------------------------------------------------------------------------------

YELLOW, BLUE, GREEN, RED, PURPLE = range(5)
COLOUR_NAMES = ("yellow", "blue", "green", "red", "purple")
ALL_COLOURS = frozenset(range(5))

ASSASSIN, THIEF, MAGICIAN, KING, BISHOP, MERCHANT, ARCHITECT, WARLORD = range(1, 9)
RANKS = tuple(range(1, 9))

# §2.1: rank -> (name, income colour or None)
CHARACTERS = {
    ASSASSIN: ("Assassin", None),
    THIEF: ("Thief", None),
    MAGICIAN: ("Magician", None),
    KING: ("King", YELLOW),
    BISHOP: ("Bishop", BLUE),
    MERCHANT: ("Merchant", GREEN),
    ARCHITECT: ("Architect", None),
    WARLORD: ("Warlord", RED),
}
INCOME_COLOUR = {rank: colour for rank, (_, colour) in CHARACTERS.items() if colour is not None}

# §2.2: type id -> (name, colour, cost, points, copies)
DISTRICTS = (
    ("Manor", YELLOW, 3, 3, 5),
    ("Castle", YELLOW, 4, 4, 4),
    ("Palace", YELLOW, 5, 5, 3),
    ("Temple", BLUE, 1, 1, 3),
    ("Church", BLUE, 2, 2, 3),
    ("Monastery", BLUE, 3, 3, 3),
    ("Cathedral", BLUE, 5, 5, 2),
    ("Tavern", GREEN, 1, 1, 5),
    ("Market", GREEN, 2, 2, 4),
    ("Trading Post", GREEN, 2, 2, 3),
    ("Docks", GREEN, 3, 3, 3),
    ("Harbor", GREEN, 4, 4, 3),
    ("Town Hall", GREEN, 5, 5, 2),
    ("Watchtower", RED, 1, 1, 3),
    ("Prison", RED, 2, 2, 3),
    ("Battlefield", RED, 3, 3, 3),
    ("Fortress", RED, 5, 5, 2),
    ("Haunted City", PURPLE, 2, 2, 1),
    ("Keep", PURPLE, 3, 3, 2),
    ("Laboratory", PURPLE, 5, 5, 1),
    ("Smithy", PURPLE, 5, 5, 1),
    ("Observatory", PURPLE, 5, 5, 1),
    ("Graveyard", PURPLE, 5, 5, 1),
    ("Dragon Gate", PURPLE, 6, 8, 1),
    ("University", PURPLE, 6, 8, 1),
    ("Library", PURPLE, 6, 6, 1),
    ("Great Wall", PURPLE, 6, 6, 1),
    ("School of Magic", PURPLE, 6, 6, 1),
)
N_TYPES = len(DISTRICTS)
DISTRICT_NAME = tuple(d[0] for d in DISTRICTS)
COLOUR = tuple(d[1] for d in DISTRICTS)
COST = tuple(d[2] for d in DISTRICTS)
POINTS = tuple(d[3] for d in DISTRICTS)
COPIES = tuple(d[4] for d in DISTRICTS)
DECK_SIZE = sum(COPIES)  # 66

(D_HAUNTED_CITY, D_KEEP, D_LABORATORY, D_SMITHY, D_OBSERVATORY, D_GRAVEYARD, D_DRAGON_GATE, D_UNIVERSITY,
 D_LIBRARY, D_GREAT_WALL, D_SCHOOL_OF_MAGIC) = range(17, 28)  # fmt: skip

# §2.3: what each purple card does, and where the code applies it (nothing, for a plain purple)
PURPLE_EFFECTS = {
    D_HAUNTED_CITY: "scoring: counts as any one colour, unless built in the final round (city_score)",
    D_KEEP: "the Warlord cannot destroy it (RefGame._destroy_target)",
    D_LABORATORY: "once per turn: discard 1 hand card to the deck bottom, gain 1 (LAB)",
    D_SMITHY: "once per turn: pay 2, draw 3 (SMITHY)",
    D_OBSERVATORY: "a DRAW draws 3 and keeps 1 (RefGame._draw_action)",
    D_GRAVEYARD: "on a destruction: the owner may pay 1 to take the card (GRAVE_TAKE / GRAVE_PASS)",
    D_DRAGON_GATE: "costs 6, worth 8 points (POINTS)",
    D_UNIVERSITY: "costs 6, worth 8 points (POINTS)",
    D_LIBRARY: "a DRAW keeps every drawn card; with the Observatory draw 3 keep 2 (RefGame._draw_action)",
    D_GREAT_WALL: "the Warlord pays +1 to destroy any other district of the city (RefGame._destroy_cost)",
    D_SCHOOL_OF_MAGIC: "income: counts as the character's colour; scoring: purple (RefGame._income_amount)",
}
PURPLE_NAMES = tuple(DISTRICT_NAME[t] for t in range(N_TYPES) if COLOUR[t] == PURPLE)


def points(card: int, plain=frozenset()) -> int:
    """§2.2 points; §2.3: a plain purple scores its cost (the Dragon Gate and the University 6, not 8).

    Parameters
    ----------
    card : int
        A district type id.
    plain : collection of int
        The purple types played as plain districts (rule ``plain_purples``).

    Returns
    -------
    int
        The card's points.
    """
    return COST[card] if card in plain else POINTS[card]


def canonical_deck() -> list[int]:
    """The 66 cards in the order the setup shuffle starts from (§9): type id ascending, copies adjacent.

    Returns
    -------
    list of int
        Type ids.
    """
    # I20: `classic66` is the only deck; reference_params rejects any other `district_deck`
    return [t for t in range(N_TYPES) for _ in range(COPIES[t])]


# --- moves (§8) -------------------------------------------------------------------------------------------

PICK, DISCARD_CHAR, GOLD, DRAW, KEEP, INCOME, KILL, ROB, SWAP, REDRAW = range(10)
LAB, SMITHY, BUILD, DESTROY, END, GRAVE_TAKE, GRAVE_PASS, REDRAW_DONE = range(10, 18)
# Kinds 18-21 exist only under the alternative settings of I6, I4 and I16 (§8.2); the presets never offer them.
POST_TAKE, POST_SKIP, BOTTOM, COLOUR_CHOICE = range(18, 22)

KIND_NAMES = (
    "PICK", "DISCARD_CHAR", "GOLD", "DRAW", "KEEP", "INCOME", "KILL", "ROB", "SWAP", "REDRAW",
    "LAB", "SMITHY", "BUILD", "DESTROY", "END", "GRAVE_TAKE", "GRAVE_PASS", "REDRAW_DONE",
    "POST_TAKE", "POST_SKIP", "BOTTOM", "COLOUR",
)  # fmt: skip
KIND_OF_NAME = {name: kind for kind, name in enumerate(KIND_NAMES)}
# how many arguments each kind takes; KEEP's one argument is a tuple of type ids
KIND_ARITY = (1, 1, 0, 0, 1, 0, 1, 1, 1, 1, 1, 0, 1, 2, 0, 0, 0, 0, 0, 0, 1, 1)


def move_key(move: tuple) -> tuple:
    """§8: sort by kind, then arguments; a tuple argument compares first by length, then lexicographically.

    Parameters
    ----------
    move : tuple
        A move tuple.

    Returns
    -------
    tuple
        The sort key.
    """
    return (move[0], *((len(a), a) if isinstance(a, tuple) else (0, (a,)) for a in move[1:]))


def move_text(move: tuple) -> str:
    """§8.3: ``NAME arg arg``; KEEP's tuple is one comma-joined argument (``KEEP 13,25``).

    Parameters
    ----------
    move : tuple
        A move tuple.

    Returns
    -------
    str
        Its text.
    """
    words = [KIND_NAMES[move[0]]]
    for arg in move[1:]:
        words.append(",".join(str(t) for t in arg) if isinstance(arg, tuple) else str(arg))
    return " ".join(words)


def parse_move(text: str) -> tuple:
    """The inverse of :func:`move_text`; ValueError on anything else.

    Parameters
    ----------
    text : str
        A move's text.

    Returns
    -------
    tuple
        The move tuple.
    """
    words = text.split()
    if not words or words[0] not in KIND_OF_NAME:
        raise ValueError(f"not a Citadels move: {text!r}")
    kind = KIND_OF_NAME[words[0]]
    if len(words) - 1 != KIND_ARITY[kind]:
        raise ValueError(f"{words[0]} takes {KIND_ARITY[kind]} argument(s): {text!r}")
    try:
        if kind == KEEP:
            return (kind, tuple(int(t) for t in words[1].split(",")))
        return (kind, *(int(w) for w in words[1:]))
    except ValueError:
        raise ValueError(f"not a Citadels move: {text!r}") from None


# --- parameters and presets (§10) -------------------------------------------------------------------------

_OFFICIAL = {
    "players_allowed": (2, 3, 4, 5, 6, 7),
    "district_deck": "classic66",  # I20
    "bank_gold": 30,  # I1
    "bank_shortfall": "partial",  # I1
    "starting_gold": 2,
    "starting_hand": 4,
    "first_crown_seat": 0,  # I15
    "remove_in_round_1": True,
    "removal_order": "facedown_first",
    "faceup_count": {2: 0, 3: 0, 4: 2, 5: 1, 6: 0, 7: 0},
    "facedown_count": {2: 1, 3: 1, 4: 1, 5: 1, 6: 1, 7: 1},
    "selection_mode": "open",  # I18
    "crown_rule": "king_only",
    "architect_discount": 0,
    "warlord_timing": "end_of_turn",  # I7
    "warlord_may_target_own": True,
    "complete_size": 8,
    "tiebreak": "districts_gold_shared",  # I12, I13
    "post_action_auto": True,  # I6
    "destroyed_to": "deck_bottom",  # I2
    "lab_discard_to": "deck_bottom",  # I3
    "bottom_order": "draw_order/type_ascending",  # I4
    "empty_deck": "short_draw_no_reshuffle",  # I5
    "graveyard_rule": "needs_graveyard_in_city",  # I8
    "bishop_shields_vs_own_warlord": True,  # I9
    "great_wall_vs_own_warlord": True,  # I10
    "reveal_murdered": "king_only",  # I11
    "target_any_rank": True,  # I14
    "colour_choices": "auto",  # I16
    "three_player_order": "ABCABC",  # I17
    "library_observatory": "draw3_keep2",  # I19
    "plain_purples": [],  # §2.3: purple district names played without their text
    # §6 seat points: per player count, the points added to each seat's total, seat 0 (the docs' seat 1) first
    "seat_points": {n: [0] * n for n in range(2, 8)},
    "max_rounds": 100,
}

_SEED_SUMMARY = {
    **_OFFICIAL,
    "players_allowed": (2, 3, 4, 5, 6, 7, 8),
    "bank_gold": 22,
    "starting_hand": 2,
    "remove_in_round_1": False,
    "removal_order": "faceup_first",
    "faceup_count": {2: 0, 3: 0, 4: 2, 5: 1, 6: 0, 7: 0, 8: 0},
    "facedown_count": {2: 1, 3: 1, 4: 1, 5: 1, 6: 1, 7: 1, 8: 0},
    "seat_points": {n: [0] * n for n in range(2, 9)},
    "selection_mode": "blind_draw2",
    "crown_rule": "rotate_unless_king",
    "architect_discount": 1,
    "warlord_may_target_own": False,
    "tiebreak": "shared",
}

PRESETS: dict[str, dict] = {"official": _OFFICIAL, "seed-summary": _SEED_SUMMARY}

# the first value of every tuple is the `official` choice; the others are honoured alternatives (§10.2)
PARAM_CHOICES = {
    "district_deck": ("classic66",),  # I20: the later edition's 84 cards are out of scope
    "bank_shortfall": ("partial", "unlimited"),
    "removal_order": ("facedown_first", "faceup_first"),
    "selection_mode": ("open", "blind_draw2"),
    "crown_rule": ("king_only", "rotate_unless_king"),
    "warlord_timing": ("end_of_turn", "any_time"),
    "tiebreak": ("districts_gold_shared", "cost_gold_shared", "districts_gold_draw", "shared"),
    "destroyed_to": ("deck_bottom", "removed"),
    "lab_discard_to": ("deck_bottom", "removed"),
    "bottom_order": ("draw_order/type_ascending", "player_chosen"),
    "empty_deck": ("short_draw_no_reshuffle", "zero_draw_allowed"),
    "graveyard_rule": ("needs_graveyard_in_city", "may_rescue_itself"),
    "reveal_murdered": ("king_only", "all_at_round_end"),
    "colour_choices": ("auto", "choose"),
    "three_player_order": ("ABCABC", "ABCCBA"),
    "library_observatory": ("draw3_keep2", "draw3_keep3"),
}
_BOOL_PARAMS = (
    "remove_in_round_1", "warlord_may_target_own", "post_action_auto", "bishop_shields_vs_own_warlord",
    "great_wall_vs_own_warlord", "target_any_rank",
)  # fmt: skip
_INT_PARAMS = (
    "bank_gold", "starting_gold", "starting_hand", "first_crown_seat", "architect_discount", "complete_size",
    "max_rounds",
)  # fmt: skip
_PER_COUNT_PARAMS = ("faceup_count", "facedown_count")


def reference_params(spec) -> dict:
    """A full parameter dict from a preset name, or from a dict of overrides on ``base`` (default official).

    Parameters
    ----------
    spec : str or dict
        A preset name, or overrides (on ``base``, default official).

    Returns
    -------
    dict
        The full parameter dict.
    """
    if isinstance(spec, str):
        if spec not in PRESETS:
            raise ValueError(f"unknown Citadels preset {spec!r} (known: {', '.join(PRESETS)})")
        return copy.deepcopy(PRESETS[spec])
    if not isinstance(spec, dict):
        raise ValueError(f"Citadels parameters must be a preset name or a dict, not {type(spec).__name__}")
    overrides = dict(spec)
    params = reference_params(overrides.pop("base", "official"))
    for name, value in overrides.items():
        if name not in params:
            raise ValueError(f"unknown Citadels parameter {name!r}")
        if name in PARAM_CHOICES and value not in PARAM_CHOICES[name]:
            raise ValueError(f"Citadels parameter {name} must be one of {', '.join(PARAM_CHOICES[name])}: {value!r}")
        if name in _BOOL_PARAMS and not isinstance(value, bool):
            raise ValueError(f"Citadels parameter {name} must be true or false: {value!r}")
        if name in _INT_PARAMS and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise ValueError(f"Citadels parameter {name} must be a non-negative integer: {value!r}")
        if name in _PER_COUNT_PARAMS:
            if not isinstance(value, dict):
                raise ValueError(f"Citadels parameter {name} must map player counts to integers: {value!r}")
            value = {int(n): int(v) for n, v in value.items()}
        if name == "players_allowed":
            value = tuple(sorted(int(n) for n in value))
        if name == "plain_purples":
            value = _plain_purples(value)
        if name == "seat_points":
            value = _seat_points(value)
        params[name] = value
    for n in params["players_allowed"]:  # after every override: players_allowed may have changed too
        if n not in params["seat_points"]:
            raise ValueError(f"Citadels parameter seat_points has no list for {n} players")
    return params


def _plain_purples(names) -> list[str]:
    """§2.3 ``plain_purples``: purple district names, each at most once, returned in deck order."""
    if not isinstance(names, (list, tuple)) or not all(isinstance(x, str) for x in names):
        raise ValueError(f"Citadels parameter plain_purples must be a list of purple district names: {names!r}")
    for x in names:
        if x not in PURPLE_NAMES:
            raise ValueError(f"Citadels parameter plain_purples: {x!r} is not a purple district")
    if len(set(names)) != len(names):
        raise ValueError(f"Citadels parameter plain_purples names a district twice: {names!r}")
    return [x for x in PURPLE_NAMES if x in names]  # deck order, so equal sets give equal parameters


def _seat_points(table) -> dict[int, list[int]]:
    """§6 ``seat_points``: player count -> one integer 0..99 per seat, seat 0 first (a fresh table)."""
    if not isinstance(table, dict):
        raise ValueError(f"Citadels parameter seat_points must map player counts to lists of points: {table!r}")
    out = {}
    for key, points_of in table.items():
        # int keys, or the strings of a TOML-born rule set (Rules.params())
        if isinstance(key, bool) or not isinstance(key, (int, str)) or not str(key).isdigit() or int(key) < 1:
            raise ValueError(f"Citadels parameter seat_points: {key!r} is not a player count")
        n = int(key)
        if (
            not isinstance(points_of, (list, tuple))
            or len(points_of) != n
            or any(isinstance(x, bool) or not isinstance(x, int) or not 0 <= x <= 99 for x in points_of)
        ):
            raise ValueError(
                f"Citadels parameter seat_points for {n} players must be a list of {n} integers in 0..99: {points_of!r}"
            )
        out[n] = list(points_of)
    return dict(sorted(out.items()))


# --- scoring (§6) -----------------------------------------------------------------------------------------


def city_score(city, last_round: int, haunted_colour: int | None = None, plain=frozenset()) -> dict:
    """The city's own score parts (no completion bonus): district points, purple extras and colour bonus.

    ``city`` is a list of ``(type, build_round)``; ``last_round`` is the final round played (§6, §8.4: the cap
    round of a capped game); ``haunted_colour`` is the colour chosen for the Haunted City when colour choices
    are decisions (I16 alternative), None when the choice is automatic; ``plain`` holds the type ids played
    without their text (§2.3).

    Parameters
    ----------
    city : list of tuple of (int, int)
        (type, build round) per district.
    last_round : int
        The final round played.
    haunted_colour : int or None
        The colour the Haunted Quarter counts as (None: its own).
    plain : collection of int
        The purple types played as plain districts.

    Returns
    -------
    dict
        The score parts.
    """
    types = [t for t, _ in city]
    district_points = sum(points(t, plain) for t in types)
    # the +2 of Dragon Gate and University (0 when plain)
    purple_extras = sum(points(t, plain) - COST[t] for t in types if COLOUR[t] == PURPLE)
    built_in = {t: r for t, r in city}
    haunted = D_HAUNTED_CITY in built_in and D_HAUNTED_CITY not in plain  # a plain one is simply purple
    # School of Magic stays purple for scoring
    others = {COLOUR[t] for t in types if t != D_HAUNTED_CITY or not haunted}
    if haunted and built_in[D_HAUNTED_CITY] < last_round:
        if haunted_colour is None:  # I16 auto: the Haunted City fills whichever colour is missing
            five = len(others) >= 4
        else:
            five = others | {haunted_colour} == ALL_COLOURS
    else:  # no Haunted City with its text, or built in the final round: it is simply purple
        five = (others | ({PURPLE} if haunted else set())) == ALL_COLOURS
    return {
        "district_points": district_points,
        "purple_extras": purple_extras,
        "colour_bonus": 3 if five else 0,
        "printed_cost": sum(COST[t] for t in types),
    }


def rank_results(results: list[dict], tiebreak: str) -> None:
    """Fill ``rank`` and ``win_share`` of each result dict in place (§6 winner; I12, I13).

    Parameters
    ----------
    results : list of dict
        One per seat, with the score parts; filled in place.
    tiebreak : str
        The rule ``tiebreak``.
    """
    if tiebreak == "shared":
        keys = [(r["total"],) for r in results]
    elif tiebreak == "cost_gold_shared":  # I12 alternative: tie step 1 on printed cost
        keys = [(r["total"], r["printed_cost"], r["gold"]) for r in results]
    else:  # I12: tie step 1 on district points (8 for Dragon Gate and University), then gold
        keys = [(r["total"], r["district_points"], r["gold"]) for r in results]
    for r, key in zip(results, keys, strict=True):
        r["rank"] = 1 + sum(1 for other in keys if other > key)
    winners = [r for r in results if r["rank"] == 1]
    # I13: a tie that survives every step is shared; the alternative calls it a draw that nobody wins
    share = 0.0 if (tiebreak == "districts_gold_draw" and len(winners) > 1) else 1.0 / len(winners)
    for r in results:
        r["win_share"] = share if r["rank"] == 1 else 0.0


# --- the game ---------------------------------------------------------------------------------------------

PUBLIC = -1


@dataclass
class Turn:
    """§5.1: one character's turn."""

    seat: int
    rank: int
    limit: int
    acted: bool = False
    ability_used: bool = False
    income_taken: bool = False
    lab_used: bool = False
    smithy_used: bool = False
    destroyed: bool = False  # only read under warlord_timing = any_time (I7)
    built: int = 0
    pending: str | None = None  # keep, redraw, bottom, post, colour
    drawn: list = field(default_factory=list)  # pending KEEP: the drawn cards in draw order
    drawn_sorted: tuple = ()
    keep_k: int = 0
    kept: tuple = ()
    bottomed: list = field(default_factory=list)  # unkept cards already sent to the bottom, in order
    redraw: list = field(default_factory=list)  # the Magician's chosen cards S, in choice order
    bottom_left: list = field(default_factory=list)  # I4 alternative: unkept cards still to be ordered


class RefGame:
    """One game of Citadels.  ``RefGame(players, params, seed)`` deals and runs to the first decision.

    Parameters
    ----------
    players : int
        Number of seats.
    params : dict or str
        A preset name or a full parameter dict (:func:`reference_params`).
    seed : int
        The game seed.
    """

    def __init__(self, players: int, params: dict | str = "official", seed: int = 0):
        self._init_state(players, params, seed)
        # §3 steps 1-2: chance event (a), then the deal one card at a time round-robin
        deck = canonical_deck()
        self.rng.shuffle(deck)
        self.deck = deck
        for _ in range(self.params["starting_hand"]):
            for p in range(self.n):
                if self.deck:
                    self.hands[p].append(self.deck.pop(0))
        for p in range(self.n):
            self.hands[p].sort()
            self._gain(p, self.params["starting_gold"])
        self._begin_game()

    @classmethod
    def from_position(
        cls,
        players,
        params="official",
        *,
        gold,
        hands,
        cities,
        seed=0,
        round=1,
        crown=0,
        bank=None,
        deck=None,
        deck_top=(),
        ranks=None,
        final_round=False,
        first_completer=-1,
    ):
        """A game at the start of round ``round`` from a given position: for tests and worked examples.

        ``cities[p]`` lists type ids (built in round 0) or ``(type, build_round)`` pairs.  ``deck`` is the exact
        deck (top first); if it is None the deck is ``deck_top`` followed by every other card of the 66 not in
        ``deck_top``, the hands or the cities, in canonical order.  ``bank`` defaults to ``bank_gold`` minus the
        players' gold.  ``ranks`` replaces this round's rank shuffle (chance event b); later rounds shuffle.

        Parameters
        ----------
        players : int
            Number of seats.
        params : dict or str
            A preset name or a full parameter dict.
        gold : list of int
            Each seat's gold.
        hands : list of list of int
            Each seat's hand.
        cities : list of list
            Each seat's city.
        seed : int
            The game seed.
        round : int
            The round about to start.
        crown : int
            The seat holding the crown.
        bank : int or None
            The bank's gold.
        deck : list of int or None
            The exact deck, top first.
        deck_top : sequence of int
            The deck's top cards when `deck` is None.
        ranks : list of int or None
            This round's rank shuffle.
        final_round : bool
            Whether this is the final round.
        first_completer : int
            The seat that completed first (-1: none yet).

        Returns
        -------
        RefGame
            The game.
        """
        game = cls.__new__(cls)
        game._init_state(players, params, seed)
        game.gold = list(gold)
        game.hands = [sorted(h) for h in hands]
        game.cities = [[(d, 0) if isinstance(d, int) else tuple(d) for d in c] for c in cities]
        if deck is None:
            rest = canonical_deck()
            for t in [*deck_top, *(t for h in game.hands for t in h), *(t for c in game.cities for t, _ in c)]:
                rest.remove(t)
            deck = [*deck_top, *rest]
        game.deck = list(deck)
        game.bank = game.params["bank_gold"] - sum(game.gold) if bank is None else bank
        game.round = round
        game.crown = crown
        game.final_round = final_round
        game.first_completer = first_completer
        game._begin_game(ranks)
        return game

    def _init_state(self, players, params, seed):
        self.params = reference_params(params)
        prm = self.params
        if players not in prm["players_allowed"]:
            allowed = ", ".join(str(n) for n in prm["players_allowed"])
            raise ValueError(f"Citadels with these parameters allows {allowed} players, not {players}")
        for name in _PER_COUNT_PARAMS:
            if players not in prm[name]:
                raise ValueError(f"Citadels parameter {name} has no value for {players} players")
        if not 0 <= prm["first_crown_seat"] < players:
            raise ValueError(f"first_crown_seat {prm['first_crown_seat']} is not a seat of {players} players")
        self.n = players
        # §2.3: the purple districts played without their text
        self.plain = frozenset(DISTRICT_NAME.index(name) for name in prm["plain_purples"])
        self.seed = seed & MASK64
        self.rng = SplitMix64(self.seed)
        self.bank = prm["bank_gold"]
        self.deck: list[int] = []
        self.discard: list[int] = []
        self.hands: list[list[int]] = [[] for _ in range(players)]
        self.cities: list[list[tuple[int, int]]] = [[] for _ in range(players)]
        self.gold = [0] * players
        self.crown = prm["first_crown_seat"]  # I15
        self.round = 1
        self.final_round = False
        self.first_completer = -1
        self.capped = False
        self.done = False
        self.phase = "select"
        self.events: list[tuple[int, tuple]] = []
        self._logs: dict[int, tuple[list[tuple], int]] = {}  # player -> (its view of the events, how many read)
        self.haunted_colour: dict[int, int] = {}  # I16 alternative: chosen colours
        self._clear_round()

    def _clear_round(self):
        self.pool: list[int] = []
        self.faceup: list[int] = []
        self.facedown: list[int] = []
        self.leftover: list[int] = []
        self.discarded_chars: list[tuple[int, int]] = []
        self.holder = [-1] * 9
        self.chars: list[list[int]] = [[] for _ in range(self.n)]
        self.killed = 0
        self.robbed = 0
        self.called = 0
        self.revealed = [-2] * 9
        self.round_start_crown = self.crown
        self.sel_mode = "open"
        self.sel_steps: list[tuple[int, int]] = []
        self.sel_index = 0
        self.offer: list[int] = []
        self.turn: Turn | None = None
        self.grave: tuple[int, int] | None = None  # (owner deciding, destroyed card)
        self.colour_queue: list[int] = []

    def _begin_game(self, ranks=None):
        self._emit(PUBLIC, ("start", self.n, self.crown))
        for p in range(self.n):
            self._emit(p, ("hand", tuple(self.hands[p])))
        self._start_round(ranks)
        self._advance()

    # --- small helpers ------------------------------------------------------------------------------------

    def _emit(self, audience: int, event: tuple) -> None:
        self.events.append((audience, event))

    def _gain(self, p: int, amount: int) -> int:
        """§1 "gain": take from the bank; I1 says what an empty bank gives."""
        if self.params["bank_shortfall"] == "partial":
            amount = min(amount, self.bank)
        self.bank -= amount  # under "unlimited" the bank may go negative, so bank + gold stays constant
        self.gold[p] += amount
        return amount

    def _pay(self, p: int, amount: int) -> None:
        self.gold[p] -= amount
        self.bank += amount

    def _draw(self, p: int, wanted: int) -> list[int]:
        """§5.4: every draw is short when the deck runs out (I5); the cards go to p's hand."""
        cards = self.deck[:wanted]
        del self.deck[:wanted]
        self._to_hand(p, cards)
        return cards

    def _to_hand(self, p: int, cards) -> None:
        self.hands[p].extend(cards)
        self.hands[p].sort()

    def _out_of_play(self, card: int, destination: str) -> None:
        # I2, I3: the classic game has no discard pile, so a card leaving play goes under the deck
        if destination == "deck_bottom":
            self.deck.append(card)
        else:
            self.discard.append(card)

    def _city_types(self, p: int) -> list[int]:
        return [t for t, _ in self.cities[p]]

    def _owns(self, p: int, card: int) -> bool:
        return any(t == card for t, _ in self.cities[p])

    def _has_text(self, p: int, card: int) -> bool:
        """p's city holds the purple ``card`` and it is played with its text (not a plain purple, §2.3)."""
        return card not in self.plain and self._owns(p, card)

    @property
    def current(self) -> int:
        """The seat that must decide now; -1 when the game is over."""
        if self.phase == "select":
            return self.sel_steps[self.sel_index][0]
        if self.phase == "turn":
            return self.turn.seat
        if self.phase == "graveyard":
            return self.grave[0]
        if self.phase == "colour":
            return self.colour_queue[0]
        return -1

    # --- the round: removal and selection (§4.1-4.3) ------------------------------------------------------

    def _start_round(self, ranks=None):
        self._clear_round()
        prm, n = self.params, self.n
        self._emit(PUBLIC, ("round", self.round, self.crown))
        pool = list(RANKS)
        if ranks is None:
            self.rng.shuffle(pool)  # chance event (b)
        else:
            pool = list(ranks)
        # §4.1, I18: the seed's no-removal first round is for n >= 4 only; 2-3 players follow the rulebook
        nothing_removed = self.round == 1 and not prm["remove_in_round_1"] and n >= 4
        facedown = 0 if nothing_removed else prm["facedown_count"][n]
        faceup = 0 if nothing_removed else prm["faceup_count"][n]
        if prm["removal_order"] == "facedown_first":
            self._remove_facedown(pool, facedown)
            self._remove_faceup(pool, faceup)
        else:
            self._remove_faceup(pool, faceup)
            self._remove_facedown(pool, facedown)
        self.pool = pool
        self._begin_selection()

    def _remove_facedown(self, pool, count):
        for _ in range(count):
            self.facedown.append(pool.pop(0))
        if count:
            self._emit(PUBLIC, ("facedown", count))

    def _remove_faceup(self, pool, count):
        for _ in range(count):
            rank = pool.pop(0)
            if rank == KING:
                # §4.1: the King must never lie face up; it is seen, replaced by the next card, and shuffled
                # back, which everyone at the table watches happen
                rank = pool.pop(0)
                pool.append(KING)
                self._emit(PUBLIC, ("king_returned",))
                self.rng.shuffle(pool)  # chance event (c)
            self.faceup.append(rank)
            self._emit(PUBLIC, ("faceup", rank))

    def _begin_selection(self):
        n, crown = self.n, self.crown
        self.sel_mode = self.params["selection_mode"] if n >= 4 else "open"  # I18: blind is for n >= 4 only
        if n == 2:  # §4.2, 2 players: A keeps, B keeps and discards, A keeps and discards, B keeps
            a, b = crown, 1 - crown
            self.sel_steps = [(a, PICK), (b, PICK), (b, DISCARD_CHAR), (a, PICK), (a, DISCARD_CHAR), (b, PICK)]
        elif n == 3:  # I17
            order = self.params["three_player_order"]
            self.sel_steps = [((crown + "ABC".index(letter)) % 3, PICK) for letter in order]
        else:
            self.sel_steps = [((crown + i) % n, PICK) for i in range(n)]
        self.sel_index = 0
        self.phase = "select"
        self._make_offer()

    def _seventh_chooser(self) -> bool:
        # §4.2, §4.3: the 7-player rule gives the 7th chooser the face-down removed card as well
        return self.n == 7 and self.sel_index == 6

    def _make_offer(self):
        seat, kind = self.sel_steps[self.sel_index]
        if kind == DISCARD_CHAR:
            self.offer = sorted(self.pool)
            return
        if self.sel_mode == "open":
            offer = list(self.pool)
        elif self.sel_index == 0:  # §4.3: the crown holder takes the top card, no choice
            offer = [self.pool.pop(0)]
        else:
            take = min(2, len(self.pool))
            offer = self.pool[:take]
            del self.pool[:take]
        if self._seventh_chooser() and self.facedown:
            for rank in self.facedown:
                self._emit(seat, ("facedown_seen", rank))
            offer += self.facedown
            self.facedown = []
        self.offer = sorted(offer)
        self._emit(seat, ("offer", tuple(self.offer)))

    def _apply_selection(self, kind: int, rank: int):
        seat = self.sel_steps[self.sel_index][0]
        last = self.sel_index == len(self.sel_steps) - 1
        if kind == DISCARD_CHAR:
            self.pool.remove(rank)
            self.discarded_chars.append((seat, rank))
            self._emit(seat, ("discard", rank))
            self._emit(PUBLIC, ("discarded", seat))
        else:
            self.holder[rank] = seat
            self.chars[seat].append(rank)
            self.chars[seat].sort()
            self._emit(seat, ("pick", rank))
            self._emit(PUBLIC, ("chose", seat))
            rest = [r for r in self.offer if r != rank]
            if self.sel_mode == "open":
                if rank in self.pool:
                    self.pool.remove(rank)
                # the 7th chooser's unkept card goes face down (§4.2); the others' offers were the whole pool
                if self._seventh_chooser():
                    self.pool = [r for r in self.pool if r not in rest]
                    self.leftover.extend(rest)
            elif last:
                self.leftover.extend(rest)
            elif rest:
                self.pool.extend(rest)
                self.rng.shuffle(self.pool)  # chance event (d)
        self.offer = []
        if last:
            self.leftover.extend(self.pool)  # §4.2: every card left goes face down
            self.pool = []
            self.phase = "call"
        else:
            self.sel_index += 1
            self._make_offer()

    # --- the round: calling and its end (§4.4, §4.5) ------------------------------------------------------

    def _call_next(self):
        rank = self.called + 1
        if rank > 8:
            self._end_round()  # `called` stays 8: the last rank called this round (§7.2)
            return
        self.called = rank
        seat = self.holder[rank]
        if seat < 0 or rank == self.killed:
            # §4.4, §7: "no reveal" looks the same whether the rank is removed, unchosen or murdered
            self.revealed[rank] = -1
            self._emit(PUBLIC, ("call", rank, -1))
            return
        self.revealed[rank] = seat
        self._emit(PUBLIC, ("call", rank, seat))
        if rank == self.robbed:
            thief = self.holder[THIEF]
            amount = self.gold[seat] if seat != thief else 0
            self.gold[seat] -= amount
            self.gold[thief] += amount
            self._emit(PUBLIC, ("robbed", thief, seat, amount))
        if rank == KING:
            self.crown = seat
            self._emit(PUBLIC, ("crown", seat))
        self.turn = Turn(seat, rank, 3 if rank == ARCHITECT else 1)
        self.phase = "turn"

    def _end_round(self):
        prm = self.params
        # §4.5 step 1: a murdered King's holder is revealed and takes the crown as heir
        if self.killed == KING and self.holder[KING] >= 0:
            self.crown = self.holder[KING]
            self._emit(PUBLIC, ("heir", self.crown))
            self._emit(PUBLIC, ("crown", self.crown))
        if prm["reveal_murdered"] == "all_at_round_end":  # I11 alternative: every secret character is shown
            if self.killed and self.killed != KING and self.holder[self.killed] >= 0:
                self._emit(PUBLIC, ("murdered_revealed", self.killed, self.holder[self.killed]))
            hidden = self.facedown + self.leftover + [r for _, r in self.discarded_chars]
            for rank in sorted(hidden):
                self._emit(PUBLIC, ("hidden_revealed", rank))
        # §4.5 step 2
        if prm["crown_rule"] == "rotate_unless_king" and self.holder[KING] < 0:
            self.crown = (self.round_start_crown + 1) % self.n
            self._emit(PUBLIC, ("crown", self.crown))
        # §4.5 step 3, §8.4
        if self.final_round:
            self._finish(capped=False)
        elif self.round >= prm["max_rounds"]:
            self._finish(capped=True)
        else:
            self.round += 1
            self._start_round()

    def _finish(self, capped: bool):
        self.capped = capped
        self.turn = None
        if self.params["colour_choices"] == "choose":  # I16 alternative: the Haunted City's owner names it
            self.colour_queue = [
                p
                for p in range(self.n)
                if self._has_text(p, D_HAUNTED_CITY)
                and any(t == D_HAUNTED_CITY and r < self.round for t, r in self.cities[p])
            ]
        if self.colour_queue:
            self.phase = "colour"
        else:
            self._game_over()

    def _game_over(self):
        self.phase = "done"
        self.done = True
        self._emit(PUBLIC, ("game_end", self.capped, tuple(s["total"] for s in self.scores())))

    def _advance(self):
        """Apply every automatic step (§8.2) until a real decision is due or the game is over."""
        while True:
            if self.phase == "select":
                if self.sel_steps[self.sel_index][1] == PICK and len(self.offer) == 1:
                    self._apply_selection(PICK, self.offer[0])  # a forced single pick is not a decision
                    continue
                return
            if self.phase == "call":
                self._call_next()
                continue
            return

    # --- the turn (§5) ------------------------------------------------------------------------------------

    def _income_amount(self, p: int, rank: int) -> int:
        colour = INCOME_COLOUR[rank]
        amount = sum(1 for t in self._city_types(p) if COLOUR[t] == colour)
        return amount + (1 if self._has_text(p, D_SCHOOL_OF_MAGIC) else 0)  # I16: it takes the character's colour

    def _price(self, card: int, rank: int) -> int:
        return max(0, COST[card] - (self.params["architect_discount"] if rank == ARCHITECT else 0))

    def _may_name(self, p: int, rank: int) -> bool:
        """KILL / ROB targets beyond the fixed rank ranges (§5.3, I14)."""
        if self.params["target_any_rank"]:
            return True
        # I14 alternative: face-up removed ranks and p's own other character may not be named
        return rank not in self.faceup and self.holder[rank] != p

    def _destroy_target(self, p: int, q: int, card: int) -> bool:
        """§5.3 target(q, t)."""
        prm = self.params
        if (card == D_KEEP and D_KEEP not in self.plain) or len(self.cities[q]) >= prm["complete_size"]:
            return False
        if q == p and not prm["warlord_may_target_own"]:
            return False
        # a revealed Bishop was called and not murdered; I9: that shields even against one's own Warlord
        if self.revealed[BISHOP] == q and (q != p or prm["bishop_shields_vs_own_warlord"]):
            return False
        return True

    def _destroy_cost(self, p: int, q: int, card: int) -> int:
        """§5.3 dcost(q, t)."""
        cost = max(COST[card] - 1, 0)
        if card != D_GREAT_WALL and self._has_text(q, D_GREAT_WALL):
            if q != p or self.params["great_wall_vs_own_warlord"]:  # I10
                cost += 1
        return cost

    def _deck_allows_draw(self) -> bool:
        # I5: DRAW and SMITHY need a card to draw; the alternative allows empty draws
        return len(self.deck) >= 1 or self.params["empty_deck"] == "zero_draw_allowed"

    def _turn_moves(self) -> list[tuple]:
        t, prm = self.turn, self.params
        p, rank = t.seat, t.rank
        hand = self.hands[p]
        if t.pending == "keep":
            return [(KEEP, combo) for combo in sorted(set(combinations(t.drawn_sorted, t.keep_k)))]
        if t.pending == "redraw":
            remaining = list(hand)
            for card in t.redraw:
                remaining.remove(card)
            if prm["bottom_order"] == "player_chosen":  # I4 alternative: any order, so every card is open
                options = set(remaining)
            else:  # I4: non-decreasing choice order, so one sequence per multiset
                options = {c for c in remaining if c >= max(t.redraw)}
            return [(REDRAW, c) for c in sorted(options)] + [(REDRAW_DONE,)]
        if t.pending == "bottom":
            return [(BOTTOM, c) for c in sorted(set(t.bottom_left))]
        if t.pending == "post":
            return [(POST_TAKE,), (POST_SKIP,)]
        if t.pending == "colour":
            return [(COLOUR_CHOICE, c) for c in range(5)]

        moves: list[tuple] = []
        city = self._city_types(p)
        distinct_hand = sorted(set(hand))
        if not t.acted:
            moves.append((GOLD,))
            if self._deck_allows_draw():
                moves.append((DRAW,))
        if rank in INCOME_COLOUR and not t.income_taken and self._income_amount(p, rank) >= 1:
            moves.append((INCOME,))
        if not t.ability_used:
            if rank == ASSASSIN:
                moves += [(KILL, r) for r in range(2, 9) if self._may_name(p, r)]
            elif rank == THIEF:
                moves += [(ROB, r) for r in range(3, 9) if r != self.killed and self._may_name(p, r)]
            elif rank == MAGICIAN:
                moves += [(SWAP, q) for q in range(self.n) if q != p]
                moves += [(REDRAW, c) for c in distinct_hand]
        if self._has_text(p, D_LABORATORY) and not t.lab_used:
            moves += [(LAB, c) for c in distinct_hand]
        if self._has_text(p, D_SMITHY) and not t.smithy_used and self.gold[p] >= 2 and self._deck_allows_draw():
            moves.append((SMITHY,))
        if t.acted and t.built < t.limit:
            gold = self.gold[p]
            moves += [(BUILD, c) for c in distinct_hand if c not in city and gold >= self._price(c, rank)]
        if rank == WARLORD and self._warlord_may_destroy():
            for q in range(self.n):
                for card in sorted(set(self._city_types(q))):
                    if self._destroy_target(p, q, card) and self.gold[p] >= self._destroy_cost(p, q, card):
                        moves.append((DESTROY, q, card))
        if t.acted:
            moves.append((END,))
        return moves

    def _warlord_may_destroy(self) -> bool:
        if self.params["warlord_timing"] == "end_of_turn":  # I7: DESTROY is the turn's last act
            return self.turn.acted
        return not self.turn.destroyed  # I7 alternative: once, at any time

    def _apply_turn(self, move: tuple):
        t, prm = self.turn, self.params
        p, rank, kind = t.seat, t.rank, move[0]
        if kind == GOLD:
            gained = self._gain(p, 2)
            self._emit(PUBLIC, ("gold", p, gained))
            self._after_action()
        elif kind == DRAW:
            self._draw_action()
        elif kind == KEEP:
            self._keep(move[1])
        elif kind == BOTTOM:
            t.bottom_left.remove(move[1])
            self.deck.append(move[1])
            t.bottomed.append(move[1])
            self._finish_bottom()
        elif kind == POST_TAKE:
            t.pending = None
            self._emit(PUBLIC, ("post", p, 1))
            self._post_action()
        elif kind == POST_SKIP:
            t.pending = None
            self._emit(PUBLIC, ("post", p, 0))
        elif kind == INCOME:
            if prm["colour_choices"] == "choose" and self._has_text(p, D_SCHOOL_OF_MAGIC):
                t.pending = "colour"  # I16 alternative: the School of Magic's colour is asked
            else:
                self._take_income(self._income_amount(p, rank))
        elif kind == COLOUR_CHOICE:
            t.pending = None
            self._emit(PUBLIC, ("colour", p, move[1]))
            base = self._income_amount(p, rank) - 1
            self._take_income(base + (1 if move[1] == INCOME_COLOUR[rank] else 0))
        elif kind == KILL:
            self.killed = move[1]
            t.ability_used = True
            self._emit(PUBLIC, ("kill", p, move[1]))
        elif kind == ROB:
            self.robbed = move[1]
            t.ability_used = True
            self._emit(PUBLIC, ("rob", p, move[1]))
        elif kind == SWAP:
            q = move[1]
            self.hands[p], self.hands[q] = self.hands[q], self.hands[p]
            t.ability_used = True
            self._emit(PUBLIC, ("swap", p, q))
            self._emit(p, ("received", tuple(self.hands[p])))
            self._emit(q, ("received", tuple(self.hands[q])))
        elif kind == REDRAW:
            t.redraw.append(move[1])
            t.pending = "redraw"  # a started redraw must be finished (§5.3)
        elif kind == REDRAW_DONE:
            chosen = list(t.redraw)
            for card in chosen:
                self.hands[p].remove(card)
            # I4: the cards go under the deck in type order (the choice order is already non-decreasing);
            # the player-chosen alternative keeps the choice order
            self.deck.extend(chosen)
            drawn = self._draw(p, len(chosen))  # never short: the cards went under the deck first
            t.redraw = []
            t.pending = None
            t.ability_used = True
            self._emit(PUBLIC, ("redraw", p, len(chosen)))
            self._emit(p, ("redrew", tuple(chosen), tuple(drawn)))
        elif kind == LAB:
            self.hands[p].remove(move[1])
            self._out_of_play(move[1], prm["lab_discard_to"])  # I3
            gained = self._gain(p, 1)
            t.lab_used = True
            self._emit(PUBLIC, ("lab", p, gained))
            self._emit(p, ("lab_card", move[1]))
        elif kind == SMITHY:
            self._pay(p, 2)
            drawn = self._draw(p, 3)
            t.smithy_used = True
            self._emit(PUBLIC, ("smithy", p, len(drawn)))
            self._emit(p, ("drawn", tuple(drawn)))
        elif kind == BUILD:
            self._build(move[1])
        elif kind == DESTROY:
            self._destroy(move[1], move[2])
        elif kind == END:
            self._end_turn()

    def _take_income(self, amount: int):
        gained = self._gain(self.turn.seat, amount)
        self.turn.income_taken = True
        self._emit(PUBLIC, ("income", self.turn.seat, gained))

    def _draw_action(self):
        """§5.2 DRAW, with the Observatory, the Library and both (I19)."""
        t = self.turn
        p = t.seat
        observatory, library = self._has_text(p, D_OBSERVATORY), self._has_text(p, D_LIBRARY)
        m = min(len(self.deck), 3 if observatory else 2)
        if library and observatory:
            keep = 2 if self.params["library_observatory"] == "draw3_keep2" else m  # I19
        elif library:
            keep = m
        else:
            keep = 1
        k = min(m, keep)
        drawn = self.deck[:m]
        del self.deck[:m]
        self._emit(PUBLIC, ("draw", p, m, k))
        self._emit(p, ("drawn", tuple(drawn)))
        if k == m:  # keeping everything is not a decision (§8.2)
            self._to_hand(p, drawn)
            self._after_action()
        else:
            t.pending = "keep"
            t.drawn = drawn
            t.drawn_sorted = tuple(sorted(drawn))
            t.keep_k = k

    def _keep(self, kept: tuple):
        t = self.turn
        p = t.seat
        unkept = list(t.drawn)
        for card in kept:
            unkept.remove(card)  # list.remove takes the earliest-drawn copy, as §5.2 requires
        self._to_hand(p, kept)
        t.drawn = []
        t.drawn_sorted = ()
        t.kept = kept
        self._emit(PUBLIC, ("keep", p, len(kept)))
        t.bottomed = []
        t.bottom_left = unkept
        self._finish_bottom()

    def _finish_bottom(self):
        t = self.turn
        if self.params["bottom_order"] == "player_chosen" and len(set(t.bottom_left)) >= 2:
            t.pending = "bottom"  # I4 alternative: the player orders the unkept cards one by one
            return
        # I4: unkept cards keep their draw order
        self.deck.extend(t.bottom_left)
        t.bottomed += t.bottom_left
        t.bottom_left = []
        t.pending = None
        self._emit(t.seat, ("kept", t.kept, tuple(t.bottomed)))
        self._after_action()

    def _after_action(self):
        t = self.turn
        t.acted = True
        if t.rank in (MERCHANT, ARCHITECT):
            if self.params["post_action_auto"]:  # I6: the Merchant's gold and the Architect's cards come by themselves
                self._post_action()
            else:
                t.pending = "post"

    def _post_action(self):
        t = self.turn
        if t.rank == MERCHANT:
            gained = self._gain(t.seat, 1)
            self._emit(PUBLIC, ("merchant_bonus", t.seat, gained))
        elif t.rank == ARCHITECT:
            drawn = self._draw(t.seat, 2)
            self._emit(PUBLIC, ("architect_draw", t.seat, len(drawn)))
            self._emit(t.seat, ("drawn", tuple(drawn)))

    def _build(self, card: int):
        t = self.turn
        p = t.seat
        price = self._price(card, t.rank)
        self._pay(p, price)
        self.hands[p].remove(card)
        self.cities[p].append((card, self.round))
        t.built += 1
        self._emit(PUBLIC, ("build", p, card, price))
        if len(self.cities[p]) == self.params["complete_size"]:  # §6: the game ends after this round
            self.final_round = True
            if self.first_completer < 0:
                self.first_completer = p
            self._emit(PUBLIC, ("complete", p))

    def _destroy(self, q: int, card: int):
        t, prm = self.turn, self.params
        p = t.seat
        cost = self._destroy_cost(p, q, card)
        self._pay(p, cost)
        index = next(i for i, (c, _) in enumerate(self.cities[q]) if c == card)
        del self.cities[q][index]
        t.destroyed = True
        self._emit(PUBLIC, ("destroy", p, q, card, cost))
        # §5.3 Graveyard window, I8: the Graveyard must still stand after the card left (the alternative
        # lets it rescue itself), and its owner must not be the Warlord this round
        owner = next((s for s in range(self.n) if self._has_text(s, D_GRAVEYARD)), -1)
        if card == D_GRAVEYARD and D_GRAVEYARD not in self.plain and prm["graveyard_rule"] == "may_rescue_itself":
            owner = q
        if owner >= 0 and self.holder[WARLORD] != owner and self.gold[owner] >= 1:
            self.grave = (owner, card)
            self.phase = "graveyard"
            return
        self._out_of_play(card, prm["destroyed_to"])  # I2
        self._after_destroy()

    def _after_destroy(self):
        self.grave = None
        self.phase = "turn"
        if self.params["warlord_timing"] == "end_of_turn":  # I7: destroying ends the turn
            self._end_turn()

    def _apply_grave(self, move: tuple):
        owner, card = self.grave
        took = move[0] == GRAVE_TAKE
        if took:
            self._pay(owner, 1)
            self._to_hand(owner, [card])
        else:
            self._out_of_play(card, self.params["destroyed_to"])  # I2
        self._emit(PUBLIC, ("grave", owner, card, 1 if took else 0))
        self._after_destroy()

    def _end_turn(self):
        self._emit(PUBLIC, ("end", self.turn.seat))
        self.turn = None
        self.phase = "call"

    # --- the public interface -----------------------------------------------------------------------------

    def legal_moves(self) -> list[tuple]:
        """§8: the canonical legal list of the current decision, sorted; [] when the game is over.

        Returns
        -------
        list of tuple
            The moves.
        """
        if self.phase == "select":
            kind = self.sel_steps[self.sel_index][1]
            moves = [(kind, r) for r in self.offer]
        elif self.phase == "turn":
            moves = self._turn_moves()
        elif self.phase == "graveyard":
            moves = [(GRAVE_TAKE,), (GRAVE_PASS,)]
        elif self.phase == "colour":
            moves = [(COLOUR_CHOICE, c) for c in range(5)]
        else:
            moves = []
        return sorted(moves, key=move_key)

    def apply(self, move) -> None:
        """Play ``move`` for :attr:`current`, then every automatic step up to the next decision (§8.2).

        Parameters
        ----------
        move : tuple
            A move tuple.
        """
        move = _normalise(move)
        if move not in self.legal_moves():
            raise ValueError(f"illegal Citadels move {move_text(move) if _well_formed(move) else move!r}")
        if self.phase == "select":
            self._apply_selection(move[0], move[1])
        elif self.phase == "turn":
            self._apply_turn(move)
        elif self.phase == "graveyard":
            self._apply_grave(move)
        elif self.phase == "colour":
            seat = self.colour_queue.pop(0)
            self.haunted_colour[seat] = move[1]
            self._emit(PUBLIC, ("colour", seat, move[1]))
            if not self.colour_queue:
                self._game_over()
        self._advance()

    def scores(self) -> list[dict]:
        """§6: per seat the score parts, total, rank and win share (and the game's ``capped`` flag).

        Returns
        -------
        list of dict
            One entry per seat.
        """
        prm = self.params
        results = []
        for p in range(self.n):
            parts = city_score(self.cities[p], self.round, self.haunted_colour.get(p), self.plain)
            if p == self.first_completer:
                completion = 4
            elif len(self.cities[p]) >= prm["complete_size"]:
                completion = 2
            else:
                completion = 0
            parts["completion_bonus"] = completion
            # §6 seat points: in the total only, so they break no tie (rank_results never reads them)
            parts["seat_points"] = prm["seat_points"][self.n][p]
            parts["total"] = parts["district_points"] + parts["colour_bonus"] + completion + parts["seat_points"]
            parts["gold"] = self.gold[p]
            parts["capped"] = self.capped
            results.append(parts)
        rank_results(results, prm["tiebreak"])
        return results

    def observation(self, player: int) -> dict:
        """§7.2: exactly what ``player`` may see now.

        Parameters
        ----------
        player : int
            The seat.

        Returns
        -------
        dict
            The seat's view.
        """
        t = self.turn
        turn = None
        if t is not None:
            # every flag is public because every move that sets one is announced; a pending redraw's
            # selection is not, so ability_used only turns true at REDRAW_DONE
            turn = {
                "seat": t.seat,
                "rank": t.rank,
                "acted": t.acted,
                "ability_used": t.ability_used,
                "income_taken": t.income_taken,
                "lab_used": t.lab_used,
                "smithy_used": t.smithy_used,
                "built": t.built,
                "limit": t.limit,
                "destroyed": t.destroyed,
            }
        return {
            "seat": player,
            "players": self.n,
            "round": self.round,
            "phase": self.phase,
            "current": self.current,
            "crown": self.crown,
            "bank": self.bank,
            "deck_size": len(self.deck),
            "discard_size": len(self.discard),
            "gold": list(self.gold),
            "hand_sizes": [len(h) for h in self.hands],
            "cities": [list(c) for c in self.cities],
            "faceup_removed": list(self.faceup),
            "characters_held": [len(c) for c in self.chars],
            "revealed": self.revealed[1:],
            "called": self.called,
            "killed": self.killed,
            "robbed": self.robbed,
            "final_round": self.final_round,
            "first_completer": self.first_completer,
            "turn": turn,
            "hand": list(self.hands[player]),
            "characters": list(self.chars[player]),
            "decision": self._decision(player),
            "log": self._log(player),
            "scores": self.scores() if self.done else None,
        }

    def _log(self, player: int) -> list[tuple]:
        """The events `player` sees (public ones and its own), in order: a copy of a list kept per player and
        extended with the events recorded since the last call (the record only grows)."""
        seen, upto = self._logs.get(player, ([], 0))
        seen.extend(event for audience, event in self.events[upto:] if audience in (PUBLIC, player))
        self._logs[player] = (seen, len(self.events))
        return list(seen)

    def _decision(self, player: int) -> dict | None:
        """The observer's own pending decision, with the private cards it concerns (§7.2)."""
        if self.done or self.current != player:
            return None
        if self.phase == "select":
            kind = self.sel_steps[self.sel_index][1]
            return {"kind": "pick" if kind == PICK else "discard", "offer": tuple(self.offer)}
        if self.phase == "graveyard":
            return {"kind": "graveyard", "card": self.grave[1]}
        if self.phase == "colour":
            return {"kind": "colour", "for": "haunted_city"}
        t = self.turn
        if t.pending == "keep":
            return {"kind": "keep", "drawn": tuple(t.drawn), "keep": t.keep_k}
        if t.pending == "redraw":
            return {"kind": "redraw", "chosen": tuple(t.redraw)}
        if t.pending == "bottom":
            return {"kind": "bottom", "left": tuple(t.bottom_left)}
        if t.pending == "post":
            return {"kind": "post"}
        if t.pending == "colour":
            return {"kind": "colour", "for": "school_of_magic"}
        return {"kind": "turn"}

    def copy(self) -> RefGame:
        """An independent deep copy.

        Returns
        -------
        RefGame
            The copy.
        """
        # a pickle round trip of everything but the event record: the state is plain data (lists, dicts, tuples,
        # ints, the random generator), which pickle copies faster than copy.deepcopy walks it.  The record holds
        # only immutable tuples, so a shallow copy of the list is already independent (and copying its tuples
        # would dominate the cost late in a game); the copy builds its own log views.
        state = {k: v for k, v in vars(self).items() if k not in ("events", "_logs")}
        twin = object.__new__(type(self))
        vars(twin).update(pickle.loads(pickle.dumps(state, pickle.HIGHEST_PROTOCOL)))
        twin.events = list(self.events)
        twin._logs = {}
        return twin

    def snapshot(self) -> dict:
        """The full state, hidden parts included (for tests and debugging).

        Returns
        -------
        dict
            The state as plain data.
        """
        t = self.turn
        return {
            "players": self.n,
            "params": copy.deepcopy(self.params),
            "seed": self.seed,
            "rng_state": self.rng.state,
            "round": self.round,
            "phase": self.phase,
            "current": self.current,
            "done": self.done,
            "capped": self.capped,
            "final_round": self.final_round,
            "first_completer": self.first_completer,
            "crown": self.crown,
            "round_start_crown": self.round_start_crown,
            "bank": self.bank,
            "gold": list(self.gold),
            "deck": list(self.deck),
            "discard": list(self.discard),
            "hands": [list(h) for h in self.hands],
            "cities": [list(c) for c in self.cities],
            "pool": list(self.pool),
            "faceup": list(self.faceup),
            "facedown": list(self.facedown),
            "leftover": list(self.leftover),
            "discarded_chars": list(self.discarded_chars),
            "holder": self.holder[1:],
            "chars": [list(c) for c in self.chars],
            "killed": self.killed,
            "robbed": self.robbed,
            "called": self.called,
            "revealed": self.revealed[1:],
            "selection": {
                "mode": self.sel_mode,
                "steps": list(self.sel_steps),
                "index": self.sel_index,
                "offer": list(self.offer),
            },
            "turn": None if t is None else copy.deepcopy(vars(t)),
            "grave": self.grave,
            "colour_queue": list(self.colour_queue),
            "haunted_colour": dict(self.haunted_colour),
            # cards between piles while a decision is pending (drawn for KEEP, waiting for the bottom, or
            # destroyed and waiting for the Graveyard owner): with them every one of the 66 is somewhere
            "in_transit": ([] if t is None else [*t.drawn, *t.bottom_left]) + ([self.grave[1]] if self.grave else []),
            "events": list(self.events),
        }

    def move_text(self, move: tuple) -> str:
        """A move's text (:func:`move_text`).

        Parameters
        ----------
        move : tuple
            A move tuple.

        Returns
        -------
        str
            Its text.
        """
        return move_text(move)

    def parse_move(self, text: str) -> tuple:
        """A move from its text (:func:`parse_move`).

        Parameters
        ----------
        text : str
            A move's text.

        Returns
        -------
        tuple
            The move tuple.
        """
        return parse_move(text)


def _normalise(move) -> tuple:
    move = tuple(move)
    if move and move[0] == KEEP and len(move) == 2:
        return (KEEP, tuple(move[1]))
    return move


def _well_formed(move) -> bool:
    return bool(move) and isinstance(move[0], int) and 0 <= move[0] < len(KIND_NAMES)


# --- the reference random player and random games (§9) ----------------------------------------------------


class ReferenceRandomPlayer:
    """Plays ``legal[rand_below(len(legal))]`` from its own stream, one stream for all seats (§9).

    Parameters
    ----------
    seed : int
        The game seed (its stream is the seed xor PLAYER_STREAM_XOR).
    """

    def __init__(self, seed: int):
        self.rng = SplitMix64((seed ^ PLAYER_STREAM_XOR) & MASK64)

    def __call__(self, legal: list[tuple]) -> tuple:
        return legal[self.rng.rand_below(len(legal))]


def reference_random_player(seed: int) -> ReferenceRandomPlayer:
    """The reference random player of the game with seed `seed` (§9).

    Parameters
    ----------
    seed : int
        The game seed.

    Returns
    -------
    ReferenceRandomPlayer
        The player: call it with a legal list.
    """
    return ReferenceRandomPlayer(seed)


def play_random_game(players: int, params, seed: int):
    """A whole game by the reference random player; the trace lists (seat, legal list, move) per decision.

    Parameters
    ----------
    players : int
        Number of seats.
    params : dict or str
        A preset name or a full parameter dict.
    seed : int
        The game seed.

    Returns
    -------
    tuple of (RefGame, list)
        The finished game and the trace.
    """
    game = RefGame(players, params, seed)
    player = reference_random_player(seed)
    trace = []
    while not game.done:
        legal = game.legal_moves()
        move = player(legal)
        trace.append((game.current, legal, move))
        game.apply(move)
    return game, trace
