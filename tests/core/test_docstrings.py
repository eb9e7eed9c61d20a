"""Every public function, class and method of boardlab carries a numpydoc docstring.

Each module is read as a syntax tree (nothing is imported, no kernel compiled).  A public name is one without a
leading underscore, defined in the module itself: top-level functions and classes, and the methods of public
classes.  Its docstring must have

* a summary line;
* a ``Parameters`` section naming every parameter when there are any: ``self``, ``cls`` and parameters named
  ``_...`` (ignored on purpose) aside, and a numba ``@intrinsic``'s first parameter (its typing context, numba's);
  a class's explicit ``__init__`` parameters are named in the class's docstring or in ``__init__``'s own;
* a ``Returns`` (or ``Yields``) section when the function's return annotation is not ``None``
  (properties excepted: their summary says what they are).

The command line's commands (functions decorated ``@<app>.command`` or ``@<app>.callback``) are exempt: their
docstring is the ``--help`` text and their options are documented by their ``help=`` strings.

The sections are read by a small numpydoc parser: a section is a title line underlined by dashes, a parameter an
unindented ``name : type`` (or ``name``, or ``a, b : type``) line inside ``Parameters``.

``PENDING`` lists the modules whose docstrings are not complete yet; a module on it must still fall short (so the
list only shrinks), every other module must pass.
"""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# modules (paths from the repository root) whose public docstrings are not complete yet
PENDING: frozenset[str] = frozenset()

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
SECTION_RULE = re.compile(r"-{3,}")
PARAM_LINE = re.compile(r"^(\*{0,2}\w+(?:\s*,\s*\*{0,2}\w+)*)\s*(?::.*)?$")


def sections(doc: str) -> dict[str, list[str]]:
    """A numpydoc docstring's sections.

    Parameters
    ----------
    doc : str
        The docstring as written (``inspect.cleandoc`` removes its indentation).

    Returns
    -------
    dict of str to list of str
        Each section's title (``"Parameters"``, ``"Returns"``, ...) to its lines; the text before the first
        section is under ``""``.
    """
    lines = inspect.cleandoc(doc).splitlines()
    out: dict[str, list[str]] = {"": []}
    current = ""
    i = 0
    while i < len(lines):
        if lines[i].strip() and i + 1 < len(lines) and SECTION_RULE.fullmatch(lines[i + 1].strip()):
            current = lines[i].strip()
            out.setdefault(current, [])
            i += 2
            continue
        out[current].append(lines[i])
        i += 1
    return out


def documented_parameters(lines: list[str]) -> set[str]:
    """The names a ``Parameters`` section documents.

    Parameters
    ----------
    lines : list of str
        The section's lines (unindented entries, indented descriptions).

    Returns
    -------
    set of str
        Every name of every entry line, without leading ``*``.
    """
    names = set()
    for line in lines:
        if not line.strip() or line[0].isspace():
            continue
        m = PARAM_LINE.match(line.rstrip())
        if m:
            names.update(n.strip().lstrip("*") for n in m.group(1).split(","))
    return names


