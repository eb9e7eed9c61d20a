"""Stopping a trial early: the sequential stop and race against the best trial (:class:`Reference`), and the
error rates of the stop, the race and the Wilcoxon pruner (Monte Carlo), as the report quotes them."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from .objective import EXCESS_PENALTY, pooled_value
from .play import play_blocks
from .space import rules_for
from .spec import TuneSpec


def false_prune_rate(blocks: int, p: float, after: int, sims: int = 20_000, seed: int = 0) -> float:
    """Chance that a trial exactly as good as the best is pruned at some look (blocks after..blocks-1).

    Under that null the paired block differences are symmetric about zero; the
    pruner's one-sided Wilcoxon test is repeated after every block it looks at, so
    the chance of at least one p < `p` exceeds `p`.  Monte Carlo over normal
    differences (the signed-rank test's null distribution does not depend on their
    law).  The pruner's extra guard (no pruning while this trial's mean is below the
    best's) is left out, so this is an upper bound.

    Parameters
    ----------
    blocks : int
        Seed blocks per trial.
    p : float
        The pruner's p-value threshold (0 or less: never prunes).
    after : int
        The first block the pruner looks after.
    sims : int
        Monte Carlo samples.
    seed : int
        Seeds them.

    Returns
    -------
    float
        The rate.
    """
    import scipy.stats as ss

    if p <= 0:
        return 0.0
    rng = np.random.default_rng(seed)
    d = rng.normal(size=(sims, blocks))
    pruned = np.zeros(sims, dtype=bool)
    for n in range(max(2, after), blocks):
        pv = ss.wilcoxon(d[:, :n], axis=1, alternative="greater", zero_method="zsplit").pvalue
        pruned |= pv < p
    return float(pruned.mean())


def early_stop(mine: list[float], best: list[float], pooled_mine: float, pooled_best: float, z: float) -> str:
    """Why a trial should stop now ("" to go on): its pooled value so far is above the best trial's on the same
    blocks by more than `z` standard errors of the paired per-block difference.

    Parameters
    ----------
    mine, best : list of float
        This trial's and the best trial's values block by block, in the same order (at least two blocks).
    pooled_mine, pooled_best : float
        Their values on those blocks' games pooled.
    z : float
        Standard errors of the paired per-block difference that decide (0 or less: never stop).

    Returns
    -------
    str
        The reason, or ``""``.
    """
    return sequential_stop(mine, best, pooled_mine, pooled_best, z)[1]


def sequential_stop(
    mine: list[float], best: list[float], pooled_mine: float, pooled_best: float, z: float, margin: float = 0.0
) -> tuple[str, str]:
    """The early stop's decision after a block and why: ("worse", why) when the pooled gap (mine − best, on the
    same blocks) is above `z` standard errors of the paired per-block difference (:func:`early_stop`); with a
    race (`margin` > 0, points²) also ("better", why) when it is below −z standard errors, and ("equivalent",
    why) when gap ± z standard errors lies inside ±`margin`; ("", "") to go on.

    Parameters
    ----------
    mine, best : list of float
        This trial's and the best trial's values block by block, in the same order (at least two blocks).
    pooled_mine, pooled_best : float
        Their values on those blocks' games pooled.
    z : float
        Standard errors of the paired per-block difference that decide (0 or less: never stop).
    margin : float
        The race's margin in points² (0: no race).

    Returns
    -------
    tuple of str
        ``(decision, why)``.
    """
    n = len(mine)
    if z <= 0 or n < 2:
        return "", ""
    d = np.asarray(mine, dtype=float) - np.asarray(best, dtype=float)
    se = float(np.std(d, ddof=1)) / math.sqrt(n)
    gap = pooled_mine - pooled_best
    score = f"{abs(gap) / se:.1f}" if se > 0 else "infinitely many"
    seen = f"after {n} blocks: pooled value {pooled_mine:.1f} against the best's {pooled_best:.1f} on the same blocks"
    if gap > 0 and gap > z * se:
        return "worse", f"stopped {seen}, {score} standard errors of the paired block difference (--stop-z {z:g})"
    if margin <= 0:
        return "", ""
    if gap < 0 and -gap > z * se:
        return "better", f"raced {seen}, better by {score} standard errors of the paired block difference"
    if abs(gap) + z * se < margin:
        return (
            "equivalent",
            f"raced {seen}: the gap {gap:+.1f} ± {z:g} standard errors ({z * se:.1f}) inside ±{margin:g}",
        )
    return "", ""


class Reference:
    """The trial the early stop compares with: the complete trial of least told value (the WilcoxonPruner's
    best), its block values and its frames read back from the work directory as they are needed.

    Parameters
    ----------
    spec : TuneSpec
        The study.
    study : optuna.Study
        Its trials.
    info : dict
        The study's reference data.
    work : pathlib.Path
        The run cache.
    """

    def __init__(self, spec: TuneSpec, study, info: dict, work: Path):
        done = [t for t in study.get_trials(deepcopy=False) if t.state.name == "COMPLETE" and t.value is not None]
        self.trial = min(done, key=lambda t: (t.value, t.number)) if done else None
        self.spec, self.info, self.work = spec, info, work
        self.frames: dict[int, dict] = {}
        if self.trial is not None:
            a = self.trial.user_attrs
            self.rules = rules_for(spec.base_rules(), list(spec.params), a.get("played", self.trial.params))
            self.excess = a.get("excess", 0)

    def first(self, order: np.ndarray) -> np.ndarray:
        """`order` with the blocks the best played first (a raced best played fewer than all), so that a race
        pairs on the best's own blocks as long as it can.

        Parameters
        ----------
        order : numpy.ndarray
            int, the blocks in the order a trial would play them.

        Returns
        -------
        numpy.ndarray
            The same blocks, the best's first (each part in `order`'s order).
        """
        played = self.trial.intermediate_values
        return np.array([b for b in order if b in played] + [b for b in order if b not in played])

    def block_values(self, blocks: list[int]) -> list[float]:
        """The best's told values on `blocks`; a block a raced best did not play is played now (and cached).

        Parameters
        ----------
        blocks : list of int
            Block indices.

        Returns
        -------
        list of float
            One value per block.
        """
        told = self.trial.intermediate_values
        return [told[b] if b in told else self.pooled([b]) for b in blocks]

    def pooled(self, blocks: list[int]) -> float:
        """The best's value on `blocks` pooled (blocks it has no frames of are played and cached), with its
        constraint penalty.

        Parameters
        ----------
        blocks : list of int
            Block indices.

        Returns
        -------
        float
            The pooled value.
        """
        for b in blocks:
            if b not in self.frames:
                self.frames[b] = play_blocks(self.spec, self.rules, b, self.work)
        frames = [self.frames[b] for b in blocks]
        return pooled_value(self.spec, frames, blocks, self.info) + EXCESS_PENALTY * self.excess


def false_stop_rate(blocks: int, z: float, sims: int = 20_000, seed: int = 0) -> float:
    """Chance that a trial exactly as good as the best is stopped early at some look (after blocks 2..blocks-1):
    Monte Carlo over normal paired block differences, the pooled difference taken as their mean.

    Parameters
    ----------
    blocks : int
        Seed blocks per trial.
    z : float
        The early stop's threshold.
    sims : int
        Monte Carlo samples.
    seed : int
        Seeds them.

    Returns
    -------
    float
        The rate.
    """
    return stop_rates(blocks, z, sims=sims, seed=seed)["worse"]


def stop_rates(
    blocks: int, z: float, gap: float = 0.0, margin: float = 0.0, sims: int = 20_000, seed: int = 0
) -> dict[str, float]:
    """How often :func:`sequential_stop` ends a trial as "worse", "better" or "equivalent" (the first decision
    of the looks after blocks 2..blocks-1) when its true gap to the best is `gap` and the race's margin is
    `margin`, both in standard deviations of the paired block difference: Monte Carlo over normal differences,
    the pooled gap taken as their mean.  Without a race (`margin` 0) only "worse" is decided, which at
    `gap` 0 is :func:`false_stop_rate`.  At `gap` = ±`margin` the "equivalent" rate is the race's error of
    calling a trial as good as the best that is `margin` off it (:func:`false_equivalence_rate`: its largest).

    Parameters
    ----------
    blocks : int
        Seed blocks per trial.
    z : float
        The threshold (0 or less: all rates 0).
    gap : float
        The true gap.
    margin : float
        The race's margin.
    sims : int
        Monte Carlo samples.
    seed : int
        Seeds them.

    Returns
    -------
    dict of str to float
        ``worse``, ``better``, ``equivalent``: each decision's rate.
    """
    out = {"worse": 0.0, "better": 0.0, "equivalent": 0.0}
    if z <= 0:
        return out
    d = np.random.default_rng(seed).normal(size=(sims, blocks)) + gap
    kind = np.zeros(sims, dtype=int)  # 0: on, 1..3: as `out`'s keys
    for n in range(2, blocks):
        m = d[:, :n].mean(axis=1)
        se = d[:, :n].std(axis=1, ddof=1) / math.sqrt(n)
        rules = [(m > 0) & (m > z * se)]
        if margin > 0:
            rules += [(m < 0) & (-m > z * se), np.abs(m) + z * se < margin]
        for k, hit in enumerate(rules, start=1):
            kind[(kind == 0) & hit] = k
    return {name: float((kind == k).mean()) for k, name in enumerate(out, start=1)}


def false_equivalence_rate(blocks: int, z: float) -> float:
    """The race's error: the chance that a trial exactly a margin worse (or better) than the best is stopped as
    "equivalent", at its largest over margins of 1/4 to 5 standard deviations of the paired block difference
    (:func:`stop_rates`; about 6%, at a margin near one standard deviation, for 10 blocks and Z = 3).

    Parameters
    ----------
    blocks : int
        Seed blocks per trial.
    z : float
        The threshold.

    Returns
    -------
    float
        The largest rate.
    """
    margins = (0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0, 5.0)
    return max(stop_rates(blocks, z, side * m, m)["equivalent"] for m in margins for side in (1, -1))


def race_rates(spec: TuneSpec) -> dict[str, float]:
    """The race's error rates for the report: a trial as good as the best raced as better (at a margin of a
    quarter of the block difference's standard deviation, as in the measured studies), and one a margin off the
    best stopped as equivalent (:func:`false_equivalence_rate`).

    Parameters
    ----------
    spec : TuneSpec
        The study (its blocks and threshold).

    Returns
    -------
    dict of str to float
        ``better_when_as_good`` and ``equivalent_when_a_margin_off``.
    """
    return {
        "better_when_as_good": stop_rates(spec.blocks, spec.stop_z, 0.0, 0.25)["better"],
        "equivalent_when_a_margin_off": false_equivalence_rate(spec.blocks, spec.stop_z),
    }


def _min_blocks_to_prune(p: float) -> int:
    """Fewest paired blocks at which the one-sided signed-rank test can reach p < `p` (its smallest p is 1/2^n)."""
    n = 2
    while 0.5**n >= p and n < 64:
        n += 1
    return n
