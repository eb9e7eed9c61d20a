"""The skill axis of `citywright reproduce --skill` (experiments/skill.py): its plan, tables and report."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pandas as pd
import pytest

from boardlab.agents.citywright import registry as R
from boardlab.agents.citywright.registry import parse_agent
from boardlab.experiments import simulate as S
from boardlab.experiments.citywright import appendix as A
from boardlab.experiments.citywright import skill as K
from boardlab.experiments.report import rules_tag, run_jobs
from boardlab.sim.citywright.game import GAME
from boardlab.sim.citywright.rules import load_rules
from tests.citywright.test_weights import cache_weights
from tests.cli import cli

SMALL = 8  # games per table of the end-to-end runs (every table, chart and section; not their figures)
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
    assert K.sizes(20) == {"big": 20, "expert": 20, "verify_big": 20, "verify_expert": 20}  # the least table
    assert K.sizes(8) == {"big": 8, "expert": 8, "verify_big": 8, "verify_expert": 8}  # never more than asked


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("skill")
    tables = K.skill_reproduce(SMALL, tmp / "out", tmp / "work", seed=1, n_jobs=1, log=lambda s: None, tiers=CHEAP)
    return tmp, tables


@pytest.mark.slow  # a report end to end
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


@pytest.mark.slow  # a report end to end (its module fixture plays the report)
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


@pytest.mark.slow  # a report end to end (its module fixture plays the report)
def test_a_compensation_aware_tier_gets_its_own_games_before_compensation(small):
    _, tables = small
    seats = tables["seats"]
    # the expert's "before" rows come from the games without compensation, which differ from the v1.1 games
    e = seats[(seats["family"] == "expert") & (seats["players"] == 4)]
    before = e[e["compensation"] == "before (none)"]["win_pct"].to_numpy()
    assert len(before) == 4 and abs(before.sum() - 100) < 1e-6


@pytest.mark.slow  # a report end to end
def test_a_second_run_reuses_every_run(small, capsys):
    tmp, tables = small
    lines = []
    again = K.skill_reproduce(SMALL, tmp / "out", tmp / "work", seed=1, n_jobs=1, log=lines.append, tiers=CHEAP)
    assert all("reused" in line for line in lines) and len(lines) == len(K.plan(SMALL, CHEAP)) + 9
    pd.testing.assert_frame_equal(again["dominance"], tables["dominance"])


# --- under a rule set of one's own (reproduce --skill --rules FILE) ---------------------------------------------

VARIANT_TOML = (
    'base = "v1.1"\nname = "tiny-variant"\n[scoring.park]\nrow_points = 3\n[game.compensation]\n4 = [0, 0, 0, 1]\n'
)


def _variant(folder: Path, text: str = VARIANT_TOML) -> Path:
    path = folder / "tiny-variant.toml"
    path.write_text(text)
    return path


def test_the_default_plan_is_the_rulebooks_as_it_was():
    # the digests of the plan's and the verification runs' jobs as they were before --rules (commit afb99c0):
    # the default report plays exactly the runs it played, under the same keys (its run cache stays valid)
    jobs = K.plan(20_000)
    assert jobs == K.plan(20_000, rules=None)
    assert hashlib.sha256(repr(jobs).encode()).hexdigest()[:16] == "df5548a637f2f7af"
    assert {j.rules for j in jobs} == {"v1.0", "v1.1"} and {j.label for j in jobs if j.figure == "seats"} == {"v1.1"}
    solver = pd.DataFrame(
        [{"family": t.name, "players": p, "choice": 1, "compensation": "/".join(["1"] * p)} for t in K.TIERS
         for p in (2, 3, 4)]
    )  # fmt: skip
    verify = K.verify_jobs(solver, 20_000)
    assert hashlib.sha256(repr(verify).encode()).hexdigest()[:16] == "e22b674d7e898df3"


def test_the_default_plan_needs_no_trained_weights(tmp_path, monkeypatch):
    monkeypatch.setenv(R.WEIGHTS_CACHE_ENV, str(tmp_path / "empty"))
    K.check(20_000)  # the presets play the committed weights
    K.check(20_000, "v1.1")


def test_the_variant_plan_plays_every_table_under_the_variant_and_nothing_of_v10(tmp_path):
    rules = load_rules(_variant(tmp_path))
    jobs = K.plan(20_000, CHEAP, rules)
    tag = rules_tag(rules)
    assert {j.rules for j in jobs} == {rules.to_json()}  # the content, not the file's name
    assert all(tag in j.key for j in jobs) and len({j.key for j in jobs}) == len(jobs)
    assert not {j.key for j in jobs} & {j.key for j in K.plan(20_000, CHEAP)}
    for t in CHEAP:
        mine = [j for j in jobs if j.family == t.name]
        figures = sorted(j.figure for j in mine)
        before = ["seats-before"] * 3 if t.compensation_aware else []
        assert figures == sorted(["specialists", "seats", "seats", "seats", "solo", *before]), t.name
        assert {j.games for j in mine} == {20_000 if t.size == "big" else 5_000}
        spec = next(j for j in mine if j.figure == "specialists")
        assert spec.players == 4 and spec.seating == "rotate" and spec.agents == t.specialists()
        assert sorted(j.players for j in mine if j.figure == "seats") == [2, 3, 4]
        for j in mine:
            want = (0,) * j.players if j.figure == "seats-before" else rules.compensation(j.players)
            assert j.rule_set().compensation(j.players) == want
            assert j.rule_set().scoring == rules.scoring and j.rule_set().name == "tiny-variant"
    # the solver's vectors are re-simulated under the variant too
    solver = pd.DataFrame([{"family": "strong", "players": 4, "choice": 1, "compensation": "3/2/1/0"}])
    (v,) = K.verify_jobs(solver, 20_000, CHEAP, rules)
    assert tag in v.key and v.rule_set().compensation(4) == (3, 2, 1, 0) and v.rule_set().scoring == rules.scoring


def test_a_changed_rules_file_changes_every_run_key_and_its_runs_are_played_again(tmp_path):
    path = _variant(tmp_path)
    first = K.plan(SMALL, CHEAP, load_rules(path))
    path.write_text(VARIANT_TOML.replace("row_points = 3", "row_points = 4"))
    second = K.plan(SMALL, CHEAP, load_rules(path))
    assert not {j.key for j in first} & {j.key for j in second}
    assert all(a.rule_set() != b.rule_set() for a, b in zip(first, second, strict=True))
    # the greedy solo run of each: the first played, then reused; the changed file's is played, not reused
    solo = [next(j for j in p if j.figure == "solo" and j.family == "greedy") for p in (first, second)]
    lines = []
    for job in (solo[0], solo[0], solo[1]):
        run_jobs(GAME, [job], tmp_path / "work", 1, 1, lines.append)
    assert ["reused" in line for line in lines] == [False, True, False]


def test_band_verdicts():
    t = pd.DataFrame({"win_pct": [24.0, 26.0], "lo": [23.0, 25.0], "hi": [25.0, 27.0]})
    assert K._band(t, 25, 2) == "met"
    assert K._band(t, 25, 1.5) == "met by the estimates"  # 23 and 27 cross the edges, 24 and 26 do not
    assert K._band(t, 25, 0.5) == "not met"


def test_missing_weights_under_a_variant_stop_the_command_before_any_work(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv(R.WEIGHTS_CACHE_ENV, str(tmp_path / "empty"))
    path = _variant(tmp_path)
    code, out, err = cli(capsys, "reproduce", "--skill", "--rules", path, "--games", 20, "--out", tmp_path / "out",
                         "--work", tmp_path / "work")  # fmt: skip
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert "tiers strong and expert" in err and R.TRAIN_COMMAND in err and R.rules_hash(load_rules(path)) in err
    assert "Reproducing" not in out and not (tmp_path / "work").exists() and not (tmp_path / "out").exists()
    code, _, err = cli(capsys, "reproduce", "--rules", path, "--games", 20)
    assert code == 2 and "--rules needs --skill" in err


@pytest.fixture(scope="module")
def variant(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("variant")
    path = _variant(tmp)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(R.WEIGHTS_CACHE_ENV, str(tmp / "weights"))
        cache_weights(load_rules(path))
        tables = K.skill_reproduce(SMALL, tmp / "out", tmp / "work", seed=12, log=lambda s: None, tiers=CHEAP,
                                   command="boardlab reproduce --skill --rules tiny", rules=str(path))  # fmt: skip
    return tmp, path, tables


@pytest.mark.slow  # a report end to end
def test_a_variant_report_has_the_targets_per_tier_and_names_its_rules(variant):
    tmp, path, tables = variant
    out = tmp / "out"
    for name in K.VARIANT_TABLES:
        assert len(pd.read_csv(out / f"{name}.csv")) > 0, name
    assert not (out / "claims.csv").exists() and not (out / "waste.csv").exists()
    for png in ("skill", "specialists", "seats", "solo"):
        assert (out / f"{png}.png").stat().st_size > 1000
    head = (out / "REPORT.md").read_text().splitlines()[:4]
    rules = load_rules(path)
    assert "tiny-variant" in head[0] and str(path) in head[2] and R.rules_hash(rules) in head[2]
    assert head[3] == "Command: `boardlab reproduce --skill --rules tiny`  "
    targets = tables["targets"]
    for tier in ("greedy", "strong", "expert"):
        t = targets[targets["tier"] == tier]
        assert len(t) == 6 and set(t["required"]) == {"no (context)" if tier == "greedy" else "yes"}, tier
        assert set(t["verdict"]) <= {"met", "met by the estimates", "not met", "compare"}
    specialists = targets[targets["target"].str.startswith("specialists")]
    assert len(specialists) == 6 and specialists["evidence"].str.match(r"R .*, C .*, P .*, I ").all()  # book order
    seats = tables["seats"]
    after = seats[(seats["compensation"] == "after (tiny-variant)") & (seats["players"] == 4)]
    assert set(after["vector"]) == {"0/0/0/1"} and set(after["family"]) == {"greedy", "strong", "expert"}
    assert set(tables["specialists"]["rules"]) == {"tiny-variant"}
    w = tables["weights"].set_index("tier")
    assert w.loc["greedy", "weights"] == "none (no learned value)"
    assert w.loc["strong", "weights"] == w.loc["expert", "weights"] == R.rules_hash(rules)
    assert tables["weights"]["trained under these rules"].tolist() == [False, True, True]
    m = tables["means"]
    assert len(m) == 15 and (m["total"] > 0).all()


@pytest.mark.slow  # a report end to end (its module fixture plays the report)
def test_every_run_of_a_variant_report_played_its_rules_with_the_seed_given(variant):
    tmp, path, _ = variant
    files = sorted((tmp / "work").glob("*.parquet"))
    assert len(files) == len(K.plan(SMALL, CHEAP, load_rules(path))) + 9
    for f in files:
        spec = S.read_metadata(f)["spec"]
        assert spec["seed"] == 12 and json.loads(spec["rules"])["name"] == "tiny-variant", f.name
