"""The numba cache guard drops every cached kernel, subpackages included, when a kernel file changes."""

from __future__ import annotations

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
