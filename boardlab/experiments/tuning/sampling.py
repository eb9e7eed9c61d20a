"""The search's Optuna parts: the parameters' distributions, trial k's sampler (CMA-ES with restarts, or TPE),
seeded from (seed, k), and the Wilcoxon pruner."""

from __future__ import annotations

import math
import warnings
from typing import TYPE_CHECKING

import numpy as np

from boardlab.sim.seeds import game_seeds

from .settings import TuneError

if TYPE_CHECKING:
    from .spec import TuneSpec


def _quiet_optuna():
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
    # after a raced best (fewer blocks), the pruner pairs the blocks both played, as it should: no warning
    warnings.filterwarnings("ignore", message="WilcoxonPruner finds steps existing in the current trial")
    return optuna


def distributions(spec: TuneSpec) -> dict:
    """Optuna's distribution of each parameter (integer or float, over its range).

    Parameters
    ----------
    spec : TuneSpec
        The study.

    Returns
    -------
    dict
        Parameter name -> optuna distribution.
    """
    optuna = _quiet_optuna()
    d = optuna.distributions
    return {
        p.name: d.IntDistribution(int(p.lo), int(p.hi)) if p.integer else d.FloatDistribution(p.lo, p.hi)
        for p in spec.params
    }


def sampler(spec: TuneSpec, k: int, restart: int = 0):
    """Trial k's sampler, seeded from (seed, k); for CMA-ES, that of run `restart` (see the module's docstring).

    Parameters
    ----------
    spec : TuneSpec
        The study.
    k : int
        The trial's number.
    restart : int
        The CMA-ES run (:func:`restarts`).

    Returns
    -------
    optuna.samplers.BaseSampler
        The sampler.
    """
    optuna = _quiet_optuna()
    seed = int(game_seeds(spec.seed ^ 0x7E5E, k, k + 1)[0] >> np.uint64(33))
    if spec.sampler == "cmaes":
        s = optuna.samplers.CmaEsSampler(
            seed=seed, with_margin=any(p.integer for p in spec.params), consider_pruned_trials=True,
            warn_independent_sampling=False,
        )  # fmt: skip
        if restart:
            # Optuna keeps CMA-ES's state in the trials under this prefix: a new prefix is a fresh run (the
            # attribute is private; without it there are no restarts)
            if not hasattr(s, "_attr_prefix"):  # pragma: no cover
                raise TuneError("this Optuna's CmaEsSampler cannot be restarted; use --sampler tpe")
            s._attr_prefix = f"{s._attr_prefix}restart{restart}:"
        return s
    return optuna.samplers.TPESampler(multivariate=True, seed=seed, n_startup_trials=spec.n_startup)


def cma_patience(spec: TuneSpec) -> int:
    """Trials without a better one after which CMA-ES starts afresh: four generations of its default population.

    Parameters
    ----------
    spec : TuneSpec
        The study.

    Returns
    -------
    int
        The patience.
    """
    return 4 * (4 + int(3 * math.log(len(spec.params))))


def restarts(trials: list, patience: int) -> list[int]:
    """The CMA-ES run each of `trials` (finished, in order, the base left out) belongs to, and the next one's:
    a run ends when its own best value has not improved for `patience` trials (an invalid trial never improves).

    Parameters
    ----------
    trials : list of optuna.trial.FrozenTrial
        The finished trials.
    patience : int
        :func:`cma_patience`.

    Returns
    -------
    list of int
        One run index per trial, then the next trial's.
    """
    run, best, since, out = 0, math.inf, 0, []
    for t in trials:
        out.append(run)
        value = math.inf if "invalid" in t.user_attrs else t.user_attrs.get("value", math.inf)
        if value < best:
            best, since = value, 0
        else:
            since += 1
        if since >= patience:
            run, best, since = run + 1, math.inf, 0
    return [*out, run]


def pruner(spec: TuneSpec):
    """The study's pruner: Wilcoxon's on the blocks (``prune_p``, after ``prune_after`` blocks), or none.

    Parameters
    ----------
    spec : TuneSpec
        The study.

    Returns
    -------
    optuna.pruners.BasePruner
        The pruner.
    """
    optuna = _quiet_optuna()
    if spec.prune_p <= 0:
        return optuna.pruners.NopPruner()
    return optuna.pruners.WilcoxonPruner(p_threshold=spec.prune_p, n_startup_steps=spec.prune_after)
