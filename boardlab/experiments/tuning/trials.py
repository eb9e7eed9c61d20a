"""The search loop: the base as trial 0, then trial after trial asked from the sampler, played block by block
(pruned, stopped or raced when told) and told, until the study has its trials."""

from __future__ import annotations

import datetime as _dt
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from boardlab.experiments.provenance import git_commit

from .objective import EXCESS_PENALTY, INVALID, _block_value, _summary, pool, pooled_value
from .play import all_cached, play_blocks, reference
from .sampling import _quiet_optuna, cma_patience, distributions, restarts, sampler
from .space import excess_changes, limit_changes, rules_for
from .spec import TuneSpec
from .stopping import Reference, sequential_stop
from .store import best_trial, fail_running, finished, open_study
from .training import _train_progress, ensure_weights


def add_base_trial(study, spec: TuneSpec, info: dict, seconds: float) -> None:
    """Trial 0: the base rules, from the reference games (when every base value is inside its range).

    Parameters
    ----------
    study : optuna.Study
        The study.
    spec : TuneSpec
        The study.
    info : dict
        The base's numbers (:func:`boardlab.experiments.tuning.play.reference`).
    seconds : float
        The time the reference games took.
    """
    optuna = _quiet_optuna()
    if any(not p.lo <= p.base <= p.hi for p in spec.params):
        return
    values = {p.name: p.base for p in spec.params}
    study.add_trial(
        optuna.trial.create_trial(
            params=values,
            distributions=distributions(spec),
            value=info["loss"],
            intermediate_values=dict(enumerate(info["block_loss"])),
            user_attrs={
                "base": True, "played": values, "changed": [], "loss": info["loss"], "value": info["loss"],
                "mean_total": info["mean_total"], "mean_total_change": 0.0, "games": spec.games,
                "blocks": spec.blocks, "seconds": seconds,
                "train_seconds": study.user_attrs.get("reference_train_seconds", 0.0),
            },
        )
    )  # fmt: skip


def optimise(
    spec: TuneSpec,
    out: Path,
    work: Path,
    trials: int,
    resume: bool = False,
    jobs: int = 1,
    log: Callable[[str], None] = print,
    progress: Callable[[int, int, float, str], None] | None = None,
    **where,
):
    """Run the study until `trials` trials have finished (complete or pruned).

    Parameters
    ----------
    spec : TuneSpec
        The study.
    out : pathlib.Path
        The study's directory.
    work : pathlib.Path
        The run cache.
    trials : int
        Finished trials wanted (those of a resumed study count).
    resume : bool
        Continue the study in `out`.
    jobs : int
        Worker processes.
    log : callable
        Receives progress lines.
    progress : callable or None
        Called ``progress(games done, games at most, games/s, label)`` after every chunk of games.
    **where
        ``backend`` and ``scheduler``, as in :func:`boardlab.experiments.simulate.run`.

    Returns
    -------
    optuna.Study
        The study.
    """
    study = open_study(spec, out, resume)
    t0 = time.perf_counter()
    fitted = ensure_weights(spec, spec.base_rules(), jobs, progress=_train_progress(progress, "base rules"), **where)
    if fitted:
        log(f"base rules: weights fitted under them in {fitted:.0f} s")
    _, info = reference(spec, work, jobs, **where)
    if "base" not in study.user_attrs:
        study.set_user_attr("base", info)
        study.set_user_attr("reference_seconds", round(time.perf_counter() - t0, 2))
        study.set_user_attr("reference_train_seconds", round(fitted, 2))
    if not finished(study):
        add_base_trial(study, spec, info, study.user_attrs.get("reference_seconds", 0.0))
    t_session = time.perf_counter()
    earlier = list(study.user_attrs.get("sessions", []))
    commit = git_commit()

    def record(played: int) -> None:
        # this session's line, rewritten after every trial: a session stopped by Ctrl-C, SIGTERM or kill -9
        # keeps the time and games of the trials it finished (the report's wall time sums the sessions)
        study.set_user_attr("sessions", [*earlier, {
            "ended": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
            "seconds": round(time.perf_counter() - t_session, 1), "games": played, "jobs": jobs,
            "trials": len(finished(study)), "git_commit": commit,
        }])  # fmt: skip

    try:
        _run_trials(study, spec, trials, info, work, jobs, log, progress, where, record)
    except KeyboardInterrupt:
        # Ctrl-C may land anywhere, also inside study.ask() or study.tell(): whatever trial this session left
        # RUNNING is marked FAIL on the way out (this process is the study's only writer)
        fail_running(study)
        raise
    return study


