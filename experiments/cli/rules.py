"""`boardlab rules`: a rule set in full, as TOML (or JSON)."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from ._app import GameOpt, app, game_def, load_rules


@app.command("rules")
def show_rules(
    spec: Annotated[
        str | None,
        typer.Argument(help="A preset (`boardlab games`) or a TOML variant file.", show_default="the default"),
    ] = None,
    game: GameOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON instead of TOML.")] = False,
):
    """Print a rule set in full as a TOML variant file (every key a variant can set; --rules FILE reads it back)."""
    rs = load_rules(spec, game_def(game))
    print(json.dumps(rs.to_dict(), indent=2) if as_json else rs.to_toml(), end="\n" if as_json else "")
