"""Reading playtest boards from text, and scoring them.

A board is 7 lines of 7 characters from ``R C P I .`` (any case); surrounding
spaces and blank lines are ignored; boards in one file are separated by blank
lines.  Errors name the file and the line.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .rules import DISTRICT_NAMES, Rules
from .tables import tables_for

_ALLOWED = set("RCPI.")
SCORE_KEYS = (*DISTRICT_NAMES, "districts", "empty")


class BoardError(ValueError):
    """A malformed board; the message starts with ``SOURCE:LINE:``."""


@dataclass(frozen=True)
class ParsedBoard:
    """A board read from text: its source, the line of its first row and its 49 cells (upper case)."""

    source: str
    line: int  # 1-based line of the board's first row
    cells: str  # 49 characters, upper case


def parse_boards(text: str, source: str = "<stdin>") -> list[ParsedBoard]:
    """Every board of a text (see the module doc); BoardError on the first mistake.

    Parameters
    ----------
    text : str
        The file's text.
    source : str
        The file's name, for messages.

    Returns
    -------
    list of ParsedBoard
        The boards, in order (BoardError, naming the file and line, on the first mistake).
    """
    boards: list[ParsedBoard] = []
    block: list[tuple[int, str]] = []

    def close_block() -> None:
        if not block:
            return
        first = block[0][0]
        if len(block) != 7:
            last = block[-1][0]
            where = first if len(block) > 7 else last
            raise BoardError(f"{source}:{where}: a board is 7 lines, this one (lines {first}-{last}) has {len(block)}")
        boards.append(ParsedBoard(source, first, "".join(row for _, row in block)))
        block.clear()

    for no, raw in enumerate(text.splitlines(), start=1):
        row = raw.strip().upper()
        if not row:
            close_block()
            continue
        if len(row) != 7 or not set(row) <= _ALLOWED:
            bad = sorted(set(row) - _ALLOWED)
            why = f"unexpected {''.join(bad)!r}" if bad else f"{len(row)} characters"
            raise BoardError(f"{source}:{no}: expected 7 characters from R C P I . ({why}): {raw.strip()!r}")
        block.append((no, row))
    close_block()
    if not boards:
        raise BoardError(f"{source}: no board found")
    return boards


def to_bitboards(cells: list[str]) -> np.ndarray:
    """49-character boards -> uint64[n, 4].

    Parameters
    ----------
    cells : list of str
        Boards of 49 characters from 'RCPI.'.

    Returns
    -------
    numpy.ndarray
        uint64, shape ``(n, 4)``.
    """
    from .api import board_from_string

    return np.array([board_from_string(c) for c in cells], dtype=np.uint64).reshape(len(cells), 4)


def score_cells(cells: list[str], rules: Rules) -> list[dict]:
    """District scores of 49-character boards, with the fast kernel.

    Parameters
    ----------
    cells : list of str
        Boards of 49 characters.
    rules : Rules
        The rule set.

    Returns
    -------
    list of dict
        Per board: points per district, ``districts`` (their sum) and ``empty``.
    """
    from .engine import score_boards

    out = np.zeros((len(cells), 5), dtype=np.int32)
    score_boards(to_bitboards(cells), tables_for(rules, 4).rp, out)
    res = []
    for row in out:
        d = dict(zip(DISTRICT_NAMES, (int(x) for x in row[:4]), strict=True))
        d["districts"] = sum(d.values())
        d["empty"] = int(row[4])
        res.append(d)
    return res


def format_scored(board: ParsedBoard, result: dict, rules_name: str) -> str:
    """A board beside its score breakdown, as `citywright score` prints it.

    Parameters
    ----------
    board : ParsedBoard
        The board.
    result : dict
        Its scores (:func:`score_cells`).
    rules_name : str
        The rule set's name.

    Returns
    -------
    str
        The text.
    """
    rows = [" ".join(board.cells[7 * i : 7 * i + 7]) for i in range(7)]
    labels = [
        f"residential {result['residential']:4d}",
        f"commercial  {result['commercial']:4d}",
        f"park        {result['park']:4d}",
        f"industrial  {result['industrial']:4d}",
        f"districts   {result['districts']:4d}",
        f"empty cells {result['empty']:4d}",
        "",
    ]
    lines = [f"{board.source}:{board.line}  (rules {rules_name})"]
    lines.extend(f"  {row}    {label}".rstrip() for row, label in zip(rows, labels, strict=True))
    return "\n".join(lines) + "\n"
