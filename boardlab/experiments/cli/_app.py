"""The `boardlab` application (alias `citywright`), its shared options and its error handling.

Every error a user can cause prints one line on stderr and exits with code 2:
no traceback, and nothing written that looks complete.  Each command lives in
its own module of this package, a thin body over library functions.
"""

from __future__ import annotations

import functools
import os
import shlex
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from boardlab.experiments import COMMAND  # the command's name, shared with the library's reports

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
        help="Rule set: a preset of the game (`boardlab games` lists them; the first is the default) or a TOML"
        ' variant file (base = "PRESET" ...).',
        show_default=False,
    ),
]

# --- the shared option set ----------------------------------------------------------------------
# Every command that is not one game's own takes --game; every command that plays games takes --jobs,
# --backend and --scheduler; every output option is checked by check_output before any work.
# --game's default is None, resolved by game_def to the registry's default (boardlab.sim.games.DEFAULT_GAME) when the
# command runs: the registry is not imported to show --help.
GameOpt = Annotated[
    str | None,
    typer.Option(
        "--game",
        help="Game id (`boardlab games` lists them; default: the registry's default game).",
        show_default=False,
    ),
]
JobsOpt = Annotated[
    int,
    typer.Option(
        "--jobs",
        help="Worker processes on this machine (--backend loky); at most its cores and the work's chunks.",
        min=1,
    ),
]
BackendOpt = Annotated[
    str, typer.Option("--backend", help="loky (processes on this machine) or dask (a cluster: --scheduler).")
]
SchedulerOpt = Annotated[
    str | None,
    typer.Option(
        "--scheduler", help="Dask scheduler address, e.g. tcp://10.0.0.5:8786 (--backend dask; default: a local one)."
    ),
]
ChunkSizeOpt = Annotated[
    int | None,
    typer.Option(
        "--chunk-size",
        help="Games per chunk of each run (default: the game's rule, a few seconds of work); a run of another"
        " chunk size is played anew, not reused.",
        min=1,
    ),
]
# The balance commands' tables (compare, sweep, tune scoring): the game's own agents and four players by default.
PlayersOpt = Annotated[
    int | None, typer.Option("--players", help="Players per game (default 4, or the game's nearest count).")
]
AGENTS_DEFAULT = "Default: the game's balance agents (GameDef.ladder.default_agents; README lists them)."
BACKENDS = ("loky", "dask")
# The one rule for an output's folders, quoted in every output option's help.
OUTPUT_RULE = "Its folder must exist (the default's folders are created)."


class UserError(Exception):
    """An error caused by the user's input: one line, exit code 2."""


def game_def(game):
    """The registered game, or a one-line error.

    Parameters
    ----------
    game : str or GameDef or None
        The game (``--game``); None: the registry's default.

    Returns
    -------
    GameDef
        The game's definition (UserError when the id is unknown).
    """
    from boardlab.sim.games import GameError, default_game, get_game

    try:
        return get_game(default_game() if game is None else game)
    except GameError as e:
        raise UserError(f"--game: {e}") from None


def load_rules(spec: str | None, game):
    """The rule set `spec` of `game` (its default preset when None), or a one-line error.

    Parameters
    ----------
    spec : str or None
        A preset name or a TOML variant's path.
    game : str or GameDef or None
        The game (``--game``); None: the registry's default.

    Returns
    -------
    RuleSet
        The game's rule set (UserError with the game's message when it cannot be loaded).
    """
    g = game_def(game)
    try:
        return g.load_rules(spec if spec is not None else g.default_preset)
    except g.rules_error as e:
        raise UserError(str(e)) from None


def split_specs(text: str, game) -> list[str]:
    """A command line's agent list of `game`, or a one-line error.

    Parameters
    ----------
    text : str
        The ``--agents`` value (comma-separated specs).
    game : str or GameDef or None
        The game (``--game``); None: the registry's default.

    Returns
    -------
    list of str
        One spec string per agent (UserError when the list does not split).
    """
    reg = game_def(game).agents()
    try:
        return reg.split_specs(text)
    except reg.AgentError as e:
        raise UserError(f"--agents: {e}") from None


