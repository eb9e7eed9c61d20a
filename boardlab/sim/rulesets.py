"""Rule sets as data, for every game: presets, TOML variants, merging, validation and one-line errors.

A game's rule set is a nested mapping (the shape of a rules TOML file) that the game's own
``_check`` validates into a frozen :class:`RuleSet` subclass.  What every game does the same
way lives here, once:

* a **variant** is a TOML file naming a ``base`` preset and overriding any subset of its keys;
  :meth:`RuleBook.load` reads one (its name is the file's stem unless it sets ``name``);
* a variant may only change keys the base has, to values of the same type (:func:`merge`),
  except under the game's *open mappings* (a table of named records a variant may add to);
* every error is a :class:`RulesError` whose one-line message starts with the dotted key
  (``coins.cpa: unknown key (valid: cap, mountain_to_owner)``), and a TOML file's errors
  name the file.

A game's ``rules.py`` keeps its presets, its :class:`RuleSet` subclass (its views of the data)
and its ``_check`` (what its numbers mean), and makes a :class:`RuleBook` of them::

    BOOK = RuleBook("My game", PRESETS, "standard", _check, Rules, open_mappings=frozenset({"cards"}))
    load_rules = BOOK.load              # a preset name, a TOML variant's path, or a rule set
"""

from __future__ import annotations

import copy
import json
import re
import tomllib
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from boardlab.sim.files import TextFileError, read_text


class RulesError(ValueError):
    """A rule set that cannot be used; the one-line message starts with the offending key."""


# --- reading a variant file ------------------------------------------------------------------------

# The deepest nesting of tables and arrays a rules file may hold (the deepest preset holds 4): a deeper one
# is refused before the parser, whose recursion it would exhaust, reads it.
MAX_DEPTH = 32
# The tokens of TOML that open or close a nesting level or hide brackets from it (strings, comments).
_TOKENS = re.compile(r'"""|\'\'\'|["\'#\[\]{}]')
_STRING_END = {
    '"': re.compile(r'(?:[^"\\\n]|\\.)*(?:"|\n|$)'),
    "'": re.compile(r"[^'\n]*(?:'|\n|$)"),
    '"""': re.compile(r'(?:[^\\]|\\.)*?(?:"""|$)', re.DOTALL),
    "'''": re.compile(r"(?:.)*?(?:'''|$)", re.DOTALL),
}


def toml_depth(text: str, limit: int = MAX_DEPTH) -> int:
    """How deeply arrays and inline tables nest in TOML `text` (brackets inside strings and comments do not
    count), found by a scan that stops once the depth passes `limit`.

    Parameters
    ----------
    text : str
        A TOML document.
    limit : int
        The scan stops at the first bracket that opens level ``limit + 1``.

    Returns
    -------
    int
        The deepest level reached (at most ``limit + 1``).
    """
    depth = deepest = 0
    i = 0
    while (m := _TOKENS.search(text, i)) is not None:
        tok, i = m.group(), m.end()
        if tok in "[{":
            depth += 1
            deepest = max(deepest, depth)
            if depth > limit:
                break
        elif tok in "]}":
            depth = max(0, depth - 1)
        elif tok == "#":
            end = text.find("\n", i)
            i = len(text) if end < 0 else end
        else:
            end_of_string = _STRING_END[tok].match(text, i)  # None: cut short by the text's end (a lone backslash)
            i = len(text) if end_of_string is None else end_of_string.end()
    return deepest


def mapping_depth(data: Any) -> int:
    """How deeply tables and lists nest in a parsed mapping (a scalar is 0, ``{"a": 1}`` is 1).

    Parameters
    ----------
    data : Any
        A mapping as TOML or JSON gives it.

    Returns
    -------
    int
        The deepest level of nested dicts and lists.
    """
    deepest, stack = 0, [(data, 1)]
    while stack:
        node, level = stack.pop()
        if isinstance(node, dict | list):
            deepest = max(deepest, level)
            stack.extend((v, level + 1) for v in (node.values() if isinstance(node, dict) else node))
    return deepest


