"""Citadels' engine against the rules contract (docs/games/citadels.md): the worked round, every test
vector, one test per rule parameter (named after it), properties of random games, and observations.

Positions come from ``Game.from_position`` (a chosen round start: hands, cities, gold, the deck's top
and the round's rank shuffle), then scripted moves in the contract's text form.
"""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from sim.citadels import engine as E
from sim.citadels.api import Game, IllegalMove, move_text, parse_move
from sim.citadels.game import RESULT_COLUMNS, invariants
from sim.citadels.rules import DECKS, PARAMETERS, PRESETS, RulesError, load_rules

T = {d.name: d.id for d in DECKS["classic66"]}
MANOR, CASTLE, PALACE = T["Manor"], T["Castle"], T["Palace"]
TEMPLE, CHURCH, MONASTERY, CATHEDRAL = T["Temple"], T["Church"], T["Monastery"], T["Cathedral"]
TAVERN, MARKET, TRADING_POST, DOCKS, HARBOR, TOWN_HALL = (
    T["Tavern"], T["Market"], T["Trading Post"], T["Docks"], T["Harbor"], T["Town Hall"],
)  # fmt: skip
WATCHTOWER, PRISON, BATTLEFIELD, FORTRESS = T["Watchtower"], T["Prison"], T["Battlefield"], T["Fortress"]
HAUNTED, KEEP, LAB, SMITHY, OBSERVATORY, GRAVEYARD = (
    T["Haunted City"], T["Keep"], T["Laboratory"], T["Smithy"], T["Observatory"], T["Graveyard"],
)  # fmt: skip
DRAGON_GATE, UNIVERSITY, LIBRARY, GREAT_WALL, SCHOOL = (
    T["Dragon Gate"], T["University"], T["Library"], T["Great Wall"], T["School of Magic"],
)  # fmt: skip
ALL_CARDS = [d.id for d in DECKS["classic66"] for _ in range(d.copies)]


def texts(g: Game) -> list[str]:
    return [move_text(m) for m in g.legal_moves()]


def play(g: Game, *moves: str) -> None:
    for t in moves:
        g.apply(parse_move(t))


def passive_move(legal: list[tuple]) -> tuple:
    """Take gold, keep the first card, finish what is pending, end the turn; never build or name anyone."""
    for kind in (E.K_GOLD, E.K_KEEP, E.K_REDRAW_DONE, E.K_GRAVE_PASS, E.K_END):
        for m in legal:
            if m[0] == kind:
                return m
    return legal[0]


def finish_round(g: Game) -> None:
    """Play the rest of the round passively (until the next round's first decision or the end)."""
    r = g.round
    while not g.done and g.round == r:
        g.apply(passive_move(g.legal_moves()))


def log(g: Game, seat: int) -> list[tuple]:
    return g.observation(seat)["log"]


def position(players=4, rules="official", **kw) -> Game:
    return Game.from_position(players, rules, 1, **kw)


def rest_of_deck(*keep: int) -> list[int]:
    """Every card but one copy of each type in `keep`: to put all but those cards in hands."""
    cards = list(ALL_CARDS)
    for t in keep:
        cards.remove(t)
    return cards


# --- §9: the worked round ------------------------------------------------------------------------