def _run_trials(study, spec, trials, info, work, jobs, log, progress, where, record) -> int:
    """Trials until `trials` have finished; returns the games this session played.  `record(games so far)`
    after every trial (the session's line in the study)."""
    played = 0
    while (k := len(finished(study))) < trials:
        budget = played + (trials - k) * spec.games

        def tick(done: int, rate: float, label: str, played=played, budget=budget) -> None:
            if progress:
                progress(played + done, budget, rate, label)

        trial, games = run_trial(study, spec, k, info, work, jobs, tick, **where)
        played += games
        record(played)
        best = best_trial(study)
        a = trial.user_attrs
        if "invalid" in a:
            log(f"trial {trial.number}: invalid rules ({a['invalid']})")
            continue
        what = (
            f"pruned ({a.get('pruned_by', 'wilcoxon')}) after {a['blocks']} of {spec.blocks} blocks"
            if trial.state.name == "PRUNED"
            else f"complete, raced better after {a['blocks']} of {spec.blocks} blocks"
            if a.get("raced") == "better"
            else "complete"
        )
        moves = ", ".join(f"{n}={a['played'][n]}" for n in a["changed"]) or "base"
        log(
            f"trial {trial.number}: loss {a['loss']:7.1f} pts², mean total {100 * a['mean_total_change']:+5.1f}%,"
            f" {what}; {moves}   (best: trial {best.number}, {best.user_attrs['loss']:.1f})"
        )
    return played


def run_trial(study, spec: TuneSpec, k: int, info: dict, work: Path, jobs: int, tick, **where) -> tuple[Any, int]:
    """Ask trial k, play its blocks (reporting each, pruning when told) and tell the result.

    Any exception, Ctrl-C included, marks the trial FAIL before it propagates.

    Parameters
    ----------
    study : optuna.Study
        The study.
    spec : TuneSpec
        The study.
    k : int
        The trial's number.
    info : dict
        The base's numbers.
    work : pathlib.Path
        The run cache.
    jobs : int
        Worker processes.
    tick : callable
        Called ``tick(done, total, rate)`` after each chunk.
    **where
        ``backend`` and ``scheduler``, as in :func:`boardlab.experiments.simulate.run`.

    Returns
    -------
    tuple
        The finished trial and the number of games it played.
    """
    from optuna.trial import TrialState

    run = restarts([t for t in finished(study) if not t.user_attrs.get("base")], cma_patience(spec))[-1]
    study.sampler = sampler(spec, k, run if spec.sampler == "cmaes" else 0)
    trial = study.ask(distributions(spec))
    t0, cpu0 = time.perf_counter(), time.process_time()
    try:
        played = limit_changes(list(spec.params), trial.params, spec.max_changes)
        excess = excess_changes(list(spec.params), trial.params, spec.max_changes)
        trial.set_user_attr("played", played)
        trial.set_user_attr("changed", [p.name for p in spec.params if played[p.name] != p.base])
        trial.set_user_attr("excess", excess)
        trial.set_user_attr("restart", run)
        try:
            rules = rules_for(spec.base_rules(), list(spec.params), played)
        except spec.game_def().rules_error as e:
            trial.set_user_attr("invalid", str(e))
            trial.set_user_attr("seconds", 0.0)
            study.tell(trial, INVALID)
            return study.trials[trial.number], 0
        fit = _train_progress(lambda d, t, rate, label: tick(0, rate, label), f"trial {trial.number}")
        trial.set_user_attr("train_seconds", round(ensure_weights(spec, rules, jobs, progress=fit, **where), 2))
        blocks = _play_trial(study, trial, spec, k, rules, excess, info, work, jobs, tick, where)
        _tell(study, trial, spec, info, excess, blocks, t0, cpu0)
    except BaseException:
        if study._storage.get_trial(trial._trial_id).state == TrialState.RUNNING:  # not told yet
            study.tell(trial, state=TrialState.FAIL)
        raise
    return study.trials[trial.number], len(blocks.frames) * spec.block_total


