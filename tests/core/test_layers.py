"""The one-way layering of docs/architecture.md, checked on every import statement of the packages, and no
import cycle among boardlab's modules.

sim (the game-agnostic core and one subpackage per game) imports nothing above it; agents imports sim
only; experiments may import both.  Inside sim, the core imports no game, and in every layer no game
imports another.  Imports inside functions count as much as those at the top of a module.  (That the
generic modules of agents and experiments name no game either is tests/core/test_no_game_ids.py's.)
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

from boardlab.sim.games import available_games, kernel_sources

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("sim", "agents", "experiments")
# the layers, bottom up; the package's own __init__ (the public API) sits above them all
LAYER = {"sim": 0, "agents": 1, "experiments": 2, "": 3}
OLD_LAYOUT = set(PACKAGES)  # top-level names of the layout before the boardlab namespace


def layer_of(name: str) -> str | None:
    """boardlab.sim.x -> 'sim'; boardlab -> '' (the public API); anything outside the package -> None."""
    parts = name.split(".")
    if parts[0] != "boardlab":
        return None
    return parts[1] if len(parts) > 1 and parts[1] in PACKAGES else ""


def modules() -> dict[str, Path]:
    out = {"boardlab": ROOT / "boardlab" / "__init__.py"}
    for pkg in PACKAGES:
        for path in sorted((ROOT / "boardlab" / pkg).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            out[name] = path
    return out


def imports_of(name: str, path: Path) -> set[str]:
    """Absolute names of every module `path` imports (relative imports resolved)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            found.add(mod)
            found.update(f"{mod}.{a.name}" for a in node.names)  # `from sim import engine` imports sim.engine
    return found


def games_of(name: str) -> str | None:
    """The game a module belongs to (boardlab.sim.citywright.x -> citywright), or None for the core."""
    parts = name.split(".")
    return parts[2] if len(parts) > 2 and layer_of(name) in PACKAGES and parts[2] in GAME_IDS else None


GAME_IDS = {g.id for g in available_games()}
MODULES = modules()


def violations(name: str, path: Path) -> list[str]:
    out = []
    top = layer_of(name) or ""
    mine = games_of(name)
    for imp in sorted(imports_of(name, path)):
        if imp.split(".")[0] in OLD_LAYOUT:
            out.append(f"{name} imports {imp} (the layout before the boardlab namespace)")
            continue
        other = layer_of(imp)
        if other is None or other == "":
            continue
        if LAYER[other] > LAYER[top]:
            out.append(f"{name} ({top}) imports {imp} ({other}, a higher layer)")
        theirs = games_of(imp)
        if theirs is not None and mine is not None and theirs != mine:
            out.append(f"{name} (game {mine}) imports {imp} (game {theirs})")
        if theirs is not None and mine is None and top == "sim":
            out.append(f"{name} (the core) imports {imp} (game {theirs})")
    return out


@pytest.mark.parametrize("name", list(MODULES))
def test_no_module_imports_a_higher_layer(name):
    assert violations(name, MODULES[name]) == []


def test_the_check_catches_an_upward_import(tmp_path):
    """The checker itself: an engine module importing an agent or an experiment, or the core a game, is caught."""
    bad = tmp_path / "engine.py"
    bad.write_text(
        "import numpy\nfrom boardlab.agents.citywright import kernels\n\n"
        "def f():\n    import boardlab.experiments.citywright.runner\n"
    )
    assert violations("boardlab.sim.citywright.engine", bad) == [
        "boardlab.sim.citywright.engine (sim) imports boardlab.agents.citywright (agents, a higher layer)",
        "boardlab.sim.citywright.engine (sim) imports boardlab.agents.citywright.kernels (agents, a higher layer)",
        "boardlab.sim.citywright.engine (sim) imports boardlab.experiments.citywright.runner"
        " (experiments, a higher layer)",
    ]
    other = tmp_path / "report.py"
    other.write_text("from boardlab.experiments.citywright.report import _md\n")
    assert violations("boardlab.experiments.cartographers.report", other) == [
        "boardlab.experiments.cartographers.report (game cartographers) imports"
        " boardlab.experiments.citywright.report (game citywright)",
        "boardlab.experiments.cartographers.report (game cartographers) imports"
        " boardlab.experiments.citywright.report._md (game citywright)",
    ]
    core = tmp_path / "stats.py"
    core.write_text("from .citywright import rules\n")
    assert violations("boardlab.sim.stats", core) == [
        "boardlab.sim.stats (the core) imports boardlab.sim.citywright (game citywright)",
        "boardlab.sim.stats (the core) imports boardlab.sim.citywright.rules (game citywright)",
    ]