def parse_toml(text: str, source: str) -> dict:
    """TOML `text` as a mapping; RulesError, one line naming `source`, when it is not valid TOML or nests
    tables and arrays (dotted keys included) deeper than :data:`MAX_DEPTH`.

    Parameters
    ----------
    text : str
        The document.
    source : str
        Its name in messages (the file's path).

    Returns
    -------
    dict
        The parsed mapping.
    """
    too_deep = RulesError(f"rules: {source} nests tables and arrays deeper than {MAX_DEPTH} levels")
    if toml_depth(text) > MAX_DEPTH:
        raise too_deep
    try:
        mapping = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise RulesError(f"rules: {source} is not valid TOML: {e}") from None
    except RecursionError:
        raise too_deep from None
    if mapping_depth(mapping) > MAX_DEPTH + 1:  # the document's own table, and MAX_DEPTH levels within it
        raise too_deep
    return mapping


def read_toml(path: str | Path, error: type[RulesError] = RulesError) -> dict:
    """The mapping of TOML rules file `path`: a regular file (never a FIFO, a directory or a device), UTF-8,
    valid TOML nesting at most :data:`MAX_DEPTH` levels; RulesError, one line naming the file, otherwise.

    Parameters
    ----------
    path : str or Path
        The variant file.
    error : type
        The RulesError (sub)class to raise (a game's own).

    Returns
    -------
    dict
        Its mapping (``name`` not yet filled in).
    """
    try:
        text = read_text(path, "a rules file")
        return parse_toml(text, str(path))
    except TextFileError as e:
        raise error(f"rules: cannot read {e}") from None
    except RulesError as e:
        raise error(str(e)) from None


def check_base(named: Any, presets: Collection[str], error: type[RulesError] = RulesError) -> str:
    """A variant's ``base``: the name of one of `presets`, or a RulesError naming the key and the presets.

    Parameters
    ----------
    named : Any
        The value the variant gives ``base``.
    presets : collection of str
        The game's preset names.
    error : type
        The RulesError (sub)class to raise (a game's own).

    Returns
    -------
    str
        `named`, a preset name.
    """
    if not isinstance(named, str) or named not in presets:
        what = "unknown preset" if isinstance(named, str) and named else "expected the name of a preset, got"
        raise error(f"base: {what} {named!r} (valid: {', '.join(presets)})")
    return named


# --- the mapping -----------------------------------------------------------------------------------


def dig(data: dict, dotted: str) -> Any:
    """The value at a dotted path: ``data["a"]["b"]["c"]`` for ``"a.b.c"``.

    Parameters
    ----------
    data : dict
        A nested mapping.
    dotted : str
        Keys joined by dots.

    Returns
    -------
    object
        The value found (KeyError when a key is missing).
    """
    for k in dotted.split("."):
        data = data[k]
    return data


_INDEXED = re.compile(r"^(?P<key>[^\[\]]+)(?P<index>(?:\[\d+\])+)$")


