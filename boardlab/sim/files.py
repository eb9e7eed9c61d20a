"""Reading a user's text file (a rules variant, a board) safely: regular files only, UTF-8, one-line errors.

A path is examined with ``stat`` before anything opens it, and opened without blocking and examined again
(``fstat``) before anything reads it: opening a FIFO for reading would wait for a writer, and a device
(``/dev/zero``) would never end.  Every refusal is a :class:`TextFileError` whose one-line message starts
with the path and says what it is.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

# What a path is, when it is not a regular file (the phrase a one-line error uses).
KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO (named pipe)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


class TextFileError(ValueError):
    """A text file that cannot be read: missing, not a regular file, unreadable or not UTF-8; one line."""


def file_kind(mode: int) -> str | None:
    """What a file of mode `mode` (``os.stat(...).st_mode``) is, as a phrase; None for a regular file.

    Parameters
    ----------
    mode : int
        A stat result's ``st_mode``.

    Returns
    -------
    str or None
        "a directory", "a FIFO (named pipe)", ... or "not a regular file"; None when it is a regular file.
    """
    if stat.S_ISREG(mode):
        return None
    return next((name for test, name in KINDS if test(mode)), "not a regular file")


def read_text(path: str | Path, what: str = "a text file") -> str:
    """The whole of regular file `path`, decoded as UTF-8; TextFileError, one line, on anything else.

    Parameters
    ----------
    path : str or Path
        The file the user named.
    what : str
        What the file should be, for the message about a path that is not a regular file
        ("pipe.toml: is a FIFO (named pipe), not a rules file").

    Returns
    -------
    str
        The file's text (a leading UTF-8 byte-order mark removed).
    """
    p = Path(path)
    try:
        kind = file_kind(os.stat(p).st_mode)
    except (FileNotFoundError, NotADirectoryError):
        raise TextFileError(f"{p}: no such file") from None
    except OSError as e:
        raise TextFileError(f"{p}: cannot read it: {e.strerror or type(e).__name__}") from None
    if kind is not None:
        raise TextFileError(f"{p}: is {kind}, not {what}")
    try:
        fd = os.open(p, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO swapped in after the stat is not waited on
    except OSError as e:
        raise TextFileError(f"{p}: cannot read it: {e.strerror or type(e).__name__}") from None
    try:
        kind = file_kind(os.fstat(fd).st_mode)
        if kind is not None:
            raise TextFileError(f"{p}: is {kind}, not {what}")
        with os.fdopen(fd, "rb") as f:
            fd = -1
            data = f.read()
    except OSError as e:
        raise TextFileError(f"{p}: cannot read it: {e.strerror or type(e).__name__}") from None
    finally:
        if fd >= 0:
            os.close(fd)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise TextFileError(
            f"{p}: is not UTF-8 text (byte 0x{data[e.start]:02x} at line {line}); save it as UTF-8"
        ) from None
