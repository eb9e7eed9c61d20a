"""The plugin contract (boardlab.sim.games.GameDef): every part a game's capabilities name resolves; a part a game
has not is one line from each command that needs it; the result schema is the core's columns plus the game's, typed.

A "bare" game -- Citywright's rules, engine, agents and chunk player with no optional part -- stands for a
new game that has only what `simulate` needs.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np
import pyarrow as pa
import pytest

import boardlab.sim.games as G
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
from boardlab.sim.games import CAPABILITIES, NEEDS, GameDef, GameError, Lazy, Simulation, available_games, get_game
from tests.per_game import PLUGIN_GAMES, game_ids

game_id = game_ids(PLUGIN_GAMES)  # the built-in games run these in their own folders (tests/per_game.py)


def without(game: GameDef, gid: str, keep) -> GameDef:
    """`game` under id `gid` with only the parts in `keep` of its capabilities (NEEDS): every other part left
    out, and a capability that cannot stand without a part it lost (a Bench without its bench) dropped."""
    changes = {}
    for name, cap in CAPABILITIES.items():
        value = getattr(game, name)
        if value is None:
            continue
        kept = {
            f.name: getattr(value, f.name)
            for f in dataclasses.fields(cap)
            if f.name not in NEEDS or (f.name in keep and getattr(value, f.name) is not None)
        }
        try:
            changes[name] = cap(**kept)
        except TypeError:  # a part the capability cannot do without
            changes[name] = None
    return dataclasses.replace(game, id=gid, **changes)


@pytest.fixture
def bare(monkeypatch):
    """A registered game with the chunk player and schema only."""
    g = without(get_game("citywright"), "bare", keep={"chunk_player", "schema"})
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


def test_every_named_part_resolves(game_id):
    g = get_game(game_id)
    for name, need in NEEDS.items():
        if need.lazy(g) is not None:
            assert g.require(name) is not None and g.optional(name) is g.require(name), name
    assert callable(g.require("chunk_player"))
    report = g.optional("report")
    if report is not None:
        assert report.default_games > 0 and callable(report.run)
    bench = g.optional("bench")
    if bench is not None:
        assert callable(bench.run)
    for _name, seats, target in g.optional("pairings") or []:
        assert 0 < target < 1 and all(g.agents().parse_agent(s) for s in seats)
    tiers = g.optional("skill_tiers")
    for _name, (spec, _description) in (tiers() if tiers else {}).items():
        g.agents().parse_agent(spec)


def test_the_capabilities_are_typed_and_the_need_table_is_read_off_them():
    for g in available_games():
        for name, cap in CAPABILITIES.items():
            assert getattr(g, name) is None or isinstance(getattr(g, name), cap), (g.id, name)
        for need in NEEDS.values():
            lazy = need.lazy(g)
            assert lazy is None or isinstance(lazy, Lazy), (g.id, need.name)
    assert {n.capability for n in NEEDS.values()} <= set(CAPABILITIES)
    assert NEEDS["move_log"].capability == "simulation" and NEEDS["move_log"].what == "move log"
    with pytest.raises(GameError, match="must be a Simulation"):
        dataclasses.replace(get_game("pig"), simulation="boardlab_pig.results:play_chunk")
    with pytest.raises(GameError, match="must be a Bench"):
        dataclasses.replace(get_game("pig"), bench=Simulation(Lazy("boardlab_pig.results:play_chunk")))


def test_a_lazy_part_is_an_import_path_resolved_on_get():
    lazy = Lazy("boardlab.experiments.schema:result_schema")
    assert lazy.get() is result_schema
    for bad in ("boardlab.experiments.schema", ":result_schema", "boardlab.experiments.schema:"):
        with pytest.raises(GameError, match="'module:attr'"):
            Lazy(bad)
    with pytest.raises(AttributeError):
        Lazy("boardlab.experiments.schema:no_such_thing").get()


def test_a_missing_part_is_one_line_naming_game_and_part(bare):
    for name, need in NEEDS.items():
        if name in ("chunk_player", "schema"):
            continue
        assert need.lazy(bare) is None and bare.optional(name) is None, name
        with pytest.raises(GameError) as e:
            bare.require(name)
        assert str(e.value) == f"bare has no {need.what}"
    with pytest.raises(GameError, match=r"^cartographers has no move log$"):
        get_game("cartographers").require("move_log")
    with pytest.raises(KeyError):
        bare.require("no-such-part")


def test_result_schema_is_the_core_plus_the_games_own(game_id):
    g = get_game(game_id)
    schema = schema_of(g)
    assert tuple(schema.names) == g.result_columns
    for c in CORE_COLUMNS:
        assert schema.field(c).type == CORE_TYPES[c], c
    assert {"game", "game_seed"} <= set(plain_columns(schema))


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
            t = g.require("chunk_player")(rules, players, agents, "rotate", 5, start, stop)
            t = conform(t, schema, g.id)
            assert t.schema.equals(schema) and t.num_rows == (stop - start) * players
        df = g.play_chunk(rules, players, agents, "rotate", 5, 0, 3)
        assert tuple(df.columns) == g.result_columns


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


SIMULATE = ["simulate", "--players", "2", "--agents", "random", "--games", "3"]


# Each part a command cannot do without (boardlab.sim.games.NEEDS): that command's line for a game that lacks it
# ("X" stands for the game's id).
REFUSED = {
    "move_log": ([*SIMULATE, "--moves", "--out", "x.parquet"], "--moves: X has no move log"),
    "report": (
        ["reproduce", "--games", "20"],
        "--game: X has no report, and no generic one: its game declares no progress(player)",
    ),
    "skill_report": (["reproduce", "--games", "20", "--skill"], "--skill: X has no skill report"),
    "trainer": (
        ["train", "--games", "8,8", "--out", "w.json"],
        "--game: X has no trainer (no agent of its fits learned weights)",
    ),
    "scorer": (["score", "-"], "--game: X has no board scorer"),
    "rescorer": (
        ["rescore", "x.parquet", "--rules", "v1.0"],
        "--game: X has no rescorer (rescore recomputes scores from what its tables store of play)",
    ),
    "seat_compensation": (["tune", "seats", "x.parquet"], "--game: X has no seat compensation to tune"),
    "pairings": (["ladder", "--games", "10"], "--game: X has no fixed ladder pairings; rate agents with --agents"),
}
# The parts every command can do without: what stands in when a game has none.
FALLBACK = {
    "chunk_player": "none: a Simulation cannot be made without it",
    "schema": "the core columns' schema",
    "chunk_size": "simulate's DEFAULT_CHUNK",
    "bench": "the generic bench (boardlab.experiments.generic_bench)",
    "api_rows": "the core columns only",
    "trajectory_player": "the generic chunk player's trajectories (boardlab.experiments.play.play_tables)",
    "compare_sections": "compare's generic sections only",
    "seat_agent": "the first of the agents",
    "skill_tiers": "no tiers (agents lists none; the generic report uses the generic tiers)",
}


def test_every_part_is_refused_by_its_command_or_has_a_fallback():
    """A new capability's parts join NEEDS, and so must join one of the two tables: the tests below (and, for the
    refusals, tests/citywright/test_game_parts.py: Citywright has every part) then cover it."""
    assert not set(REFUSED) & set(FALLBACK)
    assert set(REFUSED) | set(FALLBACK) == set(NEEDS)


@pytest.mark.parametrize("need", sorted(set(FALLBACK) - {"chunk_player"}))
def test_a_part_with_a_fallback_is_optional(need):
    g = without(get_game("citywright"), "lacking", keep=set(NEEDS) - {need})
    assert g.optional(need) is None
    with pytest.raises(GameError, match=f"^lacking has no {NEEDS[need].what}$"):
        g.require(need)


def test_a_simulation_cannot_be_made_without_a_chunk_player():
    with pytest.raises(TypeError):
        Simulation()  # type: ignore[call-arg]


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


def test_a_game_without_a_bench_gets_the_generic_one(capsys, monkeypatch):
    """bench on Pig, which declares none: its own playouts, simulate through the generic player, ismcts."""
    import json

    from boardlab.experiments import generic_bench as B

    monkeypatch.setattr(B, "SECONDS", 0.05)
    monkeypatch.setattr(B, "REPEATS", 1)
    assert get_game("pig").optional("bench") is None
    code, out, err = run_cli(["bench", "--game", "pig", "--json", "--simulate-games", "40"], capsys)
    assert code == 0, err
    fig = json.loads(out)
    counts = B.player_counts(get_game("pig"), get_game("pig").load_rules("standard"))
    assert counts[0] == 2 and len(counts) <= 4
    assert [k for k in fig if k.startswith("playout_games_s_")] == [f"playout_games_s_{n}p" for n in counts]
    assert all(fig[k] > 0 for k in fig if k != "rules")
    assert fig["simulate_vs_playout"] == round(fig["simulate_cpu_games_s"] / fig["playout_games_s_2p"], 3)
    assert "playout_games_s_2p" in err  # each figure on stderr as it comes


def test_the_generic_bench_sizes_its_work_to_the_time_aimed_at():
    from boardlab.experiments.generic_bench import sized

    def work(n):
        t = time.process_time()
        while time.process_time() - t < n * 1e-4:
            pass

    assert 300 <= sized(work, 0.05) <= 1000  # 500 units of 0.1 ms fill 50 ms