def element_overrides(data: dict, overrides: dict[str, Any]) -> dict[str, Any]:
    """`overrides` with every ``key[i]...`` entry folded into a ``key`` entry: a copy of the list (the one
    `overrides` gives for `key`, else `data`'s) with those elements set.

    Parameters
    ----------
    data : dict
        The rule set's full mapping (where a list not given in `overrides` is copied from).
    overrides : dict of str to object
        Dotted paths, some ending in list indices (``"scoring.tiers[2]"``), to values.

    Returns
    -------
    dict of str to object
        Dotted paths without indices to values; each indexed list a whole new list.

    Raises
    ------
    RulesError
        One line, when a key is unknown, not a list, or an index is out of range.
    """
    out: dict[str, Any] = {}
    elements = []
    for path, value in overrides.items():
        m = _INDEXED.match(path)
        if m is None:
            out[path] = value
        else:
            elements.append((m["key"], [int(i) for i in re.findall(r"\[(\d+)\]", m["index"])], value))
    for key, index, value in elements:
        if key not in out:
            node: Any = data
            done: list[str] = []
            for part in key.split("."):
                if not isinstance(node, dict) or part not in node:
                    valid = f" (valid: {', '.join(sorted(node))})" if isinstance(node, dict) else ""
                    raise RulesError(f"{'.'.join([*done, part])}: unknown key{valid}")
                node, done = node[part], [*done, part]
            out[key] = copy.deepcopy(node)
        here, at = out[key], key
        for depth, i in enumerate(index):
            if not isinstance(here, list):
                raise RulesError(f"{at} is not a list, so it takes no index")
            if not 0 <= i < len(here):
                raise RulesError(f"index {i} out of range ({at} has {len(here)} elements)")
            if depth == len(index) - 1:
                here[i] = value
            else:
                here, at = here[i], f"{at}[{i}]"
    return out


def dotted_tree(overrides: dict[str, Any]) -> dict[str, Any]:
    """Dotted paths as a nested mapping: ``{"a.b": 1, "a.c": 2}`` -> ``{"a": {"b": 1, "c": 2}}``.

    Parameters
    ----------
    overrides : dict of str to object
        Dotted paths to values.

    Returns
    -------
    dict of str to object
        The nested mapping.
    """
    tree: dict[str, Any] = {}
    for path, value in overrides.items():
        node = tree
        parts = path.split(".")
        for p in parts[:-1]:
            node = node.setdefault(p, {})
        node[parts[-1]] = value
    return tree


def merge(base: Any, over: Any, path: str = "", open_mappings: Collection[str] = ()) -> Any:
    """Overlay `over` on `base`: only keys the base has (new ones only under `open_mappings`, whose
    entries the game's check validates), each with a value of the base's type; lists are replaced whole.

    Parameters
    ----------
    base : object
        The base value (a mapping at the top level); never modified.
    over : object
        The overriding value, of the base's type.
    path : str
        The dotted path of `base`, for error messages (``""`` at the top).
    open_mappings : collection of str
        Dotted paths of the tables a variant may add new keys to.

    Returns
    -------
    object
        A deep copy of `base` with `over` laid on it.

    Raises
    ------
    RulesError
        An unknown key, or a value of another type than the base's (one line, naming its path).
    """
    if isinstance(base, dict):
        if not isinstance(over, dict):
            raise RulesError(f"{path}: expected a table, got {over!r}")
        out = copy.deepcopy(base)
        for k, v in over.items():
            sub = f"{path}.{k}" if path else k
            if k in base:
                out[k] = merge(base[k], v, sub, open_mappings)
            elif path in open_mappings:
                out[k] = copy.deepcopy(v)
            else:
                raise RulesError(f"{sub}: unknown key (valid: {', '.join(sorted(base))})")
        return out
    if isinstance(base, bool):
        if not isinstance(over, bool):
            raise RulesError(f"{path}: expected true or false, got {over!r}")
        return over
    if isinstance(base, int):
        if isinstance(over, bool) or not isinstance(over, int):
            raise RulesError(f"{path}: expected an integer, got {over!r}")
        return over
    if isinstance(base, str):
        if not isinstance(over, str):
            raise RulesError(f"{path}: expected a string, got {over!r}")
        return over
    if isinstance(base, list):
        if not isinstance(over, list):
            raise RulesError(f"{path}: expected a list, got {over!r}")
        return copy.deepcopy(over)
    raise RulesError(f"{path}: cannot override")  # pragma: no cover


def canonical_json(data: dict) -> str:
    """The rule set's identity: compact JSON in the mapping's own order (order matters: decks are dealt in it).

    Parameters
    ----------
    data : dict
        The rule set's full mapping.

    Returns
    -------
    str
        JSON without blanks.
    """
    return json.dumps(data, separators=(",", ":"))


