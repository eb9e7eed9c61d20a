"""Cartographers' tools: the map text format and `citywright score --game cartographers` (round trip,
the scores against the plain-Python reference, one-line errors naming file and line), and
`citywright agents` / `bench --game cartographers`."""

from __future__ import annotations

import json
import sys

import pytest

from boardlab.experiments.cli import main
from boardlab.sim.cartographers import reference as R
from boardlab.sim.cartographers.maps import MapError, format_map, parse_maps, random_map_text, rules_for, score_map
from boardlab.sim.cartographers.rules import load_rules


def run(args, capsys):
    code = 0
    try:
        main(args)
    except SystemExit as e:
        code = e.code or 0
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("seed", range(12))
def test_maps_round_trip_and_score_as_the_reference(seed):
    side = "AB"[seed % 2]
    text = random_map_text(seed, side)
    (m,) = parse_maps(text, "x.txt")
    rules = rules_for(m, None)
    assert format_map(m, rules) == text
    res = score_map(m, rules)
    codes = [".TVFWGMX".index(ch) for ch in m.grid]
    for c in res["cards"]:
        assert c["points"] == R.score_card(c["card"], codes, rules.map, rules)
    assert res["monster_penalty"] == R.monster_penalty(codes, rules.map, rules)
    assert res["card_points"] == sum(c["points"] for c in res["cards"])


def test_spaces_comments_and_several_maps():
    a, b = random_map_text(1, "A"), random_map_text(2, "B")
    spaced = "\n".join(" ".join(line) if i else line for i, line in enumerate(a.splitlines()))
    text = f"# two maps\n\n{spaced}\n\n# the second\n{b}"
    maps = parse_maps(text, "f")
    assert [m.side for m in maps] == ["A", "B"] and maps[0].line == 3
    (plain,) = parse_maps(a, "f")
    assert (maps[0].grid, maps[0].cards, maps[0].coins) == (plain.grid, plain.cards, plain.coins)


@pytest.mark.parametrize(
    ("edit", "line", "words"),
    [
        (lambda ls: ["sid A cards 26 30 34 38", *ls[1:]], 1, "expected a header"),
        (lambda ls: ["side C cards 26 30 34 38", *ls[1:]], 1, "side must be A or B"),
        (lambda ls: ["side A cards 26 30 34", *ls[1:]], 1, "cards needs 4 scoring card numbers"),
        (lambda ls: ["side A cards 26 30 34 26", *ls[1:]], 1, "must differ"),
        (lambda ls: ["side A cards 26 30 34 38 coins x", *ls[1:]], 1, "coins must be"),
        (lambda ls: [ls[0], ls[1] + ".", *ls[2:]], 2, "has 11 cells, this one has 12"),
        (lambda ls: [ls[0], "Q" + ls[1][1:], *ls[2:]], 2, "'Q' is not a cell"),
        (lambda ls: [*ls[:3], ls[3][:1] + "." + ls[3][2:], *ls[4:]], 4, "is a ruins cell of side A"),
        (lambda ls: [*ls[:2], ls[2][:3] + "." + ls[2][4:], *ls[3:]], 3, "has a mountain here"),
        (lambda ls: [ls[0], "r" + ls[1][1:], *ls[2:]], 2, "is not a ruins cell"),
        (lambda ls: ls[:6], 6, "ends after 5 of its 11 rows"),
    ],
)
def test_malformed_maps_give_one_line_naming_file_and_line(tmp_path, capsys, edit, line, words):
    base = [
        "side A cards 26 30 34 38",
        "...........",
        "...M.r.....",
        ".r......Mr.",
        "...........",
        "...........",
        ".....M.....",
        "...........",
        "...........",
        ".rM......r.",
        ".....r.M...",
        "...........",
    ]
    parse_maps("\n".join(base), "ok")  # the unedited map is fine
    f = tmp_path / "maps.txt"
    f.write_text("\n".join(edit(base)) + "\n")
    with pytest.raises(MapError) as e:
        parse_maps(f.read_text(), str(f))
    assert str(e.value).startswith(f"{f}:{line}:") and words in str(e.value)
    code, out, err = run(["score", "--game", "cartographers", str(f)], capsys)
    assert code == 2 and out == "" and err.count("\n") == 1 and f"{f}:{line}:" in err


def test_score_command_text_json_and_rules(tmp_path, capsys, monkeypatch):
    f = tmp_path / "m.txt"
    f.write_text(random_map_text(5, "B"))
    code, out, err = run(["score", "--game", "cartographers", "--json", str(f)], capsys)
    assert code == 0, err
    res = json.loads(out)
    assert res["side"] == "B" and len(res["cards"]) == 4 and res["coins"] is not None
    code, out, _ = run(["score", "--game", "cartographers", str(f)], capsys)
    assert code == 0 and "monster penalty" in out and f"{f}:1  side B (rules base-b)" in out
    code, _, err = run(["score", "--game", "cartographers", "--rules", "base-a", str(f)], capsys)
    assert code == 2 and "the map is side B" in err
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO(f.read_text()))
    code, out, _ = run(["score", "--game", "cartographers", "--json", "-"], capsys)
    assert code == 0 and json.loads(out)["source"] == "<stdin>:1"


def test_agents_command_lists_the_cartographers_agents(capsys):
    code, out, _ = run(["agents", "--game", "cartographers"], capsys)
    assert code == 0
    for words in ("random", "greedy", "planner", "ambush", "adversarial"):
        assert words in out


def test_bench_reports_the_cartographers_figures(capsys):
    code, out, err = run(
        ["bench", "--game", "cartographers", "--games", "200", "--boards", "1000", "--agent-games", "10",
         "--json", "--no-subprocess"],
        capsys,
    )  # fmt: skip
    assert code == 0, err
    res = json.loads(out)
    for p in range(1, 6):
        assert res[f"random_games_per_s_{p}p"] > 0
    assert res["greedy_games_per_s_4p"] > 0 and res["planner_games_per_s_4p"] > 0
    assert res["strong_games_per_s_4p"] > 0  # the tiers' targets: bench's TARGETS
    assert 0 < res["expert_ms_per_decision_solo"] and 0 < res["expert_ms_per_decision_4p"]
    assert 0 < res["expert_ms_per_decision"] <= res["expert_ms_per_decision_max"]
    assert res["maps_per_s_all_16_cards"] > 0 and res["clock"] == "process CPU"


def test_rules_of_another_side_are_refused():
    (m,) = parse_maps(random_map_text(0, "A"), "x")
    with pytest.raises(MapError):
        rules_for(m, load_rules("base-b"))
