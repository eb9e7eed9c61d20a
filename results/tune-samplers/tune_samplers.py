"""Which Optuna sampler for `citywright tune scoring`? A measurement on a cheap surrogate of the real problem.

The real objective re-simulates thousands of games per trial; a sampler benchmark needs hundreds of
studies, so it runs on a surrogate with the same parameters, constraints and loss: stored games of the
four specialists under v1.1 are **re-scored** under each trial's scoring (play held fixed, so agents do
not replan; district points from the engine's kernel, Green Canopy re-awarded, ties broken as the rules
do).  Each study: 10 integer parameters, ``--max-changes 3`` (projection by the largest relative
move and the nudge for sampled excess changes, as the command does), ``--keep-mean-total 15`` (the
command's penalty), the base as trial 0; CMA-ES restarted as the command restarts it.

    python results/tune-samplers/tune_samplers.py RESULTS.parquet [TRIALS] [SEEDS]

RESULTS.parquet: e.g. ``citywright simulate --players 4 --agents specialist:R,specialist:C,specialist:P,specialist:I
--games 4000 --seed 1 --out runs/spec.parquet``.  Prints the median and upper quartile, over seeds, of the
best loss after 30, 60 and TRIALS trials per sampler (needs the ``cmaes`` package, an Optuna extra).
"""

from __future__ import annotations

import sys
import time
import warnings

import numpy as np
import optuna
import pandas as pd

from boardlab.experiments import tuning as T
from boardlab.sim.citywright import engine as E
from boardlab.sim.citywright.boards import to_bitboards
from boardlab.sim.citywright.rules import load_rules
from boardlab.sim.citywright.tables import tables_for

PARAMS = [
    "scoring.commercial.tier_points[1]=8:20",
    "scoring.commercial.tier_points[2]=12:36",
    "scoring.commercial.isolated_points=0:4",
    "scoring.residential.pair_points=3:8",
    "scoring.residential.second_tile_points=0:3",
    "scoring.park.row_points=1:4",
    "scoring.park.column_points=1:4",
    "scoring.industrial.ring_points=1:4",
    "scoring.industrial.pair_points=2:5",
    "achievements.cards.green_canopy.points=0:16",
]


class Surrogate:
    """Specialists' loss of stored 4-player games re-scored under other scoring (play held fixed)."""

    def __init__(self, df: pd.DataFrame, base, params):
        df = df.sort_values(["game", "seat"]).reset_index(drop=True)
        self.base, self.params, self.n = base, params, len(df) // 4
        self.boards = to_bitboards(list(df["board"]))
        self.agent = pd.factorize(df["agent"])[0].reshape(self.n, 4)
        self.empty = df["empty"].to_numpy().reshape(self.n, 4)
        self.shapes = df["shapes_distinct"].to_numpy().reshape(self.n, 4)
        self.comp = df["compensation"].to_numpy().reshape(self.n, 4)
        park = df["park"].to_numpy().reshape(self.n, 4)
        canopy = base.data["achievements"]["cards"]["green_canopy"]["points"]
        self.other = df["achievements"].to_numpy().reshape(self.n, 4) - np.where(
            park == park.max(axis=1, keepdims=True), canopy, 0
        )
        self.base_mean = df["total"].mean()

    def __call__(self, values: dict) -> float:
        rules = T.rules_for(self.base, self.params, values)
        s = np.zeros((self.n * 4, 5), dtype=np.int32)
        E.score_boards(self.boards, tables_for(rules, 4).rp, s)
        park = s[:, 2].reshape(self.n, 4)
        canopy = rules.data["achievements"]["cards"]["green_canopy"]["points"]
        total = s[:, :4].sum(axis=1).reshape(self.n, 4) + self.other + self.comp
        total = total + np.where(park == park.max(axis=1, keepdims=True), canopy, 0)
        key = total * 10_000 + (99 - self.empty) * 100 + self.shapes
        win = key == key.max(axis=1, keepdims=True)
        share = win / win.sum(axis=1, keepdims=True)
        loss = float(sum((100 * (share[self.agent == a].mean() - 0.25)) ** 2 for a in range(4)))
        excess = abs(total.mean() / self.base_mean - 1) - 0.15
        return loss + (T.PENALTY + T.PENALTY_SLOPE * excess if excess > 0 else 0.0)


def study_run(objective: Surrogate, sampler: str, seed: int, trials: int) -> list[float]:
    params = objective.params
    study = optuna.create_study(direction="minimize")
    dists = {p.name: optuna.distributions.IntDistribution(int(p.lo), int(p.hi)) for p in params}
    base = {p.name: p.base for p in params}
    study.add_trial(optuna.trial.create_trial(params=base, distributions=dists, value=objective(base)))
    best = [study.best_value]
    for k in range(1, trials):
        s = seed * 1000 + k  # a fresh sampler per trial, seeded, as the command does
        if sampler == "cmaes":  # restarted as the command does (boardlab.experiments.tuning.restarts)
            run = T.restarts(study.trials[1:], 4 * (4 + int(3 * np.log(len(params)))))[-1]
            study.sampler = optuna.samplers.CmaEsSampler(seed=s, with_margin=True)
            if run:
                study.sampler._attr_prefix += f"restart{run}:"
        elif sampler == "tpe":
            study.sampler = optuna.samplers.TPESampler(multivariate=True, seed=s)
        else:
            study.sampler = optuna.samplers.RandomSampler(seed=s)
        t = study.ask(dists)
        value = objective(T.limit_changes(params, t.params, 3))  # the played rules' value, as the command
        t.set_user_attr("value", value)
        study.tell(t, value + T.EXCESS_PENALTY * T.excess_changes(params, t.params, 3))
        best.append(min(best[-1], value))
    return best


def main(path: str, trials: int = 100, seeds: int = 10) -> pd.DataFrame:
    optuna.logging.set_verbosity(optuna.logging.ERROR)
    warnings.filterwarnings("ignore")
    base = load_rules("v1.1")
    objective = Surrogate(pd.read_parquet(path), base, T.parse_params(PARAMS, base))
    rows = []
    t0 = time.perf_counter()
    for sampler in ("cmaes", "tpe", "random"):
        for seed in range(seeds):
            b = study_run(objective, sampler, seed, trials)
            rows.append({"sampler": sampler, "seed": seed, **{f"best@{m}": b[m - 1] for m in (30, 60, trials)}})
        print(f"{sampler}: {time.perf_counter() - t0:.0f} s", file=sys.stderr)
    r = pd.DataFrame(rows)
    cols = [c for c in r.columns if c.startswith("best@")]
    print("median best loss (points²) over seeds:")
    print(r.groupby("sampler")[cols].median().round(1).to_string())
    print("upper quartile:")
    print(r.groupby("sampler")[cols].quantile(0.75).round(1).to_string())
    return r


if __name__ == "__main__":
    main(sys.argv[1], *(int(a) for a in sys.argv[2:4]))
