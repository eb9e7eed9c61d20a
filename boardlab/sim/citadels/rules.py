"""Citadels' rule set: every parameter of the rules contract (docs/games/citadels.md §1.1) by its exact name.

A rule set is a flat mapping -- the contract's §1.1 parameter names plus ``name`` --
validated into a frozen :class:`Rules`.  Two presets exist, ``official`` (default) and
``seed-summary`` (the seed's house rules, §12).  A variant is a TOML file that names a
``base`` preset and overrides any subset of keys::

    base = "official"
    name = "short"
    complete_size = 7              # the rulebook's shorter game

Every mapping is closed: an unknown key, a value of the wrong type or out of range raises
:class:`RulesError`, whose one-line message starts with the key
(``complete_sise: unknown key (valid: ...)``).  :meth:`Rules.params` gives the plain dict of
§1.1 names, which is what the plain-Python reference (``boardlab/sim/citadels/reference.py``) takes.

The components are data too: the characters (:data:`CHARACTERS`) and the district decks
(:data:`DECKS`, one per ``district_deck`` value).  The kernels never see this module's
objects: :mod:`boardlab.sim.citadels.tables` turns a rule set into plain arrays.

The 20 points the contract marks **[interpretation]** (§11, ``I1``..``I20``) are each a
parameter, commented ``[interpretation] In`` below with the choice.  Where the contract names
an alternative that is cheap to play, the parameter allows it; the others accept one value.
"""

from __future__ import annotations

import copy
import json
import operator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boardlab.sim.rulesets import RulesError as _SharedRulesError
from boardlab.sim.rulesets import RuleSet, check_base, read_toml

MIN_PLAYERS = 2
MAX_PLAYERS = 8  # seed-summary allows 8; official refuses it (validation, §3.1)
N_RANKS = 8

# --- components (§2) -------------------------------------------------------------------------------

COLOURS = ("yellow", "blue", "green", "red", "purple")
YELLOW, BLUE, GREEN, RED, PURPLE = range(5)


@dataclass(frozen=True)
class Character:
    """A character: its rank (1..8), name and income colour (None: no income, §2.1)."""

    rank: int
    name: str
    colour: str | None  # the income colour, None for no income (§2.1)


CHARACTERS = (
    Character(1, "Assassin", None),
    Character(2, "Thief", None),
    Character(3, "Magician", None),
    Character(4, "King", "yellow"),
    Character(5, "Bishop", "blue"),
    Character(6, "Merchant", "green"),
    Character(7, "Architect", None),
    Character(8, "Warlord", "red"),
)
ASSASSIN, THIEF, MAGICIAN, KING, BISHOP, MERCHANT, ARCHITECT, WARLORD = range(1, 9)


@dataclass(frozen=True)
class District:
    """A district type: id, name, colour, cost, points and copies in the deck."""

    id: int
    name: str
    colour: str
    cost: int
    points: int
    copies: int


def _d(i: int, name: str, colour: str, cost: int, copies: int, points: int | None = None) -> District:
    return District(i, name, colour, cost, cost if points is None else points, copies)


# The district decks by `district_deck` value.  Type ids are the row numbers of §2.2; the purple
# effects (§2.3) are code, keyed by the names in PURPLE_EFFECTS.
DECKS: dict[str, tuple[District, ...]] = {
    "classic66": (
        _d(0, "Manor", "yellow", 3, 5),
        _d(1, "Castle", "yellow", 4, 4),
        _d(2, "Palace", "yellow", 5, 3),
        _d(3, "Temple", "blue", 1, 3),
        _d(4, "Church", "blue", 2, 3),
        _d(5, "Monastery", "blue", 3, 3),
        _d(6, "Cathedral", "blue", 5, 2),
        _d(7, "Tavern", "green", 1, 5),
        _d(8, "Market", "green", 2, 4),
        _d(9, "Trading Post", "green", 2, 3),
        _d(10, "Docks", "green", 3, 3),
        _d(11, "Harbor", "green", 4, 3),
        _d(12, "Town Hall", "green", 5, 2),
        _d(13, "Watchtower", "red", 1, 3),
        _d(14, "Prison", "red", 2, 3),
        _d(15, "Battlefield", "red", 3, 3),
        _d(16, "Fortress", "red", 5, 2),
        _d(17, "Haunted City", "purple", 2, 1),
        _d(18, "Keep", "purple", 3, 2),
        _d(19, "Laboratory", "purple", 5, 1),
        _d(20, "Smithy", "purple", 5, 1),
        _d(21, "Observatory", "purple", 5, 1),
        _d(22, "Graveyard", "purple", 5, 1),
        _d(23, "Dragon Gate", "purple", 6, 1, points=8),
        _d(24, "University", "purple", 6, 1, points=8),
        _d(25, "Library", "purple", 6, 1),
        _d(26, "Great Wall", "purple", 6, 1),
        _d(27, "School of Magic", "purple", 6, 1),
    ),
}
MAX_TYPES = 32  # district types a deck may have (the kernels' per-type vectors have this many entries)
MAX_DECK = 96  # cards a deck may have