def test_every_kernel_module_is_in_a_games_kernel_sources():
    """The numba cache guard hashes the registry's kernel files: a module with @njit left out of them
    would keep running stale cached machine code after an edit."""
    listed = set(kernel_sources())
    for path in MODULES.values():
        if re.search(r"^\s*@(numba\.)?njit\b", path.read_text(), re.M):
            assert str(path.relative_to(ROOT)) in listed, f"{path.relative_to(ROOT)} has @njit kernels"
    for f in listed:
        assert (ROOT / f).exists(), f"kernel source {f} does not exist"


# --- no import cycle -------------------------------------------------------------------------------------------


def _module_level(body: list[ast.stmt]):
    """The import statements a module runs when imported: its top level, inside `if`/`try`/`with` blocks too,
    but not under ``if TYPE_CHECKING:`` (never run) and not inside functions or classes."""
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, ast.If):
            if "TYPE_CHECKING" not in ast.unparse(node.test):
                yield from _module_level(node.body)
            yield from _module_level(node.orelse)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody, *(h.body for h in node.handlers)):
                yield from _module_level(block)
        elif isinstance(node, ast.With):
            yield from _module_level(node.body)


def import_graph(mods: dict[str, Path]) -> dict[str, set[str]]:
    """Each module of `mods` to the modules of `mods` it imports at module level (relative imports resolved;
    ``from pkg import sub`` is an edge to ``pkg.sub`` when that is a module, else to ``pkg``)."""
    graph: dict[str, set[str]] = {}
    for name, path in mods.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        out = set()
        for node in _module_level(ast.parse(path.read_text(), str(path)).body):
            if isinstance(node, ast.Import):
                out.update(a.name for a in node.names)
                continue
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            out.update(f"{mod}.{a.name}" if f"{mod}.{a.name}" in mods else mod for a in node.names)
        graph[name] = {m for m in out if m in mods and m != name}
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import cycles of `graph`: its strongly connected components of more than one module (Tarjan),
    each sorted, the list sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def test_no_import_cycles():
    """No two modules import each other, directly or through others, when imported (imports inside functions,
    run when called, are free to go either way): the lower module of a pair holds what both need."""
    every = {}
    for path in sorted((ROOT / "boardlab").rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        every[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph = import_graph(every)
    assert sum(len(v) for v in graph.values()) > 300  # the graph was read
    assert cycles(graph) == []


def test_the_cycle_check_catches_a_cycle(tmp_path):
    files = {
        "boardlab.agents.g.a": "from . import b\n",
        "boardlab.agents.g.b": "import boardlab.agents.g.c as C\n",
        "boardlab.agents.g.c": "from boardlab.agents.g import a\n",
        "boardlab.agents.g.d": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from . import e\n",
        "boardlab.agents.g.e": "from . import d\n\ndef f():\n    from . import a\n",
    }
    mods = {}
    for name, text in files.items():
        path = tmp_path / f"{name.rpartition('.')[2]}.py"
        path.write_text(text)
        mods[name] = path
    assert cycles(import_graph(mods)) == [["boardlab.agents.g.a", "boardlab.agents.g.b", "boardlab.agents.g.c"]]


@pytest.mark.parametrize("args", [["--help"], ["simulate", "--help"], ["tune", "scoring", "--help"]])
def test_help_imports_no_game(args):
    """``boardlab --help`` (and a command's) loads no game, no agent and no heavy library: the registry lists
    games only when asked."""
    code = (
        "import sys\nfrom boardlab.experiments.cli import main\n"
        f"try:\n    main({args!r})\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in sys.modules if m.startswith(('boardlab.sim.', 'boardlab.agents.'))"
        " or m.split('.')[0] in ('numba', 'pandas', 'pyarrow', 'matplotlib', 'dask', 'optuna')), file=sys.stderr)"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert "Usage" in run.stdout
    assert run.stderr.strip().splitlines()[-1] == "['boardlab.sim.games']"
