"""The plugin contract's refusals on Citywright, the game that has every part (tests/core/test_game_parts.py holds the
tables): without one part, the command that needs it says so in one line, before any work."""

from __future__ import annotations

import pytest

import boardlab.sim.games as G
from boardlab.sim.games import NEEDS, get_game
from tests.core.test_game_parts import REFUSED, run_cli, without


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
