"""The words: ``REPORT.md`` (what was tuned, the result, its verification, the search's record) and the summary
the command prints."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pandas as pd

from boardlab.experiments import COMMAND

from .objective import EXCESS_PENALTY, PENALTY
from .sampling import cma_patience
from .stopping import _min_blocks_to_prune

if TYPE_CHECKING:
    from .verification import Verification


def summary_text(summary: dict, best, verification: Verification | None) -> str:
    """What the command prints at the end: the best trial, its changes and the verification table.

    Parameters
    ----------
    summary : dict
        :func:`boardlab.experiments.tuning.outputs.write_outputs`' summary.
    best : optuna.trial.FrozenTrial
        The best trial.
    verification : Verification or None
        The verification (None: not run).

    Returns
    -------
    str
        The text.
    """
    changes = [f"{k} {_fmt(a)} -> {_fmt(b)}" for k, (a, b) in summary["changes"].items() if a != b]
    lo, hi = summary["best_loss_ci"]
    lines = [
        f"\nbest: trial {best.number} ({', '.join(changes) or 'the base'}); loss {summary['best_loss']:.1f} pts²"
        f" [{lo:.1f}, {hi:.1f}] on the tuning games{_raced_blocks(summary)}, base {summary['base_loss']:.1f}"
    ]
    if verification is not None:
        t = verification.table
        lines.append(f"verification, {verification.games:,} fresh games each: win % [95% Wilson], base -> best")
        for kind in dict.fromkeys(t["kind"]):
            sub = t[t["kind"] == kind]
            for g in dict.fromkeys(sub["group"]):
                a = sub[(sub["rules"] == "base") & (sub["group"] == g)].iloc[0]
                b = sub[(sub["rules"] == "best") & (sub["group"] == g)].iloc[0]
                lines.append(f"  {kind} {g:<16} {_ci(a.win_pct, a.lo, a.hi):>19} -> {_ci(b.win_pct, b.lo, b.hi)}")
        (bl, blo, bhi), (tl, tlo, thi) = verification.loss["base"], verification.loss["best"]
        lines.append(f"  loss {bl:.1f} [{blo:.1f}, {bhi:.1f}] -> {tl:.1f} [{tlo:.1f}, {thi:.1f}] pts²")
    return "\n".join(lines)


def _fmt(x) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)


def _ci(x: float, lo: float, hi: float, bold: bool = False) -> str:
    v = f"**{x:.1f}**" if bold else f"{x:.1f}"
    return f"{v} [{lo:.1f}, {hi:.1f}]"


def report(study, spec, trials, best, rules, summary, imp, verification, about) -> str:
    """REPORT.md: what was tuned, how, the best rules, their verification and the search's record.

    Parameters
    ----------
    study : optuna.Study
        The study.
    spec : TuneSpec
        Its settings.
    trials : pandas.DataFrame
        :func:`boardlab.experiments.tuning.outputs.trials_table`.
    best : optuna.trial.FrozenTrial
        The best trial.
    rules : RuleSet
        Its rules.
    summary : dict
        The summary of tune.json.
    imp : pandas.Series
        Parameter importances.
    verification : Verification or None
        The verification.
    about : dict
        The command's facts.

    Returns
    -------
    str
        The Markdown.
    """
    parts = [
        _report_head(study, spec, about),
        _report_setup(spec, best),
        _report_result(spec, best, summary),
        _report_verification(verification),
        _report_search(spec, trials, summary, imp),
    ]
    return "\n".join(line for part in parts for line in part) + "\n"


def _report_head(study, spec, about) -> list[str]:
    sessions = study.user_attrs.get("sessions", [])
    tuning = sum(s["seconds"] for s in sessions) + study.user_attrs.get("reference_seconds", 0.0)
    jobs = sessions[-1]["jobs"] if sessions else "?"
    commits = sorted({x.get("git_commit", "unknown")[:7] for x in sessions if x.get("games")})
    ran = f" (trials played at commit {', '.join(commits)})" if commits else ""
    return [
        f"# Scoring tuned: {spec.rules_name}, {_players_text(spec)}, objective `{spec.objective}`",
        "",
        f"Command: `{about.get('command', '')}`  ",
        f"Commit: `{about.get('git_commit', 'unknown')}`{ran}; finished {about.get('finished', '')}.  ",
        f"Tuning wall time: **{tuning / 60:.1f} min** ({len(sessions)} session(s), the base's reference games "
        f"included) on this machine ({os.cpu_count()} cores, `--jobs {jobs}`); the verification took "
        f"{about.get('verify_seconds', 0.0) / 60:.1f} min more.",
        "",
    ]


def _players_text(spec) -> str:
    counts = list(dict.fromkeys(t.players for t in spec.tables()))
    return f"{', '.join(map(str, counts))} players"


def _report_setup(spec, best) -> list[str]:
    L = ["## What was tuned", "", f"Base rules `{spec.rules_name}`. {_loss_text(spec)}", ""]
    played = sorted({a for t in spec.tables() for a in t.agents})
    if spec.trains:
        rounds = ",".join(str(g) for g in spec.train_games)
        L += [
            "Agents as played, in every trial and the verification: "
            + ", ".join(f"`{a}`" for a in played)
            + ". Agents whose play depends on the rules (learned weights) play **weights fitted under each trial's"
            f" rules** (`--train {rounds} --train-seed {spec.train_seed}`: `{COMMAND} train --game {spec.game}"
            f" --rules FILE --seed {spec.train_seed} --games {rounds} --k {spec.train_k}` for every rule set a"
            " trial asked, kept in the weight cache by the rules' hash); the best's are the ones its verification"
            " played.",
            "",
        ]
    else:
        L += [
            "Agents as played, in every trial and the verification: "
            + ", ".join(f"`{a}`" for a in played)
            + f". Agents whose play depends on the rules (learned weights) are resolved under the base rules"
            f" `{spec.rules_name}` and play those in every trial (a trial's variant has no weights of its own);"
            " verify the chosen variant with weights trained under it"
            + (f" (`{COMMAND} train --game {spec.game} --rules best.toml`)." if spec.game_def().training else ".")
            + " With `--train` every trial fits its own.",
            "",
        ]
    if spec.allow_placeholders:
        L += [
            "Placeholder keys allowed (`--allow-placeholder`; the game marks them as not the designer's): "
            + ", ".join(f"`{a}`" for a in spec.allow_placeholders)
            + ". A change to them is the project's number, not one the rulebook can take as it is.",
            "",
        ]
    L += ["| parameter | range | base | best |", "|---|---|---|---|"]
    played = best.user_attrs["played"]
    for p in spec.params:
        mark = " **(changed)**" if played[p.name] != p.base else ""
        rng = f"{_fmt(p.lo)} .. {_fmt(p.hi)}{' (int)' if p.integer else ''}"
        L.append(f"| `{p.name}` | {rng} | {_fmt(p.base)} | {_fmt(played[p.name])}{mark} |")
    cons = []
    if spec.max_changes is not None:
        cons.append(f"at most {spec.max_changes} parameters move from the base (`--max-changes`)")
    if spec.keep_mean_total is not None:
        cons.append(f"the mean total score stays within ±{spec.keep_mean_total:g}% of the base's (`--keep-mean-total`)")
    return [*L, "", "Constraints: " + ("; ".join(cons) if cons else "none") + ".", ""]


def _loss_text(spec) -> str:
    """The loss of the study's objective, table by table, in words."""
    parts = []
    for t in spec.tables():
        if t.by == "agent":
            who = ", ".join(f"`{a}`" for a in spec.labels)
            parts.append(
                f"over the agents {who} in {t.block_games * spec.blocks:,} games at {t.players} players, seats rotated,"
                f" of (win share − {100 / t.players:.0f}%)²"
            )
        else:
            parts.append(
                f"over the seats of {t.block_games * spec.blocks:,} games at {t.players} players, every seat"
                f" `{t.agents[0]}`, of (win share − {100 / t.players:.0f}%)²"
            )
    return "Loss per trial, in points²: the sum " + "; plus the sum ".join(parts) + "."


