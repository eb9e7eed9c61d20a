"""Cartographers' chunk player (experiments/cartographers_runner.py) and agent registry: each row is the
game the public API plays from the same seed with the random policy, column for column."""

from __future__ import annotations

import math

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from boardlab.agents.cartographers.play import run_games
from boardlab.agents.cartographers.registry import AgentError, parse_agent, split_specs
from boardlab.agents.cartographers.registry import rows as agent_rows
from boardlab.experiments import simulate as S
from boardlab.experiments.cartographers.runner import grid_strings, play_chunk
from boardlab.experiments.schema import schema_of
from boardlab.sim.cartographers import engine as E
from boardlab.sim.cartographers.api import STATE_LETTERS, Game, codes_to_strings, grid_to_planes, planes_to_codes
from boardlab.sim.cartographers.game import EDICT_KEYS, RESULT_COLUMNS, SEASON_KEYS
from boardlab.sim.cartographers.rules import load_rules
from boardlab.sim.cartographers.tables import tables_for
from boardlab.sim.games import get_game


@pytest.mark.parametrize(("players", "side"), [(1, "base-a"), (2, "base-b"), (5, "base-a")])
def test_rows_are_the_api_games(players, side):
    rules = load_rules(side)
    df = play_chunk(rules, players, [parse_agent("random")] * players, "rotate", 99, 3, 9)
    assert tuple(df.columns) == RESULT_COLUMNS and len(df) == 6 * players
    assert list(df["game"].unique()) == list(range(3, 9))
    for seed, rows in df.groupby("game_seed", sort=False):
        g = Game(players, rules, int(seed))
        while not g.done:
            g.apply(g.random_move())
        snap, scores = g.snapshot(), g.scores()
        for p, row in enumerate(rows.itertuples(index=False)):
            sc = scores[p]
            assert row.seat == p + 1 and row.side == side[-1].upper()
            assert [getattr(row, f"card_{e}") for e in EDICT_KEYS] == snap["edicts"]
            seasons = [(getattr(row, f"{s}_e1"), getattr(row, f"{s}_e2")) for s in SEASON_KEYS]
            assert seasons == [(r["e1"], r["e2"]) for r in snap["seasons"][p]]
            assert [getattr(row, f"points_{e}") for e in EDICT_KEYS] == sc["edicts"]
            assert (row.edict_points, row.coin_points, row.monster_penalty) == (
                sc["edict_points"],
                sc["coin_points"],
                sc["monster_penalty"],
            )
            assert row.coins == snap["coins"][p]
            assert (row.total, row.rank, row.win_share, row.win) == (
                sc["total"],
                sc["rank"],
                sc["win_share"],
                sc["rank"] == 1,
            )
            if players == 1:
                assert row.rating == sc["rating"] and row.title == (sc["title"] or "")
            else:
                assert math.isnan(row.rating) and row.title == ""
            assert row.grid == snap["grids"][p]


def test_agent_specs():
    assert str(parse_agent(" Random ")) == "random"
    assert split_specs("random,random") == ["random", "random"]
    for bad in ("", "nosuch", "random:x=1", "greedy:ambush=kind"):
        with pytest.raises(AgentError):
            parse_agent(bad)


@pytest.mark.parametrize("players", [1, 4])
def test_the_engine_loop_plays_the_agents_loop_random_games(players):
    # the chunk player takes the engine's own loop when every seat is random: the same games, every output
    rules = load_rules()
    tb = tables_for(rules, players)
    seeds = np.arange(40, 52, dtype=np.uint64)
    engine = E.new_results(len(seeds), players)
    E.play_random_games(seeds, *tb.kernel_args(), *engine.values())
    agents = run_games(seeds, np.tile(agent_rows([parse_agent("random")] * players), (len(seeds), 1, 1)), tb)
    assert engine.keys() == agents.keys()
    for key in engine:
        np.testing.assert_array_equal(engine[key], agents[key], err_msg=key)
    assert engine["planes"].any() and engine["records"].any() and engine["edicts"].any()


def _codes_oracle(planes: np.ndarray) -> np.ndarray:
    """One map's cell codes, cell by cell: the plane whose bit holds the cell (0 for none)."""
    out = np.zeros(121, dtype=np.uint8)
    for cell in range(121):
        for k in range(8):
            if int(planes[k, cell // 64]) >> (cell % 64) & 1:
                out[cell] = k
    return out


def test_map_codes_and_strings_match_their_cell_by_cell_oracle():
    rules = load_rules()
    tb = tables_for(rules, 2)
    res = E.new_results(3, 2)
    E.play_random_games(np.arange(3, dtype=np.uint64), *tb.kernel_args(), *res.values())
    every_code = "".join(STATE_LETTERS[i % 8] for i in range(121))  # each code, in each of the two words
    maps = np.concatenate([res["planes"].reshape(-1, E.N_PLANES, 2), grid_to_planes(every_code, rules)[None]])
    codes = planes_to_codes(maps)
    for i, m in enumerate(maps):
        np.testing.assert_array_equal(codes[i], _codes_oracle(m))
    assert "".join(STATE_LETTERS[c] for c in codes[-1]) == every_code
    assert (
        grid_strings(maps).to_pylist()
        == list(codes_to_strings(codes))
        == ["".join(STATE_LETTERS[c] for c in row) for row in codes]
    )


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
