"""`tune scoring` of Citywright's rules: a known answer (by re-ranking its seat compensation), resume after kill -9,
bad --param strings, best.toml, placeholders, seat games, the tiers' agents and --train."""

from __future__ import annotations

import json
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

from boardlab.experiments import compensation as C
from boardlab.experiments import tuning as T
from boardlab.experiments.cli import main
from boardlab.experiments.cli._app import command_line
from boardlab.experiments.tuning import play as tuning_play
from boardlab.experiments.tuning.objective import BlockResult, _block_value
from boardlab.experiments.tuning.play import _rules_key
from boardlab.sim.citywright.rules import load_rules
from boardlab.sim.games import get_game
from tests.core.test_simulate import sigint_default
from tests.core.test_tune import tune_spec

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "boardlab.experiments.cli"]


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
    spec = tune_spec(load_rules("v1.1"), [], "specialists", 2, ["greedy", "random"], 8, 2, 0, game="citywright",
                     keep_mean_total=10.0)  # fmt: skip
    assert _block_value(spec, BlockResult(100.0, 109.0), 100.0)[0] == 100.0
    value, change = _block_value(spec, BlockResult(100.0, 112.0), 100.0)
    assert change == pytest.approx(0.12) and value == pytest.approx(100 + T.PENALTY + T.PENALTY_SLOPE * 0.02)


# --- a known answer -----------------------------------------------------------------------

# Random players' moves do not depend on the seat compensation, so on the tuning games the loss of every
# compensation value can be computed exactly by re-ranking the base's games (boardlab.experiments.compensation): the
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
    spec = tune_spec(base, params, "seats", 2, ["random"], 1600, 8, 5, max_changes=1, game="citywright")
    blocks = sorted((d / "tune" / "runs" / _rules_key(base)).glob("seats-2p-block-*.parquet"))
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
    seats = v[(v["kind"] == "seat 2p") & (v["rules"] == "best")]
    assert (seats["win_pct"] - 50).abs().max() < 4  # near balance on fresh seeds (2,000 games: ±2.2 points)
    assert v[(v["kind"] == "seat 2p") & (v["rules"] == "base")]["win_pct"].max() > 60
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


def _study(out: Path):
    import optuna

    return optuna.load_study(study_name=None, storage=f"sqlite:///{out / 'study.db'}")


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
        pytest.param("tpe", "kill -9", marks=pytest.mark.slow),  # a tuning study killed and resumed
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
    # the interrupted session's time and trials are kept: its line is rewritten after every trial
    sessions = _study(out).user_attrs["sessions"]
    assert len(sessions) == 2 and sessions[0]["seconds"] > 0 and sessions[1]["trials"] == 8
    assert len(done) - 1 <= sessions[0]["trials"] <= len(done) and sessions[0]["games"] > 0
    assert "(2 session(s)" in (out / "REPORT.md").read_text()
    with sqlite3.connect(out / "study.db") as con:
        after = dict(con.execute("SELECT number, state FROM trials").fetchall())
    for number, state, _ in before:  # finished trials kept, an interrupted one failed (and asked again)
        assert after[number] == (state if state != "RUNNING" else "FAIL")
    cut = pd.read_csv(out / "trials.csv")
    ref = pd.read_csv(tmp_path / "whole" / "trials.csv")
    assert len(cut) == 8 and cut["trial"].is_unique
    keep = [c for c in ref.columns if c not in ("trial", "seconds", "cpu_seconds")]
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
    assert tune_spec(load_rules("v1.1"), [], "seats", 2, ["random"], 12, 2, 0, game="citywright").games == 12
    with pytest.raises(T.TuneError, match="at least 20 games"):
        tune_spec(load_rules("v1.1"), [], "seats", 2, ["random"], 19, 10, 0, game="citywright")


# --- the settings ------------------------------------------------------------------------------


