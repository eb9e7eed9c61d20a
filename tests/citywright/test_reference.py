"""Tests of the reference implementation on its own (boardlab/sim/citywright/reference.py).

The worked examples of docs/games/citywright.md section 6, residential cluster rules in both
presets, the chance stream, full random games at every player count with ruler
conservation after every move, and the refusal of illegal moves.
"""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from boardlab.sim.citywright.moves import Move
from boardlab.sim.citywright.reference import RefGame, SplitMix64, on_board, orientations, score_board
from boardlab.sim.citywright.rules import DISTRICTS, N_EDGE_SLOTS, N_SLOTS, load_rules, opposite_slot

V11 = load_rules("v1.1")
V10 = load_rules("v1.0")


def board_from(cells: dict[tuple[int, int], str]) -> str:
    """A 49-character board with the given letters, empty elsewhere."""
    grid = ["."] * 49
    for (r, c), d in cells.items():
        grid[7 * r + c] = d
    return "".join(grid)


def board_from_rows(*rows: str) -> str:
    assert len(rows) == 7 and all(len(r) == 7 for r in rows)
    return "".join(rows)


# --- docs/games/citywright.md section 6 worked examples ---------------------------------------------


def test_commercial_example_11_tiles_3_isolated():
    cells = {(0, c): "C" for c in range(7)}
    cells[(1, 0)] = "C"  # a cluster of 8
    for rc in [(3, 0), (3, 2), (5, 5)]:  # 3 isolated
        cells[rc] = "C"
    b = board_from(cells)
    assert b.count("C") == 11
    s = score_board(b, V11)
    assert s["commercial"] == 21
    assert s["districts"] == 21 and s["empty"] == 38


def test_commercial_example_17_tiles_1_isolated():
    cells = {(r, c): "C" for r in range(2) for c in range(7)}
    cells[(2, 0)] = cells[(2, 1)] = "C"  # a cluster of 16
    cells[(6, 6)] = "C"  # isolated
    b = board_from(cells)
    assert b.count("C") == 17
    assert score_board(b, V11)["commercial"] == 34


@pytest.mark.parametrize(
    "n, expected",
    [(0, 0), (4, 0), (5, 5), (9, 5), (10, 15), (14, 15), (15, 30), (16, 31)],
)
def test_commercial_tiers_without_isolated(n, expected):
    # a snake along rows keeps every tile connected (no isolated tile when n >= 2)
    order = [(r, c) for r in range(7) for c in (range(7) if r % 2 == 0 else range(6, -1, -1))]
    b = board_from({rc: "C" for rc in order[:n]})
    assert score_board(b, V11)["commercial"] == expected


def test_park_example():
    cells = {rc: "P" for rc in [(0, 0), (1, 0), (2, 1), (3, 2), (4, 3), (0, 3)]}
    cells[(0, 1)] = "R"  # next to (0,0)
    cells[(2, 2)] = "C"  # next to (2,1) and (3,2)
    cells[(5, 3)] = "R"  # next to (4,3)
    s = score_board(board_from(cells), V11)
    assert s["park"] == 4 + 5 * 2 + 4 * 2 == 22


def test_park_adjacent_to_parameter():
    b = board_from({(3, 3): "P", (3, 4): "I"})
    assert score_board(b, V11)["park"] == 0 + 2 + 2
    rules = V11.with_overrides({"scoring.park.adjacent_to": "I"})
    assert score_board(b, rules)["park"] == 1 + 2 + 2


def test_industrial_example():
    ring = [(0, 0), (0, 1), (6, 6), (3, 0), (3, 6)]
    inner = [(3, 3), (2, 2)]
    s = score_board(board_from({rc: "I" for rc in ring + inner}), V11)
    assert s["industrial"] == 5 * 2 + 3 * 3 == 19


# --- residential --------------------------------------------------------------------


