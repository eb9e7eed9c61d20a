"""Cartographers' numba engine against the plain-Python reference (the oracle), written independently.

(a) Random maps scored on all 16 scoring cards and the monster penalty agree (kernel
    ``score_cards`` vs ``reference.score_card``): >= 10,000 maps under the preset, more under
    variants that take every other value of the scoring parameters.
(b) Random games, both implementations driven by the same moves, agree on the whole
    observation (``snapshot()``) after every move, on the random policy's choice (so on the
    listing's length and order at every decision), on the full listing every few decisions, and
    on ``scores()`` at the end: >= 300 games per player count 1-5 and map side, and fewer under
    rule variants.

The big cases are marked slow; the small ones run in every ``pytest -m 'not slow'``.
"""

from __future__ import annotations

import numpy as np
import pytest

from boardlab.sim.cartographers import engine as E
from boardlab.sim.cartographers import reference as R
from boardlab.sim.cartographers.api import Game, grid_to_planes
from boardlab.sim.cartographers.reference import RefGame
from boardlab.sim.cartographers.rules import STATE_LETTERS, load_rules
from boardlab.sim.cartographers.tables import tables_for

GAMES_PER_CASE = 300
LIST_EVERY = 8  # compare the full listing of legal moves every LIST_EVERY-th decision

A = load_rules("base-a")
B = load_rules("base-b")

# Every scoring parameter at its other value (and side B's ruins).
SCORING_VARIANT = B.with_overrides(
    {
        "scoring.penalty_counts_empty_ruins": False,
        "scoring.sentinel_wood.corner_once": False,
        "scoring.stoneside_forest.link": "any",
        "scoring.golden_granary.water_points": 2,
        "scoring.golden_granary.filled_ruins_count": False,
        "scoring.greengold_plains.types": ["forest", "farm", "water", "monster", "mountain", "wasteland"],
        "scoring.shieldgate.second": "distinct",
    }
)

# Rule variants for whole games: every string parameter at its other value, other numbers.
GAME_VARIANTS = {
    "alternatives-b": SCORING_VARIANT.with_overrides(
        {
            "setup.edict_order": "category",
            "draw.fallback_from": "card",
            "ambush.pass_clockwise_to": "previous",
            "coins.cap": 3,
            "coins.mountain_to_owner": False,
            "solo.walk": "side",
            "solo.below_titles": "lowest",
            "ties.monster_penalty": False,
        }
    ),
    "numbers-a": A.with_overrides(
        {
            "setup.edicts": [27, 32, 36, 40],
            "scoring.monster_penalty": False,
            "cards.explore.16.time": 3,
            "cards.explore.07.terrains": ["water", "monster"],
            "seasons.winter.threshold": 3,
            "seasons.spring.edicts": ["C", "A"],
            "draw.fallback_terrains": ["monster", "water"],
            "coins.cap": 5,
        }
    ),
    # Every season runs through the whole deck: maps fill up, so the 1x1 fallback, the full-map
    # skip (draw and monster), ignored solo ambushes and the coin cap all occur.
    "long-seasons-a": A.with_overrides({f"seasons.{s}.threshold": 16 for s in ("spring", "summer", "fall", "winter")}),
}


# --- (a) random maps ------------------------------------------------------------------------------


def random_grids(n: int, seed: int, rules) -> list[str]:
    """Maps of every density, from empty to full, often dominated by one or two terrains.

    A third keep the side's mountains and wasteland; the others have mountains (and wasteland)
    anywhere, which the cards must handle as well.
    """
    rng = np.random.default_rng(seed)
    m = rules.map
    out = []
    for _ in range(n):
        fill = rng.choice([rng.random(), 1.0, 0.9 + 0.1 * rng.random()], p=[0.6, 0.15, 0.25])
        weights = rng.dirichlet(np.ones(7) * rng.choice([0.2, 1.0, 5.0]))  # states 1..7
        cells = np.where(rng.random(121) < fill, 1 + rng.choice(7, size=121, p=weights), 0)
        if rng.random() < 1 / 3:
            cells[list(m.mountains)] = 6
            cells[list(m.wasteland)] = 7
            cells[[i for i in range(121) if cells[i] >= 6 and i not in m.mountains + m.wasteland]] = 1
        out.append("".join(STATE_LETTERS[c] for c in cells))
    return out


def check_maps(rules, n: int, seed: int) -> None:
    grids = random_grids(n, seed, rules)
    tb = tables_for(rules, 1)
    planes = np.array([grid_to_planes(g, rules) for g in grids])
    got = np.zeros((n, 16), dtype=np.int32)
    E.score_cards(planes, got, tb.rp, tb.masks)
    nonzero = np.zeros(16, dtype=int)
    for k, g in enumerate(grids):
        want = [R.score_card(c, g, rules.map, rules) for c in range(26, 42)]
        assert list(got[k]) == want, f"map {k}: {g}\nkernel    {list(got[k])}\nreference {want}"
        pen = R.monster_penalty(g, rules.map, rules)
        assert E.monster_penalty(planes[k], tb.rp, tb.masks) == pen, f"penalty on map {k}: {g}"
        nonzero += np.array(want) != 0
    # the maps exercise every card: each scores something on a fair share of them
    assert (nonzero > n // 50).all(), dict(zip(range(26, 42), nonzero, strict=True))


def test_random_maps_agree_small():
    check_maps(A, 1_000, seed=1)
    check_maps(SCORING_VARIANT, 500, seed=2)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "rules", "n"), [("base-a", A, 10_000), ("variant", SCORING_VARIANT, 10_000)])
def test_random_maps_agree(name, rules, n):
    check_maps(rules, n, seed=hash(name) % 1000)


@pytest.mark.slow
def test_random_maps_agree_side_b():
    check_maps(B, 3_000, seed=3)


# --- (b) games move by move ------------------------------------------------------------------------


def check_game(players: int, rules, seed: int, list_every: int = LIST_EVERY) -> None:
    g = Game(players, rules, seed)
    ref = RefGame(players, rules, seed)
    assert g.snapshot() == ref.snapshot(), f"setup of seed {seed}"
    step = 0
    while not g.done:
        if step % list_every == 0:
            assert g.legal_moves() == ref.legal_moves(), f"seed {seed}, decision {step}: listings differ"
        m = g.random_move()
        assert m == ref.random_move(), f"seed {seed}, decision {step}: random choices differ"
        g.apply(m)
        ref.apply(m)
        assert g.snapshot() == ref.snapshot(), f"seed {seed}, after decision {step}: {m}"
        step += 1
    assert ref.done
    assert g.scores() == ref.scores(), f"seed {seed}: final scores"


@pytest.mark.parametrize("players", range(1, 6))
def test_games_agree_small(players):
    for rules in (A, B):
        for seed in range(2):
            check_game(players, rules, 1000 * players + seed, list_every=1)
    for rules in GAME_VARIANTS.values():
        check_game(players, rules, 77 + players, list_every=2)


@pytest.mark.slow
@pytest.mark.parametrize("side", ["base-a", "base-b"])
@pytest.mark.parametrize("players", range(1, 6))
def test_games_agree(players, side):
    rules = load_rules(side)
    for seed in range(GAMES_PER_CASE):
        check_game(players, rules, seed)


@pytest.mark.slow
@pytest.mark.parametrize("variant", list(GAME_VARIANTS))
def test_games_agree_under_variants(variant):
    rules = GAME_VARIANTS[variant]
    for players in range(1, 6):
        for seed in range(20):
            check_game(players, rules, 5000 + seed)
