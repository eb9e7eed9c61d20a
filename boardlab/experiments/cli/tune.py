"""`boardlab tune ...`: rules tuned from stored games (seats) or by fresh simulation (scoring)."""

from __future__ import annotations

import shlex
import sys
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

import typer

from ._app import (
    AGENTS_DEFAULT,
    OUTPUT_RULE,
    BackendOpt,
    GameOpt,
    JobsOpt,
    PlayersOpt,
    RulesOpt,
    SchedulerOpt,
    UserError,
    check_jobs,
    check_output,
    check_seed,
    check_workers,
    command_line,
    game_def,
    interruptible,
    load_rules,
    logger,
    prog_name,
    progress_bar,
    require,
    result_files,
    split_specs,
    table_players,
    tune_app,
)


@tune_app.command("seats")
def tune_seats(
    results: Annotated[
        list[Path],
        typer.Argument(
            help="Result files of the game, of one player count, each run once (a file given twice or a copy of"
            " one is refused); their games are pooled, a game being its rows sharing the run id and game number.",
            show_default=False,
        ),
    ],
    max_points: Annotated[int, typer.Option("--max", help="Largest compensation per seat.", min=0, max=20)] = 5,
    top: Annotated[int, typer.Option(help="How many of the best vectors to show.", min=1)] = 5,
    verify_games: Annotated[
        int, typer.Option(help="Re-simulate the best vector with this many games (0: skip).", min=0)
    ] = 0,
    game: GameOpt = None,
    jobs: JobsOpt = 1,
    backend: BackendOpt = "loky",
    scheduler: SchedulerOpt = None,
):
    """Seat compensation that brings every seat closest to 1/N, from stored games (no re-simulation needed)."""
    import pandas as pd

    from boardlab.experiments import compensation as C
    from boardlab.experiments import simulate as S
    from boardlab.experiments.pipelines import load_results

    g = game_def(game)
    how = require(g, "seat_compensation", "seat compensation to tune")
    workers = check_workers(backend, scheduler)
    metas = result_files(results, g)
    for path, meta in zip(results, metas, strict=True):
        reason = how.check(meta["rules"]) if how.check and isinstance(meta.get("rules"), dict) else None
        if reason:
            raise UserError(f"{path}: {reason}")
    if verify_games and "spec" not in metas[0]:
        raise UserError(f"--verify-games: {results[0]} is not a run of simulate (a rescored table?): nothing to re-run")
    played = metas[0].get("rules") if isinstance(metas[0].get("rules"), dict) else None  # its tie-break rules
    if how.rank_options is not None:
        ranked = [how.rank_options(m["rules"]) if isinstance(m.get("rules"), dict) else {} for m in metas]
        for path, r in zip(results, ranked, strict=True):
            if r != ranked[0]:
                raise UserError(f"{path}: played under other tie-break rules ({r}) than {results[0]} ({ranked[0]})")
    try:
        df = load_results(results)
        cur = C.current(df, g, played)
        best = C.search(df, g, max_points=max_points, top=top, rules=played)
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
        jobs = check_jobs(jobs, backend)
        vec = [int(x) for x in best["compensation"].iloc[0].split("/")]
        try:
            verified = C.verify(metas[0], vec, verify_games, jobs=jobs, game=g, **workers)
        except S.SimulateError as e:
            raise UserError(str(e).splitlines()[0]) from None
        show("verified", verified)
        print(f"(verification re-simulated {verify_games:,} games with compensation {best['compensation'].iloc[0]})")


def _counts(
    text: str | None, flag: str = "--seat-players", what: str = "player counts separated by commas (e.g. 2,3,4)"
) -> list[int] | None:
    """--seat-players 2,3,4 -> [2, 3, 4] (UserError, one line, on anything else)."""
    if text is None:
        return None
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise UserError(f"{flag}: expected {what}, got {text!r}") from None


