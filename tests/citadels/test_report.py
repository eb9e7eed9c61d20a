"""Citadels' balance report at a tiny size: every table, chart and section, the per-round columns it reads."""

from __future__ import annotations

import numpy as np
import pytest

from agents.citadels.registry import parse_agent
from experiments.citadels import report as R
from experiments.citadels.runner import chunk_table
from sim.citadels.rules import load_rules


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    d = tmp_path_factory.mktemp("citadels-report")
    tables = R.reproduce(12, d / "out", d / "work", seed=3, n_jobs=1, log=lambda s: None, command="test",
                         tier_specs={"basic": "basic"})  # fmt: skip
    return d, tables


def test_every_table_chart_and_section_is_written(tiny):
    d, tables = tiny
    out = d / "out"
    for name in R.TABLES:
        assert (out / f"{name}.csv").stat().st_size > 0, name
        assert len(tables[name]) > 0, name
    for name in ("characters", "seats"):
        assert (out / f"{name}.png").read_bytes()[:4] == b"\x89PNG"
    text = (out / "REPORT.md").read_text()
    for section in ("## Summary", "Restricted-play specialists", "The Assassin and the Thief", "## Seats",
                    "## Purple districts", "house rules", "short game", "## Runs"):  # fmt: skip
        assert section in text, section


def test_specialists_are_found_by_their_own_spec(tiny):
    _, tables = tiny
    sp = tables["specialists"]
    assert sorted(sp["rank"]) == list(range(1, 9))
    assert (sp["n"] == R.sizes(12, "basic")["half"]).all()  # one specialist seat per game
    assert (sp["held_share"] > 0).all()


def test_a_specialist_holds_its_rank_more_than_the_base_agent():
    rules = load_rules("official")
    for r in (1, 7):
        spec = R.prefers("basic", r)
        df = chunk_table(rules, 4, [parse_agent(spec)] + [parse_agent("basic")] * 3, "fixed", 5, 0, 60).to_pandas()
        over, _ = R.held_ranks(df)
        mine, theirs = over[df["seat"] == 1, r].sum(), over[df["seat"] != 1, r].sum() / 3
        assert mine > 1.5 * theirs, (r, mine, theirs)


def test_offers_follow_from_the_removals_and_the_earlier_choices():
    """4+ players, open selection: the chooser took a rank from its offer, the first chooser is offered every rank
    not removed, and each later chooser the previous offer less the previous pick."""
    rules = load_rules("official")
    for n in (4, 5, 7):
        df = chunk_table(rules, n, [parse_agent("basic")] * n, "fixed", 9, 0, 30).to_pandas()
        for _, game in df.groupby("game"):
            offers = [o.split("-") for o in game["offered"]]
            chars = [c.split("-") for c in game["characters"]]
            places = [p.split("-") for p in game["positions"]]
            for rnd in range(len(offers[0])):
                by_place = sorted(range(n), key=lambda s: int(places[s][rnd]))
                prev = None
                for k, s in enumerate(by_place):
                    mask, took = int(offers[s][rnd], 16), int(chars[s][rnd])
                    assert mask >> (took - 1) & 1, "took a rank it was not offered"
                    if prev is not None and not (n == 7 and k == 6):
                        assert mask == prev[0] & ~(1 << (prev[1] - 1))
                    prev = (mask, took)
        assert (df["offered"] != "").all()
    df = chunk_table(rules, 3, [parse_agent("basic")] * 3, "fixed", 9, 0, 5).to_pandas()
    assert (df["offered"] == "").all()  # 2-3 players: not reconstructed


def test_purple_build_rounds_are_within_the_game():
    df = chunk_table(load_rules("official"), 4, [parse_agent("basic")] * 4, "fixed", 2, 0, 80).to_pandas()
    cols = [c for c in df.columns if c.startswith("built_")]
    assert len(cols) == 11
    b = df[cols].to_numpy()
    assert (b >= 0).all() and (b <= df["rounds"].to_numpy()[:, None]).all()
    assert (b > 0).sum() > 0
    assert ((b > 0).sum(axis=1) <= df["districts"]).all()
    # a district is in one city at most
    per_game = df.assign(**{c: df[c] > 0 for c in cols}).groupby("game")[cols].sum()
    assert (per_game.to_numpy() <= np.array([2 if c == "built_keep" else 1 for c in cols])).all()
