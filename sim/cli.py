"""The `citywright` command.

Every error a user can cause prints one line on stderr and exits with code 2:
no traceback, and nothing written that looks complete.
"""

from __future__ import annotations

import json
import sys
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
    typer.Option("--rules", help="Rule set: a preset (v1.1, v1.0) or a TOML variant file (base = \"v1.1\" ...)."),
]


class UserError(Exception):
    """An error caused by the user's input: one line, exit code 2."""


def _rules(spec: str):
    from .rules import RulesError, load_rules

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
    from .boards import BoardError, parse_boards, score_cells

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
):
    """Engine throughput on this machine, one core, after warm-up (random players; boards scored)."""
    from . import bench as B

    res = B.run(games=games, boards=boards, rules=_rules(rules), subprocesses=not no_subprocess)
    if as_json:
        print(json.dumps(res))
        return
    from rich.console import Console
    from rich.table import Table

    t = Table(title=f"citywright bench (rules {res['rules']}, one core, best of repeats)")
    t.add_column("figure")
    t.add_column("value", justify="right")
    t.add_column("target", justify="right")
    targets = {
        "random_games_per_s_4p": ">= 30,000",
        "boards_per_s": ">= 20,000,000",
        "cold_compile_s": "<= 15",
        "score_one_board_s": "<= 1.5",
    }
    for k, v in res.items():
        if k in ("rules",):
            continue
        t.add_row(k, f"{v:,}" if isinstance(v, int) else str(v), targets.get(k, ""))
    Console().print(t)


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

    from . import engine as E
    from .bench import play_random
    from .stats import wilson

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
    except click_exceptions.Abort:
        print("citywright: interrupted", file=sys.stderr)
        sys.exit(130)
    except click_exceptions.Exit as e:
        sys.exit(e.exit_code)
    except BrokenPipeError:
        sys.exit(0)


if __name__ == "__main__":
    main()
