"""Agents by spec string: ``random``, ``greedy``, ``specialist:C,weight=3``, ``mcts:iters=1000,k=24``.

A spec is ``NAME`` or ``NAME:ARGS`` where ARGS are comma-separated
``key=value`` pairs; a specialist also takes its district as a bare first
argument (``specialist:R`` or ``specialist:residential``).  Parsing gives an
:class:`AgentSpec` whose :meth:`~AgentSpec.row` is the float64 parameter row
the numba game loop reads.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from sim.citywright.rules import DISTRICT_NAMES, DISTRICTS

from . import kernels as K
from .strong import STRONG_K, WEIGHTS_VERSION


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


_DISTRICT_CHOICES = DISTRICTS + DISTRICT_NAMES
_DISTRICT_PARAM = Param(
    "district",
    None,
    "its district: R, C, P, I (or residential, commercial, park, industrial)",
    choices=_DISTRICT_CHOICES,
)
_SPECIALIST_TILT = (
    Param("weight", 3.0, "extra weight of its own district's points over the total's", lo=0.0, hi=1000.0),
    Param("progress", 0.5, "points per own-district tile on the board", lo=0.0, hi=100.0),
)
# flatmc's parameters; the defaults are the expert tier (docs/search.md, "The expert": each lever measured)
_FLATMC_PARAMS = (
    Param("budget", 32, "playouts per move", lo=1, hi=10_000_000),
    Param("k", 4, "candidate moves (the evaluator's best k, or with per_slot the best of each ruler)", lo=1, hi=256),
    Param("per_slot", 2, "at most this many candidates from one ruler on offer (0: simply the best k)", lo=0, hi=64),
    Param("horizon", 0, "rounds a playout covers (0: to the end of the game)", lo=0, hi=8),
    Param(
        "turns",
        2,
        "a playout also stops when the mover is to move after this many own moves (0: right after the"
        " opponents' replies; -1: only the horizon in rounds)",
        lo=-1,
        hi=64,
    ),
    Param(
        "own",
        "strong",
        "the mover's own moves in playouts: greedy (its objective) or strong",
        choices=("greedy", "strong"),
    ),
    Param(
        "rank",
        "value",
        "candidates ranked by worth (the evaluator's), or by worth + the strong tier's learned value (each ruler's"
        " per_slot best by worth re-ranked; 'per_slot' then counts per ruler)",
        choices=("worth", "value"),
    ),
    Param(
        "leaf",
        "value",
        "a playout cut by the horizon is scored by the points on the boards, or by those plus the strong tier's"
        " learned value of the points still to come",
        choices=("points", "value"),
    ),
    Param("select", "halving", "how the budget is spent over the candidates", choices=("halving", "ucb", "uniform")),
    Param(
        "crn", "on", "common random numbers: every candidate's n-th playout sees the same future", choices=("on", "off")
    ),
    Param(
        "memo", "on", "greedy playout moves remembered across playouts when a position repeats", choices=("on", "off")
    ),
    Param("taper", 0.0, "budget x (half the game's moves / moves left) ** taper (at most 4 x budget)", lo=-4.0, hi=4.0),
    Param(
        "prune", -1.0, "drop candidates worth more than this below the best (negative: keep all)", lo=-1.0, hi=1000.0
    ),
    Param("opp_slots", 0, "opponents' playout moves consider this many random open rulers (0: all)", lo=0, hi=20),
    Param("rollout", "greedy", "playout policy", choices=("greedy", "random")),
    Param("reward", "margin", "score margin over the best opponent, or win share", choices=("margin", "win")),
    Param("c", 0.4, "UCB1 exploration constant (select=ucb)", lo=0.0, hi=100.0),
)

AGENTS: dict[str, AgentDef] = {
    "random": AgentDef(
        "random",
        K.A_RANDOM,
        "uniform over non-empty slots, then legal placements, then tile bijections; free pick uniform; never swaps",
    ),
    "greedy": AgentDef(
        "greedy",
        K.A_GREEDY,
        "plays the move that most increases its own total (districts + achievements already decided), exactly",
        objective="worth = change of (R + C + P + I + own-decided achievements)",
    ),
    "specialist": AgentDef(
        "specialist",
        K.A_SPECIALIST,
        "greedy on its own district first: worth = weight * own-district gain + total gain + progress per own tile",
        params=(
            Param(
                "district",
                None,
                "its district: R, C, P, I (or residential, commercial, park, industrial)",
                choices=_DISTRICT_CHOICES,
            ),
            Param("weight", 3.0, "extra weight of its own district's points over the total's", lo=0.0, hi=1000.0),
            Param(
                "progress",
                0.5,
                "points per own-district tile on the board (progress toward tiers and pairs)",
                lo=0.0,
                hi=100.0,
            ),
        ),
        objective="worth = change of (weight * own district + R + C + P + I + achievements + progress * own tiles)",
    ),
    "mcts": AgentDef(
        "mcts",
        K.A_MCTS,
        "UCB1 search over the greedy evaluator's k best moves, chance re-sampled each iteration, rollouts to the end",
        params=(
            Param("iters", 1000, "iterations (rollouts) per move", lo=1, hi=10_000_000),
            Param("k", 24, "candidate moves at the root (the evaluator's best k)", lo=1, hi=256),
            Param("c", 0.4, "UCB1 exploration constant", lo=0.0, hi=100.0),
            Param("rollout", "random", "rollout policy", choices=("random", "greedy")),
            Param(
                "reward", "win", "reward: win share, or score margin over the best opponent", choices=("win", "margin")
            ),
        ),
    ),
    "strong": AgentDef(
        "strong",
        K.A_STRONG,
        "each ruler's k best moves by the exact greedy search, re-ranked by worth + a learned value of the"
        " position after the move",
        params=(
            Param("k", STRONG_K, "moves kept per ruler on offer (its k best by worth)", lo=1, hi=256),
            Param(
                "weights",
                WEIGHTS_VERSION,
                "the learned value's weight file (agents/citywright/weights/)",
                choices=(WEIGHTS_VERSION,),
            ),
        ),
        objective="value = change of (R + C + P + I + achievements) + learned value of the position after",
    ),
    "strong-specialist": AgentDef(
        "strong-specialist",
        K.A_STRONG,
        "strong with a specialist's objective: weight * own-district gain + total gain + progress per own tile",
        params=(
            Param(
                "district",
                None,
                "its district: R, C, P, I (or residential, commercial, park, industrial)",
                choices=_DISTRICT_CHOICES,
            ),
            Param("weight", 3.0, "extra weight of its own district's points over the total's", lo=0.0, hi=1000.0),
            Param("progress", 0.5, "points per own-district tile on the board", lo=0.0, hi=100.0),
            Param("k", STRONG_K, "moves kept per ruler on offer (its k best by worth)", lo=1, hi=256),
            Param(
                "weights",
                WEIGHTS_VERSION,
                "the learned value's weight file (agents/citywright/weights/)",
                choices=(WEIGHTS_VERSION,),
            ),
        ),
        objective="value = change of (weight * own district + R + C + P + I + achievements + progress * own tiles)"
        " + learned value of the position after",
    ),
    "flatmc": AgentDef(
        "flatmc",
        K.A_FLATMC,
        "flat Monte Carlo over the strong agent's best moves: short playouts (the mover strong, the others greedy)"
        " scored by the learned value, common random numbers, successive halving (the expert tier's search;"
        " docs/search.md)",
        params=_FLATMC_PARAMS,
        objective="candidates: worth as greedy + learned value; choice: mean playout reward (board-point margin over"
        " the best opponent)",
    ),
    "expert-specialist": AgentDef(
        "expert-specialist",
        K.A_FLATMC,
        "flatmc restricted to a district: its candidates and its own playout moves ranked by specialist:X's"
        " objective, chosen by playouts to win",
        params=(_DISTRICT_PARAM, *_SPECIALIST_TILT, *_FLATMC_PARAMS),
        objective="candidates: worth as specialist:X; choice: mean playout reward (score margin)",
    ),
}


SPEC_EXAMPLES = "greedy, specialist:C,weight=3, mcts:iters=1000,k=24, strong-specialist:P"

# Skill tiers: a name for a full spec, so tables and reports can say "expert" while every result
# stores the full spec it played (the agent column) and the tier it was asked for (run metadata).
# name: (full spec, description)
TIERS: dict[str, tuple[str, str]] = {
    "strong": (
        f"strong:k={STRONG_K},weights={WEIGHTS_VERSION}",
        "for 100,000-game tables: each ruler's best moves by greedy's worth, re-ranked by a learned position value",
    ),
    "expert": (
        "flatmc:budget=32,k=4,per_slot=2,horizon=0,turns=2,own=strong,rank=value,leaf=value,select=halving,crn=on,"
        "memo=on,taper=0,prune=-1,opp_slots=0,rollout=greedy,reward=margin,c=0.4",
        "for 2,000-game tables, about 8 ms per move: the strong tier's 4 best moves, each tried in 32 playouts"
        " (common random numbers, successive halving) of the next two own turns, the mover strong and the others"
        " greedy, scored by the learned value",
    ),
}


def available_tiers() -> dict[str, tuple[str, str]]:
    """Tier name -> (full spec, description)."""
    return dict(TIERS)


def available_agents() -> list[AgentDef]:
    return list(AGENTS.values())


@dataclass(frozen=True)
class AgentSpec:
    """A parsed agent: its definition and every parameter's value."""

    name: str
    params: dict = field(default_factory=dict)
    tier: str = ""  # the tier name it was given by (TIERS), or ""

    @property
    def definition(self) -> AgentDef:
        return AGENTS[self.name]

    def __str__(self) -> str:
        if not self.params:
            return self.name
        d = self.definition
        parts = []
        for p in d.params:
            v = self.params[p.name]
            if p.name == "district":
                parts.append(DISTRICTS[v])
            elif isinstance(v, float):
                parts.append(f"{p.name}={v:g}")
            else:
                parts.append(f"{p.name}={v}")
        return f"{self.name}:{','.join(parts)}"

    def row(self) -> np.ndarray:
        """The float64 parameter row of the numba game loop (agents.citywright.kernels.P_*)."""
        r = np.zeros(K.P_LEN, dtype=np.float64)
        r[K.P_CODE] = self.definition.code
        r[K.P_W : K.P_W + 4] = 1.0
        r[K.P_W_ACH] = 1.0
        r[K.P_PROGRESS_DISTRICT] = -1
        if self.name in ("specialist", "strong-specialist", "expert-specialist"):
            d = self.params["district"]
            r[K.P_W + d] += self.params["weight"]
            r[K.P_PROGRESS] = self.params["progress"]
            r[K.P_PROGRESS_DISTRICT] = d
        elif self.name == "mcts":
            r[K.P_ITERS] = self.params["iters"]
            r[K.P_K] = self.params["k"]
            r[K.P_C] = self.params["c"]
            r[K.P_ROLLOUT] = K.A_GREEDY if self.params["rollout"] == "greedy" else K.A_RANDOM
            r[K.P_MARGIN] = 1.0 if self.params["reward"] == "margin" else 0.0
        if self.name in ("strong", "strong-specialist"):
            r[K.P_K] = self.params["k"]
        if self.name in ("flatmc", "expert-specialist"):
            q = self.params
            r[K.P_ITERS] = q["budget"]
            r[K.P_K] = q["k"]
            r[K.P_PER_SLOT] = q["per_slot"]
            r[K.P_HORIZON] = q["horizon"]
            r[K.P_LEAF] = 1.0 if q["leaf"] == "value" else 0.0
            r[K.P_RANK] = 1.0 if q["rank"] == "value" else 0.0
            r[K.P_OWN_TURNS] = q["turns"]
            r[K.P_OWN_POLICY] = 1.0 if q["own"] == "strong" else 0.0
            r[K.P_SELECT] = ("halving", "ucb", "uniform").index(q["select"])
            r[K.P_CRN] = 1.0 if q["crn"] == "on" else 0.0
            r[K.P_MEMO] = 1.0 if q["memo"] == "on" else 0.0
            r[K.P_TAPER] = q["taper"]
            r[K.P_PRUNE] = q["prune"]
            r[K.P_OPP_SLOTS] = q["opp_slots"]
            r[K.P_ROLLOUT] = K.A_GREEDY if q["rollout"] == "greedy" else K.A_RANDOM
            r[K.P_MARGIN] = 1.0 if q["reward"] == "margin" else 0.0
            r[K.P_C] = q["c"]
        return r


