"""The skill axis of `citywright reproduce --skill` (experiments/skill.py): its plan, tables and report."""

from __future__ import annotations

import pandas as pd
import pytest

from agents.citywright.registry import parse_agent
from experiments.citywright import appendix as A
from experiments.citywright import skill as K

# the real tiers' shape with a cheap search in the expert's place (the plan does not depend on the agents' speed)
CHEAP = (
    K.TIERS[0],
    K.TIERS[1],
    K.Tier("expert", "flatmc:budget=2,k=2", "expert-specialist:{d},budget=2,k=2", "expert", True),  # as if it saw comp.
)


def test_every_tier_agent_and_specialist_parses_and_specialists_name_their_district():
    for t in K.TIERS:
        parse_agent(t.agent)
        for d, s in zip(A.DISTRICTS, t.specialists(), strict=True):
            a = parse_agent(s)
            assert a.params["district"] == A.DISTRICTS.index(d)
            assert A._district(str(a)) == d  # the specialist table reads the district from the stored spec


def test_plan_sizes_and_the_compensation_aware_tier_gets_its_own_before_games():
    jobs = K.plan(20_000)
    by = {}
    for j in jobs:
        by.setdefault(j.family, []).append(j)
    assert [t.name for t in K.TIERS] == list(by)
    for t in K.TIERS:
        n = 20_000 if t.size == "big" else 5_000
        assert K.sizes(20_000)[f"verify_{t.size}"] == n // 2
        assert {j.games for j in by[t.name]} == {n}
        figures = [j.figure for j in by[t.name]]
        assert figures.count("specialists") == 2 and figures.count("seats") == 3 and figures.count("solo") == 1
        assert figures.count("seats-before") == (3 if t.compensation_aware else 0)
    assert len({j.key for j in jobs}) == len(jobs)  # one cache file per run


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("skill")
    tables = K.skill_reproduce(20, tmp / "out", tmp / "work", seed=1, n_jobs=1, log=lambda s: None, tiers=CHEAP)
    return tmp, tables


def test_small_skill_run_writes_every_table_chart_and_the_report(small):
    tmp, _ = small
    out = tmp / "out"
    for name in K.TABLES:
        t = pd.read_csv(out / f"{name}.csv")
        assert len(t) > 0, name
    for png in ("skill", "specialists", "seats", "waste", "solo"):
        assert (out / f"{png}.png").stat().st_size > 1000
    text = (out / "REPORT.md").read_text()
    assert "Does commercial's dominance shrink with skill?" in text and "Compensation needed, 4 players" in text


def test_every_claim_and_question_has_a_verdict_per_tier(small):
    _, tables = small
    claims = tables["claims"]
    for claim, t in claims.groupby("claim"):
        assert set(t["family"]) == {"greedy", "strong", "expert"}, claim
    dom = tables["dominance"]
    assert set(dom["district"]) == set(A.DISTRICTS) and set(dom["rules"]) == {"v1.0", "v1.1"}
    assert {"greedy", "strong", "expert"} <= set(dom.columns)
    eff = tables["seat_effects"]
    assert sorted(eff.groupby("players")["tier"].apply(sorted).tolist()) == [["expert", "greedy", "strong"]] * 3
    comp = tables["compensation"]
    assert len(comp) == 9 and comp["solver: re-simulated (pts)"].notna().all()


def test_a_compensation_aware_tier_gets_its_own_games_before_compensation(small):
    _, tables = small
    seats = tables["seats"]
    # the expert's "before" rows come from the games without compensation, which differ from the v1.1 games
    e = seats[(seats["family"] == "expert") & (seats["players"] == 4)]
    before = e[e["compensation"] == "before (none)"]["win_pct"].to_numpy()
    assert len(before) == 4 and abs(before.sum() - 100) < 1e-6


def test_a_second_run_reuses_every_run(small, capsys):
    tmp, tables = small
    lines = []
    again = K.skill_reproduce(20, tmp / "out", tmp / "work", seed=1, n_jobs=1, log=lines.append, tiers=CHEAP)
    assert all("reused" in line for line in lines) and len(lines) == len(K.plan(20, CHEAP)) + 9
    pd.testing.assert_frame_equal(again["dominance"], tables["dominance"])