def test_the_command_hands_its_options_to_the_task_as_one_settings_object(tmp_path, capsys, monkeypatch):
    seen = []

    def check(settings):
        seen.append(settings)
        raise T.TuneError("checked")

    monkeypatch.setattr(T, "check", check)
    with pytest.raises(SystemExit) as e:
        main(["tune", "scoring", "--param", "scoring.park.row_points=1:4", "--param", "game.compensation.3[1]=0:4:int",
              "--objective", "both", "--agents", "random,greedy", "--players", "3", "--seat-players", "2,3",
              "--seat-games", "30", "--allow-placeholder", "achievements.cards.green_canopy", "--stop-z", "2.5",
              "--race", "40", "--train-seed", "7", "--trials", "9", "--games", "60", "--blocks", "3",
              "--verify-games", "12", "--keep-mean-total", "15", "--max-changes", "1", "--sampler", "tpe",
              "--prune-p", "0.1", "--seed", "11", "--out", str(tmp_path / "t"), "--resume", "--quiet",
              "--chunk-size", "5"])  # fmt: skip
    assert e.value.code == 2 and capsys.readouterr().err.strip().endswith("error: checked")
    (s,) = seen
    assert [p.name for p in s.what.params] == ["scoring.park.row_points", "game.compensation.3[1]"]
    assert (s.what.objective, s.what.keep_mean_total, s.what.max_changes, s.what.allow_placeholders) == (
        "both", 15.0, 1, ("achievements.cards.green_canopy",))  # fmt: skip
    assert s.what.base == load_rules("v1.1")
    assert s.play == T.Play(game="citywright", players=3, agents=("random", "greedy"), games=60, seat_players=(2, 3),
                            seat_agent=None, seat_games=30, train=None, train_seed=7)  # fmt: skip
    assert s.search == T.Search(blocks=3, seed=11, sampler="tpe", prune_p=0.1, stop_z=2.5, race=40.0, trials=9)
    assert (s.session.out, s.session.work, s.session.resume) == (tmp_path / "t", tmp_path / "t" / "runs", True)
    assert (s.session.verify_games, s.session.jobs) == (12, 1)
    assert s.session.where == {"backend": "loky", "scheduler": None, "chunk_size": 5}
    assert s.session.command == command_line()  # this invocation, quoted in the report
    assert not (tmp_path / "t").exists()  # checked, nothing written


# --- placeholders ------------------------------------------------------------------------


def test_rules_marks_the_placeholder_keys_and_the_marked_listing_loads_unchanged(tmp_path, capsys):
    main(["rules"])
    printed = capsys.readouterr().out
    marked = [line.split("=")[0].strip() for line in printed.splitlines() if "# placeholder:" in line]
    assert marked == ["threshold", "points", "threshold", "points", "solo_threshold", "points"], printed
    assert "missing (docs/games/citywright.md §7)" in printed
    (tmp_path / "r.toml").write_text(printed)
    assert load_rules(tmp_path / "r.toml") == load_rules("v1.1")
    main(["rules", "--placeholders"])
    listed = [line.split()[0] for line in capsys.readouterr().out.splitlines()]
    assert listed == list(get_game("citywright").placeholders(load_rules("v1.1")))
    assert "achievements.cards.green_canopy.points" in listed
    assert "achievements.cards.green_canopy.enabled" not in listed  # numbers only
    main(["rules", "--game", "cartographers", "--placeholders"])
    assert "no placeholder keys" in capsys.readouterr().out  # a game's default: none


def test_a_card_a_variant_adds_is_a_placeholder_too(tmp_path):
    (tmp_path / "v.toml").write_text(
        'base = "v1.1"\n[achievements.cards.tall]\nkind = "distinct_shapes"\nthreshold = 3\npoints = 2\n'
        "enabled = true\n"
    )
    marks = get_game("citywright").placeholders(load_rules(tmp_path / "v.toml"))
    assert {"achievements.cards.tall.threshold", "achievements.cards.tall.points"} <= set(marks)


def _one_line_error(capsys, args):
    with pytest.raises(SystemExit) as e:
        main(args)
    err = capsys.readouterr().err
    assert e.value.code == 2 and err.count("\n") == 1, err
    return err


def test_a_placeholder_param_is_refused_unless_allowed_by_key_or_prefix(tmp_path, capsys):
    args = ["tune", "scoring", "--param", "achievements.cards.green_canopy.points=0:16", "--param",
            "scoring.park.row_points=1:4", "--objective", "seats", "--agents", "random", "--players", "2",
            "--games", "8", "--blocks", "2", "--trials", "1", "--verify-games", "0", "--quiet"]  # fmt: skip
    err = _one_line_error(capsys, [*args, "--out", str(tmp_path / "a")])
    assert "achievements.cards.green_canopy.points is a placeholder (the project's number" in err
    assert "--allow-placeholder achievements.cards.green_canopy.points" in err
    assert not (tmp_path / "a").exists()
    err = _one_line_error(capsys, [*args, "--allow-placeholder", "achievements.cards.mastery", "--out", str(tmp_path)])
    assert "green_canopy.points is a placeholder" in err  # another card's prefix does not cover it
    err = _one_line_error(capsys, [*args, "--allow-placeholder", "scoring.park", "--out", str(tmp_path / "b")])
    assert "--allow-placeholder scoring.park: not a placeholder key" in err
    base = load_rules("v1.1")
    params = T.parse_params(["achievements.cards.green_canopy.points=0:16"], base)
    for allowed in (["achievements.cards.green_canopy.points"], ["achievements.cards.green_canopy"], ["achievements"]):
        spec = tune_spec(base, params, "seats", 2, ["random"], 8, 2, 0, game="citywright",
                                allow_placeholders=allowed)  # fmt: skip
        assert spec.allow_placeholders == tuple(allowed)  # part of the spec, so --resume must match
    # a study allowed a placeholder resumes only with the same allowance
    main([*args, "--allow-placeholder", "achievements.cards.green_canopy", "--out", str(tmp_path / "c")])
    capsys.readouterr()
    err = _one_line_error(capsys, [*args, "--allow-placeholder", "achievements.cards.green_canopy.points", "--resume",
                                   "--out", str(tmp_path / "c")])  # fmt: skip
    assert "allow_placeholders was ['achievements.cards.green_canopy']" in err


