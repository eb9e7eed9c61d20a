"""The listing's place moves (made by moves.placement, without the dataclass's __init__) are the moves the
dataclass makes, in every respect a caller can see."""

from __future__ import annotations

import copy
import pickle

import boardlab
from boardlab.sim.citywright.moves import Move, placement


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
