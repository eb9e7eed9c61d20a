"""`citywright games`: the registered games."""

from __future__ import annotations

from ._app import app


@app.command("games")
def list_games():
    """List the registered games: id, players, rule presets, description (use the id with --game)."""
    from sim.games import available_games

    for g in available_games():
        lo, hi = g.players
        ref = "reference engine" if g.reference_game is not None else "no reference engine"
        print(f"{g.id:<13} {g.title}: {g.description}")
        print(f"{'':<13} {lo}-{hi} players; rule presets {', '.join(g.presets)} (default {g.default_preset}); {ref}")
