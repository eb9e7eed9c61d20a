"""Cartographers' rule set: every fact of docs/games/cartographers.md as a named, documented parameter.

Design notes: docs/games/cartographers/engine.md#rules-module.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boardlab.sim.rulesets import RuleBook, RulesError, RuleSet, canonical_json, check_choice, dig
from boardlab.sim.rulesets import check_int as _int
from boardlab.sim.rulesets import check_str as _str

SIZE = 11
N_CELLS = SIZE * SIZE
MIN_PLAYERS = 1
MAX_PLAYERS = 5

# Cell states (docs/games/cartographers/engine.md "Indices"): the code is the index into
# STATES and into STATE_LETTERS, the letter used in 121-character grid strings.
STATES = ("empty", "forest", "village", "farm", "water", "monster", "mountain", "wasteland")
STATE_LETTERS = ".TVFWGMX"  # T = trees (forest), F = farm, G = monster ("goblin"), X = wasteland
EMPTY, FOREST, VILLAGE, FARM, WATER, MONSTER, MOUNTAIN, WASTELAND = range(8)
# The five terrains a player (or an ambush) can draw, in code order 1..5.
TERRAINS = STATES[FOREST : MONSTER + 1]

EDICT_LETTERS = "ABCD"
CORNERS = ("top-left", "top-right", "bottom-right", "bottom-left")
ARROWS = ("clockwise", "counter-clockwise")
MAX_SHAPE_CELLS = 6  # fixed-size engine arrays; the base game's largest shape has 5 cells
MAX_SHAPE_SIDE = 5
MAX_OPTIONS = 2  # shapes per explore card

_GREENGOLD_ALLOWED = ("forest", "farm", "water", "monster", "mountain", "wasteland")


def cell_index(r: int, c: int) -> int:
    """A cell's index, row-major.

    Parameters
    ----------
    r, c : int
        Row and column (0-based).

    Returns
    -------
    int
        ``11 * r + c``.
    """
    return SIZE * r + c


def cell_label(r: int, c: int) -> str:
    """The printed sheet's label: rows A-K from the top, columns 1-11 from the left; (1, 3) -> "B4".

    Parameters
    ----------
    r, c : int
        Row and column (0-based).

    Returns
    -------
    str
        The label.
    """
    return f"{'ABCDEFGHIJK'[r]}{c + 1}"


def parse_label(label: str) -> tuple[int, int]:
    """ "B4" -> (1, 3).

    Parameters
    ----------
    label : str
        A sheet label such as "B4".

    Returns
    -------
    tuple of int
        (row, col), 0-based.
    """
    return "ABCDEFGHIJK".index(label[0].upper()), int(label[1:]) - 1


def parse_shape(text: str) -> tuple[tuple[int, int], ...]:
    """A shape written as rows joined by "/" ("#../.#./..#") -> its cells (r, c), row-major.

    The cell order is the shape's cell order everywhere (moves list a placement's cells in it).

    Parameters
    ----------
    text : str
        The shape's rows joined by "/", "#" for a cell.

    Returns
    -------
    tuple of tuple of int
        The cells (r, c).
    """
    rows = text.split("/")
    return tuple((r, c) for r, row in enumerate(rows) for c, ch in enumerate(row) if ch == "#")


_MAP_A = {
    "mountains": [[1, 3], [2, 8], [5, 5], [8, 2], [9, 7]],
    "ruins": [[1, 5], [2, 1], [2, 9], [8, 1], [8, 9], [9, 5]],
    "wasteland": [],
}
_MAP_B = {
    "mountains": [[1, 8], [2, 3], [7, 5], [8, 9], [9, 2]],
    "ruins": [[1, 6], [2, 2], [4, 6], [6, 1], [7, 8], [9, 3]],
    "wasteland": [[3, 5], [4, 4], [4, 5], [5, 4], [5, 5], [5, 6], [6, 5]],
}


def _explore(name: str, time: int, terrains: list[str], *shapes: tuple[str, bool]) -> dict:
    return {
        "name": name,
        "time": time,
        "terrains": terrains,
        "shapes": [{"shape": s, "coin": coin} for s, coin in shapes],
    }


_BASE_A: dict[str, Any] = {
    "name": "base-a",
    "setup": {
        # Map side every player uses (docs/games/cartographers.md 1.2, 1.3).
        "side": "A",
        # The four scoring-card categories, in the order their cards are drawn at setup.
        "categories": ["forest", "farm_water", "village", "placement"],
        # [interpretation] §7.6: the rulebook does not say how the four drawn scoring cards are
        # ordered under edicts A-D.  "random": a uniformly random permutation (reviews, [HJ], [GS]);
        # "category": A = forest, B = farm/water, C = village, D = placement (the draw order above).
        "edict_order": "random",
        # Fixed edicts A-D by card number (e.g. [26, 30, 34, 38]) for studies of one card set;
        # [] = drawn at setup.  Not a rulebook option: a tool for calibration runs.
        "edicts": [],
    },
    # Cells are [row, col], row 0 at the top (docs/games/cartographers.md 0, 1.2, 1.3).
    "maps": {"A": _MAP_A, "B": _MAP_B},
    # Seasons in play order: time threshold and the two edicts scored (docs/games/cartographers.md 1.4).
    "seasons": {
        "spring": {"name": "Spring", "threshold": 8, "edicts": ["A", "B"]},
        "summer": {"name": "Summer", "threshold": 8, "edicts": ["B", "C"]},
        "fall": {"name": "Fall", "threshold": 7, "edicts": ["C", "D"]},
        "winter": {"name": "Winter", "threshold": 6, "edicts": ["D", "A"]},
    },
    "coins": {
        # [interpretation] §7.2: the sheet has 14 coin symbols and the rules never mention
        # overflow, so coins beyond 14 are lost.  Any cap >= 1 may be set (99 = no cap in practice).
        "cap": 14,
        # [interpretation] §7.3: a mountain whose last empty neighbour is filled by someone else's
        # monster (or a solo ambush) pays its coin to the map's owner, because the coin track is on
        # the map ([HJ], bradymadden97/cartographers-game).  false: the coin goes to whoever drew the
        # completing cells (the receiving neighbour; nobody for a solo ambush); the mountain is spent
        # either way (once per mountain per game).
        "mountain_to_owner": True,
    },
    "draw": {
        # [interpretation] §7.1: terrain of the 1x1 drawn when no shape can be placed (or no shape can
        # cover a ruins space).  "any": one of `fallback_terrains` in both cases, as the seed says (the
        # two cases become uniform).  "card": the rulebook read literally -- one of the revealed card's
        # terrains ("the chosen terrain type", draw-phase text), except while a ruins card is pending,
        # when its ruins text's "any terrain type" applies (`fallback_terrains`).
        "fallback_from": "any",
        # The terrains "any" offers, in listing order (docs/games/cartographers.md 5.2.4: every non-mountain terrain).
        "fallback_terrains": ["forest", "village", "farm", "water", "monster"],
        # [interpretation] §7.12: with no empty cell left on a map a draw or monster placement is
        # skipped (the rules do not address a full map).  "skip" is the only value.
        "full_map": "skip",
    },
    "ambush": {
        # [interpretation] §7.5: seats are numbered clockwise; an ambush arrow drawn clockwise passes each
        # map to the "next" seat (seat + 1), counter-clockwise to the previous one.  "previous" reverses
        # both (as if seats were numbered counter-clockwise).  At two players both reach the opponent.
        "pass_clockwise_to": "next",
    },
    "scoring": {
        # Each empty cell next to a monster costs 1 at every season end (docs/games/cartographers.md 5.5).
        "monster_penalty": True,
        # [interpretation] §7.13: an empty ruins cell is an empty cell ("only filled ruins spaces count
        # as filled" [RB]), so it counts toward the monster penalty.  false: empty ruins never count.
        "penalty_counts_empty_ruins": True,
        # [interpretation] §7.11: Sentinel Wood scores a forest cell on a map corner once (card
        # example [IMG]).  false: once per map edge it touches (twice at a corner).
        "sentinel_wood": {"corner_once": True},
        # [interpretation] §7.10: Stoneside Forest, "connected by a cluster of forest".  "cluster": a
        # mountain scores when one forest cluster touches it and at least one other mountain ([HJ],
        # [DE], [PR]); "any": every mountain touching any forest scores ([GS]).
        "stoneside_forest": {"link": "cluster"},
        # [interpretation] §7.9: The Golden Granary.  `water_points` per water cell next to a ruins
        # space: 1 ([RB], [IMG], [DE], [HJ], [GS]; [DB]'s 2 is contradicted by all of them).
        # `filled_ruins_count`: a ruins space stays one after something is drawn on it (the card's
        # example scores water next to a farmed ruins); false: only empty ruins cells attract water.
        "golden_granary": {"water_points": 1, "filled_ruins_count": True},
        # [interpretation] §7.8: Greengold Plains counts exactly the five types on the card's icon
        # [IMG] ([GS]); [HJ] also counts wasteland (add "wasteland" here for that reading).
        "greengold_plains": {"types": ["forest", "farm", "water", "monster", "mountain"]},
        # [interpretation] §7.7: Shieldgate's "second-largest" cluster.  "entry": the second entry of
        # the sizes sorted descending, so two equal largest clusters score that size ([BR]'s quoted
        # clarification, [HJ], [GS]); "distinct": the second-largest distinct size (0 if none).
        "shieldgate": {"second": "entry"},
    },
    "solo": {
        # [interpretation] §7.4: the solo ambush sweep.  "ring": the full ring walk of
        # docs/games/cartographers.md 6.1 (all four sides of each ring, rings outer to inner: "anywhere along the
        # edge" means the whole perimeter, and it orders every placement).  "side": only the first
        # side of each ring, from the card's corner in the arrow's direction to the next corner (the
        # one-side-per-layer reading of [SC], with the printed arrows).
        "walk": "ring",
        # Title table: the title of the highest `rating` that the solo rating meets (docs/games/cartographers.md 6.2).
        "titles": [
            {"rating": 30, "title": "Legendary Cartographer"},
            {"rating": 20, "title": "Master Mapsmith"},
            {"rating": 10, "title": "Journeyman Topographer"},
            {"rating": 0, "title": "Apprentice Surveyor"},
            {"rating": -5, "title": "Amateur Assessor"},
            {"rating": -10, "title": "Inept Assistant"},
            {"rating": -20, "title": "Dimwitted Doodler"},
            {"rating": -30, "title": "Oblivious Inkdrinker"},
        ],
        # [interpretation] §7.14: a rating below the lowest row has no title ("none"; no row applies).
        # "lowest": it gets the lowest row's title.
        "below_titles": "none",
    },
    # Ties on the final score: the tied player with the smaller total monster penalty wins; still
    # tied, the victory is shared (docs/games/cartographers.md 5.7).  false: ties are shared at once.
    "ties": {"monster_penalty": True},
    "cards": {
        "ruins": {"05": {"name": "Temple Ruins"}, "06": {"name": "Outpost Ruins"}},
        # Explore cards 07-17 (docs/games/cartographers.md 2): time, terrains in listing order, shape options in
        # card order, each in printed orientation with its coin flag.
        "explore": {
            "07": _explore("Great River", 1, ["water"], ("#/#/#", True), ("..#/.##/##.", False)),
            "08": _explore("Farmland", 1, ["farm"], ("#/#", True), (".#./###/.#.", False)),
            "09": _explore("Hamlet", 1, ["village"], ("#./##", True), ("###/##.", False)),
            "10": _explore("Forgotten Forest", 1, ["forest"], ("#./.#", True), ("#./##/.#", False)),
            "11": _explore("Hinterland Stream", 2, ["farm", "water"], ("###/#../#..", False)),
            "12": _explore("Homestead", 2, ["village", "farm"], ("#./##/#.", False)),
            "13": _explore("Orchard", 2, ["forest", "farm"], ("###/..#", False)),
            "14": _explore("Treetop Village", 2, ["forest", "village"], ("..##/###.", False)),
            "15": _explore("Marshlands", 2, ["forest", "water"], ("#../###/#..", False)),
            "16": _explore("Fishing Village", 2, ["village", "water"], ("####", False)),
            "17": _explore("Rift Lands", 0, ["forest", "village", "farm", "water", "monster"], ("#", False)),
        },
        # Ambush cards 01-04 (docs/games/cartographers.md 3): monster shape in printed orientation (binding in
        # solo), the solo start corner, the arrow (pass direction in multiplayer, walk direction solo).
        "ambush": {
            "01": {
                "name": "Goblin Attack",
                "shape": "#../.#./..#",
                "corner": "bottom-right",
                "arrow": "counter-clockwise",
            },
            "02": {"name": "Bugbear Assault", "shape": "#.#/#.#", "corner": "top-right", "arrow": "clockwise"},
            "03": {"name": "Kobold Onslaught", "shape": "#./##/#.", "corner": "bottom-left", "arrow": "clockwise"},
            "04": {"name": "Gnoll Raid", "shape": "##/#./##", "corner": "top-left", "arrow": "counter-clockwise"},
        },
        # Scoring cards 26-41 (docs/games/cartographers.md 4): category and the solo number in the card's corner.
        "scoring": {
            "26": {"name": "Sentinel Wood", "category": "forest", "solo": 25},
            "27": {"name": "Greenbough", "category": "forest", "solo": 22},
            "28": {"name": "Treetower", "category": "forest", "solo": 17},
            "29": {"name": "Stoneside Forest", "category": "forest", "solo": 18},
            "30": {"name": "Canal Lake", "category": "farm_water", "solo": 24},
            "31": {"name": "Mages Valley", "category": "farm_water", "solo": 22},
            "32": {"name": "The Golden Granary", "category": "farm_water", "solo": 20},
            "33": {"name": "Shoreside Expanse", "category": "farm_water", "solo": 27},
            "34": {"name": "Wildholds", "category": "village", "solo": 16},
            "35": {"name": "Great City", "category": "village", "solo": 16},
            "36": {"name": "Greengold Plains", "category": "village", "solo": 21},
            "37": {"name": "Shieldgate", "category": "village", "solo": 20},
            "38": {"name": "Borderlands", "category": "placement", "solo": 24},
            "39": {"name": "Lost Barony", "category": "placement", "solo": 24},
            "40": {"name": "The Broken Road", "category": "placement", "solo": 24},
            "41": {"name": "The Cauldrons", "category": "placement", "solo": 20},
        },
    },
}

_BASE_B = copy.deepcopy(_BASE_A)
_BASE_B["name"] = "base-b"
_BASE_B["setup"]["side"] = "B"

PRESETS: dict[str, dict[str, Any]] = {"base-a": _BASE_A, "base-b": _BASE_B}
DEFAULT_PRESET = "base-a"

# Allowed values of the string parameters (the first is the preset's).
CHOICES = {
    "setup.side": ("A", "B"),
    "setup.edict_order": ("random", "category"),
    "draw.fallback_from": ("any", "card"),
    "draw.full_map": ("skip",),
    "ambush.pass_clockwise_to": ("next", "previous"),
    "scoring.stoneside_forest.link": ("cluster", "any"),
    "scoring.shieldgate.second": ("entry", "distinct"),
    "solo.walk": ("ring", "side"),
    "solo.below_titles": ("none", "lowest"),
}


# --- the validated views ------------------------------------------------------------------------


@dataclass(frozen=True)
class MapSide:
    """One side of the map sheet; cells as indices 11r + c, ascending."""

    side: str
    mountains: tuple[int, ...]
    ruins: tuple[int, ...]
    wasteland: tuple[int, ...]

    def initial_grid(self) -> list[int]:
        """The 121 cell states before anything is drawn.

        Returns
        -------
        list of int
            121 state codes.
        """
        grid = [EMPTY] * N_CELLS
        for i in self.mountains:
            grid[i] = MOUNTAIN
        for i in self.wasteland:
            grid[i] = WASTELAND
        return grid


@dataclass(frozen=True)
class ShapeOption:
    """One shape a card offers: its cells (printed orientation, row-major) and whether it earns a coin."""

    cells: tuple[tuple[int, int], ...]  # printed orientation, row-major
    coin: bool


@dataclass(frozen=True)
class ExploreCard:
    """An explore card: id, name, time, the terrains it offers and its shape options."""

    id: int
    name: str
    time: int
    terrains: tuple[str, ...]
    options: tuple[ShapeOption, ...]


@dataclass(frozen=True)
class AmbushCard:
    """An ambush card: id, name, the monster's cells, and the corner and arrow of its solo walk."""

    id: int
    name: str
    cells: tuple[tuple[int, int], ...]
    corner: str
    arrow: str