def parameters_of(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
    """A function's parameter names, ``self`` and ``cls`` left out.

    Parameters
    ----------
    fn : ast.FunctionDef or ast.AsyncFunctionDef
        The function's definition.

    Returns
    -------
    list of str
        Positional, keyword-only, ``*args`` and ``**kwargs`` names in order.
    """
    a = fn.args
    names = [x.arg for x in (*a.posonlyargs, *a.args, *a.kwonlyargs)]
    names += [x.arg for x in (a.vararg, a.kwarg) if x is not None]
    return [n for n in names if n not in ("self", "cls") and not n.startswith("_")]  # `_`, `**_`: ignored on purpose


def decorator_names(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> list[str]:
    """The dotted names of a definition's decorators (``@app.command()`` -> ``app.command``).

    Parameters
    ----------
    node : ast.FunctionDef or ast.AsyncFunctionDef or ast.ClassDef
        The decorated definition.

    Returns
    -------
    list of str
        One name per decorator (calls reduced to what they call).
    """
    out = []
    for d in node.decorator_list:
        d = d.func if isinstance(d, ast.Call) else d
        out.append(ast.unparse(d))
    return out


def is_command(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether a function is a command-line command (its docstring is its help text).

    Parameters
    ----------
    fn : ast.FunctionDef or ast.AsyncFunctionDef
        The function's definition.

    Returns
    -------
    bool
        True when decorated ``@<something>.command`` or ``@<something>.callback``.
    """
    return any(re.search(r"\.(command|callback)$", d) for d in decorator_names(fn))


def returns_something(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether a function's return annotation promises a value.

    Parameters
    ----------
    fn : ast.FunctionDef or ast.AsyncFunctionDef
        The function's definition.

    Returns
    -------
    bool
        True when annotated and the annotation is not ``None`` (nor ``NoReturn``/``Never``).
    """
    r = fn.returns
    if r is None:
        return False
    text = ast.unparse(r).strip("'\"")
    return text not in ("None", "NoReturn", "Never", "typing.NoReturn")


def function_shortfalls(
    where: str, fn: ast.FunctionDef | ast.AsyncFunctionDef, method: bool = False, extra_doc: str | None = None
) -> list[str]:
    """What a function's docstring misses.

    Parameters
    ----------
    where : str
        The function's qualified name, used in the messages.
    fn : ast.FunctionDef or ast.AsyncFunctionDef
        The function's definition.
    method : bool
        Whether it is a method (properties need no ``Returns``).
    extra_doc : str or None
        Another docstring whose ``Parameters`` count as well (a class's, for its ``__init__``).

    Returns
    -------
    list of str
        One message per shortfall; empty when the docstring is complete.
    """
    if is_command(fn) or "overload" in decorator_names(fn) or "typing.overload" in decorator_names(fn):
        return []
    doc = ast.get_docstring(fn)
    init = fn.name == "__init__"
    if not doc and not (init and extra_doc):
        return [] if init and not parameters_of(fn) else [f"{where}: no docstring"]
    out = []
    secs = sections(doc or "")
    if not init and not "".join(secs[""]).strip():
        out.append(f"{where}: no summary line")
    params = parameters_of(fn)
    if any(d.split(".")[-1] == "intrinsic" for d in decorator_names(fn)):
        params = params[1:]  # a numba intrinsic's typing context is numba's, not the caller's
    named = documented_parameters(secs.get("Parameters", []))
    if extra_doc:
        named |= documented_parameters(sections(extra_doc).get("Parameters", []))
    missing = [p for p in params if p not in named]
    if missing:
        out.append(f"{where}: Parameters does not name {', '.join(missing)}")
    is_property = method and any(d.endswith(("property", ".setter")) for d in decorator_names(fn))
    if not init and not is_property and returns_something(fn):
        if not any("".join(secs.get(s, [])).strip() for s in ("Returns", "Yields")):
            out.append(f"{where}: no Returns section")
    return out


def shortfalls(path: Path) -> list[str]:
    """Every public definition of a module whose docstring falls short.

    Parameters
    ----------
    path : pathlib.Path
        The module's source file.

    Returns
    -------
    list of str
        One message per shortfall, in source order; empty when every public docstring is complete.
    """
    out = []
    for node in ast.parse(path.read_text(), str(path)).body:
        if not isinstance(node, (*FUNCTIONS, ast.ClassDef)) or node.name.startswith("_"):
            continue
        if isinstance(node, FUNCTIONS):
            out += function_shortfalls(node.name, node)
            continue
        doc = ast.get_docstring(node)
        if not doc or not "".join(sections(doc)[""]).strip():
            out.append(f"{node.name}: no docstring")
        for m in node.body:
            if isinstance(m, FUNCTIONS) and (m.name == "__init__" or not m.name.startswith("_")):
                init_doc = doc if m.name == "__init__" else None  # the class documents its constructor's parameters
                out += function_shortfalls(f"{node.name}.{m.name}", m, method=True, extra_doc=init_doc)
    return out


def module_files() -> list[str]:
    """Every module of the package, as a path from the repository root.

    Returns
    -------
    list of str
        Sorted paths of ``boardlab/**/*.py``.
    """
    return sorted(str(p.relative_to(ROOT)) for p in (ROOT / "boardlab").rglob("*.py"))


MODULES = module_files()


@pytest.mark.parametrize("module", [m for m in MODULES if m not in PENDING])
def test_public_docstrings_are_complete(module):
    assert shortfalls(ROOT / module) == []


def test_pending_modules_exist_and_still_fall_short():
    """A module whose docstrings were completed leaves PENDING; one that no longer exists too."""
    assert sorted(PENDING - set(MODULES)) == []
    done = [m for m in sorted(PENDING) if not shortfalls(ROOT / m)]
    assert done == []


def test_the_check_catches_each_shortfall(tmp_path):
    src = tmp_path / "mod.py"
    src.write_text(
        '''
import typer
app = typer.Typer()

def nodoc(x):
    pass

def noparams(x: int, *, y: int = 0) -> None:
    """Summary."""

def halfparams(x: int, y: int) -> None:
    """Summary.

    Parameters
    ----------
    x : int
        The x.
    """

def noreturns(x: int) -> int:
    """Summary.

    Parameters
    ----------
    x, y : int
        The x.
    """

def complete(x: int, *rest: int, **kw: str) -> int:
    """Summary.

    Parameters
    ----------
    x : int
        The x.
    *rest : int
        More.
    **kw : str
        Options.

    Returns
    -------
    int
        The answer.
    """

def _private(x):
    pass

@app.command()
def cmd(x: int):
    """Help text of a command."""

class Thing:
    """A thing."""

    def __init__(self, size: int):
        self.size = size

    @property
    def area(self) -> int:
        """Its area."""
        return self.size**2

    def grow(self, by: int) -> int:
        """Grow."""
        return by

class Other:
    def __init__(self, size: int):
        """Build it.

        Parameters
        ----------
        size : int
            The size.
        """
'''
    )
    assert shortfalls(src) == [
        "nodoc: no docstring",
        "noparams: Parameters does not name x, y",
        "halfparams: Parameters does not name y",
        "noreturns: no Returns section",
        "Thing.__init__: Parameters does not name size",
        "Thing.grow: Parameters does not name by",
        "Thing.grow: no Returns section",
        "Other: no docstring",
    ]
