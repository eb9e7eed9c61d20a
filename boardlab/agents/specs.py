"""Agent spec strings, for every game: ``random``, ``greedy``, ``specialist:C,weight=3``, ``ismcts:iters=200``,
``py:mypackage.agents:Cautious:risk=0.2``.

A spec is ``NAME`` or ``NAME:ARGS``, ARGS comma-separated ``key=value`` pairs (a parameter marked
``positional`` may also be given bare as the first argument: ``specialist:R``).  A game's agent
registry is a :class:`Registry` over its :class:`AgentDef` list -- its built-in agents (numba kernels,
a parameter row each), the generic agents of :mod:`boardlab.agents.generic` (plain Python over the public API)
-- and every registry also accepts **a user's own Python agent**::

    py:package.module:Name[:key=value,...]

``Name`` is an importable class (constructed with the key=value pairs, values read as booleans,
integers, finite floats or else strings) or an object, with ``act(observation, legal_moves, rng)``
(:mod:`boardlab.agents.generic.base`).  Parsing imports it, checks it can be built, and records its module's
version (``__version__``, else its distribution's version, else a hash of the module file) for the
run's metadata.

Parsing gives a spec object whose ``str`` is the canonical spec: parsing that string gives an equal
spec, and a canonical string prints as itself.  Every error is an :class:`AgentError` with a
one-line message naming the agent and, where it applies, the valid choices.
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

PY = "py"  # the prefix of a user's Python agent
PY_FORM = "py:package.module:Name[:key=value,...]"


class AgentError(ValueError):
    """An unknown agent or parameter; the message (one line) lists the valid ones."""


@dataclass(frozen=True)
class Param:
    """One parameter of an agent.

    default : its value when not given (None: required); its type (int, float, str) is the parameter's.
    choices : the allowed texts, for a parameter with a fixed set of values.
    lo, hi : the allowed range of a number.
    positional : may be given bare as the spec's first argument (``specialist:C``); printed bare.
    parse, show : text -> value and value -> text, for a parameter whose value is not its text
        (parse raises ValueError on a text it does not accept).
    quiet : printed in the canonical spec only when not at its default: a parameter added after specs
        were stored (results, tiers), whose default plays as before, so those strings stay canonical.
    """

    name: str
    default: object
    help: str
    choices: tuple = ()
    lo: float | None = None
    hi: float | None = None
    positional: bool = False
    parse: Callable[[str], object] | None = field(default=None, compare=False, repr=False)
    show: Callable[[object], str] | None = field(default=None, compare=False, repr=False)
    quiet: bool = False


@dataclass(frozen=True)
class AgentDef:
    """An agent a registry offers.

    code : the game's kernel code of a built-in agent (-1 for a Python agent).
    make : a Python agent's constructor (its parameters as keywords -> an object with ``act``);
        None for a built-in agent, which plays inside the game's kernels.
    """

    name: str
    code: int
    description: str
    params: tuple[Param, ...] = ()
    objective: str = ""
    make: Callable[..., Any] | None = field(default=None, compare=False, repr=False)

    @property
    def python(self) -> bool:
        """Whether it is a Python agent (it has a constructor, ``make``), not a built-in kernel agent."""
        return self.make is not None


def _number_text(v: float) -> str:
    """A float as spec text: %g where that reads back exactly (every stored spec so far), else repr."""
    text = f"{v:g}"
    return text if float(text) == v else repr(v)


@dataclass(frozen=True)
class AgentSpec:
    """A parsed agent: its definition and every parameter's value (``str`` is the canonical spec)."""

    name: str
    params: dict = field(default_factory=dict)
    tier: str = ""  # the tier name it was given by, or ""
    definition: AgentDef | None = field(default=None, compare=False, repr=False)

    @property
    def python(self) -> bool:
        """Whether it plays in Python through the public API (boardlab.experiments.play), not inside the kernels."""
        return self.definition is not None and self.definition.python

    def make(self):
        """A fresh Python agent (an object with act(observation, legal_moves, rng))."""
        if not self.python:
            raise AgentError(f"{self.name}: a built-in agent plays inside the game's kernels, not in Python")
        return self.definition.make(**self.params)

    def __str__(self) -> str:
        if not self.params:
            return self.name
        parts = []
        assert self.definition is not None  # a spec with parameters has its definition
        for p in self.definition.params:
            v = self.params[p.name]
            if p.quiet and v == p.default:
                continue
            text = p.show(v) if p.show is not None else (_number_text(v) if isinstance(v, float) else str(v))
            parts.append(text if p.positional else f"{p.name}={text}")
        return f"{self.name}:{','.join(parts)}" if parts else self.name


