"""`citywright score`: district points of playtest boards (Citywright boards)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from ._app import GameOpt, RulesOpt, UserError, app, game_def, load_rules


@app.command()
def score(
    files: Annotated[list[str], typer.Argument(help="Board files; '-' reads standard input.", show_default=False)],
    rules: RulesOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per board per line.")] = False,
    game: GameOpt = None,
):
    """Score playtest boards. Citywright: 7 lines of 7 characters from R C P I . per board, blank lines
    between. Cartographers (--game cartographers): a header 'side A cards 31 34 41 29 [coins N]' and 11
    rows of 11 cells from . T V F W G M X, ruins cells in lower case (r = empty ruins); see README."""
    g = game_def(game)
    if g.id == "cartographers":
        return _score_cartographers(files, rules, as_json)
    if g.id != "citywright":
        raise UserError(f"--game: score reads citywright and cartographers maps, not {g.id}")
    from sim.citywright.boards import BoardError, format_scored, parse_boards, score_cells

    rs = load_rules(rules, g)
    parsed = []
    for f in files:
        text, name = _read(f)
        try:
            parsed.extend(parse_boards(text, name))
        except BoardError as e:
            raise UserError(str(e)) from None
    results = score_cells([b.cells for b in parsed], rs)
    if as_json:
        out = [json.dumps(r) for r in results]
    else:
        out = [format_scored(b, r, rs.name) for b, r in zip(parsed, results, strict=True)]
    sys.stdout.write("\n".join(out).rstrip("\n") + "\n")


def _read(f: str) -> tuple[str, str]:
    if f == "-":
        return sys.stdin.read(), "<stdin>"
    try:
        return Path(f).read_text(encoding="utf-8"), f
    except (OSError, UnicodeDecodeError) as e:
        raise UserError(f"{f}: cannot read: {getattr(e, 'strerror', None) or e}") from None


def _score_cartographers(files: list[str], rules: str | None, as_json: bool) -> None:
    from sim.cartographers.maps import MapError, format_scored, parse_maps, rules_for, score_map

    rs = load_rules(rules, "cartographers") if rules is not None else None
    out = []
    for f in files:
        text, name = _read(f)
        try:
            for m in parse_maps(text, name):
                res = score_map(m, rules_for(m, rs))
                out.append(json.dumps(res) if as_json else format_scored(m, res))
        except MapError as e:
            raise UserError(str(e)) from None
    sys.stdout.write("\n".join(out).rstrip("\n") + "\n")
