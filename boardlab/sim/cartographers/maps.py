"""Drawn Cartographers maps as text, and their scores (what ``citywright score --game cartographers`` reads).

A map is a header line and 11 lines of 11 cells::

    side A cards 31 34 41 29 coins 5
    TT.........
    T..M.r.....
    .f......Mr.
    ...

* The header names the map side (``A`` or ``B``), the four scoring cards under edicts A-D (printed
  numbers 26-41, all different; a category may repeat, for variants) and optionally the coins held
  (``coins N``); the keywords may come in any order.
* A cell is one of the engine's letters: ``.`` empty, ``T`` forest, ``V`` village, ``F`` farm,
  ``W`` water, ``G`` monster, ``M`` mountain, ``X`` wasteland.  A **ruins** cell is written in lower
  case: ``r`` for an empty ruins cell, ``t v f w g`` for a terrain drawn on one.  Mountains,
  wasteland and ruins must be exactly where the map side has them (a check that the map was copied
  right).  Spaces inside a row are ignored, so ``T . . M`` reads as ``T..M``.
* Lines starting with ``#`` and blank lines are ignored; a file may hold several maps, each starting
  with its header.

Errors are one line naming the file and the line (``maps.txt:4: ...``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .rules import MOUNTAIN, N_CELLS, SIZE, STATE_LETTERS, WASTELAND, Rules, load_rules

_TERRAIN_LETTERS = STATE_LETTERS[1:6]  # T V F W G
_RUINS_LETTERS = "r" + _TERRAIN_LETTERS.lower()  # r t v f w g
SCORING_IDS = range(26, 42)


class MapError(ValueError):
    """A malformed map; the message starts with ``SOURCE:LINE:``."""


@dataclass(frozen=True)
class ParsedMap:
    """A map read from text: its source, header line, side, edict cards A-D, coins (or None) and its 121 cells."""

    source: str
    line: int  # 1-based line of the header
    side: str
    cards: tuple[int, int, int, int]  # edicts A-D
    coins: int | None
    grid: str  # 121 characters from ".TVFWGMX" (ruins markers dropped)


def _parse_header(text: str, source: str, no: int) -> tuple[str, tuple[int, ...], int | None]:
    words = text.split()
    side = cards = coins = None
    i = 0
    while i < len(words):
        key = words[i].lower()
        if key == "side" and i + 1 < len(words):
            side = words[i + 1].upper()
            if side not in ("A", "B"):
                raise MapError(f"{source}:{no}: side must be A or B, got {words[i + 1]!r}")
            i += 2
        elif key == "cards":
            raw = words[i + 1 : i + 5]
            try:
                cards = tuple(int(x) for x in raw)
            except ValueError:
                cards = ()
            if len(cards) != 4 or not all(c in SCORING_IDS for c in cards):
                got = " ".join(raw) or "nothing"
                raise MapError(f"{source}:{no}: cards needs 4 scoring card numbers 26-41 (edicts A-D), got {got!r}")
            if len(set(cards)) != 4:
                raise MapError(f"{source}:{no}: the four scoring cards must differ, got {' '.join(raw)}")
            i += 5
        elif key == "coins" and i + 1 < len(words):
            try:
                coins = int(words[i + 1])
            except ValueError:
                coins = -1
            if coins < 0:
                raise MapError(f"{source}:{no}: coins must be a whole number >= 0, got {words[i + 1]!r}")
            i += 2
        else:
            raise MapError(
                f"{source}:{no}: expected a header 'side A|B cards N N N N [coins N]', got {words[i]!r}"
                f" (a map starts with its header line)"
            )
    if side is None or cards is None:
        missing = "side" if side is None else "cards"
        raise MapError(f"{source}:{no}: the header names no {missing} ('side A|B cards N N N N [coins N]')")
    return side, cards, coins


def _check_row(row: str, raw: str, r: int, side_map, source: str, no: int) -> str:
    if len(row) != SIZE:
        raise MapError(f"{source}:{no}: a map row has {SIZE} cells, this one has {len(row)}: {raw.strip()!r}")
    out = []
    for c, ch in enumerate(row):
        i = SIZE * r + c
        where = f"{source}:{no}: column {c + 1} ({chr(65 + r)}{c + 1})"
        if ch not in STATE_LETTERS and ch not in _RUINS_LETTERS:
            raise MapError(f"{where}: {ch!r} is not a cell (use . T V F W G M X, lower case r t v f w g on ruins)")
        on_ruins = i in side_map.ruins
        if on_ruins != (ch in _RUINS_LETTERS):
            if on_ruins:
                raise MapError(f"{where} is a ruins cell of side {side_map.side}: write r or a lower-case terrain")
            raise MapError(f"{where} is not a ruins cell of side {side_map.side}: {ch!r} marks ruins")
        code = 0 if ch == "r" else STATE_LETTERS.index(ch.upper())
        for fixed, cells, name in (
            (MOUNTAIN, side_map.mountains, "mountain"),
            (WASTELAND, side_map.wasteland, "wasteland"),
        ):
            if (code == fixed) != (i in cells):
                what = "has" if i in cells else "has no"
                raise MapError(f"{where}: side {side_map.side} {what} a {name} here, got {ch!r}")
        out.append(STATE_LETTERS[code])
    return "".join(out)


def parse_maps(text: str, source: str = "<stdin>") -> list[ParsedMap]:
    """Every map of a text (see the module doc); MapError on the first mistake.

    Parameters
    ----------
    text : str
        The file's text.
    source : str
        The file's name, for messages.

    Returns
    -------
    list of ParsedMap
        The maps, in order.
    """
    lines = [(no, raw) for no, raw in enumerate(text.splitlines(), start=1)]
    content = [(no, raw) for no, raw in lines if raw.strip() and not raw.lstrip().startswith("#")]
    maps: list[ParsedMap] = []
    k = 0
    while k < len(content):
        no, raw = content[k]
        side, cards, coins = _parse_header(raw, source, no)
        side_map = load_rules(f"base-{side.lower()}").map
        rows = []
        for r in range(SIZE):
            if k + 1 + r >= len(content):
                last = content[-1][0]
                raise MapError(f"{source}:{last}: the map of line {no} ends after {r} of its {SIZE} rows")
            rno, rraw = content[k + 1 + r]
            row = "".join(rraw.split())
            if row.lower().startswith(("side", "cards", "coins")):
                raise MapError(f"{source}:{rno}: the map of line {no} has only {r} of its {SIZE} rows")
            rows.append(_check_row(row, rraw, r, side_map, source, rno))
        maps.append(ParsedMap(source, no, side, cards, coins, "".join(rows)))
        k += 1 + SIZE
    if not maps:
        raise MapError(f"{source}: no map found (a map is a header line 'side A cards N N N N' and {SIZE} rows)")
    return maps


def format_map(m: ParsedMap, rules: Rules) -> str:
    """The map in this file format (ruins in lower case): parse_maps(format_map(m)) gives m back.

    Parameters
    ----------
    m : ParsedMap
        The map.
    rules : Rules
        Its rule set (where its ruins are).

    Returns
    -------
    str
        The text.
    """
    head = f"side {m.side} cards {' '.join(str(c) for c in m.cards)}"
    if m.coins is not None:
        head += f" coins {m.coins}"
    ruins = set(rules.map.ruins)
    cells = [ch.lower() if i in ruins else ch for i, ch in enumerate(m.grid)]
    cells = ["r" if ch == "." and i in ruins else ch for i, ch in enumerate(cells)]
    return "\n".join([head, *("".join(cells[SIZE * r : SIZE * r + SIZE]) for r in range(SIZE))]) + "\n"


def rules_for(m: ParsedMap, rules: Rules | None) -> Rules:
    """The rule set to score m with: `rules` (its side must be m's) or the preset of m's side.

    Parameters
    ----------
    m : ParsedMap
        The map.
    rules : Rules or None
        The rule set given (None: the preset of the map's side).

    Returns
    -------
    Rules
        The rule set (MapError when its side is not the map's).
    """
    if rules is None:
        return load_rules(f"base-{m.side.lower()}")
    if rules.side != m.side:
        raise MapError(f"{m.source}:{m.line}: the map is side {m.side}, the rules {rules.name!r} are side {rules.side}")
    return rules


def score_map(m: ParsedMap, rules: Rules) -> dict:
    """Points of each of the map's four scoring cards, their sum, the coins (if given) and the monster penalty.

    Parameters
    ----------
    m : ParsedMap
        The map.
    rules : Rules
        The rule set.

    Returns
    -------
    dict
        ``source``, ``side``, ``rules``, ``cards`` (edict, card, name, points each), ``card_points``,
        ``coins`` and ``monster_penalty``.
    """
    from . import engine as E
    from .api import grid_to_planes
    from .tables import tables_for

    assert len(m.grid) == N_CELLS
    tb = tables_for(rules, 1)
    pl = grid_to_planes(m.grid, rules)
    names = {c.id: c.name for c in rules.scoring_cards}
    cards = [
        {"edict": "ABCD"[e], "card": c, "name": names[c], "points": int(E.score_card(np.int32(c), pl, tb.rp, tb.masks))}
        for e, c in enumerate(m.cards)
    ]
    return {
        "source": f"{m.source}:{m.line}",
        "side": m.side,
        "rules": rules.name,
        "cards": cards,
        "card_points": sum(c["points"] for c in cards),
        "coins": m.coins,
        "monster_penalty": int(E.monster_penalty(pl, tb.rp, tb.masks)),
    }


def format_scored(m: ParsedMap, res: dict) -> str:
    """A map beside its scores, as `citywright score --game cartographers` prints it.

    Parameters
    ----------
    m : ParsedMap
        The map.
    res : dict
        Its scores (:func:`score_map`).

    Returns
    -------
    str
        The text.
    """
    rows = [" ".join(m.grid[SIZE * r : SIZE * r + SIZE]) for r in range(SIZE)]
    labels = [f"{c['edict']}  {c['card']} {c['name']:<20} {c['points']:4d}" for c in res["cards"]]
    labels.append(f"{'cards':<26}{res['card_points']:4d}")
    if res["coins"] is not None:
        labels.append(f"{'coins':<26}{res['coins']:4d}")
    labels.append(f"{'monster penalty':<26}{-res['monster_penalty']:4d}")
    labels += [""] * (SIZE - len(labels))
    out = [f"{res['source']}  side {res['side']} (rules {res['rules']})"]
    out += [f"  {row}    {label}".rstrip() for row, label in zip(rows, labels, strict=True)]
    return "\n".join(out) + "\n"


def random_map_text(seed: int = 0, side: str = "A") -> str:
    """A map of a random solo game in this format (for tests and the bench).

    Parameters
    ----------
    seed : int
        The game's seed.
    side : str
        The map side, A or B.

    Returns
    -------
    str
        The map's text.
    """
    from .api import Game

    g = Game(1, f"base-{side.lower()}", seed)
    while not g.done:
        g.apply(g.random_move())
    snap = g.snapshot()
    m = ParsedMap("", 0, side, tuple(snap["edicts"]), snap["coins"][0], snap["grids"][0])
    return format_map(m, g.rules)
