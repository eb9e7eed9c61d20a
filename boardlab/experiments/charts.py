"""PNG charts of the analysis tables: bars with 95% interval whiskers, the rulebook's figure marked.

Every function takes a long-format table (as written to CSV by a report, a ladder
or a sweep) and a path, and writes one PNG (written whole to a temporary file,
then renamed, :func:`save`).  matplotlib runs headless (Agg).  The charts of one
game's report live in its folder (``experiments/<game>/``) and draw with these.
"""

from __future__ import annotations

import os
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

BOOK_STYLE = {"marker": "D", "color": "black", "markersize": 5, "linestyle": "none", "zorder": 5}


def save(fig, path: Path) -> None:
    """Save a figure as PNG through a temporary file (replaced whole), then close it.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure.
    path : pathlib.Path
        The PNG file.
    """
    path = Path(path)
    tmp = path.with_name(f".{path.stem}.{os.getpid()}.tmp.png")
    fig.savefig(tmp, dpi=110, bbox_inches=None)
    plt.close(fig)
    os.replace(tmp, path)


def whiskers(t: pd.DataFrame, value: str, lo: str = "lo", hi: str = "hi") -> np.ndarray:
    """Whisker lengths from column `lo` up to `value` and from `value` up to column `hi`, each clipped at 0.

    An interval need not hold its estimate: a normal interval of a mean is rounded, and at a few games an
    interval built around another centre (Wilson's) or estimated apart may lie wholly on one side of it.
    matplotlib refuses a negative whisker; the clipped one is drawn as none.

    Parameters
    ----------
    t : DataFrame
        The table.
    value, lo, hi : str
        The columns of the estimate and of the interval's bounds.

    Returns
    -------
    ndarray
        Shape (2, len(t)): the lower and the upper whisker lengths, never negative (NaN where a value is).
    """
    return np.clip(np.vstack([t[value] - t[lo], t[hi] - t[value]]).astype(float), 0, None)


def family_colours(families) -> dict[str, tuple]:
    """One colour per family, the same in every panel (order of first appearance).

    Parameters
    ----------
    families : iterable of str
        The families (repeats allowed).

    Returns
    -------
    dict of str to tuple
        Family -> an RGBA colour of the tab10 map.
    """
    cmap = plt.get_cmap("tab10")
    return {f: cmap(i % 10) for i, f in enumerate(dict.fromkeys(families))}


def grouped_bars(ax, t: pd.DataFrame, x: str, group: str, value: str, xorder=None, book=None, colours=None):
    """Bars of `value` per `x`, one colour per `group`, whiskers lo..hi; rulebook marks beside each x.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Where to draw.
    t : pandas.DataFrame
        Rows with columns `x`, `group`, `value`, ``lo`` and ``hi``.
    x, group, value : str
        The columns of the bars' positions, colours and heights.
    xorder : sequence or None
        The x values' order (None: order of first appearance).
    book : str or None
        A column of the rulebook's value per x, marked beside the bars (None: no mark).
    colours : dict or None
        Group -> colour (None: :func:`family_colours`).
    """
    xs = list(xorder) if xorder is not None else list(dict.fromkeys(t[x]))
    groups = list(dict.fromkeys(t[group]))
    colours = colours or family_colours(groups)
    width = 0.8 / (len(groups) + (1 if book else 0))
    for i, gname in enumerate(groups):
        sub = t[t[group] == gname].set_index(x).reindex(xs)
        pos = np.arange(len(xs)) - 0.4 + width * (i + 0.5)
        ax.bar(
            pos,
            sub[value],
            width,
            yerr=whiskers(sub, value),
            capsize=2,
            label=gname,
            color=colours[gname],
            error_kw={"elinewidth": 0.8},
        )
    if book:
        ref = t.groupby(x, sort=False, observed=True)[book].first().reindex(xs)
        pos = np.arange(len(xs)) - 0.4 + width * (len(groups) + 0.5)
        ax.plot(pos, ref, label="rulebook", **BOOK_STYLE)
    ax.set_xticks(np.arange(len(xs)), [str(v) for v in xs])


def legend_below(fig, axes, colours, book: bool = True) -> None:
    """One legend for the figure, below the panels: every family and (`book`) the rulebook mark.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The figure.
    axes : sequence of matplotlib.axes.Axes
        Its panels.
    colours : dict
        Family -> colour.
    book : bool
        Whether the rulebook mark is in the legend.
    """
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    handles = [Patch(color=c, label=f) for f, c in colours.items()]
    if book:
        handles.append(Line2D([], [], label="rulebook", **BOOK_STYLE))
    fig.legend(handles=handles, loc="outside lower center", ncols=min(len(handles), 4), fontsize=8, frameon=False)


