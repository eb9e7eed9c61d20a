"""The Cartographers reference (boardlab/sim/cartographers/reference.py) against docs/games/cartographers.md and
docs/games/cartographers/engine.md: every scoring card's worked meaning on small hand-made maps, the solo
ambush walk and its test vectors, one test per [interpretation] (named after it; each fails if the
preset's parameter is changed to the alternative), the order of chance, and random games with their
invariants at 1-5 players on both map sides."""

from __future__ import annotations

import json
from collections import Counter

import pytest

from boardlab.sim.cartographers.moves import Move
from boardlab.sim.cartographers.reference import (
    RefGame,
    SplitMix64,
    canonical_orientations,
    monster_penalty,
    orient,
    ring_walk,
    score_card,
    solo_ambush_cells,
    solo_title,
)
from boardlab.sim.cartographers.rules import (
    N_CELLS,
    STATE_LETTERS,
    RulesError,
    load_rules,
    parse_label,
    parse_shape,
)

A = load_rules("base-a")
B = load_rules("base-b")
AMBUSH = {a.id: a for a in A.ambush_cards}
NO_RUINS: tuple[int, ...] = ()


def grid(spec: dict[str, str] | None = None, base: str | None = None) -> str:
    """A 121-letter grid: `spec` maps a letter to space-separated cell labels ("T": "A1 B2"); the rest
    is `base` (a 121-letter grid) or empty."""
    cells = list(base) if base else ["."] * N_CELLS
    for letter, where in (spec or {}).items():
        assert letter in STATE_LETTERS
        for label in where.split():
            r, c = parse_label(label)
            cells[11 * r + c] = letter
    return "".join(cells)


def picture(text: str) -> str:
    """A grid drawn as 11 lines of 11 letters."""
    lines = [ln.strip() for ln in text.strip().splitlines()]
    assert len(lines) == 11 and all(len(ln) == 11 for ln in lines), lines
    return "".join(lines)


EMPTY_A = grid({"M": "B4 C9 F6 I3 J8"})
FULL = "T" * N_CELLS
EMPTY_B = grid({"M": "B9 C4 H6 I10 J3", "X": "D6 E5 E6 F5 F6 F7 G6"})


def labels(cells) -> list[str]:
    return ["ABCDEFGHIJK"[r] + str(c + 1) for r, c in cells]


def at_card(game: RefGame, card: int, ruins_pending: bool = False) -> RefGame:
    """Make `card` the card being resolved, first decision of its phase (a shape card: draw phase;
    an ambush: monster phase)."""
    game.phase = "draw" if card >= 7 else "monster"
    game.card = card
    game.k = 0
    game.ruins_pending = ruins_pending
    game._legal = None
    return game


def restack(game: RefGame, top: list[int]) -> RefGame:
    """Restart the season with `top` on top of the explore deck (in that order), every other ruins and
    shape card below it and the other ambushes in the ambush deck; then explore."""
    game.deck = top + [c for c in range(5, 18) if c not in top]
    game.ambush = [a for a in (1, 2, 3, 4) if a not in top]
    game.revealed, game.ambushes_out, game.time, game.ruins_pending = [], [], 0, False
    game._legal = None
    game._explore()
    return game


# --- scoring cards (docs/games/cartographers.md 4) -----------------------------------------------------------


def test_sentinel_wood_edge_forest_and_corner_once():
    g = grid({"T": "A1 A6 F11 K11 F5 B2"})
    assert score_card(26, g, NO_RUINS) == 4  # A1 (corner, once), A6, F11, K11 (corner, once)


def test_greenbough_rows_and_columns():
    assert score_card(27, grid({"T": "A1 A2 D2"}), NO_RUINS) == 2 + 2
    assert score_card(27, "T" * N_CELLS, NO_RUINS) == 22


def test_treetower_sides_filled_or_off_map():
    g = grid({"T": "A1 F6", "V": "A2 B1 E6 G6", "G": "F5", "M": "F7"})
    assert score_card(28, g, NO_RUINS) == 2  # A1: two sides off the map; F6: village, monster, mountain
    assert score_card(28, grid({"T": "F6", "V": "E6 G6 F5"}), NO_RUINS) == 0  # F7 empty


def test_stoneside_one_cluster_touching_two_mountains():
    # One forest cluster from C2 to C4 touches mountains C1 and C5: +3 each.
    g = grid({"M": "C1 C5", "T": "C2 C3 C4"})
    assert score_card(29, g, NO_RUINS) == 6
    # Two clusters, each touching one mountain: nothing.
    g = grid({"M": "C1 C5 H5", "T": "C2 H4"})
    assert score_card(29, g, NO_RUINS) == 0
    # A third mountain on the same cluster; a mountain linked twice scores once.
    g = grid({"M": "C1 C5 D3 G1 G3", "T": "C2 C3 C4 F1 F2 F3 G2"})
    assert score_card(29, g, NO_RUINS) == 3 * 5


def test_canal_lake_pairs():
    assert score_card(30, grid({"W": "C2", "F": "C3"}), NO_RUINS) == 2
    assert score_card(30, grid({"W": "C2 C4", "F": "C3"}), NO_RUINS) == 3  # the farm counts once
    assert score_card(30, grid({"W": "C2", "F": "D3"}), NO_RUINS) == 0  # diagonal