# tune scoring's own options (the shared ones are _app's)
ParamOpt = Annotated[
    list[str],
    typer.Option(
        "--param",
        help="PATH=LO:HI[:int], repeatable; PATH a dotted key of `boardlab rules`, list elements by index,"
        " e.g. scoring.commercial.tier_points[2]=20:35:int.",
        show_default=False,
    ),
]
ObjectiveOpt = Annotated[
    str,
    typer.Option(
        help="specialists (each agent of --agents), seats (each seat of the seat games) or both: win shares"
        " brought to 1/N."
    ),
]
SeatPlayersOpt = Annotated[
    str | None,
    typer.Option(
        "--seat-players",
        help="Player counts of the seat games (objective seats or both), comma-separated, e.g. 2,3,4."
        " Default: --players.",
        show_default=False,
    ),
]
SeatAgentOpt = Annotated[
    str | None,
    typer.Option(
        "--seat-agent",
        help="The agent in every seat of the seat games. Default: the game's plain agent of the tier of"
        " --agents (e.g. specialist:X -> greedy, strong-specialist:X -> strong; docs/tuning.md), or the first"
        " agent.",
        show_default=False,
    ),
]
SeatGamesOpt = Annotated[
    int | None,
    typer.Option(
        "--seat-games",
        help="Games per seat player count per trial (in --blocks blocks). Default: --games.",
        min=1,
        show_default=False,
    ),
]
AllowPlaceholderOpt = Annotated[
    list[str] | None,
    typer.Option(
        "--allow-placeholder",
        help="Tune this placeholder key anyway (repeatable; a dotted prefix covers its keys, e.g."
        " achievements.cards.green_canopy). `boardlab rules --placeholders` lists them.",
        show_default=False,
    ),
]
StopZOpt = Annotated[
    float,
    typer.Option(
        "--stop-z",
        help="Stop a trial after any block from the 2nd once its pooled loss is above the best trial's on the"
        " same blocks by more than Z standard errors of the paired block difference (0: no early stop).",
    ),
]
RaceOpt = Annotated[
    float,
    typer.Option(
        "--race",
        metavar="MARGIN",
        help="Race (needs --stop-z): stop a trial also once it is below the best by --stop-z standard errors (it"
        " becomes the best) or its gap ± --stop-z standard errors lies within ±MARGIN points² (0: no race).",
    ),
]
TuneAgentsOpt = Annotated[
    str | None,
    typer.Option(
        "--agents", help=f"One spec per seat, or one for all (as in simulate). {AGENTS_DEFAULT}", show_default=False
    ),
]
TrainOpt = Annotated[
    str | None,
    typer.Option(
        "--train",
        metavar="N0,N1",
        help="Fit learned weights under every trial's rules (games per self-play round, as `train --games`)"
        " and play the agents with them; without it they play the base's weights in every trial. Weights are"
        " kept in the weight cache by the rules' hash (BOARDLAB_WEIGHTS) and reused.",
        show_default=False,
    ),
]
TrainSeedOpt = Annotated[int, typer.Option("--train-seed", help="Seed of --train's self-play.")]
TrialsOpt = Annotated[
    int, typer.Option("--trials", help="Trials to finish (complete or pruned), the base's included.", min=1)
]
TuneGamesOpt = Annotated[
    int,
    typer.Option("--games", help="Games per trial: --blocks seed blocks of whole seat rotations (rounded up).", min=1),
]
BlocksOpt = Annotated[int, typer.Option("--blocks", help="Seed blocks per trial (the pruner's steps).", min=2)]
VerifyGamesOpt = Annotated[int, typer.Option(help="Base and best re-simulated on fresh seeds (0: skip).", min=0)]
KeepMeanTotalOpt = Annotated[
    float | None, typer.Option(help="Keep the mean total score within ±PCT% of the base's.", show_default=False)
]
MaxChangesOpt = Annotated[
    int | None, typer.Option(help="At most K parameters move from the base.", min=1, show_default=False)
]
SamplerOpt = Annotated[
    str, typer.Option(help="cmaes, tpe (multivariate), or auto: cmaes for two parameters or more, else tpe.")
]
PruneOpt = Annotated[float, typer.Option(help="WilcoxonPruner's p threshold (0: no pruning).")]
TuneSeedOpt = Annotated[int, typer.Option("--seed", help="Seed of the seed blocks and of the sampler.")]
TuneOutOpt = Annotated[
    Path | None,
    typer.Option(
        "--out",
        help=f"Output directory; the study is OUT/study.db (default runs/tune-scoring). {OUTPUT_RULE}",
        show_default=False,
    ),
]
WorkOpt = Annotated[Path | None, typer.Option("--work", help=f"Run cache (default: OUT/runs). {OUTPUT_RULE}")]
ResumeOpt = Annotated[bool, typer.Option("--resume", help="Continue the study in OUT (same settings).")]
QuietOpt = Annotated[bool, typer.Option("--quiet", help="No progress bar.")]
TuneChunkSizeOpt = Annotated[
    int | None,
    typer.Option(
        "--chunk-size",
        help="Games per chunk of every run (default: a block shared out over --jobs). Chunking never changes a"
        " run's games: a finished run of another chunk size is reused.",
        min=1,
    ),
]


