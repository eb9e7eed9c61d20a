"""Cartographers' rule set (boardlab/sim/cartographers/rules.py) against docs/games/cartographers.md: contents of the
presets, TOML variants and their round trip, and one-line errors naming the key."""

from __future__ import annotations

import json

import pytest

from boardlab.sim.cartographers.rules import (
    CHOICES,
    PRESETS,
    RulesError,
    cell_index,
    cell_label,
    from_mapping,
    load_rules,
    parse_label,
    parse_shape,
)

A = load_rules("base-a")
B = load_rules("base-b")


def labels(cells):
    return sorted(cell_label(*divmod(i, 11)) for i in cells)


# --- contents (docs/games/cartographers.md 1-4, 6.2) --------------------------------------------------------


def test_cell_labels():
    assert cell_label(1, 3) == "B4"
    assert parse_label("K11") == (10, 10)
    assert cell_index(*parse_label("F6")) == 60


def test_map_side_a():
    m = A.map
    assert m.side == "A"
    assert labels(m.mountains) == sorted("B4 C9 F6 I3 J8".split())
    assert labels(m.ruins) == sorted("B6 C2 C10 I2 I10 J6".split())
    assert m.wasteland == ()


def test_map_side_b():
    m = B.map
    assert m.side == "B"
    assert labels(m.mountains) == sorted("B9 C4 H6 I10 J3".split())
    assert labels(m.ruins) == sorted("B7 C3 E7 G2 H9 J4".split())
    assert labels(m.wasteland) == sorted("D6 E5 E6 F5 F6 F7 G6".split())
    grid = m.initial_grid()
    assert grid.count(6) == 5 and grid.count(7) == 7 and grid.count(0) == 121 - 12


def test_presets_differ_only_in_side_and_name():
    a, b = A.to_dict(), B.to_dict()
    assert (a.pop("name"), b.pop("name")) == ("base-a", "base-b")
    assert (a["setup"].pop("side"), b["setup"].pop("side")) == ("A", "B")
    assert a == b


def test_explore_cards():
    cards = {c.id: c for c in A.explore_cards}
    assert A.ruins_cards == (5, 6)
    assert sorted(cards) == list(range(7, 18))
    assert sum(c.time for c in cards.values()) == 16
    table = {  # id: (time, terrains, cells per option, coin per option)
        7: (1, ("water",), (3, 5), (True, False)),
        8: (1, ("farm",), (2, 5), (True, False)),
        9: (1, ("village",), (3, 5), (True, False)),
        10: (1, ("forest",), (2, 4), (True, False)),
        11: (2, ("farm", "water"), (5,), (False,)),
        12: (2, ("village", "farm"), (4,), (False,)),
        13: (2, ("forest", "farm"), (4,), (False,)),
        14: (2, ("forest", "village"), (5,), (False,)),
        15: (2, ("forest", "water"), (5,), (False,)),
        16: (2, ("village", "water"), (4,), (False,)),
        17: (0, ("forest", "village", "farm", "water", "monster"), (1,), (False,)),
    }
    for cid, (time, terrains, sizes, coins) in table.items():
        c = cards[cid]
        assert (c.time, c.terrains) == (time, terrains), c.name
        assert tuple(len(o.cells) for o in c.options) == sizes, c.name
        assert tuple(o.coin for o in c.options) == coins, c.name
    # Forgotten Forest A: two cells touching only at a corner, still one shape.
    assert cards[10].options[0].cells == ((0, 0), (1, 1))


def test_ambush_cards():
    amb = {a.id: a for a in A.ambush_cards}
    assert [amb[i].name for i in (1, 2, 3, 4)] == [
        "Goblin Attack",
        "Bugbear Assault",
        "Kobold Onslaught",
        "Gnoll Raid",
    ]
    assert [(amb[i].corner, amb[i].arrow) for i in (1, 2, 3, 4)] == [
        ("bottom-right", "counter-clockwise"),
        ("top-right", "clockwise"),
        ("bottom-left", "clockwise"),
        ("top-left", "counter-clockwise"),
    ]
    assert amb[2].cells == ((0, 0), (0, 2), (1, 0), (1, 2))  # Bugbear's middle column is a gap


