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

from boardlab.sim.citadels import engine as E
from boardlab.sim.citadels.api import Game, IllegalMove, move_text, parse_move
from boardlab.sim.citadels.game import RESULT_COLUMNS, invariants
from boardlab.sim.citadels.rules import DECKS, PARAMETERS, PRESETS, RulesError, load_rules

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
    assert len(next(e for e in first if e[0] == "offer")[1]) == 1
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


# --- one test per rule parameter (§1.1; the [interpretation]s I1..I20 among them) --------------------


def one_line_error(spec) -> str:
    with pytest.raises(RulesError) as e:
        load_rules(spec)
    assert "\n" not in str(e.value)
    return str(e.value)


def test_every_parameter_has_its_test():
    names = {name[len("test_") :] for name in globals() if name.startswith("test_")}
    assert set(PARAMETERS) <= names, sorted(set(PARAMETERS) - names)


def test_players_allowed():
    with pytest.raises(RulesError, match=r"allow 2\.\.7 players, got 8"):
        Game(8, "official", 1)
    assert Game(8, "seed-summary", 1).players == 8
    assert "2..3" in one_line_error_for_players({"players_allowed": [2, 3]}, 4)
    assert "ascending list" in one_line_error({"players_allowed": [3, 2]})
    assert "faceup_count.8: missing" in one_line_error({"players_allowed": [2, 3, 4, 5, 6, 7, 8]})
    eight = {"players_allowed": [2, 3, 4, 5, 6, 7, 8], "faceup_count": {"8": 0}, "facedown_count": {"8": 0}}
    assert "blind_draw2" in one_line_error(eight)


def one_line_error_for_players(spec, players) -> str:
    with pytest.raises(RulesError) as e:
        Game(players, spec, 1)
    assert "\n" not in str(e.value)
    return str(e.value)


def test_district_deck():
    deck = DECKS["classic66"]
    assert (len(deck), sum(d.copies for d in deck)) == (28, 66)
    per_colour = {c: sum(d.copies for d in deck if d.colour == c) for c in ("yellow", "blue", "green", "red", "purple")}
    assert per_colour == {"yellow": 12, "blue": 11, "green": 20, "red": 11, "purple": 12}
    assert [(d.cost, d.points) for d in deck if d.points != d.cost] == [(6, 8), (6, 8)]
    assert "expected one of classic66" in one_line_error({"district_deck": "deluxe84"})


def test_bank_gold():
    assert Game(4, "official", 1).snapshot()["bank"] == 30 - 4 * 2
    assert Game(4, "seed-summary", 1).snapshot()["bank"] == 22 - 4 * 2


def bank_position(rules, gold):
    g = Game.from_position(4, rules, 1, gold=gold, hands=[[]] * 4, cities=[[]] * 4, ranks=[2, 3, 5, 1, 4, 6, 7, 8])
    play(g, "PICK 1", "PICK 4", "PICK 6", "PICK 7")
    return g


def test_bank_shortfall():
    g = bank_position("official", [2, 2, 2, 23])  # bank 1
    play(g, "GOLD")
    assert g.snapshot()["gold"][0] == 3 and g.snapshot()["bank"] == 0 and ("gold", 0, 1) in log(g, 1)
    g = bank_position(load_rules("official").with_overrides({"bank_shortfall": "unlimited"}), [2, 2, 2, 24])
    play(g, "GOLD")
    assert g.snapshot()["gold"][0] == 4 and g.snapshot()["bank"] == -2
    assert invariants(g) == []


def test_starting_gold():
    g = Game(3, load_rules("official").with_overrides({"starting_gold": 5}), 1)
    assert g.snapshot()["gold"] == [5, 5, 5]


def test_starting_hand():
    assert [len(h) for h in Game(4, "official", 1).snapshot()["hands"]] == [4] * 4
    assert [len(h) for h in Game(4, "seed-summary", 1).snapshot()["hands"]] == [2] * 4
    g = Game(4, "official", 9)  # dealt one at a time: seat p gets deck cards p, p + 4, p + 8, p + 12
    deck = g.snapshot()["deck"]
    assert len(deck) == 66 - 16 and all(len(log(g, p)[1][1]) == 4 for p in range(4))


def test_first_crown_seat():
    g = Game(4, load_rules("official").with_overrides({"first_crown_seat": 1}), 1)
    assert g.snapshot()["crown"] == 1 and g.current == 1
    assert "below the smallest player count" in one_line_error({"first_crown_seat": 2})


def removal_events(g: Game) -> list[tuple]:
    return [e for e in log(g, 0) if e[0] in ("facedown", "faceup", "king_returned")]


def test_remove_in_round_1():
    assert [e[0] for e in removal_events(Game(4, "official", 1))].count("faceup") == 2
    assert removal_events(Game(4, "seed-summary", 1)) == []
    assert removal_events(Game(3, "seed-summary", 1)) == [("facedown", 1)]  # 2-3 players still remove (I18)
    g = Game(4, "seed-summary", 1)
    finish_round(g)
    kinds = [e[0] for e in removal_events(g)]  # round 2 removes: face up first (with any King returned)
    assert [k for k in kinds if k != "king_returned"] == ["faceup", "faceup", "facedown"]


