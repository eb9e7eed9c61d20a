"""One test per [interpretation] of docs/games/citywright.md, plus rule-set errors and TOML variants.

Every interpretation is a named parameter of the rule set (boardlab/sim/citywright/rules.py); each test
checks the preset value, what a played game shows, and (where it makes sense) that
changing the parameter changes the game.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from boardlab.sim.citywright.api import Game, IllegalMove
from boardlab.sim.citywright.moves import Move
from boardlab.sim.citywright.reference import score_board
from boardlab.sim.citywright.rules import N_EDGE_SLOTS, N_SLOTS, RulesError, from_mapping, load_rules, slot_line
from boardlab.sim.citywright.tables import PL_NON

V11 = load_rules("v1.1")
V10 = load_rules("v1.0")
PRESETS = {"v1.1": V11, "v1.0": V10}


@pytest.fixture(scope="module", autouse=True)
def warm_up_kernels():
    for players in range(1, 5):
        g = Game(players, V11, seed=0)
        g.apply(g.random_move())
        g.scores()


def on_board(cell) -> bool:
    return 0 <= cell[0] < 7 and 0 <= cell[1] < 7


def play_random(game: Game) -> list[tuple[int, int, int]]:
    """Play to the end with random_move(); (round, turn, seat) before every move."""
    seen = []
    while not game.done:
        s = game.snapshot()
        seen.append((s["round"], s["turn"], s["current"]))
        game.apply(game.random_move())
    return seen


def round_structure(seen: list[tuple[int, int, int]], players: int):
    """(start seat of each round, per round a Counter of turns per seat)."""
    rounds = sorted({r for r, _, _ in seen})
    assert rounds == list(range(len(rounds)))
    starts = [seat for r, t, seat in seen if t == 0]
    per_round = [Counter(seat for rr, _, seat in seen if rr == r) for r in rounds]
    return starts, per_round


def fill_move(game: Game, rng: random.Random) -> Move:
    """A placement landing the most cells; a swap into a hole or a forced discard when nothing fits."""
    slots = [s for s, n in enumerate(game.snapshot()["slots"]) if n is not None]
    pl_non = game.tables.pl_info[:, PL_NON]
    best = {s: (int(pl_non[p].max()) if (p := game.legal_placements(s)) else 0) for s in slots}
    top = max(best.values())
    if top == 0:
        moves = [m for s in slots for m in game.legal_moves(slot=s, assignments="one")]
        swaps = [m for m in moves if m.kind == "swap" and m.cell != (-1, -1)]
        return rng.choice(swaps or [m for m in moves if m.kind == "discard"])
    s = rng.choice([s for s in slots if best[s] == top])
    return rng.choice(
        [
            m
            for m in game.legal_moves(slot=s, assignments="one")
            if m.kind == "place" and sum(on_board(c) for c in m.cells) == top
        ]
    )


# --- docs/games/citywright.md section 4: game length at 3 and 4 players ------------------------------------------


@pytest.mark.parametrize("preset", ["v1.1", "v1.0"])
@pytest.mark.parametrize("seed", [0, 1, 2**63 + 11])
def test_interpretation_three_players_three_rounds_of_four(preset, seed):
    rules = PRESETS[preset]
    assert rules.rounds(3) == (3, 4)
    assert rules.game["rounds"]["3"] == [3, 4]
    game = Game(3, rules, seed)
    seen = play_random(game)
    starts, per_round = round_structure(seen, 3)
    assert len(per_round) == 3
    assert all(c == {0: 4, 1: 4, 2: 4} for c in per_round)
    assert starts == [0, 1, 2]  # every seat starts once ...
    assert starts[-1] == 2  # ... and the last seat starts the final round
    assert game.snapshot()["turns"] == [12, 12, 12]
    # a parameter, not code: 4 x 3 at three players gives four rounds, seat 1 starting twice
    other = Game(3, rules.with_overrides({"game.rounds.3": [4, 3]}), seed)
    starts, per_round = round_structure(play_random(other), 3)
    assert starts == [0, 1, 2, 0] and all(c == {0: 3, 1: 3, 2: 3} for c in per_round)


@pytest.mark.parametrize("preset", ["v1.1", "v1.0"])
@pytest.mark.parametrize("seed", [0, 1, 2**63 + 11])
def test_interpretation_four_players_four_rounds_of_three(preset, seed):
    rules = PRESETS[preset]
    assert rules.rounds(4) == (4, 3)
    assert rules.game["rounds"]["4"] == [4, 3]
    game = Game(4, rules, seed)
    seen = play_random(game)
    starts, per_round = round_structure(seen, 4)
    assert len(per_round) == 4
    assert all(c == {0: 3, 1: 3, 2: 3, 3: 3} for c in per_round)
    assert starts == [0, 1, 2, 3]
    assert starts[-1] == 3
    assert game.snapshot()["turns"] == [12] * 4
    # turn order within a round: clockwise from the start seat
    for r, t, seat in seen:
        assert seat == (r + t) % 4
    other = Game(4, rules.with_overrides({"game.rounds.4": [3, 4]}), seed)
    starts, per_round = round_structure(play_random(other), 4)
    assert starts == [0, 1, 2] and all(c == {0: 4, 1: 4, 2: 4, 3: 4} for c in per_round)


def test_game_length_of_one_and_two_players_follows_the_rulebook():
    """Not an interpretation (rulebook text), the contrast to the two above."""
    for players, rules, rounds, turns in [(1, V11, 3, 4), (2, V11, 3, 4), (1, V10, 3, 4), (2, V10, 4, 4)]:
        assert rules.rounds(players) == (rounds, turns)
        starts, per_round = round_structure(play_random(Game(players, rules, 9)), players)
        assert starts == [r % players for r in range(rounds)]
        assert all(c == dict.fromkeys(range(players), turns) for c in per_round)


# --- docs/games/citywright.md 5.1: the swap ------------------------------------------------------------------


def corner_swaps(game: Game) -> list[Move]:
    return [
        m for s in range(N_EDGE_SLOTS, N_SLOTS) for m in game.legal_moves(slot=s, assignments="one") if m.kind == "swap"
    ]


def swap_attempt(game: Game) -> Move | None:
    """A swap of the first corner ruler on offer for a park on the first empty cell (None: no corner)."""
    snap = game.snapshot()
    s = next((s for s in range(N_EDGE_SLOTS, N_SLOTS) if snap["slots"][s] is not None), None)
    if s is None:
        return None
    cell = divmod(snap["boards"][game.current].index("."), 7)
    return Move(kind="swap", slot=s, shape=snap["slots"][s], cell=cell, district="P")


@pytest.mark.parametrize("preset", ["v1.1", "v1.0"])
@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_interpretation_swap_only_two_players(preset, players):
    rules = PRESETS[preset]
    assert rules.game["swap_players"] == [2]
    assert rules.swap_allowed(players) == (players == 2)
    game = Game(players, rules, seed=21)
    offered = tried = 0
    for _ in range(6):  # the first turns: boards have empty cells
        attempt = swap_attempt(game)
        swaps = corner_swaps(game)
        if attempt is None:  # every corner taken (solo: the rival empties slots too)
            assert swaps == []
            game.apply(game.random_move())
            continue
        tried += 1
        if players == 2:
            assert swaps and game.is_legal(attempt)
            offered += 1
        else:
            assert swaps == []
            before = game.snapshot()
            with pytest.raises(IllegalMove):
                game.apply(attempt)
            assert game.snapshot() == before
        game.apply(game.random_move())
    assert tried >= 3
    assert offered == (tried if players == 2 else 0)
    # played at two players: the ruler leaves the game, one tile lands, nothing is taken or wasted
    if players == 2:
        snap = game.snapshot()
        seat = game.current
        attempt = swap_attempt(game)
        assert attempt is not None
        game.apply(attempt)
        after = game.snapshot()
        assert after["removed"][attempt.shape] == snap["removed"][attempt.shape] + 1
        assert after["slots"][attempt.slot] is None
        r, c = attempt.cell
        assert after["boards"][seat][7 * r + c] == "P"
        assert after["taken"][seat] == snap["taken"][seat] and after["waste"][seat] == snap["waste"][seat]
        assert after["placed"][seat] == snap["placed"][seat]  # a swap is not recorded
    # a parameter: other player counts can be given the swap, and two players can lose it
    wider = rules.with_overrides({"game.swap_players": [2, 3]})
    assert bool(corner_swaps(Game(3, wider, seed=21)))
    none = rules.with_overrides({"game.swap_players": []})
    assert corner_swaps(Game(2, none, seed=21)) == []


def reach_full_board(rules) -> tuple[Game, list[Move]]:
    """A two-player v1.0 game played by the fill driver until the mover's board is full while a
    corner ruler is still on offer; the game and its moves."""
    for seed in range(40):
        game, rng, moves = Game(2, rules, seed), random.Random(seed), []
        while not game.done:
            snap = game.snapshot()
            full = "." not in snap["boards"][game.current]
            if full and any(snap["slots"][s] is not None for s in range(N_EDGE_SLOTS, N_SLOTS)):
                return game, moves
            m = fill_move(game, rng)
            game.apply(m)
            moves.append(m)
    raise AssertionError("no seed of 0..39 reaches a full board with a corner ruler on offer")


def test_interpretation_swap_requires_empty_cell():
    assert V11.game["swap_requires_empty_cell"] is True and V10.game["swap_requires_empty_cell"] is True
    game, moves = reach_full_board(V10)
    seat = game.current
    snap = game.snapshot()
    corners = [s for s in range(N_EDGE_SLOTS, N_SLOTS) if snap["slots"][s] is not None]
    assert corners
    assert corner_swaps(game) == []  # the board is full: no swap listed ...
    for s in corners:
        kinds = {m.kind for m in game.legal_moves(slot=s, assignments="one")}
        assert kinds == {"discard"}  # ... and no placement either: a forced discard
        for cell in [(-1, -1), (0, 0), (3, 3)]:
            bad = Move(kind="swap", slot=s, shape=snap["slots"][s], cell=cell, district="R")
            with pytest.raises(IllegalMove):
                game.apply(bad)
    assert game.snapshot() == snap

    # switched off: the same game (same chance, same moves) lists a swap that places nothing
    relaxed = V10.with_overrides({"game.swap_requires_empty_cell": False})
    other = Game(2, relaxed, game.seed)
    for m in moves:
        other.apply(m)
    assert other.snapshot() == snap
    swaps = corner_swaps(other)
    assert swaps
    assert {(m.slot, m.cell) for m in swaps} == {(s, (-1, -1)) for s in corners}
    m = swaps[0]
    other.apply(m)
    after = other.snapshot()
    assert after["boards"][seat] == snap["boards"][seat]
    assert after["removed"][m.shape] == snap["removed"][m.shape] + 1
    assert after["taken"] == snap["taken"] and after["waste"] == snap["waste"]
    assert after["turns"][seat] == snap["turns"][seat] + 1


# --- docs/games/citywright.md section 9: market_depletes -------------------------------------------------------


def move_from(game: Game, slot: int) -> Move:
    """The first placement listed for a slot (tiles in line order, the first free pick on offer)."""
    return next(m for m in game.legal_moves(slot=slot, assignments="one") if m.kind == "place")


def test_interpretation_market_depletes_off_in_presets_and_works_when_on():
    assert V11.game["market_depletes"] is False and V10.game["market_depletes"] is False

    # off (the presets): taking copies the tiles; the market never changes within a round
    for rules in (V11, V10):
        g = Game(2, rules, seed=4)
        market = g.snapshot()["market"]
        g.apply(move_from(g, 0))
        assert g.snapshot()["market"] == market
        assert g.snapshot()["taken"][0] == 4
        assert g.line_tiles(4) == g.line_tiles(0) and "" not in g.line_tiles(8)
        while not g.done:
            assert "." not in g.snapshot()["market"]
            g.apply(g.random_move())

    # on: a taken line's tiles leave the market until cleanup
    rules = V11.with_overrides({"game.market_depletes": True})
    g = Game(2, rules, seed=4)
    market = g.snapshot()["market"]
    assert "." not in market
    g.apply(move_from(g, 0))  # seat 1: row 0 from the left
    snap = g.snapshot()
    assert snap["market"] == "...." + market[4:]
    assert snap["taken"][0] == 4
    assert g.line_tiles(4) == ["", "", "", ""]  # the other end of the same line gives nothing
    assert g.line_tiles(8)[0] == "" and "" not in g.line_tiles(8)[1:]  # column 0 lost its first tile

    m = move_from(g, 8)  # seat 2: column 0 from the top gives 3 tiles
    assert sorted(t for t in m.tiles if t) == sorted(market[4::4][:3])
    assert sum(1 for t in m.tiles if not t) == 1
    g.apply(m)
    snap = g.snapshot()
    assert snap["taken"][1] == 3
    assert snap["waste"][1] == 3 - sum(1 for c, t in zip(m.cells, m.tiles, strict=True) if t and on_board(c))
    expect = ["."] * 4 + [("." if i % 4 == 0 else market[i]) for i in range(4, 16)]
    assert snap["market"] == "".join(expect)

    # seat 1: the corner's diagonal lost (0,0); the free pick takes the first such tile row-major
    line = {4 * r + c for r, c in slot_line(16)}
    before = snap["market"]
    options = {before[i] for i in range(16) if before[i] != "." and i not in line}
    m = move_from(g, 16)
    free = m.free
    assert free in options
    assert all(x.free in options for x in g.legal_moves(slot=16, assignments="all") if x.kind == "place")
    g.apply(m)
    snap = g.snapshot()
    after = list(before)
    for i in line:
        after[i] = "."
    first = next(i for i in range(16) if after[i] == free)
    after[first] = "."
    assert snap["market"] == "".join(after)
    assert snap["taken"][0] == 4 + (3 + 1)  # 3 diagonal tiles left + the free pick

    # seat 2: row 0 from the right: no tile at all, nothing lands, the ruler is not recorded
    m = move_from(g, 4)
    assert all(t == "" for t in m.tiles)
    seat, placed = g.current, g.snapshot()["placed"][1]
    g.apply(m)
    snap = g.snapshot()
    assert snap["taken"][seat] == 3 and snap["placed"][seat] == placed

    # and the market is full again after cleanup
    while not g.done:
        s = g.snapshot()
        if s["turn"] == 0:
            assert "." not in s["market"]
        g.apply(g.random_move())


# --- docs/games/citywright.md section 7: achievement placeholders --------------------------------------------


def expected_achievements(rules, snap: dict, seat: int, park_scores: list[int]) -> int:
    cards = {c.name: c for c in rules.achievements()}
    counts = [n for n in snap["placed"][seat].values() if n > 0]
    pts = 0
    if "versatile" in cards and len(counts) >= cards["versatile"].threshold:
        pts += cards["versatile"].points
    if "mastery" in cards and max(counts, default=0) >= cards["mastery"].threshold:
        pts += cards["mastery"].points
    if "green_canopy" in cards:
        c = cards["green_canopy"]
        mine = park_scores[seat]
        got = mine >= c.solo_threshold if len(park_scores) == 1 else mine == max(park_scores)
        pts += c.points if got else 0
    return pts


def test_interpretation_achievement_placeholders():
    for rules in (V11, V10):
        cards = {c.name: c for c in rules.achievements()}
        assert set(cards) == {"versatile", "mastery", "green_canopy"}
        v = cards["versatile"]
        assert (v.kind, v.threshold, v.points) == ("distinct_shapes", 6, 4)
        assert (cards["mastery"].kind, cards["mastery"].threshold, cards["mastery"].points) == ("same_shape", 4, 4)
        g = cards["green_canopy"]
        assert (g.kind, g.district, g.solo_threshold, g.points) == ("highest_district", "P", 40, 4)
    off = V11.with_overrides({"achievements.enabled": False})
    assert off.achievements() == ()
    no_canopy = V11.with_overrides({"achievements.cards.green_canopy.enabled": False})
    assert {c.name for c in no_canopy.achievements()} == {"versatile", "mastery"}

    dropped = Counter()
    earned = Counter()
    for players in (1, 2, 3, 4):
        for seed in range(8):
            games = {name: Game(players, r, seed) for name, r in [("on", V11), ("off", off), ("nc", no_canopy)]}
            for g in games.values():
                play_random(g)
            snaps = {name: g.snapshot() for name, g in games.items()}
            assert snaps["on"] == snaps["off"] == snaps["nc"]  # achievements do not change play
            snap = snaps["on"]
            sc = {name: g.scores() for name, g in games.items()}
            parks = [score_board(b, V11)["park"] for b in snap["boards"]]
            for seat in range(players):
                on, o, nc = sc["on"][seat], sc["off"][seat], sc["nc"][seat]
                assert on["achievements"] == expected_achievements(V11, snap, seat, parks)
                assert nc["achievements"] == expected_achievements(no_canopy, snap, seat, parks)
                assert o["achievements"] == 0
                assert on["total"] - o["total"] == on["achievements"]
                assert on["total"] - nc["total"] == on["achievements"] - nc["achievements"]
                dropped[players] += on["total"] - o["total"]
                earned["canopy"] += (on["achievements"] - nc["achievements"]) // 4
                counts = [n for n in snap["placed"][seat].values() if n > 0]
                earned["versatile"] += len(counts) >= 6
                earned["mastery"] += max(counts, default=0) >= 4
            if players > 1:  # the highest park score always earns Green Canopy
                assert sum(r["total"] for r in sc["on"]) - sum(r["total"] for r in sc["off"]) >= 4
    assert all(dropped[n] > 0 for n in (2, 3, 4))
    assert earned["canopy"] > 0 and earned["versatile"] > 0 and earned["mastery"] > 0

    # the thresholds and points are parameters
    easy = V11.with_overrides({"achievements.cards.versatile.threshold": 1, "achievements.cards.versatile.points": 9})
    g = Game(2, easy, 3)
    play_random(g)
    base = Game(2, V11, 3)
    play_random(base)
    for a, b in zip(g.scores(), base.scores(), strict=True):
        gain = a["achievements"] - b["achievements"]
        assert gain == 9 - (4 if b["shapes_distinct"] >= 6 else 0)


# --- docs/games/citywright.md section 10: seat figures (definitions used in reports) ------------------------------


def test_interpretation_seat_figures_definitions():
    """'Before' = v1.1 with compensation zeroed; 'after' = v1.1; specialists: v1.0 without compensation."""
    assert [V11.compensation(n) for n in (1, 2, 3, 4)] == [(0,), (0, 1), (2, 2, 0), (2, 2, 1, 0)]
    assert [V10.compensation(n) for n in (1, 2, 3, 4)] == [(0,), (0, 0), (0, 0, 0), (0, 0, 0, 0)]
    before = V11.with_overrides({f"game.compensation.{n}": [0] * n for n in (2, 3, 4)})
    for n in (2, 3, 4):
        a, b = Game(n, V11, 17), Game(n, before, 17)
        play_random(a)
        play_random(b)
        for seat, (x, y) in enumerate(zip(a.scores(), b.scores(), strict=True)):
            assert x["compensation"] == V11.compensation(n)[seat] and y["compensation"] == 0
            assert x["total"] - y["total"] == V11.compensation(n)[seat]


# --- rule-set errors and TOML variants -----------------------------------------------------------


@pytest.mark.parametrize(
    "overrides, key",
    [
        ({"scoring.residential.pair_pints": 6}, "scoring.residential.pair_pints"),
        ({"game.market_deplete": True}, "game.market_deplete"),
        ({"achievements.cards.versatile.treshold": 3}, "achievements.cards.versatile.treshold"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_rules_error_unknown_key_names_the_dotted_key(overrides, key):
    with pytest.raises(RulesError, match="unknown key") as e:
        V11.with_overrides(overrides)
    assert str(e.value).startswith(key + ":"), str(e.value)


@pytest.mark.parametrize(
    "overrides, key",
    [
        ({"scoring.park.row_points": "two"}, "scoring.park.row_points"),
        ({"scoring.park.row_points": 2.5}, "scoring.park.row_points"),
        ({"scoring.residential.pair_points": True}, "scoring.residential.pair_points"),
        ({"game.market_depletes": 1}, "game.market_depletes"),
        ({"game.swap_requires_empty_cell": "yes"}, "game.swap_requires_empty_cell"),
        ({"game.swap_players": 2}, "game.swap_players"),
        ({"game.swap_players": ["2"]}, "game.swap_players"),
        ({"game.rounds.3": [3, "4"]}, "game.rounds.3"),
        ({"game.compensation.2": [0, 1, 2]}, "game.compensation.2"),
        ({"scoring.park": 3}, "scoring.park"),
        ({"scoring.residential.largest": "squares"}, "scoring.residential.largest"),
        ({"achievements.enabled": "false"}, "achievements.enabled"),
        ({"achievements.cards.mastery.points": "4"}, "achievements.cards.mastery.points"),
    ],
)
def test_rules_error_bad_value_names_the_dotted_key(overrides, key):
    with pytest.raises(RulesError) as e:
        V11.with_overrides(overrides)
    assert str(e.value).startswith(key + ":"), str(e.value)


def test_rules_error_unknown_preset_and_base():
    with pytest.raises(RulesError, match=r"v0\.9"):
        load_rules("v0.9")
    with pytest.raises(RulesError, match="base"):
        from_mapping({"base": "v0.9"})


def test_load_rules_toml_with_base_v1_0_and_overrides(tmp_path):
    path = tmp_path / "my_variant.toml"
    path.write_text(
        'base = "v1.0"\n'
        "[game]\n"
        "market_depletes = true\n"
        "[scoring.residential]\n"
        "largest_tile_points = 3\n"
        "[achievements.cards.mastery]\n"
        "enabled = false\n",
        encoding="utf-8",
    )
    rules = load_rules(path)
    assert rules.name == "my_variant"
    assert load_rules(str(path)) == rules
    # from the v1.0 base
    assert rules.rounds(2) == (4, 4)
    assert rules.compensation(4) == (0, 0, 0, 0)
    assert rules.scoring["residential"]["largest"] == "tiles"
    # the overrides
    assert rules.game["market_depletes"] is True
    assert rules.scoring["residential"]["largest_tile_points"] == 3
    assert {c.name for c in rules.achievements()} == {"versatile", "green_canopy"}
    # everything else as v1.0
    assert rules == V10.with_overrides(
        {
            "name": "my_variant",
            "game.market_depletes": True,
            "scoring.residential.largest_tile_points": 3,
            "achievements.cards.mastery.enabled": False,
        }
    )
    assert rules != V10
    # the variant plays: 16 turns each at two players, and scores with its own numbers
    g = Game(2, path, seed=1)
    play_random(g)
    assert g.snapshot()["turns"] == [16, 16]
    board = "RRR" + "." * 46
    assert score_board(board, rules)["residential"] == 9


def test_load_rules_toml_errors_name_file_and_key(tmp_path):
    bad_key = tmp_path / "bad_key.toml"
    bad_key.write_text('base = "v1.0"\n[scoring.park]\nrow_pionts = 3\n', encoding="utf-8")
    with pytest.raises(RulesError) as e:
        load_rules(bad_key)
    assert str(bad_key) in str(e.value) and "scoring.park.row_pionts" in str(e.value)
    bad_type = tmp_path / "bad_type.toml"
    bad_type.write_text('base = "v1.0"\n[game]\nsolo_rival = "no"\n', encoding="utf-8")
    with pytest.raises(RulesError, match=r"game\.solo_rival"):
        load_rules(bad_type)
    not_toml = tmp_path / "broken.toml"
    not_toml.write_text("base = \n", encoding="utf-8")
    with pytest.raises(RulesError, match="not valid TOML"):
        load_rules(not_toml)
    with pytest.raises(RulesError, match="cannot read"):
        load_rules(tmp_path / "missing.toml")
