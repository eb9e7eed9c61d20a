"""Citywright's agents by spec string: ``random``, ``greedy``, ``specialist:C,weight=3``, ``mcts:iters=1000,k=24``.

The spec grammar, the parser and the Python agents every game has (``ismcts``, ``py:module:Name``) are
:mod:`boardlab.agents.specs` and :mod:`boardlab.agents.generic`; this module is Citywright's list of agents, its skill
tiers, and its built-in agents' parameter rows.  A specialist takes its district as a bare first
argument (``specialist:R`` or ``specialist:residential``).  Parsing gives an :class:`AgentSpec` whose
:meth:`~AgentSpec.row` is the float64 parameter row the numba game loop reads.

**Weights per rule set.**  The learned value of `strong`, `expert` and the specialists built on them is
fitted under one rule set.  Their ``weights`` parameter is ``auto`` by default: the weights of the rules in
play, which :func:`for_rules` resolves when a run is made (``boardlab.experiments.simulate.make_spec``) -- the
committed ``strong-v1`` (fitted under v1.1) for the game's presets, and for a variant the weights
``train --rules FILE`` fitted under it, found in the weight cache (:func:`weights_cache`) by the rules'
content hash (:func:`rules_hash`); a variant with none is a one-line error naming that command.
``weights=v1`` (``strong-v1``) plays v1.1's weights under any rules, ``weights=HASH`` a cached file.

The presets keep the committed weights (v1.0 included: every table of it in results/ was played with them,
and play under the presets stays as it was); a variant is any other rule data.  Seat compensation is left
out of the hash, and so is the 2-player tie rule (``game.two_player_tie``): no agent that self-play uses sees
them (their objectives and the value's target are board points), so weights fitted under two compensations or
two tie rules are the same weights.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

import numpy as np

from boardlab.agents.generic.registry import GENERIC
from boardlab.agents.specs import AgentDef, AgentError, Param, Registry, merged
from boardlab.agents.specs import AgentSpec as _Spec
from boardlab.sim.citywright.rules import DEFAULT_PRESET, DISTRICT_NAMES, DISTRICTS, PRESETS, preset
from boardlab.sim.rulesets import canonical_json

from . import kernels as K
from .strong import STRONG_K, STRONG_WEIGHTS, WEIGHTS_VERSION, readonly_weights
from .value import load_weights

__all__ = ["AGENTS", "TIERS", "AgentDef", "AgentError", "AgentSpec", "Param", "parse_agent", "rows", "split_specs"]

_DISTRICT_CHOICES = DISTRICTS + DISTRICT_NAMES


def _district(raw: str) -> int:
    """R, C, P, I or a district's name (any case) -> the district's index."""
    key = raw.strip()
    for i, (letter, name) in enumerate(zip(DISTRICTS, DISTRICT_NAMES, strict=True)):
        if key.upper() == letter or key.lower() == name:
            return i
    raise ValueError(raw)


WEIGHTS_AUTO = "auto"  # the weights of the rules in play (for_rules)
OFFICIAL_RULES = DEFAULT_PRESET  # the rules the committed weights are fitted under (v1.1)
WEIGHTS_CACHE_ENV = "BOARDLAB_WEIGHTS"  # the weight cache's folder (default runs/weights), one subfolder per game
_HASH = re.compile(r"[0-9a-f]{12}")


def _weights_choice(raw: str) -> str:
    """auto, strong-v1 (or v1), or a rules hash (12 hex digits: weights trained under those rules)."""
    key = raw.strip().lower()
    if key == "v1":
        return WEIGHTS_VERSION
    if key in (WEIGHTS_AUTO, WEIGHTS_VERSION) or _HASH.fullmatch(key):
        return key
    raise ValueError(raw)


def _weights_param(quiet: bool = False) -> Param:
    return Param(
        "weights",
        WEIGHTS_AUTO,
        "the learned value's weights: auto (those of the rules in play: strong-v1 under a preset, a variant's"
        " from `train --rules`), strong-v1 (alias v1: v1.1's, under any rules), or a rules hash (its cached weights)",
        choices=(WEIGHTS_AUTO, WEIGHTS_VERSION, "v1", "<rules hash>"),
        parse=_weights_choice,
        quiet=quiet,
    )


_DISTRICT_PARAM = Param(
    "district",
    None,
    "its district: R, C, P, I (or residential, commercial, park, industrial)",
    choices=_DISTRICT_CHOICES,
    positional=True,
    parse=_district,
    show=lambda i: DISTRICTS[i],
)
_SPECIALIST_TILT = (
    Param("weight", 3.0, "extra weight of its own district's points over the total's", lo=0.0, hi=1000.0),
    Param("progress", 0.5, "points per own-district tile on the board", lo=0.0, hi=100.0),
)
# flatmc's parameters; the defaults are the expert tier
# (docs/games/citywright/search.md, "The expert": each lever measured)
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
    # the faster expert's levers (docs/games/citywright/search.md, "A faster expert");
    # quiet: their defaults play as before
    Param(
        "own_memo",
        "off",
        "the mover's strong playout moves remembered across playouts too, as the opponents' are (memo)",
        choices=("off", "on"),
        quiet=True,
    ),
    Param(
        "own_k", 3, "moves per ruler the mover's strong playout moves choose among (strong's k)", lo=1, hi=9, quiet=True
    ),
    Param(
        "repeat",
        "off",
        "a playout that drew no random number is not played again: its candidate's later playouts count its"
        " reward while the memo entries it read are unchanged (exact: the same choice)",
        choices=("off", "on"),
        quiet=True,
    ),
    Param(
        "cut",
        "turn",
        "where turns (and later_turns) cut a playout: turn (when the mover is to move again: the others have"
        " replied) or move (right after the mover's last own move)",
        choices=("turn", "move"),
        quiet=True,
    ),
    Param(
        "later_turns",
        -1,
        "a playout also stops when the mover is to move after this many own moves in rounds after the current"
        " one (-1: no such limit; turns still applies)",
        lo=-1,
        hi=64,
        quiet=True,
    ),
    Param(
        "own_rounds",
        0,
        "rounds, the current one first, in which the mover's playout moves are strong's (own=strong); greedy's"
        " after (0: every round)",
        lo=0,
        hi=8,
        quiet=True,
    ),
    Param(
        "ruler_memo",
        "off",
        "the mover's one-ruler searches in playouts (strong's first pass) remembered by board and ruler: a ruler"
        " dealt again to the same board (the same shape and tiles) is not searched again",
        choices=("off", "on"),
        quiet=True,
    ),
    Param(
        "share_setup",
        "off",
        "the strong tier's per-ruler searches (the candidates by value, the mover's playout moves) share one"
        " setup of the mover's board (exact: the same moves and draws)",
        choices=("off", "on"),
        quiet=True,
    ),
    _weights_param(quiet=True),  # quiet: the expert's stored specs (auto under v1.1) read as before
)

_BUILTIN = {
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
            _DISTRICT_PARAM,
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
            _weights_param(),
        ),
        objective="value = change of (R + C + P + I + achievements) + learned value of the position after",
    ),
    "strong-specialist": AgentDef(
        "strong-specialist",
        K.A_STRONG,
        "strong with a specialist's objective: weight * own-district gain + total gain + progress per own tile",
        params=(
            _DISTRICT_PARAM,
            *_SPECIALIST_TILT,
            Param("k", STRONG_K, "moves kept per ruler on offer (its k best by worth)", lo=1, hi=256),
            _weights_param(),
        ),
        objective="value = change of (weight * own district + R + C + P + I + achievements + progress * own tiles)"
        " + learned value of the position after",
    ),
    "flatmc": AgentDef(
        "flatmc",
        K.A_FLATMC,
        "flat Monte Carlo over the strong agent's best moves: short playouts (the mover strong, the others greedy)"
        " scored by the learned value, common random numbers, successive halving (the expert tier's search;"
        " docs/games/citywright/search.md)",
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
AGENTS: dict[str, AgentDef] = merged(_BUILTIN.values(), GENERIC)  # ismcts beside the built-ins

SPEC_EXAMPLES = "greedy, specialist:C,weight=3, mcts:iters=1000,k=24, strong-specialist:P, ismcts:iters=50"

# The expert tier before its levers (docs/games/citywright/search.md, "The expert"): kept by name, so the ladder and
# the paired tables can set today's expert against it, and for the stored results that played it (their agent column).
EXPERT_V1 = (
    "flatmc:budget=32,k=4,per_slot=2,horizon=0,turns=2,own=strong,rank=value,leaf=value,select=halving,crn=on,"
    "memo=on,taper=0,prune=-1,opp_slots=0,rollout=greedy,reward=margin,c=0.4"
)
# What makes today's expert of it (docs/games/citywright/search.md, "A faster expert": each lever measured): 24
# playouts, the exact levers (repeat, share_setup), the memo for the mover's moves and its one-ruler searches (own_memo,
# ruler_memo), playouts cut right after the mover's last own move (cut=move).  The skill report's
# expert-specialists take the same levers.
EXPERT_LEVERS = "budget=24,own_memo=on,repeat=on,cut=move,ruler_memo=on,share_setup=on"


def _with(args: str, changes: str) -> str:
    """A spec's ``key=value`` list with `changes` set: changed keys in place, new ones appended in order."""
    params = dict(kv.split("=", 1) for kv in args.split(","))
    params.update(kv.split("=", 1) for kv in changes.split(","))
    return ",".join(f"{k}={v}" for k, v in params.items())