def test_mages_valley_water_two_farm_one():
    g = grid({"M": "F6 F8", "W": "F7 E6", "F": "G6", "T": "F5"})
    assert score_card(31, g, NO_RUINS) == 2 * 2 + 1  # F7 touches two mountains: still 2


def test_golden_granary_ruins_spaces():
    ruins = [11 * r + c for r, c in (parse_label("C3"), parse_label("H8"))]
    g = grid({"F": "C3", "W": "C4 B3 H7", "V": "H8"})
    # C3 farmed ruins: +3; water C4, B3 next to it: +1 each; water H7 next to village-covered ruins H8: +1
    assert score_card(32, g, ruins) == 3 + 2 + 1
    # Water on a ruins space does not score for that space itself.
    assert score_card(32, grid({"W": "C3"}), ruins) == 0


def test_shoreside_expanse_isolated_clusters():
    assert score_card(33, grid({"F": "E5 E6"}), NO_RUINS) == 3
    assert score_card(33, grid({"F": "E5", "W": "H5 H6"}), NO_RUINS) == 6
    assert score_card(33, grid({"F": "A5"}), NO_RUINS) == 0  # on the edge
    assert score_card(33, grid({"F": "E5", "W": "E6"}), NO_RUINS) == 0  # touching each other


def test_wildholds_clusters_of_six():
    six = "C2 C3 C4 D2 D3 D4"
    assert score_card(34, grid({"V": six}), NO_RUINS) == 8
    assert score_card(34, grid({"V": "C2 C3 C4 D2 D3"}), NO_RUINS) == 0
    assert score_card(34, grid({"V": six + " H2 H3 H4 H5 H6 H7 H8"}), NO_RUINS) == 16


def test_great_city_largest_away_from_mountains():
    g = grid({"M": "C1", "V": "C2 C3 C4 C5 C6 H2 H3 H4"})
    assert score_card(35, g, NO_RUINS) == 3  # the 5-cluster touches a mountain
    assert score_card(35, grid({"M": "C1", "V": "C2"}), NO_RUINS) == 0


def test_greengold_plains_five_types():
    ruins = NO_RUINS
    assert score_card(36, grid({"V": "E5 E6", "T": "D5", "F": "D6", "W": "E7"}), ruins) == 3
    assert score_card(36, grid({"V": "E5", "T": "D5", "G": "E4", "M": "E6"}), ruins) == 3
    # Two forest cells and a farm: two types.
    assert score_card(36, grid({"V": "E5 E6", "T": "D5 D6", "F": "E7"}), ruins) == 0
    # Wasteland and empty cells are not types.
    assert score_card(36, grid({"V": "E5", "T": "D5", "F": "E4", "X": "E6"}), ruins) == 0


def test_shieldgate_second_largest():
    assert score_card(37, grid({"V": "B2 B3 B4 B5 B6 H2 H3 H4"}), NO_RUINS) == 6  # sizes 5, 3
    assert score_card(37, grid({"V": "B2 B3 B4 B5 H2 H3 H4 H5 K1 K2"}), NO_RUINS) == 8  # ties: 4, 4, 2
    assert score_card(37, grid({"V": "B2 B3"}), NO_RUINS) == 0  # one cluster


def test_borderlands_full_rows_and_columns():
    row = " ".join(f"A{c}" for c in range(1, 12))
    col = " ".join(f"{r}11" for r in "ABCDEFGHIJK")
    assert score_card(38, grid({"T": row}), NO_RUINS) == 6
    assert score_card(38, grid({"T": row, "G": col}), NO_RUINS) == 12
    assert score_card(38, grid({"T": row.replace("A7", "B7")}), NO_RUINS) == 0
    assert score_card(38, "T" * N_CELLS, NO_RUINS) == 6 * 22


def test_lost_barony_largest_filled_square():
    square = "D4 D5 D6 E4 E5 E6 F4 F5 F6"
    assert score_card(39, grid({"V": square}), NO_RUINS) == 9
    assert score_card(39, grid({"V": square.replace("F6", "")}), NO_RUINS) == 6  # a corner missing: 2x2
    assert score_card(39, grid({"V": square.replace("E5", "")}), NO_RUINS) == 3  # a ring: no full 2x2
    assert score_card(39, EMPTY_A, NO_RUINS) == 3  # a mountain is filled
    assert score_card(39, grid(), NO_RUINS) == 0


def test_broken_road_eleven_diagonals():
    assert score_card(40, grid({"T": "K1"}), NO_RUINS) == 3  # the corner cell is the shortest diagonal
    assert score_card(40, grid({"T": "J1 K2"}), NO_RUINS) == 3
    main = " ".join(f"{'ABCDEFGHIJK'[i]}{i + 1}" for i in range(11))
    assert score_card(40, grid({"T": main}), NO_RUINS) == 3
    assert score_card(40, grid({"T": main.replace("K11", "")}), NO_RUINS) == 0  # must reach the bottom
    assert score_card(40, grid({"T": "B1"}), NO_RUINS) == 0  # diagonals start on the left edge
    assert score_card(40, "T" * N_CELLS, NO_RUINS) == 33


