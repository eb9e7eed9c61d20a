"""Conformance: what every registered game must do, run for each (as OpenSpiel's games_sim_test and
pgx's api_test do for theirs).  A new game passes these before anything is built on it.

* its rule presets load, and print as TOML that loads back unchanged;
* the same seed plays the same game (the random policy draws from the game's own policy stream);
* every listed legal move is legal, applying one changes the position, and the game ends;
* the game's declared invariants hold in every position;
* the reference implementation, where the game has one, agrees move by move and on the final scores;
* the chunk player gives the declared result columns, one row per (game, seat), and one win per game;
* a run gives the same table on one process and on two;
* a copy is independent of its original, and a move's text reads back as the move;
* hidden information: an observation is plain data; positions that differ only in what a player cannot
  see (redealt) give that player the same observation, and a generic agent the same move (same seed);
  an imperfect-information game's redeal does change the hidden part;
* the generic chunk player (boardlab.experiments.play: Python agents through the public API) gives the same rows
  on one process and on two, and, with the game's built-in agents, the game's own chunk player's rows.

The example games (examples/pig, examples/hearts-lite) are served through their entry points and run here; each
built-in game runs these with its own tests (tests/<game>/test_every_game.py, tests/per_game.py).
"""

from __future__ import annotations

import json
import random

import numpy as np
import pandas as pd
import pytest

from boardlab.agents.generic import registry as generic
from boardlab.agents.generic.base import agent_moves, agent_rng
from boardlab.experiments import play as P
from boardlab.experiments import simulate as S
from boardlab.sim.games import get_game
from tests.per_game import PLUGIN_GAMES, game_ids

game_id = game_ids(PLUGIN_GAMES)  # the built-in games run these in their own folders (tests/per_game.py)
SEEDS = (3, 11, 2024)
LIST_EVERY = 6


def player_counts(game) -> list[int]:
    """The smallest, next and largest player counts the default rule set allows (a preset may allow fewer
    than the game: Citadels' official rules stop at 7 of the game's 8)."""
    rules = game.load_rules(game.default_preset)

    def allowed(n: int) -> bool:
        try:
            game.new_game(n, rules, 0)
        except game.rules_error:
            return False
        return True

    counts = [n for n in range(game.players[0], game.players[1] + 1) if allowed(n)]
    lo, hi = counts[0], counts[-1]
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


def test_same_seed_same_game(game_id):
    game = get_game(game_id)
    for players in player_counts(game):
        a_moves, a = play_random(game, players, seed=5)
        b_moves, b = play_random(game, players, seed=5)
        assert a_moves == b_moves
        assert a.snapshot() == b.snapshot() and a.scores() == b.scores()
        c_moves, _ = play_random(game, players, seed=6)
        assert c_moves != a_moves  # the seed matters


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


def test_reference_agrees_move_by_move(game_id):
    game = get_game(game_id)
    if game.reference_game is None:
        pytest.skip(f"{game_id} has no reference implementation")
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


def test_one_process_and_two_give_the_same_table(game_id, tmp_path):
    game = get_game(game_id)
    players = player_counts(game)[-1]
    rules = game.load_rules(game.default_preset)
    spec = S.make_spec(players, ["random"], 60, 9, rules, "rotate", chunk_size=15, game=game_id)
    S.run(spec, tmp_path / "one.parquet", jobs=1)
    S.run(spec, tmp_path / "two.parquet", jobs=2)
    one, two = pd.read_parquet(tmp_path / "one.parquet"), pd.read_parquet(tmp_path / "two.parquet")
    pd.testing.assert_frame_equal(one, two)
    assert S.read_metadata(tmp_path / "one.parquet")["spec"]["game"] == game_id


# --- the public API: copies, move text, hidden information ------------------------------


def positions(game, players: int, seed: int, every: int = LIST_EVERY):
    """A copy of every `every`-th position of a random game."""
    g = game.new_game(players, game.load_rules(game.default_preset), seed)
    turns = 0
    while not g.done:
        if turns % every == 0:
            yield g.copy()
        g.apply(g.random_move())
        turns += 1


def _state(g) -> dict:
    """Everything a position holds, arrays as their type, shape and bytes (to compare two positions whatever the
    game)."""
    return {k: ((v.dtype.str, v.shape, v.tobytes()) if isinstance(v, np.ndarray) else v) for k, v in vars(g).items()}


