"""Citywright's result files: its columns (boards, placed shapes, the move log) read against the obvious per-cell
and per-turn readings, its rules through a run's spec, its bench beside simulate, and the move log streamed like the
rows.  The generic machinery of runs (jobs, chunks, resume, streaming, metadata) is tested on Pig in
tests/core/test_simulate.py."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from boardlab.experiments import simulate as S
from boardlab.experiments.citywright.moves import MOVE_COLUMNS, moves_table
from boardlab.experiments.citywright.runner import COLUMNS, SCHEMA, board_strings, shapes_placed_strings
from boardlab.sim.citywright.rules import load_rules
from tests.core.test_simulate import assert_streamed_file_is_the_assembled_file

AGENTS = ["greedy", "random", "specialist:P"]


def _spec(games=120, chunk=20, moves=False, agents=AGENTS, players=3, seating="rotate"):
    return S.make_spec(players, agents, games, 11, load_rules("v1.1"), seating, chunk, moves)


def _read(path: Path) -> pd.DataFrame:
    return pd.read_parquet(path)


def test_schema_and_metadata(tmp_path):
    out = tmp_path / "run.parquet"
    meta = S.run(_spec(games=40, moves=True), out)
    df = _read(out)
    assert list(df.columns) == COLUMNS
    assert len(df) == 40 * 3
    assert df.groupby("game")["win_share"].sum().round(9).eq(1.0).all()
    assert (df["board"].str.len() == 49).all()
    assert ((49 - df["empty"]) == df["board"].str.count("[RCPI]")).all()
    assert (df["tiles_taken"] - df["waste"] <= 49 - df["empty"]).all()
    side = json.loads((tmp_path / "run.parquet.json").read_text())
    assert side == S.read_metadata(out) == meta
    for key in ("rules", "agents", "seed", "games", "seating", "package_version", "git_commit", "started", "finished"):
        assert key in side
    moves = _read(tmp_path / "run.moves.parquet")
    assert list(moves.columns) == MOVE_COLUMNS
    assert len(moves) == 40 * 3 * 12
    # the move log adds up to the boards: score changes sum to the district points
    per_seat = moves.groupby(["game", "seat"])["score_change"].sum().reset_index()
    merged = per_seat.merge(df, on=["game", "seat"])
    districts = merged[["residential", "commercial", "park", "industrial"]].sum(axis=1)
    assert (merged["score_change"] == districts).all()
    assert (
        moves.groupby(["game", "seat"])["waste"].sum().values == df.sort_values(["game", "seat"])["waste"].values
    ).all()


def test_file_schema_and_pandas_types(tmp_path):
    """The Parquet file holds SCHEMA (strings as large_string) plus the run's metadata, nothing else;
    pandas reads the strings as str."""
    out = tmp_path / "run.parquet"
    S.run(_spec(games=30, chunk=7), out)
    schema = pq.read_schema(out)
    assert schema.remove_metadata().equals(SCHEMA)
    assert list(schema.metadata) == [S.METADATA_KEY]
    f = pq.ParquetFile(out)
    assert [f.metadata.row_group(i).num_rows for i in range(f.num_row_groups)] == [21, 21, 21, 21, 6]
    assert {f.metadata.row_group(0).column(i).compression for i in range(len(COLUMNS))} == {"ZSTD"}
    dtypes = _read(out).dtypes
    assert [c for c in COLUMNS if dtypes[c] == "str"] == ["rules", "agent", "board", "shapes_placed"]


def _naive_board(districts) -> str:
    """The obvious reading: cell (r, c) is bit 8r+c of each district's bitboard."""
    cells = []
    for r in range(7):
        for c in range(7):
            on = [letter for letter, b in zip("RCPI", districts, strict=True) if (int(b) >> (8 * r + c)) & 1]
            cells.append(on[0] if on else ".")
    return "".join(cells)


def test_board_strings_equal_the_naive_reading():
    from boardlab.experiments.citywright.bench import uniform_random_boards
    from boardlab.sim.citywright.tables import VALID

    boards = uniform_random_boards(400, seed=3)
    full = np.zeros((4, 4), dtype=np.uint64)
    full[np.arange(4), np.arange(4)] = VALID  # a board all of one district, each district
    boards = np.concatenate([np.zeros((1, 4), dtype=np.uint64), full, boards])
    junk = np.random.default_rng(4).integers(0, 2**63, size=boards.shape, dtype=np.uint64) & ~VALID
    for b in (boards, boards | junk):  # bits outside the 7x7 board are not cells
        assert board_strings(b).to_pylist() == [_naive_board(row) for row in boards]
    assert board_strings(boards).type == pa.large_string()
    assert len(board_strings(np.zeros((0, 4), dtype=np.uint64))) == 0


