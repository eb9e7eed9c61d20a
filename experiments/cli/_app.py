"""The `boardlab` application (alias `citywright`), its shared options and its error handling.

Every error a user can cause prints one line on stderr and exits with code 2:
no traceback, and nothing written that looks complete.  Each command lives in
its own module of this package, a thin body over library functions.
"""

from __future__ import annotations

import shlex
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
    help="boardlab: simulation and balance analysis for tabletop games: simulate, rate agents, tune rules, report.",
)
tune_app = typer.Typer(
    help="Tune rules: seat compensation from stored games, scoring by simulation.", no_args_is_help=True
)
app.add_typer(tune_app, name="tune")

RulesOpt = Annotated[
    str | None,
    typer.Option(
        "--rules",
        help='Rule set: a preset (Citywright: v1.1 (default), v1.0) or a TOML variant file (base = "v1.1" ...).',
        show_default=False,
    ),
]
GameOpt = Annotated[str, typer.Option("--game", help="Game id (citywright games lists them).")]


class UserError(Exception):
    """An error caused by the user's input: one line, exit code 2."""


def game_def(game_id: str):
    """The registered game, or a one-line error naming the valid ids."""
    from sim.games import GameError, get_game

    try:
        return get_game(game_id)
    except GameError as e:
        raise UserError(f"--game: {e}") from None


def load_rules(spec: str | None, game: str = "citywright"):
    """The rule set `spec` of `game` (its default preset when None), or a one-line error."""
    g = game_def(game)
    try:
        return g.load_rules(spec if spec is not None else g.default_preset)
    except g.rules_error as e:
        raise UserError(str(e)) from None


def split_specs(text: str, game: str = "citywright") -> list[str]:
    """A command line's agent list of `game`, or a one-line error."""
    reg = game_def(game).agents()
    try:
        return reg.split_specs(text)
    except reg.AgentError as e:
        raise UserError(f"--agents: {e}") from None


def progress_bar(quiet: bool, label: str, total: int = 0):
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


def logger(bar):
    """print, or the progress bar's console while a bar is shown (so lines do not tear it)."""
    return bar.console.print if bar is not None else print


@contextmanager
def interruptible(bar, message: str):
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


def directory_option(path: Path, flag: str) -> Path:
    """`path` for a directory option: refused (one line) when it names a file."""
    if path.exists() and not path.is_dir():
        raise UserError(f"{flag}: {path} is a file; give a directory")
    return path


def output_file_option(path: Path, flag: str, force: bool = True) -> Path:
    """`path` for an output file: its directory must exist; an existing file needs `force`."""
    if not path.parent.exists():
        raise UserError(f"{flag}: directory {path.parent} does not exist")
    if path.exists() and not force:
        raise UserError(f"{flag}: {path} exists; use --force to overwrite")
    return path


def existing_files(paths: list[Path]) -> list[Path]:
    for p in paths:
        if not p.exists():
            raise UserError(f"{p}: no such file")
    return paths


# The command is `boardlab`; pyproject.toml installs the same entry point under the name it had while it
# hosted one game, so that every command quoted in results/ and in older notes still runs.
COMMAND = "boardlab"


def prog_name() -> str:
    """The name this command was invoked by (`boardlab` or its alias); `boardlab` under `python -m`."""
    name = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else ""
    return name if name and not name.endswith(".py") and not name.startswith("-") else COMMAND


def command_line() -> str:
    """This invocation as a shell command (recorded beside results)."""
    return prog_name() + " " + shlex.join(sys.argv[1:])


def main(argv: list[str] | None = None) -> None:
    """Entry point: turns every user error into one line on stderr and exit code 2."""
    from sim.games import GameError

    prog = prog_name()
    try:
        app(args=argv, standalone_mode=False, prog_name=prog)
    except (UserError, GameError) as e:
        print(f"{prog}: error: {e}", file=sys.stderr)
        sys.exit(2)
    except click_exceptions.NoArgsIsHelpError:
        sys.exit(0)
    except click_exceptions.UsageError as e:
        msg = e.format_message().replace("\n", " ")
        cmd = f" {e.ctx.info_name}" if e.ctx and e.ctx.info_name != prog else ""
        print(f"{prog}{cmd}: error: {msg}", file=sys.stderr)
        sys.exit(2)
    except (KeyboardInterrupt, getattr(click_exceptions, "Abort", KeyboardInterrupt)):
        print(f"{prog}: interrupted", file=sys.stderr)
        sys.exit(130)
    except getattr(click_exceptions, "Exit", SystemExit) as e:
        sys.exit(getattr(e, "exit_code", getattr(e, "code", 0)))
    except BrokenPipeError:
        sys.exit(0)