def table_players(players: int | None, game, *rule_sets) -> int:
    """--players of the balance commands: as given, else 4 or the nearest count every rule set of `rule_sets`
    supports (the registry's range when none is given); a one-line error when a rule set does not support it.

    Parameters
    ----------
    players : int or None
        The --players given (None: the default).
    game : GameDef, str or None
        The game.
    *rule_sets : RuleSet
        The rule sets the count will play under.

    Returns
    -------
    int
        The player count.
    """
    g = game_def(game)
    lo, hi = g.players
    counts = set(range(lo, hi + 1))
    for rs in rule_sets:
        counts &= set(g.players_for(rs))
    if players is None:
        players = min(counts or {max(lo, min(4, hi))}, key=lambda n: (abs(n - 4), n))
    for rs in rule_sets:
        check_players(players, g, rs)
    return players


def check_players(players: int, game, rules) -> int:
    """`players`, if the game plays that many under `rules` (its registry range, then the rule set's own
    counts: GameDef.players_for), else a one-line error naming the counts allowed.

    Parameters
    ----------
    players : int
        A --players value.
    game : GameDef, str or None
        The game.
    rules : RuleSet
        The rule set it will play under.

    Returns
    -------
    int
        `players`.
    """
    g = game_def(game)
    lo, hi = g.players
    if not lo <= players <= hi:
        raise UserError(f"--players must be {lo}..{hi} for {g.id}, got {players}")
    why = g.players_error(players, rules)
    if why is not None:
        raise UserError(f"--players: {why}")
    return players


# Run seeds are SplitMix64 states.
MAX_SEED = 2**64 - 1


def check_seed(seed: int, flag: str = "--seed") -> int:
    """`seed` if it is a run seed (0..2**64-1), else a one-line error: a seed is never wrapped (-1 is not
    2**64-1).

    Parameters
    ----------
    seed : int
        The value given.
    flag : str
        The option's name, for the message.

    Returns
    -------
    int
        `seed`.
    """
    if not 0 <= seed <= MAX_SEED:
        raise UserError(f"{flag} must be 0..{MAX_SEED} (2**64 - 1), got {seed}")
    return seed


