"""`citywright score`: district points of playtest boards (Citywright boards)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from ._app import RulesOpt, UserError, app, load_rules


@app.command()
def score(
    files: Annotated[list[str], typer.Argument(help="Board files; '-' reads standard input.", show_default=False)],
    rules: RulesOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per board per line.")] = False,
):
    """Score Citywright playtest boards: 7 lines of 7 characters from R C P I . per board, blank lines between."""
    from sim.citywright.boards import BoardError, format_scored, parse_boards, score_cells

    rs = load_rules(rules)
    parsed = []
    for f in files:
        if f == "-":
            text, name = sys.stdin.read(), "<stdin>"
        else:
            try:
                text, name = Path(f).read_text(encoding="utf-8"), f
            except (OSError, UnicodeDecodeError) as e:
                raise UserError(f"{f}: cannot read: {getattr(e, 'strerror', None) or e}") from None
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