def test_residential_largest_and_second():
    b = board_from_rows(
        "RRRR...",
        "RRR....",
        ".......",
        "...RRR.",
        ".......",
        "R......",
        ".......",
    )
    s = score_board(b, V11)
    assert s["residential"] == (7 // 2) * 5 + 3 == 18
    assert score_board(b, V10)["residential"] == 7 * 2 + 3 == 17


def test_residential_equal_clusters_one_largest_one_second():
    b = board_from_rows(
        "RR.RR..",
        "RR.RR..",
        ".......",
        ".......",
        ".......",
        ".......",
        ".......",
    )
    assert score_board(b, V11)["residential"] == 2 * 5 + 4 == 14
    assert score_board(b, V10)["residential"] == 4 * 2 + 4 == 12


def test_residential_single_cluster_and_none():
    one = board_from({(0, 0): "R", (0, 1): "R", (0, 2): "R"})
    assert score_board(one, V11)["residential"] == 5  # no second cluster
    assert score_board(one, V10)["residential"] == 6
    assert score_board("." * 49, V11)["residential"] == 0
    diagonal = board_from({(0, 0): "R", (1, 1): "R"})  # corners do not connect
    assert score_board(diagonal, V11)["residential"] == 0 + 1


def test_score_board_rejects_bad_boards():
    with pytest.raises(ValueError):
        score_board("." * 48, V11)
    with pytest.raises(ValueError):
        score_board("X" + "." * 48, V11)


# --- chance stream and setup --------------------------------------------------------


def test_splitmix64_reference_vector():
    g = SplitMix64(0)
    assert [g.next() for _ in range(3)] == [0xE220A8397B1DCDAF, 0x6E789E6AA1B965F4, 0x06C45D188009454F]
    g = SplitMix64(-1)  # seeds are taken modulo 2**64
    assert g.state == 2**64 - 1


def test_orientation_counts_match_rules_table():
    expected = {"I": 2, "L": 8, "T": 4, "Z": 4, "O": 1, "W": 4, "T5": 4, "P": 8, "V": 4}
    assert {s.name: len(orientations(s)) for s in V11.shapes} == expected


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_setup(players):
    g = RefGame(players, V11, 12345)
    snap = g.snapshot()
    assert sorted(snap["market"]) == sorted("RCPI" * 4)
    assert all(s is not None for s in snap["slots"])
    stars = {s.name for s in V11.shapes if s.has_star}
    assert all((name in stars) == (i >= N_EDGE_SLOTS) for i, name in enumerate(snap["slots"]))
    removed = sum(snap["removed"].values())
    assert removed == (15 + 8 if players == 2 else 0)
    assert snap["current"] == 0 and snap["round"] == 0 and snap["turn"] == 0 and not snap["done"]
    assert snap == RefGame(players, V11, 12345).snapshot()  # same seed, same game
    assert RefGame(players, V11, 12345 + 2**64).snapshot() == snap


# --- full random games --------------------------------------------------------------


def check_conservation(g: RefGame) -> None:
    snap = g.snapshot()
    in_slots = {}
    for name in snap["slots"]:
        if name is not None:
            in_slots[name] = in_slots.get(name, 0) + 1
    for s in g.rules.shapes:
        held = (
            snap["deck"][s.name]
            + snap["discard"][s.name]
            + in_slots.get(s.name, 0)
            + snap["used"][s.name]
            + snap["removed"][s.name]
        )
        assert held == s.copies, (s.name, snap)


def random_move(g: RefGame, rng: random.Random, greedy: bool = False) -> Move:
    """A uniformly random (slot, placement | discard | swap) skeleton, random tile assignment.

    greedy: only placements landing the most cells (boards fill up, forced discards happen).
    """
    skeletons = []
    seat = g.current
    board = g.snapshot()["boards"][seat]
    empties = [(i // 7, i % 7) for i, ch in enumerate(board) if ch == "."]
    for slot in range(N_SLOTS):
        if g.slots[slot] is None:
            continue
        places = g.legal_placements(slot)
        if greedy and places:
            most = max(sum(on_board(cell) for cell in cells) for _, _, cells in places)
            places = [p for p in places if sum(on_board(cell) for cell in p[2]) == most]
        skeletons += [("place", slot, p) for p in places]
        if not places:
            skeletons.append(("discard", slot, None))
        if slot >= N_EDGE_SLOTS and g.rules.swap_allowed(g.players) and not greedy:
            skeletons += [("swap", slot, (cell, d)) for cell in empties for d in DISTRICTS]
    if not skeletons:
        return Move("pass")
    kind, slot, extra = rng.choice(skeletons)
    name = g.slots[slot]
    if kind == "discard":
        return Move("discard", slot=slot, shape=name)
    if kind == "swap":
        cell, d = extra
        return Move("swap", slot=slot, shape=name, cell=cell, district=d)
    o, anchor, cells = extra
    shape = g.shape_by_name[name]
    line = g.line_tiles(slot)
    plain = line + [""] * (4 - len(line))
    rng.shuffle(plain)
    free = ""
    if shape.has_star:
        options = g._free_pick_options(slot)
        free = rng.choice(options) if options else ""
    tiles = []
    it = iter(plain)
    for k in range(len(cells)):
        tiles.append(free if k == shape.star else next(it))
    return Move(
        "place", slot=slot, shape=name, orientation=o, anchor=anchor, cells=cells, tiles=tuple(tiles), free=free
    )


def play_random_game(players: int, rules, seed: int, greedy: bool = False) -> RefGame:
    g = RefGame(players, rules, seed)
    rng = random.Random(seed)
    check_conservation(g)
    swaps = [0] * players
    while not g.done:
        seat = g.current
        move = random_move(g, rng, greedy)
        assert g.is_legal(move), move
        before = g.snapshot()
        g.apply(move)
        after = g.snapshot()
        check_conservation(g)
        assert after["turns"][seat] == before["turns"][seat] + 1
        if move.kind == "swap":
            swaps[seat] += 1
            assert after["taken"] == before["taken"] and after["waste"] == before["waste"]
        if move.kind == "place" and players == 1 and rules.game["solo_rival"]:
            assert after["slots"][opposite_slot(move.slot)] is None or after["round"] != before["round"]
    snap = g.snapshot()
    for seat in range(players):
        filled = 49 - snap["boards"][seat].count(".")
        assert filled == snap["taken"][seat] - snap["waste"][seat] + swaps[seat]
    return g


@pytest.mark.parametrize("preset", ["v1.1", "v1.0"])
@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_random_game_finishes(preset, players):
    rules = load_rules(preset)
    rounds, per_round = rules.rounds(players)
    expected_turns = rounds * per_round
    if preset == "v1.0" and players == 2:
        assert expected_turns == 16
    else:
        assert expected_turns == 12
    g = play_random_game(players, rules, seed=1000 + players)
    snap = g.snapshot()
    assert snap["done"] and snap["current"] == -1
    assert snap["turns"] == [expected_turns] * players
    assert snap["round"] == rounds - 1 and snap["turn"] == players * per_round
    with pytest.raises(ValueError, match="game is over"):
        g.apply(Move("pass"))
    scores = g.scores()
    assert len(scores) == players
    assert abs(sum(s["win_share"] for s in scores) - 1.0) < 1e-9
    for seat, s in enumerate(scores):
        assert s["districts"] == s["residential"] + s["commercial"] + s["park"] + s["industrial"]
        assert s["total"] == s["districts"] + s["achievements"] + s["compensation"]
        assert s["compensation"] == rules.compensation(players)[seat]
        assert s["empty"] == snap["boards"][seat].count(".")


def test_random_game_with_depleting_market():
    rules = V10.with_overrides({"game.market_depletes": True})
    for players in (1, 2):
        g = play_random_game(players, rules, seed=77 + players)
        assert g.done


def test_greedy_game_fills_boards_and_forces_discards():
    g = play_random_game(2, V10, seed=5, greedy=True)  # 16 turns x 4 tiles > 49 cells
    snap = g.snapshot()
    assert snap["turns"] == [16, 16]
    assert sum(snap["forced"]) > 0
    assert all(b.count(".") < 10 for b in snap["boards"])


def test_pass_when_every_slot_is_empty():
    # one copy of each shape: 5 edge rulers and 4 corner rulers for 12 turns a round
    overrides = {f"shapes.{s.name}.copies": 1 for s in V11.shapes}
    overrides.update({f"shapes.{s.name}.two_player_remove": 0 for s in V11.shapes})
    rules = V11.with_overrides(overrides)
    g = RefGame(4, rules, 11)
    assert sum(name is not None for name in g.slots) == 9
    rng = random.Random(0)
    passes = 0
    while not g.done:
        move = random_move(g, rng)
        passes += move.kind == "pass"
        g.apply(move)
        check_conservation(g)
    assert passes == 4 * (12 - 9)  # three passes in each of the 4 rounds
    assert g.snapshot()["turns"] == [12] * 4


# --- scores, achievements, ranks ----------------------------------------------------


def test_achievements_and_ranks():
    g = RefGame(2, V11, 5)
    g.set_board(0, board_from({(0, c): "P" for c in range(7)}))  # parks in 1 row and 7 columns
    g.set_board(1, board_from({(0, 0): "P"}))
    g.placed[0].update({"I": 4, "L": 1, "T": 1, "Z": 1, "O": 1, "W": 1})  # 6 distinct, one shape 4 times
    s = g.scores()
    assert s[0]["park"] == 2 + 14 and s[1]["park"] == 4
    assert s[0]["achievements"] == 4 + 4 + 4
    assert s[1]["achievements"] == 0
    assert s[0]["rank"] == 1 and s[1]["rank"] == 2 and s[0]["win_share"] == 1.0
    assert s[0]["shapes_distinct"] == 6


def test_highest_district_ties_all_get_it_and_solo_threshold():
    g = RefGame(2, V11, 5)
    s = g.scores()  # both 0 park: tied at the top
    assert [x["achievements"] for x in s] == [4, 4]
    assert [x["compensation"] for x in s] == [0, 1]
    assert [x["rank"] for x in s] == [2, 1]
    solo = RefGame(1, V11, 5)
    assert solo.scores()[0]["achievements"] == 0
    checkerboard = "".join("P" if (i // 7 + i % 7) % 2 == 0 else "R" for i in range(49))
    solo.set_board(0, checkerboard)
    assert solo.scores()[0]["park"] == 25 + 7 * 2 + 7 * 2 == 53
    assert solo.scores()[0]["achievements"] == 4
    for threshold, points in [(53, 4), (54, 0)]:
        rules = V11.with_overrides({"achievements.cards.green_canopy.solo_threshold": threshold})
        strict = RefGame(1, rules, 5)
        strict.set_board(0, checkerboard)
        assert strict.scores()[0]["achievements"] == points


def test_tie_breaks_and_shared_win():
    g = RefGame(3, V11.with_overrides({"achievements.enabled": False}), 1)
    # compensation +2/+2/0; a lone inner I scores nothing but fills a cell
    g.set_board(0, board_from({(3, 3): "I"}))  # 0 points, 48 empty
    g.set_board(1, "." * 49)  # 0 points, 49 empty
    s = g.scores()
    assert [x["total"] for x in s] == [2, 2, 0]
    assert [x["rank"] for x in s] == [1, 2, 3]  # fewer empty cells wins
    g.set_board(1, board_from({(3, 3): "I"}))
    s = g.scores()
    assert [x["rank"] for x in s] == [1, 1, 3]
    assert [x["win_share"] for x in s] == [0.5, 0.5, 0.0]
    g.placed[1]["O"] = 1  # more distinct shapes wins the next tie
    s = g.scores()
    assert [x["rank"] for x in s] == [2, 1, 3]


def test_custom_achievement_kinds():
    rules = V11.with_overrides(
        {
            "achievements.cards.versatile.enabled": False,
            "achievements.cards.mastery.enabled": False,
            "achievements.cards.green_canopy.enabled": False,
            "achievements.cards.rows": {"kind": "full_line", "district": "R", "points": 1},
            "achievements.cards.anyline": {"kind": "full_line", "district": "any", "points": 2},
            "achievements.cards.many_i": {"kind": "district_count", "district": "I", "threshold": 3, "points": 4},
            "achievements.cards.full": {"kind": "no_empty", "points": 8},
            "achievements.cards.zeds": {"kind": "shape_count", "shape": "Z", "threshold": 2, "points": 16},
        }
    )
    g = RefGame(1, rules, 3)
    g.set_board(0, board_from_rows("RRRRRRR", "I......", "I......", "I......", ".......", ".......", "......."))
    assert g.scores()[0]["achievements"] == 1 + 2 + 4
    g.set_board(0, board_from_rows("RRRRRRC", "I......", "I......", "C......", "C......", "C......", "C......"))
    assert g.scores()[0]["achievements"] == 2  # column 0 is full of mixed tiles
    g.set_board(0, "P" * 49)
    g.placed[0]["Z"] = 2
    assert g.scores()[0]["achievements"] == 2 + 8 + 16


# --- illegal moves ------------------------------------------------------------------


def a_place_move(g: RefGame, slot: int) -> Move:
    o, anchor, cells = g.legal_placements(slot)[0]
    name = g.slots[slot]
    shape = g.shape_by_name[name]
    line = g.line_tiles(slot)
    free = "R" if shape.has_star else ""
    it = iter(line)
    tiles = tuple(free if k == shape.star else next(it) for k in range(len(cells)))
    return Move("place", slot=slot, shape=name, orientation=o, anchor=anchor, cells=cells, tiles=tiles, free=free)


def test_legal_placements_sorted_and_on_board():
    g = RefGame(2, V11, 9)
    for slot in (0, 16):
        places = g.legal_placements(slot)
        assert places == sorted(places, key=lambda p: (p[0], p[1]))
        assert all(any(0 <= r < 7 and 0 <= c < 7 for r, c in cells) for _, _, cells in places)
        assert len({(o, a) for o, a, _ in places}) == len(places)


def test_illegal_moves_raise():
    g = RefGame(2, V11, 9)
    good = a_place_move(g, 0)
    assert g.is_legal(good)

    def bad(move, match):
        assert not g.is_legal(move)
        with pytest.raises(ValueError, match=match):
            g.apply(move)

    # the wrong shape, cells that are not the orientation at the anchor, nothing on the
    # board, tiles that are not the line's, a free pick from an edge slot, a bad orientation
    bad(replace(good, shape="nonsense"), "holds")
    bad(replace(good, cells=tuple((r + 1, c) for r, c in good.cells)), "are not")
    far = replace(good, anchor=(good.anchor[0] + 20, good.anchor[1] + 20))
    bad(replace(far, cells=tuple((r + 20, c + 20) for r, c in good.cells)), "no cell")
    other = "C" if sorted(good.tiles) == ["R"] * 4 else "R"
    bad(replace(good, tiles=(other,) * len(good.tiles)), "gives tiles")
    bad(replace(good, free="R"), "free pick")
    bad(replace(good, orientation=9), "orientation")
    # a discard when a placement exists; a pass while slots hold rulers; nonsense
    bad(Move("discard", slot=0), "can be placed")
    bad(Move("pass"), "cannot pass")
    bad(Move("fly", slot=0), "unknown move kind")
    bad(replace(good, slot=25), "slot must be")
    # a swap from an edge slot
    bad(Move("swap", slot=0, cell=(3, 3), district="R"), "corner slot")

    # a corner ruler: the free pick must be a district and sit on the star cell
    corner = a_place_move(g, 16)
    assert g.is_legal(corner)
    star = g.shape_by_name[corner.shape].star
    other = next(d for d in DISTRICTS if d != corner.free)
    bad(replace(corner, free=other), "star cell")  # the star cell holds another tile
    for k in range(len(corner.tiles)):
        if corner.tiles[k] != corner.free:  # the free pick on a plain cell, a line tile on the star
            tiles = list(corner.tiles)
            tiles[star], tiles[k] = tiles[k], tiles[star]
            bad(replace(corner, tiles=tuple(tiles)), "gives tiles")
            break
    bad(replace(corner, free="X"), "free pick")

    # play the good move: the slot is now empty
    g.apply(good)
    bad(good, "empty")
    g.apply(Move("swap", slot=17, shape=g.slots[17], cell=(6, 6), district="P"))  # seat 1
    # seat 0 again: a swap onto an occupied cell or with a bad district, a placement over own tiles
    landed = [cell for cell in good.cells if 0 <= cell[0] < 7 and 0 <= cell[1] < 7]
    bad(Move("swap", slot=16, cell=landed[0], district="R"), "occupied")
    free_cell = next((r, c) for r in range(7) for c in range(7) if g.boards[0][r][c] == ".")
    bad(Move("swap", slot=16, cell=free_cell, district="X"), "district")
    name = g.slots[1]
    o, base = g.shape_orientations[name][0]
    anchor = (landed[0][0] - base[0][0], landed[0][1] - base[0][1])  # shape cell 0 on an occupied cell
    cells = tuple((anchor[0] + r, anchor[1] + c) for r, c in base)
    line = tuple(g.line_tiles(1))
    bad(Move("place", slot=1, shape=name, orientation=o, anchor=anchor, cells=cells, tiles=line), "occupied")


def test_duplicate_orientation_refused():
    seed = 0
    while True:  # the first seed that deals an O to an edge slot
        g = RefGame(3, V11, seed)
        if "O" in g.slots[:N_EDGE_SLOTS]:
            break
        seed += 1
    slot = g.slots.index("O")
    move = a_place_move(g, slot)
    assert move.orientation == 0
    with pytest.raises(ValueError, match="repeats orientation 0"):
        g.apply(replace(move, orientation=3))


def test_swap_not_allowed_outside_two_players():
    for players in (1, 3, 4):
        g = RefGame(players, V11, 4)
        with pytest.raises(ValueError, match="not allowed"):
            g.apply(Move("swap", slot=16, cell=(0, 0), district="R"))


def test_forced_discard_and_swap_bookkeeping():
    g = RefGame(2, V11, 8)
    # fill seat 0's board except one inner cell: no ruler fits (a border cell would
    # still take a ruler that overhangs)
    full = list("R" * 49)
    full[7 * 3 + 3] = "."
    g.set_board(0, "".join(full))
    assert g.legal_placements(0) == [] and g.legal_placements(16) == []
    with pytest.raises(ValueError, match="corner slot"):
        g.apply(Move("swap", slot=3, cell=(3, 3), district="C"))
    name = g.slots[16]
    g.apply(Move("discard", slot=16))
    snap = g.snapshot()
    assert snap["forced"] == [1, 0] and snap["waste"] == [5, 0] and snap["taken"] == [5, 0]
    assert snap["used"][name] == 1 and sum(snap["placed"][0].values()) == 0
    g.apply(a_place_move(g, 0))  # seat 1
    name = g.slots[17]
    removed_before = g.snapshot()["removed"][name]
    g.apply(Move("swap", slot=17, cell=(3, 3), district="C"))  # seat 0
    snap = g.snapshot()
    assert snap["boards"][0][7 * 3 + 3] == "C" and snap["removed"][name] == removed_before + 1
    assert snap["slots"][17] is None and sum(snap["placed"][0].values()) == 0
    assert snap["waste"][0] == 5 and snap["taken"][0] == 5
    check_conservation(g)


def test_swap_requires_empty_cell_parameter():
    g = RefGame(2, V11, 8)
    g.set_board(0, "R" * 49)
    with pytest.raises(ValueError, match="board is full"):
        g.apply(Move("swap", slot=16, cell=(-1, -1), district="R"))
    loose = RefGame(2, V11.with_overrides({"game.swap_requires_empty_cell": False}), 8)
    loose.set_board(0, "R" * 49)
    loose.apply(Move("swap", slot=16, cell=(-1, -1)))
    assert loose.snapshot()["turns"] == [1, 0]


def test_solo_rival_removes_opposite_ruler():
    g = RefGame(1, V11, 2)
    other = g.slots[opposite_slot(0)]
    g.apply(a_place_move(g, 0))
    snap = g.snapshot()
    assert snap["slots"][0] is None and snap["slots"][4] is None
    assert snap["used"][other] >= 1 and sum(snap["used"].values()) == 2
    check_conservation(g)
