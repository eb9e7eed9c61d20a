"""Keep numba's on-disk cache honest.

numba invalidates a cached kernel when *its own* source file changes, not when
a kernel it calls in another module does, so an edited rule kernel could keep
running from a stale cache.  Before any kernel is imported we hash every source
file the kernels are built from and, if the hash differs from the one recorded
beside the cache, drop the cached kernels so they are compiled afresh.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

_ROOT = Path(__file__).resolve().parent.parent
_PACKAGES = ("sim", "agents")
# The files numba kernels are compiled from (constants included: numba freezes them in).
_KERNEL_SOURCES = (
    "sim/citywright/engine.py",
    "sim/citywright/tables.py",
    "agents/citywright/kernels.py",
    "agents/citywright/mcts.py",
    "agents/citywright/play.py",
    "sim/layout.py",
    "sim/rng.py",
    "sim/citywright/rules.py",
)
_STAMP = "citywright-kernels.stamp"


def _cache_dirs() -> list[Path]:
    custom = os.environ.get("NUMBA_CACHE_DIR")
    if custom:
        return [Path(custom)]
    return [_ROOT / pkg / "__pycache__" for pkg in _PACKAGES]


def _source_hash() -> str:
    h = hashlib.sha256()
    for name in _KERNEL_SOURCES:
        h.update(name.encode())
        h.update((_ROOT / name).read_bytes())
    return h.hexdigest()


def ensure_fresh_cache() -> None:
    try:
        digest = _source_hash()
        for d in _cache_dirs():
            stamp = d / _STAMP
            if stamp.exists() and stamp.read_text() == digest:
                continue
            if d.exists():
                for f in list(d.rglob("*.nbi")) + list(d.rglob("*.nbc")):
                    f.unlink(missing_ok=True)
            d.mkdir(parents=True, exist_ok=True)
            tmp = d / f"{_STAMP}.{os.getpid()}"
            tmp.write_text(digest)
            os.replace(tmp, stamp)
    except OSError:
        pass  # a read-only install: numba then compiles in memory or uses its own checks
