"""The rule set: every number of docs/games/citywright.md as a named, documented parameter.

A rule set is a nested mapping (the same shape as a rules TOML file) validated
into a frozen :class:`Rules`.  Two presets exist, ``v1.1`` (default) and
``v1.0``; a variant is a TOML file that names a ``base`` preset and overrides
any subset of keys::

    base = "v1.1"
    [scoring.residential]
    pair_points = 6
    [achievements]
    enabled = false

Unknown keys and bad values raise :class:`RulesError`, whose message names the
key (``scoring.residential.pair_pints: unknown key``).  Kernels never see this
module's objects: :mod:`boardlab.sim.citywright.tables` turns a rule set into plain arrays.

Points docs/games/citywright.md marks **[interpretation]** are commented ``[interpretation]``
below, with the reason, so a reader can see which numbers are rulebook text and
which are this project's decisions.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boardlab.sim.rulesets import RuleBook, RulesError, RuleSet, canonical_json, dig
from boardlab.sim.rulesets import check_choice as _choice
from boardlab.sim.rulesets import check_int as _int

DISTRICTS = ("R", "C", "P", "I")
DISTRICT_NAMES = ("residential", "commercial", "park", "industrial")
BOARD_SIZE = 7
MARKET_SIZE = 4
MAX_PLAYERS = 4
MAX_SHAPES = 16  # shapes a rule set may have (the kernels keep per-shape counts in this many entries)
MAX_TIERS = 4  # commercial tiers
MAX_ACHIEVEMENTS = 16

# Slots around the market, in the engine's index order (docs/games/citywright.md section 3).
SLOT_NAMES = (
    [f"row{r}-left" for r in range(4)]
    + [f"row{r}-right" for r in range(4)]
    + [f"col{c}-top" for c in range(4)]
    + [f"col{c}-bottom" for c in range(4)]
    + ["corner-tl", "corner-tr", "corner-br", "corner-bl"]
)
N_SLOTS = len(SLOT_NAMES)
N_EDGE_SLOTS = 16


def slot_line(slot: int) -> tuple[tuple[int, int], ...]:
    """Market cells (r, c) that a slot gives, in line order.

    Parameters
    ----------
    slot : int
        The slot (0-based).

    Returns
    -------
    tuple of tuple of int
        Four (row, col) cells.
    """
    if slot < 4:
        return tuple((slot, c) for c in range(4))
    if slot < 8:
        return tuple((slot - 4, c) for c in range(4))
    if slot < 12:
        return tuple((r, slot - 8) for r in range(4))
    if slot < 16:
        return tuple((r, slot - 12) for r in range(4))
    if slot in (16, 18):  # top-left and bottom-right: main diagonal
        return tuple((i, i) for i in range(4))
    return tuple((i, 3 - i) for i in range(4))  # top-right, bottom-left: anti-diagonal


def opposite_slot(slot: int) -> int:
    """The slot at the other end of the same line (the solo rival's target).

    Parameters
    ----------
    slot : int
        The slot.

    Returns
    -------
    int
        The opposite slot.
    """
    if slot < 8:
        return (slot + 4) % 8
    if slot < 16:
        return 8 + (slot - 8 + 4) % 8
    return 16 + (slot - 16 + 2) % 4


ACHIEVEMENT_KINDS = {
    # kind: (fields it needs besides points/enabled, one-line meaning)
    "distinct_shapes": (("threshold",), "placed at least `threshold` distinct shapes"),
    "same_shape": (("threshold",), "placed one shape at least `threshold` times"),
    "shape_count": (("shape", "threshold"), "placed `shape` at least `threshold` times"),
    "district_count": (("district", "threshold"), "at least `threshold` tiles of `district`"),
    "full_line": (("district",), "a full row or column (of `district`, or of any tiles if 'any')"),
    "no_empty": ((), "no empty cell"),
    "highest_district": (
        ("district", "solo_threshold"),
        "highest `district` score at the table, ties all get it; solo: score >= solo_threshold",
    ),
}

# The kernels' code of each kind (its position above), and a name for each code.
ACHIEVEMENT_CODES = {kind: code for code, kind in enumerate(ACHIEVEMENT_KINDS)}
KIND_DISTINCT_SHAPES = ACHIEVEMENT_CODES["distinct_shapes"]
KIND_SAME_SHAPE = ACHIEVEMENT_CODES["same_shape"]
KIND_SHAPE_COUNT = ACHIEVEMENT_CODES["shape_count"]
KIND_DISTRICT_COUNT = ACHIEVEMENT_CODES["district_count"]
KIND_FULL_LINE = ACHIEVEMENT_CODES["full_line"]
KIND_NO_EMPTY = ACHIEVEMENT_CODES["no_empty"]
KIND_HIGHEST_DISTRICT = ACHIEVEMENT_CODES["highest_district"]

# Ranks (docs/games/citywright.md section 8): players are compared on these score-sheet columns in turn
# (True where more is better): highest total, then fewer empty cells, then more distinct
# shapes placed.  A player's rank is 1 + the number of players strictly ahead; the players
# of rank 1 share the win.  The engine (boardlab.sim.citywright.engine._better) and the re-rankers
# (boardlab.sim.citywright.ranking.rank_key) both read this.  In a 2-player game the rule
# `game.two_player_tie` may replace the last column by the seat (TWO_PLAYER_TIES).
RANKING = (("total", True), ("empty", False), ("shapes_distinct", True))
# `game.two_player_tie`: what decides a 2-player game still tied on total and empty cells.
# "distinct_shapes": more distinct shapes placed, then a shared win (the rulebook, every player count);
# "second_seat": the second player wins (a variant rule: results/v1.2/tie-rule prices it).
TWO_PLAYER_TIES = ("distinct_shapes", "second_seat")

_V11: dict[str, Any] = {
    "name": "v1.1",
    # Rulers (docs/games/citywright.md section 2).  Cells are (row, col); `star` indexes the star cell
    # in `cells` or is -1.  Rulers without a star form the tetromino deck dealt to
    # the 16 edge slots; rulers with one the pentomino deck dealt to the corners.
    # `two_player_remove` copies leave the game before a two-player game.
    "shapes": {
        "I": {"cells": [[0, 0], [0, 1], [0, 2], [0, 3]], "star": -1, "copies": 7, "two_player_remove": 3},
        "L": {"cells": [[0, 0], [1, 0], [2, 0], [2, 1]], "star": -1, "copies": 7, "two_player_remove": 3},
        "T": {"cells": [[0, 0], [0, 1], [0, 2], [1, 1]], "star": -1, "copies": 7, "two_player_remove": 3},
        "Z": {"cells": [[0, 0], [0, 1], [1, 1], [1, 2]], "star": -1, "copies": 7, "two_player_remove": 3},
        "O": {"cells": [[0, 0], [0, 1], [1, 0], [1, 1]], "star": -1, "copies": 7, "two_player_remove": 3},
        "W": {"cells": [[0, 0], [1, 0], [1, 1], [2, 1], [2, 2]], "star": 2, "copies": 4, "two_player_remove": 2},
        "T5": {"cells": [[0, 0], [0, 1], [0, 2], [1, 1], [2, 1]], "star": 1, "copies": 4, "two_player_remove": 2},
        "P": {"cells": [[0, 0], [0, 1], [1, 0], [1, 1], [1, 2]], "star": 3, "copies": 4, "two_player_remove": 2},
        "V": {"cells": [[0, 0], [0, 1], [0, 2], [1, 2], [2, 2]], "star": 2, "copies": 4, "two_player_remove": 2},
    },
    "game": {
        # Rounds x turns per player per round, by player count (keys are strings in TOML).
        # [interpretation] 3 players: 3 x 4 and 4 players: 4 x 3.  The rulebook gives
        # 3 x 4 for solo and two players and says a game has "3 or 4 rounds"; its seat
        # figures (last seat favoured at 3-4 players without compensation) fit only
        # every seat starting once, with the last seat starting the final round.
        "rounds": {"1": [3, 4], "2": [3, 4], "3": [3, 4], "4": [4, 3]},
        # Seat compensation added to the total, seat 1 first.
        "compensation": {"1": [0], "2": [0, 1], "3": [2, 2, 0], "4": [2, 2, 1, 0]},
        # Tiles of each district in a fresh market (4 x 4 = 16 cells).
        "market_tiles_per_district": 4,
        # [interpretation] The pentomino-for-a-tile swap (rulebook 9.2) appears under
        # the two-player rules and solo forbids it explicitly, so only these counts.
        "swap_players": [2],
        # [interpretation] The swap places a tile, so it needs an empty cell.
        "swap_requires_empty_cell": True,
        # Solo: the rival removes the ruler at the other end of the chosen line.
        "solo_rival": True,
        # [interpretation] v1.0 hint (docs/games/citywright.md section 9): taken tiles leave the market
        # until cleanup; a slot gives only tiles still on its line; the free pick must
        # be a district still on the market.  Off in both presets.
        "market_depletes": False,
        # A 2-player game tied on total and empty cells: "distinct_shapes" (the rulebook) or
        # "second_seat" (the second player wins; a variant rule, not in the rulebook).  See RANKING.
        "two_player_tie": "distinct_shapes",
    },
    "scoring": {
        "residential": {
            # "pairs": floor(s1 / 2) * pair_points (v1.1); "tiles": s1 * largest_tile_points (v1.0).
            "largest": "pairs",
            "pair_points": 5,
            "largest_tile_points": 2,
            "second_tile_points": 1,
        },
        "commercial": {
            "tier_thresholds": [5, 10, 15],
            "tier_points": [5, 15, 30],
            "extra_from": 15,  # 1 point per tile beyond this many
            "extra_per_tile": 1,
            "isolated_points": 2,
        },
        "park": {
            "adjacent_points": 1,
            "adjacent_to": "RC",  # districts a park must touch to score adjacency
            "row_points": 2,
            "column_points": 2,
        },
        "industrial": {"ring_points": 2, "pair_points": 3},
    },
    # [interpretation] The rulebook's achievement text is missing (docs/games/citywright.md section 7).
    # These thresholds and points are the project's placeholders: reported as
    # assumptions wherever results are, and switchable off with `enabled = false`.
    "achievements": {
        "enabled": True,
        "cards": {
            "versatile": {"kind": "distinct_shapes", "threshold": 6, "points": 4, "enabled": True},
            "mastery": {"kind": "same_shape", "threshold": 4, "points": 4, "enabled": True},
            "green_canopy": {
                "kind": "highest_district",
                "district": "P",
                "solo_threshold": 40,
                "points": 4,
                "enabled": True,
            },
        },
    },
}

_V10 = copy.deepcopy(_V11)
_V10["name"] = "v1.0"
_V10["scoring"]["residential"]["largest"] = "tiles"
_V10["game"]["rounds"]["2"] = [4, 4]
_V10["game"]["compensation"] = {"1": [0], "2": [0, 0], "3": [0, 0, 0], "4": [0, 0, 0, 0]}

PRESETS: dict[str, dict[str, Any]] = {"v1.1": _V11, "v1.0": _V10}
DEFAULT_PRESET = "v1.1"

# Keys whose value is a free-form mapping (new entries allowed) rather than a fixed record.
_OPEN_MAPPINGS = frozenset({"shapes", "achievements.cards"})


@dataclass(frozen=True)
class Shape:
    """A ruler shape: its name, (row, col) cells, the star's index among them (-1: none), copies, and how many
    copies a two-player game removes."""

    name: str
    cells: tuple[tuple[int, int], ...]
    star: int  # index into cells, or -1
    copies: int
    two_player_remove: int

    @property
    def has_star(self) -> bool:
        """Whether the shape has a star cell."""
        return self.star >= 0


@dataclass(frozen=True)
class Achievement:
    """An achievement card: name, kind, points, threshold, district, shape and solo threshold
    (docs/games/citywright.md §7)."""

    name: str
    kind: str
    points: int
    threshold: int = 0
    district: str = "any"
    shape: str = ""
    solo_threshold: int = 0


@dataclass(frozen=True, eq=False)
class Rules(RuleSet):
    """A validated, immutable rule set (boardlab.sim.rulesets.RuleSet: ``name``, ``data``, the full nested
    mapping, and its ``canonical`` JSON) with Citywright's views of it."""

    shapes: tuple[Shape, ...]

    # --- convenient views -------------------------------------------------
    def rounds(self, players: int) -> tuple[int, int]:
        """Rounds and turns per round at a player count.

        Parameters
        ----------
        players : int
            The player count.

        Returns
        -------
        tuple of int
            (rounds, turns per round).
        """
        r, t = self.data["game"]["rounds"][str(players)]
        return int(r), int(t)

    def compensation(self, players: int) -> tuple[int, ...]:
        """The seats' compensation points at a player count.

        Parameters
        ----------
        players : int
            The player count.

        Returns
        -------
        tuple of int
            Points per seat.
        """
        return tuple(int(x) for x in self.data["game"]["compensation"][str(players)])

    def swap_allowed(self, players: int) -> bool:
        """Whether the two-player swap is allowed at a player count.

        Parameters
        ----------
        players : int
            The player count.

        Returns
        -------
        bool
            True when the count is among ``game.swap_players``.
        """
        return players in self.data["game"]["swap_players"]

    @property
    def game(self) -> dict:
        """The ``game`` table."""
        return self.data["game"]

    @property
    def scoring(self) -> dict:
        """The ``scoring`` table."""
        return self.data["scoring"]

    def achievements(self) -> tuple[Achievement, ...]:
        """The achievements in force (empty when switched off).

        Returns
        -------
        tuple of Achievement
            The cards, in the rule set's order.
        """
        a = self.data["achievements"]
        if not a["enabled"]:
            return ()
        out = []
        for name, card in a["cards"].items():
            if card.get("enabled", True):
                fields = {k: v for k, v in card.items() if k not in ("enabled",)}
                out.append(Achievement(name=name, **fields))
        return tuple(out)

    def shape_index(self, name: str) -> int:
        """The index of a shape by name.

        Parameters
        ----------
        name : str
            A shape's name.

        Returns
        -------
        int
            Its index in ``shapes`` (KeyError when there is none).
        """
        for i, s in enumerate(self.shapes):
            if s.name == name:
                return i
        raise KeyError(name)

    def base_preset(self) -> str:
        """The preset this rule set can be written over: every shape and achievement card of the
        preset, in the preset's order, comes first here (a variant can add those, never remove).

        Returns
        -------
        str
            The preset's name.
        """

        def prefix(key: str, preset: dict) -> bool:
            mine, theirs = list(dig(self.data, key)), list(dig(preset, key))
            return mine[: len(theirs)] == theirs

        names = [self.name, *PRESETS] if self.name in PRESETS else list(PRESETS)
        for name in names:
            if prefix("shapes", PRESETS[name]) and prefix("achievements.cards", PRESETS[name]):
                return name
        raise RulesError(f"{self.name}: no preset's shapes and achievement cards come first")  # pragma: no cover


# --- validation -----------------------------------------------------------------


def _check_shapes(data: dict) -> tuple[Shape, ...]:
    shapes = []
    if not data["shapes"]:
        raise RulesError("shapes: at least one shape is needed")
    for name, s in data["shapes"].items():
        p = f"shapes.{name}"
        extra = set(s) - {"cells", "star", "copies", "two_player_remove"}
        if extra:
            raise RulesError(f"{p}.{sorted(extra)[0]}: unknown key (valid: cells, copies, star, two_player_remove)")
        for k in ("cells", "star", "copies", "two_player_remove"):
            if k not in s:
                raise RulesError(f"{p}.{k}: missing")
        cells = s["cells"]
        if not isinstance(cells, list) or not all(
            isinstance(c, list) and len(c) == 2 and all(isinstance(x, int) and not isinstance(x, bool) for x in c)
            for c in cells
        ):
            raise RulesError(f"{p}.cells: expected a list of [row, col] pairs")
        cells_t = tuple((int(r), int(c)) for r, c in cells)
        if len(set(cells_t)) != len(cells_t) or any(not (0 <= x <= 4) for rc in cells_t for x in rc):
            raise RulesError(f"{p}.cells: cells must be distinct and within 0..4")
        star = _int(s["star"], f"{p}.star", -1, len(cells_t) - 1)
        n_plain = len(cells_t) - (1 if star >= 0 else 0)
        if n_plain != 4:
            raise RulesError(f"{p}.cells: a ruler takes a line of 4 tiles, so it needs 4 cells besides its star")
        copies = _int(s["copies"], f"{p}.copies", 0, 60)
        remove = _int(s["two_player_remove"], f"{p}.two_player_remove", 0, copies)
        shapes.append(Shape(name, cells_t, star, copies, remove))
    if len(shapes) > MAX_SHAPES:
        raise RulesError(f"shapes: at most {MAX_SHAPES} shapes")
    if not any(s.copies for s in shapes):
        raise RulesError("shapes: every shape has copies = 0, so the ruler decks hold no ruler to draw")
    return tuple(shapes)


def _check(data: dict) -> Rules:
    if not isinstance(data.get("name"), str):
        raise RulesError("name: expected a string")
    data = _with_later_keys(data)
    shapes = _check_shapes(data)
    g = data["game"]
    for n in ("1", "2", "3", "4"):
        if n not in g["rounds"]:
            raise RulesError(f"game.rounds.{n}: missing")
        if n not in g["compensation"]:
            raise RulesError(f"game.compensation.{n}: missing")
    for k in g["rounds"]:
        if k not in ("1", "2", "3", "4"):
            raise RulesError(f"game.rounds.{k}: unknown key (valid: 1, 2, 3, 4)")
        v = g["rounds"][k]
        if not (isinstance(v, list) and len(v) == 2):
            raise RulesError(f"game.rounds.{k}: expected [rounds, turns per player per round]")
        _int(v[0], f"game.rounds.{k}", 1, 8)
        _int(v[1], f"game.rounds.{k}", 1, 20)
        if int(k) * v[1] + (int(k) * v[1] if int(k) == 1 and g["solo_rival"] else 0) > N_SLOTS:
            raise RulesError(f"game.rounds.{k}: more turns per round than the 20 slots can hold")
    for k in g["compensation"]:
        if k not in ("1", "2", "3", "4"):
            raise RulesError(f"game.compensation.{k}: unknown key (valid: 1, 2, 3, 4)")
        v = g["compensation"][k]
        if not isinstance(v, list) or len(v) != int(k):
            raise RulesError(f"game.compensation.{k}: expected a list of {k} integers")
        for x in v:
            _int(x, f"game.compensation.{k}", -50, 50)
    _int(g["market_tiles_per_district"], "game.market_tiles_per_district", 4, 4)
    for x in g["swap_players"]:
        _int(x, "game.swap_players", 1, 4)
    _choice(g["two_player_tie"], "game.two_player_tie", TWO_PLAYER_TIES)
    sc = data["scoring"]
    if sc["residential"]["largest"] not in ("pairs", "tiles"):
        raise RulesError("scoring.residential.largest: expected 'pairs' or 'tiles'")
    for k in ("pair_points", "largest_tile_points", "second_tile_points"):
        _int(sc["residential"][k], f"scoring.residential.{k}", -100, 100)
    cm = sc["commercial"]
    if len(cm["tier_thresholds"]) != len(cm["tier_points"]) or not 1 <= len(cm["tier_thresholds"]) <= MAX_TIERS:
        raise RulesError(f"scoring.commercial.tier_points: needs one value per threshold (1 to {MAX_TIERS} tiers)")
    prev = 0
    for x in cm["tier_thresholds"]:
        _int(x, "scoring.commercial.tier_thresholds", prev + 1, 49)
        prev = x
    for x in cm["tier_points"]:
        _int(x, "scoring.commercial.tier_points", -200, 200)
    _int(cm["extra_from"], "scoring.commercial.extra_from", 0, 49)
    for k in ("extra_per_tile", "isolated_points"):
        _int(cm[k], f"scoring.commercial.{k}", -100, 100)
    pk = sc["park"]
    if not pk["adjacent_to"] or any(ch not in DISTRICTS for ch in pk["adjacent_to"].upper()):
        raise RulesError("scoring.park.adjacent_to: expected letters from R, C, P, I")
    for k in ("adjacent_points", "row_points", "column_points"):
        _int(pk[k], f"scoring.park.{k}", -100, 100)
    for k in ("ring_points", "pair_points"):
        _int(sc["industrial"][k], f"scoring.industrial.{k}", -100, 100)
    names = {s.name for s in shapes}
    for name, card in data["achievements"]["cards"].items():
        p = f"achievements.cards.{name}"
        if not isinstance(card, dict):
            raise RulesError(f"{p}: expected a table")
        kind = card.get("kind")
        if kind not in ACHIEVEMENT_KINDS:
            raise RulesError(f"{p}.kind: expected one of {', '.join(ACHIEVEMENT_KINDS)}, got {kind!r}")
        need = ACHIEVEMENT_KINDS[kind][0]
        allowed = {"kind", "points", "enabled", *need}
        for k in card:
            if k not in allowed:
                raise RulesError(f"{p}.{k}: unknown key for kind {kind} (valid: {', '.join(sorted(allowed))})")
        for k in ("points", *need):
            if k not in card:
                raise RulesError(f"{p}.{k}: missing")
        _int(card["points"], f"{p}.points", -100, 100)
        if "enabled" in card and not isinstance(card["enabled"], bool):
            raise RulesError(f"{p}.enabled: expected true or false")
        for k in ("threshold", "solo_threshold"):
            if k in card:
                _int(card[k], f"{p}.{k}", 0, 1000)
        if "district" in card:
            d = card["district"]
            ok = d in DISTRICTS or (kind == "full_line" and d == "any")
            if not ok:
                raise RulesError(f"{p}.district: expected one of R, C, P, I{', any' if kind == 'full_line' else ''}")
        if "shape" in card and card["shape"] not in names:
            raise RulesError(f"{p}.shape: unknown shape {card['shape']!r} (valid: {', '.join(sorted(names))})")
    if len([c for c in data["achievements"]["cards"].values()]) > MAX_ACHIEVEMENTS:
        raise RulesError(f"achievements.cards: at most {MAX_ACHIEVEMENTS} achievements")
    # Order matters (shapes are dealt in rule-set order), so keys are not sorted.
    return Rules(name=data["name"], data=data, canonical=canonical_json(_identity(data)), shapes=shapes)


# Keys added after rule sets were first stored, with the value every earlier rule set had: at that value a
# key is left out of the rule set's identity (its canonical JSON: equality, run files' names, results'
# metadata), so a rule set means the same thing before and after the key existed.
_LATER_KEYS = {("game", "two_player_tie"): "distinct_shapes"}


def _with_later_keys(data: dict) -> dict:
    """`data` with every later key it lacks at that earlier value (a rule set stored before the key existed)."""
    out = data
    for (section, key), default in _LATER_KEYS.items():
        if isinstance(out.get(section), dict) and key not in out[section]:
            out = {**out, section: {**out[section], key: default}}
    return out


def _identity(data: dict) -> dict:
    out = data
    for (section, key), default in _LATER_KEYS.items():
        if out[section].get(key) == default:
            out = {**out, section: {k: v for k, v in out[section].items() if k != key}}
    return out


BOOK = RuleBook("Citywright", PRESETS, DEFAULT_PRESET, _check, Rules, open_mappings=_OPEN_MAPPINGS)


def from_mapping(mapping: dict[str, Any], base: dict[str, Any] | str | None = None) -> Rules:
    """Validate a (partial) mapping on top of a base preset or mapping.

    Parameters
    ----------
    mapping : dict of str to object
        The keys to override (may name its base under ``"base"``).
    base : dict or str or None
        A preset name or a full mapping (None: the default preset).

    Returns
    -------
    Rules
        The validated rule set.
    """
    return BOOK.from_mapping(mapping, base)


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
    return BOOK.preset(name)


def load_rules(spec: str | Path | Rules | None = None) -> Rules:
    """A preset name (``v1.1``, ``v1.0``), a path to a TOML variant, or a Rules.

    Parameters
    ----------
    spec : str or pathlib.Path or Rules or None
        What to load (None: the default preset).

    Returns
    -------
    Rules
        The validated rule set (RulesError, one line, otherwise).
    """
    return BOOK.load(spec)
