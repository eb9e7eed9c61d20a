"""`citywright compare A B`: two rule sets on the same seeds, paired differences and a one-page report."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ._app import (
    UserError,
    app,
    command_line,
    directory_option,
    interruptible,
    load_rules,
    logger,
    progress_bar,
    split_specs,
)


@app.command()
def compare(
    a: Annotated[str, typer.Argument(help="Rule set A: a preset (v1.1, v1.0) or a TOML variant file.")],
    b: Annotated[str, typer.Argument(help="Rule set B, played on the same seeds.")],
    agents: Annotated[
        str, typer.Option("--agents", help="One spec per seat, or one for all (as in simulate).")
    ] = "specialist:R,specialist:C,specialist:P,specialist:I",
    players: Annotated[int, typer.Option("--players", help="Players per game.")] = 4,
    games: Annotated[int, typer.Option("--games", help="Games for each rule set.", min=1)] = 10_000,
    seating: Annotated[str, typer.Option(help="fixed, rotate, permute or draw (as in simulate).")] = "rotate",
    seed: Annotated[int, typer.Option("--seed", help="Run seed (the same game seeds for A and B).")] = 0,
    out: Annotated[Path, typer.Option("--out", help="Output directory: REPORT.md, compare.csv, compare.png.")] = Path(
        "runs/compare"
    ),
    work: Annotated[Path | None, typer.Option("--work", help="Run cache (default: OUT/runs).")] = None,
    jobs: Annotated[int, typer.Option("--jobs", help="Worker processes.", min=1)] = 1,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
):
    """Compare two rule sets on the same games: paired differences of win share, scores, waste; REPORT.md."""
    from experiments import compare as C
    from experiments import simulate as S

    rules_a, rules_b = load_rules(a), load_rules(b)
    specs = split_specs(agents)
    try:
        spec = S.make_spec(players, specs, games, seed, rules_a, seating)
    except S.SimulateError as e:
        raise UserError(str(e)) from None
    directory_option(out, "--out")
    work = directory_option(work or out / "runs", "--work")
    out.mkdir(parents=True, exist_ok=True)
    work.mkdir(parents=True, exist_ok=True)
    bar, update = progress_bar(quiet, "compare")

    def progress(label: str, done: int, total: int, rate: float) -> None:
        update(done, total, rate, label=f"rules {label}")

    stopped = f"citywright: interrupted; finished chunks are kept in {work}: run the same command to continue"
    with interruptible(bar, stopped):
        try:
            df_a, df_b, spec = C.play_both(rules_a, rules_b, players, specs, games, seed, seating, work, jobs, progress)
        except S.SimulateError as e:
            raise UserError(str(e)) from None
    labels = C.agent_labels(spec, specs)
    table = C.compare_table(df_a, df_b, list(spec.agents))
    about = {
        "command": command_line(), "git_commit": S._git_commit(), "a": a, "b": b, "players": players,
        "agents": specs, "games": games, "seed": seed, "seating": seating,
    }  # fmt: skip
    C.write_outputs(table, C.rule_differences(rules_a, rules_b), out, about, labels)
    logger(None)(C.summary_text(table, labels))
    print(f"wrote {out / 'REPORT.md'}, compare.csv and compare.png (runs kept in {work})")