def _convert(d: AgentDef, p: Param, raw: str):
    if p.name == "district":
        key = raw.strip()
        low = key.lower()
        for i, (letter, name) in enumerate(zip(DISTRICTS, DISTRICT_NAMES, strict=True)):
            if key.upper() == letter or low == name:
                return i
        raise AgentError(f"{d.name}: district must be one of {', '.join(_DISTRICT_CHOICES)}, got {raw!r}")
    if p.choices:
        if raw not in p.choices:
            raise AgentError(f"{d.name}: {p.name} must be one of {', '.join(p.choices)}, got {raw!r}")
        return raw
    try:
        v = int(raw) if isinstance(p.default, int) else float(raw)
    except ValueError:
        kind = "an integer" if isinstance(p.default, int) else "a number"
        raise AgentError(f"{d.name}: {p.name} must be {kind}, got {raw!r}") from None
    if (p.lo is not None and v < p.lo) or (p.hi is not None and v > p.hi):
        raise AgentError(f"{d.name}: {p.name} must be in {p.lo:g}..{p.hi:g}, got {raw}")
    return v


def parse_agent(spec: str) -> AgentSpec:
    """``NAME[:ARGS]`` -> AgentSpec; raises AgentError naming the valid choices."""
    if not isinstance(spec, str) or not spec.strip():
        raise AgentError(f"empty agent spec (valid agents: {', '.join(AGENTS)})")
    name, _, args = spec.strip().partition(":")
    name = name.strip().lower()
    if name in TIERS and not (name in AGENTS and args.strip()):  # a tier may share its agent's name
        if args.strip():
            raise AgentError(
                f"{name}: a tier takes no parameters, got {spec.strip()!r} (it is {TIERS[name][0]}; give that spec to"
                " change it)"
            )
        return replace(parse_agent(TIERS[name][0]), tier=name)
    if name not in AGENTS:
        raise AgentError(f"unknown agent {name!r} (valid: {', '.join([*AGENTS, *TIERS])})")
    d = AGENTS[name]
    valid = {p.name: p for p in d.params}
    values: dict[str, object] = {}
    tokens = [t.strip() for t in args.split(",")] if args.strip() else []
    for i, tok in enumerate(tokens):
        if not tok:
            raise AgentError(f"{name}: empty parameter in {spec!r}")
        key, eq, raw = tok.partition("=")
        key = key.strip()
        if not eq:
            if i == 0 and "district" in valid:
                key, raw = "district", tok
            else:
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
            if p.default is None:
                raise AgentError(f"{name}: needs {p.name} ({p.help})")
            values[p.name] = p.default
    return AgentSpec(name, values)