def test_removal_order():
    ranks = [2, 3, 5, 1, 4, 6, 7, 8]
    for rules, faceup, facedown in (("official", [3, 5], [2]), ("seed-summary", [2, 3], [5])):
        g = Game.from_position(4, rules, 1, round=2, gold=[2] * 4, hands=[[]] * 4, cities=[[]] * 4, ranks=ranks)
        assert (g.snapshot()["faceup"], g.snapshot()["facedown_removed"]) == (faceup, facedown)
    # the King never ends face up: he is replaced, put back and P shuffled (chance event c)
    g = Game.from_position(
        4, "official", 1, gold=[2] * 4, hands=[[]] * 4, cities=[[]] * 4, ranks=[2, 4, 3, 1, 5, 6, 7, 8]
    )
    assert g.snapshot()["faceup"][0] == 3 and 4 not in g.snapshot()["faceup"] and ("king_returned",) in log(g, 0)


def first_offer(g: Game) -> tuple:
    return g.observation(g.current)["decision"]["offer"]


def test_faceup_count():
    sizes = {n: len(first_offer(Game(n, "official", 1))) for n in range(2, 8)}
    assert sizes == {2: 7, 3: 7, 4: 5, 5: 6, 6: 7, 7: 7}
    g = Game(4, load_rules("official").with_overrides({"faceup_count": {"4": 1}}), 1)
    assert len(first_offer(g)) == 6
    assert "leave too few ranks" in one_line_error({"faceup_count": {"7": 1}})


def test_facedown_count():
    g = Game(4, load_rules("official").with_overrides({"facedown_count": {"4": 0}}), 1)
    assert len(first_offer(g)) == 6 and ("facedown", 1) not in log(g, 0)
    g = Game(8, "seed-summary", 1)
    finish_round(g)
    assert removal_events(g) == []  # 8 players never remove a card


def test_selection_mode():
    # blind_draw2 (I18): the crown's take is forced; later choosers see at most 2 cards
    g = Game(5, "seed-summary", 4)
    finish_round(g)
    offers = [e[1] for p in range(5) for e in log(g, p) if e[0] == "offer"]
    # round 1 (8 ranks): the crown's take, then 2 each; round 2 so far: the crown's take and the next offer
    assert sorted(len(o) for o in offers) == [1, 1, 2, 2, 2, 2, 2]
    assert sum(e[0] == "chose" for e in log(g, 0)) == 5 + 1
    # the 7th chooser of a 7-player game also gets the face-down card
    g = Game.from_position(7, "seed-summary", 2, round=2, gold=[2] * 7, hands=[[]] * 7, cities=[[]] * 7)
    while g.current != 6:
        g.apply(g.legal_moves()[0])
    assert len(first_offer(g)) == 2 and any(e[0] == "facedown_seen" for e in log(g, 6))
    # 2-3 players always choose openly
    assert len(first_offer(Game(3, "seed-summary", 1))) == 7
    assert "8 players need selection_mode blind_draw2" in one_line_error(
        {"base": "seed-summary", "selection_mode": "open"}
    )


def test_crown_rule():
    # rotate_unless_king: with the King held the crown goes to him, not to the next seat
    g = Game.from_position(4, "seed-summary", 1, round=2, crown=0, gold=[2] * 4, hands=[[]] * 4, cities=[[]] * 4,
                           ranks=[2, 3, 5, 6, 4, 1, 7, 8])  # fmt: skip
    finish_round(g)
    king = next(e[1] for e in log(g, 0) if e[0] == "call" and e[1] == 4)
    assert king == 4 and g.snapshot()["crown"] == next(e[2] for e in log(g, 0) if e[:2] == ("call", 4))
    # rotate from the round-start holder when nobody held the King (see also test_vector_02)
    g = Game.from_position(4, "seed-summary", 1, round=2, crown=3, gold=[2] * 4, hands=[[]] * 4, cities=[[]] * 4,
                           ranks=[5, 7, 4, 1, 2, 3, 6, 8])  # fmt: skip
    finish_round(g)
    assert g.snapshot()["crown"] == 0


def architect_position(rules, gold, hand):
    g = Game.from_position(4, rules, 1, gold=gold, hands=[hand, [], [], []], cities=[[]] * 4,
                           ranks=[2, 3, 5, 7, 1, 4, 6, 8])  # fmt: skip
    play(g, "PICK 7", "PICK 1", "PICK 4", "PICK 6")
    while g.current != 0:
        g.apply(passive_move(g.legal_moves()))
    return g


def test_architect_discount():
    g = architect_position("official", [3, 2, 2, 2], [TEMPLE, MANOR, PALACE])
    play(g, "GOLD")  # 5 gold; the post-action 2 cards come too
    assert f"BUILD {PALACE}" in texts(g)
    play(g, f"BUILD {TEMPLE}")
    assert f"BUILD {MANOR}" in texts(g) and f"BUILD {PALACE}" not in texts(g)  # 4 gold: the Palace costs 5
    g = architect_position(load_rules("official").with_overrides({"architect_discount": 2}), [1, 2, 2, 2],
                           [TEMPLE, MANOR, PALACE])  # fmt: skip
    play(g, "GOLD", f"BUILD {TEMPLE}", f"BUILD {PALACE}")  # free, then 3
    assert g.snapshot()["gold"][0] == 0
    assert ("build", 0, TEMPLE, 0) in log(g, 0) and ("build", 0, PALACE, 3) in log(g, 0)


