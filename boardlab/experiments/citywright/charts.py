"""Citywright's report charts (reproduce and reproduce --skill): specialists, seats, waste, calibration, solo and
the skill axis, drawn with boardlab.experiments.charts."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from boardlab.experiments.charts import family_colours, grouped_bars, legend_below, plt, save, whiskers


def specialists_chart(spec: pd.DataFrame, path: Path, book: bool = True) -> None:
    """Win share per specialist, one panel per rule set, bars per family; `book`: the rulebook's marks.

    Parameters
    ----------
    spec : pandas.DataFrame
        :func:`specialist_table`.
    path : pathlib.Path
        The PNG file.
    book : bool
        Mark the rulebook's figures.
    """
    t = spec.astype({"family": str, "district": str})
    panels = list(dict.fromkeys(t["rules"]))
    colours = family_colours(t["family"])
    ncol = 2
    nrow = (len(panels) + ncol - 1) // ncol
    fig, axes = plt.subplots(
        nrow, ncol, figsize=(10, 3.4 * nrow + 0.8), sharey=True, squeeze=False, layout="constrained"
    )
    for k, ax in enumerate(axes.flat):
        if k >= len(panels):
            ax.set_visible(False)
            continue
        sub = t[t["rules"] == panels[k]]
        grouped_bars(ax, sub, "district", "family", "win_pct", xorder="RCPI", book="rulebook" if book else None,
                     colours=colours)  # fmt: skip
        ax.axhline(25, color="grey", lw=0.6, ls=":")
        ax.set_title(f"{panels[k]}: 4 specialists, 4 players", fontsize=10)
        ax.set_xlabel("specialist")
        if k % ncol == 0:
            ax.set_ylabel("win share, % (95% Wilson)")
    legend_below(fig, axes, colours, book)
    save(fig, path)


def seats_chart(seats: pd.DataFrame, path: Path, book: bool = True) -> None:
    """Seat win shares before and after compensation, one panel per player count; `book`: the rulebook's marks.

    Parameters
    ----------
    seats : pandas.DataFrame
        :func:`seat_table`.
    path : pathlib.Path
        The PNG file.
    book : bool
        Mark the rulebook's figures.
    """
    # before, then after (v1.1's compensation, or a variant's: "after (NAME)"); not the solver's re-simulation
    labels = list(dict.fromkeys(seats["compensation"]))
    comps = [c for c in labels if c == "before (none)"] + [c for c in labels if c.startswith("after (")]
    players = sorted(seats["players"].unique())
    colours = family_colours(seats["family"])
    fig, axes = plt.subplots(
        len(comps),
        len(players),
        figsize=(4 * len(players), 3.4 * len(comps) + 0.6),
        squeeze=False,
        layout="constrained",
    )
    for i, comp in enumerate(comps):
        for j, p in enumerate(players):
            ax = axes[i][j]
            sub = seats[(seats["players"] == p) & (seats["compensation"] == comp)]
            grouped_bars(ax, sub, "seat", "family", "win_pct", book="rulebook" if book else None, colours=colours)
            ax.axhline(100 / p, color="grey", lw=0.6, ls=":")
            ax.set_title(f"{p} players, compensation {comp}", fontsize=9)
            ax.set_xlabel("seat")
            if j == 0:
                ax.set_ylabel("win share, %")
    legend_below(fig, axes, colours, book)
    save(fig, path)


def waste_chart(waste: pd.DataFrame, path: Path) -> None:
    """Two-player wasted tiles per player, v1.0 against v1.1, per family, beside the rulebook's figure.

    Parameters
    ----------
    waste : pandas.DataFrame
        :func:`waste_table`.
    path : pathlib.Path
        The PNG file.
    """
    colours = family_colours(waste["family"])
    fig, ax = plt.subplots(figsize=(6.4, 4.4), layout="constrained")
    grouped_bars(
        ax,
        waste,
        "rules",
        "family",
        "waste",
        xorder=["v1.0 (16 turns)", "v1.1 (12 turns)"],
        book="rulebook",
        colours=colours,
    )
    ax.set_ylabel("wasted tiles per player (95% CI)")
    ax.set_title("2 players: wasted tiles per player", fontsize=10)
    legend_below(fig, [ax], colours)
    save(fig, path)


def calibration_chart(calib: pd.DataFrame, path: Path) -> None:
    """RMS distance to the rulebook's specialist table per calibration point (weight x progress), per rule set.

    Parameters
    ----------
    calib : pandas.DataFrame
        :func:`calibration_table`.
    path : pathlib.Path
        The PNG file.
    """
    versions = list(dict.fromkeys(calib["rules"]))
    fig, axes = plt.subplots(1, len(versions), figsize=(4.5 * len(versions), 3.6), squeeze=False, layout="constrained")
    for ax, ver in zip(axes[0], versions, strict=True):
        piv = calib[calib["rules"] == ver].pivot(index="progress", columns="weight", values="rms_pts")
        im = ax.imshow(piv.to_numpy(), cmap="viridis_r", aspect="auto", origin="lower")
        ax.set_xticks(range(piv.shape[1]), [f"{v:g}" for v in piv.columns])
        ax.set_yticks(range(piv.shape[0]), [f"{v:g}" for v in piv.index])
        for (r, c), v in np.ndenumerate(piv.to_numpy()):
            ax.text(
                c,
                r,
                f"{v:.1f}",
                ha="center",
                va="center",
                fontsize=8,
                color="white" if v > piv.values.mean() else "black",
            )
        ax.set_xlabel("weight on own district")
        ax.set_ylabel("progress bonus")
        ax.set_title(f"{ver}: RMS gap to rulebook (pts)", fontsize=10)
        fig.colorbar(im, ax=ax, shrink=0.8)
    save(fig, path)


def solo_chart(scores: np.ndarray, ratings: pd.DataFrame, family: str, path: Path) -> None:
    """Histogram of solo scores with the rating tiers' thresholds marked.

    Parameters
    ----------
    scores : numpy.ndarray
        int, shape ``(games,)``: solo final scores.
    ratings : pandas.DataFrame
        :func:`rating_table`.
    family : str
        The agent family, for the title.
    path : pathlib.Path
        The PNG file.
    """
    fig, ax = plt.subplots(figsize=(6, 3.6), layout="constrained")
    ax.hist(scores, bins=np.arange(scores.min() - 0.5, scores.max() + 1.5), color="tab:blue", alpha=0.8)
    for _, r in ratings.iterrows():
        if r["score_at_least"] > 0:
            ax.axvline(r["score_at_least"] - 0.5, color="black", lw=0.8, ls="--")
            ax.text(r["score_at_least"], ax.get_ylim()[1] * 0.95, r["rating"], fontsize=7, rotation=90, va="top")
    ax.set_xlabel("solo final score")
    ax.set_ylabel("games")
    ax.set_title(f"Solo scores, {family} ({len(scores):,} games) and rating tiers", fontsize=10)
    save(fig, path)


def skill_chart(spec: pd.DataFrame, seats: pd.DataFrame, path: Path) -> None:
    """Win share against skill tier: per specialist (one panel per rule set) and per seat without
    compensation (one panel per player count); whiskers are 95% Wilson intervals.

    Parameters
    ----------
    spec : pandas.DataFrame
        The specialists' table of every tier.
    seats : pandas.DataFrame
        The seats' table of every tier.
    path : pathlib.Path
        The PNG file.
    """
    spec = spec.astype({"family": str, "district": str})
    tiers = list(dict.fromkeys(spec["family"]))
    rule_sets = list(dict.fromkeys(spec["rules"]))
    before = seats[seats["compensation"] == "before (none)"]
    players = sorted(before["players"].unique())
    fig, axes = plt.subplots(1, len(rule_sets) + len(players), figsize=(3.3 * (len(rule_sets) + len(players)), 3.6),
                             squeeze=False, layout="constrained")  # fmt: skip
    xs = np.arange(len(tiers))
    for ax, rules in zip(axes[0], rule_sets, strict=False):
        for d, sub in spec[spec["rules"] == rules].groupby("district", sort=False):
            sub = sub.set_index("family").reindex(tiers)
            ax.errorbar(
                xs, sub["win_pct"], yerr=whiskers(sub, "win_pct"), marker="o", capsize=3, label=f"specialist {d}"
            )
        ax.axhline(25, color="grey", lw=0.6, ls=":")
        ax.set_title(f"specialists, {rules}", fontsize=10)
        ax.set_ylabel("win share, % (95% Wilson)")
        ax.legend(fontsize=7)
    for ax, p in zip(axes[0][len(rule_sets) :], players, strict=True):
        for seat, sub in before[before["players"] == p].groupby("seat", sort=True):
            sub = sub.drop_duplicates("family").set_index("family").reindex(tiers)
            ax.errorbar(xs, sub["win_pct"], yerr=whiskers(sub, "win_pct"), marker="o", capsize=3, label=f"seat {seat}")
        ax.axhline(100 / p, color="grey", lw=0.6, ls=":")
        ax.set_title(f"seats, {p} players, no compensation", fontsize=10)
        ax.legend(fontsize=7)
    for ax in axes[0]:
        ax.set_xticks(xs, tiers)
        ax.set_xlabel("skill tier")
    save(fig, path)