def _raced_blocks(summary: dict) -> str:
    """Which games a raced best's loss is on (it played fewer blocks than a trial has)."""
    n = summary.get("best_blocks")
    if n is None:
        return ""
    value = summary["best_value"]
    return f"; the best raced: its {n} blocks (the race's value: {value:.1f}, the best it beat plus the gap)"


def _report_result(spec, best, summary) -> list[str]:
    changes = [f"`{k}` {_fmt(a)} → {_fmt(b)}" for k, (a, b) in summary["changes"].items() if a != b]
    best_loss = _ci(summary["best_loss"], *summary["best_loss_ci"])
    return [
        "## Result",
        "",
        f"Best: trial {best.number}, written to `best.toml` ({', '.join(changes) or 'no change: the base is best'}).",
        f"On the tuning games ({spec.games:,} per trial{_raced_blocks(summary)}) its loss is {best_loss}"
        f" pts² (95% bootstrap over games), the base's {_ci(summary['base_loss'], *summary['base_loss_ci'])}; its mean"
        f" total is {100 * best.user_attrs['mean_total_change']:+.1f}% from the base's. Sampling noise alone adds"
        f" about {summary['noise_floor']:.1f} pts² at this size, and the best of many trials on the same games is"
        " optimistic: the verification on fresh seeds is the number to quote.",
        "",
        *_shares_rows(pd.DataFrame(summary["tuning_shares"]), f"the tuning games, every block{_raced_blocks(summary)}"),
    ]