def test_a_param_the_base_rules_switch_off_is_refused_with_the_switch_named(tmp_path, capsys):
    """v1.1 scores residential's largest cluster by full pairs, so its per-tile points play no part: a study
    moving them would play v1.1's game and spend one of --max-changes on nothing."""
    args = ["tune", "scoring", "--param", "scoring.residential.largest_tile_points=1:4", "--objective", "seats",
            "--agents", "random", "--players", "2", "--games", "8", "--blocks", "2", "--trials", "1",
            "--verify-games", "0", "--quiet"]  # fmt: skip
    err = _one_line_error(capsys, [*args, "--out", str(tmp_path / "a")])
    assert "scoring.residential.largest_tile_points: plays no part under the base rules" in err
    assert 'scoring.residential.largest is not "pairs"' in err
    assert not (tmp_path / "a").exists()
    tiles = tmp_path / "tiles.toml"  # under the per-tile mode it is the pair points that are switched off
    tiles.write_text('base = "v1.1"\nname = "tiles"\n[scoring.residential]\nlargest = "tiles"\n')
    T.check_unused(T.parse_params(["scoring.residential.largest_tile_points=1:4"], load_rules(str(tiles))),
                   get_game("citywright").unused(load_rules(str(tiles))))  # fmt: skip
    err = _one_line_error(capsys, [*args[:3], "scoring.residential.pair_points=3:6", *args[4:], "--rules", str(tiles),
                                   "--out", str(tmp_path / "b")])  # fmt: skip
    assert "scoring.residential.pair_points: plays no part under the base rules" in err
    off = tmp_path / "off.toml"  # a disabled card's numbers, and every card's when achievements are off
    off.write_text('base = "v1.1"\nname = "off"\n[achievements.cards.mastery]\nenabled = false\n')
    unused = get_game("citywright").unused(load_rules(str(off)))
    assert "achievements.cards.mastery" in unused and "achievements.cards.versatile" not in unused
    off.write_text('base = "v1.1"\nname = "off"\n[achievements]\nenabled = false\n')
    unused = get_game("citywright").unused(load_rules(str(off)))
    assert {"achievements.cards.mastery", "achievements.cards.versatile"} <= set(unused)


# --- seat games ------------------------------------------------------------------------


def test_seat_agent_is_the_tier_plain_agent():
    from boardlab.agents.citywright.registry import parse_agent
    from boardlab.experiments.citywright.skill import TIERS

    game = get_game("citywright")
    for tier in TIERS:  # the skill report's seat tables are played by these
        assert game.require("seat_agent")(list(tier.specialists())) == str(parse_agent(tier.agent))
    assert game.require("seat_agent")(["strong-specialist:R,k=5,weights=v1"]) == "strong:k=5,weights=strong-v1"
    assert game.require("seat_agent")(["random", "greedy"]) == "random"


def test_a_compensation_element_changes_only_its_player_count(tmp_path):
    base = load_rules("v1.1")
    (p,) = T.parse_params(["game.compensation.3[1]=0:4:int"], base)
    assert (p.key, p.index, p.base, p.integer) == ("game.compensation.3", (1,), 2, True)
    rules = T.rules_for(base, [p], {p.name: 4})
    assert rules.compensation(3) == (2, 4, 0)
    assert [rules.compensation(n) for n in (1, 2, 4)] == [base.compensation(n) for n in (1, 2, 4)]
    spec = tune_spec(base, [p], "seats", 2, ["random"], 24, 2, 7, game="citywright", seat_players=[2, 3])
    assert [(t.name, t.players, t.block_games) for t in spec.tables()] == [("seats-2p", 2, 12), ("seats-3p", 3, 12)]
    two, three = spec.tables()
    a = {t.name: T.play_block(spec, t, base, 0, tmp_path) for t in (two, three)}
    b = {t.name: T.play_block(spec, t, rules, 0, tmp_path) for t in (two, three)}
    pd.testing.assert_frame_equal(a["seats-2p"], b["seats-2p"])  # 2-player games: not touched
    diff = (b["seats-3p"]["total"] - a["seats-3p"]["total"]).groupby(b["seats-3p"]["seat"]).unique()
    assert [list(v) for v in diff] == [[0], [2], [0]]  # the second seat of 3-player games: +2 points


