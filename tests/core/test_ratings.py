"""Plackett–Luce ratings (boardlab/experiments/ratings.py) on games whose true strengths are known."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from boardlab.experiments.ratings import fit, rating_table

TRUE = {"a": 1.2, "b": 0.4, "greedy": 0.0, "d": -0.9}


def pl_games(n_games: int, players: int, seed: int, tie_every: int = 0) -> pd.DataFrame:
    """Tables drawn from the pool (repeats allowed), finishing orders drawn from Plackett–Luce."""
    rng = np.random.default_rng(seed)
    names = list(TRUE)
    w = np.exp(np.array([TRUE[a] for a in names]))
    rows = []
    for g in range(n_games):
        seats = rng.integers(0, len(names), players)
        left, rank = list(range(players)), [0] * players
        for place in range(players):
            p = w[seats[left]] / w[seats[left]].sum()
            rank[left.pop(rng.choice(len(left), p=p))] = place + 1
        if tie_every and g % tie_every == 0:
            rank = [min(r, 2) for r in rank]  # places 2.. shared: a tie
        for s in range(players):
            rows.append({"game": g, "players": players, "seat": s + 1, "agent": names[seats[s]], "rank": rank[s]})
    return pd.DataFrame(rows)


def test_fit_recovers_known_strengths_from_four_player_orders_with_repeated_agents():
    est = fit(pl_games(6000, 4, seed=1))
    true = pd.Series(TRUE) - np.mean(list(TRUE.values()))
    assert np.abs(est[true.index] - true).max() < 0.08


@pytest.mark.slow  # statistical
def test_two_and_four_player_games_fit_together_and_intervals_cover_the_truth():
    df = pd.concat([pl_games(2000, 2, seed=12), pl_games(2000, 4, seed=13).assign(game=lambda d: d["game"] + 10_000)])
    table, spread = rating_table(df, boot=60, seed=0, level=0.99)
    t = table.set_index("agent")
    assert t.loc["greedy", "rating"] == 0.0 and spread["reference"] == "greedy"
    for agent, r in TRUE.items():
        assert t.loc[agent, "lo"] <= r <= t.loc[agent, "hi"], (agent, t.loc[agent].to_dict())
    assert list(table["agent"]) == ["a", "b", "greedy", "d"]  # best first
    true_sd = np.std(list(TRUE.values()))
    assert spread["skill_spread_lo"] <= true_sd <= spread["skill_spread_hi"]
    assert spread["games"] == 4000


def test_ties_are_counted_and_the_table_is_reproducible():
    df = pl_games(600, 4, seed=4, tie_every=3)
    a, sa = rating_table(df, boot=20, seed=7)
    b, sb = rating_table(df, boot=20, seed=7)
    pd.testing.assert_frame_equal(a, b)
    assert sa == sb
    assert abs(sa["tied_games_share"] - 1 / 3) < 0.01


def test_equal_agents_have_no_spread_to_speak_of():
    rng = np.random.default_rng(5)
    rows = []
    for g in range(3000):
        order = rng.permutation(4) + 1
        rows += [{"game": g, "players": 4, "seat": s + 1, "agent": f"x{s % 2}", "rank": order[s]} for s in range(4)]
    table, spread = rating_table(pd.DataFrame(rows), boot=30, seed=1)
    assert spread["skill_spread_lo"] < 0.03
    assert (table["lo"] <= 0).all() and (table["hi"] >= 0).all()


def test_an_agent_that_never_wins_is_flagged_and_left_out_of_the_spread():
    df = pl_games(800, 4, seed=6)
    loser = df.assign(rank=np.where(df["agent"] == "d", 9, df["rank"]))  # d always last
    table, spread = rating_table(loser, boot=20, seed=0)
    t = table.set_index("agent")
    assert bool(t.loc["d", "separated"]) and not t.drop("d")["separated"].any()
    assert spread["separated_agents"] == "d"
    assert spread["skill_spread"] < 1.0  # a, b, greedy only: true sd 0.49


def test_where_ilsr_does_not_converge_it_is_retried_with_more_regularisation(monkeypatch):
    """A small lopsided resample (an 11-agent ladder of 40 four-player games met one) can stop ILSR at the
    regularisation ALPHA; the fit is then retried with more regularisation, which moves the ratings of a
    table that does converge by less than 0.001."""
    import boardlab.experiments.ratings as R

    df = pl_games(1500, 4, seed=8)
    converged = fit(df)
    real = R.choix.ilsr_rankings

    def stuck_at_alpha(n, orders, alpha, max_iter):
        if alpha == R.ALPHA:
            raise RuntimeError("Did not converge after 10000 iterations")
        return real(n, orders, alpha=alpha, max_iter=max_iter)

    monkeypatch.setattr(R.choix, "ilsr_rankings", stuck_at_alpha)
    retried = fit(df)
    assert np.abs(retried - converged).max() < 0.001
    table, _ = rating_table(df, boot=10, seed=0)
    assert list(table["agent"]) == ["a", "b", "greedy", "d"] and np.isfinite(table[["lo", "hi"]].to_numpy()).all()


def test_ladder_command_rates_a_pool_and_refuses_a_pool_of_one(tmp_path, capsys):
    from boardlab.experiments.cli import main

    with pytest.raises(SystemExit) as e:
        main(["ladder", "--game", "pig", "--agents", "random", "--players", "2", "--games", "20",
              "--out", str(tmp_path / "x")])  # fmt: skip
    assert e.value.code == 2 and "at least two different agents" in capsys.readouterr().err
    with pytest.raises(SystemExit) as e:
        main(["ladder", "--game", "pig", "--agents", "ismcts,bogus", "--players", "2", "--games", "20",
              "--out", str(tmp_path / "x")])  # fmt: skip
    err = capsys.readouterr().err
    assert e.value.code == 2 and "--agents:" in err and "bogus" in err and len(err.strip().splitlines()) == 1
    assert not (tmp_path / "x").exists()
    main(["ladder", "--game", "pig", "--agents", "random,random-prefers:hold,ismcts:iters=4", "--players", "2",
          "--games", "40", "--boot", "10", "--out", str(tmp_path / "lad"), "--quiet"])  # fmt: skip
    ratings = pd.read_csv(tmp_path / "lad" / "ratings.csv")
    assert set(ratings["agent"]) == {
        "random",
        "random-prefers:hold",
        "ismcts:iters=4,ms=0,c=0.7,rollout=random,reward=auto",
    }
    assert set(ratings["name"]) == {"random", "random-prefers:hold", "ismcts:iters=4"} and set(ratings["players"]) == {
        2
    }
    for f in ("spread.csv", "win_shares.csv", "ratings.png", "ladder.json"):
        assert (tmp_path / "lad" / f).exists()