def warlord_position(rules, cities, gold=(2, 2, 2, 2), hand=()):
    """P3 Warlord (crown P0), P0 Assassin, P1 King, P2 Merchant; the Assassin names nobody present."""
    g = Game.from_position(4, rules, 1, gold=list(gold), hands=[[], [], [], list(hand)], cities=cities,
                           ranks=[2, 3, 5, 1, 4, 6, 7, 8])  # fmt: skip
    play(g, "PICK 1", "PICK 4", "PICK 6", "PICK 8", "KILL 7", "GOLD", "END")
    while g.current != 3:
        g.apply(passive_move(g.legal_moves()))
    return g


def test_warlord_timing():
    g = warlord_position("official", [[], [TAVERN], [], []])
    assert not any(t.startswith("DESTROY") for t in texts(g))  # only after the action (I7)
    play(g, "GOLD", f"DESTROY 1 {TAVERN}")
    assert g.round == 2  # the destroy ended the turn, and with it the round
    r = load_rules("official").with_overrides({"warlord_timing": "any_time"})
    g = warlord_position(r, [[], [TAVERN, TEMPLE], [], []])
    assert f"DESTROY 1 {TAVERN}" in texts(g)
    play(g, f"DESTROY 1 {TAVERN}")
    assert g.current == 3 and "GOLD" in texts(g) and not any(t.startswith("DESTROY") for t in texts(g))
    assert g.observation(0)["turn"]["destroyed"]


def test_warlord_may_target_own():
    g = warlord_position("official", [[], [], [], [TAVERN]])
    play(g, "GOLD")
    assert f"DESTROY 3 {TAVERN}" in texts(g)
    g = warlord_position(
        load_rules("official").with_overrides({"warlord_may_target_own": False}), [[], [], [], [TAVERN]]
    )
    play(g, "GOLD")
    assert f"DESTROY 3 {TAVERN}" not in texts(g)


def test_complete_size():
    r = load_rules("official").with_overrides({"complete_size": 7, "name": "short"})
    six = [MANOR, TEMPLE, TAVERN, WATCHTOWER, CASTLE, CHURCH]
    g = Game.from_position(4, r, 1, gold=[2, 2, 2, 2], hands=[[MARKET], [], [], []], cities=[six, [], [], []],
                           ranks=[2, 3, 5, 4, 1, 6, 7, 8])  # fmt: skip
    play(g, "PICK 4", "PICK 1", "PICK 6", "PICK 7", "GOLD", "END", "GOLD", f"BUILD {MARKET}")
    assert g.snapshot()["final_round"] and ("complete", 0) in log(g, 1)
    finish_round(g)
    assert g.done and g.scores()[0]["completion_bonus"] == 4


def test_tiebreak():
    two_purple = [DRAGON_GATE, UNIVERSITY]  # 16 points, cost 12
    three_colours = [PALACE, CATHEDRAL, TOWN_HALL, TEMPLE]  # 16 points, cost 16
    for tie, shares in (
        ("districts_gold_shared", [0.5, 0.5]),  # I12: points equal (8 each for the two), gold equal
        ("cost_gold_shared", [0.0, 1.0]),  # printed cost 12 < 16
        ("shared", [0.5, 0.5]),
        ("districts_gold_draw", [0.0, 0.0]),  # I13 alternative: a full tie has no winner
    ):
        s = tie_scores(load_rules("official").with_overrides({"tiebreak": tie}), two_purple, three_colours, [2, 2])
        assert [x["total"] for x in s] == [16, 16] and [x["win_share"] for x in s] == shares, tie
        assert s[0]["purple_extras"] == 4 and s[0]["printed_cost"] == 12


def test_post_action_auto():
    g = Game.from_position(4, "official", 1, gold=[2] * 4, hands=[[]] * 4, cities=[[]] * 4,
                           ranks=[2, 3, 5, 6, 7, 1, 4, 8])  # fmt: skip
    play(g, "PICK 6", "PICK 7", "PICK 1", "PICK 4", "GOLD", "END", "GOLD", "END")  # P2 Assassin, P3 King
    play(g, "GOLD")  # P0, Merchant: 2 + 1 at once
    assert g.snapshot()["gold"][0] == 5 and ("merchant_bonus", 0, 1) in log(g, 1)
    play(g, "END", "GOLD")  # P1, Architect: 2 cards at once
    assert len(g.snapshot()["hands"][1]) == 2 and ("architect_draw", 1, 2) in log(g, 0)
    assert "adds decisions" in one_line_error({"post_action_auto": False})


def test_destroyed_to():
    g = warlord_position("official", [[], [TAVERN], [], []])
    play(g, "GOLD", f"DESTROY 1 {TAVERN}")
    assert g.snapshot()["deck"][-1] == TAVERN and g.observation(0)["discard_size"] == 0
    g = warlord_position(load_rules("official").with_overrides({"destroyed_to": "removed"}), [[], [TAVERN], [], []])
    play(g, "GOLD", f"DESTROY 1 {TAVERN}")
    assert g.snapshot()["out_of_game"] == [TAVERN] and g.observation(0)["discard_size"] == 1
    assert invariants(g) == []