def test_cauldrons_enclosed_empty_cells():
    assert score_card(41, grid({"T": "E4 E6 D5 F5"}), NO_RUINS) == 1
    assert score_card(41, grid({"T": "A2 B1"}), NO_RUINS) == 1  # corner A1: two sides off the map
    assert score_card(41, grid({"T": "E3 E6 D4 D5 F4 F5"}), NO_RUINS) == 0  # E4 and E5 touch each other


def test_monster_penalty_counts_each_empty_cell_once():
    g = grid({"G": "E4 E6", "T": "D5"})
    # E5 touches both monsters (once); D4, F4, E3, D6, F6, E7: 7 cells. Diagonals are not adjacent.
    assert monster_penalty(g, NO_RUINS) == 7
    assert monster_penalty(grid({"G": "A1", "T": "A2"}), NO_RUINS) == 1


def test_score_card_accepts_codes_and_rejects_bad_input():
    g = grid({"T": "A1"})
    codes = [STATE_LETTERS.index(ch) for ch in g]
    assert score_card(26, codes, A.map) == score_card(26, g, A.map) == 1
    with pytest.raises(ValueError):
        score_card(25, g, A.map)
    with pytest.raises(ValueError):
        score_card(26, g[:-1], A.map)


# --- shapes and moves (contract 5) ---------------------------------------------------------------


def test_orientation_transform():
    # "#./##" turned a quarter clockwise is "##/#." (cell k -> cell k).
    assert orient(((0, 0), (1, 0), (1, 1)), 1) == ((0, 1), (0, 0), (1, 0))
    assert orient(((0, 0), (1, 0), (1, 1)), 4) == ((0, 1), (1, 1), (1, 0))  # mirrored: ".#/##"


@pytest.mark.parametrize(
    "shape, count",
    [
        ("#/#/#", 2),
        ("..#/.##/##.", 4),
        ("#/#", 2),
        (".#./###/.#.", 1),
        ("#./##", 4),
        ("###/##.", 8),
        ("#./.#", 2),
        ("#./##/.#", 4),
        ("###/#../#..", 4),
        ("#./##/#.", 4),
        ("###/..#", 8),
        ("..##/###.", 8),
        ("#../###/#..", 4),
        ("####", 2),
        ("#", 1),
        ("#../.#./..#", 2),
        ("#.#/#.#", 2),
        ("##/#./##", 4),
    ],
)
def test_canonical_orientations(shape, count):
    canon = canonical_orientations(parse_shape(shape))
    assert len(canon) == count
    assert canon[0][0] == 0 and [o for o, _ in canon] == sorted(o for o, _ in canon)


def test_legal_moves_listing_order_and_fields():
    g = RefGame(2, A, seed=3)
    at_card(g, 7)  # Great River: A (3 cells, coin), B (5 cells)
    moves = g.legal_moves()
    terrain_rank = {"water": 0}
    keys = [(m.option, m.orientation, m.anchor, terrain_rank[m.terrain]) for m in moves]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    first = moves[0]
    assert first == Move("draw", 0, 7, 0, 0, (0, 0), ((0, 0), (1, 0), (2, 0)), "water")
    assert {m.kind for m in moves} == {"draw"} and {m.option for m in moves} == {0, 1}
    # Two terrains: terrains innermost, in card order.
    at_card(g, 11)
    moves = g.legal_moves()
    assert [m.terrain for m in moves[:4]] == ["farm", "water", "farm", "water"]
    assert moves[0].cells == moves[1].cells != moves[2].cells


def test_draw_counts_on_an_empty_map():
    g = at_card(RefGame(1, A, seed=1), 16)  # Fishing Village: 4x1 in 2 orientations, 2 terrains
    g.set_grid(0, grid())
    assert len(g.legal_moves()) == 2 * 2 * (11 * 8)
    at_card(g, 17)
    assert len(g.legal_moves()) == 121 * 5


def test_coin_shape_and_mountain_coin():
    g = at_card(RefGame(1, A, seed=1), 8)  # Farmland A: 2 cells, coin
    g.set_grid(0, grid({"T": "A4 B3"}, base=EMPTY_A))  # around mountain B4: A4, B3 filled, C4 and B5 empty
    move = next(m for m in g.legal_moves() if m.option == 0 and set(m.cells) == {(1, 4), (2, 4)})
    g.apply(move)  # fills B5, C5: coin shape, but C4 still empty
    assert g.coins == [1] and g.paid == [set()]
    at_card(g, 8)
    move = next(m for m in g.legal_moves() if m.option == 1 and (2, 3) in m.cells)
    g.apply(move)  # Farmland B covers C4: the mountain is surrounded
    assert g.coins == [2] and g.paid == [{14}]


def test_illegal_moves_raise_and_change_nothing():
    g = RefGame(3, B, seed=5)
    before = g.snapshot()
    bad = [
        Move("draw", 0, g.card, 0, 0, (0, 0), ((0, 0),), "lava"),
        Move("skip", 0, g.card),
        Move("draw", 1, g.card),
        "not a move",
    ]
    legal = g.legal_moves()[0]
    bad.append(Move(legal.kind, legal.map, legal.card, legal.option, legal.orientation, legal.anchor, legal.cells, "x"))
    for m in bad:
        assert not g.is_legal(m)
        with pytest.raises(ValueError):
            g.apply(m)
        assert g.snapshot() == before
    assert g.is_legal(legal)


