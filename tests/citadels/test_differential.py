"""The engine against the plain-Python reference (boardlab/sim/citadels/reference.py), written independently from the
rules contract: random games of the contract's reference random player, compared move by move.

At every decision both must agree on who decides and on the canonical legal list; the reference's own
random player (its trace) must be the move the engine's random player draws; every seat's observation must
be the same dict; and the final scores must be equal.  The full size (``slow``) is 300 games per player
count and preset, the deciding seat observed at every decision and every seat at every fourth (a cycle that
starts at a different decision in each game), and 125 games for each alternative value of the rule
parameters; ``make test`` plays a smaller sample of each, every seat observed at every decision.  The
study's lever ``plain_purples`` (docs/games/citadels.md §2.3) is played with every purple plain and with a
subset, at 2, 4 and 7 players: 100 games each in full, 2 in ``make test``.  So is the seat compensation
``seat_points`` (§6) with a nonzero vector, at 2, 4 and 7 players on ``official`` and at 4 and 8 on
``seed-summary``: 100 games each in full, 2 in ``make test``.
"""

from __future__ import annotations

import pytest

from boardlab.sim.citadels.api import Game, move_text
from boardlab.sim.citadels.rules import load_rules

R = pytest.importorskip("boardlab.sim.citadels.reference")

CONFIGS = [("official", n) for n in range(2, 8)] + [("seed-summary", n) for n in range(2, 9)]


def seen(g: Game, p: int) -> dict:
    """The engine's observation as the reference gives it: a plain dict, without the Observation's player key."""
    d = g.observation(p).to_dict()
    d.pop("player")
    return d


def seen_data(g: Game, p: int) -> dict:
    """The same data, without building the Observation (whose redealt copy, for sample(), is most of its cost
    and is tested in test_engine.py): the cheap form for the checks of every seat."""
    return g._observed(p)


def compare(rules_name: str, players: int, seed: int, observe: int) -> int:
    """One random game on both implementations, played in step (the reference's own random player choosing
    its moves); returns its number of decisions.  `observe` 0: no observations; k >= 1: the deciding seat's
    at every decision, every seat's at every k-th."""
    ref = R.RefGame(players, rules_name, seed)
    player = R.reference_random_player(seed)
    g = Game(players, load_rules(rules_name), seed)
    step = 0
    while not ref.done:
        where = f"{rules_name} n={players} seed={seed} decision {step}"
        seat, legal = ref.current, ref.legal_moves()
        assert g.current == seat, where
        mine = g.legal_moves()
        assert mine == legal, f"{where}: {[move_text(m) for m in mine]} vs {[move_text(m) for m in legal]}"
        if observe:
            every = step % observe == seed % observe
            mine = seen(g, seat) if every or observe == 1 else seen_data(g, seat)
            assert mine == ref.observation(seat), f"{where}: the deciding seat's observation"
            if every:
                for p in range(players):
                    assert seen_data(g, p) == ref.observation(p), f"{where}: seat {p}'s observation"
        move, drawn = player(legal), g.random_move()
        assert drawn == move, f"{where}: the random player drew {move_text(drawn)}, the reference {move_text(move)}"
        g.apply(move)
        ref.apply(move)
        step += 1
    assert g.done
    assert g.scores() == ref.scores(), f"{rules_name} n={players} seed={seed}: final scores"
    if observe:
        for p in range(players):
            mine, theirs = g.observation(p).to_dict(), ref.observation(p)
            mine.pop("player")
            assert mine == theirs, f"{rules_name} n={players} seed={seed}: final, seat {p}"
    return step


def test_called_at_the_end():
    """docs/games/citadels.md §7.2: `called` is the last rank called this round, so 8 once a round's calls
    are over -- in the final observation too (the only one taken after a round's last call, since the next
    round starts at once)."""
    ref, _ = R.play_random_game(4, "official", 0)
    g = Game(4, "official", 0)
    while not g.done:
        g.apply(g.random_move())
    assert g.observation(0)["called"] == ref.observation(0)["called"]


