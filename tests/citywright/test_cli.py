"""The command line on Citywright, the registry's default game: ``score`` and ``rules`` output formats, its rule
files, and one-line errors with exit code 2."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from boardlab.sim.citywright.reference import score_board
from boardlab.sim.citywright.rules import load_rules
from tests.cli import run

BOARD_A = """\
RRCCPPI
RRCCPPI
.......
IIIIIII
PPPPPPP
CCCCCCC
RRRRRRR
"""
BOARD_B = "\n".join(["rcpi.rc"] * 7) + "\n"


def test_score_json_has_exactly_the_keys_and_matches_reference(tmp_path, capsys):
    f = tmp_path / "boards.txt"
    f.write_text("\n\n  " + BOARD_A.replace("\n", "  \n") + "\n\n" + BOARD_B + "\n")
    code, out, err = run(["score", "--json", str(f)], capsys)
    assert code == 0, err
    lines = out.strip().splitlines()
    assert len(lines) == 2
    for line, board in zip(lines, (BOARD_A, BOARD_B), strict=True):
        obj = json.loads(line)
        assert list(obj) == ["residential", "commercial", "park", "industrial", "districts", "empty"]
        from boardlab.sim.citywright.rules import load_rules

        assert obj == score_board(board.replace("\n", "").upper(), load_rules("v1.1"))


def test_score_readable_output_names_source_and_line(tmp_path, capsys):
    f = tmp_path / "b.txt"
    f.write_text("\n" + BOARD_A)
    code, out, _ = run(["score", str(f)], capsys)
    assert code == 0
    assert f"{f}:2" in out
    assert "residential" in out and "empty cells" in out


def test_score_reads_stdin(capsys, monkeypatch):
    code, out, _ = run(["score", "--json", "-"], capsys, stdin=BOARD_A, monkeypatch=monkeypatch)
    assert code == 0
    assert json.loads(out)["districts"] == 83


def test_score_v10_rules_change_residential(capsys, monkeypatch):
    _, out11, _ = run(["score", "--json", "-"], capsys, stdin=BOARD_A, monkeypatch=monkeypatch)
    _, out10, _ = run(["score", "--json", "--rules", "v1.0", "-"], capsys, stdin=BOARD_A, monkeypatch=monkeypatch)
    # largest cluster of 7 residential tiles: 3 pairs x 5 (v1.1) versus 7 x 2 (v1.0)
    assert json.loads(out11)["residential"] - json.loads(out10)["residential"] == 15 - 14


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ("RRCCPPI\nRRCXPPI\n", 2, "unexpected 'X'"),
        ("RRCCPP\n", 1, "6 characters"),
        ("RRCCPPI\n" * 6, 6, "has 6"),
        ("RRCCPPI\n" * 8, 1, "has 8"),
    ],
)
def test_malformed_board_is_one_line_naming_file_and_line(tmp_path, capsys, text, line, fragment):
    f = tmp_path / "bad.txt"
    f.write_text(text)
    code, out, err = run(["score", "--json", str(f)], capsys)
    assert code == 2
    assert out == ""
    assert len(err.strip().splitlines()) == 1
    assert f"{f}:{line}:" in err
    assert fragment in err


@pytest.mark.parametrize(
    "args",
    [
        ["score", "/no/such/file.txt"],
        ["score", "--rules", "v9", "-"],
        ["score", "--bogus", "-"],
        ["score"],
        ["bench", "--games", "5"],
        ["frobnicate"],
    ],
)
def test_errors_are_one_line_exit_2(args, capsys, monkeypatch):
    code, _, err = run(args, capsys, stdin=BOARD_A, monkeypatch=monkeypatch)
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_bad_rules_file_names_the_key(tmp_path, capsys, monkeypatch):
    f = tmp_path / "variant.toml"
    f.write_text('base = "v1.1"\n[scoring.park]\nrow_points = "two"\n')
    code, _, err = run(["score", "--rules", str(f), "-"], capsys, stdin=BOARD_A, monkeypatch=monkeypatch)
    assert code == 2
    assert "scoring.park.row_points" in err
    assert len(err.strip().splitlines()) == 1


def test_rules_variant_file_applies(tmp_path, capsys, monkeypatch):
    f = tmp_path / "variant.toml"
    f.write_text('base = "v1.1"\n[scoring.industrial]\npair_points = 10\n')
    _, base, _ = run(["score", "--json", "-"], capsys, stdin=BOARD_A, monkeypatch=monkeypatch)
    _, var, _ = run(["score", "--json", "--rules", str(f), "-"], capsys, stdin=BOARD_A, monkeypatch=monkeypatch)
    # 9 industrial tiles: 4 pairs, 3 -> 10 points each
    assert json.loads(var)["industrial"] - json.loads(base)["industrial"] == 4 * 7


def test_rules_command_prints_every_key(capsys):
    code, out, _ = run(["rules", "v1.0", "--json"], capsys)
    assert code == 0
    data = json.loads(out)
    assert data["scoring"]["residential"]["largest"] == "tiles"
    assert data["game"]["rounds"]["2"] == [4, 4]
    assert data == load_rules("v1.0").to_dict()


ROUND_TRIP_VARIANTS = {
    "v1.1": "v1.1",
    "v1.0": "v1.0",
    "variant": 'base = "v1.0"\n[scoring.commercial]\ntier_points = [4, 14, 31]\n'
    '[achievements.cards.full_house]\nkind = "no_empty"\npoints = 3\n'
    "[shapes.X]\ncells = [[0, 1], [1, 0], [1, 1], [1, 2], [2, 1]]\nstar = 2\ncopies = 2\ntwo_player_remove = 1\n",
}


@pytest.mark.parametrize("name", list(ROUND_TRIP_VARIANTS))
def test_rules_toml_round_trips(name, tmp_path, capsys):
    """`citywright rules X` prints TOML that --rules FILE loads back unchanged, and prints again identically."""
    spec = ROUND_TRIP_VARIANTS[name]
    if spec.startswith("base"):
        (tmp_path / "variant.toml").write_text(spec)
        spec = str(tmp_path / "variant.toml")
    code, first, _ = run(["rules", spec], capsys)
    assert code == 0
    dumped = tmp_path / "dumped.toml"
    dumped.write_text(first)
    assert load_rules(str(dumped)).canonical == load_rules(spec).canonical
    code, second, _ = run(["rules", str(dumped)], capsys)
    assert code == 0 and second == first


def test_console_script_entry_point_runs():
    """The installed `citywright` entry point (through python -m) exits 2 with one line on bad input."""
    p = subprocess.run(
        [sys.executable, "-m", "boardlab.experiments.cli", "score", "-"],
        input="RRC\n",
        text=True,
        capture_output=True,
        check=False,
    )
    assert p.returncode == 2
    assert p.stderr.count("\n") == 1
    assert p.stdout == ""


@pytest.mark.slow
def test_bench_json_reports_every_figure(capsys):
    code, out, _ = run(
        ["bench", "--games", "200", "--boards", "2000", "--json", "--no-subprocess", "--no-agents"], capsys
    )
    assert code == 0
    res = json.loads(out)
    for p in (1, 2, 3, 4):
        assert res[f"random_games_per_s_{p}p"] > 0
    assert res["boards_per_s"] > 0
