"""The `tune scoring` task over one :class:`~boardlab.experiments.tuning.TuneSettings`: :func:`check` checks every
setting and the study's folder before any work, :func:`run` runs the study, verifies its best rules on fresh
seeds and writes the files; :class:`Outcome` is what the command prints."""

from __future__ import annotations

import datetime as _dt
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from boardlab.experiments.provenance import git_commit

from .outputs import best_rules, write_outputs
from .report import summary_text
from .settings import TuneSettings
from .spec import TuneSpec, make_tune_spec
from .store import StudyLock, check_output
from .trials import optimise
from .verification import Verification, verify


@dataclass(frozen=True)
class Plan:
    """A checked study: its settings and the spec they give (:func:`check`)."""

    settings: TuneSettings
    spec: TuneSpec

    @property
    def note(self) -> str:
        """What a trial plays, when that is not plainly ``--games``: a block size rounded up to whole seat
        rotations, or several tables ("" otherwise)."""
        spec, tables = self.spec, self.spec.tables()
        if len(tables) == 1 and spec.games != self.settings.play.games:
            t = tables[0]
            return (
                f"(a trial plays {spec.games:,} games: {spec.blocks} seed blocks of {t.block_games:,},"
                f" whole rotations of the {t.players} seats)"
            )
        if len(tables) > 1:
            each = ", ".join(f"{t.blocks_text(spec.blocks)}" for t in tables)
            return f"(a trial plays {spec.games:,} games: {each})"
        return ""


@dataclass(frozen=True)
class Outcome:
    """A finished command: the study, its best trial, the verification and the summary written to ``tune.json``."""

    out: Path
    study: Any
    best: Any
    verification: Verification | None
    summary: dict

    def text(self) -> str:
        """What the command prints at the end: the best trial, the verification and the files written.

        Returns
        -------
        str
            The text.
        """
        written = ["trials.csv", *(["verify.csv"] if self.verification is not None else []), "REPORT.md"]
        return (
            summary_text(self.summary, self.best, self.verification)
            + f"\nwrote {self.out / 'best.toml'}, {', '.join(written)} and charts in {self.out}"
        )


def check(settings: TuneSettings) -> Plan:
    """Every check of a study before any work (nothing is written).

    Parameters
    ----------
    settings : TuneSettings
        The command's settings.

    Returns
    -------
    Plan
        The settings and their spec.

    Raises
    ------
    ValueError
        A setting that cannot be played, in one line: a TuneError (also: a new study where one exists, a
        ``--resume`` where none does), a SimulateError or a rule set's error.
    """
    spec = make_tune_spec(settings)
    check_output(settings.session.out, settings.session.resume)
    return Plan(settings, spec)


def run(
    plan: Plan,
    log: Callable[[str], None] = print,
    progress: Callable[[int, int, float, str], None] | None = None,
) -> Outcome:
    """Run the checked study until it has its trials, verify the best rules and write the study's files.

    The output folder and the run cache are created; the study's folder is locked for the run (another
    command on it is refused).

    Parameters
    ----------
    plan : Plan
        The checked study (:func:`check`).
    log : callable
        Gets one line per finished trial.
    progress : callable or None
        ``progress(games done, games at most, games/s, label)`` after every chunk of games.

    Returns
    -------
    Outcome
        The study, its best trial, the verification and the summary.

    Raises
    ------
    TuneError
        The study cannot go on (its folder locked by another command, weights fitted otherwise), in one line;
        a SimulateError for a run that cannot.
    """
    settings, spec = plan.settings, plan.spec
    session = settings.session
    out, work = Path(session.out), Path(session.runs)
    out.mkdir(parents=True, exist_ok=True)
    work.mkdir(parents=True, exist_ok=True)
    with StudyLock(out):
        study = optimise(spec, out, work, settings.search.trials, session.resume, session.jobs, log=log,
                         progress=progress, **session.where)  # fmt: skip
        rules_best, best = best_rules(study, spec)
        t0 = time.perf_counter()
        verification = (
            verify(spec, rules_best, session.verify_games, work, session.jobs, **session.where)
            if session.verify_games
            else None
        )
        verify_seconds = time.perf_counter() - t0
    about = {
        "command": session.command, "git_commit": git_commit(), "verify_seconds": round(verify_seconds, 1),
        "finished": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"), "trials": settings.search.trials,
        "verify_games": session.verify_games, "jobs": session.jobs,
    }  # fmt: skip
    summary = write_outputs(study, spec, out, work, verification, about)
    return Outcome(out, study, best, verification, summary)