def lab_position(rules):
    g = Game.from_position(4, rules, 1, gold=[2] * 4, hands=[[DOCKS], [], [], []], cities=[[LAB], [], [], []],
                           ranks=[2, 3, 5, 1, 4, 6, 7, 8])  # fmt: skip
    play(g, "PICK 1", "PICK 4", "PICK 6", "PICK 7")
    assert texts(g)[-1] == f"LAB {DOCKS}"  # before the action too
    play(g, f"LAB {DOCKS}")
    return g


def test_lab_discard_to():
    g = lab_position("official")
    assert g.snapshot()["deck"][-1] == DOCKS and g.snapshot()["gold"][0] == 3
    assert ("lab", 0, 1) in log(g, 1) and ("lab_card", DOCKS) in log(g, 0) and ("lab_card", DOCKS) not in log(g, 1)
    assert not any(t.startswith("LAB") for t in texts(g))  # once per turn
    g = lab_position(load_rules("official").with_overrides({"lab_discard_to": "removed"}))
    assert g.snapshot()["out_of_game"] == [DOCKS] and invariants(g) == []


def test_bottom_order():
    g = Game.from_position(4, "official", 1, gold=[2] * 4, hands=[[DOCKS, TEMPLE], [], [], []],
                           cities=[[OBSERVATORY], [], [], []], deck_top=[MONASTERY, TAVERN, MONASTERY],
                           ranks=[2, 1, 5, 3, 4, 6, 7, 8])  # fmt: skip
    play(g, "PICK 3", "PICK 4", "PICK 6", "PICK 7", "DRAW")
    assert texts(g) == [f"KEEP {MONASTERY}", f"KEEP {TAVERN}"]
    play(g, f"KEEP {MONASTERY}")  # the earlier Monastery is kept: Tavern, Monastery go under, in draw order
    assert g.snapshot()["deck"][-2:] == [TAVERN, MONASTERY]
    assert ("kept", (MONASTERY,), (TAVERN, MONASTERY)) in log(g, 0)
    play(g, f"REDRAW {TEMPLE}", f"REDRAW {DOCKS}", "REDRAW_DONE")  # under the deck in type order
    assert g.snapshot()["deck"][-2:] == [TEMPLE, DOCKS]
    assert "adds decisions" in one_line_error({"bottom_order": "player_chosen"})


def empty_deck_position(rules):
    cards = rest_of_deck()
    g = Game.from_position(4, rules, 1, gold=[2] * 4, hands=[cards[i::4] for i in range(4)], cities=[[]] * 4,
                           ranks=[2, 3, 5, 7, 1, 4, 6, 8])  # fmt: skip
    play(g, "PICK 7", "PICK 1", "PICK 4", "PICK 6")
    while g.current != 0:
        g.apply(passive_move(g.legal_moves()))
    return g


def test_empty_deck():
    g = empty_deck_position("official")
    assert texts(g)[:2] == ["GOLD", "INCOME"] or "DRAW" not in texts(g)
    g = empty_deck_position(load_rules("official").with_overrides({"empty_deck": "zero_draw_allowed"}))
    hand = len(g.snapshot()["hands"][0])
    play(g, "DRAW")  # draws nothing, the action is done, the Architect's 2 find nothing
    assert len(g.snapshot()["hands"][0]) == hand and "END" in texts(g)
    assert ("draw", 0, 0, 0) in log(g, 1) and ("architect_draw", 0, 0) in log(g, 1)


def test_graveyard_rule():
    r = load_rules("official").with_overrides({"graveyard_rule": "may_rescue_itself"})
    g = Game.from_position(4, r, 1, gold=[2, 2, 1, 2], hands=[[]] * 4, cities=[[], [], [GRAVEYARD], []],
                           ranks=[3, 2, 6, 1, 8, 7, 4, 5])  # fmt: skip
    play(g, "PICK 1", "PICK 8", "PICK 7", "PICK 4", "KILL 7", "GOLD", "END", "GOLD", "END", "GOLD")
    play(g, f"DESTROY 2 {GRAVEYARD}")
    assert g.current == 2 and texts(g) == ["GRAVE_TAKE", "GRAVE_PASS"]
    play(g, "GRAVE_TAKE")
    assert g.snapshot()["hands"][2] == [GRAVEYARD]
    # the owner holding the Warlord (2 players) gets no window
    g = Game.from_position(2, "official", 1, gold=[2, 2], hands=[[], []], cities=[[GRAVEYARD], [TAVERN]],
                           ranks=[1, 2, 3, 4, 5, 6, 7, 8])  # fmt: skip
    play(g, "PICK 5", "PICK 2", "DISCARD_CHAR 3", "PICK 8", "DISCARD_CHAR 4", "PICK 6")
    while g.snapshot()["called"] != 8:
        g.apply(passive_move(g.legal_moves()))
    play(g, "GOLD", f"DESTROY 1 {TAVERN}")
    assert g.phase != "graveyard" and g.snapshot()["deck"][-1] == TAVERN


def two_player_bishop_warlord(rules):
    g = Game.from_position(2, rules, 1, gold=[2, 2], hands=[[], []], cities=[[TEMPLE, GREAT_WALL, CASTLE], []],
                           ranks=[1, 2, 3, 4, 5, 6, 7, 8])  # fmt: skip
    play(g, "PICK 5", "PICK 2", "DISCARD_CHAR 3", "PICK 8", "DISCARD_CHAR 4", "PICK 6")
    assert g.characters(0) == [5, 8]
    while g.snapshot()["called"] != 8:
        g.apply(passive_move(g.legal_moves()))
    play(g, "GOLD")
    return g


