"""The `citywright` command: one module per command, each a thin body over library functions.

`_app` holds the application, the shared options (``--game``, ``--rules``) and the
error handling (one line, exit code 2); importing a command's module registers it.
"""

from . import (  # noqa: F401  (each module registers its command)
    agents,
    bench,
    compare,
    demo,
    games,
    ladder,
    reproduce,
    rescore,
    rules,
    score,
    simulate,
    study,
    summary,
    sweep,
    train,
    tune,
    warmup,
)
from ._app import UserError, app, main

__all__ = ["UserError", "app", "main"]
