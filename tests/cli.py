"""Running the command line inside a test: ``cli(capsys, "compare", "v1.1", ...)`` -> (exit code, stdout, stderr)."""

from __future__ import annotations

from boardlab.experiments.cli import main


def cli(capsys, *args) -> tuple[int, str, str]:
    """`boardlab ARGS...` in this process (every argument str()-ed); the exit code 0 when it returns."""
    try:
        main([str(a) for a in args])
        code = 0
    except SystemExit as e:
        code = e.code
    out, err = capsys.readouterr()
    return code, out, err