def test_worked_round():
    g = position(
        round=3, crown=0, bank=20, gold=[3, 1, 4, 2],
        hands=[[CASTLE, TEMPLE, DOCKS], [PALACE, MARKET], [CATHEDRAL, PRISON, SMITHY], [FORTRESS, MANOR, KEEP]],
        cities=[[MANOR, TAVERN], [WATCHTOWER, CHURCH], [MARKET, HARBOR], [TEMPLE, PRISON, BATTLEFIELD]],
        deck_top=[LIBRARY, WATCHTOWER, TOWN_HALL, MONASTERY], ranks=[3, 5, 2, 1, 4, 6, 7, 8],
    )  # fmt: skip
    assert g.snapshot()["faceup"] == [5, 2] and g.snapshot()["pile"] == [1, 4, 6, 7, 8]
    steps = [
        (0, "PICK 1,PICK 4,PICK 6,PICK 7,PICK 8", "PICK 7"),
        (1, "PICK 1,PICK 4,PICK 6,PICK 8", "PICK 8"),
        (2, "PICK 1,PICK 4,PICK 6", "PICK 1"),
        (3, "PICK 4,PICK 6", "PICK 4"),
        (2, "GOLD,DRAW,KILL 2,KILL 3,KILL 4,KILL 5,KILL 6,KILL 7,KILL 8", "KILL 7"),
        (2, "GOLD,DRAW", "GOLD"),
        (2, "BUILD 6,BUILD 14,BUILD 20,END", "BUILD 20"),
        (2, "END", "END"),
        (3, "GOLD,DRAW", "GOLD"),
        (3, "BUILD 0,BUILD 18,END", "BUILD 0"),
        (3, "INCOME,END", "INCOME"),
        (3, "END", "END"),
        (1, "GOLD,DRAW,INCOME", "DRAW"),
        (1, "KEEP 13,KEEP 25", "KEEP 25"),
        (1, "INCOME,DESTROY 0 7,DESTROY 1 4,DESTROY 1 13,DESTROY 2 8,DESTROY 3 3,DESTROY 3 14,END", "INCOME"),
        (1, None, "BUILD 8"),  # "BUILD 8, DESTROY ..., END"
        (1, "DESTROY 0 7,DESTROY 1 13,DESTROY 3 3,END", "DESTROY 3 3"),
    ]
    for seat, legal, move in steps:
        assert g.current == seat, move
        if legal is None:
            got = texts(g)
            assert got[0] == "BUILD 8" and got[-1] == "END" and all(t.startswith("DESTROY") for t in got[1:-1])
        else:
            assert texts(g) == legal.split(","), move
        play(g, move)
    snap = g.snapshot()
    assert snap["round"] == 4 and snap["crown"] == 3 and g.current == 3  # P3 chooses first in round 4
    assert snap["gold"] == [3, 0, 1, 2] and snap["bank"] == 24
    assert snap["hands"] == [[CASTLE, TEMPLE, DOCKS], [PALACE, LIBRARY], [CATHEDRAL, PRISON], [FORTRESS, KEEP]]
    assert [[t for t, _ in c] for c in snap["cities"]] == [
        [MANOR, TAVERN], [WATCHTOWER, CHURCH, MARKET], [MARKET, HARBOR, SMITHY], [PRISON, BATTLEFIELD, MANOR],
    ]  # fmt: skip
    assert snap["deck"][:2] == [TOWN_HALL, MONASTERY] and snap["deck"][-2:] == [WATCHTOWER, TEMPLE]
    calls = [e for e in log(g, 0) if e[0] == "call"]
    assert [c[1:] for c in calls] == [(1, 2), (2, -1), (3, -1), (4, 3), (5, -1), (6, -1), (7, -1), (8, 1)]


# --- §10: the test vectors -----------------------------------------------------------------------


def thief_position(ranks):
    """P0 Assassin, P1 Thief, P2 and P3 the next two ranks of P (crown P0); P2 has 5 gold, Market and Docks."""
    return position(
        gold=[2, 2, 5, 2], hands=[[], [], [], []], cities=[[], [], [MARKET, DOCKS], []], ranks=ranks,
    )  # fmt: skip