def test_both_plays_the_specialists_and_separate_seat_games_and_sums_their_losses(tmp_path, capsys):
    out = tmp_path / "t"
    main(["tune", "scoring", "--param", "game.compensation.3[1]=0:4:int", "--param", "scoring.park.row_points=1:4",
          "--objective", "both", "--agents", "specialist:R,specialist:C,specialist:P,specialist:I", "--players", "4",
          "--seat-players", "2,3", "--seat-games", "24", "--games", "16", "--blocks", "2", "--trials", "3",
          "--verify-games", "12", "--stop-z", "0", "--seed", "4", "--quiet", "--out", str(out)])  # fmt: skip
    printed = capsys.readouterr().out
    assert "(a trial plays 64 games: 16 of the agents at 4 players, 24 of `greedy` in every seat at 2" in printed
    base = load_rules("v1.1")
    spec = tune_spec(
        base, T.parse_params(["game.compensation.3[1]=0:4:int", "scoring.park.row_points=1:4"], base), "both", 4,
        ["specialist:R", "specialist:C", "specialist:P", "specialist:I"], 16, 2, 4, game="citywright",
        seat_players=[2, 3], seat_games=24, stop_z=0,
    )  # fmt: skip
    runs = out / "runs" / _rules_key(base)

    def read(name):
        return pd.concat([pd.read_parquet(runs / f"{name}-00{b}.parquet") for b in range(2)], ignore_index=True)

    agents, two, three = read("block"), read("seats-2p-block"), read("seats-3p-block")
    assert set(agents["agent"]) == set(spec.agents) and len(agents) == 16 * 4
    assert set(two["agent"]) == set(three["agent"]) == {"greedy"}  # no specialists' tilt in the seat games
    oracle = T.loss(agents, "specialists", 4) + T.loss(two, "seats", 2) + T.loss(three, "seats", 3)
    trials = pd.read_csv(out / "trials.csv")
    assert trials.loc[0, "state"] == "base" and trials.loc[0, "loss"] == pytest.approx(oracle, rel=1e-5)
    assert trials.loc[0, "games"] == 64
    v = pd.read_csv(out / "verify.csv")
    assert list(dict.fromkeys(v["kind"])) == ["agent", "seat 2p", "seat 3p"]
    assert list(v[v["kind"] == "seat 3p"]["players"].unique()) == [3]
    text = (out / "REPORT.md").read_text()
    assert "every seat `greedy`" in text and "seat 1 (3p)" in text
    # the report's win shares on the tuning games: the base's are its blocks' shares, per agent and per seat
    shares = pd.DataFrame(json.loads((out / "tune.json").read_text())["summary"]["tuning_shares"])
    base_rows = shares[shares["rules"] == "base"].set_index(["kind", "group"])["win_pct"]
    for kind, df, col in (("agent", agents, "agent"), ("seat 2p", two, "seat"), ("seat 3p", three, "seat")):
        for g, w in df.groupby(col)["win_share"].mean().items():
            label = spec.label(g) if col == "agent" else str(g)
            assert base_rows[(kind, label)] == pytest.approx(100 * w, abs=1e-3), (kind, g)
    assert "Win shares on the tuning games" in text
    # --objective seats: the same seat games, no specialists
    spec_seats = tune_spec(base, spec.params, "seats", 4, list(spec.labels), 16, 2, 4, game="citywright",
                                  seat_players=[2, 3], seat_games=24)  # fmt: skip
    assert [t.name for t in spec_seats.tables()] == ["seats-2p", "seats-3p"]
    assert spec_seats.tables() == spec.tables()[1:]


def test_seat_options_are_refused_in_one_line(tmp_path, capsys):
    args = ["tune", "scoring", "--param", "scoring.park.row_points=1:4", "--agents", "random,greedy", "--players", "2",
            "--games", "8", "--blocks", "2", "--trials", "1", "--verify-games", "0", "--quiet",
            "--out", str(tmp_path / "t")]  # fmt: skip
    for extra, needle in (
        (["--seat-players", "2"], "--seat-players: seat games are played only with --objective seats or both"),
        (["--objective", "both", "--seat-players", "2,x"], "--seat-players: expected player counts"),
        (["--objective", "both", "--seat-players", "1"], "--seat-players: 1 is not a player count of citywright"),
        (["--objective", "both", "--seat-players", "5"], "--seat-players: 5 is not a player count"),
        (["--objective", "both", "--seat-players", "3,3"], "--seat-players: 3 given twice"),
        (["--objective", "seats", "--seat-players", "4", "--seat-games", "7"], "--seat-games 7: a seat table at 4"),
        (["--objective", "seats", "--seat-agent", "nosuch"], "--seat-agent: unknown agent 'nosuch'"),
        (["--objective", "seats", "--stop-z", "-1"], "--stop-z must be a non-negative number"),
    ):
        err = _one_line_error(capsys, [*args, *extra])
        assert needle in err, (extra, err)
    assert not (tmp_path / "t").exists()


# --- the early stop --------------------------------------------------------------------