def test_ruins_requirement_and_fallback():
    ruins_cells = {divmod(i, 11) for i in A.map.ruins}
    g = at_card(RefGame(1, A, seed=2), 13, ruins_pending=True)
    moves = g.legal_moves()
    assert moves and all(set(m.cells) & ruins_cells for m in moves)
    # Every ruins cell filled: the 1x1 fallback on any empty cell with any terrain.
    g.set_grid(0, grid({"V": "B6 C2 C10 I2 I10 J6"}, base=EMPTY_A))
    moves = g.legal_moves()
    assert {m.kind for m in moves} == {"fallback"}
    assert len(moves) == (121 - 5 - 6) * 5
    assert moves[0] == Move("fallback", 0, 13, -1, -1, (0, 0), ((0, 0),), "forest")


def test_ruins_then_ambush_keeps_the_requirement():
    ruins_cells = {divmod(i, 11) for i in A.map.ruins}
    g = restack(RefGame(2, A, seed=4), [5, 2, 16, 7])
    s = g.snapshot()
    assert (s["phase"], s["card"], s["ruins_pending"]) == ("monster", 2, True)
    # Monsters ignore the ruins requirement.
    assert any(not set(m.cells) & ruins_cells for m in g.legal_moves())
    g.apply(g.legal_moves()[0])
    g.apply(g.legal_moves()[0])
    s = g.snapshot()
    assert (s["phase"], s["card"], s["ruins_pending"], s["revealed"]) == ("draw", 16, True, [5, 16])
    assert all(set(m.cells) & ruins_cells for m in g.legal_moves())
    g.apply(g.legal_moves()[0])
    g.apply(g.legal_moves()[0])
    assert g.snapshot()["ruins_pending"] is False


def test_two_ruins_in_a_row_need_one_ruins_cell():
    g = restack(RefGame(1, A, seed=4), [5, 6, 16])
    assert g.snapshot()["revealed"] == [5, 6, 16]
    assert all(len({(r, c) for r, c in m.cells} & {divmod(i, 11) for i in A.map.ruins}) >= 1 for m in g.legal_moves())


def test_multiplayer_ambush_monster_and_its_fallback():
    g = at_card(RefGame(2, A, seed=6), 4)  # Gnoll Raid, counter-clockwise: seat 0 holds map 1
    assert g.snapshot()["target"] == 1
    # Map 1 with room only for single cells: the 1x1 monster.
    g.set_grid(1, grid({".": "A1 A2"}, base=FULL))
    moves = g.legal_moves()
    assert moves == [
        Move("fallback", 1, 4, -1, -1, (0, 0), ((0, 0),), "monster"),
        Move("fallback", 1, 4, -1, -1, (0, 1), ((0, 1),), "monster"),
    ]
    g.apply(moves[1])
    assert g.snapshot()["grids"][1][:2] == ".G"
    assert g.snapshot()["current"] == 1 and g.snapshot()["target"] == 0
    assert {m.kind for m in g.legal_moves()} == {"monster"}


def test_solo_ambush_during_explore():
    g = restack(RefGame(1, A, seed=7), [1, 16])
    s = g.snapshot()
    assert s["ambushes_out"] == [1] and s["card"] == 16 and s["phase"] == "draw"
    cells = [i for i, ch in enumerate(s["grids"][0]) if ch == "G"]
    assert labels(divmod(i, 11) for i in cells) == ["I9", "J10", "K11"]


# --- solo ambush walk (docs/games/cartographers.md 6.1) --------------------------------------------------------


@pytest.mark.parametrize(
    "ambush, expected",
    [
        (1, ["I9", "J10", "K11"]),
        (2, ["A9", "A11", "B9", "B11"]),
        (3, ["I1", "J1", "J2", "K1"]),
        (4, ["A1", "A2", "B1", "C1", "C2"]),
    ],
)
def test_solo_ambush_test_vectors(ambush, expected):
    cells = solo_ambush_cells(EMPTY_A, AMBUSH[ambush], A)
    assert sorted(labels(cells)) == sorted(expected)


@pytest.mark.parametrize(
    "ambush, first_two",
    [
        (1, [(8, 8), (7, 8)]),  # Goblin: bottom-right corner, up the right side
        (2, [(0, 8), (1, 8)]),  # Bugbear: top-right, down the right side
        (3, [(8, 0), (7, 0)]),  # Kobold: bottom-left, up the left side
        (4, [(0, 0), (1, 0)]),  # Gnoll: top-left, down the left side
    ],
)
def test_solo_walk_starts_along_a_vertical_side(ambush, first_two):
    a = AMBUSH[ambush]
    h = 1 + max(r for r, _ in a.cells)
    w = 1 + max(c for _, c in a.cells)
    assert ring_walk(h, w, a.corner, a.arrow)[0][:2] == first_two


