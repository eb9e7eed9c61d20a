"""The options of every command that plays Python agents: ``--isolate-agents`` and ``--move-timeout``
(:mod:`boardlab.experiments.isolation`)."""

from __future__ import annotations

import math
from typing import Annotated

import typer

from ._app import UserError

IsolateOpt = Annotated[
    bool,
    typer.Option(
        "--isolate-agents",
        help="Play each Python agent (py:..., random, ismcts) in a subprocess of its own seat: it cannot read the"
        " runner's memory, and a hang (with --move-timeout), sys.exit or os._exit ends the run in one line. The"
        " rows are the same.",
    ),
]
MoveTimeoutOpt = Annotated[
    float | None,
    typer.Option(
        "--move-timeout",
        help="Seconds a Python agent may take for one move (implies --isolate-agents); past it its process is"
        " stopped and the run ends in one line. Default: no limit.",
        show_default=False,
    ),
]


def check_isolation(isolate: bool, move_timeout: float | None):
    """--isolate-agents and --move-timeout checked (a positive, finite number of seconds).

    Parameters
    ----------
    isolate : bool
        ``--isolate-agents``: Python agents play in a child process.
    move_timeout : float or None
        ``--move-timeout`` in seconds (None: no limit).

    Returns
    -------
    boardlab.experiments.isolation.Isolation
        The run's isolation settings (UserError, one line, for a bad timeout).
    """
    from boardlab.experiments.isolation import Isolation

    if move_timeout is not None and not (math.isfinite(move_timeout) and move_timeout > 0):
        raise UserError(f"--move-timeout must be a positive number of seconds, got {move_timeout:g}")
    return Isolation(isolate=isolate, move_timeout=move_timeout)