def test_vector_01_thief():
    g = thief_position([3, 5, 7, 1, 2, 6, 4, 8])  # face down 3, face up 5 and 7; P = 1 2 6 4 8
    play(g, "PICK 1", "PICK 2", "PICK 6", "PICK 4", "KILL 8", "GOLD", "END")
    assert g.current == 1
    robs = [t for t in texts(g) if t.startswith("ROB")]
    assert robs == ["ROB 3", "ROB 4", "ROB 5", "ROB 6", "ROB 7"]  # not 1, 2, nor the murdered 8
    play(g, "ROB 6", "GOLD", "END")  # P1 4 gold
    play(g, "GOLD", "END")  # P3, the King
    assert g.current == 2 and g.snapshot()["gold"][1:3] == [4 + 5, 0]  # taken at the reveal, before P2 decides
    assert ("robbed", 1, 2, 5) in log(g, 0)
    play(g, "GOLD")
    assert g.snapshot()["gold"][2] == 3  # 2 + the Merchant's 1
    play(g, "INCOME")
    assert g.snapshot()["gold"][2] == 5  # two green districts
    # rank 6 face down: no transfer
    g = thief_position([6, 5, 7, 1, 2, 3, 4, 8])
    play(g, "PICK 1", "PICK 2", "PICK 3", "PICK 4", "GOLD", "END", "ROB 6", "GOLD", "END")
    finish_round(g)
    assert not any(e[0] == "robbed" for e in log(g, 0)) and ("call", 6, -1) in log(g, 0)


def test_vector_02_murdered_king():
    # P2 holds the King (crown at P0) and is murdered: no reveal at call 4, the heir takes the crown at the end
    g = position(gold=[2, 2, 2, 2], hands=[[]] * 4, cities=[[]] * 4, ranks=[3, 5, 7, 1, 2, 4, 6, 8])
    play(g, "PICK 1", "PICK 2", "PICK 4", "PICK 6", "KILL 4", "GOLD", "END", "GOLD", "END")
    assert g.snapshot()["called"] == 6 and g.snapshot()["crown"] == 0  # call 4 passed silently
    assert ("call", 4, -1) in log(g, 0)
    finish_round(g)
    assert g.snapshot()["crown"] == 2 and ("heir", 2) in log(g, 0)
    # the King face down: the crown stays
    g = position(gold=[2, 2, 2, 2], hands=[[]] * 4, cities=[[]] * 4, ranks=[4, 5, 7, 1, 2, 3, 6, 8])
    finish_round(g)
    assert g.snapshot()["crown"] == 0
    # seed-summary with the King face down (face up first: 5, 7 up, then 4 down): the crown passes to P1
    g = position(rules="seed-summary", round=2, gold=[2, 2, 2, 2], hands=[[]] * 4, cities=[[]] * 4,
                 ranks=[5, 7, 4, 1, 2, 3, 6, 8])  # fmt: skip
    assert g.snapshot()["facedown_removed"] == [4]
    finish_round(g)
    assert g.snapshot()["crown"] == 1


def warlord_bishop_position(kill):
    g = position(
        gold=[2, 5, 2, 2], hands=[[]] * 4, cities=[[], [], [], [TEMPLE, MANOR]], ranks=[2, 3, 6, 1, 4, 5, 7, 8],
    )  # fmt: skip
    play(g, "PICK 1", "PICK 8", "PICK 4", "PICK 5", kill, "GOLD", "END")
    while g.current != 1 or g.snapshot()["called"] != 8:
        g.apply(passive_move(g.legal_moves()))
    play(g, "GOLD")
    return g


def test_vector_03_warlord_vs_bishop():
    g = warlord_bishop_position("KILL 7")
    assert not any(t.startswith("DESTROY 3") for t in texts(g))
    g = warlord_bishop_position("KILL 5")
    assert {"DESTROY 3 0", "DESTROY 3 3"} <= set(texts(g))


def test_vector_04_completed_city():
    eight = [MANOR, TEMPLE, TAVERN, WATCHTOWER, CHURCH, MARKET, PRISON, TRADING_POST]
    for city, legal in ((eight, False), (eight[:7], True)):
        g = position(gold=[2, 20, 2, 2], hands=[[]] * 4, cities=[[], [], city, []], ranks=[2, 3, 6, 1, 4, 5, 7, 8])
        play(g, "PICK 1", "PICK 8", "PICK 4", "PICK 5")
        while g.current != 1 or g.snapshot()["called"] != 8:
            g.apply(passive_move(g.legal_moves()))
        play(g, "GOLD")
        assert any(t.startswith("DESTROY 2 ") for t in texts(g)) == legal


