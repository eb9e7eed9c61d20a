"""Games from installed packages: the entry-point group boardlab.games (boardlab.sim.games), and the example game
(examples/pig, installed by `make` with `pip install -e examples/pig`) found through it."""

from __future__ import annotations

import importlib.metadata as md
import sys
import textwrap

import pytest

import boardlab.sim.games as G


def test_the_built_in_games_are_found_through_the_entry_points_a_plugin_uses():
    """The toolkit's own pyproject.toml declares its games in the plugins' group; the registry names none but
    the default, and finds the same games in a source checkout without an install (its game.py files)."""
    eps = {ep.name: ep.value for ep in md.entry_points(group=G.ENTRY_POINT_GROUP) if ep.value.startswith("boardlab.")}
    builtin = G.builtin_games()
    assert {k: v.partition(":")[0] for k, v in eps.items()} == builtin
    assert next(iter(builtin)) == G.DEFAULT_GAME and len(builtin) >= 3
    for gid in builtin:
        assert G.get_game(gid) is md.EntryPoint(gid, eps[gid], G.ENTRY_POINT_GROUP).load()


def test_a_checkout_without_an_install_finds_the_same_built_in_games(monkeypatch):
    want = G.builtin_games()
    monkeypatch.setattr(G, "_BUILTIN", None)
    monkeypatch.setattr(md, "entry_points", lambda group=None: [])
    assert G.builtin_games() == want


def test_the_example_game_is_installed_and_found_through_its_entry_point():
    eps = {ep.name: ep for ep in md.entry_points(group=G.ENTRY_POINT_GROUP)}
    assert "pig" in eps, "the example game is not installed: pip install -e examples/pig (make does it)"
    game = G.get_game("pig")
    assert eps["pig"].load() is game and game.id in [g.id for g in G.available_games()]
    assert [g.id for g in G.available_games()][: len(G.builtin_games())] == list(G.builtin_games())  # built-ins first
    assert game.agents_module == "boardlab.agents.generic.registry" and game.kernels is None  # pure Python
    builtin = {f for gid in G.builtin_games() for f in G.get_game(gid).kernels.sources}
    assert set(G.kernel_sources()) == builtin  # the cache guard hashes the built-in games' files only


@pytest.fixture
def fresh_registry(monkeypatch):
    """The registry as if no plugin had been looked for yet; entry points replaced by the test's."""
    monkeypatch.setattr(G, "_GAMES", dict((k, v) for k, v in G._GAMES.items() if k in G.builtin_games()))
    monkeypatch.setattr(G, "_BROKEN", {})
    monkeypatch.setattr(G, "_PLUGINS_LOADED", False)

    def use(*entries: tuple[str, str]):
        points = [md.EntryPoint(name, value, G.ENTRY_POINT_GROUP) for name, value in entries]
        monkeypatch.setattr(md, "entry_points", lambda group=None: points if group == G.ENTRY_POINT_GROUP else [])

    return use


def test_a_broken_plugin_is_a_one_line_error_naming_it(fresh_registry):
    fresh_registry(("broken", "no_such_package_for_boardlab.game:GAME"))
    assert G.get_game("citywright").id == "citywright"  # a built-in game needs no plugin
    for call in (G.available_games, lambda: G.get_game("broken")):
        with pytest.raises(G.GameError) as e:
            call()
        msg = str(e.value)
        assert "game plugin 'broken' (no_such_package_for_boardlab.game:GAME) cannot be loaded" in msg
        assert "ModuleNotFoundError" in msg and "\n" not in msg


@pytest.mark.parametrize("old", ["sim.games", "experiments.simulate", "agents.generic.registry"])
def test_a_plugin_on_the_old_layout_is_one_line_naming_the_migration_page(fresh_registry, tmp_path, monkeypatch, old):
    (tmp_path / "old_layout_game.py").write_text(f"from {old} import *  # written before the boardlab namespace\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    fresh_registry(("oldgame", "old_layout_game:GAME"))
    with pytest.raises(G.GameError) as e:
        G.get_game("oldgame")
    msg = str(e.value)
    assert msg.startswith("game plugin 'oldgame' (old_layout_game:GAME) imports ")
    assert f"{old.split('.')[0]!r}" in msg or repr(old) in msg
    assert "docs/migrating.md" in msg and "\n" not in msg


def test_a_plugin_that_registers_no_game_of_its_name_is_an_error(fresh_registry):
    fresh_registry(("nothing", "json"))
    with pytest.raises(G.GameError, match="game plugin 'nothing' \\(json\\) registers no game 'nothing'"):
        G.get_game("nothing")


def test_a_plugin_module_that_registers_its_game_on_import(fresh_registry, tmp_path, monkeypatch):
    (tmp_path / "toy_boardlab_game.py").write_text(
        textwrap.dedent(
            """
            from dataclasses import replace
            from boardlab.sim.games import get_game, register

            GAME = register(replace(get_game("pig"), id="toy", title="Toy"))
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "toy_boardlab_game", raising=False)
    fresh_registry(("pig", "boardlab_pig.game:GAME"), ("toy", "toy_boardlab_game"))
    assert G.get_game("toy").title == "Toy"
    assert [g.id for g in G.available_games()] == [*G.builtin_games(), "pig", "toy"]