def _planted(rules, b: int, games: int = 100) -> pd.DataFrame:
    """Two seats, block b: at park rows 2 (the base) seat 1 wins about half; at 1 or 3 the same games with the
    seats mirrored (the same loss on every block: as good as the base); at 0 or 4 seat 1 wins 80%."""
    v = rules.scoring["park"]["row_points"]
    rng = np.random.default_rng([b, 0 if v in (1, 2, 3) else 1])
    first = rng.random(games) < (0.5 if v in (1, 2, 3) else 0.8)
    seat = np.tile([1, 2], games) if v != 1 and v != 3 else np.tile([2, 1], games)
    share = np.column_stack([first, ~first]).ravel().astype(float)
    return pd.DataFrame({"game_seed": np.repeat(np.arange(games) + 1000 * b, 2), "seat": seat, "agent": "random",
                         "win_share": share, "total": 50 + 10 * share})  # fmt: skip


def test_early_stop_ends_a_clearly_worse_trial_after_few_blocks_and_never_one_as_good(tmp_path, monkeypatch):
    monkeypatch.setattr(tuning_play, "play_block", lambda spec, table, rules, b, *a, **k: _planted(rules, b))
    base = load_rules("v1.1")
    params = T.parse_params(["scoring.park.row_points=0:4"], base)
    spec = tune_spec(base, params, "seats", 2, ["random"], 1200, 6, 3, game="citywright", prune_p=0.0)
    (tmp_path / "o").mkdir()
    study = T.optimise(spec, tmp_path / "o", tmp_path / "w", 16, log=lambda _: None)
    trials = T.trials_table(study, spec)
    worse = trials[trials["scoring.park.row_points"].isin([0, 4])]
    good = trials[trials["scoring.park.row_points"].isin([1, 2, 3])]
    assert len(worse) >= 3 and len(good) >= 3, trials
    assert (worse["pruned_by"] == "stop-z").all() and (worse["blocks"] == 2).all()
    assert not good["pruned"].any() and (good["blocks"] == 6).all()
    reason = study.trials[int(worse["trial"].iloc[0])].user_attrs["stopped"]
    assert reason.startswith("stopped after 2 blocks") and "(best: trial 0)" in reason
    # --stop-z 0: the same trials play every block
    spec0 = tune_spec(base, params, "seats", 2, ["random"], 1200, 6, 3, game="citywright", prune_p=0.0,
                             stop_z=0)  # fmt: skip
    (tmp_path / "o0").mkdir()
    t0 = T.trials_table(T.optimise(spec0, tmp_path / "o0", tmp_path / "w0", 16, log=lambda _: None), spec0)
    assert (t0["blocks"] == 6).all() and not t0["pruned"].any()


def _raced(rules, b: int, games: int = 400) -> pd.DataFrame:
    """Two seats, block b: at park rows 2 (the base) seat 1 wins 70%, at 1 the same games with the seats
    mirrored (as good as the base); at 3 seat 1 wins half (clearly better), at 4 those games mirrored (as good as
    3); at 0 seat 1 wins 95% (clearly worse than all)."""
    v = rules.scoring["park"]["row_points"]
    p, deal = {0: (0.95, 0), 1: (0.7, 1), 2: (0.7, 1), 3: (0.5, 2), 4: (0.5, 2)}[v]
    first = np.random.default_rng([b, deal]).random(games) < p
    seat = np.tile([2, 1], games) if v in (1, 4) else np.tile([1, 2], games)
    share = np.column_stack([first, ~first]).ravel().astype(float)
    return pd.DataFrame({"game_seed": np.repeat(np.arange(games) + 1000 * b, 2), "seat": seat, "agent": "random",
                         "win_share": share, "total": 50 + 10 * share})  # fmt: skip


def test_race_makes_a_clearly_better_trial_the_best_after_two_blocks_and_stops_one_as_good(tmp_path, monkeypatch):
    played = []  # (park rows, block) of every block played

    def play(spec, table, rules, b, *a, **k):
        played.append((rules.scoring["park"]["row_points"], b))
        return _raced(rules, b)

    monkeypatch.setattr(tuning_play, "play_block", play)
    base = load_rules("v1.1")
    params = T.parse_params(["scoring.park.row_points=0:4"], base)
    spec = tune_spec(base, params, "seats", 2, ["random"], 4800, 6, 3, game="citywright", prune_p=0.0,
                            race=100.0)  # fmt: skip
    (tmp_path / "o").mkdir()
    study = T.optimise(spec, tmp_path / "o", tmp_path / "w", 20, log=lambda _: None)
    trials = T.trials_table(study, spec).set_index("trial")
    rows = trials["scoring.park.row_points"]
    first_better = int(rows[rows.isin([3, 4])].index[0])  # the first trial of the better rules
    assert trials.loc[first_better, ["state", "blocks", "raced"]].tolist() == ["complete", 2, "better"]
    assert "(best: trial 0)" in study.trials[first_better].user_attrs["stopped"]
    best = T.best_trial(study)
    assert best.number == first_better
    # its value: the base's plus the paired gap on its two blocks (the base's loss there is about 800 a block)
    assert best.user_attrs["value"] < study.trials[0].value - 500
    later = trials.loc[first_better + 1 :]
    assert len(later) >= 5, trials
    for _, t in later.iterrows():
        if t["state"] == "base" or (t["scoring.park.row_points"] == 2):
            continue  # the base's rules: read back whole
        as_good = t["scoring.park.row_points"] in (3, 4)
        assert t["pruned_by"] == ("race" if as_good else "stop-z") and t["blocks"] == 2, t
        assert t["raced"] == ("equivalent" if as_good else "")
        assert f"(best: trial {first_better})" in study.trials[int(t.name)].user_attrs["stopped"]
    # every later trial played the raced best's two blocks first, so no block was ever played for the best again
    assert len({b for v, b in played if v == rows[first_better]}) == 2
    early = trials.loc[1 : first_better - 1]
    assert (early[early["scoring.park.row_points"] == 1]["pruned_by"] == "race").all()  # as good as the base
    # no race: the better rules play every block, and so do the ones as good as the best
    spec0 = tune_spec(base, params, "seats", 2, ["random"], 4800, 6, 3, game="citywright", prune_p=0.0)
    (tmp_path / "o0").mkdir()
    t0 = T.trials_table(T.optimise(spec0, tmp_path / "o0", tmp_path / "w0", 20, log=lambda _: None), spec0)
    assert "raced" not in t0 and (t0[t0["scoring.park.row_points"].isin([3, 4])]["blocks"] == 6).all()