def test_the_presets_are_the_references():
    for name in R.PRESETS:
        # the same values (the reference keys player counts by int, the TOML-born rules by string)
        assert R.reference_params(load_rules(name).params()) == R.reference_params(name)
    short = load_rules("official").with_overrides({"complete_size": 7})
    assert R.reference_params(short.params()) == R.reference_params({"base": "official", "complete_size": 7})


@pytest.mark.parametrize("rules_name,players", CONFIGS)
def test_random_games_agree(rules_name, players):
    for seed in range(12):
        compare(rules_name, players, seed, observe=1 if seed < 2 else 0)


def test_a_variant_agrees():
    """A rule set that is neither preset (the short game, printed costs for ties, a poorer bank)."""
    rules = load_rules("official").with_overrides(
        {"complete_size": 7, "tiebreak": "cost_gold_shared", "bank_gold": 20, "name": "variant"}
    )
    for players in (3, 5):
        for seed in range(6):
            ref, trace = R.play_random_game(players, rules.params(), seed)
            g = Game(players, rules, seed)
            for seat, legal, move in trace:
                assert g.current == seat and g.legal_moves() == list(legal)
                g.apply(move)
            assert g.done and g.scores() == ref.scores()


# Every alternative of the rule parameters that both implementations play, one at a time on `official`.
ALTERNATIVES = [
    {"bank_shortfall": "unlimited"},
    {"destroyed_to": "removed"},
    {"lab_discard_to": "removed"},
    {"empty_deck": "zero_draw_allowed"},
    {"graveyard_rule": "may_rescue_itself"},
    {"bishop_shields_vs_own_warlord": False},
    {"great_wall_vs_own_warlord": False},
    {"reveal_murdered": "all_at_round_end"},
    {"target_any_rank": False},
    {"three_player_order": "ABCCBA"},
    {"library_observatory": "draw3_keep3"},
    {"tiebreak": "districts_gold_draw"},
    {"tiebreak": "cost_gold_shared"},
    {"warlord_timing": "any_time"},
    {"architect_discount": 2},
    {"warlord_may_target_own": False},
    {"crown_rule": "rotate_unless_king"},
    {"removal_order": "faceup_first"},
    {"remove_in_round_1": False},
    {"selection_mode": "blind_draw2"},
    {"bank_gold": 12},
    {"starting_hand": 0, "starting_gold": 0},
    {"complete_size": 5},
    {"max_rounds": 3},
    {"first_crown_seat": 1},
]


def compare_variant(overrides: dict, players: int, seed: int, observe_every: int, base: str = "official"):
    """One random game under `overrides` on preset `base`, on both implementations; returns (engine, reference)."""
    rules = load_rules(base).with_overrides({**overrides, "name": "variant"})
    ref = R.RefGame(players, rules.params(), seed)
    player = R.reference_random_player(seed)
    g = Game(players, rules, seed)
    step = 0
    while not ref.done:
        where = f"{overrides} n={players} seed={seed} decision {step}"
        legal = ref.legal_moves()
        assert g.current == ref.current and g.legal_moves() == legal, where
        if step % observe_every == 0:
            assert all(seen_data(g, p) == ref.observation(p) for p in range(players)), where
        move = player(legal)
        assert g.random_move() == move, where
        g.apply(move)
        ref.apply(move)
        step += 1
    assert g.done and g.scores() == ref.scores(), f"{overrides} n={players} seed={seed}: final scores"
    return g, ref


@pytest.mark.parametrize("overrides", ALTERNATIVES, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_alternatives_agree(overrides):
    for players in (3, 5):
        compare_variant(overrides, players, 0, observe_every=5)


@pytest.mark.slow
@pytest.mark.parametrize("overrides", ALTERNATIVES, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()))
def test_alternatives_agree_in_full(overrides):
    for players in (2, 3, 4, 5, 7):
        for seed in range(1, 26):
            compare_variant(overrides, players, seed, observe_every=7)


