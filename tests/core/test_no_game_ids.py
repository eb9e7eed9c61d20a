"""No game is named outside its own folders: a generic module knows games only through the registry.

Every module of ``sim``, ``agents`` and ``experiments`` outside a folder named by a registered game
(``sim/<game>/``, ``agents/<game>/``, ``experiments/<game>/``) -- the cores, ``boardlab/experiments/cli/``,
``boardlab/agents/generic/`` and the generic experiments -- is read as a syntax tree, and fails on

* a string literal (f-strings included; docstrings are documentation and exempt) that holds a
  registered game id as a word, in any case: ``"citywright"``, ``get_game("cartographers")``, a
  part's import path ``"boardlab.experiments.citywright.runner:chunk_table"``, a help text naming a game;
* an import of a game's module (``sim.<game>``, ``agents.<game>``, ``experiments.<game>``), those
  inside functions too.

The registry (``boardlab/sim/games.py``) may name the built-in games in its list of them (``_BUILTIN``) and
its default (``DEFAULT_GAME``): that list is the one place a new game is added outside its folders.
The one other exemption is a name, not a game: the metadata key of result files written while the
toolkit bore its first game's name, which simulate still reads.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from boardlab.sim.games import available_games

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("sim", "agents", "experiments")
GAME_IDS = sorted(g.id for g in available_games())
# (file, assigned name) whose literals may hold a game id, and why
EXEMPT = {
    ("boardlab/sim/games.py", "DEFAULT_GAME"): "the registry's default game",
    (
        "boardlab/experiments/simulate.py",
        "METADATA_KEYS",
    ): "the metadata key of files written under the toolkit's old name",
}


def generic_modules() -> dict[str, Path]:
    """Module name -> path of every module outside a game's folder."""
    out = {}
    for pkg in PACKAGES:
        for path in sorted((ROOT / "boardlab" / pkg).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if any(p in GAME_IDS for p in parts[2:-1]):
                continue
            out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return out


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the Constant nodes that are docstrings (a module's, class's or function's first statement)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                out.add(id(first.value))
    return out


def _exempt(tree: ast.AST, rel: str) -> set[int]:
    """ids of the Constant nodes inside an exempt assignment (EXEMPT)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and (rel, t.id) in EXEMPT for t in targets):
                out.update(id(n) for n in ast.walk(node) if isinstance(n, ast.Constant))
    return out


def game_names(name: str, path: Path, rel: str, ids=GAME_IDS) -> list[str]:
    """Every game id literal and per-game import of a module, as 'file:line: what'."""
    tree = ast.parse(path.read_text(), str(path))
    skip = _docstrings(tree) | _exempt(tree, rel)
    word = re.compile(r"(?<![A-Za-z0-9_])(" + "|".join(map(re.escape, ids)) + r")(?![A-Za-z0-9_])", re.I)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str | bytes) and id(node) not in skip:
            text = node.value if isinstance(node.value, str) else node.value.decode("latin-1")
            for m in word.finditer(text):
                found.append((node.lineno, f"game id {m.group(1).lower()!r} in the string {text[:60]!r}"))
    games = {f"boardlab.{pkg}.{gid}" for pkg in PACKAGES for gid in ids}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            hits = {
                i for i in _imports_of_node(node, name, path) if any(i == g or i.startswith(g + ".") for g in games)
            }
            for imp in hits:
                if imp.rpartition(".")[0] not in hits:  # `from sim.x.rules import A, B`: sim.x.rules once
                    found.append((node.lineno, f"imports {imp}, a game's module"))
    return [f"{rel}:{line}: {what}" for line, what in sorted(set(found))]


def _imports_of_node(node: ast.Import | ast.ImportFrom, name: str, path: Path) -> set[str]:
    """The absolute module names one import statement imports (relative ones resolved, as tests/core/test_layers.py
    reads them: `from sim import engine` imports sim.engine)."""
    if isinstance(node, ast.Import):
        return {a.name for a in node.names}
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    if node.level:
        base = package.split(".")
        mod = ".".join(base[: len(base) - node.level + 1] + ([node.module] if node.module else []))
    else:
        mod = node.module or ""
    return {mod, *(f"{mod}.{a.name}" for a in node.names)}


MODULES = generic_modules()


@pytest.mark.parametrize("name", list(MODULES))
def test_no_game_is_named_in_a_generic_module(name):
    path = MODULES[name]
    assert game_names(name, path, str(path.relative_to(ROOT))) == []


def test_the_registry_is_scanned_and_only_its_lists_are_exempt():
    assert (
        "boardlab.sim.games" in MODULES
        and "boardlab.experiments.simulate" in MODULES
        and "boardlab.experiments.cli.simulate" in MODULES
    )
    assert not any(m.split(".")[2:3] == [gid] for m in MODULES for gid in GAME_IDS)  # the games' folders are not


def test_the_check_catches_a_planted_game_id(tmp_path):
    """The checker itself: a literal, an f-string, a help text, an import path, an import (top level,
    in a function, relative) are each caught with their line; a docstring or a comment is not."""
    gid = GAME_IDS[0]
    bad = tmp_path / "planted.py"
    bad.write_text(
        f'"""A docstring may name {gid}."""\n'  # 1
        f"import numpy  # a comment may name {gid}\n"  # 2
        f"from boardlab.sim.{gid} import rules\n"  # 3
        "\n"
        "def f(game=None):\n"  # 5
        f'    """Nor is {gid} here."""\n'
        f"    import boardlab.experiments.{gid}.runner\n"  # 7
        f'    return game or "{gid}"\n'  # 8
        "\n"
        f'HELP = "Players per game ({gid.title()}: 1-4)."\n'  # 10
        f'PATH = "experiments.{gid}.runner:chunk_table"\n'  # 11
        f'MSG = f"{{1}}: not a {gid} result"\n'  # 12
        f'OK = "{gid}s_and_{gid}2 are other words"\n'  # 13
    )
    found = game_names("boardlab.experiments.planted", bad, "boardlab/experiments/planted.py")
    assert [int(line.split(":")[1]) for line in found] == [3, 7, 8, 10, 11, 12]
    assert all(line.startswith("boardlab/experiments/planted.py:") for line in found)
    assert found[0] == f"boardlab/experiments/planted.py:3: imports boardlab.sim.{gid}, a game's module"
    package = tmp_path / "__init__.py"
    package.write_text(f"from .{gid} import engine\n")
    assert game_names("boardlab.sim", package, "boardlab/sim/__init__.py") == [
        f"boardlab/sim/__init__.py:1: imports boardlab.sim.{gid}, a game's module"
    ]


def test_the_registry_lists_are_exempt_elsewhere_not(tmp_path):
    gid = GAME_IDS[0]
    reg = tmp_path / "games.py"
    reg.write_text(f'DEFAULT_GAME = "{gid}"\nOTHER = "{gid}"\n')
    assert game_names("boardlab.sim.games", reg, "boardlab/sim/games.py") == [
        f"boardlab/sim/games.py:2: game id {gid!r} in the string {gid!r}"
    ]
    assert len(game_names("sim.other", reg, "sim/other.py")) == 2  # the same text in another module: all caught
