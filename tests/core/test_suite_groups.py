"""tests/conftest.py's units of work for ``make test`` (``--dist loadgroup``)."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import game_group

TESTS = Path(__file__).parents[1]


def test_each_games_tests_are_one_unit_and_the_rest_are_each_their_own():
    assert game_group("tests/citywright/test_golden.py::test_x[v1.1]") == "game:citywright"
    assert game_group("tests/citywright/test_a.py::t") == game_group("tests/citywright/sub/test_b.py::u")
    assert game_group("tests/citadels/test_agents.py::test_y") == "game:citadels"
    assert game_group("tests/cartographers/test_z.py::t") == "game:cartographers"
    for nodeid in ("tests/core/test_games.py::test_x[citywright]", "tests/cli.py::test_y", "other/citywright/t.py::z"):
        assert game_group(nodeid) == nodeid


def test_every_game_folder_of_the_suite_has_a_group():
    """A game's test folder is a unit because the registry knows the game: no list to add it to."""
    folders = {p.name for p in TESTS.iterdir() if p.is_dir() and p.name not in ("core", "__pycache__")}
    assert folders and all(game_group(f"tests/{f}/test_x.py::t") == f"game:{f}" for f in folders)
