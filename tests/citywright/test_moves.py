"""The listing's place moves (made by moves.placement, without the dataclass's __init__) are the moves the
dataclass makes, in every respect a caller can see."""

from __future__ import annotations

import copy
import pickle
import random

import boardlab
from boardlab.sim.citywright import engine as E
from boardlab.sim.citywright.moves import Move, placement
from boardlab.sim.citywright.rules import N_SLOTS, load_rules
from tests.citywright.test_properties import fill_move


def _same(a: Move, b: Move) -> None:
    assert a == b and hash(a) == hash(b) and str(a) == str(b)
    assert list(vars(a).items()) == list(vars(b).items())  # every field, in the dataclass's order
    assert type(a) is Move


def test_placement_is_the_dataclasss_place_move():
    a = placement(3, "T5", 6, (1, 2), ((1, 2), (1, 3), (2, 2)), ("R", "", "C"), "C")
    b = Move(
        kind="place", slot=3, shape="T5", orientation=6, anchor=(1, 2), cells=((1, 2), (1, 3), (2, 2)),
        tiles=("R", "", "C"), free="C",
    )  # fmt: skip
    _same(a, b)
    _same(pickle.loads(pickle.dumps(a)), b)
    _same(copy.deepcopy(a), b)


def test_every_listed_move_is_the_move_its_fields_make():
    for players, seed in ((2, 1), (4, 7)):
        g = boardlab.new_game("citywright", players, None, seed)
        for turn in range(3):
            moves = g.legal_moves(slot=4) if turn == 0 else g.agent_moves()  # (every tile assignment: one slot)
            assert any(m.kind == "place" for m in moves)
            for m in moves:
                _same(m, Move(**vars(m)))
            g.apply(g.random_move())


def test_legal_count_is_the_listings_length():
    """At 2 players (swaps), at 4, with the depleting market (free picks from what is left), with forced discards
    (a driver that fills the board), and at the end."""
    seen = set()
    depletes = load_rules("v1.0").with_overrides({"game.market_depletes": True})
    for players, rules, seed, every, fill in (
        (2, None, 3, 5, False), (4, None, 5, 30, False), (3, depletes, 2, 12, False), (2, "v1.0", 1, 9, True),
    ):  # fmt: skip
        g = boardlab.new_game("citywright", players, rules, seed)
        rng, turn = random.Random(seed), 0
        while not g.done:
            open_slots = [s for s in range(N_SLOTS) if g.st[E.ST_SLOTS + s] >= 0]
            forced = any(not g.legal_placements(s) for s in open_slots)  # a forced discard among the moves
            if turn % every == every - 1 or forced:
                assert g.legal_count() == len(g.legal_moves()), (players, rules, turn)
                seen.add((players, any(m.kind == "swap" for m in g.agent_moves())))
                seen.add(("forced", forced))
            g.apply(fill_move(g, rng) if fill else g.random_move())
            turn += 1
        assert g.legal_count() == 0 == len(g.legal_moves())
    assert (2, True) in seen and ("forced", True) in seen
    g = boardlab.new_game("citywright", 3, None, 4)
    g.st[E.ST_SLOTS : E.ST_SLOTS + N_SLOTS] = -1  # no ruler in any slot: the one move is a pass
    assert g.legal_count() == 1 == len(g.legal_moves())