# --- a user's Python agent ----------------------------------------------------------------------------


@dataclass(frozen=True)
class PythonSpec:
    """``py:module:Name[:key=value,...]``: a user's agent, imported; ``str`` is the spec as given (stripped)."""

    module: str
    attr: str
    args: tuple[tuple[str, str], ...] = ()  # (key, text) in the order given
    version: str = field(default="", compare=False)
    target: Any = field(default=None, compare=False, repr=False)  # the class or object

    name = PY
    tier = ""
    python = True

    @property
    def params(self) -> dict[str, Any]:
        """The spec's ``key=value`` pairs, each value read as a bool, int, finite float or else the string."""
        return {k: _py_value(v) for k, v in self.args}

    def make(self):
        """A fresh agent: the class built with the spec's parameters, or the object itself."""
        return self.target(**self.params) if inspect.isclass(self.target) else self.target

    def __str__(self) -> str:
        head = f"{PY}:{self.module}:{self.attr}"
        return f"{head}:{','.join(f'{k}={v}' for k, v in self.args)}" if self.args else head


def _py_value(text: str) -> Any:
    """A py: parameter's text -> bool, int, finite float, or the string itself."""
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    try:
        return int(text)
    except ValueError:
        pass
    try:
        v = float(text)
    except ValueError:
        return text
    if not math.isfinite(v):
        raise ValueError(f"must be a finite number, got {text!r}")
    return v


def module_version(module) -> str:
    """A module's version, for a run's metadata: ``__version__``, else the installed distribution's version,
    else ``sha256:<12 hex>`` of the module's file.

    Parameters
    ----------
    module : module
        The imported module.

    Returns
    -------
    str
        The version text; ``"unknown"`` when none of the three can be read.
    """
    v = getattr(module, "__version__", None)
    if isinstance(v, str) and v:
        return v
    from importlib import metadata

    top = module.__name__.partition(".")[0]
    for dist in metadata.packages_distributions().get(top, []):
        try:
            return f"{dist} {metadata.version(dist)}"
        except metadata.PackageNotFoundError:
            pass
    path = getattr(module, "__file__", None)
    if path:
        try:
            with open(path, "rb") as f:
                return "sha256:" + hashlib.sha256(f.read()).hexdigest()[:12]
        except OSError:
            pass
    return "unknown"


def parse_python(spec: str) -> PythonSpec:
    """``py:module:Name[:key=value,...]`` -> PythonSpec: imports the module, checks the agent can be made.

    Parameters
    ----------
    spec : str
        The spec string.

    Returns
    -------
    PythonSpec
        The parsed spec, its target imported and its module's version recorded.

    Raises
    ------
    AgentError
        A malformed spec, a module that fails to import, a missing name, parameters given to an object, an
        agent that cannot be made or has no ``act`` method (one line each).
    """
    text = spec.strip()
    _, _, rest = text.partition(":")
    module, sep, rest = rest.partition(":")
    attr, _, args = rest.partition(":")
    module, attr = module.strip(), attr.strip()
    if not sep or not module or not attr:
        raise AgentError(f"expected {PY_FORM}, got {text!r}")
    pairs: list[tuple[str, str]] = []
    if args.strip():
        for tok in (t.strip() for t in args.split(",")):
            key, eq, raw = tok.partition("=")
            key, raw = key.strip(), raw.strip()
            if not eq or not key or not raw:
                raise AgentError(f"{PY}:{module}:{attr}: expected key=value, got {tok!r}")
            if any(k == key for k, _ in pairs):
                raise AgentError(f"{PY}:{module}:{attr}: parameter {key!r} given twice")
            try:
                _py_value(raw)
            except ValueError as e:
                raise AgentError(f"{PY}:{module}:{attr}: {key} {e}") from None
            pairs.append((key, raw))
    elif ":" in rest:
        raise AgentError(f"{PY}:{module}:{attr}: nothing after ':' in {text!r}")
    label = f"{PY}:{module}:{attr}"
    try:
        mod = importlib.import_module(module)
    except Exception as e:  # any failure of the user's module is theirs to read, in one line
        raise AgentError(f"{label}: cannot import {module} ({type(e).__name__}: {_first_line(e)})") from None
    target: Any = mod
    for part in attr.split("."):
        if not hasattr(target, part):
            raise AgentError(f"{label}: {module} has no {attr!r}")
        target = getattr(target, part)
    out = PythonSpec(module, attr, tuple(pairs), module_version(mod), target)
    if not inspect.isclass(target) and pairs:
        raise AgentError(f"{label}: is an object, not a class: it takes no parameters")
    try:
        agent = out.make()
    except Exception as e:
        raise AgentError(f"{label}: cannot be made ({type(e).__name__}: {_first_line(e)})") from None
    if not callable(getattr(agent, "act", None)):
        raise AgentError(f"{label}: has no act(observation, legal_moves, rng) method")
    return out


