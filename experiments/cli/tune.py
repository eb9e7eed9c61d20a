"""`citywright tune ...`: rules tuned from stored games (seats) or by fresh simulation (scoring)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ._app import (
    RulesOpt,
    UserError,
    command_line,
    directory_option,
    existing_files,
    interruptible,
    load_rules,
    logger,
    progress_bar,
    split_specs,
    tune_app,
)


@tune_app.command("seats")
def tune_seats(
    results: Annotated[list[Path], typer.Argument(help="Result files of one player count.", show_default=False)],
    max_points: Annotated[int, typer.Option("--max", help="Largest compensation per seat.", min=0, max=20)] = 5,
    top: Annotated[int, typer.Option(help="How many of the best vectors to show.", min=1)] = 5,
    verify_games: Annotated[
        int, typer.Option(help="Re-simulate the best vector with this many games (0: skip).", min=0)
    ] = 0,
    jobs: Annotated[int, typer.Option(help="Worker processes for the verification.", min=1)] = 1,
):
    """Seat compensation that brings every seat closest to 1/N, from stored games (no re-simulation needed)."""
    import pandas as pd

    from experiments import compensation as C
    from experiments import simulate as S
    from experiments.pipelines import load_results

    existing_files(results)
    try:
        df = load_results(results)
        meta = S.read_metadata(results[0])
        cur = C.current(df)
        best = C.search(df, max_points=max_points, top=top)
    except (ValueError, S.SimulateError, OSError) as e:
        raise UserError(str(e).splitlines()[0]) from None
    n = int(df["players"].iloc[0])
    seats = [f"seat{i + 1}" for i in range(n)]

    def show(label: str, t: pd.DataFrame) -> None:
        for _, r in t.iterrows():
            parts = "  ".join(f"{100 * r[s]:5.1f}% [{100 * r[s + '_lo']:.1f}, {100 * r[s + '_hi']:.1f}]" for s in seats)
            print(f"{label:<10} {r['compensation']:<10} max dev {100 * r['max_deviation']:4.1f} pts   {parts}")

    print(f"{len(df) // n:,} games, {n} players; seat win shares (95% Wilson), re-ranked from stored raw scores:")
    show("stored", cur)
    show("best", best)
    if verify_games:
        vec = [int(x) for x in best["compensation"].iloc[0].split("/")]
        show("verified", C.verify(meta, vec, verify_games, jobs=jobs))
        print(f"(verification re-simulated {verify_games:,} games with compensation {best['compensation'].iloc[0]})")


@tune_app.command("scoring")
def tune_scoring(
    param: Annotated[
        list[str],
        typer.Option(
            "--param",
            help="PATH=LO:HI[:int], repeatable; PATH a dotted key of `citywright rules`, list elements by index,"
            " e.g. scoring.commercial.tier_points[2]=20:35:int.",
            show_default=False,
        ),
    ],
    objective: Annotated[
        str, typer.Option(help="specialists (each agent), seats (each seat) or both: win shares brought to 1/N.")
    ] = "specialists",
    agents: Annotated[
        str, typer.Option("--agents", help="One spec per seat, or one for all (as in simulate).")
    ] = "specialist:R,specialist:C,specialist:P,specialist:I",
    players: Annotated[int, typer.Option("--players", help="Players per game.")] = 4,
    rules: RulesOpt = None,
    trials: Annotated[
        int, typer.Option("--trials", help="Trials to finish (complete or pruned), the base's included.", min=1)
    ] = 50,
    games: Annotated[int, typer.Option("--games", help="Games per trial, in seed blocks.", min=1)] = 4_000,
    blocks: Annotated[int, typer.Option("--blocks", help="Seed blocks per trial (the pruner's steps).", min=2)] = 10,
    verify_games: Annotated[
        int, typer.Option(help="Base and best re-simulated on fresh seeds (0: skip).", min=0)
    ] = 20_000,
    keep_mean_total: Annotated[
        float | None, typer.Option(help="Keep the mean total score within ±PCT% of the base's.", show_default=False)
    ] = None,
    max_changes: Annotated[
        int | None, typer.Option(help="At most K parameters move from the base.", min=1, show_default=False)
    ] = None,
    sampler: Annotated[
        str, typer.Option(help="cmaes, tpe (multivariate), or auto: cmaes for two parameters or more, else tpe.")
    ] = "auto",
    prune_p: Annotated[float, typer.Option(help="WilcoxonPruner's p threshold (0: no pruning).")] = 0.05,
    seed: Annotated[int, typer.Option("--seed", help="Seed of the seed blocks and of the sampler.")] = 0,
    out: Annotated[Path, typer.Option("--out", help="Output directory (the study is OUT/study.db).")] = Path(
        "runs/tune-scoring"
    ),
    work: Annotated[Path | None, typer.Option("--work", help="Run cache (default: OUT/runs).")] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Continue the study in OUT (same settings).")] = False,
    jobs: Annotated[int, typer.Option("--jobs", help="Worker processes.", min=1)] = 1,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
):
    """Tune rule parameters by simulation (Optuna) so agents or seats win equally often; best.toml and a report."""
    import datetime as dt
    import shlex
    import sys
    import time

    from experiments import simulate as S
    from experiments import tune_scoring as T

    base = load_rules(rules)
    specs = split_specs(agents)
    try:
        params = T.parse_params(param, base)
        spec = T.make_tune_spec(
            base,
            params,
            objective,
            players,
            specs,
            games,
            blocks,
            seed,
            keep_mean_total,
            max_changes,
            prune_p,
            sampler=sampler,
        )
        T.check_output(out, resume)
        if work is not None:
            directory_option(work, "--work")
    except (ValueError, S.SimulateError) as e:  # TuneError, RulesError and SimulateError are ValueErrors
        raise UserError(str(e).splitlines()[0]) from None
    work = work or out / "runs"
    out.mkdir(exist_ok=True)
    work.mkdir(parents=True, exist_ok=True)
    bar, update = progress_bar(quiet, "tune")

    def progress(done: int, total: int, rate: float, label: str) -> None:
        update(done, total, rate, label=label)

    argv = [a for a in sys.argv[1:] if a != "--resume"]
    stopped = (
        f"citywright: interrupted; finished trials are kept in {T.study_path(out)}. Continue with:\n"
        f"  citywright {shlex.join(argv)} --resume"
    )
    try:
        with T.StudyLock(out), interruptible(bar, stopped):
            study = T.optimise(spec, out, work, trials, resume, jobs, log=logger(bar), progress=progress)
            rules_best, best = T.best_rules(study, spec)
            t0 = time.perf_counter()
            verification = T.verify(spec, rules_best, verify_games, work, jobs) if verify_games else None
            verify_seconds = time.perf_counter() - t0
    except (T.TuneError, S.SimulateError) as e:
        raise UserError(str(e).splitlines()[0]) from None
    about = {
        "command": command_line(), "git_commit": S._git_commit(), "verify_seconds": round(verify_seconds, 1),
        "finished": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"), "trials": trials,
        "verify_games": verify_games, "jobs": jobs,
    }  # fmt: skip
    summary = T.write_outputs(study, spec, out, work, verification, about)
    print(T.summary_text(summary, best, verification))
    print(f"wrote {out / 'best.toml'}, trials.csv, verify.csv, REPORT.md and charts in {out}")