def sweep_chart(t: pd.DataFrame, param: str, path: Path) -> None:
    """Win share of each agent against the swept value, with interval whiskers.

    Parameters
    ----------
    t : pandas.DataFrame
        The sweep's table (value, agent, win_pct, lo, hi).
    param : str
        The swept key (the x axis's label).
    path : pathlib.Path
        The PNG file (written whole).
    """
    fig, ax = plt.subplots(figsize=(6.4, 4), layout="constrained")
    values = list(dict.fromkeys(t["value"]))
    xs = np.arange(len(values))
    for agent, sub in t.groupby("agent", sort=False):
        sub = sub.set_index("value").reindex(values)
        ax.errorbar(xs, sub["win_pct"], yerr=whiskers(sub, "win_pct"), marker="o", capsize=3, label=agent)
    ax.set_xticks(xs, [str(v) for v in values])
    ax.set_xlabel(param)
    ax.set_ylabel("win share, % (95% Wilson)")
    ax.legend(fontsize=7)
    ax.set_title(f"Sweep of {param}", fontsize=10)
    save(fig, path)


def ratings_chart(ratings: pd.DataFrame, path: Path) -> None:
    """Plackett–Luce ratings with 95% bootstrap whiskers, one panel per player count, agents best first.

    Parameters
    ----------
    ratings : pandas.DataFrame
        The ratings table (players, agent, rating, lo, hi).
    path : pathlib.Path
        The PNG file (written whole).
    """
    groups = list(dict.fromkeys(ratings["players"].astype(str)))
    fig, axes = plt.subplots(1, len(groups), figsize=(4.2 * len(groups), 0.45 * ratings["agent"].nunique() + 1.6))
    axes = np.atleast_1d(axes)
    for ax, label in zip(axes, groups, strict=True):
        t = ratings[ratings["players"].astype(str) == label].sort_values("rating")
        y = np.arange(len(t))
        ax.errorbar(t["rating"], y, xerr=whiskers(t, "rating"), fmt="o", color="black", capsize=2, markersize=4)
        ax.axvline(0, color="grey", linewidth=0.8)
        ax.set_yticks(y, t["name"] if "name" in t else t["agent"], fontsize=7)
        ax.set_title(f"{label} players" if label != "all" else "all games", fontsize=9)
        ax.set_xlabel("rating (log-strength vs reference)", fontsize=8)
    fig.tight_layout()
    save(fig, path)


def tune_loss_chart(trials: pd.DataFrame, path: Path, base_loss: float) -> None:
    """Each trial's loss (log scale): complete, pruned (partial games) and outside the constraints; the best so far.

    Parameters
    ----------
    trials : pandas.DataFrame
        One row per trial (trial, state, pruned, value, loss).
    path : pathlib.Path
        The PNG file (written whole).
    base_loss : float
        The base rules' loss, drawn as a line.
    """
    fig, ax = plt.subplots(figsize=(7, 4), layout="constrained")
    t = trials[trials["state"] != "invalid"]
    ok = t[~t["pruned"] & (t["value"] == t["loss"])]
    pruned = t[t["pruned"]]
    penalised = t[~t["pruned"] & (t["value"] != t["loss"])]
    ax.scatter(ok["trial"], ok["loss"], s=18, color="tab:blue", label="complete", zorder=3)
    ax.scatter(pruned["trial"], pruned["loss"], s=22, marker="x", color="tab:orange", label="pruned (loss so far)")
    if len(penalised):
        ax.scatter(penalised["trial"], penalised["loss"], s=18, marker="s", facecolors="none", color="tab:red",
                   label="outside the mean-total band")  # fmt: skip
    complete = t[~t["pruned"]].sort_values("trial")
    if len(complete):
        ax.step(complete["trial"], complete["value"].cummin().clip(upper=complete["loss"].max()), where="post",
                color="black", lw=1, label="best so far")  # fmt: skip
    ax.axhline(base_loss, color="grey", lw=0.8, ls=":", label="base")
    ax.set_yscale("log")
    ax.set_xlabel("trial")
    ax.set_ylabel("loss, points² (log scale)")
    ax.set_title("Loss over trials (the same seed blocks for every trial)", fontsize=10)
    ax.legend(fontsize=7)
    save(fig, path)


