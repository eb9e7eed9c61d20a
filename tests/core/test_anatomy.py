"""The anatomy metrics against answers computed by hand on planted trajectories (boardlab.experiments.anatomy)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from statsmodels.stats.proportion import proportion_confint

from boardlab.experiments import anatomy as A
from boardlab.experiments.anatomy import Trajectory

# A: the leader never changes; seat 1 leads from the first step and wins by 2.
NEVER = Trajectory(scores=[[1, 0], [2, 0], [3, 1], [4, 2]], ranks=[1, 2])
# B: the winner (seat 1) trails at every step until the last; step 3 has no leader (3 = 3).
TRAILS = Trajectory(scores=[[0, 1, 0], [1, 3, 0], [2, 3, 3], [3, 5, 4], [9, 5, 4]], ranks=[1, 2, 3])
# C: the lead goes 0, 1, 0, (none), 1, 1; seat 2 wins 6 to 3.
SWINGS = Trajectory(scores=[[1, 0], [1, 2], [3, 2], [3, 3], [3, 4], [3, 6]], ranks=[2, 1])
# D: a shared win.
SHARED = Trajectory(scores=[[1, 0], [2, 2]], ranks=[1, 1])
# E: lowest score wins: seat 1 ends on 6 against 8, behind (higher) only after step 1.
LOWER = Trajectory(scores=[[5, 3], [6, 8]], ranks=[1, 2], direction="lower")


def test_leaders_are_the_one_best_player_or_none():
    assert A.leaders(NEVER).tolist() == [0, 0, 0, 0]
    assert A.leaders(TRAILS).tolist() == [1, 1, -1, 1, 0]
    assert A.leaders(SWINGS).tolist() == [0, 1, 0, -1, 1, 1]
    assert A.leaders(LOWER).tolist() == [1, 0]
    assert (A.winner(NEVER), A.winner(SWINGS), A.winner(SHARED)) == (0, 1, -1)


def test_lead_changes():
    assert A.lead_changes(NEVER) == 0
    assert A.lead_changes(TRAILS) == 1  # 1, 1, (none), 1, 0: the step without a leader is no change
    assert A.lead_changes(SWINGS) == 3
    assert A.lead_changes(LOWER) == 1


def test_decisiveness():
    assert A.decisiveness(NEVER) == pytest.approx(1 / 4)  # leads for good from step 1 of 4
    assert A.decisiveness(TRAILS) == 1.0  # leads only after the last step
    assert A.decisiveness(SWINGS) == pytest.approx(5 / 6)  # leads at steps 5 and 6
    assert A.decisiveness(LOWER) == 1.0
    assert math.isnan(A.decisiveness(SHARED))
    # a winner who does not lead at the end (a tie-break won it) is decided at the end
    assert A.decisiveness(Trajectory(scores=[[2, 0], [2, 2]], ranks=[1, 2])) == 1.0


def test_leader_wins_at_a_quarter_half_and_three_quarters():
    assert [A.step_at(SWINGS, f) for f in A.FRACTIONS] == [2, 3, 5]
    assert [A.step_at(NEVER, f) for f in A.FRACTIONS] == [1, 2, 3]
    assert [A.leader_wins(NEVER, f) for f in A.FRACTIONS] == [1.0, 1.0, 1.0]
    assert [A.leader_wins(TRAILS, f) for f in A.FRACTIONS] == [0.0, 0.0, 0.0]  # steps 2, 3 (no leader), 4
    assert [A.leader_wins(SWINGS, f) for f in A.FRACTIONS] == [1.0, 0.0, 1.0]
    assert A.step_at(Trajectory(scores=[[0]], ranks=[1]), 0.25) == 1
    assert math.isnan(A.leader_wins(SHARED, 0.5))


def test_comeback_is_the_winner_behind_at_half_time():
    assert A.comeback(NEVER) == 0.0
    assert A.comeback(TRAILS) == 1.0  # step 3: 2 against 3
    assert A.comeback(SWINGS) == 1.0  # step 3: 2 against 3
    assert A.comeback(LOWER) == 1.0  # step 1: 5 against 3, lower wins
    # level at half-time is not behind
    assert A.comeback(Trajectory(scores=[[1, 0], [1, 1], [1, 2]], ranks=[2, 1])) == 0.0


def test_drama_is_the_winners_mean_deficit_while_behind():
    assert A.drama(NEVER) == 0.0
    assert A.drama(TRAILS) == pytest.approx((1 + 2 + 1 + 2) / 4)
    assert A.drama(SWINGS) == pytest.approx((1 + 1) / 2)  # behind at steps 1 and 3; level at 4 is not behind
    assert A.drama(LOWER) == pytest.approx(2)


def test_final_margin():
    assert A.final_margin(NEVER) == 2
    assert A.final_margin(TRAILS) == 4
    assert A.final_margin(SWINGS) == 3
    assert A.final_margin(LOWER) == 2  # 6 against 8, lower wins
    assert A.final_margin(Trajectory(scores=[[7]], ranks=[1])) == 0


# seats 0, 0, 1, 0, 0, 1, 1: four turns of three players
PLAYED = Trajectory(
    scores=np.zeros((7, 3)), ranks=[1, 2, 3], legal=[1, 2, 2, 1, 3, 2, 2], movers=[0, 0, 1, 0, 0, 1, 1],
    kinds=("a", "b", "b", "a", "b", "a", "a"),
)  # fmt: skip


def test_duration():
    assert A.turns(PLAYED) == 4
    assert A.rounds(PLAYED) == 2  # ceil(4 / 3)
    assert A.rounds(Trajectory(scores=[[0, 0]], ranks=[1, 1], legal=[2] * 3, movers=[0, 1, 0])) == 2
    assert A.decisions(PLAYED) == 7
    assert A.real_decisions(PLAYED) == 5
    assert A.turns(NEVER) == 0


def test_histogram_quantile():
    values, counts = np.array([1, 2, 3]), np.array([2, 4, 1])  # 1, 1, 2, 2, 2, 2, 3
    assert A.histogram_quantile(values, counts, 0.5) == 2
    assert A.histogram_quantile(values, counts, 2 / 7) == 1  # exactly the share at most 1
    assert A.histogram_quantile(values, counts, 0.9) == 3
    assert A.histogram_quantile(values, counts, 0.0) == 1
    assert A.histogram_quantile(values, np.array([0, 0, 5]), 0.1) == 3


def test_win_shares():
    assert A.win_shares(SHARED).tolist() == [0.5, 0.5]
    assert A.win_shares(SWINGS).tolist() == [0.0, 1.0]


def _figures(games, seed=0):
    return {f.name: f for f in A.panel(games, seed)}


def test_panel_outcome_with_wilson_intervals():
    capped = Trajectory(scores=NEVER.scores, ranks=NEVER.ranks, capped=True)
    f = _figures([NEVER, capped, SWINGS, SHARED])
    s1 = f["seat 1 win share"]
    assert (s1.value, s1.n, s1.interval) == (pytest.approx(2.5 / 4), 4, "wilson")
    assert (s1.lo, s1.hi) == pytest.approx(proportion_confint(2.5, 4, alpha=0.05, method="wilson"))
    assert f["seat 2 win share"].value == pytest.approx(1.5 / 4)
    assert f["largest seat deviation from 1/N"].value == pytest.approx(0.125)
    assert f["games with a shared win"].value == pytest.approx(1 / 4)
    assert f["completion (ended by the rules)"].value == pytest.approx(3 / 4)


def test_panel_trajectory_figures_leave_out_shared_wins():
    f = _figures([NEVER, NEVER, SWINGS, SHARED])
    half = f["winner = leader at 50%"]
    assert (half.value, half.n) == (pytest.approx(2 / 3), 3)
    assert f["winner = leader at 25%"].value == 1.0
    assert f["comeback (winner behind at half-time)"].value == pytest.approx(1 / 3)
    assert f["lead changes per game"].value == pytest.approx(1.0)  # 0, 0, 3
    assert f["decisiveness (winner leads for good from)"].value == pytest.approx((0.25 + 0.25 + 5 / 6) / 3)
    assert f["drama (winner's mean deficit while behind)"].value == pytest.approx(1 / 3)
    assert f["final margin"].value == pytest.approx(7 / 3)
    assert f["lead changes per game"].interval == "bootstrap"


def test_panel_duration_and_branching():
    other = Trajectory(scores=np.zeros((2, 3)), ranks=[2, 1, 3], legal=[4, 4], movers=[2, 2], kinds=("b", "b"))
    f = _figures([PLAYED, other])
    assert f["turns"].value == pytest.approx((4 + 1) / 2)
    assert f["rounds"].value == pytest.approx((2 + 1) / 2)
    assert f["decisions"].value == pytest.approx((7 + 2) / 2)
    assert f["decisions with a real choice"].value == pytest.approx((5 + 2) / 2)
    assert f["legal moves per decision (mean)"].value == pytest.approx((13 + 8) / 9)  # pooled, not per game
    assert f["legal moves per decision (q50)"].value == 2
    assert f["legal moves per decision (q90)"].value == 4
    assert f["legal moves per decision: a"].value == pytest.approx((1 + 1 + 2 + 2) / 4)
    assert f["legal moves per decision: b"].value == pytest.approx((2 + 2 + 3 + 4 + 4) / 5)


def test_bootstrap_intervals_are_seeded_and_hold_the_value():
    games = [NEVER, SWINGS, NEVER, SWINGS, SWINGS, NEVER, SWINGS]
    a, b, c = _figures(games, 1), _figures(games, 1), _figures(games, 2)
    x, y, z = (d["lead changes per game"] for d in (a, b, c))
    assert (x.lo, x.hi) == (y.lo, y.hi)
    assert x.lo <= x.value <= x.hi and x.lo < x.hi
    assert 0 <= x.lo and x.hi <= 3
    assert (x.lo, x.hi) != (z.lo, z.hi) or x.value in (0, 3)


def test_panel_refuses_mixed_player_counts_and_bad_trajectories():
    with pytest.raises(ValueError, match="mix player counts"):
        A.panel([NEVER, TRAILS])
    with pytest.raises(ValueError, match="one rank per player"):
        Trajectory(scores=[[1, 2]], ranks=[1])
    with pytest.raises(ValueError, match="direction"):
        Trajectory(scores=[[1, 2]], ranks=[1, 2], direction="up")
    assert A.panel([]) == []
    table = A.panel_table([NEVER, SWINGS])
    assert list(table.columns) == ["section", "figure", "value", "lo", "hi", "n", "interval"]
    assert set(table.section) == {"outcome", "trajectory"}  # no decisions recorded: no duration, no branching
