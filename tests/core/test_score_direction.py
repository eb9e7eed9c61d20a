"""A game where the lowest score wins, end to end: its ranks (the conformance check holds them to its score
direction), ismcts's score reward, win shares through the generic chunk player, and seat compensation's sign."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pyarrow as pa
import pytest

import boardlab.sim.games as G
from boardlab.agents.generic.ismcts import ISMCTS
from boardlab.experiments import compensation as C
from boardlab.experiments.play import play_chunk
from boardlab.experiments.schema import CORE_COLUMNS, result_schema
from boardlab.sim.observation import Observation
from boardlab.sim.ranking import direction_of, ranking
from boardlab.testing import check_game

ROUNDS = 3
START = (0, 2, 4, 6)  # seat s starts with START[s] points: where the lowest score wins, seat 1 is favoured


class IllegalMove(ValueError):
    pass


class LowRace:
    """Each seat, on each of ROUNDS turns, adds 1 or 3 points (its choice) and a die of 0..2; lowest total wins."""

    information = "perfect"
    chance = True
    score_direction = "lower"

    def __init__(self, players: int, rules=None, seed: int = 0):
        self.players, self.seed = int(players), int(seed)
        self.rng = np.random.default_rng(self.seed)
        self.points = list(START[: self.players])
        self.current, self.turn, self.done = 0, 0, False

    def copy(self):
        g = object.__new__(type(self))
        g.__dict__.update(self.__dict__)
        g.points = list(self.points)
        g.rng = np.random.default_rng()
        g.rng.bit_generator.state = self.rng.bit_generator.state
        return g

    def redeal(self, player: int, rng=None):
        g = self.copy()
        g.rng = np.random.default_rng(rng if rng is not None else 0)
        return g

    def snapshot(self) -> dict:
        return {"points": list(self.points), "current": self.current, "turn": self.turn, "done": self.done}

    def observation(self, player: int) -> Observation:
        return Observation(player, self.snapshot(), self.redeal(player))

    def legal_moves(self) -> list[int]:
        return [] if self.done else [1, 3]

    def is_legal(self, m) -> bool:
        return m in self.legal_moves()

    def random_move(self) -> int:
        return self.legal_moves()[int(self.rng.integers(2))]

    def apply(self, m) -> None:
        if not self.is_legal(m):
            raise IllegalMove(f"{m!r} is not legal now")
        self.points[self.current] += m + int(self.rng.integers(3))
        self.turn += 1
        self.current = self.turn % self.players
        if self.turn == ROUNDS * self.players:
            self.done, self.current = True, -1

    def scores(self) -> list[dict]:
        ranks, shares = ranking(self.points, self.score_direction)
        return [
            {"total": p, "rank": r, "win_share": w, "comp": 0}
            for p, r, w in zip(self.points, ranks, shares, strict=True)
        ]


class HighRace(LowRace):
    """The same game, highest total wins."""

    score_direction = "higher"


def rows(game) -> dict:
    """The toy's own result column: the compensation points each seat got (none)."""
    return {"comp": np.array([s["comp"] for s in game.scores()], dtype=np.int32)}


SCHEMA = result_schema((*CORE_COLUMNS, "comp"), {"comp": pa.int32()})
SEATS = C.SeatCompensation(column="comp", rule_key="comp.{players}")  # no rank key: the score, in its direction


@pytest.fixture
def race(monkeypatch):
    """Register the toy as ``lowrace`` and ``highrace``; returns the registrar of a variant."""
    base = dataclasses.replace(
        G.get_game("pig"), id="lowrace", new_game=LowRace, invariants=lambda g: [], players=(1, 4),
        result_columns=(*CORE_COLUMNS, "comp"), score_direction="lower",
        simulation=G.Simulation(
            G.get_game("pig").simulation.chunk_player, schema=G.Lazy(f"{__name__}:SCHEMA"),
            api_rows=G.Lazy(f"{__name__}:rows"),
        ),
        scoring=G.Scoring(seat_compensation=G.Lazy(f"{__name__}:SEATS")),
    )  # fmt: skip

    def register(gid: str, **changes) -> G.GameDef:
        gd = dataclasses.replace(base, id=gid, **changes)
        monkeypatch.setitem(G._GAMES, gid, gd)
        return gd

    register("lowrace")
    register("highrace", new_game=HighRace, score_direction="higher")
    return register


def test_a_game_def_takes_only_higher_or_lower():
    with pytest.raises(G.GameError, match="score_direction must be 'higher' or 'lower', got 'up'"):
        dataclasses.replace(G.get_game("pig"), score_direction="up")
    assert G.get_game("pig").score_direction == "higher"