def test_bishop_shields_vs_own_warlord():
    g = two_player_bishop_warlord("official")
    assert not any(t.startswith("DESTROY 0 ") for t in texts(g))
    g = two_player_bishop_warlord(load_rules("official").with_overrides({"bishop_shields_vs_own_warlord": False}))
    assert f"DESTROY 0 {TEMPLE}" in texts(g)


def test_great_wall_vs_own_warlord():
    for own, cost in ((True, 4), (False, 3)):
        r = load_rules("official").with_overrides({"bishop_shields_vs_own_warlord": False,
                                                   "great_wall_vs_own_warlord": own})  # fmt: skip
        g = two_player_bishop_warlord(r)
        assert E.destroy_cost(g.st, g.tables.rp, g.tables.districts, 0, CASTLE) == cost


def murder_round(rules):
    g = Game.from_position(4, rules, 1, gold=[2] * 4, hands=[[]] * 4, cities=[[]] * 4, ranks=[2, 3, 5, 1, 4, 6, 7, 8])
    play(g, "PICK 1", "PICK 4", "PICK 6", "PICK 7", "KILL 6")
    finish_round(g)
    return log(g, 0)


def test_reveal_murdered():
    events = murder_round("official")
    assert ("call", 6, -1) in events and not any(e[0] in ("murdered_revealed", "hidden_revealed") for e in events)
    events = murder_round(load_rules("official").with_overrides({"reveal_murdered": "all_at_round_end"}))
    assert ("murdered_revealed", 6, 2) in events and ("hidden_revealed", 2) in events
    assert ("hidden_revealed", 8) in events  # left over


def test_target_any_rank():
    g = Game.from_position(2, "official", 1, gold=[2, 2], hands=[[], []], cities=[[], []],
                           ranks=[5, 2, 8, 1, 3, 6, 4, 7])  # fmt: skip
    play(g, "PICK 1", "PICK 4", "DISCARD_CHAR 3", "PICK 2", "DISCARD_CHAR 6", "PICK 7")  # P0 holds 1, 2
    assert [t for t in texts(g) if t.startswith("KILL")] == [f"KILL {r}" for r in range(2, 9)]
    r = load_rules("official").with_overrides({"target_any_rank": False})
    g = Game.from_position(4, r, 1, gold=[2] * 4, hands=[[]] * 4, cities=[[]] * 4, ranks=[2, 3, 5, 1, 4, 6, 7, 8])
    play(g, "PICK 1", "PICK 4", "PICK 6", "PICK 7")
    assert [t for t in texts(g) if t.startswith("KILL")] == ["KILL 2", "KILL 4", "KILL 6", "KILL 7", "KILL 8"]


def test_colour_choices():
    assert capped_one_round([MANOR, TEMPLE, TAVERN, WATCHTOWER, HAUNTED])["colour_bonus"] == 3  # HC: the purple
    assert "adds decisions" in one_line_error({"colour_choices": "choose"})


def test_three_player_order():
    for order, seats in (("ABCABC", [1, 2, 0, 1, 2, 0]), ("ABCCBA", [1, 2, 0, 0, 2, 1])):
        r = load_rules("official").with_overrides({"three_player_order": order})
        g = Game.from_position(3, r, 1, crown=1, gold=[2] * 3, hands=[[]] * 3, cities=[[]] * 3)
        got = []
        while g.phase == "select":
            got.append(g.current)
            g.apply(g.legal_moves()[0])
        assert got == seats, order


def test_library_observatory():
    r = load_rules("official").with_overrides({"library_observatory": "draw3_keep3"})
    g = Game.from_position(4, r, 1, gold=[2] * 4, hands=[[]] * 4, cities=[[LIBRARY, OBSERVATORY], [], [], []],
                           deck_top=[TAVERN, MARKET, DOCKS], ranks=[2, 3, 6, 4, 1, 5, 7, 8])  # fmt: skip
    play(g, "PICK 4", "PICK 1", "PICK 5", "PICK 7", "GOLD", "END", "DRAW")
    assert g.snapshot()["hands"][0] == [TAVERN, MARKET, DOCKS] and ("draw", 0, 3, 3) in log(g, 1)


def test_plain_purples():
    """§2.3 "Plain purples": named purples keep colour and cost, score their cost and lose their text."""
    r = load_rules("official").with_overrides({"plain_purples": ["Smithy", "Keep"]})
    assert r.params()["plain_purples"] == ["Keep", "Smithy"]  # deck order
    assert "is not a purple district" in one_line_error({"plain_purples": ["Manor"]})
    assert "named twice" in one_line_error({"plain_purples": ["Keep", "Keep"]})
    assert "expected a list" in one_line_error({"plain_purples": "Keep"})
    for names, points, destroy_keep, lab in (
        ([], 8, False, True),
        (["Keep", "Dragon Gate", "Laboratory"], 6, True, False),
    ):
        rules = load_rules("official").with_overrides({"plain_purples": names})
        one_round = rules.with_overrides({"max_rounds": 1})
        g = Game.from_position(4, one_round, 1, gold=[2] * 4, hands=[[]] * 4, cities=[[DRAGON_GATE], [], [], []])
        finish_round(g)
        assert g.scores()[0]["district_points"] == points
        g = position(rules=rules, gold=[2] * 4, hands=[[MANOR], [], [], []], cities=[[LAB], [], [KEEP], []],
                     ranks=[2, 3, 5, 1, 4, 6, 7, 8])  # fmt: skip
        play(g, "PICK 6", "PICK 8", "PICK 1", "PICK 7", "GOLD", "END")  # P2's Assassin; nobody holds the King
        assert g.current == 0 and ("LAB 0" in texts(g)) is lab  # P0's Merchant
        play(g, "GOLD", "END", "GOLD", "END", "GOLD")  # P3's Architect, then P1's Warlord
        assert g.current == 1 and ("DESTROY 2 18" in texts(g)) is destroy_keep


