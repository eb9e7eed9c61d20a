"""`boardlab games`: the registered games, and the commands each serves beyond the common ones."""

from __future__ import annotations

from ._app import app

# The optional parts of a game (boardlab.sim.games.NEEDS) listed as the commands they serve.
_SERVES = ("report", "skill_report", "bench", "scorer", "move_log", "pairings")


@app.command("games")
def list_games():
    """List the registered games: id, players, rule presets, description, what each serves (use the id with --game)."""
    from boardlab.sim.games import NEEDS, available_games, default_game

    for g in available_games():
        lo, hi = g.players
        ref = "reference engine" if g.reference_game is not None else "no reference engine"
        default = " (the default game)" if g.id == default_game() else ""
        print(f"{g.id:<13} {g.title}{default}: {g.description}")
        print(f"{'':<13} {lo}-{hi} players; rule presets {', '.join(g.presets)} (default {g.default_preset}); {ref}")
        serves = [NEEDS[part].command for part in _SERVES if NEEDS[part].lazy(g) is not None]
        print(f"{'':<13} also serves: {', '.join(serves) if serves else 'only the common commands'}")
