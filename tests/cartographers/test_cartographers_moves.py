"""Cartographers keeps no move log: ``simulate --moves`` of it is one line, before any work."""

from __future__ import annotations

from tests.core.test_game_parts import SIMULATE, run_cli


def test_cartographers_has_no_move_log(tmp_path, capsys):
    out = str(tmp_path / "x.parquet")
    code, _, err = run_cli([*SIMULATE, "--game", "cartographers", "--moves", "--out", out], capsys)
    assert code == 2 and [e.partition(": ")[2] for e in err.strip().splitlines()] == [
        "error: --moves: cartographers has no move log"
    ]
    assert list(tmp_path.iterdir()) == []
