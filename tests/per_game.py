"""Tests run once per game, split by game: a tests/core module's tests that take a ``game_id`` run there for the
games outside boardlab (the example games: pure Python, nothing to compile), and each built-in game's folder
adopts them for that game (``tests/<game>/test_every_game.py``), so that they run with the game's other tests,
where its kernels are compiled anyway (tests/conftest.py gives a game's folder to one worker).

A core module says which games it runs with ``game_id = game_ids(...)``; a game's folder says
``adopt(globals(), module, "citywright")`` for each module.
"""

from __future__ import annotations

import inspect
from types import ModuleType

import pytest

from boardlab.sim.games import available_games, builtin_games

#: the registered games that are not built into boardlab (the example games the Makefile installs)
PLUGIN_GAMES = [g.id for g in available_games() if g.id not in builtin_games()]


def game_ids(games: list[str]):
    """A ``game_id`` fixture taking each of `games` in turn.

    Parameters
    ----------
    games : list of str
        Game ids.

    Returns
    -------
    function
        The fixture (bind it to the name ``game_id`` in a test module).
    """

    @pytest.fixture(params=games)
    def game_id(request) -> str:
        return request.param

    return game_id


def adopt(namespace: dict, module: ModuleType, game: str) -> list[str]:
    """Put `module`'s tests that take ``game_id`` into `namespace` (a test module's ``globals()``), run for `game`.

    Parameters
    ----------
    namespace : dict
        The adopting test module's globals.
    module : module
        A tests/core module.
    game : str
        The game id they run for.

    Returns
    -------
    list of str
        The names of the tests adopted.
    """
    tests = {
        name: f
        for name, f in vars(module).items()
        if name.startswith("test_") and callable(f) and "game_id" in inspect.signature(f).parameters
    }
    assert tests, f"{module.__name__} has no test taking game_id"
    namespace.update(tests)
    namespace["game_id"] = game_ids([game])
    return sorted(tests)
