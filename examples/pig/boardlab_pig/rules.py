"""Pig's rules as data: every number of the game a named parameter, two presets, TOML variants.

The game: on your turn you roll a die as often as you like, adding each roll to your turn total;
you must roll at least once.  Roll a bust face (a 1) and the turn total is lost and your turn ends;
hold, and the turn total is banked.  The first to bank ``target`` points wins -- or, with
``end = "round"``, the round is played out so that every seat has had as many turns, and the highest
score wins (ties share the win).  After ``max_rounds`` rounds the game ends and the highest score wins.
Seat i starts with ``start_points[i]`` points (a handicap or a compensation for the seat order).

A variant is a TOML file naming its base preset::

    base = "standard"
    [game]
    end = "round"
    start_points = [0, 2, 4, 6, 8, 10]
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boardlab.sim.rulesets import RuleBook, RulesError, RuleSet, canonical_json, check_choice, check_int

MAX_PLAYERS = 6
ENDS = ("immediate", "round")

_STANDARD = {
    "name": "standard",
    "game": {
        "target": 100,  # points that end the game
        "die_faces": 6,
        "bust_faces": [1],  # a roll of one of these loses the turn total
        "end": "immediate",  # the first to the target wins at once; "round": the round is played out
        "max_rounds": 200,  # a cap, so that a game of cautious agents ends
        "start_points": [0, 0, 0, 0, 0, 0],  # per seat
    },
}
_QUICK = {"name": "quick", "game": {**_STANDARD["game"], "target": 50, "max_rounds": 100}}

PRESETS: dict[str, dict[str, Any]] = {"standard": _STANDARD, "quick": _QUICK}
DEFAULT_PRESET = "standard"


@dataclass(frozen=True, eq=False)
class Rules(RuleSet):
    """A validated rule set (boardlab.sim.rulesets.RuleSet) with Pig's views of it."""

    @property
    def target(self) -> int:
        return self.data["game"]["target"]

    @property
    def die_faces(self) -> int:
        return self.data["game"]["die_faces"]

    @property
    def bust_faces(self) -> tuple[int, ...]:
        return tuple(self.data["game"]["bust_faces"])

    @property
    def end(self) -> str:
        return self.data["game"]["end"]

    @property
    def max_rounds(self) -> int:
        return self.data["game"]["max_rounds"]

    def start_points(self, players: int) -> tuple[int, ...]:
        return tuple(self.data["game"]["start_points"][:players])


def _check(data: dict) -> Rules:
    if not isinstance(data.get("name"), str) or not data["name"]:
        raise RulesError("name: expected a non-empty string")
    g = data["game"]
    check_int(g["target"], "game.target", 1, 100_000)
    faces = check_int(g["die_faces"], "game.die_faces", 2, 100)
    busts = g["bust_faces"]
    for x in busts:
        check_int(x, "game.bust_faces", 1, faces)
    if len(set(busts)) != len(busts) or len(busts) >= faces:
        raise RulesError("game.bust_faces: distinct faces of the die, and not all of them")
    check_choice(g["end"], "game.end", ENDS)
    check_int(g["max_rounds"], "game.max_rounds", 1, 100_000)
    points = g["start_points"]
    if len(points) != MAX_PLAYERS:
        raise RulesError(f"game.start_points: expected {MAX_PLAYERS} integers (one per seat)")
    for x in points:
        check_int(x, "game.start_points", -100_000, 100_000)
    return Rules(name=data["name"], data=data, canonical=canonical_json(data))


BOOK = RuleBook("Pig", PRESETS, DEFAULT_PRESET, _check, Rules)


def from_mapping(mapping: dict[str, Any], base: dict[str, Any] | str | None = None) -> Rules:
    return BOOK.from_mapping(mapping, base)


def load_rules(spec: str | Path | Rules | None = None) -> Rules:
    """A preset name (``standard``, ``quick``), a path to a TOML variant, or a Rules."""
    return BOOK.load(spec)
