"""Conformance: what every registered game must do, run for each (as OpenSpiel's games_sim_test and
pgx's api_test do for theirs).  A new game passes these before anything is built on it.

* its rule presets load, and print as TOML that loads back unchanged;
* the same seed plays the same game (the random policy draws from the game's own policy stream);
* every listed legal move is legal, applying one changes the position, and the game ends;
* the game's declared invariants hold in every position;
* the reference implementation, where the game has one, agrees move by move and on the final scores;
* the chunk player gives the declared result columns, one row per (game, seat), and one win per game;
* a run gives the same table on one process and on two.
"""

from __future__ import annotations

import random

import pandas as pd
import pytest

from experiments import simulate as S
from sim.games import available_games, get_game

GAMES = [g.id for g in available_games()]
SEEDS = (3, 11, 2024)
LIST_EVERY = 6


def player_counts(game) -> list[int]:
    lo, hi = game.players
    return sorted({lo, min(lo + 1, hi), hi})


def play_random(game, players: int, seed: int, visit=None) -> list:
    """A game of the random policy; visit(g, move) before each move. Returns the moves played."""
    g = game.new_game(players, game.load_rules(game.default_preset), seed)
    moves = []
    while not g.done:
        m = g.random_move()
        if visit is not None:
            visit(g, m)
        g.apply(m)
        moves.append(m)
    return moves, g


@pytest.mark.parametrize("game_id", GAMES)
def test_presets_load_and_round_trip_through_toml(game_id, tmp_path):
    game = get_game(game_id)
    assert game.default_preset == game.presets[0]
    for name in game.presets:
        rules = game.load_rules(name)
        path = tmp_path / f"{name}.toml"
        path.write_text(rules.to_toml())
        assert game.load_rules(str(path)).to_dict() == rules.to_dict()
    with pytest.raises(game.rules_error):
        game.load_rules("no-such-preset")


@pytest.mark.parametrize("game_id", GAMES)
def test_same_seed_same_game(game_id):
    game = get_game(game_id)
    for players in player_counts(game):
        a_moves, a = play_random(game, players, seed=5)
        b_moves, b = play_random(game, players, seed=5)
        assert a_moves == b_moves
        assert a.snapshot() == b.snapshot() and a.scores() == b.scores()
        c_moves, _ = play_random(game, players, seed=6)
        assert c_moves != a_moves  # the seed matters


@pytest.mark.parametrize("game_id", GAMES)
def test_listed_moves_are_legal_and_invariants_hold(game_id):
    """Invariants in every position; the full listing of legal moves (long in some games) every LIST_EVERY-th."""
    game = get_game(game_id)
    rnd = random.Random(0)
    for players in player_counts(game):
        for seed in SEEDS[:1]:
            g = game.new_game(players, game.load_rules(game.default_preset), seed)
            assert game.invariants(g) == []
            turns = 0
            while not g.done:
                if turns % LIST_EVERY == 0:
                    legal = g.legal_moves()
                    assert legal, f"no legal move at {g.snapshot()}"
                    for m in rnd.sample(legal, min(len(legal), 10)):
                        assert g.is_legal(m), m
                    m = rnd.choice(legal)
                else:
                    m = g.random_move()
                    assert g.is_legal(m), m
                before = g.snapshot()
                g.apply(m)
                assert g.snapshot() != before, f"{m} changed nothing"
                assert game.invariants(g) == [], f"after {m}"
                turns += 1
                assert turns < 10_000, "the game does not end"
            scores = g.scores()
            assert len(scores) == players
            assert abs(sum(s["win_share"] for s in scores) - 1.0) < 1e-9


@pytest.mark.parametrize("game_id", [g.id for g in available_games() if g.reference_game is not None])
def test_reference_agrees_move_by_move(game_id):
    game = get_game(game_id)
    rules = game.load_rules(game.default_preset)
    for players in player_counts(game):
        for seed in SEEDS:
            g = game.new_game(players, rules, seed)
            ref = game.reference_game(players, rules, seed)
            assert g.snapshot() == ref.snapshot()
            while not g.done:
                m = g.random_move()
                assert ref.is_legal(m), m
                g.apply(m)
                ref.apply(m)
                assert g.snapshot() == ref.snapshot(), f"after {m}"
            assert ref.done and g.scores() == ref.scores()


@pytest.mark.parametrize("game_id", GAMES)
def test_chunk_player_gives_the_declared_columns(game_id):
    game = get_game(game_id)
    reg = game.agents()
    assert "random" in {d.name for d in reg.available_agents()}, "every game has a random agent"
    rules = game.load_rules(game.default_preset)
    for players in player_counts(game):
        agents = [reg.parse_agent("random")] * players
        df = game.play_chunk(rules, players, agents, "rotate", 7, 10, 30)
        assert tuple(df.columns) == game.result_columns
        assert len(df) == 20 * players
        assert list(df["game"].unique()) == list(range(10, 30))
        assert (df.groupby("game")["win_share"].sum().round(9) == 1.0).all()


@pytest.mark.parametrize("game_id", GAMES)
def test_one_process_and_two_give_the_same_table(game_id, tmp_path):
    game = get_game(game_id)
    players = game.players[1]
    rules = game.load_rules(game.default_preset)
    spec = S.make_spec(players, ["random"], 60, 9, rules, "rotate", chunk_size=15, game=game_id)
    S.run(spec, tmp_path / "one.parquet", jobs=1)
    S.run(spec, tmp_path / "two.parquet", jobs=2)
    one, two = pd.read_parquet(tmp_path / "one.parquet"), pd.read_parquet(tmp_path / "two.parquet")
    pd.testing.assert_frame_equal(one, two)
    assert S.read_metadata(tmp_path / "one.parquet")["spec"]["game"] == game_id
