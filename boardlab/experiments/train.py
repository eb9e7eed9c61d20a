"""A game's learned weights, fitted by a seeded command: ``boardlab train --game ID``.

A game that fits weights for one of its agents (a learned value, say) names a :class:`Trainer` in
its ``GameDef.trainer``; the command parses and checks the options, then calls it.  The weights must
be a function of the options that decide them (seed, games per round, k, ridge, and with ``--rules``
the rule data), whatever ``--jobs`` or backend, so a committed weight file is regenerated exactly by the
command it names.  A game whose agents look weights up by the rules in play (``out_for``) fits them
under a variant with ``train --rules FILE`` and keeps them where its agents find them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Trainer:
    """What ``train`` needs of a game.

    Attributes
    ----------
    what : str
        What is fitted, for the help and the log ("the strong agent's learned value").
    train : callable(seed, rounds, *, k, ridge, jobs, backend, scheduler, progress[, rules]) -> dict
        Self-play rounds (games per round) and the fit; the weight file's content, with ``"command"``
        (the canonical command that regenerates it) and ``"rounds"`` (per round: ``games``, ``agent``,
        ``mean_total``, ``r2``).  ``rules`` (a rule set) is passed only where ``out_for`` is set.
    write : callable(content, path)
        Writes the content whole (a temporary file, then a rename).
    default_out : Path
        The weight file the game's agent reads.
    default_k : int
        The searching agent's k in the self-play rounds.
    default_ridge : float
        The fit's ridge penalty by default (``train --ridge``).
    error : type[Exception]
        What ``train`` raises on options it cannot use (one line for the user).
    out_for : callable(rules) -> Path, optional
        Where the weights fitted under a rule set go (where the game's agents look them up for those
        rules); None: the game fits its weights under its default rules only (``--rules`` is refused).
    trained_with : callable(rules) -> dict or None, optional
        The training settings (``seed``, ``games``, ``k``, ``ridge``) of the weights the game's agents play
        under a rule set, None when none are trained; with ``out_for``, what lets ``tune scoring --train`` fit
        each trial's weights and reuse only those fitted as it would fit them.
    """

    what: str
    train: Callable[..., dict]
    write: Callable[[dict, Path], None]
    default_out: Path
    default_k: int
    error: type[Exception]
    out_for: Callable[[object], Path] | None = None
    default_ridge: float = 1e-3
    trained_with: Callable[[object], dict | None] | None = None