@tune_app.command("scoring")
def tune_scoring(
    param: ParamOpt,
    objective: ObjectiveOpt = "specialists",
    seat_players: SeatPlayersOpt = None,
    seat_agent: SeatAgentOpt = None,
    seat_games: SeatGamesOpt = None,
    allow_placeholder: AllowPlaceholderOpt = None,
    stop_z: StopZOpt = 3.0,
    race: RaceOpt = 0.0,
    agents: TuneAgentsOpt = None,
    train: TrainOpt = None,
    train_seed: TrainSeedOpt = 1,
    players: PlayersOpt = None,
    rules: RulesOpt = None,
    game: GameOpt = None,
    trials: TrialsOpt = 50,
    games: TuneGamesOpt = 4_000,
    blocks: BlocksOpt = 10,
    verify_games: VerifyGamesOpt = 20_000,
    keep_mean_total: KeepMeanTotalOpt = None,
    max_changes: MaxChangesOpt = None,
    sampler: SamplerOpt = "auto",
    prune_p: PruneOpt = 0.05,
    seed: TuneSeedOpt = 0,
    out: TuneOutOpt = None,
    work: WorkOpt = None,
    resume: ResumeOpt = False,
    jobs: JobsOpt = 1,
    chunk_size: TuneChunkSizeOpt = None,
    backend: BackendOpt = "loky",
    scheduler: SchedulerOpt = None,
    quiet: QuietOpt = False,
):
    """Tune rule parameters by simulation (Optuna) so agents or seats win equally often; best.toml and a report."""
    settings = _scoring_settings(**locals())

    from boardlab.experiments import tuning as T
    from boardlab.experiments.simulate import SimulateError

    try:
        plan = T.check(settings)
    except ValueError as e:  # TuneError, SimulateError and the rules' errors are ValueErrors
        raise UserError(str(e).splitlines()[0]) from None
    jobs = check_jobs(jobs, backend)  # after every other check, so that its note never precedes an error
    plan = replace(plan, settings=replace(settings, session=replace(settings.session, jobs=jobs)))
    if plan.note:
        print(plan.note)
    bar, update = progress_bar(quiet, "tune")

    def progress(done: int, total: int, rate: float, label: str) -> None:
        update(done, total, rate, label=label)

    argv = [a for a in sys.argv[1:] if a != "--resume"]
    stopped = (
        f"{prog_name()}: interrupted; finished trials are kept in {T.study_path(settings.session.out)}. Continue"
        f" with:\n  {prog_name()} {shlex.join(argv)} --resume"
    )
    with interruptible(bar, stopped):
        try:
            outcome = T.run(plan, log=logger(bar), progress=progress)
        except (T.TuneError, SimulateError) as e:
            raise UserError(str(e).splitlines()[0]) from None
    print(outcome.text())


def _scoring_settings(**o) -> Any:
    """tune scoring's options, each checked on its own (one line each, nothing written), as its TuneSettings."""
    from boardlab.experiments import tuning as T

    check_seed(o["seed"])
    check_seed(o["train_seed"], "--train-seed")
    g = game_def(o["game"])
    base = load_rules(o["rules"], g)
    agents = split_specs(o["agents"] if o["agents"] is not None else g.ladder.default_agents, g)
    players = table_players(o["players"], g, base)
    seat_players = _counts(o["seat_players"])
    lo, hi = g.players
    for n in seat_players or ():  # a count outside the registry's range: make_tune_spec says so
        why = g.players_error(n, base) if lo <= n <= hi else None
        if why is not None:
            raise UserError(f"--seat-players: {why}")
    workers = check_workers(o["backend"], o["scheduler"])
    try:
        params = T.parse_params(o["param"], base)
    except ValueError as e:  # a TuneError, or a rule set's error
        raise UserError(str(e).splitlines()[0]) from None
    train = _counts(o["train"], "--train", "games per round separated by commas (e.g. 10000,10000)")
    out = check_output(o["out"], "--out", directory=True, default=Path("runs/tune-scoring"))
    work = check_output(o["work"], "--work", directory=True, default=out / "runs")
    what = T.Target(
        base=base, params=tuple(params), objective=o["objective"], keep_mean_total=o["keep_mean_total"],
        max_changes=o["max_changes"], allow_placeholders=tuple(o["allow_placeholder"] or ()),
    )  # fmt: skip
    play = T.Play(
        game=g.id, players=players, agents=tuple(agents), games=o["games"], seat_players=_tuple(seat_players),
        seat_agent=o["seat_agent"], seat_games=o["seat_games"], train=_tuple(train), train_seed=o["train_seed"],
    )  # fmt: skip
    search = T.Search(
        blocks=o["blocks"], seed=o["seed"], sampler=o["sampler"], prune_p=o["prune_p"], stop_z=o["stop_z"],
        race=o["race"], trials=o["trials"],
    )  # fmt: skip
    session = T.Session(
        out=out, work=work, resume=o["resume"], verify_games=o["verify_games"], jobs=o["jobs"],
        command=command_line(), chunk_size=o["chunk_size"], **workers,
    )  # fmt: skip
    return T.TuneSettings(what, play, search, session)


def _tuple(xs: list | None) -> tuple | None:
    return None if xs is None else tuple(xs)
