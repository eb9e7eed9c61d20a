"""The `citywright` command.

Every error a user can cause prints one line on stderr and exits with code 2:
no traceback, and nothing written that looks complete.
"""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

try:  # typer vendors click in recent releases; older ones use click itself
    from typer._click import exceptions as click_exceptions
except ImportError:  # pragma: no cover
    from click import exceptions as click_exceptions

app = typer.Typer(
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    help="Citywright balance toolkit: simulate games, score boards, measure the engine.",
)

RulesOpt = Annotated[
    str,
    typer.Option("--rules", help='Rule set: a preset (v1.1, v1.0) or a TOML variant file (base = "v1.1" ...).'),
]


class UserError(Exception):
    """An error caused by the user's input: one line, exit code 2."""


def _progress_bar(quiet: bool, label: str, total: int = 0):
    """A started rich progress bar on stderr and update(done, total, rate, label=None).

    None (and a no-op update) when quiet or when stderr is not a terminal: logs stay clean."""
    if quiet or not sys.stderr.isatty():
        return None, lambda *a, **k: None
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("games  {task.fields[rate]}"),
        TimeRemainingColumn(),
        console=Console(stderr=True),
        transient=False,
    )
    task = bar.add_task(label, total=total, rate="")
    bar.start()

    def update(done: int, total: int, rate: float, label: str | None = None) -> None:
        fields = {"description": label} if label else {}
        bar.update(task, completed=done, total=total, rate=f"{rate:,.0f}/s" if rate else "", **fields)

    return bar, update


@contextmanager
def _interruptible(bar, message: str):
    """Stop the progress bar however the block ends; on Ctrl-C print `message` and exit 130."""
    try:
        yield
    except KeyboardInterrupt:
        if bar is not None:
            bar.stop()
        print(message, file=sys.stderr)
        sys.exit(130)
    finally:
        if bar is not None:
            bar.stop()


def _directory_option(path: Path, flag: str) -> Path:
    """`path` for a directory option: refused (one line) when it names a file."""
    if path.exists() and not path.is_dir():
        raise UserError(f"{flag}: {path} is a file; give a directory")
    return path


def _command_line() -> str:
    """This invocation as a shell command (recorded beside results)."""
    import shlex

    return "citywright " + shlex.join(sys.argv[1:])


def _rules(spec: str):
    from sim.citywright.rules import RulesError, load_rules

    try:
        return load_rules(spec)
    except RulesError as e:
        raise UserError(str(e)) from None


@app.command()
def score(
    files: Annotated[list[str], typer.Argument(help="Board files; '-' reads standard input.", show_default=False)],
    rules: RulesOpt = "v1.1",
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object per board per line.")] = False,
):
    """Score playtest boards: 7 lines of 7 characters from R C P I . per board, boards separated by blank lines."""
    from sim.citywright.boards import BoardError, parse_boards, score_cells

    rs = _rules(rules)
    parsed = []
    for f in files:
        if f == "-":
            text, name = sys.stdin.read(), "<stdin>"
        else:
            try:
                text, name = Path(f).read_text(encoding="utf-8"), f
            except (OSError, UnicodeDecodeError) as e:
                raise UserError(f"{f}: cannot read: {getattr(e, 'strerror', None) or e}") from None
        try:
            parsed.extend(parse_boards(text, name))
        except BoardError as e:
            raise UserError(str(e)) from None
    results = score_cells([b.cells for b in parsed], rs)
    out = []
    for b, r in zip(parsed, results, strict=True):
        if as_json:
            out.append(json.dumps(r))
            continue
        out.append(f"{b.source}:{b.line}  (rules {rs.name})")
        rows = [" ".join(b.cells[7 * i : 7 * i + 7]) for i in range(7)]
        labels = [
            f"residential {r['residential']:4d}",
            f"commercial  {r['commercial']:4d}",
            f"park        {r['park']:4d}",
            f"industrial  {r['industrial']:4d}",
            f"districts   {r['districts']:4d}",
            f"empty cells {r['empty']:4d}",
            "",
        ]
        out.extend(f"  {row}    {label}".rstrip() for row, label in zip(rows, labels, strict=True))
        out.append("")
    sys.stdout.write("\n".join(out).rstrip("\n") + "\n")


