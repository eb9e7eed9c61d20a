"""`citywright tune scoring`: a known answer, resume after kill -9, bad --param strings, best.toml, the pieces."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from experiments import compensation as C
from experiments import tune_scoring as T
from experiments.cli import main
from sim.citywright.rules import load_rules
from tests.core.test_simulate import sigint_default

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "experiments.cli"]


def cli(*args, **kw):
    return subprocess.run([*CLI, *map(str, args)], capture_output=True, text=True, cwd=ROOT, **kw)


# --- parameters --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("scoring.commercial.nope=1:2", "scoring.commercial.nope: unknown key"),
        ("scoring.comercial.isolated_points=1:2", "scoring.comercial: unknown key"),
        ("scoring.commercial.isolated_points=5:2", "LO 5 is above HI 2"),
        ("scoring.commercial.isolated_points=0.5:3", "is an integer key, but 0.5 is not an integer"),
        ("scoring.commercial.isolated_points=0:3.0:int", "3.0 is not an integer"),
        ("scoring.commercial.tier_points[3]=20:35:int", "index 3 out of range (scoring.commercial.tier_points has 3"),
        ("scoring.commercial.isolated_points[0]=1:2", "is not a list"),
        ("scoring.commercial=1:2", "is a table, not a number"),
        ("scoring.residential.largest=1:2", "is 'pairs', not a number"),
        ("scoring.commercial.isolated_points", "expected PATH=LO:HI"),
        ("scoring.commercial.isolated_points=1:x", "'x' is not a number"),
        ("scoring.commercial.isolated_points=1:2:float", "expected LO:HI or LO:HI:int"),
        ("scoring.commercial.isolated_points=2:2", "nothing to tune"),
        ("scoring.commercial.tier_thresholds[1]=3:12", "LO = 3 is not a valid rule value"),
        ("scoring.commercial.tier_points[2]=20:300", "HI = 300 is not a valid rule value"),
    ],
)
def test_bad_param_is_one_line_and_writes_nothing(tmp_path, capsys, text, needle):
    out = tmp_path / "tune"
    with pytest.raises(SystemExit) as e:
        main(["tune", "scoring", "--param", text, "--trials", "2", "--games", "8", "--out", str(out)])
    err = capsys.readouterr().err
    assert e.value.code == 2, err
    assert err.count("\n") == 1 and needle in err, err
    assert not out.exists()


def test_param_paths_with_indices_set_one_element_of_a_copy():
    base = load_rules("v1.1")
    p = T.parse_param("scoring.commercial.tier_points[2]=20:35:int", base)
    assert (p.key, p.index, p.base, p.integer) == ("scoring.commercial.tier_points", (2,), 30, True)
    q = T.parse_param("game.compensation.4[0]=0:5", base)  # integer key: sampled as an integer without :int
    rules = T.rules_for(base, [p, q], {p.name: 24, q.name: 4})
    assert rules.scoring["commercial"]["tier_points"] == [5, 15, 24]
    assert rules.compensation(4) == (4, 2, 1, 0)
    assert base.scoring["commercial"]["tier_points"] == [5, 15, 30]  # the base is untouched
    assert T.rules_for(base, [p], {p.name: 30}) == base
    with pytest.raises(T.TuneError, match="given twice"):
        T.parse_params([p.name + "=20:35", p.name + "=21:30"], base)


def test_max_changes_keeps_the_largest_relative_moves():
    base = load_rules("v1.1")
    ps = T.parse_params(
        ["scoring.park.row_points=0:4", "scoring.park.column_points=0:10", "scoring.industrial.ring_points=0:4"], base
    )
    values = {ps[0].name: 4, ps[1].name: 6, ps[2].name: 3}  # moves 2/4, 4/10, 1/4 of their ranges
    assert T.limit_changes(ps, values, 2) == {ps[0].name: 4, ps[1].name: 6, ps[2].name: 2}
    assert T.limit_changes(ps, values, 1) == {ps[0].name: 4, ps[1].name: 2, ps[2].name: 2}
    assert T.limit_changes(ps, values, None) == values
    assert T.excess_changes(ps, values, 1) == 2 and T.excess_changes(ps, values, 3) == 0
    assert T.excess_changes(ps, {**values, ps[0].name: 2}, 1) == 1  # at the base: not a change


def test_cma_restarts_when_a_run_stops_improving():
    class Trial:
        def __init__(self, value, invalid=False):
            self.user_attrs = {"value": value, **({"invalid": "x"} if invalid else {})}

    values = [50, 40, 45, 41, 42, 40, 90, 30, 31, 32]  # run 0 stalls after 40: 4 trials without a better one
    runs = T.restarts([Trial(v) for v in values], patience=4)
    assert runs == [0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1]  # run 1 starts at the 7th trial; the last entry is the next
    assert T.restarts([Trial(1, invalid=True)] * 3, patience=3)[-1] == 1  # invalid rules never improve a run
    assert T.restarts([], patience=3) == [0]


def test_loss_bootstrap_and_penalty():
    # two agents, 4 games: A wins 3, B wins 1 -> shares 0.75 / 0.25 -> 2 * 25² points²
    df = pd.DataFrame(
        {
            "game_seed": np.repeat([1, 2, 3, 4], 2),
            "seat": [1, 2] * 4,
            "agent": ["A", "B", "B", "A"] * 2,
            "win_share": [1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 1.0, 0.0],
            "total": 100,
        }
    )
    assert T.loss(df, "specialists", 2) == pytest.approx(1250)
    assert T.loss(df, "seats", 2) == pytest.approx(1250)  # seat 1 wins 3 of 4
    assert T.loss(df, "both", 2) == pytest.approx(2500)
    lo, hi = T.bootstrap_loss(df, "specialists", 2, reps=500)
    assert 0 <= lo <= 1250 <= hi <= 5000
    spec = T.make_tune_spec(
        load_rules("v1.1"), [], "specialists", 2, ["greedy", "random"], 8, 2, 0, 10.0, game="citywright"
    )
    assert T._block_value(spec, T.BlockResult(100.0, 109.0), 100.0)[0] == 100.0
    value, change = T._block_value(spec, T.BlockResult(100.0, 112.0), 100.0)
    assert change == pytest.approx(0.12) and value == pytest.approx(100 + T.PENALTY + T.PENALTY_SLOPE * 0.02)


def test_false_prune_rate_exceeds_the_per_look_threshold_only_by_the_repeated_looks():
    one_look = T.false_prune_rate(blocks=7, p=0.05, after=6)  # a single look at 6 blocks
    many = T.false_prune_rate(blocks=10, p=0.05, after=5)
    assert one_look <= 0.05 + 0.005
    assert one_look < many < 0.2
    assert T.false_prune_rate(blocks=10, p=0.0, after=5) == 0.0


# --- a known answer -----------------------------------------------------------------------

# Random players' moves do not depend on the seat compensation, so on the tuning games the loss of every
# compensation value can be computed exactly by re-ranking the base's games (experiments.compensation): the
# oracle.  The base gives seat 2 six points, far from balanced; a second, irrelevant parameter and
# --max-changes 1 make the search pick which one to move.
KNOWN = ["--param", "game.compensation.2[1]=-8:8", "--param", "scoring.park.adjacent_points=0:3",
         "--objective", "seats", "--agents", "random", "--players", 2, "--games", 1600, "--blocks", 8,
         "--max-changes", 1, "--seed", 5, "--quiet"]  # fmt: skip


def test_known_answer_is_found_within_a_small_budget(tmp_path, capsys, monkeypatch):
    d = tmp_path
    (d / "base.toml").write_text('base = "v1.1"\n[game.compensation]\n"2" = [0, 6]\n')
    args = ["tune", "scoring", *map(str, KNOWN), "--rules", str(d / "base.toml"), "--trials", "14",
            "--verify-games", "2000", "--out", str(d / "tune")]  # fmt: skip
    monkeypatch.setattr(sys, "argv", ["citywright", *args])  # what the report quotes
    main(args)
    capsys.readouterr()
    base = load_rules(d / "base.toml")
    params = T.parse_params(["game.compensation.2[1]=-8:8", "scoring.park.adjacent_points=0:3"], base)
    spec = T.make_tune_spec(base, params, "seats", 2, ["random"], 1600, 8, 5, max_changes=1, game="citywright")
    blocks = sorted((d / "tune" / "runs" / T._rules_key(base)).glob("block-*.parquet"))
    assert len(blocks) == spec.blocks  # the base's games, kept by the run
    arrays = C.game_arrays(pd.concat([pd.read_parquet(b) for b in blocks], ignore_index=True), "citywright")
    oracle = {c: float((((C.seat_shares(arrays, [0, c]) - 0.5) * 100) ** 2).sum()) for c in range(-8, 9)}
    best_c = min(oracle, key=oracle.get)
    trials = pd.read_csv(d / "tune" / "trials.csv")
    best = trials[trials["state"].isin(["complete", "base"])].sort_values(["value", "trial"]).iloc[0]
    assert abs(best["game.compensation.2[1]"] - best_c) <= 1, (best, oracle)
    assert best["scoring.park.adjacent_points"] == 1  # the irrelevant parameter stays at the base
    assert best["loss"] == pytest.approx(oracle[int(best["game.compensation.2[1]"])], rel=1e-5)
    assert (trials["changes"] <= 1).all()
    assert len(trials) == 14 and trials["trial"].is_unique and trials.loc[0, "state"] == "base"
    assert trials["pruned"].any()  # the far-off values were stopped early
    v = pd.read_csv(d / "tune" / "verify.csv")
    seats = v[(v["kind"] == "seat") & (v["rules"] == "best")]
    assert (seats["win_pct"] - 50).abs().max() < 4  # near balance on fresh seeds (2,000 games: ±2.2 points)
    assert v[(v["kind"] == "seat") & (v["rules"] == "base")]["win_pct"].max() > 60
    for f in ("REPORT.md", "loss.png", "importance.png", "win_shares.png", "best.toml", "tune.json"):
        assert (d / "tune" / f).exists(), f
    assert not (d / "tune" / ".lock").exists()
    text = (d / "tune" / "REPORT.md").read_text()
    assert "Verification" in text and "WilcoxonPruner" in text and "`citywright tune scoring --param" in text

    # best.toml round-trips through `citywright rules`
    best_rules = load_rules(d / "tune" / "best.toml")
    assert best_rules.compensation(2) == (0, int(best["game.compensation.2[1]"]))
    assert best_rules.name == "base-tuned" and best_rules.scoring == base.scoring
    main(["rules", str(d / "tune" / "best.toml")])
    printed = capsys.readouterr().out
    (d / "again.toml").write_text(printed)
    assert load_rules(d / "again.toml") == best_rules
    main(["rules", str(d / "again.toml")])
    assert capsys.readouterr().out == printed

    # an existing study needs --resume, and --resume needs the same settings
    for extra, needle in (([], "use --resume"), (["--games", "800", "--resume"], "block_games was 200, now 100")):
        with pytest.raises(SystemExit) as e:
            main(["tune", "scoring", *map(str, KNOWN), "--rules", str(d / "base.toml"), "--out", str(d / "tune"),
                  *extra])  # fmt: skip
        err = capsys.readouterr().err
        assert e.value.code == 2 and err.count("\n") == 1 and needle in err, err


# --- resume after kill -9 -----------------------------------------------------------------

RESUME = ["tune", "scoring", "--param", "game.compensation.2[1]=-6:6", "--param", "scoring.park.row_points=0:4",
          "--objective", "seats", "--agents", "random", "--players", 2, "--games", 1200, "--blocks", 6,
          "--trials", 8, "--verify-games", 0, "--seed", 3, "--quiet"]  # fmt: skip


def _finished(db: Path) -> int:
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(db, timeout=5) as con:
            return con.execute("SELECT count(*) FROM trials WHERE state IN ('COMPLETE', 'PRUNED')").fetchone()[0]
    except sqlite3.OperationalError:  # tables not created yet
        return 0


@pytest.mark.parametrize(
    ("sampler", "how"),
    [
        ("tpe", "kill -9"),
        pytest.param("cmaes", "kill -9", marks=pytest.mark.slow),
        pytest.param("tpe", "ctrl-c", marks=pytest.mark.slow),
    ],
)
def test_resume_after_an_interruption_continues_the_same_study(tmp_path, capsys, sampler, how):
    args = [*map(str, RESUME), "--sampler", sampler]
    main([*args, "--out", str(tmp_path / "whole")])  # uninterrupted, for reference
    out = tmp_path / "cut"
    p = subprocess.Popen([*CLI, *args, "--out", str(out)], cwd=ROOT, start_new_session=True, preexec_fn=sigint_default,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    t = time.time()
    while _finished(out / "study.db") < 3 and time.time() - t < 120:
        assert p.poll() is None, p.stderr.read()
        time.sleep(0.02)
    time.sleep(0.15)  # most likely in the middle of a trial now
    if how == "kill -9":
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
    else:
        os.killpg(p.pid, signal.SIGINT)
        assert p.wait(timeout=60) == 130
        err = p.stderr.read()
        assert "--resume" in err and "Traceback" not in err, err
    with sqlite3.connect(out / "study.db") as con:
        before = con.execute("SELECT number, state, value FROM trials t LEFT JOIN trial_values v "
                             "ON t.trial_id = v.trial_id ORDER BY number").fetchall()  # fmt: skip
    done = [row for row in before if row[1] in ("COMPLETE", "PRUNED")]
    if how == "ctrl-c":  # the running trial was marked failed on the way out
        assert all(row[1] != "RUNNING" for row in before)
    assert 3 <= len(done) < 8 and not (out / "trials.csv").exists()
    main([*args, "--out", str(out), "--resume"])
    assert "trial" in capsys.readouterr().out
    with sqlite3.connect(out / "study.db") as con:
        after = dict(con.execute("SELECT number, state FROM trials").fetchall())
    for number, state, _ in before:  # finished trials kept, an interrupted one failed (and asked again)
        assert after[number] == (state if state != "RUNNING" else "FAIL")
    cut = pd.read_csv(out / "trials.csv")
    ref = pd.read_csv(tmp_path / "whole" / "trials.csv")
    assert len(cut) == 8 and cut["trial"].is_unique
    keep = [c for c in ref.columns if c not in ("trial", "seconds")]
    k = len(done)  # the trials finished before the kill are the uninterrupted study's first ones
    pd.testing.assert_frame_equal(cut[keep].head(k), ref[keep].head(k))
    if sampler == "tpe":  # TPE's draws depend on the history alone: the whole study is the same
        pd.testing.assert_frame_equal(cut[keep], ref[keep])
        assert load_rules(out / "best.toml") == load_rules(tmp_path / "whole" / "best.toml")


def test_the_command_names_only_the_files_it_wrote_and_says_how_many_games_a_trial_plays(tmp_path, capsys):
    out = tmp_path / "t"
    main(["tune", "scoring", "--param", "scoring.park.row_points=1:4", "--objective", "seats", "--agents", "random",
          "--players", "2", "--games", "9", "--blocks", "2", "--trials", "2", "--verify-games", "0", "--quiet",
          "--out", str(out)])  # fmt: skip
    printed = capsys.readouterr().out
    assert "(a trial plays 12 games: 2 seed blocks of 6, whole rotations of the 2 seats)" in printed
    wrote = next(line for line in printed.splitlines() if line.startswith("wrote "))
    assert "verify.csv" not in wrote and not (out / "verify.csv").exists()
    for name in ("best.toml", "trials.csv", "REPORT.md"):
        assert name in wrote and (out / name).exists()
    assert T.make_tune_spec(load_rules("v1.1"), [], "seats", 2, ["random"], 12, 2, 0, game="citywright").games == 12
    with pytest.raises(T.TuneError, match="at least 20 games"):
        T.make_tune_spec(load_rules("v1.1"), [], "seats", 2, ["random"], 19, 10, 0, game="citywright")