def _pairs(t: pd.DataFrame):
    """(row name, base row, best row) per agent and per seat of a verify_table frame, in its order."""
    for kind in dict.fromkeys(t["kind"]):
        sub = t[t["kind"] == kind]
        for g in dict.fromkeys(sub["group"]):
            a = sub[(sub["rules"] == "base") & (sub["group"] == g)].iloc[0]
            b = sub[(sub["rules"] == "best") & (sub["group"] == g)].iloc[0]
            yield (f"`{g}`" if kind == "agent" else f"seat {g}" if kind == "seat" else f"seat {g} ({kind[5:]})"), a, b


def _shares_rows(t: pd.DataFrame, games: str) -> list[str]:
    """The base's and the best's win share per agent and per seat, a markdown table (`games`: which games)."""
    L = [f"Win shares on {games} (base → best; 95% Wilson):", "", "| | base win % | best win % |", "|---|---|---|"]
    L += [f"| {name} | {_ci(a.win_pct, a.lo, a.hi)} | {_ci(b.win_pct, b.lo, b.hi)} |" for name, a, b in _pairs(t)]
    return [*L, ""]


def _report_verification(v: Verification | None) -> list[str]:
    if v is None:
        return ["No verification run (`--verify-games 0`).", ""]
    L = [
        f"### Verification: {v.games:,} fresh games for each rule set (the same seeds for both)",
        "",
        "![win shares before and after](win_shares.png)",
        "",
        "| | base win % [95% Wilson] | best win % [95% Wilson] | base mean total | best mean total |",
        "|---|---|---|---|---|",
    ]
    t = v.table
    for name, a, b in _pairs(t):
        L.append(
            f"| {name} | {_ci(a.win_pct, a.lo, a.hi)} | {_ci(b.win_pct, b.lo, b.hi, bold=True)} "
            f"| {a.mean_total:.1f} | {b.mean_total:.1f} |"
        )
    change = 100 * (v.mean_total["best"] / v.mean_total["base"] - 1)
    dev = {
        (kind, label): (sub["win_pct"] - 100 / sub["players"]).abs().max()
        for kind in dict.fromkeys(t["kind"])
        for label in ("base", "best")
        for sub in [t[(t["kind"] == kind) & (t["rules"] == label)]]
    }
    worst = "; ".join(
        f"per {kind}, {dev[(kind, 'base')]:.1f} → **{dev[(kind, 'best')]:.1f}**" for kind in dict.fromkeys(t["kind"])
    )
    return [
        *L,
        "",
        f"Largest deviation from {_fair_text(t)}, in points, base → best: {worst}.",
        "",
        f"Loss on the verification games: base {_ci(*v.loss['base'])}, best {_ci(*v.loss['best'], bold=True)} pts²;"
        f" mean total score {v.mean_total['base']:.1f} → {v.mean_total['best']:.1f} ({change:+.1f}%).",
        "",
    ]


