"""`boardlab games`: the registered games, and the commands each serves beyond the common ones."""

from __future__ import annotations

from ._app import app

# The optional parts of a game (boardlab.sim.games.GameDef) as the commands they serve.
_SERVES = {
    "report": "reproduce",
    "skill_report": "reproduce --skill",
    "bench": "bench",
    "scorer": "score",
    "move_log": "simulate --moves",
    "pairings": "ladder without --agents",
}


@app.command("games")
def list_games():
    """List the registered games: id, players, rule presets, description, what each serves (use the id with --game)."""
    from boardlab.sim.games import available_games, default_game

    for g in available_games():
        lo, hi = g.players
        ref = "reference engine" if g.reference_game is not None else "no reference engine"
        default = " (the default game)" if g.id == default_game() else ""
        print(f"{g.id:<13} {g.title}{default}: {g.description}")
        print(f"{'':<13} {lo}-{hi} players; rule presets {', '.join(g.presets)} (default {g.default_preset}); {ref}")
        serves = [cmd for part, cmd in _SERVES.items() if g.has(part)]
        print(f"{'':<13} also serves: {', '.join(serves) if serves else 'only the common commands'}")