@pytest.mark.parametrize("h, w", [(3, 3), (2, 3), (3, 2), (1, 1), (5, 2)])
def test_ring_walk_orders_every_anchor_once(h, w):
    for corner in ("top-left", "top-right", "bottom-right", "bottom-left"):
        for arrow in ("clockwise", "counter-clockwise"):
            walk = [a for ring in ring_walk(h, w, corner, arrow) for a in ring]
            assert sorted(walk) == [(r, c) for r in range(12 - h) for c in range(12 - w)]


def test_solo_ambush_first_free_anchor_then_inner_ring_then_ignored():
    gnoll = AMBUSH[4]  # top-left, counter-clockwise: down the left side first
    g = grid({"T": "C1"}, base=EMPTY_A)  # blocks anchors (0,0)..(2,0) of the left side
    assert sorted(labels(solo_ambush_cells(g, gnoll, A))) == sorted(["D1", "D2", "E1", "F1", "F2"])
    # Only one 2x3 hole in the middle: found in an inner ring.
    full = FULL
    hole = grid({".": "E5 E6 F5 G5 G6"}, base=full)
    assert sorted(labels(solo_ambush_cells(hole, gnoll, A))) == sorted(["E5", "E6", "F5", "G5", "G6"])
    # No room anywhere: ignored (no 1x1 in solo).
    assert solo_ambush_cells(grid({".": "E5 E6 F5"}, base=full), gnoll, A) is None
    g = restack(RefGame(1, A, seed=1), [4, 16])
    g.set_grid(0, grid({".": "E5 E6 F5 A1"}, base=full))
    restack(g, [4, 16])
    assert g.snapshot()["grids"][0].count("G") == 0 and g.snapshot()["ambushes_out"] == [4]


# --- [interpretation] points of docs/games/cartographers.md 7, one test each ---------------------------------------


def _only_singles_grid() -> str:
    """Everything filled except A1 and K11: no shape of two or more cells fits."""
    return grid({".": "A1 K11"}, base=FULL)


def test_interpretation_fallback_terrain_any():
    # §7.1: no Great River shape fits -> a 1x1 with any non-mountain terrain, not only the card's water.
    def terrains(rules, ruins_pending=False):
        g = at_card(RefGame(1, rules, seed=1), 7, ruins_pending)
        g.set_grid(0, _only_singles_grid())
        moves = g.legal_moves()
        assert {m.kind for m in moves} == {"fallback"} and {m.cells for m in moves} == {((0, 0),), ((10, 10),)}
        return [m.terrain for m in moves if m.cells == ((0, 0),)]

    anything = ["forest", "village", "farm", "water", "monster"]
    assert terrains(A) == terrains(A, ruins_pending=True) == anything
    literal = A.with_overrides({"draw.fallback_from": "card"})
    assert terrains(literal) == ["water"]
    assert terrains(literal, ruins_pending=True) == anything  # the ruins text: "any terrain type"


def test_interpretation_coin_cap_14():
    # §7.2: coins beyond 14 are lost.
    def coins_after_coin_shape(rules):
        g = at_card(RefGame(1, rules, seed=1), 9)  # Hamlet A has a coin
        g.coins = [14]
        g.apply(next(m for m in g.legal_moves() if m.option == 0))
        return g.coins[0]

    assert coins_after_coin_shape(A) == 14
    assert coins_after_coin_shape(A.with_overrides({"coins.cap": 99})) == 15


def test_interpretation_mountain_coin_to_owner():
    # §7.3: seat 0 fills the last neighbour of a mountain on seat 1's map with a monster; seat 1 gets the coin.
    def coins(rules):
        g = at_card(RefGame(2, rules, seed=1), 1)  # Goblin Attack, counter-clockwise: seat 0 holds map 1
        g.set_grid(1, grid({"T": "A4 C4 B5"}, base=EMPTY_A))  # mountain B4: only B3 is empty
        move = next(m for m in g.legal_moves() if (1, 2) in m.cells)
        g.apply(move)
        assert g.paid[1] == {14}
        return g.coins

    assert coins(A) == [0, 1]
    assert coins(A.with_overrides({"coins.mountain_to_owner": False})) == [1, 0]


def test_interpretation_solo_walk_ring():
    # §7.4: the full ring is walked before moving inward.  Columns 9-11 filled: the Goblin's right side
    # of ring 0 is blocked; the ring walk continues along the top, the one-side walk moves inward.
    right = " ".join(f"{r}{c}" for r in "ABCDEFGHIJK" for c in (9, 10, 11) if f"{r}{c}" != "C9")
    g = grid({"T": right}, base=EMPTY_A)
    goblin = AMBUSH[1]
    assert labels(solo_ambush_cells(g, goblin, A)) == ["A6", "B7", "C8"]
    assert labels(solo_ambush_cells(g, goblin, A.with_overrides({"solo.walk": "side"}))) == ["E6", "F7", "G8"]