def test_seat_points():
    """§6 "seat points": per player count, seat 1 (seat 0 here) first; in the total only, no tie broken."""
    for name in PRESETS:
        counts = load_rules(name).players_allowed
        assert load_rules(name).params()["seat_points"] == {str(n): [0] * n for n in counts}
    dotted = load_rules({"seat_points.4": [0, 1, 1, 2]})  # one player count by a dotted key
    table = load_rules("official").with_overrides({"seat_points": {"4": [0, 1, 1, 2]}})
    assert dotted.params()["seat_points"] == table.params()["seat_points"]
    assert dotted.params()["seat_points"]["4"] == [0, 1, 1, 2] and dotted.params()["seat_points"]["5"] == [0] * 5
    both = load_rules({"seat_points.2": [3, 0], "seat_points.4": [0, 1, 1, 2]})  # two dotted keys of one table
    assert both.params()["seat_points"]["2"] == [3, 0] and both.params()["seat_points"]["4"] == [0, 1, 1, 2]
    assert "seat_points.4: expected a list of 4 integers in 0..99" in one_line_error({"seat_points.4": [0, 1]})
    assert "seat_points.4: expected a list of 4" in one_line_error({"seat_points.4": [0, 1, 1, 100]})
    assert "seat_points.4: expected a list of 4" in one_line_error({"seat_points.4": [0, 1, 1, True]})
    assert "seat_points.9: unknown player count" in one_line_error({"seat_points.9": [0] * 9})
    # the totals and the score part, seat 0 first
    cities = [[MANOR, TEMPLE], [CASTLE], [], [DRAGON_GATE, TAVERN]]  # 4, 4, 0 and 9 district points
    g = Game.from_position(4, dotted, 1, gold=[2] * 4, hands=[[]] * 4, cities=cities)
    s = g.scores()
    assert [x["seat_points"] for x in s] == [0, 1, 1, 2] and [x["total"] for x in s] == [4, 5, 1, 11]
    assert [x["district_points"] for x in s] == [4, 4, 0, 9]
    assert [x["seat_points"] for x in Game.from_position(4, "official", 1, gold=[2] * 4, hands=[[]] * 4,
                                                         cities=cities).scores()] == [0] * 4  # fmt: skip
    # they change the winner, and a tie they make is broken by district points, then gold (§6)
    for vector, shares in (([0, 0], [1.0, 0.0]), ([0, 1], [0.0, 1.0]), ([1, 1], [1.0, 0.0])):
        r = load_rules({"seat_points.2": vector})
        x = tie_scores(r, FIVE_27, EIGHT_26, [1, 3], first_completer=1)  # 30 each without seat points
        assert [y["total"] for y in x] == [30 + vector[0], 30 + vector[1]] and [y["win_share"] for y in x] == shares
    five_24 = [PALACE, CATHEDRAL, TOWN_HALL, FORTRESS, TEMPLE, KEEP]  # 24 points + 3 colours = 27
    x = tie_scores(load_rules({"seat_points.2": [3, 0]}), five_24, FIVE_27, [9, 0])  # 30 = 30
    assert [y["total"] for y in x] == [30, 30] and [y["win_share"] for y in x] == [0.0, 1.0]  # 24 < 27 points
    x = tie_scores(load_rules({"seat_points.2": [3, 0], "tiebreak": "shared"}), five_24, FIVE_27, [9, 0])
    assert [y["win_share"] for y in x] == [0.5, 0.5]
    # a whole game: the same moves as without them (no legality changes), the totals moved, the log's totals
    r = load_rules({"seat_points.4": [0, 1, 2, 3]})
    for seed in (1, 2, 3):
        a, b = Game(4, "official", seed), Game(4, r, seed)
        while not a.done:
            m = a.random_move()
            assert b.legal_moves() == a.legal_moves() and b.random_move() == m
            a.apply(m)
            b.apply(m)
        assert b.done
        sa, sb = a.scores(), b.scores()
        assert [x["total"] for x in sb] == [x["total"] + v for x, v in zip(sa, [0, 1, 2, 3], strict=True)]
        assert [x["seat_points"] for x in sb] == [0, 1, 2, 3] and [x["seat_points"] for x in sa] == [0] * 4
        assert log(b, 2)[-1] == ("game_end", False, tuple(x["total"] for x in sb))


def test_max_rounds():
    r = load_rules("official").with_overrides({"max_rounds": 2})
    g = Game(4, r, 5)
    while not g.done:
        g.apply(passive_move(g.legal_moves()))
    assert g.round == 2 and g.scores()[0]["capped"] and log(g, 0)[-1][:2] == ("game_end", True)