# Skill tiers: a name for a full spec, so tables and reports can say "expert" while every result
# stores the full spec it played (the agent column) and the tier it was asked for (run metadata).
# name: (full spec, description)
TIERS: dict[str, tuple[str, str]] = {
    "strong": (
        f"strong:k={STRONG_K},weights={WEIGHTS_AUTO}",
        "for 100,000-game tables: each ruler's best moves by greedy's worth, re-ranked by a learned position value",
    ),
    "expert": (
        f"{EXPERT_V1.split(':', 1)[0]}:{_with(EXPERT_V1.split(':', 1)[1], EXPERT_LEVERS)}",
        "for 5,000-game tables, 0.4 of the v1 expert's time per move: the strong tier's 4 best moves, each tried"
        " in 24 playouts (common random numbers, successive halving) up to the mover's second own move, the mover"
        " strong and the"
        " others greedy (their moves and the mover's one-ruler searches remembered across playouts), scored by"
        " the learned value",
    ),
}


@dataclass(frozen=True)
class AgentSpec(_Spec):
    """A parsed agent (boardlab.agents.specs.AgentSpec: its name, every parameter's value, the tier it was given
    by) and, for a built-in agent, the parameter row of the numba game loop."""

    def row(self) -> np.ndarray:
        """The float64 parameter row of the numba game loop (boardlab.agents.citywright.kernels.P_*).

        Returns
        -------
        numpy.ndarray
            float64, shape ``(P_LEN,)`` (AgentError for a Python agent).
        """
        if self.python:
            raise AgentError(
                f"{self}: a Python agent has no parameter row (it plays through boardlab.experiments.play)"
            )
        r = np.zeros(K.P_LEN, dtype=np.float64)
        r[K.P_CODE] = self.definition.code
        r[K.P_W : K.P_W + 4] = 1.0
        r[K.P_W_ACH] = 1.0
        r[K.P_PROGRESS_DISTRICT] = -1
        r[K.P_VALUE] = 0  # the game loop's default bank: the committed weights (runner.play_chunk_arrays sets it)
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
            r[K.P_OWN_MEMO] = 1.0 if q["own_memo"] == "on" else 0.0
            r[K.P_OWN_K] = q["own_k"]
            r[K.P_REPEAT] = 1.0 if q["repeat"] == "on" else 0.0
            r[K.P_SHARE] = 1.0 if q["share_setup"] == "on" else 0.0
            r[K.P_OWN_ROUNDS] = q["own_rounds"]
            r[K.P_RULER_MEMO] = 1.0 if q["ruler_memo"] == "on" else 0.0
            r[K.P_LATER_TURNS] = q["later_turns"]
            r[K.P_CUT] = 1.0 if q["cut"] == "move" else 0.0
        return r


