"""``--train``: weights fitted under each trial's rules by the game's trainer, checked against the study's
settings and kept in the weight cache by the rules' hash."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from .settings import Rules, TuneError

if TYPE_CHECKING:
    from .spec import TuneSpec


def _trainer(gdef):
    """The game's trainer, when it fits weights per rule set and says how a rule set's were fitted."""
    if gdef.training is None:
        return None
    t = gdef.require("trainer")
    return t if t.out_for is not None and t.trained_with is not None else None


def _train_settings(gdef, base: Rules, train: list[int] | None, seed: int) -> dict:
    """TuneSpec's --train fields, checked: the game's trainer fits weights per rule set, the rounds are positive,
    and the base's weights (the committed ones under a preset), if any, were fitted with these settings."""
    if train is None:
        return {}
    t = _trainer(gdef)
    if t is None:
        raise TuneError(f"--train: {gdef.id} fits no learned weights per rule set (its agents play the same ones"
                        " under any rules)")  # fmt: skip
    if not train or any(g < 1 for g in train):
        raise TuneError(f"--train: one positive number of games per self-play round, e.g. 10000,10000; got {train}")
    fields = {"train_games": tuple(int(g) for g in train), "train_seed": int(seed), "train_k": int(t.default_k),
              "train_ridge": float(t.default_ridge)}  # fmt: skip
    have = t.trained_with(base)
    want = _trained_with(fields)
    if have is not None and have != want:
        raise TuneError(_mismatch("the base rules", base, have, want, t))
    return fields


def _trained_with(fields: dict) -> dict:
    """TuneSpec's --train fields as ``Trainer.trained_with`` gives a weight file's settings."""
    return {"seed": fields["train_seed"], "games": list(fields["train_games"]), "k": fields["train_k"],
            "ridge": fields["train_ridge"]}  # fmt: skip


def _mismatch(what: str, rules: Rules, have: dict, want: dict, t) -> str:
    def text(d):
        return f"seed {d['seed']}, games {','.join(str(g) for g in d['games'])}, k {d['k']}, ridge {d['ridge']:g}"

    return (f"--train: {what}' weights ({t.out_for(rules)}) were fitted with {text(have)}, not this study's"
            f" {text(want)}; give --train and --train-seed as they were fitted, or point BOARDLAB_WEIGHTS at"
            " another folder")  # fmt: skip


def ensure_weights(
    spec: TuneSpec, rules: Rules, jobs: int = 1, progress=None, chunk_size: int | None = None, **where
) -> float:
    """With --train, the weights of `rules` fitted (by the game's trainer, into the folder where its agents
    look them up) unless they are there already, fitted with the study's settings; TuneError, one line, when
    they are there but fitted otherwise.

    Parameters
    ----------
    spec : TuneSpec
        The study (its --train settings).
    rules : RuleSet
        The rules whose weights are needed.
    jobs : int
        Worker processes.
    progress : callable or None
        Called ``progress(done, total, rate, label)``, counting the self-play games.
    chunk_size : int or None
        The runs' setting; it does not apply to self-play.
    **where
        The backend and scheduler.

    Returns
    -------
    float
        The seconds spent fitting (0 when nothing was fitted).
    """
    if not spec.trains:
        return 0.0
    t = _trainer(spec.game_def())
    want = spec.train_settings()
    have = t.trained_with(rules)
    if have == want:
        return 0.0
    if have is not None:
        raise TuneError(_mismatch("these rules", rules, have, want, t))
    t0 = time.perf_counter()
    try:
        content = t.train(spec.train_seed, spec.train_games, k=spec.train_k, ridge=spec.train_ridge, jobs=jobs,
                          progress=progress, rules=rules, **where)  # fmt: skip
    except t.error as e:
        raise TuneError(f"--train: {e}") from None
    t.write(content, t.out_for(rules))
    return time.perf_counter() - t0


def _train_progress(progress, what: str):
    """The trainer's progress reported on the tuner's bar: no games of the study done, the label says which
    rules' weights are being fitted and how far."""
    if progress is None:
        return None

    def fit(done, total, rate, label):
        progress(0, total, rate, f"{what}: fitting weights, {label} {done:,}/{total:,}")

    return fit
