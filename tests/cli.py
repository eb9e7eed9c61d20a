"""Running the command line inside a test: ``cli(capsys, "compare", "v1.1", ...)`` -> (exit code, stdout, stderr)."""

from __future__ import annotations

import re
import sys

from boardlab.experiments.cli import main


def run(args, capsys, stdin: str | None = None, monkeypatch=None) -> tuple[int, str, str]:
    """`boardlab ARGS` in this process, `stdin` fed to it when given: (exit code, 0 when it returns; stdout; stderr)."""
    if stdin is not None:
        import io

        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    code = 0
    try:
        main(args)
    except SystemExit as e:
        code = e.code or 0
    out, err = capsys.readouterr()
    return code, out, err


def cli(capsys, *args) -> tuple[int, str, str]:
    """`boardlab ARGS...` in this process (every argument str()-ed); the exit code 0 when it returns."""
    try:
        main([str(a) for a in args])
        code = 0
    except SystemExit as e:
        code = e.code
    out, err = capsys.readouterr()
    return code, out, err


# what a command says on stderr while it compiles kernels that were not cached (boardlab.experiments.warmup)
COMPILE_NOTE = re.compile(
    r"^(compiling the \S+ kernels|compiled the \S+ kernels in|the \S+ kernels were cached already)"
)


def said(err: str) -> list[str]:
    """The lines of `err` past the compile announcement (progress, not the answer: a cold cache adds it)."""
    return [line for line in err.strip().splitlines() if not COMPILE_NOTE.match(line)]