@dataclass(frozen=True)
class ScoringCard:
    """A scoring card: id, name, category and its printed solo number."""

    id: int
    name: str
    category: str
    solo: int


@dataclass(frozen=True)
class Season:
    """A season: key, name, time threshold and the two edicts (indices, A = 0) it scores."""

    key: str
    name: str
    threshold: int
    edicts: tuple[int, int]  # edict indices, A = 0


@dataclass(frozen=True, eq=False)
class Rules(RuleSet):
    """A validated, immutable rule set (boardlab.sim.rulesets.RuleSet: ``name``, ``data``, the full nested
    mapping, and its ``canonical`` JSON) with Cartographers' views of it."""

    # --- views (built from data on each call; cheap, and nothing mutable is shared) ---
    @property
    def side(self) -> str:
        """The map side played (``setup.side``)."""
        return self.data["setup"]["side"]

    def map_side(self, side: str | None = None) -> MapSide:
        """A map side's fixed cells.

        Parameters
        ----------
        side : str or None
            ``"A"`` or ``"B"`` (None: the rules' own side).

        Returns
        -------
        MapSide
            Its mountains, ruins and wasteland cells.
        """
        side = self.side if side is None else side
        m = self.data["maps"][side]

        def cells(key: str) -> tuple[int, ...]:
            return tuple(sorted(cell_index(r, c) for r, c in m[key]))

        return MapSide(side, cells("mountains"), cells("ruins"), cells("wasteland"))

    @property
    def map(self) -> MapSide:
        """The side played's fixed cells (:meth:`map_side`)."""
        return self.map_side()

    @property
    def ruins_cards(self) -> tuple[int, ...]:
        """The ruins cards' ids, ascending."""
        return tuple(sorted(int(k) for k in self.data["cards"]["ruins"]))

    @property
    def explore_cards(self) -> tuple[ExploreCard, ...]:
        """Cards 07-17 in id order."""
        out = []
        for k, v in sorted(self.data["cards"]["explore"].items(), key=lambda kv: int(kv[0])):
            options = tuple(ShapeOption(parse_shape(s["shape"]), bool(s["coin"])) for s in v["shapes"])
            out.append(ExploreCard(int(k), v["name"], int(v["time"]), tuple(v["terrains"]), options))
        return tuple(out)

    @property
    def ambush_cards(self) -> tuple[AmbushCard, ...]:
        """The ambush cards in id order."""
        return tuple(
            AmbushCard(int(k), v["name"], parse_shape(v["shape"]), v["corner"], v["arrow"])
            for k, v in sorted(self.data["cards"]["ambush"].items(), key=lambda kv: int(kv[0]))
        )

    @property
    def scoring_cards(self) -> tuple[ScoringCard, ...]:
        """The scoring cards in id order."""
        return tuple(
            ScoringCard(int(k), v["name"], v["category"], int(v["solo"]))
            for k, v in sorted(self.data["cards"]["scoring"].items(), key=lambda kv: int(kv[0]))
        )

    @property
    def categories(self) -> tuple[str, ...]:
        """The scoring categories, in the setup's order."""
        return tuple(self.data["setup"]["categories"])

    @property
    def seasons(self) -> tuple[Season, ...]:
        """The four seasons, in order."""
        return tuple(
            Season(k, v["name"], int(v["threshold"]), tuple(EDICT_LETTERS.index(e) for e in v["edicts"]))
            for k, v in self.data["seasons"].items()
        )

    @property
    def titles(self) -> tuple[tuple[int, str], ...]:
        """The solo title table: (rating at least, title) rows, in order."""
        return tuple((int(t["rating"]), t["title"]) for t in self.data["solo"]["titles"])

    @property
    def setup(self) -> dict:
        """The ``setup`` table."""
        return self.data["setup"]

    @property
    def coins(self) -> dict:
        """The ``coins`` table."""
        return self.data["coins"]

    @property
    def draw(self) -> dict:
        """The ``draw`` table."""
        return self.data["draw"]

    @property
    def ambush(self) -> dict:
        """The ``ambush`` table."""
        return self.data["ambush"]

    @property
    def scoring(self) -> dict:
        """The ``scoring`` table."""
        return self.data["scoring"]

    @property
    def solo(self) -> dict:
        """The ``solo`` table."""
        return self.data["solo"]

    @property
    def ties(self) -> dict:
        """The ``ties`` table."""
        return self.data["ties"]

    def card_name(self, card_id: int) -> str:
        """The name of any card by id.

        Parameters
        ----------
        card_id : int
            A card's id.

        Returns
        -------
        str
            Its name (KeyError when no card has the id).
        """
        key = f"{card_id:02d}"
        for group in self.data["cards"].values():
            if key in group:
                return group[key]["name"]
        raise KeyError(card_id)


