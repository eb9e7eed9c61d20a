"""A Cartographers move a person can read, shared by the engine's API and the reference.

docs/games/cartographers/engine.md ("Moves") gives every field's exact value for each kind, so
moves listed by two implementations compare equal field by field.
"""

from __future__ import annotations

from dataclasses import dataclass

Cell = tuple[int, int]

KINDS = ("draw", "fallback", "monster", "skip")


@dataclass(frozen=True)
class Move:
    """One decision: a seat's draw on a shape card, or its monster on a neighbour's map.

    kind : "draw" | "fallback" | "monster" | "skip"
    map : the seat whose map is drawn on (the mover's own map, except for an ambush's
        monster, which goes on the map passed to the mover)
    card : the card being resolved (explore card 07-17, or ambush 01-04)
    option : the card's shape index (draw: 0 or 1 in card order; monster: 0; else -1)
    orientation : transform index 0..7 (draw, monster; else -1)
    anchor : (row, col) added to the oriented shape's cells (draw, monster); the cell (fallback);
        (-1, -1) for skip
    cells : map (row, col) of each shape cell, in the shape's cell order (fallback: the one cell;
        skip: none)
    terrain : "forest" | "village" | "farm" | "water" | "monster" ("" for skip)
    """

    kind: str
    map: int
    card: int
    option: int = -1
    orientation: int = -1
    anchor: Cell = (-1, -1)
    cells: tuple[Cell, ...] = ()
    terrain: str = ""

    def __str__(self) -> str:
        if self.kind == "draw":
            return (
                f"map {self.map}: card {self.card:02d} shape {'AB'[self.option]} o{self.orientation}"
                f" at {self.anchor} {self.terrain} {list(self.cells)}"
            )
        if self.kind == "monster":
            where = f"o{self.orientation} at {self.anchor} {list(self.cells)}"
            return f"map {self.map}: ambush {self.card:02d} monster {where}"
        if self.kind == "fallback":
            return f"map {self.map}: card {self.card:02d} 1x1 {self.terrain} at {self.anchor}"
        return f"map {self.map}: card {self.card:02d} skip (map full)"
