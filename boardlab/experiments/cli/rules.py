"""`boardlab rules`: a rule set in full, as TOML (or JSON), its placeholder keys marked."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from ._app import GameOpt, app, game_def, load_rules

PLACEHOLDER = "placeholder"  # the mark `rules` puts after a placeholder key (GameDef.placeholders)


def marked_toml(text: str, placeholders: dict[str, str]) -> str:
    """A rule set's TOML with ``# placeholder: <reason>`` after each placeholder key (it still loads unchanged).

    Parameters
    ----------
    text : str
        The rule set's TOML (``RuleSet.to_toml``).
    placeholders : dict of str to str
        Dotted key -> why its number is a placeholder (``GameDef.placeholders``).

    Returns
    -------
    str
        The TOML with the comments added.
    """
    import tomlkit

    doc = tomlkit.parse(text)
    for key, reason in placeholders.items():
        node = doc
        *tables, leaf = key.split(".")
        for part in tables:
            node = node[part]
        node[leaf].comment(f"{PLACEHOLDER}: {reason}")
    return tomlkit.dumps(doc)


@app.command("rules")
def show_rules(
    spec: Annotated[
        str | None,
        typer.Argument(help="A preset (`boardlab games`) or a TOML variant file.", show_default="the default"),
    ] = None,
    game: GameOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="JSON instead of TOML.")] = False,
    placeholders: Annotated[
        bool,
        typer.Option(
            "--placeholders",
            help="Only the placeholder keys (the project's numbers, not the designer's), one a line with the"
            " reason; `tune scoring` refuses them without --allow-placeholder.",
        ),
    ] = False,
):
    """Print a rule set in full as a TOML variant file (every key a variant can set; --rules FILE reads it back).
    Placeholder keys carry `# placeholder: <reason>`."""
    g = game_def(game)
    rs = load_rules(spec, g)
    marks = g.placeholders(rs)
    if placeholders:
        for key, reason in marks.items():
            print(f"{key}  # {PLACEHOLDER}: {reason}")
        if not marks:
            print(f"# {g.id} rules {rs.name!r}: no placeholder keys")
        return
    print(
        json.dumps(rs.to_dict(), indent=2) if as_json else marked_toml(rs.to_toml(), marks), end="\n" if as_json else ""
    )
