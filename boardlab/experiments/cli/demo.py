"""`boardlab demo`: uniform-random games of a game at every player count, summarised."""

from __future__ import annotations

from typing import Annotated

import typer

from ._app import (
    BackendOpt,
    GameOpt,
    JobsOpt,
    RulesOpt,
    SchedulerOpt,
    UserError,
    app,
    check_jobs,
    check_seed,
    check_workers,
    game_def,
    interruptible,
    load_rules,
    prog_name,
)


@app.command()
def demo(
    games: Annotated[int, typer.Option(help="Games per player count.", min=1)] = 20_000,
    seed: Annotated[int, typer.Option(help="Run seed: game g's seed comes from (seed, g), as in simulate.")] = 0,
    rules: RulesOpt = None,
    game: GameOpt = None,
    jobs: JobsOpt = 1,
    backend: BackendOpt = "loky",
    scheduler: SchedulerOpt = None,
):
    """Uniform-random players at every player count the rules allow: mean numbers per player (the game's
    summary) and each seat's win share. Nothing is written."""
    import tempfile
    from pathlib import Path

    import pandas as pd

    from boardlab.experiments import simulate as S
    from boardlab.experiments.pipelines import win_share

    check_seed(seed)
    g = game_def(game)
    rs = load_rules(rules, g)
    workers = check_workers(backend, scheduler)
    counts = g.players_for(rs)
    if not counts:
        raise UserError(f"--rules: rules {rs.name!r} of {g.id} allow no player count")
    try:
        specs = {p: S.make_spec(p, ["random"], games, seed, rs, "fixed", game=g.id) for p in counts}
    except S.SimulateError as e:
        raise UserError(str(e)) from None
    jobs = check_jobs(jobs, backend, max(spec.n_chunks for spec in specs.values()))
    print(f"Uniform-random players, {g.title} rules {rs.name}, {games:,} games per player count, run seed {seed}")
    with tempfile.TemporaryDirectory() as d, interruptible(None, f"{prog_name()} demo: interrupted"):
        for p, spec in specs.items():
            path = Path(d) / f"{p}p.parquet"
            try:
                meta = S.run(spec, path, jobs=min(jobs, spec.n_chunks), **workers)
            except S.SimulateError as e:
                raise UserError(str(e).splitlines()[0]) from None
            df = pd.read_parquet(path)
            print(f"\n{p} player(s): {games:,} games in {meta['this_session']['seconds']:.2f} s")
            for section, _, columns in g.reports.summary:
                means = ", ".join(f"{c} {df[c].mean():.1f}" for c in columns)
                print(f"  mean per player, {section}: {means}")
            if p > 1:
                ws = win_share(df, "seat")
                parts = [
                    f"seat {r.seat} {100 * r.win_share:.1f}% [{100 * r.lo:.1f}, {100 * r.hi:.1f}]"
                    for r in ws.itertuples()
                ]
                print("  win share by seat (95% Wilson): " + "; ".join(parts))
