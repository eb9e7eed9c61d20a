"""`boardlab compare A B`: two rule sets on the same seeds, paired differences and a one-page report."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from boardlab.experiments.provenance import git_commit

from ._app import (
    AGENTS_DEFAULT,
    OUTPUT_RULE,
    BackendOpt,
    ChunkSizeOpt,
    GameOpt,
    JobsOpt,
    PlayersOpt,
    SchedulerOpt,
    UserError,
    app,
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
    split_specs,
    table_players,
)


@app.command()
def compare(
    a: Annotated[str, typer.Argument(help="Rule set A: a preset of the game or a TOML variant file.")],
    b: Annotated[str, typer.Argument(help="Rule set B, played on the same seeds.")],
    agents: Annotated[
        str | None,
        typer.Option(
            "--agents", help=f"One spec per seat, or one for all (as in simulate). {AGENTS_DEFAULT}", show_default=False
        ),
    ] = None,
    players: PlayersOpt = None,
    games: Annotated[int, typer.Option("--games", help="Games for each rule set.", min=1)] = 10_000,
    seating: Annotated[str, typer.Option(help="fixed, rotate, permute or draw (as in simulate).")] = "rotate",
    seed: Annotated[int, typer.Option("--seed", help="Run seed (the same game seeds for A and B).")] = 0,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help=f"Output directory: REPORT.md, compare.csv, compare.png (default runs/compare). {OUTPUT_RULE}",
            show_default=False,
        ),
    ] = None,
    work: Annotated[Path | None, typer.Option("--work", help=f"Run cache (default: OUT/runs). {OUTPUT_RULE}")] = None,
    game: GameOpt = None,
    jobs: JobsOpt = 1,
    chunk_size: ChunkSizeOpt = None,
    backend: BackendOpt = "loky",
    scheduler: SchedulerOpt = None,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
):
    """Compare two rule sets on the same games: paired differences of win share and of the game's summary
    (its score breakdown and more); REPORT.md."""
    from boardlab.experiments import compare as C
    from boardlab.experiments import simulate as S
    from boardlab.experiments.io import ResultsError

    check_seed(seed)
    g = game_def(game)
    rules_a, rules_b = load_rules(a, g), load_rules(b, g)
    specs = split_specs(agents if agents is not None else g.ladder.default_agents, g)
    players = table_players(players, g, rules_a, rules_b)
    workers = check_workers(backend, scheduler)
    try:
        spec = S.make_spec(players, specs, games, seed, rules_a, seating, chunk_size, game=g.id)
        S.make_spec(players, specs, games, seed, rules_b, seating, chunk_size, game=g.id)
    except S.SimulateError as e:
        raise UserError(str(e)) from None
    out = check_output(out, "--out", directory=True, default=Path("runs/compare"))
    work = check_output(work, "--work", directory=True, default=out / "runs")
    jobs = check_jobs(jobs, backend, spec.n_chunks)
    out.mkdir(parents=True, exist_ok=True)
    work.mkdir(parents=True, exist_ok=True)
    bar, update = progress_bar(quiet, "compare")

    def progress(label: str, done: int, total: int, rate: float) -> None:
        update(done, total, rate, label=f"rules {label}")

    stopped = f"{prog_name()}: interrupted; finished chunks are kept in {work}: run the same command to continue"
    with interruptible(bar, stopped):
        try:
            df_a, df_b, spec, spec_b = C.play_both(
                rules_a, rules_b, players, specs, games, seed, seating, work, jobs, progress, game=g,
                chunk_size=chunk_size, **workers,
            )  # fmt: skip
        except (S.SimulateError, ResultsError) as e:
            raise UserError(str(e)) from None
    labels = C.agent_labels(spec, specs)
    table = C.compare_table(df_a, df_b, list(spec.agents), g.reports.summary)
    extra = g.optional("compare_sections")
    if extra is not None:  # the game's own sections (its Reports' compare_sections), after the generic ones
        import pandas as pd

        table = pd.concat([table, extra.table(df_a, df_b, rules_a, rules_b)], ignore_index=True)
    about = {
        "command": command_line(), "git_commit": git_commit(), "a": a, "b": b, "players": players,
        "agents": specs, "games": games, "seed": seed, "seating": seating, "game": g.id,
        "played_differently": C.played_differently(spec, spec_b),
    }  # fmt: skip
    C.write_outputs(table, C.rule_differences(rules_a, rules_b), out, about, labels, g.reports.summary, extra)
    logger(None)(C.summary_text(table, labels, extra))
    print(f"wrote {out / 'REPORT.md'}, compare.csv and compare.png (runs kept in {work})")
