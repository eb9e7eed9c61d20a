"""A move a person can read, shared by the engine's API and the reference."""

from __future__ import annotations

from dataclasses import dataclass

from .rules import SLOT_NAMES

Cell = tuple[int, int]


@dataclass(frozen=True)
class Move:
    """One turn.  See docs/games/citywright/engine.md for every field's meaning.

    kind : "place" | "discard" | "swap" | "pass"
    slot : slot index (``SLOT_NAMES[slot]`` is its name, e.g. ``row2-left``)
    shape : the ruler's shape name
    orientation : transform index 0..7 (place)
    anchor : board (row, col) of the oriented shape's top-left bounding-box corner (place)
    cells : board (row, col) of each shape cell in rule-set cell order, possibly off the board (place)
    tiles : district letter landing on each cell, same order; "" for no tile (place)
    free : the free pick's district for a corner ruler, "" otherwise (place)
    cell, district : the swap's cell and tile (swap)
    """

    kind: str
    slot: int = -1
    shape: str = ""
    orientation: int = -1
    anchor: Cell = (0, 0)
    cells: tuple[Cell, ...] = ()
    tiles: tuple[str, ...] = ()
    free: str = ""
    cell: Cell = (-1, -1)
    district: str = ""

    @property
    def slot_name(self) -> str:
        """The slot's name ("" for a move of no slot)."""
        return SLOT_NAMES[self.slot] if self.slot >= 0 else ""

    def __str__(self) -> str:
        if self.kind == "place":
            on = sum(0 <= r < 7 and 0 <= c < 7 for r, c in self.cells)
            tiles = "".join(t or "-" for t in self.tiles)
            free = f" free {self.free}" if self.free else ""
            return (
                f"{self.slot_name}: {self.shape} o{self.orientation} at {self.anchor} tiles {tiles}{free}"
                f" ({on}/{len(self.cells)} on board)"
            )
        if self.kind == "discard":
            return f"{self.slot_name}: {self.shape} forced discard"
        if self.kind == "swap":
            return f"{self.slot_name}: swap {self.shape} for {self.district} at {self.cell}"
        return "pass"


def placement(
    slot: int, shape: str, orientation: int, anchor: Cell, cells: tuple[Cell, ...], tiles: tuple[str, ...], free: str
) -> Move:
    """The place move ``Move(kind="place", ...)`` of these fields, made without the dataclass's ``__init__``,
    which sets each of the ten fields through ``object.__setattr__`` (a frozen dataclass): a listing makes
    thousands of moves, and this makes one in a fifth of the time.  The move is the same in every respect (its
    fields, ``vars``, equality, hash, pickling).

    Parameters
    ----------
    slot : int
        The market slot.
    shape : str
        The ruler's shape name.
    orientation : int
        The transform index, 0..7.
    anchor : tuple of int
        The oriented shape's top-left corner (row, col).
    cells : tuple of (int, int)
        Each shape cell's board (row, col), in rule-set cell order.
    tiles : tuple of str
        The district landing on each cell ("" for none).
    free : str
        The free pick ("" for none).

    Returns
    -------
    Move
        The move.
    """
    move = object.__new__(Move)
    move.__dict__.update(
        kind="place", slot=slot, shape=shape, orientation=orientation, anchor=anchor, cells=cells, tiles=tiles,
        free=free, cell=(-1, -1), district="",
    )  # fmt: skip
    return move