def _fair_text(t: pd.DataFrame) -> str:
    counts = set(t["players"])
    return f"{100 / counts.pop():.0f}%" if len(counts) == 1 else "1/N"


def _report_search(spec, trials, summary, imp) -> list[str]:
    searched = trials[trials["state"] != "base"]
    pruned = searched[searched["pruned"]]
    n_invalid = int((searched["state"] == "invalid").sum())
    n_complete = len(searched) - len(pruned) - n_invalid
    outside = int(((searched["value"] >= PENALTY) & (searched["state"] != "invalid")).sum())
    saved = int(len(pruned) * spec.games - pruned["games"].sum())
    by = pruned["pruned_by"].value_counts() if "pruned_by" in pruned else pd.Series(dtype=int)
    stoppers = {"stop-z": "the early stop", "race": "the race (as good as the best)"}
    how = ", ".join(f"{int(n)} by {stoppers.get(k, 'the Wilcoxon pruner')}" for k, n in by.items())
    counts = f"{n_complete} complete, {len(pruned)} pruned{f' ({how})' if how else ''}, {n_invalid} invalid rule sets"
    if spec.keep_mean_total is not None:
        counts += f", {outside} outside the mean-total band"
    first = "the base as trial 0, " if (trials["state"] == "base").any() else ""
    prune, stop = _pruner_text(spec, summary), _stop_text(spec, summary)
    if len(imp):
        ranked = ", ".join(f"`{k}` {v:.2f}" for k, v in imp.sort_values(ascending=False).items())
        importance = (
            "Parameter importance (Optuna's PED-ANOVA over the finished trials' played values, a pruned trial with"
            f" the loss of the games it played): {ranked}."
        )
    else:
        importance = "Parameter importance: too few complete trials to estimate it."
    return [
        "## The search",
        "",
        "![loss over trials](loss.png)",
        "",
        f"{len(trials)} trials ({first}{counts}); {int(searched['games'].sum()):,} games played by the search,"
        f" {saved:,} saved by pruning. Every trial plays the same {spec.blocks} seed blocks of"
        f" {spec.block_total:,} games (common random numbers), in an order shuffled per trial.",
        "",
        _sampler_text(spec, trials),
        f"- Pruner: {prune}",
        f"- Early stop: {stop}",
        "- `--max-changes`: every parameter is sampled; when more than K move from the base, only the K with the"
        " largest move relative to their range are played and the others return to the base (`trials.csv` lists"
        f" the played values, and the sampled ones as `sampled:`). The sampler is also told {EXCESS_PENALTY:g} points²"
        " per parameter sampled away from the base beyond K (`sampled_excess`), so that it learns to leave unneeded"
        " parameters at the base; the best trial is chosen on the played rules alone."
        if spec.max_changes is not None
        else "- No limit on the number of changed parameters.",
        "- `--keep-mean-total`: a trial outside the band gets a penalty larger than any loss, block by block, so"
        " the best trial and the pruner's reference are inside the band whenever any trial is."
        if spec.keep_mean_total is not None
        else "- No constraint on the score scale.",
        "",
        "![parameter importance](importance.png)",
        "",
        importance,
        "",
        f"Files: `best.toml` (a variant file: `{COMMAND} rules --game {spec.game} best.toml`,"
        f" `{COMMAND} simulate --game {spec.game} --rules best.toml`),"
        " `trials.csv` (every finished trial), `verify.csv`, `loss.png`, `importance.png`, `win_shares.png`,"
        " `tune.json`; the study itself is `study.db` (Optuna, SQLite).",
    ]


