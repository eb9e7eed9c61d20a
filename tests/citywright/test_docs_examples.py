"""The docs' examples marked ``<!-- runnable -->``, run at their tiny size: each plays the registry's default game,
Citywright (tests/core/test_docs.py finds them and checks that none names another game); and Citywright's results
page."""

from __future__ import annotations

import pytest

from boardlab.sim.games import DEFAULT_GAME
from tests.core.test_docs import ROOT, RUNNABLE_BLOCKS, command_args, hooks, split_env


@pytest.mark.slow  # the docs' examples end to end
@pytest.mark.parametrize("lines", [b[1] for b in RUNNABLE_BLOCKS], ids=[b[0] for b in RUNNABLE_BLOCKS])
def test_runnable_example_runs_and_writes_its_outputs(lines, tmp_path, monkeypatch, capsys):
    """Each command of the block, in order, in an empty folder: exit code 0, and every --out it names exists."""
    from tests.cli import cli

    assert DEFAULT_GAME == "citywright"  # the game the examples play, whose folder this is
    monkeypatch.chdir(tmp_path)
    (tmp_path / "runs").mkdir()
    for line in lines:
        env, command = split_env(line)
        for key, value in env.items():
            assert key == "PYTHONPATH", line  # the one variable an example may set
            monkeypatch.syspath_prepend(str(ROOT / value))
        args = command_args(command)
        code, _, err = cli(capsys, *args)
        assert code == 0, (line, err[-2000:])
        outs = [args[i + 1] for i, a in enumerate(args[:-1]) if a == "--out"]
        for o in outs:
            assert (tmp_path / o).exists(), (line, o)


def test_citywright_results_list_its_tuning_studies_and_no_other_games():
    import boardlab

    assert "tune-samplers" in {n for n, _ in hooks.studies_by_game()["citywright"]}
    assert "[cartographers]" not in hooks.game_results(boardlab.get_game("citywright"))