@app.command()
def bench(
    games: Annotated[int, typer.Option(help="Games per player count.", min=100)] = 50_000,
    boards: Annotated[int, typer.Option(help="Boards to score.", min=1000)] = 1_000_000,
    rules: RulesOpt = "v1.1",
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as one JSON object.")] = False,
    no_subprocess: Annotated[
        bool, typer.Option("--no-subprocess", help="Skip cold-compile and start-up timings.")
    ] = False,
    no_agents: Annotated[bool, typer.Option("--no-agents", help="Skip the agents' figures.")] = False,
    agent_games: Annotated[int, typer.Option(help="Games per agent figure.", min=10)] = 400,
):
    """Engine and agent throughput on this machine, one core, after warm-up."""
    from experiments import bench as B

    res = B.run(
        games=games,
        boards=boards,
        rules=_rules(rules),
        subprocesses=not no_subprocess,
        agents=not no_agents,
        agent_games=agent_games,
    )
    if as_json:
        print(json.dumps(res))
        return
    from rich.console import Console
    from rich.table import Table

    t = Table(title=f"citywright bench (rules {res['rules']}, one core, best of repeats)")
    t.add_column("figure")
    t.add_column("value", justify="right")
    t.add_column("target", justify="right")
    targets = B.TARGETS
    for k, v in res.items():
        if k in ("rules",):
            continue
        t.add_row(k, f"{v:,}" if isinstance(v, int) else str(v), targets.get(k, ""))
    Console().print(t)


@app.command("agents")
def list_agents():
    """List every agent with its parameters, defaults and a line of description."""
    from agents.citywright.registry import available_agents

    for d in available_agents():
        print(f"{d.name:<11} {d.description}")
        if d.objective:
            print(f"{'':<11} {d.objective}")
        for p in d.params:
            default = "required" if p.default is None else f"default {p.default}"
            choices = f"; one of {', '.join(p.choices)}" if p.choices else ""
            print(f"{'':<11}   {p.name:<9} {p.help} ({default}{choices})")
    print("\nSpec strings: NAME or NAME:key=value,... e.g. greedy, specialist:C,weight=3, mcts:iters=1000,k=24")