def test_interpretation_pass_clockwise_to_next():
    # §7.5: seats are numbered clockwise; a clockwise arrow passes map o to seat o + 1.
    def sources(rules, ambush):
        g = at_card(RefGame(3, rules, seed=1), ambush)
        out = []
        for _ in range(3):
            out.append((g.current, g.snapshot()["target"]))
            g.apply(g.legal_moves()[0])
        return out

    assert sources(A, 2) == [(0, 2), (1, 0), (2, 1)]  # Bugbear, clockwise
    assert sources(A, 1) == [(0, 1), (1, 2), (2, 0)]  # Goblin, counter-clockwise
    prev = A.with_overrides({"ambush.pass_clockwise_to": "previous"})
    assert sources(prev, 2) == [(0, 1), (1, 2), (2, 0)]
    assert sources(prev, 1) == [(0, 2), (1, 0), (2, 1)]


def test_interpretation_edict_order_random():
    # §7.6: the four drawn cards go under A-D in a random order.
    def category_orders(rules):
        cat = {c.id: c.category for c in rules.scoring_cards}
        return Counter(tuple(cat[e] for e in RefGame(2, rules, seed).edicts) for seed in range(200))

    orders = category_orders(A)
    assert len(orders) > 12  # of 24 permutations
    fixed = category_orders(A.with_overrides({"setup.edict_order": "category"}))
    assert list(fixed) == [("forest", "farm_water", "village", "placement")]


def test_interpretation_shieldgate_tied_largest():
    # §7.7: two equal largest clusters -> the second one scores.
    g = grid({"V": "B2 B3 B4 B5 H2 H3 H4 H5 K1 K2"})
    assert score_card(37, g, NO_RUINS, A) == 8
    assert score_card(37, g, NO_RUINS, A.with_overrides({"scoring.shieldgate.second": "distinct"})) == 4


def test_interpretation_greengold_five_types():
    # §7.8: forest, farm, water, monster, mountain; wasteland never counts.
    g = grid({"V": "E5", "T": "D5", "F": "E4", "X": "E6"})
    assert score_card(36, g, NO_RUINS, A) == 0
    six = A.with_overrides(
        {"scoring.greengold_plains.types": ["forest", "farm", "water", "monster", "mountain", "wasteland"]}
    )
    assert score_card(36, g, NO_RUINS, six) == 3


def test_interpretation_golden_granary_ruins_stay():
    # §7.9: a filled ruins space is still a ruins space; 1 point per water cell next to one.
    ruins = [11 * r + c for r, c in (parse_label("C3"),)]
    g = grid({"F": "C3", "W": "C4"})
    assert score_card(32, g, ruins, A) == 3 + 1
    assert score_card(32, g, ruins, A.with_overrides({"scoring.golden_granary.filled_ruins_count": False})) == 3
    assert score_card(32, g, ruins, A.with_overrides({"scoring.golden_granary.water_points": 2})) == 3 + 2
    assert score_card(32, grid({"W": "C4"}), ruins, A) == 1  # an empty ruins space counts too


def test_interpretation_stoneside_same_cluster():
    # §7.10: a mountain scores only through a forest cluster that also touches another mountain.
    g = grid({"M": "C1 C5", "T": "C2 C4"})  # each mountain touched by its own one-cell cluster
    assert score_card(29, g, NO_RUINS, A) == 0
    assert score_card(29, g, NO_RUINS, A.with_overrides({"scoring.stoneside_forest.link": "any"})) == 6


def test_interpretation_sentinel_corner_once():
    # §7.11: a forest corner cell counts once.
    g = grid({"T": "A1 K11 A5"})
    assert score_card(26, g, NO_RUINS, A) == 3
    assert score_card(26, g, NO_RUINS, A.with_overrides({"scoring.sentinel_wood.corner_once": False})) == 5


def test_interpretation_full_map_skip():
    # §7.12: a full map skips the draw (and a monster placement on it).
    full = FULL
    g = at_card(RefGame(2, A, seed=1), 16)
    g.set_grid(0, full)
    assert g.legal_moves() == [Move("skip", 0, 16)]
    g.apply(g.legal_moves()[0])
    assert g.snapshot()["grids"][0] == full
    h = at_card(RefGame(2, A, seed=1), 2)  # Bugbear, clockwise: seat 0 holds map 1
    h.set_grid(1, full)
    assert h.legal_moves() == [Move("skip", 1, 2)]
    with pytest.raises(RulesError, match=r"^draw\.full_map:"):
        A.with_overrides({"draw.full_map": "pass"})


def test_interpretation_monster_penalty_empty_ruins():
    # §7.13: an empty ruins cell is empty, so it counts toward the monster penalty.
    g = grid({"G": "B5", "T": "A5 C5"}, base=EMPTY_A)  # the only empty neighbour of B5 is ruins B6
    assert monster_penalty(g, A.map, A) == 1
    assert monster_penalty(g, A.map, A.with_overrides({"scoring.penalty_counts_empty_ruins": False})) == 0


def test_interpretation_solo_no_title_below_table():
    # §7.14: below -30 there is no title.
    assert solo_title(-31, A) is None
    assert solo_title(-31, A.with_overrides({"solo.below_titles": "lowest"})) == "Oblivious Inkdrinker"