def _pruner_text(spec, summary: dict) -> str:
    """The report's words on the Wilcoxon pruner (or its absence)."""
    if spec.prune_p <= 0:
        return "none (`--prune-p 0`)."
    return (
        f"Optuna's WilcoxonPruner, p < {spec.prune_p:g}, looking after each block from the {spec.prune_after}th"
        " (never after the last): a trial stops when a one-sided Wilcoxon signed-rank test on its block losses,"
        " paired with the best trial's on the same blocks, says it is worse. A trial exactly as good as the best is"
        f" pruned anyway with probability at most {100 * summary['false_prune_rate']:.1f}% (the repeated looks"
        f" raise the per-look {100 * spec.prune_p:g}%); one worse on every block stops after block"
        f" {max(spec.prune_after, _min_blocks_to_prune(spec.prune_p))}. Rules an earlier trial played in full are"
        " read back whole and not pruned, so a point asked twice gets the same value."
    )


def _stop_text(spec, summary: dict) -> str:
    """The report's words on the early stop and the race (or their absence)."""
    if spec.stop_z <= 0:
        return "none (`--stop-z 0`)."
    stop = (
        f"after each block from the 2nd (never after the last), a trial stops when its pooled value so far is"
        f" above the best trial's on the same blocks by more than {spec.stop_z:g} standard errors of the paired"
        " per-block difference (`--stop-z`); complementary to the pruner, which needs its 5 blocks. A trial"
        f" exactly as good as the best is stopped anyway with probability about"
        f" {100 * summary.get('false_stop_rate', 0.0):.1f}% (normal block differences, Monte Carlo: few blocks"
        " give a noisy standard error, and every look is another chance); the reason is in `trials.csv`"
        " (`pruned_by`) and in the study."
    )
    if spec.race > 0:
        rates = summary["race_rates"]
        stop += (
            f" Raced (`--race {spec.race:g}`): a trial also stops when it is below the best by more than"
            f" {spec.stop_z:g} standard errors (told complete with the best's value plus the paired gap, it is"
            f" the new best; one as good as the best is raced so with probability about"
            f" {100 * rates['better_when_as_good']:.1f}%), or when its gap ± {spec.stop_z:g} standard errors lies"
            f" within ±{spec.race:g} points² of the best's (pruned, `pruned_by = race`; a trial exactly"
            f" {spec.race:g} off the best is stopped so with probability at most"
            f" {100 * rates['equivalent_when_a_margin_off']:.1f}%). A trial plays the blocks the best played"
            " first; `trials.csv`'s `raced` says which trials the race decided."
        )
    return stop


def _sampler_text(spec, trials=None) -> str:
    if spec.sampler == "cmaes":
        runs = int(trials["cma_run"].max()) + 1 if trials is not None and "cma_run" in trials else 1
        return (
            "- Sampler: Optuna's CMA-ES (with margin for integer parameters; a pruned trial counts with its last"
            " block's loss), started at the centre of the ranges and started afresh when a run's best has not"
            f" improved for {cma_patience(spec)} trials ({runs} run(s) here, `cma_run` in `trials.csv`); trial k's"
            " sampler is seeded from (seed, k), so an uninterrupted study replays identically."
        )
    return (
        f"- Sampler: Optuna's TPE, multivariate, the first {spec.n_startup} trials random; trial k's sampler is seeded"
        " from (seed, k), so the study replays identically and `--resume` continues it exactly."
    )