# The purple districts whose text the engine plays (§2.3), by name.  A deck without one of them
# simply never triggers its effect.
PURPLE_EFFECTS = (
    "Haunted City",
    "Keep",
    "Laboratory",
    "Smithy",
    "Observatory",
    "Graveyard",
    "Library",
    "Great Wall",
    "School of Magic",
)

# --- the presets (§1.1) ------------------------------------------------------------------------------


def _counts(values: dict[int, int]) -> dict[str, int]:
    return {str(n): v for n, v in values.items()}


_OFFICIAL: dict[str, Any] = {
    "name": "official",
    # §3.1: 8 players need a rank-9 character, which the base game does not have.
    "players_allowed": [2, 3, 4, 5, 6, 7],
    # [interpretation] I20: the 66-card classic deck (the seed's 84 cards are a 2016 count).
    "district_deck": "classic66",
    # [interpretation] I1: 30 gold counters; a gain takes what the bank has left ("partial").
    # Alternative "unlimited": every gain is paid in full (the bank's count may go negative).
    "bank_gold": 30,
    "bank_shortfall": "partial",
    "starting_gold": 2,
    "starting_hand": 4,
    # [interpretation] I15: "oldest player" is not modelled; the harness randomises seating.
    "first_crown_seat": 0,
    # §4.1: characters removed before selection, by player count (2-3p: only the face-down card).
    "remove_in_round_1": True,
    "removal_order": "facedown_first",
    "faceup_count": _counts({2: 0, 3: 0, 4: 2, 5: 1, 6: 0, 7: 0}),
    "facedown_count": _counts({2: 1, 3: 1, 4: 1, 5: 1, 6: 1, 7: 1}),
    # [interpretation] I18 (seed only): "blind_draw2" is the seed's selection for n >= 4.
    "selection_mode": "open",
    "crown_rule": "king_only",
    "architect_discount": 0,
    # [interpretation] I7: the Warlord destroys at the end of his turn, modelled as "DESTROY ends
    # the turn".  Alternative "any_time" (the 2016 rule): once, at any moment of his turn.
    "warlord_timing": "end_of_turn",
    "warlord_may_target_own": True,
    "complete_size": 8,
    # [interpretation] I12, I13: ties go to the higher district points (8 for Dragon Gate and
    # University), then to more gold, then are shared.  "shared": every top score wins;
    # "cost_gold_shared": printed cost instead of points (I12); "districts_gold_draw": a tie that
    # remains has no winner (I13).
    "tiebreak": "districts_gold_shared",
    # [interpretation] I6: the Merchant's +1 and the Architect's 2 cards come automatically after
    # the action (declining them, one more decision each, is not modelled).
    "post_action_auto": True,
    # [interpretation] I2, I3: destroyed and Laboratory-discarded cards go to the deck bottom.
    # Alternative "removed": out of the game.
    "destroyed_to": "deck_bottom",
    "lab_discard_to": "deck_bottom",
    # [interpretation] I4: unkept drawn cards go to the bottom in draw order, REDRAW and
    # Laboratory cards in ascending type id (player-chosen order is not modelled).
    "bottom_order": "draw_order/type_ascending",
    # [interpretation] I5: draws are short, DRAW and SMITHY need a card, no reshuffle.
    # Alternative "zero_draw_allowed": DRAW and SMITHY stay legal on an empty deck (drawing nothing).
    "empty_deck": "short_draw_no_reshuffle",
    # [interpretation] I8: the Graveyard must still stand after the destroyed card leaves, so it
    # cannot save itself.  Alternative "may_rescue_itself": a destroyed Graveyard may take itself.
    "graveyard_rule": "needs_graveyard_in_city",
    # [interpretation] I9: a revealed, unmurdered Bishop shields his holder's city from the
    # Warlord even when one player holds both (2-3p).
    "bishop_shields_vs_own_warlord": True,
    # [interpretation] I10: the Great Wall's +1 applies to its owner's own Warlord too.
    "great_wall_vs_own_warlord": True,
    # [interpretation] I11: only the murdered King is revealed (as heir).  Alternative
    # "all_at_round_end": every secret character card is shown at the end of the round (the
    # murdered one with its holder, the face-down ones by rank).
    "reveal_murdered": "king_only",
    # [interpretation] I14: KILL and ROB may name any rank the rules allow, present or not.
    # false: not a face-up removed rank nor one of the player's own ranks.
    "target_any_rank": True,
    # [interpretation] I16: the Haunted City's and the School of Magic's colours are chosen
    # automatically (only one choice is ever best).
    "colour_choices": "auto",
    # [interpretation] I17: 3 players choose A, B, C, A, B, C.  Alternative "ABCCBA".
    "three_player_order": "ABCABC",
    # [interpretation] I19: Library with Observatory: draw 3, keep 2.  Alternative "draw3_keep3".
    "library_observatory": "draw3_keep2",
    # §2.3 (a study's lever, not a rule of either source): purple districts played without their text.
    # Each named card keeps its colour (purple), cost and copies, scores its cost (the Dragon Gate and
    # the University 6, not 8) and does nothing else -- "swapped for a plain district of the same cost".
    "plain_purples": [],
    # §6 (a designer's lever, not a rule of either source): points added to each seat's score at the end, by
    # player count, seat 1 (the first crown) first -- the seat compensation `boardlab tune seats` solves for.
    "seat_points": {str(n): [0] * n for n in range(2, 8)},
    # §8: a simulation cap; a game still running after this round is scored as it stands.
    "max_rounds": 100,
}