def test_vector_05_great_wall():
    g = position(
        gold=[2, 4, 2, 2], hands=[[]] * 4, cities=[[], [], [GREAT_WALL, CASTLE, KEEP, TAVERN], []],
        deck_top=[MANOR, MANOR], ranks=[2, 3, 6, 1, 4, 5, 7, 8],
    )  # fmt: skip
    play(g, "PICK 1", "PICK 8", "PICK 4", "PICK 5")
    while g.current != 1 or g.snapshot()["called"] != 8:
        g.apply(passive_move(g.legal_moves()))
    play(g, "DRAW", "KEEP 0")
    assert g.snapshot()["gold"][1] == 4
    destroys = [t for t in texts(g) if t.startswith("DESTROY 2 ")]
    assert destroys == [f"DESTROY 2 {CASTLE}", f"DESTROY 2 {TAVERN}"]  # Great Wall costs 5, the Keep never
    assert E.destroy_cost(g.st, g.tables.rp, g.tables.districts, 2, CASTLE) == 4
    assert E.destroy_cost(g.st, g.tables.rp, g.tables.districts, 2, TAVERN) == 1
    assert E.destroy_cost(g.st, g.tables.rp, g.tables.districts, 2, GREAT_WALL) == 5


def capped_one_round(city, rules="official"):
    """A one-round game (max_rounds = 1) ending capped with P0's city as given: its final score."""
    r = load_rules(rules).with_overrides({"max_rounds": 1})
    g = Game.from_position(4, r, 1, gold=[2] * 4, hands=[[]] * 4, cities=[city, [], [], []])
    finish_round(g)
    assert g.done and g.scores()[0]["capped"]
    return g.scores()[0]


def test_vector_06_haunted_city_in_the_final_round():
    base = [(MANOR, 0), (TEMPLE, 0), (TAVERN, 0), (KEEP, 0)]
    late = capped_one_round([*base, (HAUNTED, 1)])  # built in round 1, the last one
    assert (late["colour_bonus"], late["total"]) == (0, 10)
    early = capped_one_round([*base, (HAUNTED, 0)])
    assert (early["colour_bonus"], early["total"]) == (3, 13)


def test_vector_07_five_colours_school_of_magic():
    s = capped_one_round([MANOR, TEMPLE, TAVERN, WATCHTOWER, SCHOOL])
    assert (s["colour_bonus"], s["total"]) == (3, 3 + 1 + 1 + 1 + 6 + 3)
    g = position(gold=[2] * 4, hands=[[]] * 4, cities=[[MANOR, TEMPLE, TAVERN, WATCHTOWER, SCHOOL], [], [], []],
                 ranks=[2, 3, 6, 4, 1, 5, 7, 8])  # fmt: skip
    play(g, "PICK 4", "PICK 1", "PICK 5", "PICK 7", "GOLD", "END")
    assert g.current == 0 and E.income_amount(g.st, g.tables.rp, g.tables.districts, 0, 4) == 2
    play(g, "INCOME")
    assert ("income", 0, 2) in log(g, 0)


def test_vector_08_two_completions_in_one_round():
    p1_city = [MANOR, TEMPLE, TAVERN, WATCHTOWER, CASTLE, CHURCH, MARKET]
    p3_city = [PALACE, MONASTERY, DOCKS, PRISON, HARBOR, BATTLEFIELD]
    g = position(
        gold=[2, 4, 2, 13], hands=[[], [TRADING_POST], [], [CATHEDRAL, TOWN_HALL, FORTRESS]],
        cities=[[], p1_city, [], p3_city], ranks=[1, 2, 3, 4, 5, 6, 7, 8],
    )  # fmt: skip
    play(g, "PICK 8", "PICK 4", "PICK 5", "PICK 7")
    play(g, "GOLD", f"BUILD {TRADING_POST}", "END")  # P1, King: the 8th district
    assert g.snapshot()["final_round"] and g.snapshot()["first_completer"] == 1
    play(g, "GOLD", "END")  # P2, Bishop
    play(g, "GOLD", f"BUILD {CATHEDRAL}", f"BUILD {TOWN_HALL}", f"BUILD {FORTRESS}", "END")  # P3: 7th, 8th, 9th
    play(g, "GOLD")  # P0, Warlord
    assert not any(t.startswith(("DESTROY 1 ", "DESTROY 3 ")) for t in texts(g))
    play(g, "END")
    assert g.done and not g.scores()[0]["capped"]
    s = g.scores()
    assert s[1]["completion_bonus"] == 4 and s[3]["completion_bonus"] == 2
    assert ("complete", 1) in log(g, 0) and ("complete", 3) in log(g, 0)