# --- validation -------------------------------------------------------------------------------


def _choice(data: dict, dotted: str) -> None:
    check_choice(dig(data, dotted), dotted, CHOICES[dotted])


def _names(v: Any, path: str, allowed: tuple[str, ...]) -> list[str]:
    """A non-empty list of distinct names from `allowed`."""
    if not isinstance(v, list) or not v:
        raise RulesError(f"{path}: expected a non-empty list of names from {', '.join(allowed)}")
    for x in v:
        if x not in allowed:
            raise RulesError(f"{path}: {x!r} is not one of {', '.join(allowed)}")
    if len(set(v)) != len(v):
        raise RulesError(f"{path}: names must be distinct")
    return v


def _shape(v: Any, path: str) -> tuple[tuple[int, int], ...]:
    if not isinstance(v, str) or set(v) - set("#./") or not v:
        raise RulesError(f"{path}: expected rows of '#' and '.' joined by '/', got {v!r}")
    rows = v.split("/")
    if len({len(r) for r in rows}) != 1:
        raise RulesError(f"{path}: rows must have equal lengths, got {v!r}")
    cells = parse_shape(v)
    if not 1 <= len(cells) <= MAX_SHAPE_CELLS:
        raise RulesError(f"{path}: a shape has 1 to {MAX_SHAPE_CELLS} cells, got {len(cells)}")
    h, w = len(rows), len(rows[0])
    if h > MAX_SHAPE_SIDE or w > MAX_SHAPE_SIDE:
        raise RulesError(f"{path}: a shape fits in {MAX_SHAPE_SIDE}x{MAX_SHAPE_SIDE}, got {h}x{w}")
    rows_used, cols_used = {r for r, _ in cells}, {c for _, c in cells}
    if not {0, h - 1} <= rows_used or not {0, w - 1} <= cols_used:
        raise RulesError(f"{path}: every row and column of the drawing needs a '#' (no blank border), got {v!r}")
    return cells