_SEED = copy.deepcopy(_OFFICIAL)
_SEED.update(
    {
        "name": "seed-summary",
        "players_allowed": [2, 3, 4, 5, 6, 7, 8],
        "bank_gold": 22,
        "starting_hand": 2,
        "remove_in_round_1": False,
        "removal_order": "faceup_first",
        "faceup_count": _counts({2: 0, 3: 0, 4: 2, 5: 1, 6: 0, 7: 0, 8: 0}),
        "seat_points": {str(n): [0] * n for n in range(2, 9)},
        "facedown_count": _counts({2: 1, 3: 1, 4: 1, 5: 1, 6: 1, 7: 1, 8: 0}),
        "selection_mode": "blind_draw2",
        "crown_rule": "rotate_unless_king",
        "architect_discount": 1,
        "warlord_may_target_own": False,
        "tiebreak": "shared",
    }
)

PRESETS: dict[str, dict[str, Any]] = {"official": _OFFICIAL, "seed-summary": _SEED}
DEFAULT_PRESET = "official"
PARAMETERS = tuple(k for k in _OFFICIAL if k != "name")  # the §1.1 names, in table order

# Allowed values of the string parameters (the first is the official preset's).
CHOICES = {
    "district_deck": tuple(DECKS),
    "bank_shortfall": ("partial", "unlimited"),
    "removal_order": ("facedown_first", "faceup_first"),
    "selection_mode": ("open", "blind_draw2"),
    "crown_rule": ("king_only", "rotate_unless_king"),
    "warlord_timing": ("end_of_turn", "any_time"),
    "tiebreak": ("districts_gold_shared", "shared", "cost_gold_shared", "districts_gold_draw"),
    "destroyed_to": ("deck_bottom", "removed"),
    "lab_discard_to": ("deck_bottom", "removed"),
    "bottom_order": ("draw_order/type_ascending",),
    "empty_deck": ("short_draw_no_reshuffle", "zero_draw_allowed"),
    "graveyard_rule": ("needs_graveyard_in_city", "may_rescue_itself"),
    "reveal_murdered": ("king_only", "all_at_round_end"),
    "colour_choices": ("auto",),
    "three_player_order": ("ABCABC", "ABCCBA"),
    "library_observatory": ("draw3_keep2", "draw3_keep3"),
}
# Alternatives that add decisions (§11 I4, I6, I16): the reference plays them, this engine does not.
_NOT_IN_ENGINE = {
    "bottom_order": ("player_chosen",),
    "colour_choices": ("choose",),
    "post_action_auto": (False,),
}
# Booleans with only one value the engine plays.
_ONLY_TRUE = ("post_action_auto",)
# Integer ranges.
_RANGES = {
    "bank_gold": (0, 999),
    "starting_gold": (0, 99),
    "starting_hand": (0, 12),
    "first_crown_seat": (0, MAX_PLAYERS - 1),
    "architect_discount": (0, 6),
    "complete_size": (1, MAX_TYPES),
    "max_rounds": (1, 1000),
}
_COUNT_KEYS = tuple(str(n) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1))