def importance_chart(importance: pd.Series, path: Path) -> None:
    """Horizontal bars of each parameter's importance (sums to 1).

    Parameters
    ----------
    importance : pandas.Series
        Importance per parameter (may be empty).
    path : pathlib.Path
        The PNG file (written whole).
    """
    fig, ax = plt.subplots(figsize=(6.4, 0.5 * max(len(importance), 2) + 1.2), layout="constrained")
    if len(importance):
        imp = importance.sort_values()
        ax.barh(np.arange(len(imp)), imp.to_numpy(), color="tab:blue")
        ax.set_yticks(np.arange(len(imp)), list(imp.index), fontsize=8)
    else:
        ax.text(0.5, 0.5, "too few complete trials", ha="center", va="center", transform=ax.transAxes)
    ax.set_xlabel("importance (PED-ANOVA, sums to 1)")
    ax.set_title("Parameter importance", fontsize=10)
    save(fig, path)


def before_after_chart(verify: pd.DataFrame, path: Path) -> None:
    """Win share per agent and per seat (one panel per kind of row: agents, seats, seats at each player count),
    base beside best, with Wilson whiskers; 1/N marked.

    Parameters
    ----------
    verify : pandas.DataFrame
        The verification's rows (kind, group, rules, win_pct, lo, hi).
    path : pathlib.Path
        The PNG file (written whole).
    """
    kinds = list(dict.fromkeys(verify["kind"]))
    fig, axes = plt.subplots(1, len(kinds), figsize=(5.2 * len(kinds), 4), squeeze=False, layout="constrained")
    colours = {"base": "tab:grey", "best": "tab:green"}
    for ax, kind in zip(axes[0], kinds, strict=True):
        sub = verify[verify["kind"] == kind]
        grouped_bars(ax, sub, "group", "rules", "win_pct", colours=colours)
        ax.axhline(100 / int(sub["players"].iloc[0]), color="black", lw=0.7, ls=":")
        ax.set_xlabel(kind)
        ax.tick_params(axis="x", labelsize=7)
        ax.set_ylabel("win share, % (95% Wilson)")
        ax.set_title(f"per {kind}, {int(sub['games'].iloc[0]):,} games each", fontsize=10)
        ax.legend(fontsize=7)
    save(fig, path)


def compare_chart(table: pd.DataFrame, labels: dict, a: str, b: str, players: int, path: Path) -> None:
    """Three panels: win share per agent (A beside B), per seat, and the score breakdown's B − A per agent.

    Parameters
    ----------
    table : pandas.DataFrame
        The comparison's long table (OUT_COLUMNS of boardlab.experiments.compare).
    labels : dict
        Canonical agent spec -> label.
    a, b : str
        The two rule sets' names.
    players : int
        Players per game (for the 1/N mark).
    path : pathlib.Path
        The PNG file (written whole).
    """
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2), layout="constrained")
    colours = {a: "tab:grey", b: "tab:blue"} if a != b else {a: "tab:grey", f"{b} (B)": "tab:blue"}
    names = list(colours)
    for ax, by in zip(axes[:2], ("agent", "seat"), strict=True):
        t = table[(table["section"] == "win share") & (table["by"] == by)]
        groups = [labels.get(g, g) if by == "agent" else f"seat {g}" for g in t["group"]]
        long = pd.concat(
            [
                pd.DataFrame({"group": groups, "rules": names[0], "pct": 100 * t["a"].to_numpy(),
                              "lo": 100 * t["a_lo"].to_numpy(), "hi": 100 * t["a_hi"].to_numpy()}),
                pd.DataFrame({"group": groups, "rules": names[1], "pct": 100 * t["b"].to_numpy(),
                              "lo": 100 * t["b_lo"].to_numpy(), "hi": 100 * t["b_hi"].to_numpy()}),
            ]
        )  # fmt: skip
        grouped_bars(ax, long, "group", "rules", "pct", colours=colours)
        ax.axhline(100 / players, color="black", lw=0.7, ls=":")
        ax.tick_params(axis="x", labelsize=7)
        ax.set_ylabel("win share, % (95% Wilson)")
        ax.set_title(f"win share per {by}", fontsize=10)
        ax.legend(fontsize=7)
    ax = axes[2]
    t = table[table["section"] == "score"].copy()
    t["agent"] = [labels.get(g, g) for g in t["group"]]
    grouped_bars(ax, t.rename(columns={"diff": "d"}), "metric", "agent", "d")
    ax.axhline(0, color="black", lw=0.7)
    ax.tick_params(axis="x", labelsize=7, rotation=20)
    ax.set_ylabel("mean points, B − A (95% CI)")
    ax.set_title("score breakdown, B − A per agent", fontsize=10)
    ax.legend(fontsize=7)
    fig.suptitle(f"A = {a}, B = {b}", fontsize=10)
    save(fig, path)
