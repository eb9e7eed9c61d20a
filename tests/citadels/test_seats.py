"""Citadels' seat compensation (rule seat_points, docs/games/citadels.md §6) and `tune seats --game citadels`."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from boardlab.agents.citadels.registry import parse_agent
from boardlab.experiments import compensation as C
from boardlab.experiments.citadels.runner import chunk_table
from boardlab.experiments.cli import main
from boardlab.sim.citadels.rules import RulesError, load_rules

VECTOR = [0, 1, 2, 3]


def _games(rules, agent="random", games=600, seed=4):
    return chunk_table(rules, 4, [parse_agent(agent)] * 4, "fixed", seed, 0, games).to_pandas()


def test_seat_points_are_in_the_total_and_the_column():
    base = _games(load_rules("official"))
    comp = _games(load_rules({"seat_points.4": VECTOR}))
    assert (base["seat_points"] == 0).all()
    assert list(comp.groupby("seat")["seat_points"].first()) == VECTOR
    # random play reads no score: the same games, each total raised by its seat's points
    assert (comp["district_points"] == base["district_points"]).all()
    assert (comp["total"] - base["total"] == comp["seat"].map(dict(enumerate(VECTOR, start=1)))).all()


@pytest.mark.parametrize("agent", ["random", "basic"])
def test_the_rank_key_ranks_as_the_engine_does(agent):
    """Re-ranked at the stored vector, every game's winners are the engine's (ties by district points, then gold,
    then shared): the stored win shares seat by seat."""
    for rules in (load_rules("official"), load_rules({"seat_points.4": VECTOR})):
        df = _games(rules, agent)
        a = C.game_arrays(df, "citadels")
        got = C.seat_shares(a, a.stored)
        want = df.groupby("seat")["win_share"].mean().to_numpy()
        assert np.allclose(got, want), (agent, rules.name, got, want)


def test_re_ranking_under_a_vector_is_re_simulating_with_it():
    """Random players' moves do not depend on the scores, so the solver's shares under VECTOR, from games played
    without it, are the shares of the same games played with it."""
    a = C.game_arrays(_games(load_rules("official")), "citadels")
    played = _games(load_rules({"seat_points.4": VECTOR}))
    assert np.allclose(C.seat_shares(a, VECTOR), played.groupby("seat")["win_share"].mean().to_numpy())


def test_seat_points_variants_and_their_errors():
    r = load_rules({"seat_points.4": [0, 1, 1, 2], "seat_points.2": [1, 0]})
    assert (
        r["seat_points"]["4"] == [0, 1, 1, 2] and r["seat_points"]["2"] == [1, 0] and r["seat_points"]["3"] == [0] * 3
    )
    assert load_rules({"seat_points": {"4": [0, 1, 1, 2]}}) == load_rules(
        {"seat_points.4": [0, 1, 1, 2], "name": r.name}
    )
    for bad, msg in (
        ({"seat_points.4": [0, 1, 2]}, "seat_points.4: expected a list of 4 integers"),
        ({"seat_points.4": [0, 1, 2, -1]}, "seat_points.4: expected a list of 4 integers"),
        ({"seat_points.4": [0, 1, 2, True]}, "seat_points.4: expected a list of 4 integers"),
        ({"seat_points.9": [0] * 9}, "seat_points.9: unknown player count"),
        ({"seat_points": [0, 1]}, "seat_points: expected a table of player counts"),
    ):
        with pytest.raises(RulesError, match=msg):
            load_rules(bad)


def _simulate(tmp_path, name, *extra):
    out = tmp_path / f"{name}.parquet"
    main(["simulate", "--game", "citadels", "--agents", "basic", "--players", "4", "--games", "400", "--quiet",
          "--out", str(out), *extra])  # fmt: skip
    return out


def test_tune_seats_finds_a_vector_and_verifies_it(tmp_path, capsys):
    path = _simulate(tmp_path, "basic")
    capsys.readouterr()
    main(["tune", "seats", "--game", "citadels", str(path), "--max", "3", "--top", "2", "--verify-games", "200"])
    printed = capsys.readouterr().out
    assert "400 games, 4 players" in printed and "stored     0/0/0/0" in printed
    best = [line for line in printed.splitlines() if line.startswith("best")]
    assert len(best) == 2 and "verified" in printed
    df = pd.read_parquet(path)
    vec = [int(x) for x in best[0].split()[1].split("/")]
    a = C.game_arrays(df, "citadels")
    shares = C.seat_shares(a, vec)
    assert f"max dev {100 * np.abs(shares - 0.25).max():4.1f} pts" in best[0]


def test_tune_seats_refuses_games_under_another_tie_break_in_one_line(tmp_path, capsys):
    path = _simulate(tmp_path, "seed", "--rules", "seed-summary")
    capsys.readouterr()
    with pytest.raises(SystemExit) as e:
        main(["tune", "seats", "--game", "citadels", str(path)])
    assert e.value.code == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "played with tiebreak 'shared'" in err
