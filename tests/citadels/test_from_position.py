"""A game started from a position draws the same chance on the engine's API and on the reference.

docs/games/citadels.md promises "the same chance": ``Game.from_position`` and ``RefGame.from_position`` with the
same seed start the same chance stream, so every later shuffle (the ranks of each round, the deck once it is
reshuffled) is the same.  Each case below sets up one position on both, plays it to the end with the
reference random player, and compares at every decision who decides, the legal list, the random player's draw
and every seat's observation (the API's event log of a position starting empty, the reference's with the start
and the hands), and the final scores.
"""

from __future__ import annotations

import pytest

from boardlab.sim.citadels.api import Game, move_text
from boardlab.sim.citadels.rules import DECKS

R = pytest.importorskip("boardlab.sim.citadels.reference")

T = {d.name: d.id for d in DECKS["classic66"]}

# (players, rules, seed, round, crown, gold, hands, cities): positions at a round's start, hands and cities of
# district type ids (a city's entries built in round 0 unless given as (type, round) pairs)
POSITIONS = [
    (4, "official", 3, 1, 0, [2, 2, 2, 2], [[T["Temple"], T["Castle"]], [T["Docks"]], [], [T["Market"]]],
     [[], [T["Watchtower"]], [], []]),
    (2, "official", 11, 3, 1, [5, 1], [[T["Palace"]], [T["Tavern"], T["Manor"]]],
     [[(T["Temple"], 1), (T["Market"], 2)], [(T["Castle"], 2)]]),
    (6, "seed-summary", 2**64 - 1, 2, 5, [3, 0, 4, 2, 1, 6], [[]] * 6, [[]] * 6),
    (7, "official", 12345, 4, 2, [2] * 7,
     [[T[x]] for x in ("Docks", "Temple", "Castle", "Manor", "Palace", "Market", "Watchtower")],
     [[T["Tavern"], T["Market"]]] + [[]] * 6),
]  # fmt: skip


def _both(players, rules, seed, rnd, crown, gold, hands, cities):
    api = Game.from_position(players, rules, seed, round=rnd, crown=crown, gold=gold, hands=hands, cities=cities)
    ref = R.RefGame.from_position(
        players, rules, seed=seed, round=rnd, crown=crown, gold=gold, hands=hands, cities=cities
    )
    return api, ref


def seen(ref, p: int) -> dict:
    """The reference's observation of seat p as the API gives it from a position: the API's event log starts
    empty, the reference's with the game's start and the seat's hand (two entries)."""
    d = ref.observation(p)
    assert [e[0] for e in d["log"][:2]] == ["start", "hand"]
    return {**d, "log": d["log"][2:]}


@pytest.mark.parametrize("players,rules,seed,rnd,crown,gold,hands,cities", POSITIONS)
def test_a_position_plays_the_same_chance_on_both(players, rules, seed, rnd, crown, gold, hands, cities):
    g, ref = _both(players, rules, seed, rnd, crown, gold, hands, cities)
    player = R.reference_random_player(seed)
    rounds = {ref.round}
    step = 0
    while not ref.done:
        where = f"{rules} n={players} seed={seed} decision {step}"
        seat, legal = ref.current, ref.legal_moves()
        assert g.current == seat, where
        assert g.round == ref.round, where
        mine = g.legal_moves()
        assert mine == legal, f"{where}: {[move_text(m) for m in mine]} vs {[move_text(m) for m in legal]}"
        for p in range(players):
            assert g._observed(p) == seen(ref, p), f"{where}: seat {p}'s observation"
        move = player(legal)
        assert g.random_move() == move, where
        g.apply(move)
        ref.apply(move)
        rounds.add(ref.round)
        step += 1
    assert g.done
    assert g.scores() == ref.scores()
    assert len(rounds) >= 2  # a later round's shuffle was drawn on both


@pytest.mark.parametrize("players,rules,seed,rnd,crown,gold,hands,cities", POSITIONS)
def test_the_same_seed_starts_the_same_stream_whatever_the_setup_drew(
    players, rules, seed, rnd, crown, gold, hands, cities
):
    """After the position's round has started, both chance streams stand where a fresh stream of the seed
    stands after that round's rank shuffle (7 draws for 8 ranks): not where the setup's stream of a normal
    game (its deck shuffle first) would."""
    g, ref = _both(players, rules, seed, rnd, crown, gold, hands, cities)
    fresh = R.SplitMix64(seed)
    fresh.shuffle(list(range(1, 9)))
    assert int(g.rng[0]) == ref.rng.state == fresh.state
    setup = Game(players, rules, seed)  # the stream a normal game's first round leaves
    assert int(setup.rng[0]) != fresh.state


def test_a_normal_game_keeps_its_stream():
    """Games that start from the setup draw their chance as before: the engine and the reference agree move by
    move on a whole game (the golden fingerprints hold the streams themselves)."""
    ref, trace = R.play_random_game(4, "official", 5)
    g = Game(4, "official", 5)
    for seat, legal, move in trace:
        assert g.current == seat and g.legal_moves() == list(legal)
        g.apply(move)
    assert g.done and g.scores() == ref.scores()