@dataclass
class _Played:
    """The blocks a trial played, in order, and why it stopped before the last ("" for neither)."""

    order: np.ndarray  # every block, in the order the trial plays them
    frames: list[dict] = field(default_factory=list)  # the played ones' frames (table name -> frame)
    told: list[float] = field(default_factory=list)  # their values as told to the pruner
    pruned_by: str = ""  # wilcoxon, stop-z or race
    raced: str = ""  # better: told complete, its value on the best's scale
    estimate: float = 0.0  # a raced trial's value: the best's plus the paired gap


def _play_trial(study, trial, spec: TuneSpec, k: int, rules, excess: int, info: dict, work: Path, jobs: int, tick,
                 where: dict) -> _Played:  # fmt: skip
    """Trial k's blocks in its shuffled order, each reported; stopped when the pruner, the early stop or the race
    says so."""
    order = np.random.default_rng([spec.seed & 0xFFFFFFFF, k]).permutation(spec.blocks)
    # pruning only saves simulation: rules played before are evaluated whole, so a point asked twice
    # gets the same value twice
    may_prune = not all_cached(spec, rules, work)
    ref = Reference(spec, study, info, work) if may_prune and spec.stop_z > 0 else None
    if spec.race > 0 and ref is not None and ref.trial is not None:
        order = ref.first(order)
    out = _Played(order)
    frames, told = out.frames, out.told
    for step, b in enumerate(order):
        label = f"trial {trial.number}, block {step + 1}/{spec.blocks}"

        def block_tick(done, total, rate, step=step, label=label):
            tick(step * spec.block_total + done, rate, label)

        parts = play_blocks(spec, rules, int(b), work, jobs, progress=block_tick, **where)
        frames.append(parts)
        value, _ = _block_value(spec, _summary(parts, spec), info["block_mean_total"][b])
        told.append(value + EXCESS_PENALTY * excess)
        trial.report(told[-1], int(b))
        if not may_prune or step + 1 >= spec.blocks:
            continue
        seen = [int(x) for x in order[: step + 1]]
        if ref is not None and ref.trial is not None and step + 1 >= 2:
            mine = pooled_value(spec, frames, seen, info) + EXCESS_PENALTY * excess
            best = ref.pooled(seen)
            kind, reason = sequential_stop(told, ref.block_values(seen), mine, best, spec.stop_z, spec.race)
            if kind:
                trial.set_user_attr("stopped", f"{reason} (best: trial {ref.trial.number})")
                if kind == "better":  # told complete, its value on the best's scale: the new best
                    out.raced, out.estimate = kind, ref.trial.value + mine - best
                    break
                out.pruned_by = "stop-z" if kind == "worse" else "race"
                break
        if trial.should_prune():
            out.pruned_by = "wilcoxon"
            break
    return out


def _tell(study, trial, spec: TuneSpec, info: dict, excess: int, played: _Played, t0: float, cpu0: float) -> None:
    """The trial's numbers recorded and told: complete with its value (plus the sampler's nudge for `excess`), or
    pruned.  `t0`, `cpu0`: the wall clock and this process's CPU time when it was asked."""
    from optuna.trial import TrialState

    frames, order = played.frames, played.order
    res = _summary(pool(spec, frames), spec)
    base_mean = float(np.mean([info["block_mean_total"][b] for b in order[: len(frames)]]))
    value, change = _block_value(spec, res, base_mean)
    loss_played = res.loss
    if played.raced:  # the best's value plus the paired gap on the blocks both played; the loss moves with it
        shift = played.estimate - EXCESS_PENALTY * excess - value
        value, loss_played = value + shift, res.loss + shift
        trial.set_user_attr("raced", played.raced)
    elif played.pruned_by == "race":
        trial.set_user_attr("raced", "equivalent")
    games = sum(len(f[t.name]) // t.players for f in frames for t in spec.tables())
    for key, v in (
        ("loss", loss_played), ("value", value), ("mean_total", res.mean_total), ("mean_total_change", change),
        ("games", games), ("blocks", len(frames)), ("seconds", round(time.perf_counter() - t0, 2)),
        ("cpu_seconds", round(time.process_time() - cpu0, 3)),
    ):  # fmt: skip
        trial.set_user_attr(key, v)
    if played.pruned_by:
        trial.set_user_attr("pruned_by", played.pruned_by)
        study.tell(trial, state=TrialState.PRUNED)
    else:
        study.tell(trial, value + EXCESS_PENALTY * excess)
