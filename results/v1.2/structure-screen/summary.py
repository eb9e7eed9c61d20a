# Usage: python results/v1.2/structure-screen/summary.py   (from the repository's root)
# README.md's two tables from specialists.csv and points.csv: win shares R / C / P / I per tier and training seed
# (bold: outside 25 +- 5) with commercial's gap between the tiers (strong minus expert, mean over the seeds), and
# what each specialist's points do from strong to expert play (own district / the other three, means over seeds).
import pandas as pd

D = "results/v1.2/structure-screen"
spec = pd.read_csv(f"{D}/specialists.csv")
points = pd.read_csv(f"{D}/points.csv")
order = list(dict.fromkeys(spec.rules))  # runs.sh's order is not kept by the file names; sort by round below
first = ["print", "depletes", "depletes-per-tile", "per-tile", "per-tile-iso1", "per-tile-park-adj3",
         "per-tile2-iso0", "per-tile3-iso0", "res-tiles2", "per-tile2-b10-ci3"]  # fmt: skip
order = first + sorted(r for r in order if r not in first)


def shares(rules: str, tier: str, seed: int) -> str:
    x = spec[(spec.rules == rules) & (spec.tier == tier) & (spec.train_seed == seed)].set_index("specialist").win_pct
    if x.empty:
        return "–"
    return " / ".join(("**%.1f**" if abs(x[d] - 25) > 5 else "%.1f") % x[d] for d in "RCPI")


print("| rules | strong, seed 1 | strong, seed 2 | expert, seed 1 | expert, seed 2 | C gap |")
print("|---|---|---|---|---|---|")
for r in order:
    c = {
        t: spec[(spec.rules == r) & (spec.tier == t) & (spec.specialist == "C")].win_pct.mean()
        for t in ("strong", "expert")
    }
    cells = [shares(r, t, s) for t in ("strong", "expert") for s in (1, 2)]
    print(f"| {r} | " + " | ".join(cells) + f" | {c['strong'] - c['expert']:.1f} |")
print()
g = points.groupby(["rules", "tier", "specialist"])[["own_points", "other_points", "own_tiles"]].mean()
strong, expert = g.xs("strong", level=1), g.xs("expert", level=1)
gain = expert - strong
print("| rules | R | C | P | I | C's own tiles, strong / expert |")
print("|---|---|---|---|---|---|")
for r in order:
    if r not in strong.index.get_level_values(0) or r not in expert.index.get_level_values(0):
        continue  # a rule set not yet played at both tiers
    x = gain.loc[r]
    cells = [f"{x.loc[d, 'own_points']:+.1f} / {x.loc[d, 'other_points']:+.1f}" for d in "RCPI"]
    print(
        f"| {r} | "
        + " | ".join(cells)
        + f" | {strong.loc[(r, 'C'), 'own_tiles']:.1f} / {expert.loc[(r, 'C'), 'own_tiles']:.1f} |"
    )
