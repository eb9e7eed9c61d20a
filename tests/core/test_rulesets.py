"""The rule-set machinery every game shares (boardlab.sim.rulesets) and the bit helpers (boardlab.sim.bits)."""

from __future__ import annotations

import re

import pytest

from boardlab.sim import bits
from boardlab.sim.games import available_games, get_game
from boardlab.sim.rulesets import RuleBook, RulesError, RuleSet, canonical_json, check_int, dig, dotted_tree, merge

BASE = {"name": "base", "game": {"target": 10, "fair": True, "mode": "a", "list": [1, 2]}, "cards": {"x": {"n": 1}}}


def _check(data: dict) -> RuleSet:
    check_int(data["game"]["target"], "game.target", 1, 100)
    return Toy(name=data["name"], data=data, canonical=canonical_json(data))


class Toy(RuleSet):
    pass


BOOK = RuleBook("Toy", {"base": BASE, "other": {**BASE, "name": "other"}}, "base", _check, Toy, frozenset({"cards"}))


def test_merge_takes_known_keys_of_the_same_type_and_new_entries_only_in_open_mappings():
    out = merge(BASE, {"game": {"target": 3, "list": [9]}, "cards": {"y": {"n": 2}}}, "", {"cards"})
    assert out["game"] == {"target": 3, "fair": True, "mode": "a", "list": [9]} and out["cards"]["y"] == {"n": 2}
    assert BASE["game"]["target"] == 10  # the base is not changed
    for over, message in [
        ({"game": {"targte": 3}}, "game.targte: unknown key (valid: fair, list, mode, target)"),
        ({"game": {"target": "3"}}, "game.target: expected an integer, got '3'"),
        ({"game": {"target": True}}, "game.target: expected an integer, got True"),
        ({"game": {"fair": 1}}, "game.fair: expected true or false, got 1"),
        ({"game": {"mode": 2}}, "game.mode: expected a string, got 2"),
        ({"game": {"list": 2}}, "game.list: expected a list, got 2"),
        ({"game": 5}, "game: expected a table, got 5"),
        ({"other": {}}, "other: unknown key"),
    ]:
        with pytest.raises(RulesError) as e:
            merge(BASE, over, "", {"cards"})
        assert str(e.value).startswith(message), str(e.value)


def test_helpers():
    assert dig(BASE, "game.target") == 10
    assert dotted_tree({"a.b": 1, "a.c": 2, "d": 3}) == {"a": {"b": 1, "c": 2}, "d": 3}
    with pytest.raises(RulesError, match=r"^x: must be <= 5, got 6$"):
        check_int(6, "x", 0, 5)


def test_a_rule_book_loads_presets_variants_and_overrides(tmp_path):
    assert BOOK.preset().name == "base" and BOOK.load("other").name == "other"
    rules = BOOK.load(None).with_overrides({"game.target": 7})
    assert rules.data["game"]["target"] == 7 and rules != BOOK.preset() and hash(rules) == hash(rules.canonical)
    path = tmp_path / "mine.toml"
    path.write_text(rules.to_toml())
    back = BOOK.load(str(path))
    assert back.to_dict() == rules.to_dict() and back.name == "base"  # a dump keeps its name
    variant = tmp_path / "variant.toml"
    variant.write_text('base = "other"\n[game]\ntarget = 50\n')
    v = BOOK.load(variant)
    assert v.name == "variant" and v.data["game"]["target"] == 50 and BOOK.load(v) is v
    for spec, message in [
        ("nope", "rules: unknown preset 'nope' (valid: base, other, or a .toml file)"),
        (tmp_path / "missing.toml", "rules: cannot read"),
    ]:
        with pytest.raises(RulesError, match=re.escape(message)):
            BOOK.load(spec)
    variant.write_text('base = "other"\n[game]\ntarget = 500\n')
    with pytest.raises(RulesError, match=r"variant\.toml: game\.target: must be <= 100"):
        BOOK.load(variant)
    with pytest.raises(RulesError, match=r"^base: unknown preset 'third'"):
        BOOK.from_mapping({"base": "third"})


@pytest.mark.parametrize("game_id", [g.id for g in available_games()])
def test_every_game_s_rules_are_rule_sets_of_the_shared_machinery(game_id):
    game = get_game(game_id)
    rules = game.load_rules(game.default_preset)
    assert isinstance(rules, RuleSet) and issubclass(game.rules_error, RulesError)
    assert game.rules_from_mapping(rules.to_dict()) == rules


def test_orient_cells():
    l_shape = ((0, 0), (1, 0), (2, 0), (2, 1))
    assert bits.orient_cells(l_shape, 0) == l_shape
    assert bits.orient_cells(l_shape, 1) == ((0, 2), (0, 1), (0, 0), (1, 0))  # a quarter turn clockwise
    assert bits.orient_cells(l_shape, 4) == ((0, 1), (1, 1), (2, 1), (2, 0))  # reflected
    assert len({frozenset(bits.orient_cells(l_shape, o)) for o in range(8)}) == 8  # no symmetry: 8 orientations


def test_popcount_and_lowest_bit_index_in_a_kernel():
    import numpy as np
    from numba import njit

    @njit
    def both(x):
        return bits.popcount(x), bits.lowest_bit_index(x)

    for x in (1, 2, 0b1011000, (1 << 63) | (1 << 5), (1 << 64) - 1):
        assert both(np.uint64(x)) == (bin(x).count("1"), (x & -x).bit_length() - 1)