class RulesError(_SharedRulesError):
    """A rule set that cannot be used; the one-line message starts with the offending key."""


@dataclass(frozen=True, eq=False)
class Rules(RuleSet):
    """A validated, immutable rule set (boardlab.sim.rulesets.RuleSet: ``name``, ``data``, ``canonical``).
    ``data`` is the full flat mapping (``name`` + §1.1 names)."""

    def __getitem__(self, key: str) -> Any:
        return self.data[key]

    @property
    def players_allowed(self) -> tuple[int, ...]:
        """The player counts the rule set allows."""
        return tuple(self.data["players_allowed"])

    @property
    def districts(self) -> tuple[District, ...]:
        """The district deck's types (``district_deck``)."""
        return DECKS[self.data["district_deck"]]

    def district_id(self, name: str) -> int:
        """The type id of a district name (-1 if the deck has none).

        Parameters
        ----------
        name : str
            The district's name.

        Returns
        -------
        int
            Its type id, or -1.
        """
        for d in self.districts:
            if d.name == name:
                return d.id
        return -1

    def faceup(self, players: int) -> int:
        """Characters face up at a player count.

        Parameters
        ----------
        players : int
            The player count.

        Returns
        -------
        int
            Characters laid face up at the selection.
        """
        return int(self.data["faceup_count"][str(players)])

    def facedown(self, players: int) -> int:
        """Characters face down at a player count.

        Parameters
        ----------
        players : int
            The player count.

        Returns
        -------
        int
            Characters laid face down at the selection.
        """
        return int(self.data["facedown_count"][str(players)])

    def params(self) -> dict:
        """The plain dict of §1.1 parameter names (what the reference's ``RefGame`` takes).

        Returns
        -------
        dict
            A deep copy of the mapping without ``name``.
        """
        return {k: copy.deepcopy(v) for k, v in self.data.items() if k != "name"}

    def check_players(self, players: int) -> None:
        """RulesError (one line) unless the rule set allows `players` (any integer type).

        Parameters
        ----------
        players : int
            The player count.
        """
        try:
            n = operator.index(players)
        except TypeError:
            n = None
        if isinstance(players, bool) or n not in self.players_allowed:
            allowed = self.players_allowed
            raise RulesError(f"players: rules {self.name!r} allow {allowed[0]}..{allowed[-1]} players, got {players!r}")

    # --- conversions ---
    def to_dict(self) -> dict:
        """The full mapping.

        Returns
        -------
        dict
            A deep copy of the full mapping.
        """
        return copy.deepcopy(self.data)

    def to_json(self) -> str:
        """The rule set's identity: its canonical JSON.

        Returns
        -------
        str
            The canonical JSON.
        """
        return self.canonical

    def base_preset(self) -> str:
        """The preset a TOML dump of this rule set names as its base.

        Returns
        -------
        str
            The rule set's name when it is a preset, else the default preset.
        """
        return self.name if self.name in PRESETS else DEFAULT_PRESET

    def to_toml(self) -> str:
        """The whole rule set as a TOML variant file that :func:`load_rules` reads back unchanged.

        Returns
        -------
        str
            The TOML text.
        """
        import tomlkit

        doc = tomlkit.document()
        doc.add(tomlkit.comment(f"Citadels rules {self.name!r}: every key a variant file can set."))
        doc.add(tomlkit.comment("A variant names a base preset and overrides any subset of these keys."))
        doc.add("base", self.base_preset())
        for k, v in self.data.items():
            doc.add(k, v)
        return tomlkit.dumps(doc)

    def with_overrides(self, overrides: dict[str, Any]) -> Rules:
        """A new rule set with some parameters changed, e.g. ``{"complete_size": 7}``.

        Parameters
        ----------
        overrides : dict of str to object
            §1.1 parameter names (the mapping is flat) to values.

        Returns
        -------
        Rules
            The validated new rule set.
        """
        return from_mapping(dict(overrides), base=self.data)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rules) and self.canonical == other.canonical

    def __hash__(self) -> int:
        return hash(self.canonical)


