"""Cartographers' numba engine (boardlab/sim/cartographers/engine.py) and its API against the contract
(docs/games/cartographers/engine.md) and the rules (docs/games/cartographers.md), with hand-computed values:
the worked setup examples, the solo-ambush vectors of §6.1, each of the 16 scoring cards on
hand-drawn maps, the monster penalty, coins, the flow of a game and the move checks of the API.

The differential tests against the independent reference are in test_cartographers_differential.py.
"""

from __future__ import annotations

import numpy as np
import pytest

from boardlab.sim.cartographers import engine as E
from boardlab.sim.cartographers.api import Game, IllegalMove, grid_to_planes, monster_penalty, score_card
from boardlab.sim.cartographers.moves import Move
from boardlab.sim.cartographers.rules import cell_index, cell_label, load_rules, parse_label
from boardlab.sim.cartographers.tables import ring_walk, tables_for

A = load_rules("base-a")
B = load_rules("base-b")
GOLDEN = 0x9E3779B97F4A7C15

# Map side A with nothing drawn: mountains B4 C9 F6 I3 J8.
EMPTY_A = [
    "...........",
    "...M.......",
    "........M..",
    "...........",
    "...........",
    ".....M.....",
    "...........",
    "...........",
    "..M........",
    ".......M...",
    "...........",
]


def draw(*cells: tuple[str, str], base=EMPTY_A) -> str:
    """Map A (or `base`) with letters drawn at labelled cells: draw(("T", "A1 B2"), ("V", "C3"))."""
    g = [list(row) for row in base]
    for letter, labels in cells:
        for lab in labels.split():
            r, c = parse_label(lab)
            assert g[r][c] == ".", f"{lab} is not empty"
            g[r][c] = letter
    return "".join("".join(row) for row in g)


def card(card_id: int, grid: str, rules=A) -> int:
    return score_card(card_id, grid, rules)


# --- setup and chance (§3) -----------------------------------------------------------------------


def test_worked_setup_example_seed_0():
    g = Game(1, "base-a", 0)
    s = g.snapshot()
    assert s["edicts"] == [31, 34, 41, 29]
    # ambush deck 3, 2, 1, 4 with 3 inserted at p = 13 (the bottom of the 13-card deck)
    assert s["ambush_deck"] == [2, 1, 4]
    assert s["revealed"] == [5, 16] and s["ruins_pending"] and s["card"] == 16 and s["phase"] == "draw"
    assert s["deck"] == [7, 13, 6, 12, 8, 9, 11, 15, 17, 14, 10, 3]
    assert s["time"] == 2 and s["season"] == 0
    assert len(g.legal_moves()) == 48 == g.count_moves()
    assert int(g.rng[0]) == (0 + 23 * GOLDEN) % 2**64


def test_worked_setup_example_seed_42():
    for players in (1, 2, 5):
        g = Game(players, "base-a", 42)
        s = g.snapshot()
        assert s["edicts"] == [30, 39, 35, 28]
        assert s["ambush_deck"] == [3, 2, 4]
        assert s["deck"] == [9, 8, 13, 11, 17, 5, 6, 1, 14, 15, 16, 10, 7]  # ambush 1 inserted at p = 8
        assert s["card"] == 12 and s["revealed"] == [12] and not s["ruins_pending"]
        assert len(g.legal_moves()) == 568
        assert int(g.rng[0]) == (42 + 23 * GOLDEN) % 2**64


def test_fixed_edicts_and_category_order_draw_fewer_numbers():
    fixed = A.with_overrides({"setup.edicts": [26, 33, 37, 41]})
    g = Game(2, fixed, 9)
    assert g.snapshot()["edicts"] == [26, 33, 37, 41]
    assert int(g.rng[0]) == (9 + 16 * GOLDEN) % 2**64  # 3 + 12 + 1 numbers
    cat = A.with_overrides({"setup.edict_order": "category"})
    s = Game(2, cat, 0).snapshot()
    assert s["edicts"] == [29, 31, 34, 41]  # the draws of seed 0 in category order