def test_scoring_cards_categories_and_solo_numbers():
    cards = A.scoring_cards
    assert [c.id for c in cards] == list(range(26, 42))
    solo = {c.id: c.solo for c in cards}
    assert solo == {
        26: 25, 27: 22, 28: 17, 29: 18, 30: 24, 31: 22, 32: 20, 33: 27,
        34: 16, 35: 16, 36: 21, 37: 20, 38: 24, 39: 24, 40: 24, 41: 20,
    }  # fmt: skip
    by_cat = {cat: [c.id for c in cards if c.category == cat] for cat in A.categories}
    assert by_cat == {
        "forest": [26, 27, 28, 29],
        "farm_water": [30, 31, 32, 33],
        "village": [34, 35, 36, 37],
        "placement": [38, 39, 40, 41],
    }


def test_seasons_and_titles():
    assert [(s.name, s.threshold, s.edicts) for s in A.seasons] == [
        ("Spring", 8, (0, 1)),
        ("Summer", 8, (1, 2)),
        ("Fall", 7, (2, 3)),
        ("Winter", 6, (3, 0)),
    ]
    assert [t for t, _ in A.titles] == [30, 20, 10, 0, -5, -10, -20, -30]
    assert A.titles[0][1] == "Legendary Cartographer" and A.titles[-1][1] == "Oblivious Inkdrinker"
    assert A.coins["cap"] == 14


def test_every_choice_parameter_defaults_to_its_first_value():
    for dotted, values in CHOICES.items():
        v = A.data
        for k in dotted.split("."):
            v = v[k]
        if dotted != "setup.side":
            assert v == values[0], dotted


def test_parse_shape_is_row_major():
    assert parse_shape("..##/###.") == ((0, 2), (0, 3), (1, 0), (1, 1), (1, 2))


# --- variants -------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", list(PRESETS))
def test_toml_round_trip(name, tmp_path):
    rules = load_rules(name)
    path = tmp_path / "out.toml"
    path.write_text(rules.to_toml(), encoding="utf-8")
    back = load_rules(path)
    assert back == rules and back.to_dict() == rules.to_dict() and back.name == name


def test_toml_round_trip_of_a_variant(tmp_path):
    rules = A.with_overrides(
        {
            "name": "mine",
            "coins.cap": 20,
            "cards.explore.16.time": 3,
            "scoring.shieldgate.second": "distinct",
            "setup.edicts": [29, 30, 36, 41],
            "solo.titles": [{"rating": 0, "title": "Fine"}],
        }
    )
    path = tmp_path / "mine.toml"
    path.write_text(rules.to_toml(), encoding="utf-8")
    assert load_rules(path) == rules
    assert json.loads(rules.to_json()) == rules.to_dict()
    assert rules.to_json() == load_rules(path).to_json()


def test_load_rules_toml_with_base_and_overrides(tmp_path):
    path = tmp_path / "my_variant.toml"
    path.write_text(
        'base = "base-b"\n[coins]\ncap = 99\n[cards.explore.16]\ntime = 3\n[seasons.winter]\nthreshold = 7\n',
        encoding="utf-8",
    )
    rules = load_rules(path)
    assert rules.name == "my_variant" and rules.side == "B"
    assert rules.coins["cap"] == 99
    assert {c.id: c.time for c in rules.explore_cards}[16] == 3
    assert rules.seasons[3].threshold == 7
    assert rules == B.with_overrides(
        {"name": "my_variant", "coins.cap": 99, "cards.explore.16.time": 3, "seasons.winter.threshold": 7}
    )


def test_to_dict_is_a_copy():
    d = A.to_dict()
    d["coins"]["cap"] = 1
    assert A.coins["cap"] == 14


@pytest.mark.parametrize(
    "overrides, key",
    [
        ({"coins.cpa": 3}, "coins.cpa"),
        ({"colour": "red"}, "colour"),
        ({"cards.explore.18.time": 1}, "cards.explore.18"),
        ({"cards.scoring.26.points": 1}, "cards.scoring.26.points"),
        ({"maps.C": {}}, "maps.C"),
        ({"scoring.shieldgate.tie": "x"}, "scoring.shieldgate.tie"),
    ],
)
def test_rules_error_unknown_key_names_the_dotted_key(overrides, key):
    with pytest.raises(RulesError, match="unknown key") as e:
        A.with_overrides(overrides)
    msg = str(e.value)
    assert msg.startswith(key + ":") and "\n" not in msg, msg