def _first_line(e: BaseException) -> str:
    text = str(e).strip()
    return text.splitlines()[0] if text else "no message"


# --- a game's registry ---------------------------------------------------------------------------------


class Registry:
    """A game's agents by spec string: what ``GameDef.agents()`` returns.

    The dicts are held, not copied: a tier added to a game's ``TIERS`` is known at once.  The optional hooks
    are attributes a game's registry module sets once it has defined them (``None``: the game has none);
    the commands read them as attributes, never by probing the module.

    Parameters
    ----------
    agents : dict of str to AgentDef
        The game's agents, names in order.
    spec_class : type of AgentSpec
        The class its built-in specs are made as (a subclass of :class:`AgentSpec` adding the kernels'
        parameter row).
    tiers : dict of str to (str, str), optional
        Skill tiers: name -> (full spec, description).
    examples : str
        Spec strings shown by ``boardlab agents``.

    Attributes
    ----------
    player : callable(AgentSpec) -> callable(game), or None
        A built-in agent as a per-move player of a public-API game (games with kernel agents).
    for_rules : callable(spec, rules) -> spec, or None
        The spec as it plays under a rule set (Citywright: its learned weights made explicit).
    pin_rules : callable(spec, rules) -> spec, or None
        The spec that plays under any rules as it plays under these (``tune scoring``'s agents).
    restricted : callable(spec, family) -> str or None, or None
        The game's own specialist of a move family at a tier's strength: the spec string of the agent that
        plays as `spec` but takes a move of `family` (a name of the game's ``move_families()``) whenever it
        can, or None where `spec` has no such form.  Restricted play (the generic report) uses it before the
        generic ``random-prefers`` / ``ismcts-prefers``.
    """

    AgentError = AgentError  # what parse_agent and split_specs raise, as ``reg.AgentError``

    def __init__(
        self,
        agents: dict[str, AgentDef],
        spec_class: type[AgentSpec] = AgentSpec,
        tiers: dict[str, tuple[str, str]] | None = None,
        examples: str = "",
    ):
        self.agents = agents
        self.spec_class = spec_class
        self.tiers = tiers if tiers is not None else {}
        self.examples = examples
        self.player: Callable[[AgentSpec], Callable[[Any], None]] | None = None
        self.for_rules: Callable[[Any, Any], Any] | None = None
        self.pin_rules: Callable[[Any, Any], Any] | None = None
        self.restricted: Callable[[Any, str], str | None] | None = None

    def builtin_player(self, spec: AgentSpec) -> Callable[[Any], None]:
        """A built-in agent as a per-move player: ``play(game)`` makes the seat's move in place.

        Parameters
        ----------
        spec : AgentSpec
            A built-in (kernel) agent of the game.

        Returns
        -------
        callable
            The per-move player.
        """
        if self.player is None:
            raise AgentError(f"{spec}: not a built-in agent (this game's agents are all Python)")
        return self.player(spec)

    def _valid(self) -> str:
        return ", ".join([*self.agents, *self.tiers, PY_FORM])

    def available_agents(self) -> list[AgentDef]:
        """The game's agents.

        Returns
        -------
        list of AgentDef
            Every definition, in the registry's order.
        """
        return list(self.agents.values())

    def available_tiers(self) -> dict[str, tuple[str, str]]:
        """The game's skill tiers.

        Returns
        -------
        dict of str to tuple of (str, str)
            Tier name -> (full spec, description); a copy.
        """
        return dict(self.tiers)

    def parse_agent(self, spec: str) -> AgentSpec | PythonSpec:
        """``NAME[:ARGS]``, a tier's name, or ``py:module:Name[:ARGS]`` -> a spec.

        Parameters
        ----------
        spec : str
            The spec string (name case and surrounding blanks ignored).

        Returns
        -------
        AgentSpec or PythonSpec
            The parsed spec (a tier's carries the tier's name); ``str`` of it is the canonical spec.

        Raises
        ------
        AgentError
            An empty or unknown spec, or a bad parameter (one line, naming the valid choices).
        """
        if not isinstance(spec, str) or not spec.strip():
            raise AgentError(f"empty agent spec (valid agents: {self._valid()})")
        name, sep, args = spec.strip().partition(":")
        name = name.strip().lower()
        if name == PY and sep:
            return parse_python(spec)
        if name in self.tiers and not (name in self.agents and args.strip()):  # a tier may share its agent's name
            if args.strip():
                raise AgentError(
                    f"{name}: a tier takes no parameters, got {spec.strip()!r} (it is {self.tiers[name][0]}; give"
                    " that spec to change it)"
                )
            tiered: Any = self.parse_agent(self.tiers[name][0])  # AgentSpec or PythonSpec: both carry a tier
            return replace(tiered, tier=name)
        if name not in self.agents:
            raise AgentError(f"unknown agent {name!r} (valid: {self._valid()})")
        d = self.agents[name]
        if sep and not args.strip():
            raise AgentError(f"{name}: nothing after ':' in {spec.strip()!r}")
        return self.spec_class(name, parse_params(d, args, spec), definition=d)

    def parse_agents(self, specs: str | list[str], players: int) -> list:
        """One spec per seat, or one spec for every seat (a list for several seats: a string is one spec).

        Parameters
        ----------
        specs : str or list of str
            The spec strings.
        players : int
            The number of seats.

        Returns
        -------
        list of AgentSpec or PythonSpec
            One parsed spec per seat.

        Raises
        ------
        AgentError
            A bad spec, or neither one spec nor one per seat.
        """
        if isinstance(specs, str):
            specs = [specs]
        parsed = [self.parse_agent(s) for s in specs]
        if len(parsed) == 1:
            parsed = parsed * players
        if len(parsed) != players:
            raise AgentError(f"{len(parsed)} agents for {players} players: give one per seat or one for all")
        return parsed

    def split_specs(self, text: str) -> list[str]:
        """Split a command-line list such as ``specialist:C,weight=3,greedy,py:my.mod:Agent:depth=2,random``.

        A token that names an agent, a tier or ``py:`` starts a new spec; ``key=value`` tokens belong to
        the spec before them.  An empty token (``greedy,``, ``a,,b``) is an error.

        Parameters
        ----------
        text : str
            The comma-separated list.

        Returns
        -------
        list of str
            One spec string per agent, in order (not parsed).

        Raises
        ------
        AgentError
            An empty token, or a first token that names no agent.
        """
        out: list[str] = []
        for tok in (t.strip() for t in str(text).split(",")):
            head = tok.partition(":")[0].strip().lower()
            if not tok:
                raise AgentError(f"empty agent spec in {text!r} (a comma with nothing after it, or two together)")
            if (head in self.agents or head in self.tiers or (head == PY and ":" in tok)) and "=" not in head:
                out.append(tok)
            elif out:
                out[-1] = f"{out[-1]},{tok}" if _has_args(out[-1]) else f"{out[-1]}:{tok}"
            else:
                raise AgentError(f"unknown agent {tok!r} (valid: {self._valid()})")
        return out