# --- --objective specialists as before -----------------------------------------------------

# This command's trials as main's code before seat games and the early stop played them (afb99c0, trials.csv:
# trial, state, blocks, loss to 6 figures, park rows, commercial's third tier)
GOLDEN = ["tune", "scoring", "--param", "scoring.park.row_points=0:4", "--param",
          "scoring.commercial.tier_points[2]=15:36", "--players", "4", "--games", "640", "--blocks", "8",
          "--trials", "12", "--verify-games", "0", "--seed", "2", "--quiet"]  # fmt: skip
GOLDEN_TRIALS = [
    (0, "base", 8, 4942.92, 2, 30), (1, "complete", 8, 2226.77, 3, 24), (2, "complete", 8, 1490.58, 2, 22),
    (3, "complete", 8, 976.648, 2, 20), (4, "pruned", 5, 2631.88, 1, 26), (5, "pruned", 5, 2880.09, 2, 25),
    (6, "pruned", 5, 3638.12, 2, 28), (7, "complete", 8, 681.311, 3, 18), (8, "pruned", 5, 970.844, 3, 20),
    (9, "complete", 8, 976.648, 2, 20), (10, "pruned", 5, 1363.34, 3, 22), (11, "complete", 8, 770.032, 3, 19),
]  # fmt: skip


@pytest.mark.slow  # two 12-trial studies; the early stop's own checks are in make test (above)
def test_specialists_without_the_early_stop_is_the_study_it_was_and_the_stop_only_cuts_trials(tmp_path, capsys):
    for z in ("0", "3"):
        main([*GOLDEN, "--stop-z", z, "--out", str(tmp_path / z), "--work", str(tmp_path / "runs")])
    capsys.readouterr()
    cols = ["trial", "state", "blocks", "loss", "scoring.park.row_points", "scoring.commercial.tier_points[2]"]
    old = pd.read_csv(tmp_path / "0" / "trials.csv")[cols]
    assert [tuple(r) for r in old.itertuples(index=False)] == GOLDEN_TRIALS
    new = pd.read_csv(tmp_path / "3" / "trials.csv")
    done = new["state"].isin(["base", "complete"])
    # every trial the early stop did not cut has the value it had; the ones it cut stopped sooner
    pd.testing.assert_frame_equal(new[done][cols].reset_index(drop=True), old[done][cols].reset_index(drop=True))
    assert (new[~done]["pruned_by"] == "stop-z").all() and (new[~done]["blocks"] <= old[~done]["blocks"]).all()
    assert (new[~done]["blocks"] < 5).sum() >= 3  # before the pruner's first look


# --- tiers -----------------------------------------------------------------------------------

STRONG = "strong-specialist:R,strong-specialist:C,strong-specialist:P,strong-specialist:I"


