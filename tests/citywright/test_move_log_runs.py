"""Citywright's move log (a game's optional part Pig has not) under the run's identity rules: a ``--force`` run
replaces a result and its move log, and the move log's name is checked before any work.  The run of the
interrupted-run fixture (tests/core/conftest.py: Pig) is the run that replaces it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pandas as pd
import pytest

from boardlab.experiments import simulate as S
from boardlab.sim.citywright.rules import load_rules
from tests.core.conftest import InterruptedRuns


@pytest.fixture
def run_files():
    """Interrupted runs of Pig (tests/core/conftest.py); locks it holds are released at the end."""
    runs = InterruptedRuns()
    yield runs
    runs.release_all()


def _citywright_rules():
    """Citywright's v1.1: the runs that keep a move log."""
    return load_rules("v1.1")


def _stop_at(monkeypatch, chunk: int) -> None:
    """The --jobs 1 run stops (KeyboardInterrupt) when it comes to play `chunk`."""
    real = S.play_chunk

    def play(spec, i, *rest):
        if i == chunk:
            raise KeyboardInterrupt
        return real(spec, i, *rest)

    monkeypatch.setattr(S, "play_chunk", play)


def test_force_replaces_the_result_and_discards_an_interrupted_runs_parts(tmp_path, monkeypatch, run_files):
    out = tmp_path / "r.parquet"
    moves = S.make_spec(2, ["random"], 20, 5, _citywright_rules(), "rotate", 10, moves=True, game="citywright")
    old = S.run(moves, out)
    assert S.RunPaths(out).moves.exists()
    _stop_at(monkeypatch, 2)
    with pytest.raises(KeyboardInterrupt):
        S.run(run_files.spec(), out, force=True)
    cut = run_files.run_id(S.RunPaths(out))
    monkeypatch.undo()
    new = S.run(run_files.spec(), out, force=True)
    assert len({old[S.RUN_ID], cut, new[S.RUN_ID]}) == 3
    assert S.read_metadata(out) == new == json.loads(S.RunPaths(out).sidecar.read_text())
    assert new["this_session"]["games"] == run_files.GAMES
    # the move log was the replaced result's
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.parquet", "r.parquet.json"]


def test_a_move_log_name_is_checked_when_the_run_keeps_one(tmp_path, run_files):
    """``STEM.moves.parquet`` is longer than ``NAME`` for a name without the .parquet suffix."""
    name_max = os.pathconf(tmp_path, "PC_NAME_MAX")
    pid = len(Path("/proc/sys/kernel/pid_max").read_text().strip())
    allowed_moves = name_max - (len("..moves.parquet..tmp") + pid)  # `.STEM.moves.parquet.PID.tmp`, STEM = NAME
    out = tmp_path / ("c" * (allowed_moves + 1))
    moves = S.make_spec(2, ["random"], 10, 5, _citywright_rules(), "rotate", 10, moves=True, game="citywright")
    with pytest.raises(S.SimulateError, match=r"STEM\.moves\.parquet\.PID\.tmp"):
        S.run(moves, out)
    S.run(run_files.spec(), out)  # without a move log the name fits
    assert len(pd.read_parquet(out)) == run_files.GAMES * run_files.PLAYERS