def _has_args(spec: str) -> bool:
    """Whether a spec already has its ``:ARGS`` part (a py: spec has two colons before it)."""
    return spec.count(":") > (2 if spec.partition(":")[0].strip().lower() == PY else 0)


def parse_params(d: AgentDef, args: str, spec: str) -> dict[str, object]:
    """The ARGS of a spec of `d` (``key=value,...``, a positional parameter bare first) -> every parameter's value.

    Parameters
    ----------
    d : AgentDef
        The agent.
    args : str
        The spec's text after ``NAME:`` (may be empty).
    spec : str
        The whole spec, for messages.

    Returns
    -------
    dict of str to object
        Every parameter of `d` to its value, defaults filled in.

    Raises
    ------
    AgentError
        An empty, unknown, repeated or invalid parameter, or a required one missing.
    """
    valid = {p.name: p for p in d.params}
    positional = next((p for p in d.params if p.positional), None)
    values: dict[str, object] = {}
    tokens = [t.strip() for t in args.split(",")] if args.strip() else []
    for i, tok in enumerate(tokens):
        if not tok:
            raise AgentError(f"{d.name}: empty parameter in {spec!r}")
        key, eq, raw = tok.partition("=")
        key = key.strip()
        if not eq:
            if i == 0 and positional is not None:
                key, raw = positional.name, tok
            else:
                hint = f" (valid: {', '.join(valid)})" if valid else " (it takes no parameters)"
                raise AgentError(f"{d.name}: expected key=value, got {tok!r}{hint}")
        if key not in valid:
            hint = f"valid: {', '.join(valid)}" if valid else "it takes no parameters"
            raise AgentError(f"{d.name}: unknown parameter {key!r} ({hint})")
        if key in values:
            raise AgentError(f"{d.name}: parameter {key!r} given twice")
        values[key] = convert(d, valid[key], raw.strip())
    for p in d.params:
        if p.name not in values:
            if p.default is None:
                raise AgentError(f"{d.name}: needs {p.name} ({p.help})")
            values[p.name] = p.default
    return values