# an agent -> its specialist of a district at the same strength (restricted play)
_SPECIALIST_OF = {"greedy": "specialist", "strong": "strong-specialist", "flatmc": "expert-specialist"}


def restricted(spec: AgentSpec, family: str) -> str | None:
    """The specialist of a district at `spec`'s strength: greedy -> ``specialist:D``, strong ->
    ``strong-specialist:D`` and flatmc (the expert) -> ``expert-specialist:D`` with the agent's own parameters
    (the specialist tilt at its defaults).

    Parameters
    ----------
    spec : AgentSpec
        A parsed agent (a tier's).
    family : str
        A district letter, R C P I (the API's ``move_families()``).

    Returns
    -------
    str or None
        The specialist's spec, or None for an agent without one or an unknown district.
    """
    if spec.name not in _SPECIALIST_OF or family not in DISTRICTS:
        return None
    _, _, args = str(replace(spec, tier=None)).partition(":")
    return f"{_SPECIALIST_OF[spec.name]}:{family}" + (f",{args}" if args else "")


REGISTRY = Registry(AGENTS, AgentSpec, TIERS, examples=SPEC_EXAMPLES)
REGISTRY.restricted = restricted
available_agents = REGISTRY.available_agents
available_tiers = REGISTRY.available_tiers
parse_agent = REGISTRY.parse_agent
parse_agents = REGISTRY.parse_agents
split_specs = REGISTRY.split_specs