# --- rule sets ---------------------------------------------------------------------------------------


def test_presets_and_variants(tmp_path):
    for name in PRESETS:
        rules = load_rules(name)
        assert set(rules.params()) == set(PARAMETERS)
        path = tmp_path / f"{name}.toml"
        path.write_text(rules.to_toml())
        assert load_rules(str(path)).to_dict() == rules.to_dict()
    short = tmp_path / "short.toml"
    short.write_text('base = "official"\ncomplete_size = 7\n')
    rules = load_rules(str(short))
    assert rules["complete_size"] == 7 and rules.name == "short" and rules["bank_gold"] == 30
    for text, message in (
        ("complete_sise = 7", "complete_sise: unknown key"),
        ('complete_size = "7"', "complete_size: expected an integer"),
        ("complete_size = 0", "complete_size: must be in 1..32"),
        ('tiebreak = "coin"', "tiebreak: expected one of"),
        ("remove_in_round_1 = 1", "remove_in_round_1: expected true or false"),
        ('base = "deluxe"', "base: unknown preset"),
        ("faceup_count = {9 = 1}", "faceup_count.9: unknown player count"),
    ):
        bad = tmp_path / "bad.toml"
        bad.write_text(text + "\n")
        msg = one_line_error(str(bad))
        assert message in msg and msg.startswith(str(bad)), msg
    assert "unknown preset" in one_line_error("no-such-preset")


# --- properties of random games ------------------------------------------------------------------


def canonical_key(move: tuple):
    return (move[0], *((len(a), a) if isinstance(a, tuple) else (a,) for a in move[1:]))


CONFIGS = [("official", n) for n in range(2, 8)] + [("seed-summary", n) for n in range(2, 9)]


@pytest.mark.parametrize("rules,players", CONFIGS)
def test_random_games_keep_the_rules_invariants(rules, players):
    rnd = random.Random(players)
    for seed in range(2):
        g = Game(players, rules, seed)
        assert invariants(g) == []
        while not g.done:
            legal = g.legal_moves()
            assert legal and legal == sorted(legal, key=canonical_key) and len(set(legal)) == len(legal)
            assert 0 <= g.current < players
            for m in legal:
                assert parse_move(move_text(m)) == m
            m = g.random_move()
            assert m in legal
            if rnd.random() < 0.05:  # an illegal move changes nothing
                before = g.snapshot()
                with pytest.raises(IllegalMove):
                    g.apply((E.K_GRAVE_TAKE,) if g.phase != "graveyard" else (E.K_GOLD,))
                assert g.snapshot() == before
            g.apply(m)
            assert invariants(g) == [], (seed, move_text(m))
        s = g.scores()
        assert abs(sum(x["win_share"] for x in s) - 1) < 1e-9
        assert all(x["total"] == x["district_points"] + x["colour_bonus"] + x["completion_bonus"] for x in s)


def trace(players, rules, seed):
    g = Game(players, rules, seed)
    moves = []
    while not g.done:
        m = g.random_move()
        moves.append(m)
        g.apply(m)
    return moves, g.scores()


def test_determinism():
    assert trace(4, "official", 11) == trace(4, "official", 11)
    assert trace(4, "official", 11)[0] != trace(4, "official", 12)[0]
    assert trace(5, "seed-summary", 11) == trace(5, "seed-summary", 11)


def test_copy_independence():
    g = Game(4, "official", 21)
    for _ in range(60):
        g.apply(g.random_move())
    snap, obs = g.snapshot(), [g.observation(p) for p in range(4)]
    c = g.copy()
    for _ in range(40):
        c.apply(c.random_move())
    assert g.snapshot() == snap and [g.observation(p) for p in range(4)] == obs
    d = g.copy()
    for _ in range(40):  # a copy continues exactly as the original would (the random player's stream included)
        m = g.random_move()
        assert d.random_move() == m
        g.apply(m)
        d.apply(m)
    assert g.snapshot() == d.snapshot() and g.observation(2) == d.observation(2)


def test_play_random_games_matches_the_api():
    rules = load_rules("official")
    seeds = np.arange(40, 60, dtype=np.uint64)
    from boardlab.experiments.citadels.runner import run_random_games

    res = run_random_games(seeds, rules, 4)
    for i, seed in enumerate(seeds):
        moves, scores = trace(4, rules, int(seed))
        assert [s["total"] for s in scores] == list(res["scores"][i, :, E.SC_TOTAL])
        assert [s["rank"] for s in scores] == list(res["scores"][i, :, E.SC_RANK])
        assert res["info"][i, 0, E.IN_DECISIONS] == len(moves)


def test_chunk_rows():
    from boardlab.agents.citadels.registry import parse_agent
    from boardlab.experiments.citadels.runner import play_chunk

    df = play_chunk(load_rules("official"), 3, [parse_agent("random")] * 3, "rotate", 5, 10, 30)
    assert tuple(df.columns) == RESULT_COLUMNS and len(df) == 60
    assert (df.groupby("game")["win_share"].sum().round(9) == 1).all()
    assert (df["characters"].str.split("-").str.len() == df["rounds"]).all()
    assert df["characters"].str.split("-").map(lambda rs: all(len(r) == 2 for r in rs)).all()  # 2 ranks at 3p
    assert (df["kills"].str.split("-").str.len() == df["rounds"]).all()
    assert (df["total"] == df["district_points"] + df["colour_bonus"] + df["completion_bonus"]).all()
    first = df[df["completion"] == 1]
    assert (first["completion_bonus"] == 4).all() and (first.groupby("game").size() == 1).all()
    # a murder recorded for a seat is a round in which it held the named rank
    for _, row in df[df["murdered"] > 0].iterrows():
        kills = row["kills"].split("-")
        held = row["characters"].split("-")
        assert sum(k != "0" and k in h for k, h in zip(kills, held, strict=True)) == row["murdered"]