# --- validation helpers --------------------------------------------------------------------------


def check_int(v: Any, path: str, lo: int | None = None, hi: int | None = None) -> int:
    """`v`, an integer (not a bool) in ``lo..hi``, or a RulesError naming `path`.

    Parameters
    ----------
    v : object
        The value read.
    path : str
        Its dotted key, for the message.
    lo, hi : int or None
        The inclusive bounds (None: unbounded).

    Returns
    -------
    int
        `v`.
    """
    if isinstance(v, bool) or not isinstance(v, int):
        raise RulesError(f"{path}: expected an integer, got {v!r}")
    if lo is not None and v < lo:
        raise RulesError(f"{path}: must be >= {lo}, got {v}")
    if hi is not None and v > hi:
        raise RulesError(f"{path}: must be <= {hi}, got {v}")
    return v


def check_str(v: Any, path: str) -> str:
    """`v`, a non-empty string, or a RulesError naming `path`.

    Parameters
    ----------
    v : object
        The value read.
    path : str
        Its dotted key, for the message.

    Returns
    -------
    str
        `v`.
    """
    if not isinstance(v, str) or not v:
        raise RulesError(f"{path}: expected a non-empty string, got {v!r}")
    return v


def check_choice(v: Any, path: str, choices: Collection[str]) -> str:
    """`v`, one of `choices`, or a RulesError naming `path` and listing them.

    Parameters
    ----------
    v : object
        The value read.
    path : str
        Its dotted key, for the message.
    choices : collection of str
        The valid values.

    Returns
    -------
    str
        `v`.
    """
    if v not in choices:
        raise RulesError(f"{path}: expected one of {', '.join(choices)}, got {v!r}")
    return v


# --- the rule set and its book ---------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class RuleSet:
    """A validated, immutable rule set: its name, its full nested mapping, and that mapping's canonical
    JSON (its identity: equality, hashing and a result's metadata use it).

    A game subclasses it (``@dataclass(frozen=True, eq=False)``) with its views of the data; the game's
    :class:`RuleBook` sets :attr:`book`."""

    name: str
    data: dict = field(repr=False)
    canonical: str = field(repr=False)

    book: ClassVar[RuleBook]

    def to_dict(self) -> dict:
        """The full nested mapping, as a deep copy (changing it changes nothing here).

        Returns
        -------
        dict
            The rule set's data.
        """
        return copy.deepcopy(self.data)

    def to_json(self) -> str:
        """The canonical JSON: the rule set's identity.

        Returns
        -------
        str
            Compact JSON in the mapping's own order (:func:`canonical_json`).
        """
        return self.canonical

    def base_preset(self) -> str:
        """The preset a TOML dump of this rule set names as its base.

        Returns
        -------
        str
            The rule set's own name when it is a preset, else the book's default preset.
        """
        return self.name if self.name in self.book.presets else self.book.default

    def to_toml(self) -> str:
        """The whole rule set as a TOML variant file that the game's ``load_rules`` reads back unchanged.

        Returns
        -------
        str
            The TOML text: a header comment, ``base``, then every key.
        """
        import tomlkit

        doc = tomlkit.document()
        doc.add(tomlkit.comment(f"{self.book.title} rules {self.name!r}: every key a variant file can set."))
        doc.add(tomlkit.comment("A variant names a base preset and overrides any subset of these keys."))
        doc.add("base", self.base_preset())
        for k, v in self.data.items():
            doc.add(k, v)
        return tomlkit.dumps(doc)

    def with_overrides(self, overrides: dict[str, Any]) -> RuleSet:
        """A new rule set with dotted-path overrides, e.g. ``{"coins.cap": 20}``; a path may end in list
        indices (``{"scoring.tiers[2]": 17}``: that element set, the rest of the list kept).

        Parameters
        ----------
        overrides : dict of str to object
            Dotted paths to values.

        Returns
        -------
        RuleSet
            The validated new rule set (this one unchanged).

        Raises
        ------
        RulesError
            An unknown key, a value of the wrong type, or one the game's check refuses.
        """
        return self.book.from_mapping(dotted_tree(element_overrides(self.data, overrides)), base=self.data)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, RuleSet) and type(other) is type(self) and self.canonical == other.canonical

    def __hash__(self) -> int:
        return hash(self.canonical)