def _cells(v: Any, path: str) -> list[tuple[int, int]]:
    ok = isinstance(v, list) and all(
        isinstance(p, list) and len(p) == 2 and all(isinstance(x, int) and not isinstance(x, bool) for x in p)
        for p in v
    )
    if not ok:
        raise RulesError(f"{path}: expected a list of [row, col] pairs")
    out = [(r, c) for r, c in v]
    for r, c in out:
        if not (0 <= r < SIZE and 0 <= c < SIZE):
            raise RulesError(f"{path}: cell [{r}, {c}] is off the 11x11 map")
    if len(set(out)) != len(out):
        raise RulesError(f"{path}: cells must be distinct")
    return out


def _check_map(m: dict, side: str) -> None:
    p = f"maps.{side}"
    mountains = _cells(m["mountains"], f"{p}.mountains")
    ruins = _cells(m["ruins"], f"{p}.ruins")
    waste = _cells(m["wasteland"], f"{p}.wasteland")
    for name, cells in (("ruins", ruins), ("wasteland", waste)):
        clash = set(cells) & set(mountains)
        if clash:
            r, c = sorted(clash)[0]
            raise RulesError(f"{p}.{name}: cell [{r}, {c}] is also a mountain")
    clash = set(ruins) & set(waste)
    if clash:
        r, c = sorted(clash)[0]
        raise RulesError(f"{p}.ruins: cell [{r}, {c}] is also wasteland")
    blocked = set(mountains) | set(waste)
    for r, c in mountains:
        # Mountain coins need four on-map neighbours, and a coin earned before anything is drawn
        # would have no move to belong to: both presets satisfy these, so variants must too.
        if r in (0, SIZE - 1) or c in (0, SIZE - 1):
            raise RulesError(f"{p}.mountains: mountain [{r}, {c}] is on the map edge (not supported)")
        if all(n in blocked for n in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))):
            raise RulesError(f"{p}.mountains: mountain [{r}, {c}] is surrounded before play starts")