# --- weights per rule set ----------------------------------------------------------------------------------


def rules_hash(rules) -> str:
    """The rules' content hash, what weights fitted under them are named by: 12 hex digits of SHA-256 over
    their canonical JSON without their name, seat compensation and 2-player tie rule (module docstring) --
    the same for the same rule data whatever the file or name, another for any other number.

    Parameters
    ----------
    rules : Rules
        The rule set.

    Returns
    -------
    str
        12 hex digits.
    """
    data = {key: v for key, v in rules.data.items() if key != "name"}
    # what the learned value cannot depend on: points added to totals and the last tie-break
    data["game"] = {key: v for key, v in data["game"].items() if key not in ("compensation", "two_player_tie")}
    return hashlib.sha256(canonical_json(data).encode()).hexdigest()[:12]


@lru_cache(maxsize=1)
def official_hash() -> str:
    """The hash of v1.1, the rules the committed weights are fitted under.

    Returns
    -------
    str
        :func:`rules_hash` of v1.1.
    """
    return rules_hash(preset(OFFICIAL_RULES))


@lru_cache(maxsize=1)
def preset_hashes() -> frozenset[str]:
    """The hashes of the game's presets: the rules under which auto plays the committed weights.

    Returns
    -------
    frozenset of str
        One hash per preset.
    """
    return frozenset(rules_hash(preset(name)) for name in PRESETS)


def weights_cache() -> Path:
    """The folder of weights trained under variants, one file per rules hash: $BOARDLAB_WEIGHTS/citywright,
    by default runs/weights/citywright (relative to the working directory).

    Returns
    -------
    pathlib.Path
        The folder (it may not exist).
    """
    return Path(os.environ.get(WEIGHTS_CACHE_ENV) or "runs/weights") / "citywright"


