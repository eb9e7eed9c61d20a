# Usage: python results/v1.2/park-screen/screen.py SEEDS_FOLDER > results/v1.2/park-screen/screen.csv
# Prices one rule outside the scoring numbers -- which districts a park must touch to score its adjacency
# (scoring.park.adjacent_to; the print: "RC") -- alone and with commercial's 10-14 and 15+ tiers, by rescoring the
# print's specialist games of ../train-seeds/ (SEEDS_FOLDER: its runs.sh output; strong 4,000 games with weights
# from training seeds 1, 2 and 3, expert 600 games with seeds 1 and 2; 4 players, seats rotated, run seed 41).
# Play is held fixed: the agents chose their moves under the print (README.md says what that misses).
import sys

import pandas as pd

from boardlab.experiments.citywright.rescore import rescore
from boardlab.experiments.pipelines import win_share
from boardlab.sim.citywright.rules import load_rules

PRINT = load_rules("results/v1.2/v1.2-no-compensation.toml").with_overrides({"game.two_player_tie": "second_seat"})
RUNS = [("strong", 1), ("strong", 2), ("strong", 3), ("expert", 1), ("expert", 2)]
tables = {run: pd.read_parquet(f"{sys.argv[1]}/{run[0]}-v1.2-no-compensation-w{run[1]}.parquet") for run in RUNS}
variants = [(a, 15, 11) for a in ("RC", "C", "CP", "CI", "CPI", "RCI", "RCP", "R", "RI")]
variants += [(a, t1, t2) for a in ("RC", "CP", "CI", "CPI") for t1 in (15, 16, 17) for t2 in (11, 12, 13, 14)]
rows = []
for adjacent_to, t1, t2 in dict.fromkeys(variants):
    rules = PRINT.with_overrides(
        {"scoring.park.adjacent_to": adjacent_to, "scoring.commercial.tier_points": [5, t1, t2]}
    )
    for (tier, seed), df in tables.items():
        r = rescore(df, rules)
        r["d"] = r.agent.str.extract(r"specialist:(\w)")[0]
        shares = win_share(r, "d").set_index("d")
        for d in "RCPI":
            w = shares.loc[d]
            rows.append(dict(adjacent_to=adjacent_to, tier_10_14=t1, tier_15=t2, tier=tier, train_seed=seed,
                             specialist=d, games=r.game.nunique(), win_pct=100 * w.win_share, lo=100 * w.lo,
                             hi=100 * w.hi, mean_total=r[r.d == d].total.mean()))  # fmt: skip
print(pd.DataFrame(rows).round(2).to_csv(index=False), end="")