def test_strong_specialists_tune_end_to_end_with_the_base_rules_weights(tmp_path, capsys):
    out = tmp_path / "t"
    main(["tune", "scoring", "--param", "scoring.park.row_points=1:4", "--param", "game.compensation.2[1]=0:3",
          "--objective", "both", "--agents", STRONG, "--players", "4", "--seat-players", "2", "--games", "8",
          "--seat-games", "4", "--blocks", "2", "--trials", "3", "--verify-games", "0", "--seed", "1", "--quiet",
          "--out", str(out)])  # fmt: skip
    capsys.readouterr()
    trials = pd.read_csv(out / "trials.csv")
    assert len(trials) == 3 and set(trials["state"]) <= {"base", "complete", "pruned"}
    assert (trials["changes"] > 0).sum() >= 1  # trials under variants played (no weights of their own)
    summary = __import__("json").loads((out / "tune.json").read_text())["summary"]
    assert summary["agents_played"] == {
        "agents": [f"strong-specialist:{d},weight=3,progress=0.5,k=3,weights=strong-v1" for d in "RCPI"],
        "seats-2p": ["strong:k=3,weights=strong-v1"],
    }
    text = (out / "REPORT.md").read_text()
    assert "resolved under the base rules `v1.1`" in text and "train --game citywright --rules best.toml" in text
    runs = next(p for p in (out / "runs").iterdir() if p.name != _rules_key(load_rules("v1.1")))
    played = pd.read_parquet(next(runs.glob("seats-2p-block-*.parquet")), columns=["agent"])
    assert set(played["agent"]) == {"strong:k=3,weights=strong-v1"}  # a variant's games, v1.1's weights


def test_the_expert_tier_is_pinned_to_the_base_weights_too():
    from boardlab.experiments import simulate as S

    base = load_rules("v1.1")
    params = T.parse_params(["scoring.park.row_points=1:4"], base)
    variant = T.rules_for(base, params, {params[0].name: 3})
    experts = [f"expert-specialist:{d},budget=4" for d in "RCPI"]
    with pytest.raises(S.SimulateError, match="no weights trained for the rules"):
        S.make_spec(4, experts, 4, 0, variant, game="citywright")  # auto under a variant: none to play
    spec = tune_spec(base, params, "both", 4, experts, 8, 2, 0, game="citywright")
    assert all(a.endswith("weights=strong-v1") for a in spec.agents)
    assert spec.seat_agent.startswith("flatmc:budget=4,") and spec.seat_agent.endswith("weights=strong-v1")
    for t in spec.tables():  # every trial's rules can play them
        S.make_spec(t.players, list(t.agents), t.block_games, 0, variant, game="citywright")


def test_the_committed_study_command_names_its_placeholder_and_so_still_passes_the_check():
    import json
    import shlex

    about = json.loads((ROOT / "results" / "tune-v1.1-specialists" / "tune.json").read_text())
    words = shlex.split(about["command"])
    params = [words[i + 1] for i, w in enumerate(words) if w == "--param"]
    allowed = [words[i + 1] for i, w in enumerate(words) if w == "--allow-placeholder"]
    base = load_rules("v1.1")
    marks = get_game("citywright").placeholders(base)
    parsed = T.parse_params(params, base)
    assert T.check_placeholders(parsed, marks, allowed) == ("achievements.cards.green_canopy.points",)
    with pytest.raises(T.TuneError, match=r"green_canopy\.points is a placeholder"):
        T.check_placeholders(parsed, marks, [])
    guide = (ROOT / "docs" / "guides" / "tune-scoring.md").read_text()
    assert "--param achievements.cards.green_canopy.points=0:16 --allow-placeholder achievements.cards" in guide


# --- --train: weights fitted under every trial's rules -------------------------------------------------------


def _variant(tmp_path, name="rows3") -> Path:
    """A variant of v1.1 (park rows 3 points): rules with no committed weights."""
    path = tmp_path / f"{name}.toml"
    path.write_text(f'base = "v1.1"\nname = "{name}"\n\n[scoring.park]\nrow_points = 3\n')
    return path


@pytest.mark.slow  # a training run per trial (compiles self-play)
def test_train_fits_weights_under_every_trials_rules_and_plays_them(tmp_path, capsys, monkeypatch):
    from boardlab.agents.citywright.registry import WEIGHTS_CACHE_ENV, rules_hash

    cache = tmp_path / "cache"
    monkeypatch.setenv(WEIGHTS_CACHE_ENV, str(cache))
    out = tmp_path / "t"
    main(["tune", "scoring", "--rules", str(_variant(tmp_path)), "--param", "scoring.park.column_points=0:3",
          "--agents", STRONG, "--players", "4", "--train", "40,40", "--train-seed", "3", "--games", "8",
          "--blocks", "2", "--trials", "4", "--verify-games", "0", "--seed", "1", "--quiet",
          "--out", str(out)])  # fmt: skip
    capsys.readouterr()
    trials = pd.read_csv(out / "trials.csv")
    base = load_rules(str(_variant(tmp_path)))
    params = T.parse_params(["scoring.park.column_points=0:3"], base)
    played = {int(v) for v in trials["scoring.park.column_points"]}
    assert len(played) >= 2  # the base and at least one variant
    files = sorted(p.stem for p in (cache / "citywright").glob("*.json"))
    for v in played:
        rules = T.rules_for(base, params, {params[0].name: v})
        key = rules_hash(rules)
        assert key in files  # fitted under those rules, with the study's settings
        head = json.loads((cache / "citywright" / f"{key}.json").read_text())
        assert (head["seed"], head["games"], head["rules_hash"]) == (3, [40, 40], key)
        # and its games were played with them: the run records the weights each agent resolved
        df = pd.read_parquet(next((out / "runs" / _rules_key(rules)).glob("block-*.parquet")))
        assert set(df["agent"]) == {f"strong-specialist:{d},weight=3,progress=0.5,k=3,weights={key}" for d in "RCPI"}
    assert len(files) == len(played)  # one fit per rule set, none for a rule set asked again
    first = trials.drop_duplicates("scoring.park.column_points")
    assert (first["train_seconds"] > 0).all()  # every rule set's first trial fitted its weights
    assert (trials.loc[~trials.index.isin(first.index), "train_seconds"] == 0).all()  # the others reused them
    summary = json.loads((out / "tune.json").read_text())["summary"]
    assert summary["agents_played"]["agents"] == [
        f"strong-specialist:{d},weight=3,progress=0.5,k=3,weights=auto" for d in "RCPI"
    ]
    assert "weights fitted under each trial's rules" in (out / "REPORT.md").read_text()


