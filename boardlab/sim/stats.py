"""Interval helpers shared by the command line and the analysis pipelines."""

from __future__ import annotations

from statsmodels.stats.proportion import proportion_confint


def wilson(successes: float, n: int, alpha: float = 0.05) -> tuple[float, float]:
    """Wilson score interval for a proportion (fractional successes allowed, e.g. shared wins).

    Parameters
    ----------
    successes : float
        The number of successes (a sum of win shares may be fractional).
    n : int
        The number of trials; 0 or fewer gives the whole interval ``(0, 1)``.
    alpha : float
        One minus the confidence level (0.05: a 95 % interval).

    Returns
    -------
    tuple of float
        ``(low, high)``.
    """
    if n <= 0:
        return (0.0, 1.0)
    lo, hi = proportion_confint(successes, n, alpha=alpha, method="wilson")
    return float(lo), float(hi)