def test_ranking_in_either_direction():
    assert ranking([5, 3, 3, 9], "lower") == ([3, 1, 1, 4], [0.0, 0.5, 0.5, 0.0])
    assert ranking([5, 3, 3, 9], "higher") == ([2, 3, 3, 1], [0.0, 0.0, 0.0, 1.0])
    assert direction_of(LowRace(2)) == "lower" and direction_of(object()) == "higher"


def test_ranking_ranks_by_the_score_key():
    from boardlab.sim.ranking import score_key

    rng = np.random.default_rng(3)
    for _ in range(300):
        totals = rng.integers(-5, 5, int(rng.integers(1, 7))).tolist()
        if rng.random() < 0.3:
            totals = [t / 4 for t in totals]
        for direction in ("higher", "lower"):
            key = score_key(np.asarray(totals, dtype=np.float64), direction)
            ranks = [1 + int((key > k).sum()) for k in key]
            shares = [1.0 / ranks.count(1) if r == 1 else 0.0 for r in ranks]
            assert ranking(totals, direction) == (ranks, shares)
    with pytest.raises(ValueError, match="score direction"):
        ranking([1, 2], "up")


def test_the_conformance_check_holds_ranks_to_the_direction(race):
    check_game("lowrace", players=[1, 2, 3], games=5)
    check_game("highrace", players=[2], games=5)

    class Upside(LowRace):  # declares lower, ranks the highest first
        def scores(self):
            ranks, shares = ranking(self.points, "higher")
            return [{"total": p, "rank": r, "win_share": w} for p, r, w in zip(self.points, ranks, shares, strict=True)]

    race("upside", new_game=Upside)
    with pytest.raises(AssertionError, match=r"upside, 2 players.*a winner's total is not the best.*\(lower wins\)"):
        check_game("upside", players=[2], games=3)
    race("mixed", new_game=LowRace, score_direction="higher")
    with pytest.raises(AssertionError, match="the game object's score_direction 'lower' is not its GameDef's 'higher'"):
        check_game("mixed", players=[2], games=1)


def _agents(gid, *specs):
    reg = G.get_game(gid).agents()
    return [reg.parse_agent(s) for s in specs]


def test_the_generic_chunk_player_ranks_the_lowest_first(race):
    gd = G.get_game("lowrace")
    df = play_chunk(gd, gd.load_rules("standard"), 3, _agents("lowrace", *["random"] * 3), "rotate", 1, 0, 30)
    for _, g in df.groupby("game"):
        assert (g["rank"] == 1).tolist() == (g["total"] == g["total"].min()).tolist()
        assert g["win_share"].sum() == pytest.approx(1.0)
    assert df["win"].equals(df["rank"] == 1)


@pytest.mark.parametrize(("gid", "best"), [("lowrace", 1), ("highrace", 3)])
def test_ismcts_score_reward_seeks_the_better_score(race, gid, best):
    gd = G.get_game(gid)
    agent = ISMCTS(iters=60, reward="score")
    rng = np.random.default_rng(0)
    for seed in range(4):
        g = gd.new_game(1, None, seed)
        while not g.done:
            m = agent.act(g.observation(g.current), g.legal_moves(), rng)
            assert m == best, (gid, seed, g.turn)
            g.apply(m)


def test_ismcts_win_reward_beats_random_where_the_lowest_wins(race):
    gd = G.get_game("lowrace")
    agents = _agents("lowrace", "ismcts:iters=30", "random")
    df = play_chunk(gd, gd.load_rules("standard"), 2, agents, "rotate", 3, 0, 40)
    share = df[df.agent.str.startswith("ismcts")]["win_share"].mean()
    assert share > 0.65  # random takes 3 points half the time; the search takes 1


def _stored(gid: str):
    gd = G.get_game(gid)
    df = play_chunk(gd, gd.load_rules("standard"), 2, _agents(gid, "random", "random"), "fixed", 5, 0, 300)
    return df.assign(run_id="r")


def test_seat_compensation_counts_points_against_a_seat_where_the_lowest_wins(race):
    df = _stored("lowrace")  # seat 2 starts 2 points up: behind, where the lowest wins
    low = C.game_arrays(df, "lowrace")
    shares = [C.seat_shares(low, (k, 0))[0] for k in range(4)]
    assert shares[0] > 0.6  # seat 1 favoured
    assert all(a > b for a, b in itertools.pairwise(shares))  # points given to seat 1 hurt it
    best = C.search(df, "lowrace", max_points=4, top=1).iloc[0]
    assert best["compensation"].split("/")[0] != "0" and best["compensation"].endswith("/0")
    assert best["max_deviation"] < abs(C.current(df, "lowrace").iloc[0]["seat1"] - 0.5)
    # the same stored scores, read as highest-wins: seat 2 is favoured and points given to seat 1 help it
    high = C.game_arrays(df, "highrace")
    up = [C.seat_shares(high, (k, 0))[0] for k in range(4)]
    assert up[0] < 0.4 and all(a < b for a, b in itertools.pairwise(up))
