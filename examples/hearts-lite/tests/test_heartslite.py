"""Hearts-lite against the game contract (boardlab.testing.check_game) and its rules, through the public API."""

from __future__ import annotations

from itertools import pairwise

import numpy as np
import pytest
from boardlab_heartslite.api import (
    HEARTS,
    QUEEN_OF_SPADES,
    TWO_OF_CLUBS,
    Game,
    IllegalMove,
    Move,
    deck,
    invariants,
)

from boardlab.testing import check_game


def test_heartslite_conforms():
    check_game("heartslite", games=3)


def _play_to(g: Game, moves: int) -> Game:
    for _ in range(moves):
        g.apply(g.random_move())
    return g


def test_the_deck_is_dealt_evenly_and_the_two_of_clubs_leads():
    for players in (3, 4):
        g = Game(players, "one-deal", seed=players)
        assert len(deck(players)) == 52 - 52 % players
        assert [len(h) for h in g.hands] == [len(deck(players)) // players] * players
        assert TWO_OF_CLUBS in g.hands[g.current]
        assert g.legal_moves() == [Move(TWO_OF_CLUBS)]
        assert g.decision_kind() == "lead"


def test_a_player_follows_suit_when_able_and_the_highest_card_of_the_suit_led_wins():
    g = Game(4, "one-deal", seed=11)
    g.apply(Move(TWO_OF_CLUBS))
    for _ in range(2):
        hand, moves = g.hands[g.current], {m.card for m in g.legal_moves()}
        clubs = {c for c in hand if c // 13 == 0}
        assert moves == clubs if clubs else all(c // 13 != HEARTS and c != QUEEN_OF_SPADES for c in moves)
        g.apply(g.random_move())
    g.apply(g.random_move())
    trick = list(g.played)
    g2 = Game(4, "one-deal", seed=11)
    for c in trick[:-1]:
        g2.apply(Move(c))
    leader = g2.leader
    g2.apply(Move(trick[-1]))
    best = max(i for i in range(4) if trick[i] // 13 == 0 and trick[i] == max(c for c in trick if c // 13 == 0))
    assert g2.current == (leader + best) % 4 and g2.tricks[g2.current] == 1


def test_hearts_are_not_led_before_they_are_broken():
    for seed in range(30):
        g = Game(4, "one-deal", seed=seed)
        while not g.done:
            if not g.trick and not g.hearts_broken and any(c // 13 != HEARTS for c in g.hands[g.current]):
                assert all(m.card // 13 != HEARTS for m in g.legal_moves())
            g.apply(g.random_move())


def test_a_deal_scores_every_point_card_once_and_the_lowest_score_wins():
    for seed in range(20):
        g = _play_to(Game(4, "one-deal", seed=seed), 52)
        assert g.done and not invariants(g)
        moon = sum(g.moons)
        assert sum(g.points) == (26 if not moon else 78)
        assert sum(g.hearts) == 13 and sum(g.queens) == 1 and sum(g.tricks) == 13
        scores = g.scores()
        best = min(s["total"] for s in scores)
        assert all((s["rank"] == 1) == (s["total"] == best) for s in scores)
        assert sum(s["win_share"] for s in scores) == pytest.approx(1.0)


def test_shooting_the_moon_gives_the_others_the_points():
    g = Game(3, "one-deal", seed=0)
    g.point_cards = [14, 0, 0]
    g.taken = [26, 0, 0]
    g.hands = [[], [], []]
    g._end_deal()
    assert g.points == [0, 26, 26] and g.moons == [1, 0, 0] and g.done
    g = Game(3, g.rules.with_overrides({"game.shoot_the_moon": False}), seed=0)
    g.point_cards, g.taken, g.hands = [14, 0, 0], [26, 0, 0], [[], [], []]
    g._end_deal()
    assert g.points == [26, 0, 0]


def test_a_game_is_played_to_the_target():
    g = Game(4, "full", seed=5)
    moves = 0
    while not g.done:
        g.apply(g.random_move())
        moves += 1
        assert not invariants(g)
        if moves % 37 == 0 and not g.done:  # a redeal in a later deal keeps what the seat sees
            p = g.current
            assert g.redeal(p, moves).observation(p) == g.observation(p)
    assert g.deal > 0 and sum(g.tricks) == 13 * (g.deal + 1)
    assert max(g.points) >= g.rules.target or g.deal + 1 == g.rules.max_deals
    assert g.progress(0) == g.points[0]


def test_progress_is_the_points_taken_so_far_and_the_family_the_suit():
    g = Game(4, "one-deal", seed=3)
    seen = []
    while not g.done:
        m = g.random_move()
        assert g.move_family(m) in g.move_families() and g.move_family(m) == g.move_families()[m.card // 13]
        g.apply(m)
        seen.append([g.progress(p) for p in range(4)])
    assert all(a <= b for x, y in pairwise(seen) for a, b in zip(x, y, strict=True)) or sum(g.moons)
    assert seen[-1] == g.points


def test_an_illegal_card_is_refused_and_changes_nothing():
    g = Game(4, "one-deal", seed=2)
    before = g.snapshot()
    other = next(c for c in g.hands[(g.current + 1) % 4])
    with pytest.raises(IllegalMove):
        g.apply(Move(other))
    assert g.snapshot() == before
    assert Game.parse_move("QS") == Move(QUEEN_OF_SPADES) and str(Move(QUEEN_OF_SPADES)) == "QS"
    with pytest.raises(IllegalMove, match="not a card"):
        Game.parse_move("1X")


@pytest.mark.parametrize("players", [3, 4])
def test_a_redeal_keeps_what_the_seat_sees_and_deals_the_rest_consistently_with_the_voids(players):
    rng = np.random.default_rng(0)
    differs = 0
    for seed in range(25):
        g = _play_to(Game(players, "one-deal", seed=seed), int(rng.integers(0, 40)))
        if g.done:
            continue
        for p in range(players):
            for _ in range(3):
                r = g.redeal(p, int(rng.integers(1 << 30)))
                assert r.observation(p) == g.observation(p)
                assert not invariants(r)
                assert r.hands[p] == g.hands[p]
                assert r.seed != g.seed and r.streams != g.streams
                for s in range(players):
                    assert not any(r.voids[s][c // 13] for c in r.hands[s])
                differs += r.hands != g.hands
                while not r.done:  # the redealt game plays on to its end
                    r.apply(r.random_move())
    assert differs > 0


def test_the_canonical_redeal_depends_only_on_what_the_seat_sees():
    g = _play_to(Game(4, "one-deal", seed=8), 9)
    p = g.current
    twin = g.redeal(p, 77)
    assert twin.hands != g.hands and twin.observation(p) == g.observation(p)
    assert twin.redeal(p).snapshot() == g.redeal(p).snapshot()
    assert twin.redeal(p, 5).snapshot() == g.redeal(p, 5).snapshot()


def test_the_first_leader_keeps_the_two_of_clubs_in_a_redeal():
    g = Game(4, "one-deal", seed=4)
    p = (g.current + 1) % 4
    for k in range(20):
        assert TWO_OF_CLUBS in g.redeal(p, k).hands[g.current]


def test_the_result_rows_are_the_scores_columns():
    from boardlab_heartslite.game import OWN_COLUMNS
    from boardlab_heartslite.results import rows

    for seed in range(3):
        g = _play_to(Game(3, "full", seed=seed), 0)
        while not g.done:
            g.apply(g.random_move())
        got = rows(g)
        assert {c: got[c].tolist() for c in OWN_COLUMNS} == {c: [s[c] for s in g.scores()] for c in OWN_COLUMNS}
