"""The study's store: ``OUT/study.db`` (Optuna over SQLite), the lock held for a command's life, the checks that
a new study or a ``--resume`` is unambiguous, and the study's finished and best trials."""

from __future__ import annotations

import datetime as _dt
import fcntl
import os
from pathlib import Path

from boardlab.sim.games import DEFAULT_GAME

from .sampling import _quiet_optuna, pruner
from .settings import TuneError
from .spec import TuneSpec

STUDY_NAME = "tune-scoring"


# What a study stored before these settings existed played: no placeholder allowed, no seat games, no early stop,
# no race
LEGACY_SPEC = {"allow_placeholders": [], "seat_players": [], "seat_agent": "", "seat_block_games": [], "stop_z": 0.0,
               "race": 0.0, "train_games": [], "train_seed": 0, "train_k": 0, "train_ridge": 0.0}  # fmt: skip


class StudyLock:
    """An exclusive lock on DIR for the life of the process (released by the OS even after kill -9).

    Parameters
    ----------
    out : pathlib.Path
        The study's directory (the lock file is ``DIR/.lock``).
    """

    def __init__(self, out: Path):
        self.path = Path(out) / ".lock"
        self.fd = None

    def __enter__(self):
        self.fd = os.open(self.path, os.O_CREAT | os.O_RDWR, 0o644)
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self.fd)
            raise TuneError(f"--out: another tune is running in {self.path.parent}") from None
        return self

    def __exit__(self, *exc):
        self.path.unlink(missing_ok=True)
        fcntl.flock(self.fd, fcntl.LOCK_UN)
        os.close(self.fd)


def study_path(out: Path) -> Path:
    """The study's database.

    Parameters
    ----------
    out : pathlib.Path
        The study's directory.

    Returns
    -------
    pathlib.Path
        ``DIR/study.db``.
    """
    return Path(out) / "study.db"


def check_output(out: Path, resume: bool) -> None:
    """Refuse to start where the study would be ambiguous (the command checked that OUT can be written); nothing
    is written here.

    Parameters
    ----------
    out : pathlib.Path
        The study's directory.
    resume : bool
        ``--resume``: a study must be there (else: none may be).
    """
    out = Path(out)
    db = study_path(out)
    if resume and not db.exists():
        raise TuneError(f"--resume: no study in {out} (no {db.name})")
    if not resume and db.exists():
        raise TuneError(f"--out: {db} exists; use --resume to continue it (or choose another directory)")


def _connect(path: Path):
    """A connection to the study's SQLite file in WAL mode without fsync per commit: a commit is in the file
    once it returns, so a killed process loses nothing finished (only a power cut could lose the last few)."""
    import sqlite3

    con = sqlite3.connect(path, timeout=60, check_same_thread=False)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=NORMAL")
    return con


def open_study(spec: TuneSpec, out: Path, resume: bool):
    """Create the study in DIR/study.db, or load it for --resume (its settings must match).

    Parameters
    ----------
    spec : TuneSpec
        The study.
    out : pathlib.Path
        The study's directory.
    resume : bool
        Load the existing study.

    Returns
    -------
    optuna.Study
        The study.
    """
    optuna = _quiet_optuna()
    path = study_path(out).resolve()
    storage = optuna.storages.RDBStorage(f"sqlite:///{path}", engine_kwargs={"creator": lambda: _connect(path)})
    if resume:
        try:
            study = optuna.load_study(study_name=STUDY_NAME, storage=storage, pruner=pruner(spec))
        except KeyError:
            raise TuneError(f"--resume: {study_path(out)} holds no {STUDY_NAME} study") from None
        stored = study.user_attrs.get("spec")
        if stored is not None and "game" not in stored:  # stored before the registry (TuneSpec.game)
            stored = {**stored, "game": DEFAULT_GAME}
        if stored is not None:  # stored before seat games, placeholders and the early stop: as it played
            stored = {**LEGACY_SPEC, **stored}
        if stored != spec.to_json():
            raise TuneError(
                "--resume: this is not the interrupted study's command (" + _difference(stored or {}, spec.to_json())
                + "); rerun it with the original settings"
            )  # fmt: skip
        fail_running(study)
        return study
    study = optuna.create_study(study_name=STUDY_NAME, storage=storage, direction="minimize", pruner=pruner(spec))
    study.set_user_attr("spec", spec.to_json())
    study.set_user_attr("created", _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"))
    return study


def _difference(old: dict, new: dict) -> str:
    keys = [k for k in new if old.get(k) != new[k]]
    return "; ".join("rules differ" if k == "rules" else f"{k} was {old.get(k)!r}, now {new[k]!r}" for k in keys)


def finished(study) -> list:
    """The study's finished trials: complete and pruned.

    Parameters
    ----------
    study : optuna.Study
        The study's trials.

    Returns
    -------
    list of optuna.trial.FrozenTrial
        In order.
    """
    from optuna.trial import TrialState

    return study.get_trials(deepcopy=False, states=(TrialState.COMPLETE, TrialState.PRUNED))


def fail_running(study) -> None:
    """Mark every RUNNING trial of the study FAIL (an interrupted run's, or a killed one's on resume).

    Parameters
    ----------
    study : optuna.Study
        The study's trials.
    """
    import optuna

    storage = study._storage
    for t in study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.RUNNING,)):
        storage.set_trial_state_values(t._trial_id, optuna.trial.TrialState.FAIL)


def best_trial(study):
    """The complete, valid trial whose played rules have the smallest value (loss plus any mean-total penalty; the
    sampler's nudge towards fewer sampled changes is left out: it says nothing about the rules played).

    Parameters
    ----------
    study : optuna.Study
        The study's trials.

    Returns
    -------
    optuna.trial.FrozenTrial
        The trial (TuneError when there is none).
    """
    done = [t for t in study.get_trials(deepcopy=False) if t.state.name == "COMPLETE" and "invalid" not in t.user_attrs]
    if not done:
        raise TuneError("no complete trial yet")
    return min(done, key=lambda t: (t.user_attrs.get("value", t.value), t.number))