def test_shapes_placed_strings_equal_the_naive_join():
    rules = load_rules("v1.1")
    names = [s.name for s in rules.shapes]
    rng = np.random.default_rng(6)
    counts = rng.integers(0, 4, size=(500, len(names))) * (rng.random((500, len(names))) < 0.4)
    counts[0] = 0  # nothing placed: an empty string
    counts[1, -1] = 12  # two digits
    want = [" ".join(f"{n}:{c}" for n, c in zip(names, row, strict=True) if c) for row in counts]
    got = shapes_placed_strings(counts.astype(np.int32), rules)
    assert got.to_pylist() == want and got.type == pa.large_string()
    assert got[0].as_py() == "" and got[1].as_py().endswith(f"{names[-1]}:12")
    assert shapes_placed_strings(np.zeros((0, len(names)), dtype=np.int32), rules).to_pylist() == []


def test_move_log_strings_equal_a_per_turn_reading():
    """tiles and anchor, built from byte matrices and look-ups, against the log read one turn at a time."""
    from boardlab.agents.citywright import play as P
    from boardlab.agents.citywright.registry import parse_agent
    from boardlab.experiments.citywright.runner import play_chunk_table
    from boardlab.sim.citywright.tables import PL_AC, PL_AR, SHP_PLAIN, SHP_STAR, tables_for

    rules = load_rules("v1.1")
    agents = [parse_agent("greedy"), parse_agent("random")]  # greedy swaps at two players
    _, log = play_chunk_table(rules, 2, agents, "rotate", 5, 0, 30, log_moves=True)
    tb = tables_for(rules, 2)

    def letter(x):
        return "RCPI-"[min(max(int(x), 0), 4)]

    want = []
    for rec in log.reshape(-1, log.shape[-1]):
        kind, sh, pl = rec[P.LOG_KIND], rec[P.LOG_SHAPE], rec[P.LOG_PL]
        if kind == 0:
            cells = [""] * 5
            for m in range(4):
                cells[tb.shp[sh, SHP_PLAIN + m]] = letter(rec[P.LOG_TILES + m])
            if tb.shp[sh, SHP_STAR] >= 0:
                cells[tb.shp[sh, SHP_STAR]] = letter(rec[P.LOG_FREE])
            want.append(("".join(cells), f"{tb.pl_info[pl, PL_AR]},{tb.pl_info[pl, PL_AC]}"))
        elif kind == 2:
            want.append((letter(rec[P.LOG_TILES]), f"{pl // 8},{pl % 8}"))
        else:
            want.append(("", ""))
    moves = moves_table(log, rules, 2, 0)
    assert "swap" in moves["kind"].to_pylist()
    assert list(zip(moves["tiles"].to_pylist(), moves["anchor"].to_pylist(), strict=True)) == want


def test_rules_survive_the_run_spec_round_trip_in_order():
    """Shapes are dealt in rule-set order: a run's stored rules must keep that order exactly."""
    from boardlab.sim.citywright.tables import tables_for

    rules = load_rules("v1.1")
    back = _spec().rule_set()
    assert [s.name for s in back.shapes] == [s.name for s in rules.shapes]
    assert back == rules
    a, b = tables_for(rules, 3), tables_for(back.with_overrides({}), 3)
    assert (a.rp == b.rp).all() and (a.shp == b.shp).all()


def test_bench_reports_simulate_beside_the_kernel():
    from boardlab.experiments.citywright import bench as B

    lines = []
    res = B.run(games=200, boards=2000, subprocesses=False, agents=False, log=lines.append)
    assert res["simulate_games"] == 800
    assert res["simulate_random_games_per_s_4p"] > 0 and res["random_agent_games_per_s_4p"] > 0
    ratio = res["simulate_random_games_per_s_4p"] / res["random_games_per_s_4p"]
    assert res["simulate_vs_kernel_4p"] == round(ratio, 2)
    # each figure is reported as it is measured (a full bench is minutes long)
    assert [line.split()[0] for line in lines] == [k for k in res if k not in ("rules", "games_per_player_count")]


def test_streamed_move_log_is_the_assembled_one_byte_for_byte(tmp_path):
    """The move log (a file only the seed games' kernels write) is streamed and assembled like the rows."""
    assert_streamed_file_is_the_assembled_file(_spec(games=100, chunk=20, moves=True), tmp_path)


def test_searching_agents_get_small_chunks():
    """A run of slow searches is cut into many chunks (progress, both processes busy, little lost on a stop)."""
    from boardlab.agents.citywright.registry import parse_agent
    from boardlab.experiments.simulate import default_chunk_size
    from boardlab.sim.games import get_game

    game = get_game("citywright")
    for spec in ("expert", "expert-specialist:C", "mcts"):
        assert default_chunk_size(game, [parse_agent(spec), parse_agent("greedy")], 2000) == 20
    assert default_chunk_size(game, [parse_agent("greedy")], 2000) == 1000
    assert default_chunk_size(game, [parse_agent("random")], 200_000) == 10_000
    assert S.make_spec(2, ["expert"], 30, 0, load_rules()).chunk_size == 20  # the game's rule, by default
