"""Keep numba's on-disk cache honest.

numba invalidates a cached kernel when *its own* source file changes, not when
a kernel it calls in another module does, so an edited rule kernel could keep
running from a stale cache.  Before any kernel is imported we hash every source
file the kernels are built from -- the list is each registered game's
``Kernels.sources`` (:mod:`boardlab.sim.games`) -- and, if the hash differs from the one
recorded beside the cache, drop the cached kernels so they are compiled afresh.  The check runs
once per process (:func:`guard`), when the first module holding kernels is imported.
"""

from __future__ import annotations

import hashlib
import os
import warnings
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[2]  # the folder holding the boardlab package (a checkout, or site-packages)
_PACKAGES = ("boardlab/sim", "boardlab/agents")
_STAMP = "boardlab-kernels.stamp"


def types_key(items: tuple) -> tuple:
    """What decides numba's types of `items` (arrays, tuples of them, scalars), cheaply: each array's dtype,
    dimensions, layout, writability and alignment; a scalar's type.  Python callers that look up a kernel's
    machine code for their arguments key it by this rather than type the arguments (``numba.typeof``, tens of
    microseconds an array) on every call.

    Parameters
    ----------
    items : tuple
        The arguments.

    Returns
    -------
    tuple
        A hashable key: equal keys, equal numba types.
    """
    out: list[object] = []
    for a in items:
        if isinstance(a, tuple):
            out.append(types_key(a))
        elif hasattr(a, "flags") and hasattr(a, "dtype"):
            f = a.flags
            out.append((a.dtype.str, a.ndim, f.c_contiguous, f.f_contiguous, f.writeable, f.aligned))
        else:
            out.append(type(a))
    return tuple(out)


def _cache_dirs() -> list[Path]:
    custom = os.environ.get("NUMBA_CACHE_DIR")
    if custom:
        return [Path(custom)]
    return [_ROOT / pkg / "__pycache__" for pkg in _PACKAGES]


def _source_hash() -> str:
    from .games import kernel_sources  # every built-in game's Kernels.sources (sim/<game>/game.py)

    h = hashlib.sha256()
    for name in kernel_sources():
        h.update(name.encode())
        h.update((_ROOT / name).read_bytes())
    return h.hexdigest()


_GUARDED = False  # guard() has run in this process


def guard() -> None:
    """Run :func:`ensure_fresh_cache` once per process.

    Every module holding cached kernels, or its package's ``__init__``, calls this when it is imported
    (``tests/core/test_cache.py`` checks that each does), so that the check happens before any kernel is
    loaded from the cache, and only when a kernel is imported at all: ``import boardlab.sim`` and
    ``boardlab --help`` load no game.
    """
    global _GUARDED
    if not _GUARDED:
        _GUARDED = True  # first: the check imports the games, whose packages call guard() again
        # the game loops call agents through numba's first-class functions (docs/architecture/compile-time.md),
        # which numba calls experimental, with a warning at each compile; the calls are tested and cached
        warnings.filterwarnings("ignore", message=".*First-class function type feature is experimental")
        ensure_fresh_cache()


def ensure_fresh_cache() -> None:
    """Drop the cached kernels when a kernel source changed since the cache was stamped (see the module's
    docstring); a read-only install is left alone."""
    try:
        digest = _source_hash()
        for d in _cache_dirs():
            stamp = d / _STAMP
            if stamp.exists() and stamp.read_text() == digest:
                continue
            # numba writes each module's files beside it (sim/<game>/__pycache__, ...): search the
            # whole package, not only the __pycache__ that holds the stamp
            purge = d.parent if d.name == "__pycache__" else d
            if purge.exists():
                for f in list(purge.rglob("*.nbi")) + list(purge.rglob("*.nbc")):
                    f.unlink(missing_ok=True)
            d.mkdir(parents=True, exist_ok=True)
            tmp = d / f"{_STAMP}.{os.getpid()}"
            tmp.write_text(digest)
            os.replace(tmp, stamp)
    except OSError:
        pass  # a read-only install: numba then compiles in memory or uses its own checks
