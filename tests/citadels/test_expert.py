"""Citadels' expert (boardlab/agents/citadels/search.py) and the restricted-play specialists (``prefers``).

Positions come from games of ``basic`` through the public API, stopped at a random decision.  The expert is
run with small budgets here (the tier's budget is measured by the bench, its strength by simulate tables).
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from boardlab.agents.citadels import kernels as K
from boardlab.agents.citadels import search as S
from boardlab.agents.citadels.registry import TIERS, AgentError, parse_agent, rows
from boardlab.sim.citadels import engine as E
from boardlab.sim.citadels import infoset as I
from boardlab.sim.citadels.api import Game
from boardlab.sim.citadels.rules import load_rules
from boardlab.sim.citadels.tables import tables_for
from boardlab.sim.rng import rng_next
from boardlab.sim.stats import wilson

SMALL = "expert:budget=12,k=4"


def positions(count: int, players: int = 4, seed: int = 0, phase: int | None = None):
    """`count` positions (API games of basic seats stopped at a decision with 2+ legal moves; `phase`: only
    decisions of that phase)."""
    rnd = random.Random(seed)
    chooser = K.Chooser()
    row = parse_agent("basic").row()
    out = []
    g_seed = seed * 1000
    while len(out) < count:
        g = Game(players, load_rules(), g_seed)
        g_seed += 1
        stop = rnd.randrange(1, 220)
        k = 0
        while not g.done:
            if k >= stop and len(g.legal_moves()) > 1 and (phase is None or int(g.st[E.ST_PHASE]) == phase):
                out.append(g)
                break
            g.apply(chooser.move(g, row))
            k += 1
    return out


def move_of(g: Game, spec: str, seed: int | None = None) -> tuple:
    """`spec`'s move for the seat to decide; `seed`: the agent's stream's seed (default the game's)."""
    return K.Chooser().move(g, parse_agent(spec).row(), seed)


# --- information -------------------------------------------------------------------------------------------
def test_the_expert_reads_only_what_its_seat_sees():
    """Two redeals of the position for the deciding seat, and the true position, give the same move."""
    for g in positions(12, seed=1):
        p = g.current
        truth = move_of(g, SMALL)
        # the agent's own stream from the position's seed: a redeal carries a seed of its own
        assert move_of(g.redeal(p, 11), SMALL, g.seed) == truth
        assert move_of(g.redeal(p, 12), SMALL, g.seed) == truth
        assert move_of(g.redeal(p), SMALL, g.seed) == truth  # the canonical form too
        assert g.is_legal(truth)


def test_the_expert_does_not_move_the_game_and_is_a_function_of_its_seed():
    g = positions(1, seed=2)[0]
    before = (g.st.copy(), g.rng.copy())
    a = move_of(g, SMALL)
    assert np.array_equal(g.st, before[0]) and np.array_equal(g.rng, before[1])
    assert move_of(g, SMALL) == a


# --- a readable oracle -------------------------------------------------------------------------------------
class Oracle:
    """The expert's move computed by a Python loop over the kernels (search.py's docstring): basic's move and
    the others, the prior when more than k, then successive halving with common random numbers.  Only the
    playout itself (basic in every seat) and the reward are the kernels'."""

    def __init__(self, g: Game, spec: str):
        a = parse_agent(spec)
        self.g, self.q, row = g, a.params, a.row()
        self.rp, self.dt = g.tables.kernel_args()
        p = self.p = g.current
        self.st = g.st.copy()
        arng = np.zeros(2, dtype=np.uint64)
        K.position_stream(arng, np.uint64(g.seed), p, int(self.st[E.ST_DECISIONS]))
        self.mem = np.zeros(K.M_LEN, dtype=np.int32)
        K.memory_from_log(g.ev, int(g.st[E.ST_N_EVENTS]), p, self.mem)
        self.moves = np.zeros((E.MAX_MOVES, E.MV_LEN), dtype=np.int32)
        self.vals = np.zeros(E.MAX_MOVES)
        mv = np.zeros(E.MV_LEN, dtype=np.int32)
        K.basic_prefers_move(self.st, self.rp, self.dt, np.int32(p), row, arng, self.mem, self.moves, self.vals, mv)
        n = E.legal_moves(self.st, self.rp, self.dt, self.moves)
        listed = [tuple(int(x) for x in self.moves[i]) for i in range(n)]
        first = tuple(int(x) for x in mv)
        self.cands = [first] + [c for c in listed if c != first]
        self.ev = np.zeros((1, E.EV_LEN), dtype=np.int32)
        self.scratch = np.zeros(I.SCRATCH_LEN, dtype=np.int32)
        self.view, self.view_rng, _ = self.redealt(self.st, g.rng, True, 0)  # what p sees, in canonical form
        k = int(self.q["k"])
        if len(self.cands) > k:
            score = [S.position_value(self.after(self.view, self.view_rng, c)[0], self.dt, p) for c in self.cands]
            order = sorted(range(1, len(self.cands)), key=lambda i: -score[i])  # stable: ties in listing order
            self.cands = [self.cands[0]] + [self.cands[i] for i in sorted(order[: k - 1])]
        self.base = int(rng_next(arng, 0))
        self.prow = row.copy()
        self.prow[K.P_CODE] = K.A_BASIC
        self.prow[K.P_PREFERS] = 0
        self.kind = S.REWARD_WIN if self.q["reward"] == "win" else S.REWARD_MARGIN
        self.wmem = np.zeros((8, K.M_LEN), dtype=np.int32)
        self.sc = np.zeros((8, E.SC_LEN), dtype=np.int32)

    def redealt(self, st, rng, canonical: bool, state: int):
        b = st.copy()
        b[E.ST_LOG] = 0
        r = rng.copy()
        d = np.array([state, 0], dtype=np.uint64)
        I.redeal(b, r, self.rp, np.int32(self.p), d, canonical, self.scratch)
        return b, r, d

    def after(self, b, r, c):
        w, wr = b.copy(), r.copy()
        E.apply_move(w, wr, self.ev, self.rp, self.dt, np.array(c, dtype=np.int32))
        return w, wr

    def rewards(self, j: int, cands: list[int]) -> list[float]:
        """Playout j (its redeal and streams shared: common random numbers) of each candidate index."""
        b, r, d = self.redealt(self.view, self.view_rng, False, (self.base + j * int(S.JSTEP)) % (1 << 64))
        pseed = np.uint64(rng_next(d, 0))
        out = []
        for c in cands:
            w, wr = self.after(b, r, self.cands[c])
            self.wmem[:] = 0
            self.wmem[self.p] = self.mem
            S.playout(
                w, wr, self.ev, self.rp, self.dt, self.p, self.prow, self.prow, pseed, int(self.q["horizon"]),
                self.wmem, self.moves, self.vals, np.zeros(E.MV_LEN, dtype=np.int32), np.zeros(2, dtype=np.uint64),
            )  # fmt: skip
            out.append(
                S.reward(w, self.rp, self.dt, np.int32(self.p), self.kind, self.sc)
            )  # the seat as the kernels pass it
        return out

    def move(self, flip: bool = False) -> tuple:
        """flip: keep the worse half instead (the comparison a broken halving would make)."""
        if len(self.cands) <= 1:
            return K.move_tuple(np.array(self.cands[0], dtype=np.int32))
        total = [0.0] * len(self.cands)
        alive = list(range(len(self.cands)))
        rounds = (len(self.cands) - 1).bit_length()
        j = 0
        for _ in range(rounds):
            for _ in range(max(1, int(self.q["budget"]) // (len(alive) * rounds))):
                for c, v in zip(alive, self.rewards(j, alive), strict=True):
                    total[c] += v
                j += 1
            alive.sort(key=lambda c: total[c], reverse=not flip)  # equal playouts each: the total ranks the mean
            alive = alive[: (len(alive) + 1) // 2]
        return K.move_tuple(np.array(self.cands[alive[0]], dtype=np.int32))


ORACLE_SPECS = ["expert:budget=8,k=3", "expert:budget=6,k=20,reward=margin,horizon=1"]


@pytest.mark.parametrize("spec", ORACLE_SPECS)
def test_the_expert_equals_a_python_oracle(spec):
    """Three positions here (the oracle plays its playouts through the API: some seconds each); eight more in
    the slow run."""
    for g in positions(3, seed=3):
        assert move_of(g, spec) == Oracle(g, spec).move()


@pytest.mark.slow
@pytest.mark.parametrize("spec", ORACLE_SPECS)
def test_the_expert_equals_a_python_oracle_on_more_positions(spec):
    for g in positions(8, seed=5):
        assert move_of(g, spec) == Oracle(g, spec).move()


def test_successive_halving_keeps_the_better_candidate():
    """Planted: positions where one candidate's mean margin beats every other's by 4 points or more over
    100 playouts (the oracle's loop); halving on 48 playouts keeps it, a flipped comparison (keeping the
    worse half) does not."""
    spec = "expert:budget=48,k=3,reward=margin"
    planted = 0
    for g in positions(40, seed=4):
        o = Oracle(g, spec)
        if len(o.cands) < 2:
            continue
        idx = list(range(len(o.cands)))
        sums = np.zeros(len(idx))
        for j in range(1000, 1100):  # other playouts than the search's own
            sums += o.rewards(j, idx)
        order = np.argsort(-sums, kind="stable")
        if (sums[order[0]] - sums[order[1]]) / 100 < 4.0:
            continue
        best = K.move_tuple(np.array(o.cands[order[0]], dtype=np.int32))
        assert o.move() == best and move_of(g, spec) == best
        assert o.move(flip=True) != best
        planted += 1
        if planted == 3:
            break
    assert planted >= 1


# --- restricted play ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("rank", [1, 4, 6, 8])
def test_prefers_takes_its_rank_whenever_offered_and_otherwise_plays_as_the_agent(rank):
    taken = other = 0
    for g in positions(40, seed=10 + rank, phase=E.PH_PICK):
        offered = {m[1] for m in g.legal_moves() if m[0] == E.K_PICK}
        for base, special in (("basic", f"basic-prefers:{rank}"), (SMALL, f"expert-prefers:{rank},budget=12,k=4")):
            mine = move_of(g, special)
            if rank in offered:
                assert mine == (E.K_PICK, rank)
                taken += 1
            else:
                assert mine == move_of(g, base)
                other += 1
        assert move_of(g, f"basic:prefers={rank}") == move_of(g, f"basic-prefers:{rank}")
    for g in positions(6, seed=20 + rank):  # other decisions: the agent's own move
        if int(g.st[E.ST_PHASE]) != E.PH_PICK:
            assert move_of(g, f"expert-prefers:{rank},budget=12,k=4") == move_of(g, SMALL)
    assert taken > 0 and other > 0


@pytest.mark.parametrize("rank", [2, 5])
def test_a_2_player_specialist_never_discards_its_rank(rank):
    seen = 0
    for g in positions(30, players=2, seed=30 + rank, phase=E.PH_DISCARD):
        legal = {m[1] for m in g.legal_moves()}
        for spec in (f"basic-prefers:{rank}", f"expert-prefers:{rank},budget=8,k=4"):
            mine = move_of(g, spec)
            assert mine[0] == E.K_DISCARD_CHAR and g.is_legal(mine)
            if len(legal) > 1:
                assert mine[1] != rank
        seen += rank in legal
    assert seen > 0


def test_specs_tiers_and_rows():
    e = parse_agent("expert")
    assert e.tier == "expert" and str(e) == TIERS["expert"][0]
    assert str(parse_agent("basic")) == TIERS["basic"][0]
    assert parse_agent("basic").tier == "basic" and parse_agent(TIERS["basic"][0]).params == parse_agent("basic").params
    s = parse_agent("expert-prefers:6")
    assert str(s).startswith("expert-prefers:6,budget=") and s.row()[K.P_PREFERS] == 6
    assert s.row()[K.P_CODE] == K.A_EXPERT and parse_agent("basic-prefers:3").row()[K.P_CODE] == K.A_BASIC
    r = parse_agent("expert:budget=7,k=2,horizon=1,reward=margin,prefers=2").row()
    assert (r[K.P_BUDGET], r[K.P_K], r[K.P_HORIZON], r[K.P_REWARD], r[K.P_PREFERS]) == (7, 2, 1, 1, 2)
    basic = parse_agent("basic").row()
    for off in K.BASIC_PARAMS.values():  # the expert's playouts play basic's defaults
        assert r[off] == basic[off] or off == K.P_PREFERS
    for bad in ("expert-prefers:9", "expert-prefers", "expert:reward=x", "basic:prefers=9", "expert:k=0"):
        with pytest.raises(AgentError):
            parse_agent(bad)


# --- strength ----------------------------------------------------------------------------------------------
@pytest.mark.slow  # 100 expert games, about 30 s of CPU; the 2,000-game table is README's
def test_one_expert_among_three_basics_wins_more_than_a_quarter():
    games = 100  # the tier, about 0.3 s of CPU a game; it wins about 47% of them (the simulate table)
    seeds = np.arange(5000, 5000 + games, dtype=np.uint64)
    seats = np.ones((games, 4), dtype=np.int64)
    seats[np.arange(games), np.arange(games) % 4] = 0  # the expert rotates through the seats
    out = K.run_games(seeds, tables_for(load_rules(), 4), rows([parse_agent("expert"),
                                                               parse_agent("basic")]), seats)  # fmt: skip
    w = out["scores"][:, :, E.SC_WINNER].astype(float)
    share = (w[np.arange(games), np.arange(games) % 4] / w.sum(axis=1)).sum()
    lo, _ = wilson(share, games)
    assert lo > 0.25, (share / games, lo)