def test_a_copy_is_independent_of_its_original(game_id):
    game = get_game(game_id)
    for g in positions(game, player_counts(game)[-1], seed=4, every=9):
        before, state = g.snapshot(), _state(g)
        c = g.copy()
        assert c.snapshot() == before
        while not c.done:
            c.apply(c.random_move())
        assert g.snapshot() == before and _state(g) == state, "playing the copy changed the original"
        c2 = g.copy()
        g2 = g.copy()
        g2.apply(g2.random_move())
        assert c2.snapshot() == before, "playing the original changed a copy"


def test_a_moves_text_reads_back_as_the_move(game_id):
    game = get_game(game_id)
    rnd = random.Random(1)
    for players in player_counts(game):
        for g in positions(game, players, seed=8):
            listed = agent_moves(g)
            for m in [*rnd.sample(listed, min(len(listed), 25)), g.random_move()]:
                assert g.parse_move(str(m)) == m, str(m)
    with pytest.raises(ValueError):
        g.parse_move("no such move")


def test_observations_hide_what_a_player_cannot_see(game_id):
    """The same observation from positions redealt for that player; a sample of an observation observes as it;
    an imperfect-information game's redeal changes the hidden part (somewhere in the game)."""
    game = get_game(game_id)
    assert game.information in ("perfect", "imperfect")
    changed = False
    for players in player_counts(game):
        for g in positions(game, players, seed=13):
            assert g.information == game.information
            for p in range(players):
                obs = g.observation(p)
                assert obs.player == p and obs["player"] == p
                json.dumps(obs.to_dict())  # plain data
                for s in (1, 2):
                    other = g.redeal(p, s)
                    assert other.observation(p) == obs
                    assert obs.sample(np.random.default_rng(s)).observation(p) == obs
                    changed = changed or _state(other) != _state(g)
                    assert game.invariants(other) == [], f"a redeal broke an invariant: {game.invariants(other)}"
    if game.information == "imperfect" or game.chance:
        assert changed, "redeal never changed the hidden part"


@pytest.mark.parametrize("spec", ["random", "ismcts:iters=6"])
def test_a_generic_agents_move_depends_only_on_its_observation(game_id, spec):
    game = get_game(game_id)
    a = generic.parse_agent(spec)
    players = game.players[1] if game.players[1] <= 3 else 3
    for g in list(positions(game, players, seed=21, every=13))[:3]:
        p = g.current
        one, two = g.redeal(p, 1), g.redeal(p, 2)  # the same for p to see, two other hidden parts
        if game.information == "imperfect" or game.chance:
            assert _state(one) != _state(two)
        mine = a.make().act(one.observation(p), agent_moves(one), agent_rng(g.seed, p))
        theirs = a.make().act(two.observation(p), agent_moves(two), agent_rng(g.seed, p))
        assert mine == theirs and g.is_legal(mine)


@pytest.mark.slow  # two worker processes (one process and two: test_one_process_and_two_give_the_same_table)
def test_the_generic_chunk_player_gives_the_same_rows_on_one_process_and_two(game_id):
    from joblib import Parallel, delayed

    game = get_game(game_id)
    reg = game.agents()
    players = game.players[0] + 1 if game.players[0] < game.players[1] else game.players[0]
    agents = [reg.parse_agent(s) for s in ["ismcts:iters=2", "random"]][:players]
    agents += [reg.parse_agent("random")] * (players - len(agents))
    rules = game.load_rules(game.default_preset)
    one = P.play_chunk(game, rules, players, agents, "rotate", 3, 0, 3)  # one process, one chunk
    parts = Parallel(n_jobs=2)(
        delayed(P.play_chunk)(game_id, rules, players, agents, "rotate", 3, a, b) for a, b in ((0, 1), (1, 3))
    )
    pd.testing.assert_frame_equal(pd.concat(parts, ignore_index=True), one)
    assert tuple(one.columns) == game.result_columns and len(one) == 3 * players
    assert (one.groupby("game")["win_share"].sum().round(9) == 1.0).all()


def test_the_generic_chunk_player_with_built_in_agents_gives_the_games_own_rows(game_id):
    game = get_game(game_id)
    reg = game.agents()
    builtin = [d.name for d in reg.available_agents() if not d.python and all(p.default is not None for p in d.params)]
    if not builtin:
        pytest.skip(f"{game_id} has no built-in agents")
    rules = game.load_rules(game.default_preset)
    for players in player_counts(game):
        agents = [reg.parse_agent(builtin[i % len(builtin)]) for i in range(players)]
        own = game.play_chunk(rules, players, agents, "rotate", 5, 3, 9)
        pd.testing.assert_frame_equal(P.play_chunk(game, rules, players, agents, "rotate", 5, 3, 9), own)
