# Usage: python results/v1.2/structure-screen/calibrate.py RUNS_FOLDER > results/v1.2/structure-screen/calibrate.csv
# Prices scoring numbers around the two per-tile forms without an isolation bonus (per-tile2-iso0.toml,
# per-tile3-iso0.toml) by rescoring their specialist games of runs.sh (RUNS_FOLDER: strong 4,000 and expert 600
# games with weights from training seeds 1 and 2; 4 players, seats rotated, run seed 41). Play is held fixed.
#   grid 1, 2 per tile: a bonus B for 15 or more commercial tiles (B = 0: the played form), park adjacency 2 or 3,
#               park rows 3 or 4;
#   grid 1, 3 per tile: the first f commercial tiles free (f = 0: the played form), park adjacency 2 or 3, park
#               rows 3 or 4, park columns 2 or 3;
#   grid 2: 2 per tile with B = 10 or 12, or 3 per tile; park adjacency 2, 3 or 4 points, next to R, C, RC, CI,
#               RCI, RCP or CPI.
import itertools
import sys

import pandas as pd

from boardlab.experiments.citywright.rescore import rescore
from boardlab.experiments.pipelines import win_share
from boardlab.sim.citywright.rules import load_rules

D = "results/v1.2/structure-screen"
RUNS = [("strong", 1), ("strong", 2), ("expert", 1), ("expert", 2)]


def variants():
    for bonus, adj, row in itertools.product((0, 10, 14, 18, 22), (2, 3), (3, 4)):
        com = {"tier_thresholds": [15], "tier_points": [bonus]} if bonus else {}
        yield "per-tile2-iso0", dict(rate=2, bonus_15=bonus, free=0, adjacent=adj, to="RC", row=row, column=2), com
    for free, adj, row, col in itertools.product((0, 3), (2, 3), (3, 4), (2, 3)):
        v = dict(rate=3, bonus_15=0, free=free, adjacent=adj, to="RC", row=row, column=col)
        yield "per-tile3-iso0", v, {"extra_from": free}
    for rate, bonus in ((2, 10), (2, 12), (3, 0)):
        for adj, to in itertools.product((2, 3, 4), ("R", "C", "RC", "CI", "RCI", "RCP", "CPI")):
            if (bonus in (0, 10) and adj in (2, 3) and to == "RC") or (rate, adj, to) == (3, 2, "RC"):
                continue  # in grid 1
            com = {"tier_thresholds": [15], "tier_points": [bonus]} if bonus else {}
            yield (
                f"per-tile{rate}-iso0",
                dict(rate=rate, bonus_15=bonus, free=0, adjacent=adj, to=to, row=3, column=2),
                com,
            )


def main(folder: str) -> None:
    games = {(base, run): pd.read_parquet(f"{folder}/{run[0]}-{base}-w{run[1]}.parquet")
             for base in ("per-tile2-iso0", "per-tile3-iso0") for run in RUNS}  # fmt: skip
    rows = []
    for base, v, com in variants():
        over = {f"scoring.commercial.{k}": x for k, x in com.items()}
        over |= {"scoring.park.adjacent_points": v["adjacent"], "scoring.park.adjacent_to": v["to"],
                 "scoring.park.row_points": v["row"], "scoring.park.column_points": v["column"]}  # fmt: skip
        rules = load_rules(f"{D}/{base}.toml").with_overrides(over)
        for tier, seed in RUNS:
            r = rescore(games[base, (tier, seed)], rules)
            r["d"] = r.agent.str.extract(r"specialist:(\w)")[0]
            shares = win_share(r, "d").set_index("d")
            for d in "RCPI":
                rows.append(dict(played=base, **v, tier=tier, train_seed=seed, specialist=d,
                                 games=r.game.nunique(), win_pct=100 * shares.loc[d].win_share,
                                 mean_total=r[r.d == d].total.mean()))  # fmt: skip
    print(pd.DataFrame(rows).round(2).to_csv(index=False), end="")


if __name__ == "__main__":
    main(sys.argv[1])