def convert(d: AgentDef, p: Param, raw: str) -> object:
    """One parameter's text -> its value; AgentError naming the parameter (NaN and infinities are refused).

    Parameters
    ----------
    d : AgentDef
        The agent, for messages.
    p : Param
        The parameter.
    raw : str
        Its text.

    Returns
    -------
    object
        The value: the parameter's own ``parse`` of it, a choice, or an int or float (as its default's type)
        within ``lo..hi``.
    """
    if p.parse is not None:
        try:
            return p.parse(raw)
        except ValueError:
            raise AgentError(f"{d.name}: {p.name} must be one of {', '.join(p.choices)}, got {raw!r}") from None
    if p.choices:
        if raw not in p.choices:
            raise AgentError(f"{d.name}: {p.name} must be one of {', '.join(p.choices)}, got {raw!r}")
        return raw
    integer = isinstance(p.default, int) and not isinstance(p.default, bool)
    try:
        v = int(raw) if integer else float(raw)
    except ValueError:
        kind = "an integer" if integer else "a number"
        raise AgentError(f"{d.name}: {p.name} must be {kind}, got {raw!r}") from None
    if not math.isfinite(v):
        raise AgentError(f"{d.name}: {p.name} must be a finite number, got {raw!r}")
    if (p.lo is not None and v < p.lo) or (p.hi is not None and v > p.hi):
        raise AgentError(f"{d.name}: {p.name} must be in {p.lo:g}..{p.hi:g}, got {raw}")
    return v


def merged(*groups: Iterable[AgentDef]) -> dict[str, AgentDef]:
    """Name -> definition over groups of definitions, the first of a name kept (a game's own agents
    before the generic ones: a game's built-in ``random`` stays its random).

    Parameters
    ----------
    *groups : iterable of AgentDef
        The groups, in precedence order.

    Returns
    -------
    dict of str to AgentDef
        The definitions by name, in the order first met.
    """
    out: dict[str, AgentDef] = {}
    for group in groups:
        for d in group:
            out.setdefault(d.name, d)
    return out