@pytest.mark.parametrize(
    "overrides, key",
    [
        ({"coins.cap": "14"}, "coins.cap"),
        ({"coins.cap": 0}, "coins.cap"),
        ({"coins.mountain_to_owner": 1}, "coins.mountain_to_owner"),
        ({"setup.side": "C"}, "setup.side"),
        ({"setup.edict_order": "sorted"}, "setup.edict_order"),
        ({"setup.edicts": [26, 27, 28]}, "setup.edicts"),
        ({"setup.edicts": [26, 27, 28, 99]}, "setup.edicts"),
        ({"draw.fallback_from": "some"}, "draw.fallback_from"),
        ({"draw.fallback_terrains": ["mountain"]}, "draw.fallback_terrains"),
        ({"draw.full_map": "pass"}, "draw.full_map"),
        ({"ambush.pass_clockwise_to": "left"}, "ambush.pass_clockwise_to"),
        ({"solo.walk": "spiral"}, "solo.walk"),
        ({"solo.below_titles": "zero"}, "solo.below_titles"),
        ({"solo.titles": [{"rating": 0, "title": "a"}, {"rating": 5, "title": "b"}]}, "solo.titles"),
        ({"scoring.greengold_plains.types": ["village", "farm"]}, "scoring.greengold_plains.types"),
        ({"scoring.stoneside_forest.link": "chain"}, "scoring.stoneside_forest.link"),
        ({"seasons.spring.threshold": 17}, "seasons.spring.threshold"),
        ({"seasons.spring.threshold": 0}, "seasons.spring.threshold"),
        ({"seasons.fall.edicts": ["C", "C"]}, "seasons.fall.edicts"),
        ({"cards.explore.07.time": -1}, "cards.explore.07.time"),
        ({"cards.explore.07.terrains": ["lava"]}, "cards.explore.07.terrains"),
        ({"cards.explore.07.shapes": [{"shape": "#x#", "coin": False}]}, "cards.explore.07.shapes"),
        ({"cards.explore.07.shapes": [{"shape": "..#/..#", "coin": False}]}, "cards.explore.07.shapes"),
        ({"cards.ambush.01.corner": "middle"}, "cards.ambush.01.corner"),
        ({"cards.ambush.01.arrow": "up"}, "cards.ambush.01.arrow"),
        ({"cards.scoring.26.category": "sea"}, "cards.scoring.26.category"),
        ({"maps.A.mountains": [[0, 3]]}, "maps.A.mountains"),
        ({"maps.A.ruins": [[1, 3]]}, "maps.A.ruins"),
        ({"maps.A.ruins": [[11, 3]]}, "maps.A.ruins"),
        ({"maps.B.wasteland": "none"}, "maps.B.wasteland"),
        ({"ties": 1}, "ties"),
    ],
)
def test_rules_error_bad_value_names_the_dotted_key(overrides, key):
    with pytest.raises(RulesError) as e:
        A.with_overrides(overrides)
    msg = str(e.value)
    assert msg.startswith(key + ":") and "\n" not in msg, msg


def test_rules_error_unknown_preset_and_base(tmp_path):
    with pytest.raises(RulesError, match="base-c"):
        load_rules("base-c")
    with pytest.raises(RulesError, match=r"^base:"):
        from_mapping({"base": "base-c"})


def test_load_rules_toml_errors_name_file_and_key(tmp_path):
    bad_key = tmp_path / "bad_key.toml"
    bad_key.write_text('base = "base-a"\n[coins]\ncpa = 3\n', encoding="utf-8")
    with pytest.raises(RulesError) as e:
        load_rules(bad_key)
    assert str(bad_key) in str(e.value) and "coins.cpa" in str(e.value)
    bad_value = tmp_path / "bad_value.toml"
    bad_value.write_text('base = "base-a"\n[solo]\nwalk = "spiral"\n', encoding="utf-8")
    with pytest.raises(RulesError, match=r"solo\.walk"):
        load_rules(bad_value)
    not_toml = tmp_path / "broken.toml"
    not_toml.write_text("base = \n", encoding="utf-8")
    with pytest.raises(RulesError, match="not valid TOML"):
        load_rules(not_toml)
    with pytest.raises(RulesError, match="cannot read"):
        load_rules(tmp_path / "missing.toml")


def test_cartographers_needs_time_on_its_explore_cards():
    from boardlab.sim.cartographers.rules import load_rules
    from boardlab.sim.rulesets import RulesError

    base = load_rules("base-a")
    explore = base.data["cards"]["explore"]
    with pytest.raises(RulesError, match=r"^cards\.explore: every explore card has time 0"):
        base.with_overrides({f"cards.explore.{k}.time": 0 for k in explore})
    total = sum(c["time"] for c in explore.values())
    with pytest.raises(RulesError, match=rf"^seasons\.spring\.threshold: must be <= {total}"):
        base.with_overrides({"seasons.spring.threshold": total + 1})
