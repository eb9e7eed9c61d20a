"""Hearts-lite's rules as data: every number of the game a named parameter, two presets, TOML variants.

The game (docs/games/heartslite.md): 3 or 4 players; a 52-card deck (with 3 players the lowest diamond is left
out, so that the hands are equal) is dealt out.  The holder of the two of clubs leads it to the first trick;
each player in turn plays a card, following the suit led if they can; the highest card of the suit led wins
the trick and its winner leads the next.  Every heart taken costs ``heart_points``, the queen of spades
``queen_points``.  Hearts may not be led until a heart has been played (``hearts_must_break``) unless the
leader holds nothing else; on the first trick no point card may be played by a player who holds another
(``first_trick_no_points``).  A player who takes every point card of a deal "shoots the moon"
(``shoot_the_moon``): they score nothing and every other player the deal's points.  Deals go on until a
player's score reaches ``target`` or after ``max_deals`` (preset ``one-deal``, the default: one deal; ``full``:
up to 20 deals, to 100 points); the LOWEST score wins.

A variant is a TOML file naming its base preset::

    base = "full"
    [game]
    shoot_the_moon = false
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boardlab.sim.rulesets import RuleBook, RulesError, RuleSet, canonical_json, check_int

MIN_PLAYERS, MAX_PLAYERS = 3, 4

_ONE_DEAL = {
    "name": "one-deal",
    "game": {
        "target": 100,  # a score that ends the game (at the end of its deal)
        "max_deals": 1,  # a cap on the deals of one game
        "heart_points": 1,  # per heart taken
        "queen_points": 13,  # for the queen of spades
        "shoot_the_moon": True,  # every point card taken by one player: the others score them instead
        "hearts_must_break": True,  # no heart led before one was played (unless the leader holds only hearts)
        "first_trick_no_points": True,  # no point card on the first trick (unless a player holds only those)
    },
}
# deals until a score reaches the target: about eight times as long (a searching agent's rollouts too)
_FULL = {"name": "full", "game": {**_ONE_DEAL["game"], "max_deals": 20}}

PRESETS: dict[str, dict[str, Any]] = {"one-deal": _ONE_DEAL, "full": _FULL}
DEFAULT_PRESET = "one-deal"
_FLAGS = ("shoot_the_moon", "hearts_must_break", "first_trick_no_points")


@dataclass(frozen=True, eq=False)
class Rules(RuleSet):
    """A validated rule set (boardlab.sim.rulesets.RuleSet) with Hearts-lite's views of it."""

    @property
    def target(self) -> int:
        return self.data["game"]["target"]

    @property
    def max_deals(self) -> int:
        return self.data["game"]["max_deals"]

    @property
    def heart_points(self) -> int:
        return self.data["game"]["heart_points"]

    @property
    def queen_points(self) -> int:
        return self.data["game"]["queen_points"]

    @property
    def shoot_the_moon(self) -> bool:
        return self.data["game"]["shoot_the_moon"]

    @property
    def hearts_must_break(self) -> bool:
        return self.data["game"]["hearts_must_break"]

    @property
    def first_trick_no_points(self) -> bool:
        return self.data["game"]["first_trick_no_points"]


def _check(data: dict) -> Rules:
    if not isinstance(data.get("name"), str) or not data["name"]:
        raise RulesError("name: expected a non-empty string")
    g = data["game"]
    check_int(g["target"], "game.target", 1, 100_000)
    check_int(g["max_deals"], "game.max_deals", 1, 10_000)
    check_int(g["heart_points"], "game.heart_points", 0, 1_000)
    check_int(g["queen_points"], "game.queen_points", 0, 1_000)
    for key in _FLAGS:
        if not isinstance(g[key], bool):
            raise RulesError(f"game.{key}: expected true or false, got {g[key]!r}")
    return Rules(name=data["name"], data=data, canonical=canonical_json(data))


BOOK = RuleBook("Hearts-lite", PRESETS, DEFAULT_PRESET, _check, Rules)


def from_mapping(mapping: dict[str, Any], base: dict[str, Any] | str | None = None) -> Rules:
    return BOOK.from_mapping(mapping, base)


def load_rules(spec: str | Path | Rules | None = None) -> Rules:
    """A preset name (``one-deal``, ``full``), a path to a TOML variant, or a Rules."""
    return BOOK.load(spec)
