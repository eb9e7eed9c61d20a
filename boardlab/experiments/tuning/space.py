"""The search space: a tuned rule parameter (:class:`Param`, ``PATH=LO:HI[:int]`` parsed and checked against the
base rules), the keys it may not name (placeholders, keys the base rules switch off), a trial's rules from its
values, and ``--max-changes``' projection of the sampled values onto the played ones."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from .settings import Rules, TuneError

_PATH = re.compile(r"^(?P<key>[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*)(?P<index>(?:\[\d+\])*)$")


@dataclass(frozen=True)
class Param:
    """One tuned rule parameter: `name` as written (``key[i]...``), its range and base value."""

    name: str
    key: str
    index: tuple[int, ...]
    lo: float
    hi: float
    integer: bool
    base: float

    def value(self, x) -> int | float:
        """A sampled value as played: rounded for an integer parameter.

        Parameters
        ----------
        x : float
            The sampler's value.

        Returns
        -------
        int or float
            The value.
        """
        return round(x) if self.integer else float(x)

    def moved(self, x) -> bool:
        """Whether a sampled value differs from the base's.

        Parameters
        ----------
        x : float
            The sampler's value.

        Returns
        -------
        bool
            True when :meth:`value` of it is not ``base``.
        """
        return self.value(x) != self.base


def _number(text: str, where: str) -> int | float:
    try:
        return int(text)
    except ValueError:
        pass
    try:
        x = float(text)
    except ValueError:
        raise TuneError(f"{where}: {text!r} is not a number") from None
    if not math.isfinite(x):
        raise TuneError(f"{where}: {text!r} is not a finite number")
    return x


def parse_param(text: str, base: Rules) -> Param:
    """``PATH=LO:HI[:int]`` checked against `base` (TuneError with a one-line message).

    Parameters
    ----------
    text : str
        The ``--param`` text.
    base : RuleSet
        The base rules (the key must be a number there, within the range's type).

    Returns
    -------
    Param
        The parameter.
    """
    where = f"--param {text}"
    path, eq, rng = text.partition("=")
    path = path.strip()
    if not eq or not path:
        raise TuneError(f"{where}: expected PATH=LO:HI or PATH=LO:HI:int")
    m = _PATH.match(path)
    if not m:
        raise TuneError(f"{where}: {path!r} is not a dotted rule path (e.g. scoring.commercial.tier_points[2])")
    key, index = m["key"], tuple(int(i) for i in re.findall(r"\[(\d+)\]", m["index"]))
    node = base.data
    done: list[str] = []
    for part in key.split("."):
        if not isinstance(node, dict):
            raise TuneError(f"{where}: {'.'.join(done)} is not a table")
        if part not in node:
            prefix = ".".join([*done, part])
            raise TuneError(f"{where}: {prefix}: unknown key (valid: {', '.join(sorted(node))})")
        node = node[part]
        done.append(part)
    for depth, i in enumerate(index):
        here = key + "".join(f"[{j}]" for j in index[:depth])
        if not isinstance(node, list):
            raise TuneError(f"{where}: {here} is not a list, so it takes no index")
        if i >= len(node):
            raise TuneError(f"{where}: index {i} out of range ({here} has {len(node)} elements)")
        node = node[i]
    if isinstance(node, bool) or not isinstance(node, int | float):
        what = "a table" if isinstance(node, dict) else "a list" if isinstance(node, list) else repr(node)
        raise TuneError(f"{where}: {path} is {what}, not a number")
    fields = rng.split(":")
    if len(fields) == 3 and fields[2].strip() == "int":
        forced_int = True
    elif len(fields) == 2:
        forced_int = False
    else:
        raise TuneError(f"{where}: expected LO:HI or LO:HI:int after '='")
    lo = _number(fields[0].strip(), where)
    hi = _number(fields[1].strip(), where)
    integer = forced_int or isinstance(node, int)
    if integer:
        for b in (lo, hi):
            if isinstance(b, float):
                what = "an integer key" if isinstance(node, int) else "an :int range"
                raise TuneError(f"{where}: {path} is {what}, but {b!r} is not an integer")
    if lo > hi:
        raise TuneError(f"{where}: LO {lo} is above HI {hi}")
    if lo == hi:
        raise TuneError(f"{where}: LO equals HI ({lo}): nothing to tune")
    p = Param(name=path, key=key, index=index, lo=lo, hi=hi, integer=integer, base=node)
    for label, x in (("LO", lo), ("HI", hi)):
        try:
            rules_for(base, [p], {p.name: x})
        except ValueError as e:  # every game's rules error is a ValueError
            raise TuneError(f"{where}: {label} = {x} is not a valid rule value ({e})") from None
    return p


def parse_params(texts: list[str], base: Rules) -> list[Param]:
    """Every ``--param``, each checked, none given twice (TuneError with a one-line message).

    Parameters
    ----------
    texts : list of str
        The ``--param`` texts (at least one).
    base : RuleSet
        The base rules.

    Returns
    -------
    list of Param
        The parameters, in order.
    """
    if not texts:
        raise TuneError("--param: give at least one PATH=LO:HI[:int]")
    params = [parse_param(t, base) for t in texts]
    names = [p.name for p in params]
    for n in names:
        if names.count(n) > 1:
            raise TuneError(f"--param {n}: given twice")
    for p in params:  # a whole list and one of its elements at once is ambiguous
        for q in params:
            if p is not q and q.index and p.key == q.key and not p.index:
                raise TuneError(f"--param {p.name}: tuned both whole and by element ({q.name})")
    return params


def rules_for(base: Rules, params: list[Param], values: dict, name: str | None = None) -> Rules:
    """`base` with each parameter set to ``values[name]`` (list elements set in a copy of their list:
    ``RuleSet.with_overrides`` takes the ``key[i]`` names).

    Parameters
    ----------
    base : RuleSet
        The base rules.
    params : list of Param
        The tuned parameters.
    values : dict
        Parameter name -> sampled value.
    name : str or None
        The new rule set's name (None: the base's).

    Returns
    -------
    RuleSet
        The trial's rules.
    """
    overrides: dict = {p.name: p.value(values[p.name]) for p in params}
    if name:
        overrides["name"] = name
    return base.with_overrides(overrides)


def excess_changes(params: list[Param], values: dict, max_changes: int | None) -> int:
    """How many more parameters the sampled `values` move from the base than `max_changes` allows.

    Parameters
    ----------
    params : list of Param
        The tuned parameters.
    values : dict
        Parameter name -> sampled value.
    max_changes : int or None
        ``--max-changes`` (None: no limit).

    Returns
    -------
    int
        0 when within the limit.
    """
    if max_changes is None:
        return 0
    return max(0, sum(p.moved(values[p.name]) for p in params) - max_changes)


def limit_changes(params: list[Param], values: dict, max_changes: int | None) -> dict:
    """The values played: when more than `max_changes` parameters move from the base, only the ones
    with the largest move relative to their range keep their value (ties: the first given).

    Parameters
    ----------
    params : list of Param
        The tuned parameters.
    values : dict
        Parameter name -> sampled value.
    max_changes : int or None
        ``--max-changes`` (None: no limit).

    Returns
    -------
    dict
        Parameter name -> the value played (the others at their base).
    """
    played = {p.name: p.value(values[p.name]) for p in params}
    moved = [
        (abs(played[p.name] - p.base) / (p.hi - p.lo), -i) for i, p in enumerate(params) if p.moved(values[p.name])
    ]
    if max_changes is None or len(moved) <= max_changes:
        return played
    keep = {-i for _, i in sorted(moved, reverse=True)[:max_changes]}
    return {p.name: (played[p.name] if i in keep else p.base) for i, p in enumerate(params)}


def _covers(allowed: str, key: str) -> bool:
    return key == allowed or key.startswith(allowed + ".")


def check_placeholders(params: list[Param], placeholders: dict[str, str], allowed: list[str]) -> tuple[str, ...]:
    """Refuse a parameter on a placeholder key unless an --allow-placeholder entry (the key or a dotted prefix of
    it) names it; refuse an entry that names no placeholder.

    Parameters
    ----------
    params : list of Param
        The tuned parameters.
    placeholders : dict of str to str
        The game's placeholder keys and why (``GameDef.placeholders``).
    allowed : list of str
        The ``--allow-placeholder`` entries.

    Returns
    -------
    tuple of str
        The entries, sorted, each once (TuneError, one line, on a refusal).
    """
    for a in allowed:
        if not any(_covers(a, k) for k in placeholders):
            known = ", ".join(placeholders) or "none"
            raise TuneError(
                f"--allow-placeholder {a}: not a placeholder key or a prefix of one (placeholders: {known})"
            )
    for p in params:
        hit = next((k for k in placeholders if _covers(k, p.key)), None)
        if hit is not None and not any(_covers(a, p.key) for a in allowed):
            raise TuneError(
                f"--param {p.name}: {hit} is a placeholder ({placeholders[hit]}); to tune it anyway add"
                f" --allow-placeholder {hit}"
            )
    return tuple(sorted(set(allowed)))


def check_unused(params: list[Param], unused: dict[str, str]) -> None:
    """Refuse a parameter on a key that plays no part under the base rules (GameDef.unused): every trial moving
    it would play the base's game and spend one of --max-changes on nothing.

    Parameters
    ----------
    params : list of Param
        The tuned parameters.
    unused : dict of str to str
        The keys that play no part and why.
    """
    for p in params:
        hit = next((k for k in unused if _covers(k, p.key)), None)
        if hit is not None:
            raise TuneError(f"--param {p.name}: plays no part under the base rules ({unused[hit]})")