def machine_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system has one, else the CPU count).

    Returns
    -------
    int
        At least 1.
    """
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def check_jobs(jobs: int, backend: str = "loky", chunks: int | None = None, flag: str = "--jobs") -> int:
    """The worker processes to start for `jobs`: a number below 1 is a one-line error; with the loky backend
    (processes on this machine) a number above the machine's cores is lowered to them, with a one-line note on
    stderr; and never more than the work's `chunks` (when known), since a worker without a chunk only costs
    its start-up.  Call it after every other check of the command's input, so that a note never precedes an
    error.

    Parameters
    ----------
    jobs : int
        The value given.
    backend : str
        ``loky`` or ``dask`` (a Dask cluster's size is its own: only the chunk bound applies).
    chunks : int or None
        The chunks the work is cut into, when the command knows them.
    flag : str
        The option's name, for the messages.

    Returns
    -------
    int
        The worker processes to use.
    """
    if jobs < 1:
        raise UserError(f"{flag} must be at least 1, got {jobs}")
    if backend == "loky":
        cores = machine_cores()
        if jobs > cores:
            print(
                f"{prog_name()}: note: {flag} {jobs} is more than the {cores} cores of this machine; using {cores}",
                file=sys.stderr,
            )
            jobs = cores
    if chunks is not None:
        jobs = max(1, min(jobs, chunks))
    return jobs


def require(game, need: str, what: str | None = None):
    """The part `need` of the game's capabilities (``boardlab.sim.games.NEEDS``) that a command cannot do
    without, or the one-line error "--game: <game> has no <what>".

    Parameters
    ----------
    game : str or GameDef or None
        The game (``--game``); None: the registry's default.
    need : str
        The part's name in ``NEEDS``.
    what : str or None
        The command's own words for the part, for the error; None: the part's.

    Returns
    -------
    object
        The part (what ``GameDef.require`` returns).
    """
    from boardlab.sim.games import NEEDS, GameError

    g = game_def(game)
    try:
        return g.require(need)
    except GameError:
        raise UserError(f"--game: {g.id} has no {what or NEEDS[need].what}") from None


def check_workers(backend: str, scheduler: str | None) -> dict:
    """--backend and --scheduler checked; the keyword arguments every run takes besides jobs.

    Parameters
    ----------
    backend : str
        One of ``BACKENDS``.
    scheduler : str or None
        A Dask scheduler's address (only with the ``dask`` backend).

    Returns
    -------
    dict
        ``{"backend": backend, "scheduler": scheduler}`` (UserError when either is refused).
    """
    if backend not in BACKENDS:
        raise UserError(f"--backend must be {' or '.join(BACKENDS)}, got {backend!r}")
    if scheduler and backend != "dask":
        raise UserError("--scheduler needs --backend dask")
    return {"backend": backend, "scheduler": scheduler}


def check_output(
    path: Path | None, flag: str, *, directory: bool, default: Path | None = None, force: bool | None = None
) -> Path:
    """The output `path` (or `default` when None), checked before any work; nothing is written here.

    * A path given must have an existing parent folder (a typo is refused, not turned into a new tree);
      the default's missing folders are created by the command once every check has passed.
    * The nearest existing folder must be a writable directory, not a file.
    * A file output must not be a directory, a directory output must not be a file; an existing file output
      must be a regular file (a FIFO or a device such as /dev/null is refused, even with ``force``).
    * An existing output needs ``force`` where the command has ``--force`` (``force`` not None).

    Parameters
    ----------
    path : pathlib.Path or None
        The output given; None: `default`.
    flag : str
        The option's name, for the messages.
    directory : bool
        Whether the output is a directory (else a file).
    default : pathlib.Path or None
        The output when none is given.
    force : bool or None
        The command's ``--force`` (None: it has none, and an existing output is fine).

    Returns
    -------
    pathlib.Path
        The output path (UserError, one line, on any refusal).
    """
    from boardlab.sim.files import file_kind

    given = path is not None
    path = Path(path if given else default)
    there = path if directory and path.is_dir() else path.parent
    while not there.exists() and there != there.parent:  # NotADirectoryError counts as missing here
        there = there.parent
    if there.exists() and not there.is_dir():
        raise UserError(f"{flag}: {there} is a file, not a directory")
    if given and not path.parent.exists():
        raise UserError(f"{flag}: directory {path.parent} does not exist")
    kind = file_kind(path.stat().st_mode) if path.exists() else None  # None: missing, or a regular file
    if path.exists() and directory and not path.is_dir():
        raise UserError(f"{flag}: {path} is {kind or 'a file'}; give a directory")
    if path.exists() and not directory and path.is_dir():
        raise UserError(f"{flag}: {path} is a directory; give a file name")
    if not directory and kind is not None:  # a FIFO, a device: never written into, nor replaced by a file
        raise UserError(f"{flag}: {path} is {kind}, not a file to write; give a file name")
    if not os.access(there, os.W_OK | os.X_OK):
        raise UserError(f"{flag}: directory {there} is not writable")
    if force is False and path.exists():
        raise UserError(f"{flag}: {path} exists; use --force to overwrite")
    return path


def result_game(meta: dict) -> str:
    """The game a result file's metadata names (a rescored table: its source's).  A run stored before the
    registry names none: it is the registry's first game's, the only one there was.

    Parameters
    ----------
    meta : dict
        The file's metadata.

    Returns
    -------
    str
        The game's id.
    """
    from boardlab.sim.games import default_game

    spec = meta.get("spec") or (meta.get("original") or {}).get("spec") or {}
    return meta.get("game") or spec.get("game") or default_game()


def result_files(paths: list[Path], game) -> list[dict]:
    """Each result file's metadata, checked: it exists, is a result of a run and is a result of `game`.

    Parameters
    ----------
    paths : list of pathlib.Path
        The result files.
    game : str or GameDef or None
        The game (``--game``); None: the registry's default.

    Returns
    -------
    list of dict
        One metadata dict per file, in order (UserError, one line, naming a file refused).
    """
    from boardlab.experiments import simulate as S

    g = game_def(game)
    metas = []
    for p in existing_files(paths):
        try:
            meta = S.read_metadata(p)
        except S.SimulateError as e:
            raise UserError(str(e).splitlines()[0]) from None
        except (OSError, ValueError) as e:  # not Parquet, or a damaged file (pyarrow's errors are these)
            raise UserError(f"{p}: cannot read as a result table: {str(e).splitlines()[0]}") from None
        other = result_game(meta)
        if other != g.id:
            raise UserError(f"{p}: a result of {other}, not {g.id} (give --game {other}, and one game's files)")
        metas.append(meta)
    return metas


def progress_bar(quiet: bool, label: str, total: int = 0):
    """A started rich progress bar on stderr and its update function ``update(done, total, rate, label=None)``.

    None (and a no-op update) when quiet or when stderr is not a terminal: logs stay clean.

    Parameters
    ----------
    quiet : bool
        No bar at all.
    label : str
        The bar's description.
    total : int
        The number of games expected (updates may change it).

    Returns
    -------
    tuple
        ``(bar, update)``: the rich Progress or None, and the update function.
    """
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
    """print, or the progress bar's console while a bar is shown (so lines do not tear it).

    Parameters
    ----------
    bar : rich.progress.Progress or None
        The bar of :func:`progress_bar`.

    Returns
    -------
    callable
        A print function.
    """
    return bar.console.print if bar is not None else print


@contextmanager
def interruptible(bar, message: str):
    """Stop the progress bar however the block ends; on Ctrl-C print `message` and exit 130.

    Parameters
    ----------
    bar : rich.progress.Progress or None
        The bar of :func:`progress_bar`.
    message : str
        What to print on stderr when interrupted.
    """
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


def existing_files(paths: list[Path]) -> list[Path]:
    """`paths`, each checked to be a non-empty regular file (a directory, a FIFO, a device or a missing file is
    refused in one line saying which, before anything opens it).

    Parameters
    ----------
    paths : list of pathlib.Path
        The files given.

    Returns
    -------
    list of pathlib.Path
        The checked paths, in order.
    """
    from boardlab.experiments.io import ResultsError, check_result_path

    for p in paths:
        try:
            check_result_path(p)
        except ResultsError as e:
            raise UserError(str(e)) from None
    return paths


# The command is `boardlab`; pyproject.toml installs the same entry point under the name it had while it
# hosted one game, so that every command quoted in results/ and in older notes still runs.


def prog_name() -> str:
    """The name this command was invoked by (`boardlab` or its alias); `boardlab` under `python -m`.

    Returns
    -------
    str
        The program name for messages.
    """
    name = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else ""
    return name if name and not name.endswith(".py") and not name.startswith("-") else COMMAND


def command_line() -> str:
    """This invocation as a shell command (recorded beside results).

    Returns
    -------
    str
        The program name and its arguments, shell-quoted.
    """
    return prog_name() + " " + shlex.join(sys.argv[1:])


@functools.cache
def click_command():
    """The command line as a click command, built from `app` once per process: typer reads every command's
    signature to build it (about 50 ms), and a process that calls :func:`main` many times (the tests, a
    notebook) need not pay that each time.  ``app()`` does the same with a new build (pretty exceptions are
    off, so typer's exception hook adds nothing).

    Returns
    -------
    click.Command
        The ``boardlab`` command group.
    """
    return typer.main.get_command(app)


def main(argv: list[str] | None = None) -> None:
    """Entry point: turns every user error into one line on stderr and exit code 2.

    Parameters
    ----------
    argv : list of str or None
        The arguments (None: ``sys.argv[1:]``).
    """
    from boardlab.sim.games import GameError

    prog = prog_name()
    try:
        click_command()(args=argv, standalone_mode=False, prog_name=prog)
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
    except Exception as e:
        from boardlab.experiments.isolation import AgentFailure

        if isinstance(e, AgentFailure):  # a Python agent failed during the work
            _agent_failed(prog, e)
        if not _worker_died(e):
            raise
        print(
            f"{prog}: error: a worker process died ({type(e).__name__}: killed from outside or out of memory);"
            " finished work is kept: run the same command again to go on (simulate: with --resume)",
            file=sys.stderr,
        )
        sys.exit(1)


def _agent_failed(prog: str, e) -> None:
    """A Python agent's failure: one line naming the game, its seed, the seat, the agent and its log (written
    here, in the temporary folder, when the run wrote none beside its output); exit code 1."""
    if not e.log:
        import tempfile

        fd, path = tempfile.mkstemp(prefix=f"{prog}-agent-", suffix=".error.log")
        os.close(fd)
        e.write_log(path)
    print(
        f"{prog}: error: {e}; finished work is kept: run the same command again to go on (simulate: with --resume)",
        file=sys.stderr,
    )
    sys.exit(1)


def _worker_died(e: BaseException) -> bool:
    """Whether `e` says a worker process of the run was lost: a process pool broken (joblib's loky reports a
    killed worker as TerminatedWorkerError, a BrokenExecutor) or a task Dask gave up on (KilledWorker)."""
    import concurrent.futures

    return isinstance(e, concurrent.futures.BrokenExecutor) or type(e).__name__ == "KilledWorker"
