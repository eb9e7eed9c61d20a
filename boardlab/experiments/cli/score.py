"""`boardlab score`: points of playtest boards or maps (GameDef.scoring.scorer)."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer

from boardlab.sim.games import GameError

from ._app import GameOpt, RulesOpt, UserError, app, game_def, load_rules


@app.command()
def score(
    files: Annotated[list[str], typer.Argument(help="Board files; '-' reads standard input.", show_default=False)],
    rules: RulesOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per board per line.")] = False,
    game: GameOpt = None,
):
    """Score playtest boards of a game that has a scorer. Citywright: 7 lines of 7 characters from R C P I . per
    board, blank lines between. Cartographers (--game cartographers): a header 'side A cards 31 34 41 29 [coins N]'
    and 11 rows of 11 cells from . T V F W G M X, ruins cells in lower case (r = empty ruins); see README."""
    g = game_def(game)
    try:
        scorer = g.require("scorer")
    except GameError as e:
        raise UserError(f"--game: {e}") from None
    rs = load_rules(rules, g) if rules is not None else None
    sources = [_read(f) for f in files]
    try:
        scored = scorer(sources, rs)
    except ValueError as e:  # a malformed board (the scorer's message names it)
        raise UserError(str(e)) from None
    out = [json.dumps(result) if as_json else text for result, text in scored]
    sys.stdout.write("\n".join(out).rstrip("\n") + "\n")


def _read(f: str) -> tuple[str, str]:
    if f == "-":
        return sys.stdin.read(), "<stdin>"
    from boardlab.sim.files import TextFileError, read_text

    try:  # a regular file only: a FIFO is never opened to wait for a writer, a device never read
        return read_text(f, "a board file"), f
    except TextFileError as e:
        raise UserError(str(e)) from None