# --- validation ----------------------------------------------------------------------------------


def _type_name(v: Any) -> str:
    if isinstance(v, bool):
        return "true or false"
    if isinstance(v, int):
        return "an integer"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "a list"
    return "a table"


def _merge(base: dict, over: dict) -> dict:
    """Overlay `over` on `base`, refusing unknown keys and values of another type."""
    out = copy.deepcopy(base)
    for k, v in over.items():
        head, dot, tail = k.partition(".")
        if dot and isinstance(base.get(head), dict):  # "seat_points.4 = [...]": one player count of a table
            k, v = head, {tail: v}
        if k not in base:
            raise RulesError(f"{k}: unknown key (valid: {', '.join(base)})")
        b = base[k]
        if isinstance(b, dict):
            if not isinstance(v, dict):
                raise RulesError(f"{k}: expected a table of player counts ({', '.join(_COUNT_KEYS)}), got {v!r}")
            merged = dict(out[k])  # out, not base: two dotted keys of one table both count
            for n, c in v.items():
                n = str(n)
                if n not in _COUNT_KEYS:
                    raise RulesError(f"{k}.{n}: unknown player count (valid: {', '.join(_COUNT_KEYS)})")
                merged[n] = copy.deepcopy(c)
            out[k] = dict(sorted(merged.items(), key=lambda kv: int(kv[0])))
        elif isinstance(b, bool) != isinstance(v, bool) or not isinstance(v, type(b)):
            raise RulesError(f"{k}: expected {_type_name(b)}, got {v!r}")
        else:
            out[k] = copy.deepcopy(v)
    return out


def _int(v: Any, path: str, lo: int, hi: int) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise RulesError(f"{path}: expected an integer, got {v!r}")
    if not lo <= v <= hi:
        raise RulesError(f"{path}: must be in {lo}..{hi}, got {v}")
    return v


def _check(data: dict) -> Rules:
    if not isinstance(data.get("name"), str) or not data["name"]:
        raise RulesError("name: expected a non-empty string")
    for key, values in _NOT_IN_ENGINE.items():
        if data[key] in values and not (isinstance(data[key], bool) and not isinstance(values[0], bool)):
            raise RulesError(f"{key}: {data[key]!r} adds decisions the engine does not play (only the reference does)")
    for key, allowed in CHOICES.items():
        if data[key] not in allowed:
            raise RulesError(f"{key}: expected one of {', '.join(allowed)}, got {data[key]!r}")
    for key in _ONLY_TRUE:
        if data[key] is not True:
            raise RulesError(f"{key}: expected true, got {data[key]!r}")
    for key, (lo, hi) in _RANGES.items():
        _int(data[key], key, lo, hi)
    allowed = data["players_allowed"]
    if (
        not isinstance(allowed, list)
        or not allowed
        or any(isinstance(n, bool) or not isinstance(n, int) for n in allowed)
        or allowed != sorted(set(allowed))
    ):
        raise RulesError(f"players_allowed: expected an ascending list of distinct player counts, got {allowed!r}")
    for n in allowed:
        if not MIN_PLAYERS <= n <= MAX_PLAYERS:
            raise RulesError(f"players_allowed: {n} is outside {MIN_PLAYERS}..{MAX_PLAYERS}")
    deck = DECKS[data["district_deck"]]
    cards = sum(d.copies for d in deck)
    for n in allowed:
        for key in ("faceup_count", "facedown_count"):
            if str(n) not in data[key]:
                raise RulesError(f"{key}.{n}: missing for an allowed player count")
        up = _int(data["faceup_count"][str(n)], f"faceup_count.{n}", 0, 3)
        down = _int(data["facedown_count"][str(n)], f"facedown_count.{n}", 0, 2)
        # Every chooser must find a card: n >= 4 hold one rank each, 2-3 players two each (§3).
        need = n if n >= 4 else 6
        if N_RANKS - up - down < need:
            raise RulesError(f"faceup_count.{n}: {up} face up and {down} face down leave too few ranks for {n} players")
        if n <= 3 and up:
            raise RulesError(f"faceup_count.{n}: 2-3 players remove only face-down cards (§4.1), got {up}")
        if n == 8 and data["selection_mode"] == "open" and up + down:
            raise RulesError(f"facedown_count.{n}: 8 players in open selection must remove nothing")
    if 8 in allowed and data["selection_mode"] == "open":
        raise RulesError("players_allowed: 8 players need selection_mode blind_draw2 (open selection has 7 rules)")
    purples = [d.name for d in deck if d.colour == "purple"]
    plain = data["plain_purples"]
    if not isinstance(plain, list) or any(not isinstance(x, str) for x in plain):
        raise RulesError(f"plain_purples: expected a list of purple district names, got {plain!r}")
    for x in plain:
        if x not in purples:
            raise RulesError(f"plain_purples: {x!r} is not a purple district of the deck (valid: {', '.join(purples)})")
    if len(set(plain)) != len(plain):
        raise RulesError(f"plain_purples: a district is named twice in {plain!r}")
    data["plain_purples"] = [x for x in purples if x in plain]  # deck order, so equal sets compare equal
    table = data["seat_points"]
    for n in allowed:
        if str(n) not in table:
            raise RulesError(f"seat_points.{n}: missing for an allowed player count")
    for key, pts in table.items():  # every list given, not only the allowed counts': one integer per seat
        n = int(key)
        if (
            not isinstance(pts, list)
            or len(pts) != n
            or any(isinstance(x, bool) or not isinstance(x, int) or not 0 <= x <= 99 for x in pts)
        ):
            raise RulesError(f"seat_points.{n}: expected a list of {n} integers in 0..99 (seat 1 first), got {pts!r}")
    if data["first_crown_seat"] >= allowed[0]:
        raise RulesError(f"first_crown_seat: must be below the smallest player count {allowed[0]}")
    if data["starting_hand"] * allowed[-1] > cards:
        raise RulesError(f"starting_hand: {data['starting_hand']} cards for {allowed[-1]} players exceed the deck")
    canonical = json.dumps(data, separators=(",", ":"))
    return Rules(name=data["name"], data=data, canonical=canonical)