def test_train_reuses_weights_fitted_so_and_refuses_ones_fitted_otherwise(tmp_path, monkeypatch):
    from boardlab.agents.citywright.registry import WEIGHTS_CACHE_ENV, rules_hash

    cache = tmp_path / "cache"
    monkeypatch.setenv(WEIGHTS_CACHE_ENV, str(cache))
    base = load_rules(str(_variant(tmp_path)))
    params = T.parse_params(["scoring.park.column_points=0:3"], base)
    experts = [f"expert-specialist:{d},budget=4" for d in "RCPI"]
    spec = tune_spec(base, params, "both", 4, experts, 8, 2, 0, game="citywright", train=[30, 30])
    # checked before its weights exist: the agents stay weights=auto, resolved under each trial's rules
    # (the expert's weights parameter is quiet: auto is left out of its spec)
    assert all("weights=" not in a or a.endswith("weights=auto") for a in [*spec.agents, spec.seat_agent])
    assert spec.train_settings() == {"seed": 1, "games": [30, 30], "k": 3, "ridge": 0.001}
    assert T.ensure_weights(spec, base) > 0  # fitted
    path = cache / "citywright" / f"{rules_hash(base)}.json"
    stamp = path.stat().st_mtime_ns
    assert T.ensure_weights(spec, base) == 0.0 and path.stat().st_mtime_ns == stamp  # reused as they are
    # compensation is not in the weights' key: a trial that moves only it fits nothing
    other = tune_spec(base, T.parse_params(["game.compensation.4[3]=0:3"], base), "specialists", 4, experts,
                             8, 2, 0, game="citywright", train=[30, 30])  # fmt: skip
    assert T.ensure_weights(other, T.rules_for(base, other.params, {other.params[0].name: 2})) == 0.0
    # fitted otherwise: refused in one line, before any work (the base's) or at the trial (a variant's)
    head = json.loads(path.read_text())
    path.write_text(json.dumps({**head, "seed": 2}))
    with pytest.raises(T.TuneError, match=r"^--train: the base rules' weights .* were fitted with seed 2, games"):
        tune_spec(base, params, "specialists", 4, experts, 8, 2, 0, game="citywright", train=[30, 30])
    with pytest.raises(T.TuneError, match=r"^--train: these rules' weights .* seed 2, .*not this study's seed 1"):
        T.ensure_weights(spec, base)
    # the committed weights under a preset are v1.1's training: a study of other settings cannot refit them
    v11 = load_rules("v1.1")
    fitted = r"seed 1, games 10000,10000, k 3, ridge 0.001, not this study's seed 1, games 30"
    with pytest.raises(T.TuneError, match=fitted):
        tune_spec(v11, T.parse_params(["scoring.park.row_points=1:4"], v11), "specialists", 4, experts, 8, 2, 0,
                         game="citywright", train=[30, 30])  # fmt: skip
    assert tune_spec(v11, T.parse_params(["scoring.park.row_points=1:4"], v11), "specialists", 4, experts, 8,
                            2, 0, game="citywright", train=[10000, 10000]).trains  # fmt: skip


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--train", "40,x"], "--train: expected games per round separated by commas"),
        (["--train", "40,0"], "--train: one positive number of games per self-play round"),
        (["--game", "cartographers", "--param", "scoring.golden_granary.water_points=0:2", "--train", "40"],
         "--train: cartographers fits no learned weights per rule set"),
    ],
)  # fmt: skip
def test_bad_train_is_one_line_and_writes_nothing(tmp_path, capsys, args, needle):
    out = tmp_path / "tune"
    base = [] if "--game" in args else ["--rules", str(_variant(tmp_path)), "--param", "scoring.park.column_points=0:3"]
    with pytest.raises(SystemExit) as e:
        main(["tune", "scoring", *base, *args, "--trials", "2", "--games", "8", "--out", str(out)])
    err = capsys.readouterr().err
    assert e.value.code == 2 and needle in err and len(err.strip().splitlines()) == 1
    assert not out.exists()