# --- solo rating and title, ties ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "rating, title",
    [
        (45, "Legendary Cartographer"),
        (30, "Legendary Cartographer"),
        (29, "Master Mapsmith"),
        (10, "Journeyman Topographer"),
        (0, "Apprentice Surveyor"),
        (-1, "Amateur Assessor"),
        (-5, "Amateur Assessor"),
        (-6, "Inept Assistant"),
        (-20, "Dimwitted Doodler"),
        (-30, "Oblivious Inkdrinker"),
    ],
)
def test_solo_title_table(rating, title):
    assert solo_title(rating, A) == title


def test_solo_rating_subtracts_the_four_solo_numbers():
    rules = A.with_overrides({"setup.edicts": [26, 30, 34, 38]})
    g = RefGame(1, rules, seed=3)
    while not g.done:
        g.apply(g.random_move())
    s = g.scores()[0]
    assert s["rating"] == s["total"] - (25 + 24 + 16 + 24)
    assert s["title"] == solo_title(s["rating"], rules)
    assert (s["rank"], s["win_share"]) == (1, 1.0)


def _with_records(game: RefGame, records: list[list[tuple[int, int, int, int]]]) -> list[dict]:
    game.records = [
        [{"e1": e1, "e2": e2, "coins": c, "monster": m, "total": e1 + e2 + c - m} for e1, e2, c, m in seat]
        for seat in records
    ]
    return game.scores()


def test_ties_fewest_monster_penalty_then_shared():
    g = RefGame(4, A, seed=1)
    rows = _with_records(
        g,
        [
            [(10, 5, 1, 2)],  # 14, penalty 2
            [(10, 5, 0, 1)],  # 14, penalty 1
            [(9, 5, 0, 0)],  # 14, penalty 0: wins the tie
            [(3, 0, 0, 0)],
        ],
    )
    assert [r["total"] for r in rows] == [14, 14, 14, 3]
    assert [r["rank"] for r in rows] == [3, 2, 1, 4]
    assert [r["win_share"] for r in rows] == [0.0, 0.0, 1.0, 0.0]
    rows = _with_records(g, [[(10, 5, 0, 1)], [(10, 5, 0, 1)], [(1, 0, 0, 0)], [(0, 0, 0, 0)]])
    assert [r["rank"] for r in rows] == [1, 1, 3, 4] and [r["win_share"] for r in rows] == [0.5, 0.5, 0.0, 0.0]
    g = RefGame(2, A.with_overrides({"ties.monster_penalty": False}), seed=1)
    rows = _with_records(g, [[(10, 5, 1, 2)], [(10, 5, 0, 1)]])
    assert [r["rank"] for r in rows] == [1, 1]


# --- order of chance (contract 3) -------------------------------------------------------------------------


def _consumed(deck_before: list[int], snap: dict) -> None:
    """A season started with `deck_before` and explored from its top: check the snapshot agrees."""
    taken = len(deck_before) - len(snap["deck"])
    took = deck_before[:taken]
    assert deck_before[taken:] == snap["deck"]
    assert [c for c in took if c >= 5] == snap["revealed"]
    ambushes = [c for c in took if c <= 4]
    assert ambushes == snap["ambushes_out"][len(snap["ambushes_out"]) - len(ambushes) :]


@pytest.mark.parametrize("players", [1, 3])
def test_setup_draws_chance_in_contract_order(players):
    for seed in (0, 1, 2, 12345, 2**64 - 1):
        rng = SplitMix64(seed)
        chosen = [
            cards[rng.rand(4)] for cards in ([26, 27, 28, 29], [30, 31, 32, 33], [34, 35, 36, 37], [38, 39, 40, 41])
        ]
        rng.shuffle(chosen)
        ambush = [1, 2, 3, 4]
        rng.shuffle(ambush)
        deck = list(range(5, 18))
        rng.shuffle(deck)
        deck.insert(rng.rand(14), ambush.pop(0))
        g = RefGame(players, A, seed)
        s = g.snapshot()
        assert s["edicts"] == chosen and s["ambush_deck"] == ambush
        _consumed(deck, s)
        assert g.chance.state == rng.state  # 23 numbers, nothing else


def test_fixed_edicts_draw_no_numbers():
    rules = A.with_overrides({"setup.edicts": [41, 26, 37, 31]})
    g = RefGame(2, rules, seed=9)
    rng = SplitMix64(9)
    ambush = [1, 2, 3, 4]
    rng.shuffle(ambush)
    assert g.edicts == [41, 26, 37, 31] and g.snapshot()["ambush_deck"] == ambush[1:]


def test_next_season_reshuffle_in_contract_order():
    for players, seed in ((1, 3), (2, 8), (4, 21)):
        g = RefGame(players, B, seed)
        checked = 0
        while not g.done:
            last = g.phase == "draw" and g.k == players - 1
            ends = last and g.time >= g.seasons[g.season].threshold and g.season < 3
            if ends:
                s = g.snapshot()
                pool = s["deck"] + s["revealed"] + s["ambush_deck"][:1]
                rng = SplitMix64(0)
                rng.state = g.chance.state
                rng.shuffle(pool)
            g.apply(g.random_move())
            if ends:
                after = g.snapshot()
                assert after["season"] == s["season"] + 1
                assert after["ambush_deck"] == s["ambush_deck"][1:]
                _consumed(pool, after)
                assert g.chance.state == rng.state
                checked += 1
        assert checked == 3