def test_seed_is_taken_mod_2_64():
    assert Game(2, A, -1).snapshot() == Game(2, A, 2**64 - 1).snapshot()
    with pytest.raises(TypeError):
        Game(2, A, 1.5)
    with pytest.raises(ValueError):
        Game(6, A, 0)


# --- solo ambush (§6) -------------------------------------------------------------------------------


def solo_ambush_cells(ambush: int, grid: str | None = None, rules=A) -> list[str]:
    tb = tables_for(rules, 1)
    bb = np.zeros((1, E.N_PLANES, 2), dtype=np.uint64)
    if grid is None:
        E.init_map(bb[0], tb.masks)
    else:
        bb[0] = grid_to_planes(grid, rules)
    before = bb[0, E.MONSTER].copy()
    st = np.zeros(E.ST_LEN, dtype=np.int32)
    E.solo_ambush(bb, st, tb.rp, tb.cards, tb.forms, tb.form_anchors, tb.walk, tb.masks, np.int32(ambush))
    new = [i for i in range(121) if (int(bb[0, E.MONSTER, i // 64] ^ before[i // 64]) >> (i % 64)) & 1]
    return sorted(cell_label(*divmod(i, 11)) for i in new)


def test_solo_ambush_vectors_on_an_empty_map_a():
    assert solo_ambush_cells(1) == sorted("I9 J10 K11".split())  # Goblin
    assert solo_ambush_cells(2) == sorted("A9 B9 A11 B11".split())  # Bugbear
    assert solo_ambush_cells(3) == sorted("I1 J1 J2 K1".split())  # Kobold
    assert solo_ambush_cells(4) == sorted("A1 A2 B1 C1 C2".split())  # Gnoll (C2: an empty ruins cell)


def test_solo_ambush_walks_on_along_the_ring_then_inward():
    # Bugbear (top-right, clockwise): blocked at the top-right corner, it moves down the right side
    # (anchors (1, 8) and (2, 8) cover mountain C9).
    g = draw(("T", "A11"))
    assert solo_ambush_cells(2, g) == sorted("D9 D11 E9 E11".split())
    # Gnoll (top-left, counter-clockwise) moves down the left side.
    assert solo_ambush_cells(4, draw(("T", "A1"))) == sorted("B1 B2 C1 D1 D2".split())
    # Goblin (bottom-right, counter-clockwise) moves up the right side.
    assert solo_ambush_cells(1, draw(("T", "K11"))) == sorted("H9 I10 J11".split())
    # Kobold (bottom-left, clockwise) moves up the left side.
    assert solo_ambush_cells(3, draw(("T", "K1"))) == sorted("H1 I1 I2 J1".split())


def test_solo_ambush_ring_order_and_side_walk():
    # Every anchor of the map, once; ring 0 first.
    walk = ring_walk(2, 3, "top-right", True, "ring")
    assert len(walk) == len(set(walk)) == 10 * 9
    assert walk[:3] == [(0, 8), (1, 8), (2, 8)]
    assert walk[9] == (9, 8) and walk[10] == (9, 7)  # the corner turns along the bottom
    side = ring_walk(2, 3, "top-right", True, "side")
    assert side[:10] == walk[:10] and side[10] == (1, 7)  # next ring after the first corner
    # A full ring 0 leaves the monster to ring 1: Kobold's start (7, 1) covers mountain I3, so the
    # walk goes on up the left side to (6, 1).
    edge = " ".join(cell_label(r, c) for r in range(11) for c in range(11) if r in (0, 10) or c in (0, 10))
    assert solo_ambush_cells(3, draw(("W", edge))) == sorted("G2 H2 H3 I2".split())


def test_solo_ambush_ignored_when_nothing_fits():
    full = "T" * 121
    assert solo_ambush_cells(2, full) == []


# --- the 16 scoring cards on hand-drawn maps (§4, contract §7.1) ----------------------------------


def test_sentinel_wood():
    g = draw(("T", "A1 A6 F1 K11 D4"))
    assert card(26, g) == 4  # four edge cells, the corners once
    assert card(26, g, A.with_overrides({"scoring.sentinel_wood.corner_once": False})) == 6


def test_greenbough():
    assert card(27, draw(("T", "A1 A6 D4"))) == 2 + 3  # rows A, D; columns 1, 6, 4
    assert card(27, draw(("T", "A1 A2 A3 A4 A5 A6 A7 A8 A9 A10 A11 B1 C1 D1 E1 F1 G1 H1 I1 J1 K1"))) == 22
    assert card(27, "".join(EMPTY_A)) == 0


def test_treetower():
    g = draw(
        ("T", "A1 D4 E4"),  # A1: edges + B1, A2 filled; D4 has an empty side
        ("V", "A2 B1 G6 H7 G8"),
        ("T", "G7"),
        ("G", "F7"),  # G7's four sides: F7 monster, H7 village, G6 village, G8 village
    )
    assert card(28, g) == 2  # A1 and G7; D4 (C4 empty) and E4 (E3 empty) do not


def test_stoneside_forest():
    g = draw(
        ("T", "B5 B6 B7 B8 B9"),  # one cluster: B5 touches B4, B9 touches C9
        ("T", "F7"),  # touches only F6
        ("T", "I4 H3"),  # two clusters, each touching I3 only
    )
    assert card(29, g) == 6  # B4 and C9
    assert card(29, g, A.with_overrides({"scoring.stoneside_forest.link": "any"})) == 12  # B4 C9 F6 I3
    # One cluster from E6 (touching F6) round to C10 (touching C9).
    assert card(29, draw(("T", "E6 E7 E8 E9 E10 D10 C10"))) == 6


def test_stoneside_cluster_touching_two_mountains_counts_each_once():
    g = draw(("T", "B5 B6 B7 B8 B9"), ("T", "A4 A5"))  # A4 touches B4 only, but joins B5's cluster
    assert card(29, g) == 6


def test_canal_lake():
    g = draw(("W", "E1 E2"), ("F", "F1 D2"), ("W", "K11"), ("F", "K9"))
    assert card(30, g) == 2 + 2  # water E1 (F1), E2 (D2); farm F1, D2


def test_mages_valley():
    g = draw(("W", "F5 E6 A1"), ("F", "G6 F7 K1"))
    assert card(31, g) == 2 * 2 + 2


def test_golden_granary():
    # ruins of side A: B6 C2 C10 I2 I10 J6
    g = draw(("F", "C2"), ("W", "C3 B5 I2"))
    # farm on ruins C2: 3; water C3 next to C2 (filled ruins): 1; B5 next to B6: 1; I2 on a ruins cell
    # with no other ruins beside it: 0
    assert card(32, g) == 3 + 2
    assert card(32, g, A.with_overrides({"scoring.golden_granary.filled_ruins_count": False})) == 3 + 1
    assert card(32, g, A.with_overrides({"scoring.golden_granary.water_points": 2})) == 3 + 4


def test_shoreside_expanse():
    g = draw(
        ("F", "D4 D5"),  # inland farm cluster, no water: 3
        ("F", "A6"),  # on the edge: 0
        ("W", "G7 G8"),  # inland water, no farm: 3
        ("W", "H4"),
        ("F", "H5"),  # water and farm touching: neither
    )
    assert card(33, g) == 6


def test_wildholds():
    six = "D1 D2 D3 D4 D5 D6"
    assert card(34, draw(("V", six))) == 8
    assert card(34, draw(("V", "D1 D2 D3 D4 D5"))) == 0
    assert card(34, draw(("V", six), ("V", "H5 H6 H7 H8 H9 H10 H11"))) == 16


def test_great_city():
    g = draw(("V", "D1 D2 D3 D4 D5 D6"), ("V", "F7 F8 F9 F10 G7 G8 G9 G10"))  # the 8 touch F6
    assert card(35, g) == 6
    assert card(35, draw(("V", "E6"))) == 0  # touches F6
    assert card(35, "".join(EMPTY_A)) == 0


def test_greengold_plains():
    g = draw(
        ("V", "E6"),
        ("T", "D6"),
        ("F", "E5"),  # E6: forest, farm, mountain F6 -> 3 types
        ("V", "A1 A2"),
        ("T", "B1 B2"),
        ("G", "A3"),  # forest and monster only -> 2 types
        ("V", "G6"),
        ("W", "H6 G5"),
        ("G", "G7"),  # G6: mountain F6, water, monster -> 3
    )
    assert card(36, g) == 6
    # wasteland never counts in the preset; a variant can add it
    gb = draw(("V", "D7"), ("T", "C7"), base=_side_b())  # D7: wasteland D6, empty, forest... -> 1 or 2 types
    assert card(36, gb, B) == 0
    gb2 = draw(("V", "D7"), ("T", "C7"), ("F", "D8"), base=_side_b())  # forest, farm, wasteland
    assert card(36, gb2, B) == 0
    wide = B.with_overrides({"scoring.greengold_plains.types": ["forest", "farm", "wasteland"]})
    assert card(36, gb2, wide) == 3


def _side_b() -> list[str]:
    grid = [["."] * 11 for _ in range(11)]
    for i in B.map.mountains:
        grid[i // 11][i % 11] = "M"
    for i in B.map.wasteland:
        grid[i // 11][i % 11] = "X"
    return ["".join(r) for r in grid]


def test_shieldgate():
    g = draw(("V", "A1 A2 A3 A4"), ("V", "D1 D2 D3 D4"), ("V", "H1 H2"))
    assert card(37, g) == 2 * 4  # sizes 4, 4, 2: the second entry is 4
    distinct = A.with_overrides({"scoring.shieldgate.second": "distinct"})
    assert card(37, g, distinct) == 2 * 2
    assert card(37, draw(("V", "A1 A2 A3"))) == 0  # one cluster
    assert card(37, draw(("V", "A1 A2 A3"), ("V", "C5"))) == 2


def test_borderlands():
    row_a = " ".join(f"A{c}" for c in range(1, 12))
    row_b = " ".join(f"B{c}" for c in range(1, 12) if c != 4)  # B4 is a mountain: filled
    col_11 = " ".join(f"{r}11" for r in "CDEFGHIJK")
    assert card(38, draw(("T", row_a), ("V", row_b), ("F", col_11))) == 6 * 3


def test_lost_barony():
    block = " ".join(f"{r}{c}" for r in "GHI" for c in (7, 8, 9))
    assert card(39, draw(("T", block))) == 9
    # a 4x4 in the bottom-right corner that includes mountain J8
    corner = " ".join(f"{r}{c}" for r in "HIJK" for c in (8, 9, 10, 11) if f"{r}{c}" != "J8")
    assert card(39, draw(("W", corner))) == 12
    # cells that are neighbours only across the row wrap (D11 | E1) make no 2x2
    assert card(39, draw(("W", "D11 E11 E1 F1"))) == 3
    assert card(39, "".join(EMPTY_A)) == 3  # the mountains are filled cells
    assert card(39, "." * 121) == 0
    assert card(39, "T" * 121) == 33


def test_the_broken_road():
    g = draw(("T", "K1"), ("V", "I1 J2 K3"), ("F", "J1"))  # K2 empty: the J1 diagonal is open
    assert card(40, g) == 6
    assert card(40, "T" * 121) == 33


def test_the_cauldrons():
    g = draw(
        ("T", "A2 B1"),  # A1: edges and two filled sides
        ("V", "C4 E4 D3 D5"),  # D4 surrounded
        ("W", "E5 G5 F4"),  # F5: E5, G5, F4 and mountain F6
        ("F", "G8 G9 I8 I9 H7 H10"),  # H8, H9: two empty cells side by side -> neither
    )
    assert card(41, g) == 3


def test_unknown_card_scores_nothing():
    assert card(25, "T" * 121) == 0


def test_monster_penalty_counts_each_empty_cell_once():
    g = draw(("G", "D4 D6"))
    # D4: C4 E4 D3 D5; D6: C6 E6 D5 (shared) D7
    assert monster_penalty(g, A) == 7
    # empty ruins count (B6 next to a monster at A6), unless the rules leave them out
    g2 = draw(("G", "A6"))
    assert monster_penalty(g2, A) == 3
    assert monster_penalty(g2, A.with_overrides({"scoring.penalty_counts_empty_ruins": False})) == 2
    assert monster_penalty(g2, A.with_overrides({"scoring.monster_penalty": False})) == 0


# --- play ---------------------------------------------------------------------------------------


def play(players, rules, seed):
    g = Game(players, rules, seed)
    n = 0
    while not g.done:
        g.apply(g.random_move())
        n += 1
    return g, n


def test_random_games_end_with_four_records_and_consistent_scores():
    for players in range(1, 6):
        for rules in (A, B):
            g, _ = play(players, rules, 100 + players)
            s = g.snapshot()
            assert s["done"] and s["phase"] == "done" and s["current"] == s["target"] == s["card"] == -1
            assert s["season"] == 3
            scores = g.scores()
            for p, sc in enumerate(scores):
                assert len(s["seasons"][p]) == 4
                assert sc["total"] == sum(r["total"] for r in s["seasons"][p])
                assert sc["total"] == sc["edict_points"] + sc["coin_points"] - sc["monster_penalty"]
                assert sum(sc["edicts"]) == sc["edict_points"]
                assert all(r["total"] == r["e1"] + r["e2"] + r["coins"] - r["monster"] for r in s["seasons"][p])
            assert abs(sum(sc["win_share"] for sc in scores) - 1) < 1e-12
            if players == 1:
                assert scores[0]["rating"] is not None and s["ambushes_out"]  # solo ambushes were revealed
            else:
                assert all(sc["rating"] is None and sc["title"] is None for sc in scores)


def test_decisions_per_card_and_monster_phases():
    """Every seat decides once per shape card and (2+ players) once per ambush, in seat order."""
    for players in (2, 3, 5):
        g = Game(players, A, 7)
        monster_seen = False
        while not g.done:
            s = g.snapshot()
            k = s["current"]
            if s["phase"] == "monster":
                monster_seen = True
                arrow_cw = {1: False, 2: True, 3: True, 4: False}[s["card"]]
                assert s["target"] == ((k - 1) % players if arrow_cw else (k + 1) % players)
            else:
                assert s["target"] == k
            g.apply(g.random_move())
            s2 = g.snapshot()
            if k < players - 1:
                assert (s2["current"], s2["card"], s2["phase"]) == (k + 1, s["card"], s["phase"])
            else:
                assert s2["current"] in (0, -1)
        assert monster_seen


def test_pass_direction_previous_reverses_the_source():
    rules = A.with_overrides({"ambush.pass_clockwise_to": "previous"})
    for seed in range(30):
        g = Game(3, rules, seed)
        while not g.done:
            s = g.snapshot()
            if s["phase"] == "monster":
                cw = s["card"] in (2, 3)
                k = s["current"]
                assert s["target"] == ((k + 1) % 3 if cw else (k - 1) % 3)
                return
            g.apply(g.random_move())


def test_coin_shapes_and_mountain_coins():
    g = Game(1, A, 42)  # Homestead (12) first: no coin shape
    assert g.coin_shape(g.legal_moves()[0]) is False
    # Surround B4 (1, 3) with 1x1 fallbacks made by hand: use the kernel directly.
    tb = g.tables
    bb = g.bb
    for lab in ("A4", "C4", "B3"):
        r, c = parse_label(lab)
        E._fill(bb[0], cell_index(r, c), E.FOREST)
    st = g.st
    E._mountain_coins(bb, st, tb.rp, tb.masks, 0, 0)
    assert st[E.ST_COINS] == 0
    E._fill(bb[0], cell_index(1, 4), E.FOREST)
    E._mountain_coins(bb, st, tb.rp, tb.masks, 0, 0)
    E._mountain_coins(bb, st, tb.rp, tb.masks, 0, 0)
    assert st[E.ST_COINS] == 1  # once per mountain
    assert g.snapshot()["mountains_paid"] == [[cell_index(1, 3)]]


def test_coin_cap():
    rules = A.with_overrides({"coins.cap": 1})
    tb = tables_for(rules, 1)
    st = np.zeros(E.ST_LEN, dtype=np.int32)
    E._gain(st, tb.rp, 0)
    E._gain(st, tb.rp, 0)
    assert st[E.ST_COINS] == 1


def test_coin_shape_gives_a_coin():
    for seed in range(200):
        g = Game(2, A, seed)
        s = g.snapshot()
        if s["card"] in (7, 8, 9, 10) and not s["ruins_pending"]:
            coin = [m for m in g.legal_moves() if m.option == 0]
            assert coin and all(g.coin_shape(m) for m in coin)
            g.apply(coin[0])
            assert g.snapshot()["coins"] == [1, 0]
            return
    pytest.fail("no game starting with a coin card")


# --- the API's move checks (§5.3) ----------------------------------------------------------------


def mutations(m: Move) -> list[Move]:
    from dataclasses import replace

    r, c = m.anchor
    out = [
        replace(m, map=m.map + 1),
        replace(m, card=m.card + 1),
        replace(m, option=m.option + 1),
        replace(m, orientation=(m.orientation + 1) % 8),
        replace(m, anchor=(r + 1, c)),
        replace(m, anchor=(r, c + 1)),
        replace(m, anchor=[r, c]),
        replace(m, cells=tuple(reversed(m.cells))),
        replace(m, terrain="monster" if m.terrain != "monster" else "forest"),
        replace(m, kind="fallback"),
        replace(m, kind="skip"),
    ]
    return [x for x in out if x != m]


def test_is_legal_is_membership_in_the_listing():
    rng = np.random.default_rng(0)
    for players, rules, seed in ((1, A, 3), (3, B, 4), (5, A, 5)):
        g = Game(players, rules, seed)
        step = 0
        while not g.done:
            if step % 3 == 0:
                legal = g.legal_moves()
                assert len(legal) == g.count_moves()
                assert len(set(legal)) == len(legal)
                assert all(g.is_legal(m) for m in legal)
                for i in rng.choice(len(legal), size=min(5, len(legal)), replace=False):
                    for x in mutations(legal[i]):
                        assert g.is_legal(x) == (x in legal), x
            m = g.random_move()
            g.apply(m)
            step += 1


def test_illegal_move_raises_and_changes_nothing():
    g = Game(2, A, 42)
    before = g.snapshot()
    rng_before = g.rng.copy()
    m = g.legal_moves()[0]
    for bad in [*mutations(m), "draw", Move("draw", 0, 12, 0, 0, (10, 10), ((10, 10),), "village")]:
        with pytest.raises(IllegalMove):
            g.apply(bad)
        assert g.snapshot() == before and (g.rng == rng_before).all()
    assert issubclass(IllegalMove, ValueError)


def test_listing_order():
    g = Game(1, A, 42)  # Homestead: one option, terrains village, farm
    legal = g.legal_moves()
    keys = [(m.option, m.orientation, m.anchor) for m in legal]
    assert keys == sorted(keys)
    assert [m.terrain for m in legal[:2]] == ["village", "farm"]
    assert legal[0].anchor == (0, 0) and legal[0].orientation == 0
    assert legal[0].cells == ((0, 0), (1, 0), (1, 1), (2, 0))  # "#./##/#." in cell order


def test_fallback_when_no_shape_fits():
    g = Game(1, A, 42)
    # Fill everything but three scattered cells: no 4-cell Homestead fits.
    keep = {cell_index(0, 0), cell_index(5, 0), cell_index(10, 10)}
    for i in range(121):
        if i not in keep and (int(g.bb[0, E.EMPTY, i // 64]) >> (i % 64)) & 1:
            E._fill(g.bb[0], i, E.FARM)
    legal = g.legal_moves()
    assert [m.kind for m in legal] == ["fallback"] * 15
    assert [m.anchor for m in legal[::5]] == [(0, 0), (5, 0), (10, 10)]
    assert [m.terrain for m in legal[:5]] == ["forest", "village", "farm", "water", "monster"]
    card_rules = A.with_overrides({"draw.fallback_from": "card"})
    g2 = Game(1, card_rules, 42)
    g2.bb[:] = g.bb
    assert [m.terrain for m in g2.legal_moves()[:2]] == ["village", "farm"]
    # a full map: skip
    for i in keep:
        E._fill(g.bb[0], i, E.FARM)
    assert g.legal_moves() == [Move("skip", 0, 12)]


def test_copy_is_independent():
    g = Game(3, B, 11)
    h = g.copy()
    for _ in range(10):
        g.apply(g.random_move())
    assert h.snapshot() == Game(3, B, 11).snapshot()
    assert h.random_move() == Game(3, B, 11).random_move()


def test_random_move_is_listing_indexed_by_the_policy_stream():
    from boardlab.sim.rng import POLICY

    g = Game(4, A, 8)
    while not g.done:
        h = g.copy()
        legal = h.legal_moves()
        state = int(h.rng[POLICY])
        state = (state + GOLDEN) % 2**64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) % 2**64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) % 2**64
        z ^= z >> 31
        k = ((z >> 32) * len(legal)) >> 32
        m = g.random_move()
        assert m == legal[k]
        g.apply(m)


def test_solo_title_and_rating():
    from boardlab.sim.cartographers.api import solo_rating

    edicts = [26, 30, 34, 38]  # solo numbers 25 + 24 + 16 + 24 = 89
    assert solo_rating(89 + 30, edicts, A) == (30, "Legendary Cartographer")
    assert solo_rating(89 + 29, edicts, A) == (29, "Master Mapsmith")
    assert solo_rating(89, edicts, A) == (0, "Apprentice Surveyor")
    assert solo_rating(89 - 30, edicts, A) == (-30, "Oblivious Inkdrinker")
    assert solo_rating(89 - 31, edicts, A) == (-31, None)
    assert solo_rating(89 - 31, edicts, A.with_overrides({"solo.below_titles": "lowest"}))[1] == "Oblivious Inkdrinker"


def test_ties_broken_by_monster_penalty():
    st = np.zeros(E.ST_LEN, dtype=np.int32)
    st[E.ST_PLAYERS] = 3
    st[E.ST_SCORED] = 1
    for p, (total, monster) in enumerate(((10, 2), (10, 1), (10, 1))):
        r = E.ST_RECORDS + p * E.N_SEASONS * E.REC_LEN
        st[r + E.REC_E1] = total + monster
        st[r + E.REC_MONSTER] = monster
        st[r + E.REC_TOTAL] = total
    out = np.zeros((3, E.SC_LEN), dtype=np.int32)
    E.final_scores(st, tables_for(A, 3).rp, out)
    assert list(out[:, E.SC_RANK]) == [3, 1, 1]
    E.final_scores(st, tables_for(A.with_overrides({"ties.monster_penalty": False}), 3).rp, out)
    assert list(out[:, E.SC_RANK]) == [1, 1, 1]


@pytest.mark.parametrize(
    "overrides",
    [
        {},
        {f"seasons.{s}.threshold": 16 for s in ("spring", "summer", "fall", "winter")},  # maps fill up
        {"coins.mountain_to_owner": False, "coins.cap": 2, "ambush.pass_clockwise_to": "previous"},
    ],
)
def test_invariants_hold_in_every_position(overrides):
    from boardlab.sim.cartographers.game import invariants

    for side in (A, B):
        rules = side.with_overrides(overrides) if overrides else side
        for players in (1, 2, 4):
            g = Game(players, rules, 31 + players)
            assert invariants(g) == []
            coins = [0] * players
            while not g.done:
                before = g.snapshot()
                g.apply(g.random_move())
                after = g.snapshot()
                assert invariants(g) == [], before
                for p in range(players):  # coins never decrease; filled cells never change
                    assert after["coins"][p] >= coins[p]
                    changed = [i for i in range(121) if before["grids"][p][i] != after["grids"][p][i]]
                    assert all(before["grids"][p][i] == "." for i in changed)
                coins = after["coins"]