def test_vector_09_two_player_selection():
    g = position(players=2, gold=[2, 2], hands=[[], []], cities=[[], []], ranks=[5, 2, 8, 1, 3, 6, 4, 7])
    assert g.current == 0 and texts(g) == [f"PICK {r}" for r in (1, 2, 3, 4, 6, 7, 8)]
    play(g, "PICK 4")
    assert g.current == 1
    play(g, "PICK 7")
    assert g.current == 1 and texts(g) == [f"DISCARD_CHAR {r}" for r in (1, 2, 3, 6, 8)]
    play(g, "DISCARD_CHAR 1")
    assert g.current == 0 and texts(g) == ["PICK 2", "PICK 3", "PICK 6", "PICK 8"]
    play(g, "PICK 8", "DISCARD_CHAR 2")
    assert g.current == 1 and texts(g) == ["PICK 3", "PICK 6"]
    play(g, "PICK 6")
    assert g.characters(0) == [4, 8] and g.characters(1) == [6, 7]
    order = []
    while g.round == 1:
        order.append((g.snapshot()["called"], g.current))
        g.apply(passive_move(g.legal_moves()))
    assert list(dict.fromkeys(order)) == [(4, 0), (6, 1), (7, 1), (8, 0)]


def test_vector_10_three_player_order():
    g = position(players=3, crown=1, gold=[2] * 3, hands=[[]] * 3, cities=[[]] * 3)
    seats = []
    while g.phase == "select":
        seats.append(g.current)
        g.apply(g.legal_moves()[0])
    assert seats == [1, 2, 0, 1, 2, 0]
    assert all(len(g.characters(p)) == 2 for p in range(3))
    assert sum(w == -1 for w in g.snapshot()["holder"]) == 2  # one face down at removal, one left over


def test_vector_11_seven_player_rule():
    g = position(players=7, gold=[2] * 7, hands=[[]] * 7, cities=[[]] * 7, ranks=[2, 1, 3, 4, 6, 7, 8, 5])
    play(g, "PICK 1", "PICK 3", "PICK 4", "PICK 6", "PICK 7", "PICK 8")
    assert g.current == 6 and texts(g) == ["PICK 2", "PICK 5"]
    assert ("facedown_seen", 2) in log(g, 6) and ("facedown_seen", 2) not in log(g, 0)
    play(g, "PICK 2")
    assert g.characters(6) == [2] and g.holder(5) == -1


def test_vector_12_deck_exhaustion():
    others = rest_of_deck(TEMPLE, SMITHY)
    hands = [others[i::4] for i in range(4)]
    g = position(gold=[2] * 4, hands=hands, cities=[[SMITHY], [], [], []], ranks=[2, 3, 5, 1, 4, 6, 7, 8])
    assert g.snapshot()["deck"] == [TEMPLE]
    play(g, "PICK 8", "PICK 1", "PICK 4", "PICK 7")
    while g.current != 3 or g.snapshot()["called"] != 7:
        g.apply(passive_move(g.legal_moves()))
    n = g.snapshot()["hands"][3].count(TEMPLE)
    play(g, "DRAW")  # the Architect: one card, kept without a decision; the bonus draw finds none
    assert g.snapshot()["deck"] == [] and g.snapshot()["hands"][3].count(TEMPLE) == n + 1
    assert ("architect_draw", 3, 0) in log(g, 0)
    play(g, "END")
    assert g.current == 0 and "DRAW" not in texts(g) and "SMITHY" not in texts(g) and texts(g)[0] == "GOLD"
    # the Magician with an empty deck: REDRAW Manor, Keep; both go under the deck and come back
    rest = rest_of_deck(MANOR, KEEP)
    g = position(gold=[2] * 4, hands=[[MANOR, KEEP], *(rest[i::3] for i in range(3))], cities=[[]] * 4,
                 ranks=[2, 1, 5, 3, 4, 6, 7, 8])  # fmt: skip
    play(g, "PICK 3", "PICK 4", "PICK 6", "PICK 7")
    assert g.current == 0 and g.snapshot()["deck"] == []
    play(g, "REDRAW 0")
    assert texts(g) == ["REDRAW 18", "REDRAW_DONE"]
    play(g, "REDRAW 18", "REDRAW_DONE")
    assert ("redrew", (MANOR, KEEP), (MANOR, KEEP)) in log(g, 0) and ("redraw", 0, 2) in log(g, 1)
    assert g.snapshot()["hands"][0] == [MANOR, KEEP] and g.snapshot()["deck"] == []