def from_mapping(mapping: dict[str, Any], base: dict[str, Any] | str | None = None) -> Rules:
    """Validate a (partial) mapping on top of a base preset (``mapping["base"]`` or `base`) or mapping.

    Parameters
    ----------
    mapping : dict of str to object
        The keys to override.
    base : dict or str or None
        A preset name or a full mapping (None: the default preset).

    Returns
    -------
    Rules
        The validated rule set.
    """
    if not isinstance(mapping, dict):
        raise RulesError(f"rules: expected a table of parameters, got {mapping!r}")
    mapping = dict(mapping)
    b = check_base(mapping.pop("base"), PRESETS, RulesError) if "base" in mapping else None
    if base is None:
        base = b if b is not None else DEFAULT_PRESET
    if isinstance(base, str):
        if base not in PRESETS:
            raise RulesError(f"base: unknown preset {base!r} (valid: {', '.join(PRESETS)})")
        base = PRESETS[base]
        if "name" not in mapping and any(k != "name" for k in mapping):
            mapping["name"] = f"{base['name']}+variant"
    return _check(_merge(base, mapping))


def preset(name: str = DEFAULT_PRESET) -> Rules:
    """A preset rule set by name.

    Parameters
    ----------
    name : str
        The preset's name.

    Returns
    -------
    Rules
        The preset.
    """
    if name not in PRESETS:
        raise RulesError(f"rules: unknown preset {name!r} (valid: {', '.join(PRESETS)}, or a .toml file)")
    return _check(copy.deepcopy(PRESETS[name]))


def load_rules(spec: str | Path | Rules | dict | None = None) -> Rules:
    """A preset name (``official``, ``seed-summary``), a path to a TOML variant, a mapping, or a Rules.

    Parameters
    ----------
    spec : str or pathlib.Path or Rules or dict or None
        What to load (None: the default preset).

    Returns
    -------
    Rules
        The validated rule set.
    """
    if spec is None:
        return preset()
    if isinstance(spec, Rules):
        return spec
    if isinstance(spec, dict):
        return from_mapping(spec)
    s = str(spec)
    if s in PRESETS:
        return preset(s)
    path = Path(s)
    if path.suffix != ".toml" and not path.exists():
        raise RulesError(f"rules: unknown preset {s!r} (valid: {', '.join(PRESETS)}, or a .toml file)")
    mapping = read_toml(path, RulesError)
    if "name" not in mapping:
        mapping["name"] = path.stem
    try:
        return from_mapping(mapping)
    except RulesError as e:
        raise RulesError(f"{s}: {e}") from None
