"""The numba cache guard drops every cached kernel, subpackages included, when a kernel file changes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from boardlab.sim import _cache


def test_a_changed_kernel_source_drops_the_cache_of_every_subpackage(tmp_path, monkeypatch):
    root = tmp_path
    for pkg in _cache._PACKAGES:
        (root / pkg / "__pycache__").mkdir(parents=True)
        sub = root / pkg / "citywright" / "__pycache__"
        sub.mkdir(parents=True)
        (sub / "play.policy_move-24.py311.nbi").write_text("index")
        (sub / "play.policy_move-24.py311.1.nbc").write_text("code")
    digest = ["one"]
    monkeypatch.setattr(_cache, "_ROOT", root)
    monkeypatch.setattr(_cache, "_source_hash", lambda: digest[0])
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    _cache.ensure_fresh_cache()  # no stamp yet: everything cached is dropped
    assert not list(root.rglob("*.nbi")) and not list(root.rglob("*.nbc"))
    kept = root / "boardlab" / "agents" / "citywright" / "__pycache__" / "kernels.f-1.py311.nbi"
    kept.write_text("index")
    _cache.ensure_fresh_cache()  # same sources: kept
    assert kept.exists()
    digest[0] = "two"
    _cache.ensure_fresh_cache()  # a kernel file changed: dropped
    assert not kept.exists()


def test_every_module_with_cached_kernels_runs_the_guard_first():
    """Each module holding ``cache=True`` kernels calls guard() itself or through its package's __init__, so the
    cache is checked before any of its kernels loads, though ``import boardlab.sim`` loads no game."""
    root = Path(_cache.__file__).resolve().parents[1]
    kernels = [p for p in root.rglob("*.py") if "cache=True" in p.read_text() and "@njit" in p.read_text()]
    assert len(kernels) > 10
    unguarded = [
        str(p.relative_to(root.parent))
        for p in kernels
        if "\nguard()" not in p.read_text() and "\nguard()" not in (p.parent / "__init__.py").read_text()
    ]
    assert not unguarded


def test_importing_the_sim_layer_or_the_command_line_loads_no_game():
    """(Importing a game's kernel module runs the guard: tests/citadels/test_cache_guard.py.)"""
    code = (
        "import sys, boardlab.sim, boardlab.sim.games, boardlab.experiments.cli;"
        "from boardlab.sim import _cache;"
        "print(sorted(m for m in sys.modules if m.startswith(('boardlab.sim.', 'boardlab.agents.'))), _cache._GUARDED)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['boardlab.sim._cache', 'boardlab.sim.games'] False"