def cached_weights(key: str) -> Path:
    """The weight file trained under the rules of hash `key` (it may not exist).

    Parameters
    ----------
    key : str
        A rules hash.

    Returns
    -------
    pathlib.Path
        ``weights_cache() / "<key>.json"``.
    """
    return weights_cache() / f"{key}.json"


TRAIN_COMMAND = "boardlab train --game citywright --rules FILE"  # what fits a variant's weights (FILE: its rules)


def for_rules(spec, rules):
    """The spec as it plays under `rules`, with its weights made explicit (the spec a result records):
    ``auto`` becomes ``strong-v1`` under a preset (``auto`` kept where the parameter is quiet: the expert's
    spec reads as before) and the rules' hash under a variant.  AgentError, one line, when a variant
    (or a hash given) has no trained weights in the cache.  Other specs are returned as they are.

    Parameters
    ----------
    spec : AgentSpec or PythonSpec
        A parsed spec.
    rules : Rules
        The rule set.

    Returns
    -------
    AgentSpec or PythonSpec
        The spec as it plays under `rules`.
    """
    if getattr(spec, "python", True) or "weights" not in spec.params:
        return spec
    choice = spec.params["weights"]
    if choice == WEIGHTS_AUTO:
        key = rules_hash(rules)
        if key in preset_hashes():
            quiet = next(p.quiet for p in spec.definition.params if p.name == "weights")
            return spec if quiet else replace(spec, params={**spec.params, "weights": WEIGHTS_VERSION})
        if not cached_weights(key).is_file():
            raise AgentError(
                f"{spec.name}: no weights trained for the rules {rules.name!r} (hash {key}, none in"
                f" {weights_cache()}): train them with `{TRAIN_COMMAND}` (FILE: these rules), or give weights=v1"
                " to play with v1.1's"
            )
        return replace(spec, params={**spec.params, "weights": key})
    if choice != WEIGHTS_VERSION and not cached_weights(choice).is_file():
        raise AgentError(f"{spec.name}: weights={choice}: no such weights in {weights_cache()} (`train --rules`)")
    return spec


def pin_rules(spec, rules):
    """The spec that plays under any rules as it plays under `rules`: ``weights=auto`` made the weight set it
    resolves to there (strong-v1 or the rules' hash), quiet parameter included.  What ``tune scoring`` plays
    in every trial: its agents resolved under the base rules, so a trial's variant plays the base's weights
    (it has none of its own until ``train --rules``).  AgentError as for_rules'; other specs as they are.

    Parameters
    ----------
    spec : AgentSpec or PythonSpec
        A parsed spec.
    rules : Rules
        The rule set.

    Returns
    -------
    AgentSpec or PythonSpec
        The pinned spec.
    """
    if getattr(spec, "python", True) or "weights" not in spec.params:
        return spec
    return replace(spec, params={**spec.params, "weights": weights_name(spec, rules)})


def weights_name(spec, rules) -> str:
    """The weight set `spec` plays under `rules`: strong-v1 or a rules hash (for_rules' choice).

    Parameters
    ----------
    spec : AgentSpec
        A built-in agent with a ``weights`` parameter.
    rules : Rules
        The rule set.

    Returns
    -------
    str
        ``strong-v1`` or a rules hash.
    """
    choice = for_rules(spec, rules).params["weights"]
    return WEIGHTS_VERSION if choice == WEIGHTS_AUTO else choice


def load_named_weights(name: str) -> np.ndarray:
    """float64[TURN_BUCKETS, N_FEATURES] of a weight set: the committed strong-v1, or a cached rules hash's
    (refused when the file's rules hash is not its name).

    Parameters
    ----------
    name : str
        ``strong-v1`` or a rules hash.

    Returns
    -------
    numpy.ndarray
        float64, shape ``(TURN_BUCKETS, N_FEATURES)``, read-only.
    """
    if name == WEIGHTS_VERSION:
        return readonly_weights(STRONG_WEIGHTS)
    path = cached_weights(name)
    try:
        return readonly_weights(_load_cached(str(path), name, path.stat().st_mtime_ns))
    except OSError:
        raise AgentError(f"weights={name}: no such weights in {weights_cache()} (`train --rules`)") from None