def parse_agents(specs: str | list[str], players: int) -> list[AgentSpec]:
    """One spec per seat, or one spec for every seat. A list or a comma-free split on ';'/whitespace
    is not guessed: pass a list for several seats."""
    if isinstance(specs, str):
        specs = [specs]
    parsed = [parse_agent(s) for s in specs]
    if len(parsed) == 1:
        parsed = parsed * players
    if len(parsed) != players:
        raise AgentError(f"{len(parsed)} agents for {players} players: give one per seat or one for all")
    return parsed


def rows(specs: list[AgentSpec]) -> np.ndarray:
    """float64[players, P_LEN] for a seat order."""
    return np.stack([s.row() for s in specs])


def split_specs(text: str) -> list[str]:
    """Split a command-line list such as ``specialist:C,weight=3,greedy,random`` into specs.

    A token that names an agent starts a new spec; ``key=value`` tokens belong
    to the spec before them.
    """
    out: list[str] = []
    for tok in (t.strip() for t in text.split(",")):
        head = tok.partition(":")[0].strip().lower()
        if (head in AGENTS or head in TIERS) and "=" not in tok.partition(":")[0]:
            out.append(tok)
        elif out:
            out[-1] = f"{out[-1]},{tok}" if ":" in out[-1] else f"{out[-1]}:{tok}"
        else:
            raise AgentError(f"unknown agent {tok!r} (valid: {', '.join([*AGENTS, *TIERS])})")
    return out