@dataclass(frozen=True)
class RuleBook:
    """A game's presets and validator, and the loading every game shares.

    title : str
        The game's name, for the TOML dump's header.
    presets : dict[str, dict]
        Preset name -> full mapping (never handed out: every use deep-copies).
    default : str
        The preset used when none is named.
    check : callable(dict) -> RuleSet
        The game's validation of a full mapping (raises RulesError).
    rules_class : type[RuleSet]
        What ``check`` returns; its ``book`` is set to this book.
    open_mappings : set of dotted keys
        Tables a variant may add entries to (``merge``).
    """

    title: str
    presets: dict[str, dict[str, Any]]
    default: str
    check: Callable[[dict], RuleSet]
    rules_class: type[RuleSet]
    open_mappings: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        self.rules_class.book = self

    def _unknown(self, name: str) -> RulesError:
        return RulesError(f"rules: unknown preset {name!r} (valid: {', '.join(self.presets)}, or a .toml file)")

    def from_mapping(self, mapping: dict[str, Any], base: dict[str, Any] | str | None = None) -> RuleSet:
        """Validate a (partial) mapping on top of a base preset (``mapping["base"]``, else `base`, else the
        default) or a base mapping.

        Parameters
        ----------
        mapping : dict of str to object
            Nested keys to override; may name its base preset under ``"base"``.
        base : dict or str or None
            A preset name or a full base mapping, used when `mapping` names no base; None: the default preset.

        Returns
        -------
        RuleSet
            The game's validated rule set.

        Raises
        ------
        RulesError
            An unknown preset or key, a value of the wrong type, or one the game's check refuses.
        """
        mapping = dict(mapping)
        if base is None:
            base = check_base(mapping.pop("base"), self.presets) if "base" in mapping else self.default
        if isinstance(base, str):
            if base not in self.presets:
                raise RulesError(f"base: unknown preset {base!r} (valid: {', '.join(self.presets)})")
            base = self.presets[base]
        return self.check(merge(base, mapping, "", self.open_mappings))

    def preset(self, name: str | None = None) -> RuleSet:
        """A preset by name.

        Parameters
        ----------
        name : str or None
            The preset's name; None: the default preset.

        Returns
        -------
        RuleSet
            The validated preset.

        Raises
        ------
        RulesError
            The name is not a preset (the message lists them).
        """
        name = self.default if name is None else name
        if name not in self.presets:
            raise self._unknown(name)
        return self.check(copy.deepcopy(self.presets[name]))

    def load(self, spec: str | Path | RuleSet | None = None) -> RuleSet:
        """A rule set from a preset name, a path to a TOML variant, or a rule set (returned as it is).

        Parameters
        ----------
        spec : str or pathlib.Path or RuleSet or None
            What to load; None: the default preset.  A variant without a ``name`` is named after its file.

        Returns
        -------
        RuleSet
            The validated rule set.

        Raises
        ------
        RulesError
            An unknown preset, an unreadable or invalid file (one line, naming it).
        """
        if spec is None:
            return self.preset()
        if isinstance(spec, self.rules_class):
            return spec
        s = str(spec)
        if s in self.presets:
            return self.preset(s)
        path = Path(s)
        if path.suffix != ".toml" and not path.exists():
            raise self._unknown(s)
        mapping = read_toml(path)
        if "name" not in mapping:
            mapping["name"] = path.stem
        try:
            return self.from_mapping(mapping)
        except RulesError as e:
            raise RulesError(f"{s}: {e}") from None