def graveyard_position(p2_gold, target):
    g = position(
        gold=[2, 0, p2_gold, 2], hands=[[]] * 4, cities=[[], [], [GRAVEYARD], [DOCKS]],
        ranks=[3, 2, 6, 1, 8, 7, 4, 5],
    )  # fmt: skip
    play(g, "PICK 1", "PICK 8", "PICK 7", "PICK 4", "KILL 7", "GOLD", "END", "GOLD", "END")
    assert g.current == 1
    play(g, "GOLD", target)
    return g


def test_vector_13_graveyard():
    g = graveyard_position(1, f"DESTROY 3 {DOCKS}")
    assert g.current == 2 and texts(g) == ["GRAVE_TAKE", "GRAVE_PASS"]
    assert g.observation(2)["decision"] == {"kind": "graveyard", "card": DOCKS}
    play(g, "GRAVE_TAKE")
    snap = g.snapshot()
    assert snap["gold"][2] == 0 and snap["hands"][2] == [DOCKS] and ("grave", 2, DOCKS, 1) in log(g, 3)
    g = graveyard_position(0, f"DESTROY 3 {DOCKS}")  # no gold: no window
    assert g.phase != "graveyard" and g.snapshot()["deck"][-1] == DOCKS


def test_vector_13_graveyard_destroys_itself():
    g = position(
        gold=[2, 2, 1, 2], hands=[[]] * 4, cities=[[], [], [GRAVEYARD], []], ranks=[3, 2, 6, 1, 8, 7, 4, 5],
    )  # fmt: skip
    play(g, "PICK 1", "PICK 8", "PICK 7", "PICK 4", "KILL 7", "GOLD", "END", "GOLD", "END", "GOLD")
    play(g, f"DESTROY 2 {GRAVEYARD}")  # cost 5 - 1 = 4: the Graveyard cannot save itself
    assert g.phase != "graveyard" and g.snapshot()["deck"][-1] == GRAVEYARD and g.snapshot()["gold"][1] == 0


def test_vector_14_library_observatory():
    g = position(gold=[2] * 4, hands=[[]] * 4, cities=[[LIBRARY, OBSERVATORY], [], [], []],
                 deck_top=[TAVERN, MARKET, DOCKS], ranks=[2, 3, 6, 4, 1, 5, 7, 8])  # fmt: skip
    play(g, "PICK 4", "PICK 1", "PICK 5", "PICK 7", "GOLD", "END")
    play(g, "DRAW")
    assert texts(g) == ["KEEP 7,8", "KEEP 7,10", "KEEP 8,10"]
    play(g, "KEEP 7,10")
    assert g.snapshot()["hands"][0] == [TAVERN, DOCKS] and g.snapshot()["deck"][-1] == MARKET
    g = position(gold=[2] * 4, hands=[[]] * 4, cities=[[LIBRARY], [], [], []],
                 deck_top=[TAVERN, MARKET, DOCKS], ranks=[2, 3, 6, 4, 1, 5, 7, 8])  # fmt: skip
    play(g, "PICK 4", "PICK 1", "PICK 5", "PICK 7", "GOLD", "END", "DRAW")
    assert g.snapshot()["hands"][0] == [TAVERN, MARKET] and "END" in texts(g)  # both kept, no decision


