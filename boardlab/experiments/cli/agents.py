"""`boardlab agents`: every agent of a game with its parameters, and its skill tiers (GameDef.ladder.skill_tiers)."""

from __future__ import annotations

from ._app import GameOpt, app, game_def


@app.command("agents")
def list_agents(game: GameOpt = None):
    """List every agent of a game with its parameters, defaults and a line of description."""
    g = game_def(game)
    reg = g.agents()
    w = max(11, *(len(d.name) + 1 for d in reg.available_agents()))
    for d in reg.available_agents():
        print(f"{d.name:<{w}} {d.description}")
        if d.objective:
            print(f"{'':<{w}} {d.objective}")
        for p in d.params:
            default = "required" if p.default is None else f"default {p.default}"
            choices = f"; one of {', '.join(p.choices)}" if p.choices else ""
            print(f"{'':<{w}}   {p.name:<9} {p.help} ({default}{choices})")
    tiers = g.tiers()
    if tiers:
        print("\nSkill tiers (a name for a full spec; results store the full spec and the tier):")
        for name, (spec, description) in tiers.items():
            print(f"{name:<{w}} = {spec}")
            print(f"{'':<{w}}   {description}")
    print(f"\nSpec strings: NAME or NAME:key=value,... e.g. {reg.examples}")