@app.command()
def simulate(
    players: Annotated[int, typer.Option("--players", help="Players per game, 1-4.", show_default=False)],
    agents: Annotated[
        str,
        typer.Option(
            "--agents",
            help="One spec per seat, comma-separated (greedy,random,...), or one spec for every seat.",
            show_default=False,
        ),
    ],
    games: Annotated[int, typer.Option("--games", help="Number of games.", show_default=False)],
    out: Annotated[Path, typer.Option("--out", help="Output Parquet file (one row per game and seat).")],
    seed: Annotated[int, typer.Option("--seed", help="Run seed: game g's seed comes from (seed, g) alone.")] = 0,
    rules: RulesOpt = "v1.1",
    seating: Annotated[
        str,
        typer.Option(
            help="fixed: agent i in seat i; rotate: game g shifts agents by g; permute: all orders;"
            " draw: each seat draws its agent from the --agents pool (any size)."
        ),
    ] = "rotate",
    jobs: Annotated[int, typer.Option("--jobs", help="Worker processes (loky backend).", min=1)] = 1,
    backend: Annotated[str, typer.Option(help="loky (this machine) or dask (a cluster).")] = "loky",
    scheduler: Annotated[str | None, typer.Option(help="Dask scheduler address, e.g. tcp://10.0.0.5:8786.")] = None,
    resume: Annotated[bool, typer.Option("--resume", help="Continue an interrupted run: only missing chunks.")] = False,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing output.")] = False,
    moves: Annotated[bool, typer.Option("--moves", help="Also write a move log (OUT stem + .moves.parquet).")] = False,
    chunk_size: Annotated[
        int | None, typer.Option(help="Games per chunk (default: a few seconds of work).", min=1)
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
):
    """Play many games in parallel into a Parquet table; reproducible, resumable, on loky or Dask."""
    import shlex

    from agents.citywright.registry import AgentError, split_specs

    from experiments import simulate as S

    rs = _rules(rules)
    try:
        specs = split_specs(agents)
    except AgentError as e:
        raise UserError(f"--agents: {e}") from None
    if backend not in ("loky", "dask"):
        raise UserError(f"--backend must be loky or dask, got {backend!r}")
    if scheduler and backend != "dask":
        raise UserError("--scheduler needs --backend dask")
    try:
        spec = S.make_spec(players, specs, games, seed, rs, seating, chunk_size, moves)
    except S.SimulateError as e:
        raise UserError(str(e)) from None
    bar, update = _progress_bar(quiet, "simulate", games)
    argv = [a for a in sys.argv[1:] if a not in ("--force", "--resume")]
    stopped = (
        f"citywright: interrupted; finished chunks are kept in {out}.parts. Resume with:\n"
        f"  citywright {shlex.join(argv)} --resume"
    )
    with _interruptible(bar, stopped):
        try:
            meta = S.run(spec, out, jobs=jobs, backend=backend, scheduler=scheduler, resume=resume, force=force,
                         progress=update)  # fmt: skip
        except S.SimulateError as e:
            raise UserError(str(e)) from None
    sess = meta["this_session"]
    rate = sess["games"] / sess["seconds"] if sess["seconds"] else 0.0
    print(
        f"wrote {out}: {meta['games']:,} games x {meta['players']} seats = {meta['rows']:,} rows"
        f" ({sess['games']:,} games played now in {sess['seconds']:.1f} s, {rate:,.0f} games/s); metadata in {out}.json"
    )


@app.command()
def ladder(
    games: Annotated[int, typer.Option(help="Games per pairing.", min=1)] = 2000,
    seed: Annotated[int, typer.Option(help="Run seed (game g's seed comes from it and g).")] = 0,
    jobs: Annotated[int, typer.Option(help="Worker processes.", min=1)] = 1,
    rules: RulesOpt = "v1.1",
    out: Annotated[
        Path | None, typer.Option(help="Also write the table as CSV here (written whole, atomically).")
    ] = None,
):
    """The agents' strength ladder: greedy vs random, mcts vs greedy (2 players), mcts + 3 greedy (4 players)."""
    import os
    import time

    import pandas as pd

    from experiments.ladder import PAIRINGS, play_pairing, win_shares

    rs = _rules(rules)
    if out is not None and not out.parent.exists():
        raise UserError(f"--out: directory {out.parent} does not exist")
    tables = []
    for name, specs, target in PAIRINGS:
        t = time.perf_counter()
        ws = win_shares(play_pairing(specs, games, seed=seed, rules=rs, jobs=jobs))
        first = ws.iloc[0]
        verdict = "met" if first["win_share"] >= target else "NOT met"
        print(
            f"{name}: {first['agent']} win share {100 * first['win_share']:.1f}% "
            f"[95% Wilson {100 * first['lo']:.1f}, {100 * first['hi']:.1f}] over {first['n']} games "
            f"(target >= {100 * target:.0f}%: {verdict}; {time.perf_counter() - t:.0f} s)"
        )
        ws.insert(0, "pairing", name)
        ws["target"] = [target] + [float("nan")] * (len(ws) - 1)
        tables.append(ws)
    if out is not None:
        tmp = out.with_suffix(out.suffix + ".tmp")
        pd.concat(tables).to_csv(tmp, index=False)
        os.replace(tmp, out)


@app.command()
def rescore(
    results: Annotated[list[Path], typer.Argument(help="Result files (from simulate).", show_default=False)],
    rules: Annotated[str, typer.Option("--rules", help="The new rule set: a preset or a TOML variant.")],
    out: Annotated[Path | None, typer.Option(help="Write the rescored table here (Parquet).")] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite --out if it exists.")] = False,
):
    """Recompute scores, ranks and win shares from stored boards under other scoring; play is held fixed."""
    import os

    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    from experiments.pipelines import load_results, win_share
    from experiments.rescore import rescore as do_rescore

    from experiments import simulate as S

    rs = _rules(rules)
    for r in results:
        if not r.exists():
            raise UserError(f"{r}: no such file")
    if out is not None:
        if not out.parent.exists():
            raise UserError(f"--out: directory {out.parent} does not exist")
        if out.exists() and not force:
            raise UserError(f"--out: {out} exists; use --force to overwrite")
    try:
        before = load_results(results)
        # each file is its own run: games are ranked within their file
        after = pd.concat(
            [
                do_rescore(part.drop(columns="run"), rs).assign(run=run)
                for run, part in before.groupby("run", sort=False)
            ],
            ignore_index=True,
        )
    except (ValueError, OSError) as e:
        raise UserError(str(e).splitlines()[0]) from None
    print(f"Rescored {len(before):,} rows under rules {rs.name}: play held fixed (the agents chose their moves")
    print("under the original scoring; use a sweep to let them replan).")
    b = win_share(before, ["players", "agent"]).set_index(["players", "agent"])
    a = win_share(after, ["players", "agent"]).set_index(["players", "agent"])
    print(f"{'players':>7}  {'agent':<40} {'win share before':>22} {'after':>22}")
    for key in b.index:
        fb, fa = b.loc[key], a.loc[key]
        print(
            f"{key[0]:>7}  {key[1]:<40} {100 * fb['win_share']:6.1f}% [{100 * fb['lo']:4.1f},{100 * fb['hi']:5.1f}]"
            f" {100 * fa['win_share']:6.1f}% [{100 * fa['lo']:4.1f},{100 * fa['hi']:5.1f}]"
        )
    if out is not None:
        meta = {
            "rescored_from": [str(r) for r in results],
            "rules": rs.to_dict(),
            "note": "scores, ranks and win shares recomputed from stored boards; play held fixed",
        }
        try:
            meta["original"] = S.read_metadata(results[0])
        except S.SimulateError:
            pass
        table = pa.Table.from_pandas(after.drop(columns="run"), preserve_index=False)
        table = table.replace_schema_metadata({S.METADATA_KEY: __import__("json").dumps(meta).encode()})
        tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
        pq.write_table(table, tmp, compression="zstd")
        os.replace(tmp, out)
        print(f"wrote {out}")


tune_app = typer.Typer(help="Tune rules from stored results.", no_args_is_help=True)
app.add_typer(tune_app, name="tune")


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
    import tempfile

    import pandas as pd

    from experiments import compensation as C
    from experiments.pipelines import load_results

    from experiments import simulate as S

    for r in results:
        if not r.exists():
            raise UserError(f"{r}: no such file")
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
        from sim.citywright.rules import from_mapping

        rules = from_mapping(meta["rules"], base=meta["rules"])
        vec = [int(x) for x in best["compensation"].iloc[0].split("/")]
        rules = rules.with_overrides({f"game.compensation.{n}": vec})
        spec = S.make_spec(n, meta["agents"], verify_games, meta["seed"], rules, meta["seating"])
        with tempfile.TemporaryDirectory() as d:
            S.run(spec, Path(d) / "verify.parquet", jobs=jobs)
            ver = C.current(pd.read_parquet(Path(d) / "verify.parquet"))
        show("verified", ver)
        print(f"(verification re-simulated {verify_games:,} games with compensation {best['compensation'].iloc[0]})")


@app.command()
def sweep(
    param: Annotated[
        str, typer.Option("--param", help="Dotted rule path, e.g. scoring.residential.pair_points.", show_default=False)
    ],
    values: Annotated[
        str,
        typer.Option(
            "--values", help="Comma-separated values (JSON each; ';' if values hold commas).", show_default=False
        ),
    ],
    players: Annotated[int, typer.Option("--players", help="Players per game, 1-4.")] = 4,
    agents: Annotated[
        str, typer.Option("--agents", help="One spec per seat, or one for all (as in simulate).")
    ] = "specialist:R,specialist:C,specialist:P,specialist:I",
    games: Annotated[int, typer.Option("--games", help="Games per value.", min=1)] = 10_000,
    out: Annotated[Path, typer.Option("--out", help="Output directory: sweep.csv and sweep.png.")] = Path("runs/sweep"),
    work: Annotated[
        Path | None, typer.Option("--work", help="Run cache, reused when repeated (default: OUT/runs).")
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Run seed (the same game seeds for every value).")] = 0,
    rules: RulesOpt = "v1.1",
    seating: Annotated[str, typer.Option(help="fixed, rotate, permute or draw (as in simulate).")] = "rotate",
    jobs: Annotated[int, typer.Option("--jobs", help="Worker processes.", min=1)] = 1,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
):
    """Re-simulate for each value of one rule parameter (agents replan); win share per agent, CSV and chart."""
    from agents.citywright.registry import AgentError, split_specs
    from experiments import sweep as W

    from experiments import simulate as S
    from sim.citywright.rules import RulesError

    base = _rules(rules)
    try:
        vals = W.parse_values(values)
        W.sweep_rules(base, param, vals)
        specs = split_specs(agents)
        S.make_spec(players, specs, games, seed, base, seating)
    except (ValueError, RulesError, AgentError, S.SimulateError) as e:
        raise UserError(str(e).splitlines()[0]) from None
    _directory_option(out, "--out")
    work = _directory_option(work or out / "runs", "--work")
    out.mkdir(parents=True, exist_ok=True)
    work.mkdir(parents=True, exist_ok=True)
    bar, update = _progress_bar(quiet, "sweep")

    def progress(label: str, done: int, total: int, rate: float) -> None:
        update(done, total, rate, label=label)

    def log(message: str) -> None:
        (bar.console.print if bar is not None else print)(message)

    stopped = f"citywright: interrupted; finished runs and chunks are kept in {work}: run the same command to continue"
    with _interruptible(bar, stopped):
        table = W.run_sweep(
            base, param, vals, players, specs, games, seed, seating, work, jobs=jobs, log=log, progress=progress
        )
    about = {
        "command": _command_line(), "param": param, "values": vals, "rules": base.name, "players": players,
        "agents": specs, "games_per_value": games, "seed": seed, "seating": seating, "git_commit": S._git_commit(),
    }  # fmt: skip
    W.write_outputs(table, param, out, about)
    print(f"\nWin share per agent (%, 95% Wilson), {games:,} games per value, rules {base.name} with {param} =")
    piv = table.assign(
        cell=[
            f"{w:5.1f} [{lo:4.1f}, {hi:4.1f}]"
            for w, lo, hi in zip(table["win_pct"], table["lo"], table["hi"], strict=True)
        ]
    ).pivot(index="agent", columns="value", values="cell")
    print(piv[[W.value_label(v) for v in vals]].to_string())
    print(f"wrote {out / 'sweep.csv'}, {out / 'sweep.png'} (runs kept in {work} for re-analysis)")


@app.command()
def reproduce(
    games: Annotated[
        int, typer.Option("--games", help="Games per main table (other runs scale from it).", min=20)
    ] = 2000,
    jobs: Annotated[int, typer.Option("--jobs", help="Worker processes.", min=1)] = 2,
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Tables, charts and REPORT.md go here (default: runs/appendix/games-N/report)."),
    ] = None,
    work: Annotated[
        Path | None,
        typer.Option("--work", help="Run cache, resumable, not committed (default: runs/appendix/games-N/runs)."),
    ] = None,
    seed: Annotated[int, typer.Option("--seed", help="Run seed shared by every run.")] = 0,
    backend: Annotated[str, typer.Option(help="loky (this machine) or dask (a cluster).")] = "loky",
    scheduler: Annotated[str | None, typer.Option(help="Dask scheduler address.")] = None,
    quiet: Annotated[
        bool, typer.Option("--quiet", help="No progress bar (one line per run is still printed).")
    ] = False,
):
    """Re-run every figure of the rulebook's appendix (RULES.md section 10); REPORT.md sets ours beside the book's."""
    import time

    from experiments.reproduce import reproduce as do_reproduce

    if backend not in ("loky", "dask"):
        raise UserError(f"--backend must be loky or dask, got {backend!r}")
    home = Path("runs") / "appendix" / f"games-{games}"
    out = _directory_option(out or home / "report", "--out")
    work = _directory_option(work or home / "runs", "--work")
    t = time.perf_counter()
    print(f"Reproducing RULES.md section 10 with {games:,} games per main table on {jobs} process(es); runs in {work}")
    bar, update = _progress_bar(quiet, "reproduce")

    def log(message: str) -> None:
        (bar.console.print if bar is not None else print)(message)

    def progress(job, done: int, total: int, rate: float) -> None:
        update(done, total, rate, label=job.key)

    stopped = f"citywright: interrupted; finished runs and chunks are kept in {work}: run the same command to continue"
    from experiments import simulate as S

    with _interruptible(bar, stopped):
        try:
            do_reproduce(
                games, out, work, seed=seed, n_jobs=jobs, command=_command_line(), backend=backend,
                scheduler=scheduler, log=log, progress=progress,
            )  # fmt: skip
        except (S.SimulateError, OSError) as e:
            raise UserError(str(e).splitlines()[0]) from None
    print(f"wrote {out}/REPORT.md, tables (*.csv) and charts (*.png) in {time.perf_counter() - t:.0f} s")


@app.command("rules")
def show_rules(
    spec: Annotated[str, typer.Argument(help="A preset (v1.1, v1.0) or a TOML variant file.")] = "v1.1",
):
    """Print a rule set in full (JSON): every parameter a variant file can override."""
    print(json.dumps(_rules(spec).to_dict(), indent=2))


@app.command()
def demo(
    games: Annotated[int, typer.Option(help="Games per player count.", min=1)] = 20_000,
    seed: Annotated[int, typer.Option(help="Base seed: game g uses seed + g.")] = 0,
    rules: RulesOpt = "v1.1",
):
    """A default simulation with uniform-random players at 1-4 players, summarised."""
    import time

    import numpy as np

    from sim.citywright import engine as E
    from experiments.bench import play_random
    from sim.stats import wilson

    rs = _rules(rules)
    print(f"Uniform-random players, rules {rs.name}, {games:,} games per player count, seeds {seed}..")
    for p in (1, 2, 3, 4):
        seeds = (np.arange(games, dtype=np.uint64) + np.uint64(seed & ((1 << 64) - 1))).astype(np.uint64)
        t = time.perf_counter()
        scores, _, stats = play_random(rs, p, seeds)
        dt = time.perf_counter() - t
        tot = scores[:, :, E.SC_TOTAL]
        print(f"\n{p} player(s): {games:,} games in {dt:.2f} s")
        means = ", ".join(
            f"{name} {scores[:, :, i].mean():.1f}"
            for name, i in (("R", E.SC_R), ("C", E.SC_C), ("P", E.SC_P), ("I", E.SC_I), ("achievements", E.SC_ACH))
        )
        print(
            f"  mean per player: {means}, total {tot.mean():.1f}, waste {stats[:, :, 1].mean():.2f},"
            f" empty cells {scores[:, :, E.SC_EMPTY].mean():.1f}"
        )
        if p > 1:
            rank1 = scores[:, :, E.SC_RANK] == 1
            share = rank1 / rank1.sum(axis=1, keepdims=True)
            parts = []
            for s in range(p):
                w = share[:, s].sum()
                lo, hi = wilson(w, games)
                parts.append(f"seat {s + 1} {100 * w / games:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]")
            print("  win share by seat (95% Wilson): " + "; ".join(parts))


def main(argv: list[str] | None = None) -> None:
    """Entry point: turns every user error into one line on stderr and exit code 2."""
    try:
        app(args=argv, standalone_mode=False, prog_name="citywright")
    except UserError as e:
        print(f"citywright: error: {e}", file=sys.stderr)
        sys.exit(2)
    except click_exceptions.NoArgsIsHelpError:
        sys.exit(0)
    except click_exceptions.UsageError as e:
        msg = e.format_message().replace("\n", " ")
        cmd = f" {e.ctx.info_name}" if e.ctx and e.ctx.info_name != "citywright" else ""
        print(f"citywright{cmd}: error: {msg}", file=sys.stderr)
        sys.exit(2)
    except (KeyboardInterrupt, getattr(click_exceptions, "Abort", KeyboardInterrupt)):
        print("citywright: interrupted", file=sys.stderr)
        sys.exit(130)
    except getattr(click_exceptions, "Exit", SystemExit) as e:
        sys.exit(getattr(e, "exit_code", getattr(e, "code", 0)))
    except BrokenPipeError:
        sys.exit(0)


if __name__ == "__main__":
    main()