@lru_cache(maxsize=16)
def _load_cached(path: str, name: str, mtime_ns: int) -> np.ndarray:
    w, meta = load_weights(Path(path))
    if meta.get("rules_hash") != name:
        raise AgentError(f"weights={name}: {path} holds weights for rules hash {meta.get('rules_hash')!r}")
    return w


def weight_bank(specs: list, rules) -> tuple[np.ndarray, list[int]]:
    """The game loop's weight bank float64[sets, TURN_BUCKETS, N_FEATURES] (the committed weights first) and
    each spec's index in it (0 for an agent without learned value).

    Parameters
    ----------
    specs : list of AgentSpec or PythonSpec
        The run's agents.
    rules : Rules
        The rule set.

    Returns
    -------
    tuple of (numpy.ndarray, list of int)
        The bank, float64 ``(sets, TURN_BUCKETS, N_FEATURES)``, and each spec's index in it.
    """
    names = [WEIGHTS_VERSION]
    index = []
    for s in specs:
        name = weights_name(s, rules) if not getattr(s, "python", True) and "weights" in s.params else WEIGHTS_VERSION
        if name not in names:
            names.append(name)
        index.append(names.index(name))
    return np.stack([load_named_weights(n) for n in names]), index


def rows(specs: list[AgentSpec]) -> np.ndarray:
    """float64[players, P_LEN] for a seat order.

    Parameters
    ----------
    specs : list of AgentSpec
        Built-in agents, in seat order.

    Returns
    -------
    numpy.ndarray
        float64, shape ``(len(specs), P_LEN)``.
    """
    return np.stack([s.row() for s in specs])


def builtin_player(spec: AgentSpec):
    """A built-in agent as a per-move player of a public-API game (boardlab.sim.citywright.api.Game): play(game)
    makes the seat's move in place, exactly as the numba game loop would (its policy stream included).

    Parameters
    ----------
    spec : AgentSpec
        A built-in agent.

    Returns
    -------
    callable
        ``play(game)``, moving the game in place.
    """
    from boardlab.sim.citywright import engine as E

    from .play import entry_point, move_by_address, movers_and_type
    from .strong import readonly_weights

    row = spec.row()
    mv = np.zeros(E.MV_LEN, dtype=np.int32)
    uses_weights = "weights" in spec.params
    by_rules: dict = {}  # rules -> the weight bank spec plays under them (an array for every agent: one compilation)
    by_tables: dict = {}  # id of a game's tables -> (the tables, the kernel's machine code, the movers)

    def play(game) -> None:
        tb = game.tables
        if game.rules not in by_rules:
            name = weights_name(spec, game.rules) if uses_weights else WEIGHTS_VERSION
            by_rules[game.rules] = readonly_weights(load_named_weights(name)[None])
        bank = by_rules[game.rules]
        key = (id(tb), game.rules)
        if key not in by_tables:
            movers, movers_type = movers_and_type(row[None], tb.kernel_args(), bank)
            args = (game.boards, game.st, game.rng, mv, row, tb.kernel_args(), bank[0], movers)
            by_tables[key] = (tb, entry_point(move_by_address, args, movers_type), movers)
        _, move, movers = by_tables[key]
        move(game.boards, game.st, game.rng, mv, row, tb.kernel_args(), bank[0], movers)
        E.apply_move(game.boards, game.st, game.rng, mv, tb.rp, tb.shp, tb.pl_info)

    return play


# the registry's optional hooks (boardlab.agents.specs.Registry)
REGISTRY.player = builtin_player
REGISTRY.for_rules = for_rules
REGISTRY.pin_rules = pin_rules
