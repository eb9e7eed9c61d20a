"""The plugin contract (boardlab.sim.games.GameDef): every part a game names resolves; a part a game has not is one
line from the command that needs it; the result schema is the core's columns plus the game's, typed.

A "bare" game -- Citywright's rules, engine, agents and chunk player with no optional part -- stands for a
new game that has only what `simulate` needs.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import boardlab.sim.games as G
from boardlab.experiments import simulate as S
from boardlab.experiments.cli import main
from boardlab.experiments.schema import (
    CORE_COLUMNS,
    CORE_TYPES,
    conform,
    plain_columns,
    result_schema,
    schema_of,
    table,
)
from boardlab.sim.games import PARTS, GameError, available_games, get_game

GAMES = [g.id for g in available_games()]
OPTIONAL = [p for p in PARTS if p != "chunk_player"]


@pytest.fixture
def bare(monkeypatch):
    """A registered game with the chunk player and schema only."""
    g = dataclasses.replace(get_game("citywright"), id="bare", **dict.fromkeys(OPTIONAL, None))
    g = dataclasses.replace(g, schema=get_game("citywright").schema)
    monkeypatch.setitem(G._GAMES, "bare", g)
    return g


def run_cli(args, capsys):
    try:
        main(args)
        code = 0
    except SystemExit as e:
        code = e.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("game_id", GAMES)
def test_every_named_part_resolves(game_id):
    g = get_game(game_id)
    for name in PARTS:
        if g.has(name):
            assert g.part(name) is not None, name
    assert callable(g.part("chunk_player"))
    if g.has("report"):
        assert g.part("report").default_games > 0 and callable(g.part("report").run)
    if g.has("bench"):
        assert callable(g.part("bench").run)
    if g.has("pairings"):
        for _name, seats, target in g.part("pairings"):
            assert 0 < target < 1 and all(g.agents().parse_agent(s) for s in seats)
    if g.has("skill_tiers"):
        for _name, (spec, _description) in g.part("skill_tiers")().items():
            g.agents().parse_agent(spec)


def test_a_missing_part_is_one_line_naming_game_and_part(bare):
    for name in OPTIONAL[1:]:  # every optional part but the schema
        assert not bare.has(name)
        with pytest.raises(GameError) as e:
            bare.part(name)
        assert str(e.value) == f"bare has no {PARTS[name]}"
    with pytest.raises(GameError, match=r"^cartographers has no move log$"):
        get_game("cartographers").part("move_log")
    with pytest.raises(KeyError):
        bare.part("no-such-part")


@pytest.mark.parametrize("game_id", GAMES)
def test_result_schema_is_the_core_plus_the_games_own(game_id):
    g = get_game(game_id)
    schema = schema_of(g)
    assert tuple(schema.names) == g.result_columns
    for c in CORE_COLUMNS:
        assert schema.field(c).type == CORE_TYPES[c], c
    assert {"game", "game_seed"} <= set(plain_columns(schema))


@pytest.mark.parametrize("game_id", GAMES)
def test_chunk_tables_have_the_schema_at_every_player_count_and_in_every_chunk(game_id):
    """Typed Arrow arrays, not pandas' guesses: the same types in every chunk (a column all null or all equal
    in one chunk included) and at every player count."""
    g = get_game(game_id)
    reg = g.agents()
    rules = g.load_rules(g.default_preset)
    schema = schema_of(g)
    allowed = []  # the counts the default rule set allows (Citadels' official rules stop at 7 of the game's 8)
    for n in range(g.players[0], g.players[1] + 1):
        try:
            g.new_game(n, rules, 0)
        except g.rules_error:
            continue
        allowed.append(n)
    for players in sorted({allowed[0], allowed[-1]}):
        agents = [reg.parse_agent("random")] * players
        for start, stop in ((0, 3), (3, 4)):
            t = g.part("chunk_player")(rules, players, agents, "rotate", 5, start, stop)
            t = conform(t, schema, g.id)
            assert t.schema.equals(schema) and t.num_rows == (stop - start) * players
        df = g.play_chunk(rules, players, agents, "rotate", 5, 0, 3)
        assert tuple(df.columns) == g.result_columns


def test_cartographers_rating_is_int16_with_nulls_where_there_is_none(tmp_path):
    g = get_game("cartographers")
    rules = g.load_rules(g.default_preset)
    for players in (1, 3):
        spec = S.make_spec(players, ["random"], 6, 1, rules, chunk_size=4, game=g)
        S.run(spec, tmp_path / f"{players}.parquet")
        t = pq.read_table(tmp_path / f"{players}.parquet")
        assert t.schema.remove_metadata().equals(schema_of(g).remove_metadata())
        assert t.schema.field("rating").type == pa.int16()
        assert (t["rating"].null_count == 0) == (players == 1)
        assert t["title"].null_count == 0


def test_result_schema_refuses_what_is_not_a_result():
    assert result_schema(CORE_COLUMNS, {}).names == list(CORE_COLUMNS)
    with pytest.raises(ValueError, match="lack the core columns"):
        result_schema(CORE_COLUMNS[1:], {})
    with pytest.raises(ValueError, match="core columns \\['total'\\] have the core's types"):
        result_schema(CORE_COLUMNS, {"total": pa.int64()})
    with pytest.raises(ValueError, match="\\['board'\\] have no type"):
        result_schema((*CORE_COLUMNS, "board"), {})
    s = result_schema((*CORE_COLUMNS, "board"), {"board": pa.large_string()}, plain=("board",))
    assert plain_columns(s) == ("game", "game_seed", "board")


def test_conform_names_the_column_of_another_type():
    s = result_schema((*CORE_COLUMNS, "x"), {"x": pa.int16()})
    cols = {c: np.zeros(2, dtype=np.int64) for c in s.names}
    cols.update(rules=["a", "b"], agent=["a", "b"], win=[True, False])
    good = table(cols, s)
    assert conform(lambda: good, s, "chunk") is not None  # a function building the table is called
    bad = good.set_column(s.names.index("x"), "x", pa.array([1, 2], pa.int32()))
    with pytest.raises(TypeError, match=r"^chunk: column x is int32, the schema says int16$"):
        conform(bad, s, "chunk")
    with pytest.raises(TypeError, match=r"not a pyarrow\.Table"):
        conform(good.to_pandas(), s, "chunk")
    with pytest.raises(pa.ArrowInvalid):  # a value that does not fit its type is refused, not wrapped
        table({**cols, "x": np.array([1, 70_000])}, s)


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


SIMULATE = ["simulate", "--players", "2", "--agents", "random", "--games", "3"]


@pytest.mark.parametrize(
    ("args", "line"),
    [
        (
            ["simulate", "--players", "2", "--agents", "random", "--games", "3", "--moves"],
            "--moves: bare has no move log",
        ),
        (["score", "-"], "--game: bare has no board scorer"),
        (["bench", "--no-subprocess"], "--game: bare has no benchmark"),
        (
            ["reproduce", "--games", "20"],
            "--game: bare has no report, and no generic one: its game declares no progress(player)",
        ),
        (["reproduce", "--games", "20", "--skill"], "--skill: bare has no skill report"),
        (["ladder", "--games", "10"], "--game: bare has no fixed ladder pairings; rate agents with --agents"),
    ],
)
def test_a_command_the_game_cannot_serve_says_so_in_one_line(bare, tmp_path, capsys, monkeypatch, args, line):
    monkeypatch.chdir(tmp_path)
    if args[0] == "simulate":
        args = [*args, "--out", str(tmp_path / "x.parquet")]
    code, out, err = run_cli([*args, "--game", "bare"], capsys)
    assert code == 2 and out == ""
    [got] = err.strip().splitlines()
    assert got.endswith(f": error: {line}")
    assert list(tmp_path.iterdir()) == []


def test_cartographers_has_no_move_log(tmp_path, capsys):
    out = str(tmp_path / "x.parquet")
    code, _, err = run_cli([*SIMULATE, "--game", "cartographers", "--moves", "--out", out], capsys)
    assert code == 2 and [e.partition(": ")[2] for e in err.strip().splitlines()] == [
        "error: --moves: cartographers has no move log"
    ]
    assert list(tmp_path.iterdir()) == []


def test_agents_lists_tiers_only_for_a_game_with_them(bare, capsys):
    code, out, _ = run_cli(["agents"], capsys)
    assert code == 0 and "Skill tiers" in out
    code, out, _ = run_cli(["agents", "--game", "bare"], capsys)
    assert code == 0 and "Skill tiers" not in out and "random" in out


def test_games_lists_what_each_game_serves(bare, capsys):
    code, out, _ = run_cli(["games"], capsys)
    assert code == 0
    lines = out.splitlines()
    serves = {lines[i].split()[0]: lines[i + 2] for i in range(0, len(lines), 3)}
    assert "reproduce --skill" in serves["citywright"] and "simulate --moves" in serves["citywright"]
    assert "score" in serves["cartographers"] and "--moves" not in serves["cartographers"]
    assert serves["bare"].strip() == "also serves: only the common commands"