# --- observations (§7) ---------------------------------------------------------------------------


def hidden_pair():
    """Two positions that differ only in P2's hand, the deck's order and the face-down card (3 or 6)."""
    common = dict(gold=[2] * 4, cities=[[MANOR], [], [TEMPLE], []])
    a = Game.from_position(4, "official", 1, hands=[[], [CASTLE], [CASTLE, TEMPLE, DOCKS], []],
                           deck_top=[TAVERN, TAVERN], ranks=[3, 5, 2, 6, 1, 4, 7, 8], **common)  # fmt: skip
    b = Game.from_position(4, "official", 1, hands=[[], [CASTLE], [PALACE, MARKET, WATCHTOWER], []],
                           deck_top=[MANOR, MANOR], ranks=[6, 5, 2, 3, 1, 4, 7, 8], **common)  # fmt: skip
    return a, b


def test_observation_shows_only_what_a_seat_may_see():
    a, b = hidden_pair()
    assert a.observation(2) != b.observation(2)  # its own hand
    assert a.observation(0) != b.observation(0)  # the crown holder sees the face-down card's absence
    # P0 keeps the rank the other position removed face down: for P1 and P3 nothing differs until rank 3 is called
    script = ["PICK 6", "PICK 3"]
    steps = 0
    a.apply(parse_move(script[0]))
    b.apply(parse_move(script[1]))
    while a.snapshot()["called"] < 3:
        for p in (1, 3):
            assert a.observation(p) == b.observation(p), (steps, p)
        m = passive_move(a.legal_moves())
        assert m in b.legal_moves()
        a.apply(m)
        b.apply(m)
        steps += 1
    assert steps == 5  # P1, P2, P3 choose; P1 (Assassin) takes gold and ends
    assert a.observation(1) != b.observation(1)  # ("call", 3, -1) against ("call", 3, 0)
    assert a.observation(1)["hand"] == [CASTLE] and len(a.observation(1)["hand_sizes"]) == 4


def test_observation_format():
    g = Game(4, "official", 3)
    for _ in range(30):
        g.apply(g.random_move())
    o = g.observation(1)
    assert list(o) == [
        "player", "seat", "players", "round", "phase", "current", "crown", "bank", "deck_size", "discard_size", "gold",
        "hand_sizes", "cities", "faceup_removed", "characters_held", "revealed", "called", "killed", "robbed",
        "final_round", "first_completer", "turn", "hand", "characters", "decision", "log", "scores",
    ]  # fmt: skip
    assert o["log"][0] == ("start", 4, 0) and o["log"][1][0] == "hand" and o["scores"] is None
    assert all(isinstance(e, tuple) for e in o["log"])
    assert (o["decision"] is None) == (g.current != 1)
    for p in range(4):  # each seat's log has its own dealt hand and its own picks only
        events = g.observation(p)["log"]
        assert [e for e in events if e[0] == "hand"] == [("hand", tuple(sorted(events[1][1])))]
        last_round = max(i for i, e in enumerate(events) if e[0] == "round")
        assert sorted(e[1] for e in events[last_round:] if e[0] == "pick") == g.characters(p)
    with pytest.raises(ValueError):
        g.observation(4)
    with pytest.raises(ValueError, match="no event log"):
        Game(4, "official", 3, log=False).observation(0)


def test_observations_of_every_seat_are_stable_over_a_game():
    """Every seat's log only grows: what a seat saw stays as it saw it."""
    g = Game(3, "official", 8)
    seen = [[] for _ in range(3)]
    while not g.done:
        for p in range(3):
            now = g.observation(p)["log"]
            assert now[: len(seen[p])] == seen[p]
            seen[p] = now
        g.apply(g.random_move())
    assert g.observation(0)["scores"] == g.scores() and g.observation(0)["log"][-1][0] == "game_end"


def test_all_combinations_of_keep_moves():
    """KEEP lists are the distinct sorted sub-multisets of the drawn cards (k = 1 of 2 or 3, 2 of 3)."""
    for drawn in itertools.product([TEMPLE, TAVERN, MARKET], repeat=3):
        for cities, k in (([OBSERVATORY], 1), ([OBSERVATORY, LIBRARY], 2)):
            g = Game.from_position(4, "official", 1, gold=[2] * 4, hands=[[]] * 4, cities=[cities, [], [], []],
                                   deck_top=list(drawn), ranks=[2, 3, 6, 4, 1, 5, 7, 8])  # fmt: skip
            play(g, "PICK 4", "PICK 1", "PICK 5", "PICK 7", "GOLD", "END", "DRAW")
            want = sorted({tuple(sorted(c)) for c in itertools.combinations(drawn, k)})
            assert g.legal_moves() == [(E.K_KEEP, t) for t in want]
