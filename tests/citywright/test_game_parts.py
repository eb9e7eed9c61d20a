"""The plugin contract on Citywright, the game that has every part (tests/core/test_game_parts.py holds the tables):
without one part, the command that needs it says so in one line, before any work; with only its chunk player and
schema (the "bare" game), it plays as Citywright does."""

from __future__ import annotations

import pandas as pd
import pytest

import boardlab.sim.games as G
from boardlab.experiments import simulate as S
from boardlab.sim.games import NEEDS, get_game
from tests.core.test_game_parts import REFUSED, bare, run_cli, without

__all__ = ["bare"]  # the fixture: Citywright with only its chunk player and schema


@pytest.mark.parametrize("need", sorted(REFUSED))
def test_a_command_refuses_a_game_without_the_part_it_needs_in_one_line(need, tmp_path, capsys, monkeypatch):
    """Citywright, which has every part, less the one part: its command says so in one line, before any work."""
    cw = get_game("citywright")
    assert NEEDS[need].lazy(cw) is not None  # the game the part is taken from has it
    g = without(cw, "lacking", keep=set(NEEDS) - {need})
    assert NEEDS[need].lazy(g) is None and all(
        NEEDS[n].lazy(g) is not None for n in NEEDS if n in REFUSED and n != need
    )
    monkeypatch.setitem(G._GAMES, "lacking", g)
    if need == "report":  # Citywright declares a running score: without it too, there is no generic report either
        monkeypatch.delattr(type(cw.new_game(2, cw.load_rules(cw.default_preset), 0)), "progress")
    monkeypatch.chdir(tmp_path)
    args, line = REFUSED[need]
    code, out, err = run_cli([*args, "--game", "lacking"], capsys)
    assert code == 2 and out == ""
    [got] = err.strip().splitlines()
    assert got.endswith(f": error: {line.replace('X', 'lacking')}")
    assert list(tmp_path.iterdir()) == []


def test_a_game_with_only_a_chunk_player_and_schema_runs(bare, tmp_path):
    """simulate needs nothing else: the chunk size comes from the core's default."""
    rules = bare.load_rules(bare.default_preset)
    spec = S.make_spec(2, ["random"], 250, 3, rules, game=bare)
    assert spec.game == "bare" and spec.chunk_size == S.DEFAULT_CHUNK
    S.run(spec, tmp_path / "bare.parquet")
    ours = pd.read_parquet(tmp_path / "bare.parquet")
    cw = S.make_spec(2, ["random"], 250, 3, rules, chunk_size=S.DEFAULT_CHUNK, game="citywright")
    S.run(cw, tmp_path / "cw.parquet")
    pd.testing.assert_frame_equal(ours, pd.read_parquet(tmp_path / "cw.parquet"))