def _check(data: dict) -> Rules:
    if not isinstance(data.get("name"), str) or not data["name"]:
        raise RulesError("name: expected a non-empty string")
    s = data["setup"]
    for key in CHOICES:
        _choice(data, key)
    categories = _names(s["categories"], "setup.categories", tuple(s["categories"]) if s["categories"] else ("?",))
    if len(categories) != 4:
        raise RulesError(f"setup.categories: expected 4 categories (one per edict A-D), got {len(categories)}")
    for side, m in data["maps"].items():
        _check_map(m, side)

    cards = data["cards"]
    for k, v in cards["ruins"].items():
        _str(v["name"], f"cards.ruins.{k}.name")
    total_time = 0
    for k, v in cards["explore"].items():
        p = f"cards.explore.{k}"
        _str(v["name"], f"{p}.name")
        total_time += _int(v["time"], f"{p}.time", 0, 8)
        _names(v["terrains"], f"{p}.terrains", TERRAINS)
        shapes = v["shapes"]
        if not isinstance(shapes, list) or not 1 <= len(shapes) <= MAX_OPTIONS:
            raise RulesError(f"{p}.shapes: expected a list of 1 to {MAX_OPTIONS} shapes")
        for i, sh in enumerate(shapes):
            if not isinstance(sh, dict) or set(sh) != {"shape", "coin"}:
                raise RulesError(f"{p}.shapes: entry {i} must be a table with exactly the keys shape and coin")
            _shape(sh["shape"], f"{p}.shapes")
            if not isinstance(sh["coin"], bool):
                raise RulesError(f"{p}.shapes: entry {i}'s coin must be true or false")
    for k, v in cards["ambush"].items():
        p = f"cards.ambush.{k}"
        _str(v["name"], f"{p}.name")
        _shape(v["shape"], f"{p}.shape")
        if v["corner"] not in CORNERS:
            raise RulesError(f"{p}.corner: expected one of {', '.join(CORNERS)}, got {v['corner']!r}")
        if v["arrow"] not in ARROWS:
            raise RulesError(f"{p}.arrow: expected one of {', '.join(ARROWS)}, got {v['arrow']!r}")
    for k, v in cards["scoring"].items():
        p = f"cards.scoring.{k}"
        _str(v["name"], f"{p}.name")
        if v["category"] not in categories:
            raise RulesError(f"{p}.category: expected one of {', '.join(categories)}, got {v['category']!r}")
        _int(v["solo"], f"{p}.solo", -100, 100)
    ids = {int(k) for k in cards["scoring"]}
    edicts = s["edicts"]
    if edicts:
        if len(edicts) != 4 or len(set(edicts)) != 4:
            raise RulesError("setup.edicts: expected [] or 4 distinct scoring card numbers (edicts A-D)")
        for e in edicts:
            _int(e, "setup.edicts")
            if e not in ids:
                raise RulesError(f"setup.edicts: {e} is not a scoring card (valid: {min(ids)}-{max(ids)})")
    else:
        for cat in categories:
            if not any(v["category"] == cat for v in cards["scoring"].values()):
                raise RulesError(f"setup.categories: category {cat!r} has no scoring card to draw")

    if total_time == 0:
        raise RulesError("cards.explore: every explore card has time 0, so no season could end")
    for k, v in data["seasons"].items():
        p = f"seasons.{k}"
        _str(v["name"], f"{p}.name")
        # A season ends on a card with time > 0 before the explore deck (every explore card) runs out.
        _int(v["threshold"], f"{p}.threshold", 1, total_time)
        e = v["edicts"]
        if not (isinstance(e, list) and len(e) == 2 and all(x in tuple(EDICT_LETTERS) for x in e) and e[0] != e[1]):
            raise RulesError(f"{p}.edicts: expected two different letters from A, B, C, D, got {e!r}")

    _int(data["coins"]["cap"], "coins.cap", 1, 999)
    _names(data["draw"]["fallback_terrains"], "draw.fallback_terrains", TERRAINS)
    _names(data["scoring"]["greengold_plains"]["types"], "scoring.greengold_plains.types", _GREENGOLD_ALLOWED)
    _int(data["scoring"]["golden_granary"]["water_points"], "scoring.golden_granary.water_points", -10, 10)

    titles = data["solo"]["titles"]
    if not isinstance(titles, list) or not titles:
        raise RulesError("solo.titles: expected a non-empty list of {rating, title} tables")
    prev = None
    for t in titles:
        if not isinstance(t, dict) or set(t) != {"rating", "title"}:
            raise RulesError("solo.titles: every entry is a table with exactly the keys rating and title")
        _int(t["rating"], "solo.titles", -1000, 1000)
        _str(t["title"], "solo.titles")
        if prev is not None and t["rating"] >= prev:
            raise RulesError("solo.titles: ratings must be strictly decreasing")
        prev = t["rating"]

    return Rules(name=data["name"], data=data, canonical=canonical_json(data))


BOOK = RuleBook("Cartographers", PRESETS, DEFAULT_PRESET, _check, Rules)


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
    """A preset name (``base-a``, ``base-b``), a path to a TOML variant, or a Rules.

    Parameters
    ----------
    spec : str or pathlib.Path or Rules or None
        What to load (None: the default preset).

    Returns
    -------
    Rules
        The validated rule set.
    """
    return BOOK.load(spec)