@pytest.mark.slow
@pytest.mark.parametrize("rules_name,players", CONFIGS)
def test_random_games_agree_in_full(rules_name, players):
    for seed in range(300):
        compare(rules_name, players, 1000 + seed, observe=4)


# docs/games/citadels.md §2.3 "Plain purples": every purple played without its text, and a subset of them.
PLAIN_PURPLES = {
    "all": list(R.PURPLE_NAMES),
    "subset": ["Keep", "Dragon Gate", "Library", "Smithy"],
}
PLAIN_CASES = [(name, players) for name in PLAIN_PURPLES for players in (2, 4, 7)]


def test_plain_purples_rules_are_the_references():
    """The rule set's validated plain_purples (deck order) is what the reference makes of the same list."""
    for names in PLAIN_PURPLES.values():
        rules = load_rules("official").with_overrides({"plain_purples": list(reversed(names))})
        assert R.reference_params(rules.params()) == R.reference_params({"plain_purples": names})


@pytest.mark.parametrize("which,players", PLAIN_CASES)
def test_plain_purples_agree(which, players):
    for seed in range(2):
        compare_variant({"plain_purples": PLAIN_PURPLES[which]}, players, seed, observe_every=5)


@pytest.mark.slow
@pytest.mark.parametrize("which,players", PLAIN_CASES)
def test_plain_purples_agree_in_full(which, players):
    for seed in range(1, 101):
        compare_variant({"plain_purples": PLAIN_PURPLES[which]}, players, seed, observe_every=7)


# docs/games/citadels.md §6 "seat points": a nonzero vector (set by the dotted key, as a variant file would)
SEAT_POINTS = [
    ("official", 2, [2, 0]),
    ("official", 4, [0, 1, 2, 3]),
    ("official", 7, [0, 0, 1, 1, 2, 2, 3]),
    ("seed-summary", 4, [3, 2, 1, 0]),
    ("seed-summary", 8, [0, 1, 1, 2, 2, 3, 3, 4]),
]
SEAT_IDS = [f"{base}-{players}p" for base, players, _ in SEAT_POINTS]


def compare_seat_points(base: str, players: int, vector: list[int], seed: int, observe_every: int) -> None:
    """A random game with seat points on both implementations: every decision as in compare_variant, then the
    final scores (totals, ranks, win shares, seat_points) and every seat's final observation, whose log ends
    with the game-end totals."""
    g, ref = compare_variant({f"seat_points.{players}": vector}, players, seed, observe_every, base=base)
    where = f"seat_points {base} n={players} seed={seed}"
    scores = ref.scores()
    assert [s["seat_points"] for s in scores] == vector, where
    for p in range(players):
        assert seen(g, p) == ref.observation(p), f"{where}: final, seat {p}"
    assert ref.observation(0)["log"][-1] == ("game_end", ref.capped, tuple(s["total"] for s in scores)), where


def test_seat_points_rules_are_the_references():
    """The dotted key's rule set gives the reference the full table: that count's vector, zeros elsewhere."""
    for base, players, vector in SEAT_POINTS:
        params = R.reference_params(load_rules(base).with_overrides({f"seat_points.{players}": vector}).params())
        expected = {n: [0] * n for n in R.reference_params(base)["players_allowed"]}
        assert params["seat_points"] == {**expected, players: vector}


@pytest.mark.parametrize("base,players,vector", SEAT_POINTS, ids=SEAT_IDS)
def test_seat_points_agree(base, players, vector):
    for seed in range(2):
        compare_seat_points(base, players, vector, seed, observe_every=5)


@pytest.mark.slow
@pytest.mark.parametrize("base,players,vector", SEAT_POINTS, ids=SEAT_IDS)
def test_seat_points_agree_in_full(base, players, vector):
    for seed in range(1, 101):
        compare_seat_points(base, players, vector, seed, observe_every=7)
