"""`citywright demo`: uniform-random Citywright games at 1-4 players, summarised."""

from __future__ import annotations

from typing import Annotated

import typer

from ._app import RulesOpt, app, load_rules


@app.command()
def demo(
    games: Annotated[int, typer.Option(help="Games per player count.", min=1)] = 20_000,
    seed: Annotated[int, typer.Option(help="Base seed: game g uses seed + g.")] = 0,
    rules: RulesOpt = None,
):
    """A default simulation with uniform-random players at 1-4 players, summarised."""
    from experiments.citywright.bench import random_summary

    rs = load_rules(rules)
    print(f"Uniform-random players, rules {rs.name}, {games:,} games per player count, seeds {seed}..")
    for p in (1, 2, 3, 4):
        s = random_summary(rs, p, games, seed)
        print(f"\n{p} player(s): {games:,} games in {s['seconds']:.2f} s")
        means = ", ".join(f"{name} {v:.1f}" for name, v in s["means"].items())
        print(
            f"  mean per player: {means}, total {s['total']:.1f}, waste {s['waste']:.2f}, empty cells {s['empty']:.1f}"
        )
        if p > 1:
            parts = [
                f"seat {i + 1} {100 * w:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]"
                for i, (w, lo, hi) in enumerate(s["seat_win_shares"])
            ]
            print("  win share by seat (95% Wilson): " + "; ".join(parts))
