"""Interval helpers shared by the command line and the analysis pipelines."""

from __future__ import annotations

from statsmodels.stats.proportion import proportion_confint


def wilson(successes: float, n: int, alpha: float = 0.05) -> tuple[float, float]:
    """Wilson score interval for a proportion (fractional successes allowed, e.g. shared wins)."""
    if n <= 0:
        return (0.0, 1.0)
    lo, hi = proportion_confint(successes, n, alpha=alpha, method="wilson")
    return float(lo), float(hi)
