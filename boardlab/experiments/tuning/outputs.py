"""A finished study's files: ``trials.csv``, ``best.toml``, ``verify.csv``, the charts, ``REPORT.md`` and
``tune.json``, each written whole."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from boardlab.experiments import COMMAND
from boardlab.experiments.io import atomic_write_text

from .objective import _summary, bootstrap_tables, noise_floor_tables, pool
from .play import play_blocks, reference
from .report import report
from .sampling import _quiet_optuna
from .settings import Rules
from .space import rules_for
from .spec import TuneSpec
from .stopping import false_prune_rate, false_stop_rate, race_rates
from .store import best_trial, finished
from .verification import Verification, verify_table


def trials_table(study, spec: TuneSpec) -> pd.DataFrame:
    """One row per finished trial: state, played parameters, loss, games, pruned or not.

    Parameters
    ----------
    study : optuna.Study
        The study's trials.
    spec : TuneSpec
        The study.

    Returns
    -------
    pandas.DataFrame
        The trials, in order.
    """
    rows = []
    for t in finished(study):
        a = t.user_attrs
        state = "base" if a.get("base") else "invalid" if "invalid" in a else t.state.name.lower()
        row = {
            "trial": t.number,
            "state": state,
            "pruned": t.state.name == "PRUNED",
            "pruned_by": a.get("pruned_by", "wilcoxon") if t.state.name == "PRUNED" else "",
            "loss": a.get("loss", np.nan),
            "value": a.get("value", t.value if t.value is not None else np.nan),
            "games": a.get("games", 0),
            "blocks": a.get("blocks", 0),
            "mean_total": a.get("mean_total", np.nan),
            "mean_total_change_pct": 100 * a["mean_total_change"] if "mean_total_change" in a else np.nan,
            "changes": len(a.get("changed", [])),
            "sampled_excess": a.get("excess", 0),
            "cma_run": a.get("restart", 0),
            "seconds": a.get("seconds", np.nan),
            "cpu_seconds": a.get("cpu_seconds", np.nan),  # this process's CPU time (all of it with --jobs 1)
        }
        if spec.trains:
            row["train_seconds"] = a.get("train_seconds", 0.0)  # of "seconds": fitting the trial's weights
        if spec.race > 0:
            row["raced"] = a.get("raced", "")  # better (told complete, on the best's scale) or equivalent
        for p in spec.params:
            row[p.name] = a.get("played", t.params).get(p.name, t.params.get(p.name))
        for p in spec.params:
            row[f"sampled:{p.name}"] = t.params.get(p.name)
        rows.append(row)
    return pd.DataFrame(rows)


def best_rules(study, spec: TuneSpec) -> tuple[Rules, Any]:
    """The best trial and its played rules, named ``<base>-tuned``.

    Parameters
    ----------
    study : optuna.Study
        The study's trials.
    spec : TuneSpec
        The study.

    Returns
    -------
    tuple
        ``(rules, trial)``: the RuleSet and the optuna FrozenTrial.
    """
    t = best_trial(study)
    rules = rules_for(spec.base_rules(), list(spec.params), t.user_attrs["played"], name=f"{spec.rules_name}-tuned")
    return rules, t


def best_toml(rules: Rules, spec: TuneSpec, trial) -> str:
    """`rules` as a variant file (Rules.to_toml), headed by comments naming the changes.

    Parameters
    ----------
    rules : RuleSet
        The best rules.
    spec : TuneSpec
        The study.
    trial : optuna.trial.FrozenTrial
        The best trial.

    Returns
    -------
    str
        The TOML text.
    """
    played = trial.user_attrs["played"]
    lines = [f"# Tuned by `{COMMAND} tune scoring` from {spec.rules_name} (trial {trial.number}); changes:"]
    changed = [p for p in spec.params if played[p.name] != p.base]
    lines += [f"#   {p.name}: {p.base} -> {played[p.name]}" for p in changed] or ["#   none (the base is best)"]
    return "\n".join(lines) + "\n" + rules.to_toml()


def importances(study, spec: TuneSpec) -> pd.Series:
    """Optuna's parameter importance (PED-ANOVA) of the played values over the finished valid trials, a pruned
    trial with the value of the games it played (most trials are pruned; without them too few would remain).

    Parameters
    ----------
    study : optuna.Study
        The study's trials.
    spec : TuneSpec
        The study.

    Returns
    -------
    pandas.Series
        Importance per parameter in the spec's order (empty when optuna cannot compute it, e.g. too few trials).
    """
    optuna = _quiet_optuna()
    done = [t for t in finished(study) if "invalid" not in t.user_attrs and "value" in t.user_attrs]
    d = optuna.distributions
    dists = {
        p.name: (d.IntDistribution if p.integer else d.FloatDistribution)(min(p.lo, p.base), max(p.hi, p.base))
        for p in spec.params
    }
    shadow = optuna.create_study(direction="minimize")
    for t in done:
        played = t.user_attrs["played"]
        shadow.add_trial(optuna.trial.create_trial(params=played, distributions=dists, value=t.user_attrs["value"]))
    try:
        imp = optuna.importance.get_param_importances(shadow)
    except (RuntimeError, ValueError, ZeroDivisionError):
        return pd.Series(dtype=float)
    return pd.Series(imp, dtype=float).reindex([p.name for p in spec.params]).fillna(0.0)


def write_outputs(study, spec: TuneSpec, out: Path, work: Path, verification: Verification | None, about: dict) -> dict:
    """trials.csv, best.toml, verify.csv, the charts and REPORT.md in `out`, each written whole.

    Parameters
    ----------
    study : optuna.Study
        The study's trials.
    spec : TuneSpec
        The study.
    out : pathlib.Path
        The output directory.
    work : pathlib.Path
        The run cache (the best's and the base's games are read back from it).
    verification : Verification or None
        The verification's result (None: not verified).
    about : dict
        The command's facts, written to tune.json.

    Returns
    -------
    dict
        The summary written to tune.json (best and base loss with intervals, changes, error rates, ...).
    """
    from boardlab.experiments import charts

    out = Path(out)
    trials = trials_table(study, spec)
    atomic_write_text(trials.to_csv(index=False, float_format="%.6g"), out / "trials.csv")
    rules, best = best_rules(study, spec)
    atomic_write_text(best_toml(rules, spec, best), out / "best.toml")
    base_info = study.user_attrs["base"]
    unnamed = rules_for(spec.base_rules(), list(spec.params), best.user_attrs["played"])  # as the trial played it
    blocks = sorted(best.intermediate_values)  # every block, but a raced best's own (no block replayed here)
    pooled = pool(spec, [play_blocks(spec, unnamed, b, work) for b in blocks])
    lo, hi = bootstrap_tables(spec, pooled)
    base_frames, _ = reference(spec, work)
    base_pooled = pool(spec, base_frames)
    blo, bhi = bootstrap_tables(spec, base_pooled)
    shares = verify_table({"base": base_pooled, "best": pooled}, spec)  # on the tuning games
    imp = importances(study, spec)
    charts.tune_loss_chart(trials, out / "loss.png", base_info["loss"])
    charts.importance_chart(imp, out / "importance.png")
    if verification is not None:
        atomic_write_text(verification.table.to_csv(index=False, float_format="%.4g"), out / "verify.csv")
        charts.before_after_chart(verification.table, out / "win_shares.png")
    summary = {
        "best_trial": best.number,
        "best_loss": best.user_attrs["loss"] if len(blocks) == spec.blocks else _summary(pooled, spec).loss,
        **({"best_blocks": len(blocks), "best_value": best.user_attrs["value"]} if len(blocks) < spec.blocks else {}),
        "best_loss_ci": [lo, hi],
        "base_loss": base_info["loss"],
        "base_loss_ci": [blo, bhi],
        "noise_floor": noise_floor_tables(spec, pooled),
        "changes": {p.name: [p.base, best.user_attrs["played"][p.name]] for p in spec.params},
        "false_prune_rate": false_prune_rate(spec.blocks, spec.prune_p, spec.prune_after),
        "false_stop_rate": false_stop_rate(spec.blocks, spec.stop_z),
        **({"race_rates": race_rates(spec)} if spec.race > 0 else {}),
        "agents_played": {t.name: list(dict.fromkeys(t.agents)) for t in spec.tables()},
        "tuning_shares": shares.round(4).to_dict(orient="records"),
    }
    text = report(study, spec, trials, best, rules, summary, imp, verification, about)
    atomic_write_text(text, out / "REPORT.md")
    atomic_write_text(json.dumps({**about, "spec": spec.to_json(), "summary": summary}, indent=1), out / "tune.json")
    return summary
