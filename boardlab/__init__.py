"""boardlab: simulation and balance analysis for tabletop games.

The package keeps the design's three layers as its first level: :mod:`boardlab.sim` (rules, engines,
references, the game contract), :mod:`boardlab.agents` (policies) and :mod:`boardlab.experiments` (runs,
pipelines, reports, tuning, the command line); ``docs/architecture.md`` explains them.  This module is the
public API a script or notebook starts from; each function imports what it needs when called, so
``import boardlab`` loads no game and compiles no kernel.

Examples
--------
>>> import boardlab
>>> [g.id for g in boardlab.games()]  # doctest: +SKIP
['citywright', 'cartographers', 'citadels', ...]
>>> game = boardlab.new_game("citywright", players=2, seed=7)  # doctest: +SKIP
>>> meta = boardlab.simulate("citywright", players=2, agents=["greedy", "random"], games=100,
...                          seed=1, out="runs/first.parquet")  # doctest: +SKIP
>>> df = boardlab.load_results("runs/first.parquet")  # doctest: +SKIP
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

    from boardlab.sim.games import GameDef

__all__ = ["__version__", "games", "get_game", "load_results", "new_game", "simulate"]


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("boardlab")
    except PackageNotFoundError:  # a checkout on sys.path without an install
        return "0+unknown"


__version__ = _version()


def games() -> list[GameDef]:
    """Every registered game, built-in and from installed plugin packages.

    Returns
    -------
    list of boardlab.sim.games.GameDef
        One definition per game, in registry order (the default game first).
    """
    from boardlab.sim.games import available_games

    return available_games()


def get_game(game_id: str) -> GameDef:
    """A registered game's definition by its id.

    Parameters
    ----------
    game_id : str
        The id ``boardlab games`` lists (e.g. ``"citywright"``).

    Returns
    -------
    boardlab.sim.games.GameDef
        The game's definition.

    Raises
    ------
    boardlab.sim.games.GameError
        The id is not registered (the message lists the registered ones).
    """
    from boardlab.sim.games import get_game as _get_game

    return _get_game(game_id)


def new_game(game_id: str, players: int, rules: Any = None, seed: int = 0) -> Any:
    """A new game through the game's public API, ready for moves.

    Parameters
    ----------
    game_id : str
        The game's id.
    players : int
        Number of players; must be a count the game and its rule set allow.
    rules : str, path or rule set, optional
        A preset name, a TOML variant file or a rule-set object; the game's default preset when None.
    seed : int
        The game seed, 0..2**64-1: the same seed gives the same game.

    Returns
    -------
    object
        The game's API object (``Game`` of the game's ``sim`` subpackage): ``legal_moves()``, ``play(move)``,
        ``observation(player)``, ``is_over()``, ``scores()`` and the rest of the game contract.
    """
    g = get_game(game_id)
    return g.new_game(players, g.load_rules(rules), seed)


def simulate(
    game: str,
    players: int,
    agents: Sequence[str],
    games: int,
    seed: int,
    out: str | Path,
    rules: Any = None,
    jobs: int = 1,
    chunk_size: int | None = None,
    resume: bool = False,
    force: bool = False,
) -> dict:
    """Play many games into a Parquet result file, as ``boardlab simulate`` does.

    Parameters
    ----------
    game : str
        The game's id.
    players : int
        Players per game.
    agents : sequence of str
        Agent specs, one per seat or one for every seat (``boardlab agents --game ID`` lists them).
    games : int
        Number of games.
    seed : int
        The run seed; every game's seed is derived from it and the game's number.
    out : str or Path
        The result file (``.parquet``); its folder must exist.
    rules : str, path or rule set, optional
        A preset name or a TOML variant file; the game's default preset when None.
    jobs : int
        Worker processes on this machine.
    chunk_size : int, optional
        Games per chunk; the game's own rule when None.
    resume : bool
        Continue an interrupted run of the same spec.
    force : bool
        Replace an existing result.

    Returns
    -------
    dict
        The run's metadata (spec, timings, provenance), as stored in the result file.
    """
    from boardlab.experiments.simulate import make_spec, run

    g = get_game(game)
    spec = make_spec(players, list(agents), games, seed, g.load_rules(rules), chunk_size=chunk_size, game=g)
    return run(spec, Path(out), jobs=jobs, resume=resume, force=force)


def load_results(path: str | Path) -> pd.DataFrame:
    """A result file written by :func:`simulate` (or ``boardlab simulate``) as a DataFrame.

    Parameters
    ----------
    path : str or Path
        The ``.parquet`` result file.

    Returns
    -------
    pandas.DataFrame
        One row per (game, seat): the core columns (game number, game seed, seat, agent, score, rank, ...)
        and the game's own columns.

    Raises
    ------
    boardlab.experiments.io.ResultsError
        The file is missing, truncated or not a result file (one line naming it).
    """
    from boardlab.experiments.io import read_results

    return read_results(path)
