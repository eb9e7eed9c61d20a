"""Where results come from: the toolkit's version and the commit of its own source checkout.

Every run's metadata and every report records these.  The commit is that of the git checkout holding the
package's own source files (``boardlab/``), whatever folder the command runs in: a command run inside another
project's repository records the toolkit's commit, not that project's.  An installed wheel has no checkout:
its commit is ``"unknown"`` and its version says which release it is.  Even a wheel installed into a virtual
environment that lies inside some repository is told apart: the package's files must be tracked by the
checkout, not merely lie under it.
"""

from __future__ import annotations

import functools
import subprocess
from pathlib import Path

UNKNOWN = "unknown"


def source_dir() -> Path:
    """The directory of the toolkit's package (``boardlab/``), resolved.

    Returns
    -------
    Path
        The folder holding ``boardlab/__init__.py``.
    """
    import boardlab

    return Path(boardlab.__file__).resolve().parent


def _git(directory: Path, *args: str) -> str | None:
    """`git -C directory ARGS` 's stdout, stripped; None when git is missing, fails or says nothing."""
    try:
        r = subprocess.run(["git", "-C", str(directory), *args], capture_output=True, text=True, timeout=5, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    out = r.stdout.strip()
    return out if r.returncode == 0 and out else None


@functools.lru_cache(maxsize=8)
def commit_of(directory: Path) -> str:
    """The commit checked out in the git repository that tracks the package files in `directory`.

    Parameters
    ----------
    directory : Path
        A package's source directory.

    Returns
    -------
    str
        The full commit hash, or ``"unknown"`` when `directory`'s ``__init__.py`` is not tracked by a git
        checkout (an installed wheel, a copied tree, no git on this machine).
    """
    if _git(directory, "ls-files", "--error-unmatch", "--", "__init__.py") is None:
        return UNKNOWN
    return _git(directory, "rev-parse", "HEAD") or UNKNOWN


def git_commit(short: bool = False) -> str:
    """The commit of the toolkit's own source checkout (not of the current folder's repository).

    Parameters
    ----------
    short : bool
        The first 7 characters only.

    Returns
    -------
    str
        The commit hash, or ``"unknown"`` outside a git checkout of the toolkit (an installed wheel).
    """
    commit = commit_of(source_dir())
    return commit[:7] if short and commit != UNKNOWN else commit


def package_version() -> str:
    """The installed distribution's version of the toolkit.

    Returns
    -------
    str
        ``importlib.metadata.version("boardlab")``, or ``"unknown"`` when the package is not installed.
    """
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("boardlab")
    except PackageNotFoundError:
        return UNKNOWN


def provenance() -> dict[str, str]:
    """The version and commit a result records.

    Returns
    -------
    dict
        ``{"package_version": ..., "git_commit": ...}``.
    """
    return {"package_version": package_version(), "git_commit": git_commit()}