def tie_scores(rules, a_city, b_city, gold, first_completer=-1):
    g = Game.from_position(2, rules, 1, gold=gold, hands=[[], []], cities=[a_city, b_city])
    g.st[E.ST_FIRST_COMPLETER] = first_completer
    return g.scores()


FIVE_27 = [PALACE, CATHEDRAL, TOWN_HALL, FORTRESS, LIBRARY, TEMPLE]  # 27 points + 3 colours = 30
FIVE_27_TOO = [PALACE, CATHEDRAL, TOWN_HALL, FORTRESS, GREAT_WALL, TEMPLE]  # the same points, other cards
EIGHT_26 = [CASTLE, PALACE, MONASTERY, CATHEDRAL, HARBOR, MARKET, TAVERN, CHURCH]  # 26 + 4 first = 30


def test_vector_15_tie_break():
    s = tie_scores("official", FIVE_27, EIGHT_26, [1, 3], first_completer=1)
    assert [x["total"] for x in s] == [30, 30] and [x["win_share"] for x in s] == [1.0, 0.0]  # 27 > 26 points
    s = tie_scores("official", FIVE_27, FIVE_27_TOO, [3, 1])
    assert [x["win_share"] for x in s] == [1.0, 0.0]  # same points, more gold
    s = tie_scores("official", FIVE_27, FIVE_27_TOO, [2, 2])
    assert [x["win_share"] for x in s] == [0.5, 0.5] and [x["rank"] for x in s] == [1, 1]
    s = tie_scores("seed-summary", FIVE_27, EIGHT_26, [1, 3], first_completer=1)
    assert [x["win_share"] for x in s] == [0.5, 0.5]


def test_vector_16_seed_preset():
    g = position(rules="seed-summary", gold=[2, 2, 2, 15], bank=1, hands=[[]] * 4, cities=[[]] * 4, round=2,
                 ranks=[2, 3, 5, 1, 4, 6, 7, 8])  # fmt: skip
    assert g.current == 1  # the crown holder took the top card (1) without a decision
    assert g.characters(0) == [1]
    while g.current != 0:
        g.apply(passive_move(g.legal_moves()))
    play(g, "GOLD")
    assert g.snapshot()["gold"][0] == 3 and g.snapshot()["bank"] == 0  # a bank of 1 pays 1
    # round 1 with 4 players: 8 ranks in P, a forced first pick, 4 cards face down
    g = Game(4, "seed-summary", 3)
    first = log(g, 0)
    assert not any(e[0] in ("faceup", "facedown") for e in first)
    assert [e for e in first if e[0] == "offer"][0] and len([e for e in first if e[0] == "offer"][0][1]) == 1
    while g.phase == "select":
        g.apply(g.legal_moves()[0])
    assert sum(h >= 0 for h in g.snapshot()["holder"]) == 4
    # the Architect builds Temple for 0 and Palace for 4; the Warlord may not destroy in his own city
    g = position(rules="seed-summary", round=2, gold=[2, 4, 2, 2], hands=[[TEMPLE, PALACE], [], [], []],
                 cities=[[], [MANOR], [MANOR], []], ranks=[2, 3, 5, 7, 8, 1, 4, 6])  # fmt: skip
    assert g.characters(0) == [7]
    play(g, "PICK 8")
    while g.current != 0:
        g.apply(passive_move(g.legal_moves()))
    play(g, "GOLD", f"BUILD {TEMPLE}", f"BUILD {PALACE}")
    assert g.snapshot()["gold"][0] == 0
    assert ("build", 0, TEMPLE, 0) in log(g, 0) and ("build", 0, PALACE, 4) in log(g, 0)
    while g.current != 1:
        g.apply(passive_move(g.legal_moves()))
    play(g, "GOLD")
    destroys = [t for t in texts(g) if t.startswith("DESTROY")]
    assert f"DESTROY 2 {MANOR}" in destroys and not any(t.startswith("DESTROY 1 ") for t in destroys)
