"""The reproduction of the rulebook's appendix, sweeps, the draw seating and the notebook."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from boardlab.agents.citywright.registry import parse_agent
from boardlab.experiments import compensation as C
from boardlab.experiments import simulate as S
from boardlab.experiments.citywright import appendix as A
from boardlab.experiments.citywright.runner import draw_orders, play_chunk
from boardlab.experiments.sweep import parse_values
from boardlab.sim.citywright.rules import load_rules
from boardlab.sim.seeds import game_seeds
from tests.cli import cli as run_in_process

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "boardlab.experiments.cli"]


def cli(*args, cwd=None):
    return subprocess.run([*CLI, *map(str, args)], capture_output=True, text=True, cwd=cwd or ROOT)


def refused(capsys, *args) -> subprocess.CompletedProcess:
    """The command in this process (tests.cli): for refusals, which end before any work."""
    code, out, err = run_in_process(capsys, *args)
    return subprocess.CompletedProcess(args, code, out, err)


# --- draw seating ---------------------------------------------------------------------


def test_draw_seating_is_uniform_and_independent_of_chunking():
    seeds = game_seeds(7, 0, 40_000)
    order = draw_orders(seeds, 4, 4)
    counts = np.bincount(order.ravel(), minlength=4) / order.size
    assert np.all(np.abs(counts - 0.25) < 0.01), counts
    # seats are drawn independently: all four seats the same agent about 4 * (1/4)^4 of games
    same = (order == order[:, :1]).all(axis=1).mean()
    assert abs(same - 4 / 256) < 0.004, same
    np.testing.assert_array_equal(order[100:200], draw_orders(seeds[100:200], 4, 4))
    pool = [parse_agent(s) for s in A.SPECIALISTS]
    whole = play_chunk(load_rules(), 2, pool, "draw", 3, 0, 12)
    parts = pd.concat([play_chunk(load_rules(), 2, pool, "draw", 3, a, a + 4) for a in (0, 4, 8)], ignore_index=True)
    pd.testing.assert_frame_equal(whole, parts)
    assert whole["agent"].nunique() > 1


def test_draw_pool_size_is_checked():
    with pytest.raises(S.SimulateError, match=f"at most {S.MAX_POOL}"):
        S.make_spec(2, ["random"] * (S.MAX_POOL + 1), 10, 0, load_rules(), "draw")
    assert len(S.make_spec(4, ["random"] * 12, 10, 0, load_rules(), "draw").agents) == 12  # a ladder's pool
    spec = S.make_spec(3, ["random", "greedy"], 10, 0, load_rules(), "draw")
    assert spec.agents == ("random", "greedy")


def test_the_smaller_runs_scale_from_the_main_size_and_never_exceed_it():
    assert A.sizes(2000) == {"main": 2000, "variant": 400, "calibration": 100, "mcts": 20, "verify": 400}  # make run
    assert A.sizes(100_000) == {"main": 100_000, "variant": 20_000, "calibration": 5000, "mcts": 1000, "verify": 20_000}
    assert A.sizes(500) == {"main": 500, "variant": 200, "calibration": 100, "mcts": 20, "verify": 200}  # the floors
    assert A.sizes(20) == {"main": 20, "variant": 20, "calibration": 20, "mcts": 5, "verify": 20}


# --- run cache ------------------------------------------------------------------------


def test_run_or_reuse_reuses_same_spec_and_replaces_another(tmp_path):
    out = tmp_path / "r.parquet"
    spec = S.make_spec(2, ["random"], 30, 1, load_rules())
    _, reused = S.run_or_reuse(spec, out)
    assert not reused
    first = pd.read_parquet(out)
    _, reused = S.run_or_reuse(spec, out)
    assert reused
    other = S.make_spec(2, ["random"], 30, 2, load_rules())
    _, reused = S.run_or_reuse(other, out)
    assert not reused and S.read_metadata(out)["seed"] == 2
    assert not pd.read_parquet(out)["game_seed"].equals(first["game_seed"])


# --- figures and claims ---------------------------------------------------------------


def test_reranking_with_the_played_compensation_gives_the_engines_win_shares():
    # the "after" seat shares come from re-ranking raw scores; they must equal what the engine decided
    df = play_chunk(load_rules(), 3, [parse_agent("greedy")] * 3, "rotate", 5, 0, 150)
    comp = load_rules().data["game"]["compensation"]["3"]
    shares = C.seat_shares(C.game_arrays(df, "citywright"), comp)
    np.testing.assert_allclose(shares, df.groupby("seat")["win_share"].mean().to_numpy())
    job = A.Job("x", "seats", "greedy", 3, ("greedy",), "rotate", "v1.1", (), 150, "v1.1")
    t = A.seat_table({job: df})
    after = t[t["compensation"] == "after (v1.1)"].sort_values("seat")
    np.testing.assert_allclose(after["win_pct"].to_numpy(), 100 * shares)
    assert list(t[t["compensation"] == "before (none)"]["rulebook"]) == [30, 28, 41]


def test_mcts_before_comes_from_its_own_games_without_compensation():
    rules = load_rules()
    greedy = [parse_agent("greedy")] * 2
    played = play_chunk(rules, 2, greedy, "rotate", 1, 0, 60)
    other = play_chunk(rules.with_overrides({"game.compensation.2": [0, 0]}), 2, greedy, "rotate", 2, 0, 60)
    seats = A.Job("s", "seats", "mcts-9", 2, ("greedy",), "rotate", "v1.1", (), 60, "v1.1")
    before = A.Job("b", "seats-before", "mcts-9", 2, ("greedy",), "rotate", "v1.1", (), 60, "v1.1")
    t = A.seat_table({seats: played, before: other}).set_index(["compensation", "seat"])
    np.testing.assert_allclose(
        t.loc["before (none)", "win_pct"].to_numpy(), 100 * other.groupby("seat")["win_share"].mean().to_numpy()
    )
    np.testing.assert_allclose(
        t.loc["after (v1.1)", "win_pct"].to_numpy(), 100 * played.groupby("seat")["win_share"].mean().to_numpy()
    )


def _spec_rows(values, width=2.0):
    return pd.DataFrame(
        {
            "district": list("RCPI"),
            "win_pct": values,
            "lo": [v - width for v in values],
            "hi": [v + width for v in values],
        }
    )


@pytest.mark.parametrize(
    ("values", "district", "strongest", "verdict"),
    [
        ([10, 30, 28, 32], "R", False, "holds"),
        ([27, 30, 28, 32], "R", False, "unclear"),
        ([29, 27, 28, 16], "R", False, "does not hold"),
        ([20, 25, 26, 40], "I", True, "holds"),
        ([20, 25, 38, 40], "I", True, "unclear"),
        ([20, 45, 26, 40], "I", True, "does not hold"),
    ],
)
def test_order_claims(values, district, strongest, verdict):
    assert A._order_claim(_spec_rows(values), district, strongest)[0] == verdict


def test_rating_tiers_rise_with_the_percentile():
    df = pd.DataFrame({"total": np.random.default_rng(0).normal(80, 10, 5000).round()})
    r = A.rating_table(df)
    assert r["score_at_least"].is_monotonic_increasing
    assert r["share_reaching"].is_monotonic_decreasing
    assert abs(r.loc[r["from_percentile"] == 50, "share_reaching"].iloc[0] - 0.5) < 0.03


def test_parse_values():
    assert parse_values("3,4,5") == [3, 4, 5]
    assert parse_values("1.5, true") == [1.5, True]
    assert parse_values("[1,2];[3,4]") == [[1, 2], [3, 4]]
    assert parse_values("[5,18,13]") == [[5, 18, 13]]  # one list: one value, not three
    with pytest.raises(ValueError, match="empty value"):
        parse_values("3,,4")


# --- the command end to end on a tiny size, and the notebook on its output ------------


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    d = tmp_path_factory.mktemp("appendix")
    # the panel section is tested on a small game (tests/core/test_anatomy_section.py)
    r = cli("reproduce", "--games", 20, "--jobs", 1, "--anatomy-games", 0, "--out", d / "out", "--work", d / "work")
    assert r.returncode == 0, r.stderr
    return d, r.stdout


@pytest.mark.slow  # the appendix reproduced end to end
def test_reproduce_writes_every_table_chart_and_section(tiny):
    d, _ = tiny
    out = d / "out"
    for name in ("specialists", "calibration", "waste", "seats", "solver", "claims", "solo", "solo_ratings"):
        assert (out / f"{name}.csv").stat().st_size > 0
    for name in ("specialists", "seats", "waste", "calibration", "solo"):
        assert (out / f"{name}.png").read_bytes()[:4] == b"\x89PNG"
    report = (out / "REPORT.md").read_text()
    for section in (
        "Verdicts",
        "Specialist win shares",
        "Calibration",
        "Two-player waste",
        "Seat win shares",
        "solver",
        "Solo",
        "Assumptions",
        "boardlab reproduce --games 20",
    ):
        assert section in report
    spec = pd.read_csv(out / "specialists.csv")
    assert set(spec["rules"]) == {"v1.0", "v1.0, market depletes", "v1.1", "v1.1, no achievements"}
    book = spec[(spec["rules"] == "v1.1")].groupby("district")["rulebook"].first()
    assert list(book[list("RCPI")]) == list(A.RULEBOOK_SPECIALISTS["v1.1"])
    seats = pd.read_csv(out / "seats.csv")
    # every seat's shares sum to 100% within a family and compensation
    sums = seats.groupby(["players", "family", "compensation"])["win_pct"].sum()
    np.testing.assert_allclose(sums, 100.0)
    assert "solver (re-simulated)" in set(seats["compensation"])
    claims = pd.read_csv(out / "claims.csv")
    assert set(claims["verdict"]) <= {"holds", "unclear", "does not hold"}
    assert len(set(claims["claim"])) == 7


@pytest.mark.slow  # the appendix reproduced end to end
def test_reproduce_again_reuses_runs_and_gives_the_same_tables(tiny):
    d, _ = tiny
    r = cli("reproduce", "--games", 20, "--jobs", 2, "--anatomy-games", 0, "--out", d / "again", "--work", d / "work")
    assert r.returncode == 0, r.stderr
    assert "played" not in r.stdout and r.stdout.count("reused") >= 60
    for name in ("specialists", "seats", "waste", "claims"):
        pd.testing.assert_frame_equal(pd.read_csv(d / "out" / f"{name}.csv"), pd.read_csv(d / "again" / f"{name}.csv"))


@pytest.mark.slow  # the appendix reproduced end to end
def test_appendix_notebook_runs_top_to_bottom(tiny, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    d, _ = tiny
    monkeypatch.setenv("CITYWRIGHT_APPENDIX", str(d / "out"))
    nb = nbformat.read(ROOT / "notebooks" / "appendix.ipynb", as_version=4)
    nbclient.NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(ROOT / "notebooks")}}
    ).execute()
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors
    assert any("image/png" in o.get("data", {}) for c in nb.cells if c.cell_type == "code" for o in c.outputs)


def test_reproduce_bad_input_is_one_line(tmp_path, capsys):
    f = tmp_path / "file"
    f.write_text("x")
    r = refused(capsys, "reproduce", "--games", 20, "--out", f)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "is a file" in r.stderr
    r = refused(capsys, "reproduce", "--games", 5)
    assert r.returncode == 2 and r.stderr.count("\n") == 1


# --- sweep ----------------------------------------------------------------------------


def test_sweep_tabulates_each_value_and_agent(tmp_path):
    r = cli(
        "sweep",
        "--param",
        "scoring.residential.pair_points",
        "--values",
        "3,6",
        "--games",
        12,
        "--out",
        tmp_path / "sw",
    )
    assert r.returncode == 0, r.stderr
    t = pd.read_csv(tmp_path / "sw" / "sweep.csv")
    assert list(t["value"].astype(str).unique()) == ["3", "6"]
    assert t.groupby("value")["agent"].nunique().eq(4).all()
    np.testing.assert_allclose(t.groupby("value")["win_pct"].sum(), 100.0)
    assert (tmp_path / "sw" / "sweep.png").read_bytes()[:4] == b"\x89PNG"
    # the agents replanned: the rule change reached the games (residential scores differ)
    runs = sorted((tmp_path / "sw" / "runs").glob("*.parquet"))
    a, b = (pd.read_parquet(p) for p in runs)
    assert S.read_metadata(runs[0])["rules"]["scoring"]["residential"]["pair_points"] in (3, 6)
    assert not a["residential"].equals(b["residential"])


def test_sweep_of_a_list_element_changes_that_element_only():
    """`--param key[i]` (as tune scoring takes it) sets element i and keeps the rest of the base's list: the
    same rule sets as the whole list given, and a wrong index is an error naming it."""
    from boardlab.experiments.sweep import sweep_rules
    from boardlab.sim.citywright.rules import preset

    base = preset("v1.1")
    tiers = base.data["scoring"]["commercial"]["tier_points"]
    by_element = sweep_rules(base, "scoring.commercial.tier_points[2]", [17, tiers[2]])
    whole = sweep_rules(base, "scoring.commercial.tier_points", [[*tiers[:2], 17], list(tiers)])
    assert by_element == whole and by_element[1] == base and by_element[0] != base
    assert by_element[0].data["scoring"]["commercial"]["tier_points"] == [*tiers[:2], 17]
    assert base.data["scoring"]["commercial"]["tier_points"] == tiers  # the base is not changed in place
    with pytest.raises(ValueError, match="index 3 out of range"):
        sweep_rules(base, "scoring.commercial.tier_points[3]", [1])


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--param", "scoring.residential.nope", "--values", "3"], "scoring.residential.nope"),
        (["--param", "scoring.residential.pair_points", "--values", "3,,4"], "empty value"),
        (["--param", "scoring.residential.pair_points", "--values", "3", "--agents", "nobody"], "nobody"),
        (["--param", "scoring.commercial.tier_points[3]", "--values", "3"], "index 3 out of range"),
        (["--param", "scoring.residential.pair_points[0]", "--values", "3"], "is not a list"),
    ],
)
def test_sweep_bad_input_is_one_line(tmp_path, capsys, args, needle):
    r = refused(capsys, "sweep", *args, "--games", 5, "--out", tmp_path / "sw")
    assert r.returncode == 2, r.stderr
    assert r.stderr.count("\n") == 1 and needle in r.stderr
    assert not (tmp_path / "sw" / "sweep.csv").exists()
