"""The command line's shared parts: every game's analysis parts, the one output rule, the default game, and demo of
every game at each player count (Citywright's own commands, score and rules: tests/citywright/test_cli.py)."""

from __future__ import annotations

import pytest

from boardlab.sim.games import GameError
from tests.cli import run
from tests.per_game import PLUGIN_GAMES, game_ids

# --- the shared option set and the games' analysis parts --------------------------------------------------


def test_every_games_analysis_parts_resolve_and_name_its_columns(game_id):
    from boardlab.sim.games import get_game

    for g in [get_game(game_id)]:
        reg = g.agents()
        assert reg.split_specs(g.ladder.default_agents), g.id
        for section, what, columns in g.reports.summary:
            assert section and what and set(columns) <= set(g.result_columns), (g.id, section)
        for part in ("seat_compensation", "rescorer", "trainer"):
            if g.optional(part) is not None:
                assert g.require(part) is not None, (g.id, part)
            else:
                with pytest.raises(GameError, match=f"{g.id} has no "):
                    g.require(part)
        sc = g.optional("seat_compensation")
        if sc is not None:
            assert {sc.column, sc.score, *sc.rank_columns} <= set(g.result_columns)
            assert sc.rank_columns[0] == sc.score


def test_output_checks_one_rule_for_every_command(tmp_path, monkeypatch):
    """A given output needs its folder; the default's folders are created later; files and folders are not
    mistaken for each other; an unwritable folder and an existing output without --force are refused."""
    from boardlab.experiments.cli._app import UserError, check_output

    f = tmp_path / "file"
    f.write_text("x")
    refused = [
        (dict(path=tmp_path / "no" / "x.csv", directory=False), "directory " + str(tmp_path / "no") + " does not"),
        (dict(path=tmp_path / "no" / "d", directory=True), "does not exist"),
        (dict(path=f / "x.csv", directory=False), f"{f} is a file, not a directory"),
        (dict(path=None, default=f / "a" / "b", directory=True), f"{f} is a file, not a directory"),
        (dict(path=f, directory=True), "is a file; give a directory"),
        (dict(path=tmp_path, directory=False), "is a directory; give a file name"),
        (dict(path=f, directory=False, force=False), "exists; use --force"),
    ]
    for kwargs, needle in refused:
        with pytest.raises(UserError, match=needle):
            check_output(flag="--out", **kwargs)
    assert check_output(None, "--out", directory=True, default=tmp_path / "a" / "b") == tmp_path / "a" / "b"
    assert not (tmp_path / "a").exists()  # nothing made by the check
    assert check_output(f, "--out", directory=False, force=True) == f
    assert check_output(f, "--out", directory=False) == f  # a command without --force overwrites
    monkeypatch.setattr("os.access", lambda p, mode: False)  # what a read-only folder is to a non-root user
    with pytest.raises(UserError, match=f"directory {tmp_path} is not writable"):
        check_output(tmp_path / "x.csv", "--out", directory=False)


def test_a_command_defaults_to_the_registrys_game(capsys):
    from boardlab.sim.games import DEFAULT_GAME

    assert run(["agents"], capsys)[1] == run(["agents", "--game", DEFAULT_GAME], capsys)[1]


# the example games here; the built-in games in their folders (tests/per_game.py)
game_id = game_ids(PLUGIN_GAMES)


def test_demo_serves_every_game_at_each_player_count(game_id, capsys):
    game = game_id
    from boardlab.sim.games import get_game

    g = get_game(game)
    code, out, err = run(["demo", "--game", game, "--games", "12"], capsys)
    assert code == 0, err
    lo, hi = g.players
    for p in range(lo, hi + 1):
        assert f"\n{p} player(s): 12 games" in out
    assert out.count("mean per player, score: ") == hi - lo + 1
    assert out.count("win share by seat") == hi - max(lo, 2) + 1
