"""Citadels' agents by spec string (``boardlab agents --game citadels`` lists them).

A spec is ``NAME`` or ``NAME:key=value,...``.  Parsing gives an :class:`AgentSpec` whose
:meth:`~AgentSpec.row` is the float64 parameter row a numba game loop reads (``P_*`` offsets).
The interface is the one every game's agent registry has (docs/architecture.md, "Adding a
game"): ``available_agents``, ``parse_agent``, ``split_specs``, ``AgentError``, ``SPEC_EXAMPLES``.

``random`` is the rules contract's **reference random player** (docs/games/citadels.md §9): its
own SplitMix64 stream seeded with ``seed ^ 0xA5A5A5A5A5A5A5A5``, shared by all seats, and
``legal[rand_below(len(legal))]`` over the canonical legal list at every decision -- so a game of
random players is a function of (rules, players, seed) alone, and any independent engine can be
compared with ours seed by seed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

# The parameter row of an agent: its code, then its parameters.
P_CODE = 0
P_LEN = 1
A_RANDOM = 0


class AgentError(ValueError):
    """An unknown agent or parameter; the message lists the valid ones."""


@dataclass(frozen=True)
class Param:
    name: str
    default: object
    help: str
    choices: tuple = ()
    lo: float | None = None
    hi: float | None = None


@dataclass(frozen=True)
class AgentDef:
    name: str
    code: int
    description: str
    params: tuple[Param, ...] = ()
    objective: str = ""


AGENTS: dict[str, AgentDef] = {
    "random": AgentDef(
        "random",
        A_RANDOM,
        "the reference random player: uniform over the canonical legal list at every decision, from one "
        "stream seeded with seed ^ 0xA5A5A5A5A5A5A5A5 shared by all seats",
    ),
}

SPEC_EXAMPLES = "random"


def available_agents() -> list[AgentDef]:
    return list(AGENTS.values())


@dataclass(frozen=True)
class AgentSpec:
    """A parsed agent: its definition and every parameter's value."""

    name: str
    params: dict = field(default_factory=dict)

    @property
    def definition(self) -> AgentDef:
        return AGENTS[self.name]

    def __str__(self) -> str:
        if not self.params:
            return self.name
        parts = []
        for p in self.definition.params:
            v = self.params[p.name]
            parts.append(f"{p.name}={v:g}" if isinstance(v, float) else f"{p.name}={v}")
        return f"{self.name}:{','.join(parts)}"

    def row(self) -> np.ndarray:
        """The float64 parameter row of a numba game loop (P_*)."""
        r = np.zeros(P_LEN, dtype=np.float64)
        r[P_CODE] = self.definition.code
        return r


def _convert(d: AgentDef, p: Param, raw: str):
    if p.choices:
        if raw not in p.choices:
            raise AgentError(f"{d.name}: {p.name} must be one of {', '.join(p.choices)}, got {raw!r}")
        return raw
    try:
        v = int(raw) if isinstance(p.default, int) else float(raw)
    except ValueError:
        kind = "an integer" if isinstance(p.default, int) else "a number"
        raise AgentError(f"{d.name}: {p.name} must be {kind}, got {raw!r}") from None
    if v != v or (p.lo is not None and v < p.lo) or (p.hi is not None and v > p.hi):
        raise AgentError(f"{d.name}: {p.name} must be in {p.lo:g}..{p.hi:g}, got {raw}")
    return v


def parse_agent(spec: str) -> AgentSpec:
    """``NAME[:key=value,...]`` -> AgentSpec; raises AgentError naming the valid choices."""
    if not isinstance(spec, str) or not spec.strip():
        raise AgentError(f"empty agent spec (valid agents: {', '.join(AGENTS)})")
    name, _, args = spec.strip().partition(":")
    name = name.strip().lower()
    if name not in AGENTS:
        raise AgentError(f"unknown agent {name!r} (valid: {', '.join(AGENTS)})")
    d = AGENTS[name]
    valid = {p.name: p for p in d.params}
    values: dict[str, object] = {}
    for tok in [t.strip() for t in args.split(",")] if args.strip() else []:
        key, eq, raw = tok.partition("=")
        key = key.strip()
        if not tok or not eq:
            hint = f" (valid: {', '.join(valid)})" if valid else " (it takes no parameters)"
            raise AgentError(f"{name}: expected key=value, got {tok!r}{hint}")
        if key not in valid:
            hint = f"valid: {', '.join(valid)}" if valid else "it takes no parameters"
            raise AgentError(f"{name}: unknown parameter {key!r} ({hint})")
        if key in values:
            raise AgentError(f"{name}: parameter {key!r} given twice")
        values[key] = _convert(d, valid[key], raw.strip())
    for p in d.params:
        if p.name not in values:
            values[p.name] = p.default
    return AgentSpec(name, values)


def parse_agents(specs: str | list[str], players: int) -> list[AgentSpec]:
    """One spec per seat, or one spec for every seat."""
    if isinstance(specs, str):
        specs = [specs]
    parsed = [parse_agent(s) for s in specs]
    if len(parsed) == 1:
        parsed = parsed * players
    if len(parsed) != players:
        raise AgentError(f"{len(parsed)} agents for {players} players: give one per seat or one for all")
    return parsed


def rows(specs: list[AgentSpec]) -> np.ndarray:
    """float64[len(specs), P_LEN]: the parameter rows of a list of agents."""
    return np.stack([s.row() for s in specs])


def split_specs(text: str) -> list[str]:
    """Split a command-line list such as ``random,random`` into specs.

    A token that names an agent starts a new spec; ``key=value`` tokens belong to the spec before them.
    """
    out: list[str] = []
    for tok in (t.strip() for t in text.split(",")):
        if not tok:
            raise AgentError(f"empty agent spec in {text!r} (valid agents: {', '.join(AGENTS)})")
        head = tok.partition(":")[0].strip().lower()
        if head in AGENTS and "=" not in tok.partition(":")[0]:
            out.append(tok)
        elif out:
            out[-1] = f"{out[-1]},{tok}" if ":" in out[-1] else f"{out[-1]}:{tok}"
        else:
            raise AgentError(f"unknown agent {tok!r} (valid: {', '.join(AGENTS)})")
    return out