def test_same_seed_same_game_and_copy_is_independent():
    def play(seed):
        g = RefGame(3, A, seed)
        while not g.done:
            g.apply(g.random_move())
        return g.snapshot(), g.scores()

    assert play(11) == play(11)
    assert play(11) != play(12)
    g = RefGame(2, A, 5)
    for _ in range(7):
        g.apply(g.random_move())
    c = g.copy()
    assert c.snapshot() == g.snapshot() and c.rules is g.rules
    m = c.random_move()
    assert g.random_move() == m  # the policy stream was copied too
    c.apply(m)
    assert c.snapshot() != g.snapshot()


# --- random games and invariants (contract 11) ------------------------------------------------------------


def check_game(players: int, rules, seed: int) -> RefGame:
    g = RefGame(players, rules, seed)
    cap = rules.coins["cap"]
    groups: list[list[tuple[str, int, int, int]]] = []
    shape_reveals = 0
    while not g.done:
        s = g.snapshot()
        assert s["current"] == g.current and 0 <= s["current"] < players and not s["done"]
        if s["current"] == 0:
            groups.append([])
            if s["phase"] == "draw":
                shape_reveals += 1
                assert s["revealed"][-1] == s["card"]
        groups[-1].append((s["phase"], s["card"], s["current"], s["target"]))
        # deck composition
        assert sorted([c for c in s["deck"] if c >= 5] + s["revealed"]) == list(range(5, 18))
        assert sorted([c for c in s["deck"] if c <= 4] + s["ambush_deck"] + s["ambushes_out"]) == [1, 2, 3, 4]
        assert s["time"] < rules.seasons[s["season"]].threshold or s["phase"] == "draw"
        moves = g.legal_moves()
        assert moves and len(set(moves)) == len(moves)
        assert all(m.map == s["target"] and m.card == s["card"] for m in moves)
        g.apply(g.random_move())
        after = g.snapshot()
        json.dumps(after)
        for before, now in zip(s["grids"], after["grids"], strict=True):
            assert all(b == "." or b == n for b, n in zip(before, now, strict=True)), "a filled cell changed"
        assert all(0 <= c <= cap for c in after["coins"])
        assert all(a >= b for a, b in zip(after["coins"], s["coins"], strict=True)), "coins went down"
    # one decision per seat per shape card and per (multiplayer) ambush, seats in order
    for group in groups:
        assert [cur for _, _, cur, _ in group] == list(range(players))
        assert len({(ph, card) for ph, card, _, _ in group}) == 1
    draws = [gr for gr in groups if gr[0][0] == "draw"]
    monsters = [gr for gr in groups if gr[0][0] == "monster"]
    assert len(draws) == shape_reveals
    s = g.snapshot()
    assert len(monsters) == (0 if players == 1 else len(s["ambushes_out"]))
    for gr in monsters:
        assert all(target != cur for _, _, cur, target in gr) and sorted(t for *_, t in gr) == list(range(players))
    assert s["done"] and s["current"] == -1 and s["phase"] == "done" and s["card"] == -1
    scores = g.scores()
    for seat, row in enumerate(scores):
        recs = s["seasons"][seat]
        assert len(recs) == 4 and len(row["seasons"]) == 4
        for rec in recs:
            assert rec["total"] == rec["e1"] + rec["e2"] + rec["coins"] - rec["monster"]
        assert row["total"] == sum(r["total"] for r in recs)
        assert row["total"] == row["edict_points"] + row["coin_points"] - row["monster_penalty"]
        assert sum(row["edicts"]) == row["edict_points"]
        assert [rec["coins"] for rec in recs] == sorted(rec["coins"] for rec in recs)
    assert abs(sum(r["win_share"] for r in scores) - 1.0) < 1e-12
    assert min(r["rank"] for r in scores) == 1
    if players == 1:
        assert scores[0]["title"] == solo_title(scores[0]["rating"], rules)
    else:
        assert all(r["rating"] is None and r["title"] is None for r in scores)
    return g


@pytest.mark.parametrize("side", ["base-a", "base-b"])
@pytest.mark.parametrize("players", [1, 2, 3, 4, 5])
def test_random_game_runs_to_the_end_with_invariants(players, side):
    for seed in (players, 100 + players):
        check_game(players, load_rules(side), seed)


def test_random_games_under_every_alternative_parameter():
    rules = A.with_overrides(
        {
            "draw.fallback_from": "card",
            "coins.cap": 3,
            "coins.mountain_to_owner": False,
            "solo.walk": "side",
            "ambush.pass_clockwise_to": "previous",
            "setup.edict_order": "category",
            "scoring.shieldgate.second": "distinct",
            "scoring.stoneside_forest.link": "any",
            "scoring.sentinel_wood.corner_once": False,
            "scoring.penalty_counts_empty_ruins": False,
            "solo.below_titles": "lowest",
            "ties.monster_penalty": False,
            "scoring.monster_penalty": False,
        }
    )
    for players in (1, 3):
        g = check_game(players, rules, seed=players)
        assert all(r["monster_penalty"] == 0 for r in g.scores())
