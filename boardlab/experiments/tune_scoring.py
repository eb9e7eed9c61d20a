"""`boardlab tune scoring`: rule parameters of any game tuned by simulation so that agents (or seats) win
equally often.  It reads only the result columns every game has (``game_seed, seat, agent, win_share, total``).

Design notes: docs/tuning.md#in-the-code.
"""

from __future__ import annotations

import datetime as _dt
import fcntl
import hashlib
import json
import math
import os
import re
import time
import warnings
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from boardlab.experiments import COMMAND
from boardlab.experiments import simulate as S
from boardlab.experiments.io import atomic_write_text
from boardlab.experiments.pipelines import win_share
from boardlab.experiments.provenance import git_commit
from boardlab.sim.games import DEFAULT_GAME, get_game
from boardlab.sim.seeds import game_seeds

Rules = Any  # a rule set of the study's game (what its GameDef.load_rules gives)

OBJECTIVES = ("specialists", "seats", "both")
SAMPLERS = ("auto", "cmaes", "tpe")
STUDY_NAME = "tune-scoring"
PENALTY = 20_000.0  # above any loss: 10⁴ · 2(N−1)/N < 2 · 10⁴ for `both`
PENALTY_SLOPE = 100_000.0  # per unit of relative excess over the mean-total band
INVALID = 1.0e7
EXCESS_PENALTY = 10.0  # points² told to the sampler per parameter sampled away from the base beyond --max-changes
VERIFY_BLOCK = 1 << 40  # the verification run's seed: a SplitMix64 output no training block uses
BOOTSTRAP_REPS = 2000
STOP_Z = 3.0  # --stop-z's default: standard errors of the paired block difference (0: no early stop)
# What a study stored before these settings existed played: no placeholder allowed, no seat games, no early stop,
# no race
LEGACY_SPEC = {"allow_placeholders": [], "seat_players": [], "seat_agent": "", "seat_block_games": [], "stop_z": 0.0,
               "race": 0.0, "train_games": [], "train_seed": 0, "train_k": 0, "train_ridge": 0.0}  # fmt: skip


class TuneError(ValueError):
    """A tuning run that cannot start or continue; one line for the user."""


# --- parameters -----------------------------------------------------------------------

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
        return round(x) if self.integer else float(x)

    def moved(self, x) -> bool:
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
    """``PATH=LO:HI[:int]`` checked against `base` (TuneError with a one-line message)."""
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
    """`base` with each parameter set to `values[name]` (list elements set in a copy of their list:
    ``RuleSet.with_overrides`` takes the ``key[i]`` names)."""
    overrides: dict = {p.name: p.value(values[p.name]) for p in params}
    if name:
        overrides["name"] = name
    return base.with_overrides(overrides)


def excess_changes(params: list[Param], values: dict, max_changes: int | None) -> int:
    """How many more parameters the sampled `values` move from the base than `max_changes` allows."""
    if max_changes is None:
        return 0
    return max(0, sum(p.moved(values[p.name]) for p in params) - max_changes)


def limit_changes(params: list[Param], values: dict, max_changes: int | None) -> dict:
    """The values played: when more than `max_changes` parameters move from the base, only the ones
    with the largest move relative to their range keep their value (ties: the first given)."""
    played = {p.name: p.value(values[p.name]) for p in params}
    moved = [
        (abs(played[p.name] - p.base) / (p.hi - p.lo), -i) for i, p in enumerate(params) if p.moved(values[p.name])
    ]
    if max_changes is None or len(moved) <= max_changes:
        return played
    keep = {-i for _, i in sorted(moved, reverse=True)[:max_changes]}
    return {p.name: (played[p.name] if i in keep else p.base) for i, p in enumerate(params)}


# --- loss ------------------------------------------------------------------------------


def groups_for(objective: str) -> list[str]:
    return {"specialists": ["agent"], "seats": ["seat"], "both": ["agent", "seat"]}[objective]


def shares(df: pd.DataFrame, by: str) -> pd.Series:
    """Mean win share per row of each group (an agent in k seats is compared to 1/N per seat)."""
    return df.groupby(by, sort=True, observed=True)["win_share"].mean()


def loss(df: pd.DataFrame, objective: str, players: int) -> float:
    """Sum over the objective's groups of (100 · (win share − 1/N))², points²."""
    return float(sum(((100 * (shares(df, by) - 1 / players)) ** 2).sum() for by in groups_for(objective)))


def bootstrap_loss(
    df: pd.DataFrame, objective: str, players: int, reps: int = BOOTSTRAP_REPS, seed: int = 0
) -> tuple[float, float]:
    """95% percentile interval of :func:`loss` over games resampled with replacement."""
    out = _bootstrap_reps(df, groups_for(objective), players, reps, np.random.default_rng(seed))
    lo, hi = np.percentile(out, [2.5, 97.5])
    return float(lo), float(hi)


def _bootstrap_reps(df: pd.DataFrame, bys: list[str], players: int, reps: int, rng) -> np.ndarray:
    """`reps` values of the loss over `bys` on games of `df` resampled with replacement (draws from `rng`)."""
    games = df["game_seed"].to_numpy()
    _, gidx = np.unique(games, return_inverse=True)
    n = int(gidx.max()) + 1
    parts = []
    for by in bys:
        codes, _ = pd.factorize(df[by], sort=True)
        k = int(codes.max()) + 1
        sums = np.zeros((n, k))
        counts = np.zeros((n, k))
        np.add.at(sums, (gidx, codes), df["win_share"].to_numpy())
        np.add.at(counts, (gidx, codes), 1.0)
        parts.append((sums, counts))
    out = np.empty(reps)
    batch = max(1, 2_000_000 // max(n, 1))
    for start in range(0, reps, batch):
        m = min(batch, reps - start)
        w = np.stack([np.bincount(rng.integers(0, n, n), minlength=n) for _ in range(m)]).astype(float)
        total = np.zeros(m)
        for sums, counts in parts:
            s = (w @ sums) / (w @ counts)
            total += ((100 * (s - 1 / players)) ** 2).sum(axis=1)
        out[start : start + m] = total
    return out


def noise_floor(df: pd.DataFrame, objective: str, players: int) -> float:
    """The part of the plug-in loss that is sampling noise: Σ over groups of 10⁴ · Var(share estimate)."""
    total = 0.0
    for by in groups_for(objective):
        total += _noise(df, by)
    return total


def _noise(df: pd.DataFrame, by: str) -> float:
    per_game = df.groupby(["game_seed", by], observed=True)["win_share"].mean().unstack()
    return float((per_game.var(ddof=1) / per_game.count()).sum()) * 1e4


def false_prune_rate(blocks: int, p: float, after: int, sims: int = 20_000, seed: int = 0) -> float:
    """Chance that a trial exactly as good as the best is pruned at some look (blocks after..blocks-1).

    Under that null the paired block differences are symmetric about zero; the
    pruner's one-sided Wilcoxon test is repeated after every block it looks at, so
    the chance of at least one p < `p` exceeds `p`.  Monte Carlo over normal
    differences (the signed-rank test's null distribution does not depend on their
    law).  The pruner's extra guard (no pruning while this trial's mean is below the
    best's) is left out, so this is an upper bound."""
    import scipy.stats as ss

    if p <= 0:
        return 0.0
    rng = np.random.default_rng(seed)
    d = rng.normal(size=(sims, blocks))
    pruned = np.zeros(sims, dtype=bool)
    for n in range(max(2, after), blocks):
        pv = ss.wilcoxon(d[:, :n], axis=1, alternative="greater", zero_method="zsplit").pvalue
        pruned |= pv < p
    return float(pruned.mean())


# --- the study's specification -----------------------------------------------------------


@dataclass(frozen=True)
class Table:
    """One table of games a trial plays in every seed block: the study's agents at its player count, whose loss
    is over agents, or a seat table, one agent in every seat at one player count, whose loss is over seats."""

    name: str  # "agents" or "seats-3p": how files and reports name it
    players: int
    agents: tuple[str, ...]
    block_games: int
    by: str  # "agent" or "seat": the groups its loss sums over

    def loss(self, df: pd.DataFrame) -> float:
        """Sum over the table's groups of (100 · (win share − 1/N))², points²."""
        return float(((100 * (shares(df, self.by) - 1 / self.players)) ** 2).sum())

    def blocks_text(self, blocks: int) -> str:
        who = "the agents" if self.by == "agent" else f"`{self.agents[0]}` in every seat"
        return f"{blocks * self.block_games:,} of {who} at {self.players} players"

    def file(self, b: int) -> str:
        return f"block-{b:03d}.parquet" if self.name == "agents" else f"{self.name}-block-{b:03d}.parquet"


def _covers(allowed: str, key: str) -> bool:
    return key == allowed or key.startswith(allowed + ".")


def check_placeholders(params: list[Param], placeholders: dict[str, str], allowed: list[str]) -> tuple[str, ...]:
    """Refuse a parameter on a placeholder key unless an --allow-placeholder entry (the key or a dotted prefix of
    it) names it; refuse an entry that names no placeholder.  Returns the entries, sorted."""
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
    it would play the base's game and spend one of --max-changes on nothing."""
    for p in params:
        hit = next((k for k in unused if _covers(k, p.key)), None)
        if hit is not None:
            raise TuneError(f"--param {p.name}: plays no part under the base rules ({unused[hit]})")


def pin_agents(game, agents, rules: Rules) -> tuple[str, ...]:
    """The canonical specs as they play under `rules`, pinned there (the registry's ``pin_rules``: Citywright's
    ``weights=auto`` made the base's weights), so every trial's rules play the same agents."""
    reg = game.agents()
    pin = reg.pin_rules
    if pin is None:
        return tuple(agents)
    try:
        return tuple(str(pin(reg.parse_agent(a), rules)) for a in agents)
    except reg.AgentError as e:
        raise TuneError(f"--agents: {e}") from None


@dataclass(frozen=True)
class TuneSpec:
    """Everything that decides a study's trials (what --resume must match)."""

    params: tuple[Param, ...]
    objective: str
    players: int
    agents: tuple[str, ...]  # canonical specs
    labels: tuple[str, ...]  # as given, for tables and charts
    rules: str  # canonical JSON of the base rule set
    rules_name: str
    blocks: int
    block_games: int
    seed: int
    keep_mean_total: float | None
    max_changes: int | None
    prune_p: float
    prune_after: int
    sampler: str = "cmaes"  # resolved: cmaes or tpe
    game: str = DEFAULT_GAME  # a study stored before the registry names none: the default game's, the only one
    allow_placeholders: tuple[str, ...] = ()  # placeholder keys (or their prefixes) the user allowed to tune
    seat_players: tuple[int, ...] = ()  # the seat games' player counts (objective seats or both)
    seat_agent: str = ""  # their every-seat agent (canonical, weights as under the base rules)
    seat_block_games: tuple[int, ...] = ()  # games per block of each seat table
    stop_z: float = STOP_Z  # early stop: standard errors of the paired block difference (0: none)
    race: float = 0.0  # racing's indifference margin, points² (0: no race; the early stop's worse side only)
    # --train: weights fitted under each trial's rules by the game's trainer (games per round; () = agents pinned
    # under the base rules), with its seed, k and ridge
    train_games: tuple[int, ...] = ()
    train_seed: int = 0
    train_k: int = 0
    train_ridge: float = 0.0

    def tables(self) -> tuple[Table, ...]:
        """The tables every trial plays, block by block: the agents' (objective specialists or both), then one
        seat table per seat player count (seats or both)."""
        out = []
        if self.objective in ("specialists", "both"):
            out.append(Table("agents", self.players, self.agents, self.block_games, "agent"))
        if self.objective in ("seats", "both"):
            out += [
                Table(f"seats-{p}p", p, (self.seat_agent,), g, "seat")
                for p, g in zip(self.seat_players, self.seat_block_games, strict=True)
            ]
        return tuple(out)

    @property
    def block_total(self) -> int:
        """Games of one block over all the tables."""
        return sum(t.block_games for t in self.tables())

    @property
    def games(self) -> int:
        """Games of a whole trial over all the tables."""
        return self.blocks * self.block_total

    def game_def(self):
        return get_game(self.game)

    @property
    def trains(self) -> bool:
        """Whether every trial's rules play weights fitted under them (--train)."""
        return bool(self.train_games)

    def train_settings(self) -> dict:
        """The training settings of --train, as the game's trainer records them (``Trainer.trained_with``)."""
        return _trained_with(asdict(self))

    def base_rules(self) -> Rules:
        return self.game_def().rules_from_mapping(json.loads(self.rules))

    def to_json(self) -> dict:
        return json.loads(json.dumps(asdict(self)))

    def label(self, agent: str) -> str:
        return dict(zip(self.agents, self.labels, strict=True)).get(agent, agent)

    @property
    def n_startup(self) -> int:
        """Random trials before TPE models the history (Optuna's default is 10)."""
        return min(10, max(4, 2 * len(self.params)))


def make_tune_spec(
    base: Rules,
    params: list[Param],
    objective: str,
    players: int,
    agents: list[str],
    games: int,
    blocks: int,
    seed: int,
    keep_mean_total: float | None = None,
    max_changes: int | None = None,
    prune_p: float = 0.05,
    prune_after: int = 5,
    sampler: str = "auto",
    *,
    game,
    seat_players: list[int] | None = None,
    seat_agent: str | None = None,
    seat_games: int | None = None,
    stop_z: float = STOP_Z,
    race: float = 0.0,
    allow_placeholders: list[str] = (),
    train: list[int] | None = None,
    train_seed: int = 1,
) -> TuneSpec:
    """Validate the study's settings for `game` (a GameDef or id; TuneError or SimulateError, one line each).

    `seat_players`, `seat_agent`, `seat_games`: the seat games of objective seats or both (None: the study's
    players, the game's seat agent for `agents` (GameDef.seat_agent, else the first agent), `games`).
    `train`, `train_seed`: games per self-play round and seed of the weights fitted under each trial's rules
    (:func:`ensure_weights`; None: the agents pinned under the base rules, :func:`pin_agents`)."""
    gdef = get_game(game)
    game = gdef.id
    training = _train_settings(gdef, base, train, train_seed)
    if objective not in OBJECTIVES:
        raise TuneError(f"--objective must be one of {', '.join(OBJECTIVES)}, got {objective!r}")
    if blocks < 2:
        raise TuneError(f"--blocks must be at least 2 (the pruner pairs blocks), got {blocks}")
    if games < 1:
        raise TuneError(f"--games must be at least 1, got {games}")
    if games < blocks * players:
        raise TuneError(
            f"--games {games}: a trial is {blocks} seed blocks of whole seat rotations ({players} games each),"
            f" at least {blocks * players} games; give more --games or fewer --blocks"
        )
    block_games = -(-games // (blocks * players)) * players  # whole rotations of the seats
    sim = S.make_spec(players, agents, block_games, seed, base, "rotate", game=game, resolve=not training)
    if objective in ("specialists", "both") and len(set(sim.agents)) < 2:
        raise TuneError(f"--objective {objective} compares agents: give at least two different --agents")
    check_unused(params, gdef.unused(base))
    allowed = check_placeholders(params, gdef.placeholders(base), list(allow_placeholders))
    seats = _seat_settings(gdef, base, objective, players, agents, games, blocks, seed, seat_players, seat_agent,
                           seat_games, pin=not training)  # fmt: skip
    if not (0 <= stop_z < math.inf):
        raise TuneError(f"--stop-z must be a non-negative number of standard errors (0: no early stop), got {stop_z}")
    if not (0 <= race < math.inf):
        raise TuneError(f"--race must be a non-negative margin in points² (0: no race), got {race}")
    if race > 0 and stop_z == 0:
        raise TuneError("--race decides with --stop-z's standard errors: give --stop-z above 0 (or --race 0)")
    if keep_mean_total is not None and not 0 < keep_mean_total < math.inf:
        raise TuneError(f"--keep-mean-total must be a positive percentage, got {keep_mean_total}")
    if max_changes is not None and max_changes < 1:
        raise TuneError(f"--max-changes must be at least 1, got {max_changes}")
    if not 0 <= prune_p < 1:
        raise TuneError(f"--prune-p must be in [0, 1), got {prune_p}")
    if sampler not in SAMPLERS:
        raise TuneError(f"--sampler must be one of {', '.join(SAMPLERS)}, got {sampler!r}")
    if sampler == "auto":
        sampler = "cmaes" if len(params) >= 2 else "tpe"  # CMA-ES needs two dimensions at least
    elif sampler == "cmaes" and len(params) < 2:
        raise TuneError("--sampler cmaes needs at least two --param (use tpe for one)")
    pinned = sim.agents if training else pin_agents(gdef, sim.agents, base)
    return TuneSpec(
        params=tuple(params),
        objective=objective,
        players=players,
        agents=pinned,
        labels=tuple(agents) if len(agents) == len(pinned) else pinned,
        rules=base.to_json(),
        rules_name=base.name,
        blocks=blocks,
        block_games=block_games,
        seed=sim.seed,
        keep_mean_total=keep_mean_total,
        max_changes=max_changes,
        prune_p=prune_p,
        prune_after=prune_after,
        sampler=sampler,
        game=game,
        allow_placeholders=allowed,
        stop_z=float(stop_z),
        race=float(race),
        **seats,
        **training,
    )


def _trainer(gdef):
    """The game's trainer, when it fits weights per rule set and says how a rule set's were fitted."""
    if gdef.training is None:
        return None
    t = gdef.require("trainer")
    return t if t.out_for is not None and t.trained_with is not None else None


def _train_settings(gdef, base: Rules, train: list[int] | None, seed: int) -> dict:
    """TuneSpec's --train fields, checked: the game's trainer fits weights per rule set, the rounds are positive,
    and the base's weights (the committed ones under a preset), if any, were fitted with these settings."""
    if train is None:
        return {}
    t = _trainer(gdef)
    if t is None:
        raise TuneError(f"--train: {gdef.id} fits no learned weights per rule set (its agents play the same ones"
                        " under any rules)")  # fmt: skip
    if not train or any(g < 1 for g in train):
        raise TuneError(f"--train: one positive number of games per self-play round, e.g. 10000,10000; got {train}")
    fields = {"train_games": tuple(int(g) for g in train), "train_seed": int(seed), "train_k": int(t.default_k),
              "train_ridge": float(t.default_ridge)}  # fmt: skip
    have = t.trained_with(base)
    want = _trained_with(fields)
    if have is not None and have != want:
        raise TuneError(_mismatch("the base rules", base, have, want, t))
    return fields


def _trained_with(fields: dict) -> dict:
    """TuneSpec's --train fields as ``Trainer.trained_with`` gives a weight file's settings."""
    return {"seed": fields["train_seed"], "games": list(fields["train_games"]), "k": fields["train_k"],
            "ridge": fields["train_ridge"]}  # fmt: skip


def _mismatch(what: str, rules: Rules, have: dict, want: dict, t) -> str:
    def text(d):
        return f"seed {d['seed']}, games {','.join(str(g) for g in d['games'])}, k {d['k']}, ridge {d['ridge']:g}"

    return (f"--train: {what}' weights ({t.out_for(rules)}) were fitted with {text(have)}, not this study's"
            f" {text(want)}; give --train and --train-seed as they were fitted, or point BOARDLAB_WEIGHTS at"
            " another folder")  # fmt: skip


def ensure_weights(spec: TuneSpec, rules: Rules, jobs: int = 1, progress=None, **where) -> float:
    """With --train, the weights of `rules` fitted (by the game's trainer, into the folder where its agents
    look them up) unless they are there already, fitted with the study's settings; TuneError, one line, when
    they are there but fitted otherwise.  Returns the seconds spent fitting (0 when nothing was fitted).

    `progress(done, total, rate, label)` counts the self-play games; `where`: the backend and scheduler."""
    if not spec.trains:
        return 0.0
    t = _trainer(spec.game_def())
    want = spec.train_settings()
    have = t.trained_with(rules)
    if have == want:
        return 0.0
    if have is not None:
        raise TuneError(_mismatch("these rules", rules, have, want, t))
    t0 = time.perf_counter()
    try:
        content = t.train(spec.train_seed, spec.train_games, k=spec.train_k, ridge=spec.train_ridge, jobs=jobs,
                          progress=progress, rules=rules, **where)  # fmt: skip
    except t.error as e:
        raise TuneError(f"--train: {e}") from None
    t.write(content, t.out_for(rules))
    return time.perf_counter() - t0


def _seat_settings(
    gdef, base, objective, players, agents, games, blocks, seed, seat_players, seat_agent, seat_games, pin=True
):
    """The seat games' TuneSpec fields, checked (none for --objective specialists, which refuses them); `pin`:
    the seat agent pinned under the base rules (False with --train: resolved under each trial's)."""
    if objective == "specialists":
        for flag, v in (("--seat-players", seat_players), ("--seat-agent", seat_agent), ("--seat-games", seat_games)):
            if v is not None:
                raise TuneError(f"{flag}: seat games are played only with --objective seats or both")
        return {"seat_players": (), "seat_agent": "", "seat_block_games": ()}
    counts = list(seat_players) if seat_players is not None else [players]
    lo, hi = gdef.players
    if not counts:
        raise TuneError("--seat-players: give at least one player count")
    for p in counts:
        if not max(2, lo) <= p <= hi:
            raise TuneError(f"--seat-players: {p} is not a player count of {gdef.id} with seats to balance"
                            f" ({max(2, lo)}..{hi})")  # fmt: skip
        if counts.count(p) > 1:
            raise TuneError(f"--seat-players: {p} given twice")
    n = seat_games if seat_games is not None else games
    if n < 1:
        raise TuneError(f"--seat-games must be at least 1, got {n}")
    for p in counts:
        if n < blocks * p:
            raise TuneError(
                f"--seat-games {n}: a seat table at {p} players is {blocks} seed blocks of whole seat rotations,"
                f" at least {blocks * p} games; give more --seat-games or fewer --blocks"
            )
    if seat_agent is None:
        seat_agent = gdef.require("seat_agent")(list(agents)) if gdef.scoring.seat_agent else agents[0]
    try:
        sim = S.make_spec(counts[0], [seat_agent], counts[0], seed, base, "rotate", game=gdef, resolve=pin)
    except S.SimulateError as e:
        raise TuneError(str(e).replace("--agents:", "--seat-agent:", 1)) from None
    return {
        "seat_players": tuple(counts),
        "seat_agent": pin_agents(gdef, sim.agents[:1], base)[0] if pin else sim.agents[0],
        "seat_block_games": tuple(-(-n // (blocks * p)) * p for p in counts),
    }


def block_seed(seed: int, b: int) -> int:
    """Run seed of seed block b (the (b+1)-th SplitMix64 output from `seed`)."""
    return int(game_seeds(seed, b, b + 1)[0])


def _rules_key(rules: Rules) -> str:
    return hashlib.sha1(rules.to_json().encode()).hexdigest()[:12]


RESULT_COLUMNS = ["game_seed", "seat", "agent", "win_share", "total"]


def _is_done(sim: S.RunSpec, path: Path) -> bool:
    """Whether `path` holds the finished run `sim`, whatever its chunk size (chunking never changes a run's rows)."""
    if not path.exists() or S.RunPaths(path).parts.exists():
        return False
    try:
        stored = S.read_metadata(path).get("spec") or {}
    except (S.SimulateError, OSError, ValueError):
        return False
    return {**stored, "chunk_size": 0} == {**sim.to_json(), "chunk_size": 0}


def _run_cached(sim: S.RunSpec, path: Path, jobs: int, progress=None, **where) -> None:
    """`run_or_reuse`, except that a finished run of another chunk size (another --jobs) is reused too.

    `where`: the run's backend and scheduler (boardlab.experiments.simulate.run)."""
    if not _is_done(sim, path):
        S.run_or_reuse(sim, path, jobs=jobs, progress=progress, **where)


def _block(spec: TuneSpec, table: Table, rules: Rules, b: int, work: Path, jobs: int = 1) -> tuple[S.RunSpec, Path]:
    sim = S.make_spec(
        table.players, list(table.agents), table.block_games, block_seed(spec.seed, b), rules, "rotate",
        chunk_size=-(-table.block_games // jobs), game=spec.game,
    )  # fmt: skip
    return sim, Path(work) / _rules_key(rules) / table.file(b)


def play_block(
    spec: TuneSpec, table: Table, rules: Rules, b: int, work: Path, jobs: int = 1, progress=None, **where
) -> pd.DataFrame:
    """Seed block b of `table` under `rules` (played, resumed or reused from the work directory)."""
    sim, path = _block(spec, table, rules, b, work, jobs)
    path.parent.mkdir(parents=True, exist_ok=True)
    _run_cached(sim, path, jobs, progress, **where)
    return _as_table(pd.read_parquet(path, columns=RESULT_COLUMNS), sim, table)


def _as_table(df: pd.DataFrame, sim: S.RunSpec, table: Table) -> pd.DataFrame:
    """The frame's agents named as the table names them: with --train a run records each agent with the weights
    it resolved under the trial's rules (``weights=<hash>``), another name per trial for the same agent."""
    names = dict(zip(sim.agents, table.agents * (len(sim.agents) // len(table.agents)), strict=True))
    if any(k != v for k, v in names.items()):
        df["agent"] = df["agent"].map(lambda a: names.get(a, a))
    return df


def play_blocks(spec: TuneSpec, rules: Rules, b: int, work: Path, jobs: int = 1, progress=None, **where) -> dict:
    """Seed block b of every table under `rules`: table name -> its frame.  `progress(done, total, rate)` counts
    the games of the whole block."""
    out, offset = {}, 0
    for t in spec.tables():

        def tick(done, total, rate, offset=offset):
            if progress:
                progress(offset + done, spec.block_total, rate)

        out[t.name] = play_block(spec, t, rules, b, work, jobs, progress=tick, **where)
        offset += t.block_games
    return out


def all_cached(spec: TuneSpec, rules: Rules, work: Path) -> bool:
    """Whether every block of `rules` is already in the work directory (rules an earlier trial played)."""
    return all(_is_done(*_block(spec, t, rules, b, work)) for b in range(spec.blocks) for t in spec.tables())


def play_verification(
    spec: TuneSpec, table: Table, rules: Rules, games: int, work: Path, jobs: int = 1, progress=None, **where
):
    games = -(-games // table.players) * table.players
    sim = S.make_spec(
        table.players, list(table.agents), games, block_seed(spec.seed, VERIFY_BLOCK), rules, "rotate",
        chunk_size=max(1, min(1000, -(-games // jobs))), game=spec.game,
    )  # fmt: skip
    name = "verify" if table.name == "agents" else f"verify-{table.name}"
    path = Path(work) / f"{name}-{_rules_key(rules)}.parquet"
    _run_cached(sim, path, jobs, progress, **where)
    return _as_table(pd.read_parquet(path), sim, table)


# --- the study ---------------------------------------------------------------------------


def _quiet_optuna():
    import optuna

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    warnings.filterwarnings("ignore", category=optuna.exceptions.ExperimentalWarning)
    # after a raced best (fewer blocks), the pruner pairs the blocks both played, as it should: no warning
    warnings.filterwarnings("ignore", message="WilcoxonPruner finds steps existing in the current trial")
    return optuna


def distributions(spec: TuneSpec) -> dict:
    optuna = _quiet_optuna()
    d = optuna.distributions
    return {
        p.name: d.IntDistribution(int(p.lo), int(p.hi)) if p.integer else d.FloatDistribution(p.lo, p.hi)
        for p in spec.params
    }


def sampler(spec: TuneSpec, k: int, restart: int = 0):
    """Trial k's sampler, seeded from (seed, k); for CMA-ES, that of run `restart` (see the module's docstring)."""
    optuna = _quiet_optuna()
    seed = int(game_seeds(spec.seed ^ 0x7E5E, k, k + 1)[0] >> np.uint64(33))
    if spec.sampler == "cmaes":
        s = optuna.samplers.CmaEsSampler(
            seed=seed, with_margin=any(p.integer for p in spec.params), consider_pruned_trials=True,
            warn_independent_sampling=False,
        )  # fmt: skip
        if restart:
            # Optuna keeps CMA-ES's state in the trials under this prefix: a new prefix is a fresh run (the
            # attribute is private; without it there are no restarts)
            if not hasattr(s, "_attr_prefix"):  # pragma: no cover
                raise TuneError("this Optuna's CmaEsSampler cannot be restarted; use --sampler tpe")
            s._attr_prefix = f"{s._attr_prefix}restart{restart}:"
        return s
    return optuna.samplers.TPESampler(multivariate=True, seed=seed, n_startup_trials=spec.n_startup)


def cma_patience(spec: TuneSpec) -> int:
    """Trials without a better one after which CMA-ES starts afresh: four generations of its default population."""
    return 4 * (4 + int(3 * math.log(len(spec.params))))


def restarts(trials: list, patience: int) -> list[int]:
    """The CMA-ES run each of `trials` (finished, in order, the base left out) belongs to, and the next one's:
    a run ends when its own best value has not improved for `patience` trials (an invalid trial never improves)."""
    run, best, since, out = 0, math.inf, 0, []
    for t in trials:
        out.append(run)
        value = math.inf if "invalid" in t.user_attrs else t.user_attrs.get("value", math.inf)
        if value < best:
            best, since = value, 0
        else:
            since += 1
        if since >= patience:
            run, best, since = run + 1, math.inf, 0
    return [*out, run]


def pruner(spec: TuneSpec):
    optuna = _quiet_optuna()
    if spec.prune_p <= 0:
        return optuna.pruners.NopPruner()
    return optuna.pruners.WilcoxonPruner(p_threshold=spec.prune_p, n_startup_steps=spec.prune_after)


class StudyLock:
    """An exclusive lock on DIR for the life of the process (released by the OS even after kill -9)."""

    def __init__(self, out: Path):
        self.path = Path(out) / ".lock"
        self.fd = None

    def __enter__(self):
        self.fd = os.open(self.path, os.O_CREAT | os.O_RDWR, 0o644)
        try:
            fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(self.fd)
            raise TuneError(f"--out: another tune is running in {self.path.parent}") from None
        return self

    def __exit__(self, *exc):
        self.path.unlink(missing_ok=True)
        fcntl.flock(self.fd, fcntl.LOCK_UN)
        os.close(self.fd)


def study_path(out: Path) -> Path:
    return Path(out) / "study.db"


def check_output(out: Path, resume: bool) -> None:
    """Refuse to start where the study would be ambiguous (the command checked that OUT can be written); nothing
    is written here."""
    out = Path(out)
    db = study_path(out)
    if resume and not db.exists():
        raise TuneError(f"--resume: no study in {out} (no {db.name})")
    if not resume and db.exists():
        raise TuneError(f"--out: {db} exists; use --resume to continue it (or choose another directory)")


def _connect(path: Path):
    """A connection to the study's SQLite file in WAL mode without fsync per commit: a commit is in the file
    once it returns, so a killed process loses nothing finished (only a power cut could lose the last few)."""
    import sqlite3

    con = sqlite3.connect(path, timeout=60, check_same_thread=False)
    con.execute("PRAGMA journal_mode=WAL")
    con.execute("PRAGMA synchronous=NORMAL")
    return con


def open_study(spec: TuneSpec, out: Path, resume: bool):
    """Create the study in DIR/study.db, or load it for --resume (its settings must match)."""
    optuna = _quiet_optuna()
    path = study_path(out).resolve()
    storage = optuna.storages.RDBStorage(f"sqlite:///{path}", engine_kwargs={"creator": lambda: _connect(path)})
    if resume:
        try:
            study = optuna.load_study(study_name=STUDY_NAME, storage=storage, pruner=pruner(spec))
        except KeyError:
            raise TuneError(f"--resume: {study_path(out)} holds no {STUDY_NAME} study") from None
        stored = study.user_attrs.get("spec")
        if stored is not None and "game" not in stored:  # stored before the registry (TuneSpec.game)
            stored = {**stored, "game": DEFAULT_GAME}
        if stored is not None:  # stored before seat games, placeholders and the early stop: as it played
            stored = {**LEGACY_SPEC, **stored}
        if stored != spec.to_json():
            raise TuneError(
                "--resume: this is not the interrupted study's command (" + _difference(stored or {}, spec.to_json())
                + "); rerun it with the original settings"
            )  # fmt: skip
        fail_running(study)
        return study
    study = optuna.create_study(study_name=STUDY_NAME, storage=storage, direction="minimize", pruner=pruner(spec))
    study.set_user_attr("spec", spec.to_json())
    study.set_user_attr("created", _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"))
    return study


def _difference(old: dict, new: dict) -> str:
    keys = [k for k in new if old.get(k) != new[k]]
    return "; ".join("rules differ" if k == "rules" else f"{k} was {old.get(k)!r}, now {new[k]!r}" for k in keys)


@dataclass
class BlockResult:
    loss: float
    mean_total: float


def _block_value(spec: TuneSpec, res: BlockResult, base_mean: float) -> tuple[float, float]:
    """(value, relative mean-total change) of a block or a pooled set of games."""
    change = res.mean_total / base_mean - 1
    value = res.loss
    if spec.keep_mean_total is not None:
        excess = abs(change) - spec.keep_mean_total / 100
        if excess > 0:
            value += PENALTY + PENALTY_SLOPE * excess
    return value, change


def _summary(parts: dict, spec: TuneSpec) -> BlockResult:
    """Loss (summed over the tables) and mean total score (over every player of every table) of a block's
    frames, or of pooled ones (table name -> frame)."""
    tables = spec.tables()
    totals = parts[tables[0].name]["total"] if len(tables) == 1 else pd.concat([parts[t.name]["total"] for t in tables])
    return BlockResult(sum(t.loss(parts[t.name]) for t in tables), float(totals.mean()))


def pool(spec: TuneSpec, frames: list[dict]) -> dict:
    """Blocks' frames pooled per table (in the order given)."""
    return {t.name: pd.concat([f[t.name] for f in frames], ignore_index=True) for t in spec.tables()}


def reference(spec: TuneSpec, work: Path, jobs: int = 1, progress=None, **where) -> tuple[list[dict], dict]:
    """The base rules on every block: the frames and the base's numbers (mean totals per block)."""
    base = spec.base_rules()
    frames = []
    for b in range(spec.blocks):
        frames.append(play_blocks(spec, base, b, work, jobs, progress=progress, **where))
    pooled = _summary(pool(spec, frames), spec)
    summaries = [_summary(f, spec) for f in frames]
    info = {
        "block_loss": [r.loss for r in summaries],
        "block_mean_total": [r.mean_total for r in summaries],
        "loss": pooled.loss,
        "mean_total": pooled.mean_total,
    }
    return frames, info


def finished(study) -> list:
    from optuna.trial import TrialState

    return study.get_trials(deepcopy=False, states=(TrialState.COMPLETE, TrialState.PRUNED))


def add_base_trial(study, spec: TuneSpec, info: dict, seconds: float) -> None:
    """Trial 0: the base rules, from the reference games (when every base value is inside its range)."""
    optuna = _quiet_optuna()
    if any(not p.lo <= p.base <= p.hi for p in spec.params):
        return
    values = {p.name: p.base for p in spec.params}
    study.add_trial(
        optuna.trial.create_trial(
            params=values,
            distributions=distributions(spec),
            value=info["loss"],
            intermediate_values=dict(enumerate(info["block_loss"])),
            user_attrs={
                "base": True, "played": values, "changed": [], "loss": info["loss"], "value": info["loss"],
                "mean_total": info["mean_total"], "mean_total_change": 0.0, "games": spec.games,
                "blocks": spec.blocks, "seconds": seconds,
                "train_seconds": study.user_attrs.get("reference_train_seconds", 0.0),
            },
        )
    )  # fmt: skip


def optimise(
    spec: TuneSpec,
    out: Path,
    work: Path,
    trials: int,
    resume: bool = False,
    jobs: int = 1,
    log: Callable[[str], None] = print,
    progress: Callable[[int, int, float, str], None] | None = None,
    **where,
):
    """Run the study until `trials` trials have finished (complete or pruned).  Returns the study.

    `progress(games done, games at most, games/s, label)` after every chunk of games; `where`: the runs'
    backend and scheduler (boardlab.experiments.simulate.run)."""
    study = open_study(spec, out, resume)
    t0 = time.perf_counter()
    fitted = ensure_weights(spec, spec.base_rules(), jobs, progress=_train_progress(progress, "base rules"), **where)
    if fitted:
        log(f"base rules: weights fitted under them in {fitted:.0f} s")
    _, info = reference(spec, work, jobs, **where)
    if "base" not in study.user_attrs:
        study.set_user_attr("base", info)
        study.set_user_attr("reference_seconds", round(time.perf_counter() - t0, 2))
        study.set_user_attr("reference_train_seconds", round(fitted, 2))
    if not finished(study):
        add_base_trial(study, spec, info, study.user_attrs.get("reference_seconds", 0.0))
    t_session = time.perf_counter()
    earlier = list(study.user_attrs.get("sessions", []))
    commit = git_commit()

    def record(played: int) -> None:
        # this session's line, rewritten after every trial: a session stopped by Ctrl-C, SIGTERM or kill -9
        # keeps the time and games of the trials it finished (the report's wall time sums the sessions)
        study.set_user_attr("sessions", [*earlier, {
            "ended": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
            "seconds": round(time.perf_counter() - t_session, 1), "games": played, "jobs": jobs,
            "trials": len(finished(study)), "git_commit": commit,
        }])  # fmt: skip

    try:
        _run_trials(study, spec, trials, info, work, jobs, log, progress, where, record)
    except KeyboardInterrupt:
        # Ctrl-C may land anywhere, also inside study.ask() or study.tell(): whatever trial this session left
        # RUNNING is marked FAIL on the way out (this process is the study's only writer)
        fail_running(study)
        raise
    return study


def _train_progress(progress, what: str):
    """The trainer's progress reported on the tuner's bar: no games of the study done, the label says which
    rules' weights are being fitted and how far."""
    if progress is None:
        return None

    def fit(done, total, rate, label):
        progress(0, total, rate, f"{what}: fitting weights, {label} {done:,}/{total:,}")

    return fit


def fail_running(study) -> None:
    """Mark every RUNNING trial of the study FAIL (an interrupted session's, or a killed one's on resume)."""
    import optuna

    storage = study._storage
    for t in study.get_trials(deepcopy=False, states=(optuna.trial.TrialState.RUNNING,)):
        storage.set_trial_state_values(t._trial_id, optuna.trial.TrialState.FAIL)


def _run_trials(study, spec, trials, info, work, jobs, log, progress, where, record) -> int:
    """Trials until `trials` have finished; returns the games this session played.  `record(games so far)`
    after every trial (the session's line in the study)."""
    played = 0
    while (k := len(finished(study))) < trials:
        budget = played + (trials - k) * spec.games

        def tick(done: int, rate: float, label: str, played=played, budget=budget) -> None:
            if progress:
                progress(played + done, budget, rate, label)

        trial, games = run_trial(study, spec, k, info, work, jobs, tick, **where)
        played += games
        record(played)
        best = best_trial(study)
        a = trial.user_attrs
        if "invalid" in a:
            log(f"trial {trial.number}: invalid rules ({a['invalid']})")
            continue
        what = (
            f"pruned ({a.get('pruned_by', 'wilcoxon')}) after {a['blocks']} of {spec.blocks} blocks"
            if trial.state.name == "PRUNED"
            else f"complete, raced better after {a['blocks']} of {spec.blocks} blocks"
            if a.get("raced") == "better"
            else "complete"
        )
        moves = ", ".join(f"{n}={a['played'][n]}" for n in a["changed"]) or "base"
        log(
            f"trial {trial.number}: loss {a['loss']:7.1f} pts², mean total {100 * a['mean_total_change']:+5.1f}%,"
            f" {what}; {moves}   (best: trial {best.number}, {best.user_attrs['loss']:.1f})"
        )
    return played


def run_trial(study, spec: TuneSpec, k: int, info: dict, work: Path, jobs: int, tick, **where) -> tuple[object, int]:
    """Ask trial k, play its blocks (reporting each, pruning when told) and tell the result.

    Any exception, Ctrl-C included, marks the trial FAIL before it propagates.  Returns the
    finished trial and the number of games it played."""
    from optuna.trial import TrialState

    run = restarts([t for t in finished(study) if not t.user_attrs.get("base")], cma_patience(spec))[-1]
    study.sampler = sampler(spec, k, run if spec.sampler == "cmaes" else 0)
    trial = study.ask(distributions(spec))
    t0, cpu0 = time.perf_counter(), time.process_time()
    try:
        played = limit_changes(list(spec.params), trial.params, spec.max_changes)
        excess = excess_changes(list(spec.params), trial.params, spec.max_changes)
        trial.set_user_attr("played", played)
        trial.set_user_attr("changed", [p.name for p in spec.params if played[p.name] != p.base])
        trial.set_user_attr("excess", excess)
        trial.set_user_attr("restart", run)
        try:
            rules = rules_for(spec.base_rules(), list(spec.params), played)
        except spec.game_def().rules_error as e:
            trial.set_user_attr("invalid", str(e))
            trial.set_user_attr("seconds", 0.0)
            study.tell(trial, INVALID)
            return study.trials[trial.number], 0
        fit = _train_progress(lambda d, t, rate, label: tick(0, rate, label), f"trial {trial.number}")
        trial.set_user_attr("train_seconds", round(ensure_weights(spec, rules, jobs, progress=fit, **where), 2))
        order = np.random.default_rng([spec.seed & 0xFFFFFFFF, k]).permutation(spec.blocks)
        # pruning only saves simulation: rules played before are evaluated whole, so a point asked twice
        # gets the same value twice
        may_prune = not all_cached(spec, rules, work)
        ref = Reference(spec, study, info, work) if may_prune and spec.stop_z > 0 else None
        if spec.race > 0 and ref is not None and ref.trial is not None:
            order = ref.first(order)
        frames: list[dict] = []
        told: list[float] = []
        pruned_by = raced = ""
        for step, b in enumerate(order):
            label = f"trial {trial.number}, block {step + 1}/{spec.blocks}"

            def block_tick(done, total, rate, step=step, label=label):
                tick(step * spec.block_total + done, rate, label)

            parts = play_blocks(spec, rules, int(b), work, jobs, progress=block_tick, **where)
            frames.append(parts)
            value, _ = _block_value(spec, _summary(parts, spec), info["block_mean_total"][b])
            told.append(value + EXCESS_PENALTY * excess)
            trial.report(told[-1], int(b))
            if not may_prune or step + 1 >= spec.blocks:
                continue
            seen = [int(x) for x in order[: step + 1]]
            if ref is not None and ref.trial is not None and step + 1 >= 2:
                mine = pooled_value(spec, frames, seen, info) + EXCESS_PENALTY * excess
                best = ref.pooled(seen)
                kind, reason = sequential_stop(told, ref.block_values(seen), mine, best, spec.stop_z, spec.race)
                if kind:
                    trial.set_user_attr("stopped", f"{reason} (best: trial {ref.trial.number})")
                    if kind == "better":  # told complete, its value on the best's scale: the new best
                        raced, estimate = kind, ref.trial.value + mine - best
                        break
                    pruned_by = "stop-z" if kind == "worse" else "race"
                    break
            if trial.should_prune():
                pruned_by = "wilcoxon"
                break
        res = _summary(pool(spec, frames), spec)
        base_mean = float(np.mean([info["block_mean_total"][b] for b in order[: len(frames)]]))
        value, change = _block_value(spec, res, base_mean)
        loss_played = res.loss
        if raced:  # the best's value plus the paired gap on the blocks both played; the loss moves with it
            shift = estimate - EXCESS_PENALTY * excess - value
            value, loss_played = value + shift, res.loss + shift
            trial.set_user_attr("raced", raced)
        elif pruned_by == "race":
            trial.set_user_attr("raced", "equivalent")
        games = sum(len(f[t.name]) // t.players for f in frames for t in spec.tables())
        for key, v in (
            ("loss", loss_played), ("value", value), ("mean_total", res.mean_total), ("mean_total_change", change),
            ("games", games), ("blocks", len(frames)), ("seconds", round(time.perf_counter() - t0, 2)),
            ("cpu_seconds", round(time.process_time() - cpu0, 3)),
        ):  # fmt: skip
            trial.set_user_attr(key, v)
        if pruned_by:
            trial.set_user_attr("pruned_by", pruned_by)
            study.tell(trial, state=TrialState.PRUNED)
        else:
            study.tell(trial, value + EXCESS_PENALTY * excess)
    except BaseException:
        if study._storage.get_trial(trial._trial_id).state == TrialState.RUNNING:  # not told yet
            study.tell(trial, state=TrialState.FAIL)
        raise
    return study.trials[trial.number], len(frames) * spec.block_total


def pooled_value(spec: TuneSpec, frames: list[dict], blocks: list[int], info: dict) -> float:
    """The value (loss plus any mean-total penalty) of the games of `frames`, seed blocks `blocks`, pooled."""
    base_mean = float(np.mean([info["block_mean_total"][b] for b in blocks]))
    return _block_value(spec, _summary(pool(spec, frames), spec), base_mean)[0]


def early_stop(mine: list[float], best: list[float], pooled_mine: float, pooled_best: float, z: float) -> str:
    """Why a trial should stop now ("" to go on): its pooled value so far is above the best trial's on the same
    blocks by more than `z` standard errors of the paired per-block difference (`mine`, `best`: the two trials'
    values block by block, in the same order; at least two blocks)."""
    return sequential_stop(mine, best, pooled_mine, pooled_best, z)[1]


def sequential_stop(
    mine: list[float], best: list[float], pooled_mine: float, pooled_best: float, z: float, margin: float = 0.0
) -> tuple[str, str]:
    """The early stop's decision after a block and why: ("worse", why) when the pooled gap (mine − best, on the
    same blocks) is above `z` standard errors of the paired per-block difference (:func:`early_stop`); with a
    race (`margin` > 0, points²) also ("better", why) when it is below −z standard errors, and ("equivalent",
    why) when gap ± z standard errors lies inside ±`margin`; ("", "") to go on."""
    n = len(mine)
    if z <= 0 or n < 2:
        return "", ""
    d = np.asarray(mine, dtype=float) - np.asarray(best, dtype=float)
    se = float(np.std(d, ddof=1)) / math.sqrt(n)
    gap = pooled_mine - pooled_best
    score = f"{abs(gap) / se:.1f}" if se > 0 else "infinitely many"
    seen = f"after {n} blocks: pooled value {pooled_mine:.1f} against the best's {pooled_best:.1f} on the same blocks"
    if gap > 0 and gap > z * se:
        return "worse", f"stopped {seen}, {score} standard errors of the paired block difference (--stop-z {z:g})"
    if margin <= 0:
        return "", ""
    if gap < 0 and -gap > z * se:
        return "better", f"raced {seen}, better by {score} standard errors of the paired block difference"
    if abs(gap) + z * se < margin:
        return (
            "equivalent",
            f"raced {seen}: the gap {gap:+.1f} ± {z:g} standard errors ({z * se:.1f}) inside ±{margin:g}",
        )
    return "", ""


class Reference:
    """The trial the early stop compares with: the complete trial of least told value (the WilcoxonPruner's
    best), its block values and its frames read back from the work directory as they are needed."""

    def __init__(self, spec: TuneSpec, study, info: dict, work: Path):
        done = [t for t in study.get_trials(deepcopy=False) if t.state.name == "COMPLETE" and t.value is not None]
        self.trial = min(done, key=lambda t: (t.value, t.number)) if done else None
        self.spec, self.info, self.work = spec, info, work
        self.frames: dict[int, dict] = {}
        if self.trial is not None:
            a = self.trial.user_attrs
            self.rules = rules_for(spec.base_rules(), list(spec.params), a.get("played", self.trial.params))
            self.excess = a.get("excess", 0)

    def first(self, order: np.ndarray) -> np.ndarray:
        """`order` with the blocks the best played first (a raced best played fewer than all), so that a race
        pairs on the best's own blocks as long as it can."""
        played = self.trial.intermediate_values
        return np.array([b for b in order if b in played] + [b for b in order if b not in played])

    def block_values(self, blocks: list[int]) -> list[float]:
        """The best's told values on `blocks`; a block a raced best did not play is played now (and cached)."""
        told = self.trial.intermediate_values
        return [told[b] if b in told else self.pooled([b]) for b in blocks]

    def pooled(self, blocks: list[int]) -> float:
        for b in blocks:
            if b not in self.frames:
                self.frames[b] = play_blocks(self.spec, self.rules, b, self.work)
        frames = [self.frames[b] for b in blocks]
        return pooled_value(self.spec, frames, blocks, self.info) + EXCESS_PENALTY * self.excess


def false_stop_rate(blocks: int, z: float, sims: int = 20_000, seed: int = 0) -> float:
    """Chance that a trial exactly as good as the best is stopped early at some look (after blocks 2..blocks-1):
    Monte Carlo over normal paired block differences, the pooled difference taken as their mean."""
    return stop_rates(blocks, z, sims=sims, seed=seed)["worse"]


def stop_rates(
    blocks: int, z: float, gap: float = 0.0, margin: float = 0.0, sims: int = 20_000, seed: int = 0
) -> dict[str, float]:
    """How often :func:`sequential_stop` ends a trial as "worse", "better" or "equivalent" (the first decision
    of the looks after blocks 2..blocks-1) when its true gap to the best is `gap` and the race's margin is
    `margin`, both in standard deviations of the paired block difference: Monte Carlo over normal differences,
    the pooled gap taken as their mean.  Without a race (`margin` 0) only "worse" is decided, which at
    `gap` 0 is :func:`false_stop_rate`.  At `gap` = ±`margin` the "equivalent" rate is the race's error of
    calling a trial as good as the best that is `margin` off it (:func:`false_equivalence_rate`: its largest)."""
    out = {"worse": 0.0, "better": 0.0, "equivalent": 0.0}
    if z <= 0:
        return out
    d = np.random.default_rng(seed).normal(size=(sims, blocks)) + gap
    kind = np.zeros(sims, dtype=int)  # 0: on, 1..3: as `out`'s keys
    for n in range(2, blocks):
        m = d[:, :n].mean(axis=1)
        se = d[:, :n].std(axis=1, ddof=1) / math.sqrt(n)
        rules = [(m > 0) & (m > z * se)]
        if margin > 0:
            rules += [(m < 0) & (-m > z * se), np.abs(m) + z * se < margin]
        for k, hit in enumerate(rules, start=1):
            kind[(kind == 0) & hit] = k
    return {name: float((kind == k).mean()) for k, name in enumerate(out, start=1)}


def false_equivalence_rate(blocks: int, z: float) -> float:
    """The race's error: the chance that a trial exactly a margin worse (or better) than the best is stopped as
    "equivalent", at its largest over margins of 1/4 to 5 standard deviations of the paired block difference
    (:func:`stop_rates`; about 6%, at a margin near one standard deviation, for 10 blocks and Z = 3)."""
    margins = (0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 3.0, 5.0)
    return max(stop_rates(blocks, z, side * m, m)["equivalent"] for m in margins for side in (1, -1))


def race_rates(spec: TuneSpec) -> dict[str, float]:
    """The race's error rates for the report: a trial as good as the best raced as better (at a margin of a
    quarter of the block difference's standard deviation, as in the measured studies), and one a margin off the
    best stopped as equivalent (:func:`false_equivalence_rate`)."""
    return {
        "better_when_as_good": stop_rates(spec.blocks, spec.stop_z, 0.0, 0.25)["better"],
        "equivalent_when_a_margin_off": false_equivalence_rate(spec.blocks, spec.stop_z),
    }


def best_trial(study):
    """The complete, valid trial whose played rules have the smallest value (loss plus any mean-total penalty; the
    sampler's nudge towards fewer sampled changes is left out: it says nothing about the rules played)."""
    done = [t for t in study.get_trials(deepcopy=False) if t.state.name == "COMPLETE" and "invalid" not in t.user_attrs]
    if not done:
        raise TuneError("no complete trial yet")
    return min(done, key=lambda t: (t.user_attrs.get("value", t.value), t.number))


# --- tables ------------------------------------------------------------------------------


def trials_table(study, spec: TuneSpec) -> pd.DataFrame:
    """One row per finished trial: state, played parameters, loss, games, pruned or not."""
    rows = []
    for t in finished(study):
        a = t.user_attrs
        state = "base" if a.get("base") else "invalid" if "invalid" in a else t.state.name.lower()
        row = {
            "trial": t.number,
            "state": state,
            "pruned": t.state.name == "PRUNED",
            "pruned_by": a.get("pruned_by", "wilcoxon") if t.state.name == "PRUNED" else "",
            "loss": a.get("loss", np.nan),
            "value": a.get("value", t.value if t.value is not None else np.nan),
            "games": a.get("games", 0),
            "blocks": a.get("blocks", 0),
            "mean_total": a.get("mean_total", np.nan),
            "mean_total_change_pct": 100 * a["mean_total_change"] if "mean_total_change" in a else np.nan,
            "changes": len(a.get("changed", [])),
            "sampled_excess": a.get("excess", 0),
            "cma_run": a.get("restart", 0),
            "seconds": a.get("seconds", np.nan),
            "cpu_seconds": a.get("cpu_seconds", np.nan),  # this process's CPU time (all of it with --jobs 1)
        }
        if spec.trains:
            row["train_seconds"] = a.get("train_seconds", 0.0)  # of "seconds": fitting the trial's weights
        if spec.race > 0:
            row["raced"] = a.get("raced", "")  # better (told complete, on the best's scale) or equivalent
        for p in spec.params:
            row[p.name] = a.get("played", t.params).get(p.name, t.params.get(p.name))
        for p in spec.params:
            row[f"sampled:{p.name}"] = t.params.get(p.name)
        rows.append(row)
    return pd.DataFrame(rows)


def best_rules(study, spec: TuneSpec) -> tuple[Rules, object]:
    t = best_trial(study)
    rules = rules_for(spec.base_rules(), list(spec.params), t.user_attrs["played"], name=f"{spec.rules_name}-tuned")
    return rules, t


def best_toml(rules: Rules, spec: TuneSpec, trial) -> str:
    """`rules` as a variant file (Rules.to_toml), headed by comments naming the changes."""
    played = trial.user_attrs["played"]
    lines = [f"# Tuned by `{COMMAND} tune scoring` from {spec.rules_name} (trial {trial.number}); changes:"]
    changed = [p for p in spec.params if played[p.name] != p.base]
    lines += [f"#   {p.name}: {p.base} -> {played[p.name]}" for p in changed] or ["#   none (the base is best)"]
    return "\n".join(lines) + "\n" + rules.to_toml()


def importances(study, spec: TuneSpec) -> pd.Series:
    """Optuna's parameter importance (PED-ANOVA) of the played values over the finished valid trials, a pruned
    trial with the value of the games it played (most trials are pruned; without them too few would remain)."""
    optuna = _quiet_optuna()
    done = [t for t in finished(study) if "invalid" not in t.user_attrs and "value" in t.user_attrs]
    d = optuna.distributions
    dists = {
        p.name: (d.IntDistribution if p.integer else d.FloatDistribution)(min(p.lo, p.base), max(p.hi, p.base))
        for p in spec.params
    }
    shadow = optuna.create_study(direction="minimize")
    for t in done:
        played = t.user_attrs["played"]
        shadow.add_trial(optuna.trial.create_trial(params=played, distributions=dists, value=t.user_attrs["value"]))
    try:
        imp = optuna.importance.get_param_importances(shadow)
    except (RuntimeError, ValueError, ZeroDivisionError):
        return pd.Series(dtype=float)
    return pd.Series(imp, dtype=float).reindex([p.name for p in spec.params]).fillna(0.0)


def table_kinds(spec: TuneSpec, table: Table) -> tuple[tuple[str, str], ...]:
    """(kind, column) of the verification rows of `table`: the agents' table per agent (and, with objective
    specialists, per seat of those games, as before seat tables existed), a seat table per seat ("seat 3p")."""
    if table.by == "seat":
        return ((f"seat {table.players}p", "seat"),)
    return (("agent", "agent"), ("seat", "seat")) if spec.objective == "specialists" else (("agent", "agent"),)


def verify_table(frames: dict[str, dict], spec: TuneSpec) -> pd.DataFrame:
    """Win share per agent and per seat (Wilson 95%) and mean total, for each rule set and table."""
    parts = []
    for label, by_table in frames.items():
        for table in spec.tables():
            df = by_table[table.name]
            parts += _verify_rows(spec, table, label, df)
    return pd.concat(parts, ignore_index=True)


def _verify_rows(spec: TuneSpec, table: Table, label: str, df: pd.DataFrame) -> list[pd.DataFrame]:
    parts = []
    games = len(df) // table.players
    for kind, column in table_kinds(spec, table):
        ws = win_share(df, column)
        if column == "agent":  # in seat order, as given
            ws = ws.set_index("agent").loc[list(dict.fromkeys(table.agents))].reset_index()
        tot = df.groupby(column, observed=True)["total"].mean()
        parts.append(
            pd.DataFrame(
                {
                    "rules": label,
                    "kind": kind,
                    "players": table.players,
                    "group": [spec.label(g) if column == "agent" else str(g) for g in ws[column]],
                    "games": games,
                    "n": ws["n"],
                    "win_pct": 100 * ws["win_share"],
                    "lo": 100 * ws["lo"],
                    "hi": 100 * ws["hi"],
                    "mean_total": ws[column].map(tot).to_numpy(),
                }
            )
        )
    return parts


# --- outputs -----------------------------------------------------------------------------


@dataclass
class Verification:
    games: int
    table: pd.DataFrame
    loss: dict  # label -> (loss, lo, hi)
    mean_total: dict  # label -> mean total


def verify(spec: TuneSpec, best: Rules, games: int, work: Path, jobs: int = 1, progress=None, **where) -> Verification:
    """Base and best on fresh seeds, `games` games in each table (the same seeds for both)."""
    frames = {}
    for label, rules in (("base", spec.base_rules()), ("best", best)):
        ensure_weights(spec, rules, jobs, **where)  # fitted by their trials (or a --resume's earlier session)
        frames[label] = {
            t.name: play_verification(spec, t, rules, games, work, jobs, progress=progress, **where)
            for t in spec.tables()
        }
    losses = {}
    for label, by_table in frames.items():
        lo, hi = bootstrap_tables(spec, by_table)
        losses[label] = (_summary(by_table, spec).loss, lo, hi)
    first = spec.tables()[0]
    return Verification(
        games=len(frames["base"][first.name]) // first.players,
        table=verify_table(frames, spec),
        loss=losses,
        mean_total={k: _summary(v, spec).mean_total for k, v in frames.items()},
    )


def bootstrap_tables(spec: TuneSpec, parts: dict, reps: int = BOOTSTRAP_REPS) -> tuple[float, float]:
    """95% percentile interval of the loss summed over the tables, each table's games resampled on its own."""
    rng = np.random.default_rng(spec.seed & 0xFFFF)
    total = sum(_bootstrap_reps(parts[t.name], [t.by], t.players, reps, rng) for t in spec.tables())
    lo, hi = np.percentile(total, [2.5, 97.5])
    return float(lo), float(hi)


def noise_floor_tables(spec: TuneSpec, parts: dict) -> float:
    """:func:`noise_floor` summed over the tables."""
    return sum(_noise(parts[t.name], t.by) for t in spec.tables())


def write_outputs(study, spec: TuneSpec, out: Path, work: Path, verification: Verification | None, about: dict) -> dict:
    """trials.csv, best.toml, verify.csv, the charts and REPORT.md in `out`, each written whole."""
    from boardlab.experiments import charts

    out = Path(out)
    trials = trials_table(study, spec)
    atomic_write_text(trials.to_csv(index=False, float_format="%.6g"), out / "trials.csv")
    rules, best = best_rules(study, spec)
    atomic_write_text(best_toml(rules, spec, best), out / "best.toml")
    base_info = study.user_attrs["base"]
    unnamed = rules_for(spec.base_rules(), list(spec.params), best.user_attrs["played"])  # as the trial played it
    blocks = sorted(best.intermediate_values)  # every block, but a raced best's own (no block replayed here)
    pooled = pool(spec, [play_blocks(spec, unnamed, b, work) for b in blocks])
    lo, hi = bootstrap_tables(spec, pooled)
    base_frames, _ = reference(spec, work)
    base_pooled = pool(spec, base_frames)
    blo, bhi = bootstrap_tables(spec, base_pooled)
    shares = verify_table({"base": base_pooled, "best": pooled}, spec)  # on the tuning games
    imp = importances(study, spec)
    charts.tune_loss_chart(trials, out / "loss.png", base_info["loss"])
    charts.importance_chart(imp, out / "importance.png")
    if verification is not None:
        atomic_write_text(verification.table.to_csv(index=False, float_format="%.4g"), out / "verify.csv")
        charts.before_after_chart(verification.table, out / "win_shares.png")
    summary = {
        "best_trial": best.number,
        "best_loss": best.user_attrs["loss"] if len(blocks) == spec.blocks else _summary(pooled, spec).loss,
        **({"best_blocks": len(blocks), "best_value": best.user_attrs["value"]} if len(blocks) < spec.blocks else {}),
        "best_loss_ci": [lo, hi],
        "base_loss": base_info["loss"],
        "base_loss_ci": [blo, bhi],
        "noise_floor": noise_floor_tables(spec, pooled),
        "changes": {p.name: [p.base, best.user_attrs["played"][p.name]] for p in spec.params},
        "false_prune_rate": false_prune_rate(spec.blocks, spec.prune_p, spec.prune_after),
        "false_stop_rate": false_stop_rate(spec.blocks, spec.stop_z),
        **({"race_rates": race_rates(spec)} if spec.race > 0 else {}),
        "agents_played": {t.name: list(dict.fromkeys(t.agents)) for t in spec.tables()},
        "tuning_shares": shares.round(4).to_dict(orient="records"),
    }
    text = report(study, spec, trials, best, rules, summary, imp, verification, about)
    atomic_write_text(text, out / "REPORT.md")
    atomic_write_text(json.dumps({**about, "spec": spec.to_json(), "summary": summary}, indent=1), out / "tune.json")
    return summary


def summary_text(summary: dict, best, verification: Verification | None) -> str:
    """What the command prints at the end: the best trial, its changes and the verification table."""
    changes = [f"{k} {_fmt(a)} -> {_fmt(b)}" for k, (a, b) in summary["changes"].items() if a != b]
    lo, hi = summary["best_loss_ci"]
    lines = [
        f"\nbest: trial {best.number} ({', '.join(changes) or 'the base'}); loss {summary['best_loss']:.1f} pts²"
        f" [{lo:.1f}, {hi:.1f}] on the tuning games{_raced_blocks(summary)}, base {summary['base_loss']:.1f}"
    ]
    if verification is not None:
        t = verification.table
        lines.append(f"verification, {verification.games:,} fresh games each: win % [95% Wilson], base -> best")
        for kind in dict.fromkeys(t["kind"]):
            sub = t[t["kind"] == kind]
            for g in dict.fromkeys(sub["group"]):
                a = sub[(sub["rules"] == "base") & (sub["group"] == g)].iloc[0]
                b = sub[(sub["rules"] == "best") & (sub["group"] == g)].iloc[0]
                lines.append(f"  {kind} {g:<16} {_ci(a.win_pct, a.lo, a.hi):>19} -> {_ci(b.win_pct, b.lo, b.hi)}")
        (bl, blo, bhi), (tl, tlo, thi) = verification.loss["base"], verification.loss["best"]
        lines.append(f"  loss {bl:.1f} [{blo:.1f}, {bhi:.1f}] -> {tl:.1f} [{tlo:.1f}, {thi:.1f}] pts²")
    return "\n".join(lines)


def _fmt(x) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)


def _ci(x: float, lo: float, hi: float, bold: bool = False) -> str:
    v = f"**{x:.1f}**" if bold else f"{x:.1f}"
    return f"{v} [{lo:.1f}, {hi:.1f}]"


def report(study, spec, trials, best, rules, summary, imp, verification, about) -> str:
    """REPORT.md: what was tuned, how, the best rules, their verification and the search's record."""
    parts = [
        _report_head(study, spec, about),
        _report_setup(spec, best),
        _report_result(spec, best, summary),
        _report_verification(verification),
        _report_search(spec, trials, summary, imp),
    ]
    return "\n".join(line for part in parts for line in part) + "\n"


def _report_head(study, spec, about) -> list[str]:
    sessions = study.user_attrs.get("sessions", [])
    tuning = sum(s["seconds"] for s in sessions) + study.user_attrs.get("reference_seconds", 0.0)
    jobs = sessions[-1]["jobs"] if sessions else "?"
    commits = sorted({x.get("git_commit", "unknown")[:7] for x in sessions if x.get("games")})
    ran = f" (trials played at commit {', '.join(commits)})" if commits else ""
    return [
        f"# Scoring tuned: {spec.rules_name}, {_players_text(spec)}, objective `{spec.objective}`",
        "",
        f"Command: `{about.get('command', '')}`  ",
        f"Commit: `{about.get('git_commit', 'unknown')}`{ran}; finished {about.get('finished', '')}.  ",
        f"Tuning wall time: **{tuning / 60:.1f} min** ({len(sessions)} session(s), the base's reference games "
        f"included) on this machine ({os.cpu_count()} cores, `--jobs {jobs}`); the verification took "
        f"{about.get('verify_seconds', 0.0) / 60:.1f} min more.",
        "",
    ]


def _players_text(spec) -> str:
    counts = list(dict.fromkeys(t.players for t in spec.tables()))
    return f"{', '.join(map(str, counts))} players"


def _report_setup(spec, best) -> list[str]:
    L = ["## What was tuned", "", f"Base rules `{spec.rules_name}`. {_loss_text(spec)}", ""]
    played = sorted({a for t in spec.tables() for a in t.agents})
    if spec.trains:
        rounds = ",".join(str(g) for g in spec.train_games)
        L += [
            "Agents as played, in every trial and the verification: "
            + ", ".join(f"`{a}`" for a in played)
            + ". Agents whose play depends on the rules (learned weights) play **weights fitted under each trial's"
            f" rules** (`--train {rounds} --train-seed {spec.train_seed}`: `{COMMAND} train --game {spec.game}"
            f" --rules FILE --seed {spec.train_seed} --games {rounds} --k {spec.train_k}` for every rule set a"
            " trial asked, kept in the weight cache by the rules' hash); the best's are the ones its verification"
            " played.",
            "",
        ]
    else:
        L += [
            "Agents as played, in every trial and the verification: "
            + ", ".join(f"`{a}`" for a in played)
            + f". Agents whose play depends on the rules (learned weights) are resolved under the base rules"
            f" `{spec.rules_name}` and play those in every trial (a trial's variant has no weights of its own);"
            " verify the chosen variant with weights trained under it"
            + (f" (`{COMMAND} train --game {spec.game} --rules best.toml`)." if spec.game_def().training else ".")
            + " With `--train` every trial fits its own.",
            "",
        ]
    if spec.allow_placeholders:
        L += [
            "Placeholder keys allowed (`--allow-placeholder`; the game marks them as not the designer's): "
            + ", ".join(f"`{a}`" for a in spec.allow_placeholders)
            + ". A change to them is the project's number, not one the rulebook can take as it is.",
            "",
        ]
    L += ["| parameter | range | base | best |", "|---|---|---|---|"]
    played = best.user_attrs["played"]
    for p in spec.params:
        mark = " **(changed)**" if played[p.name] != p.base else ""
        rng = f"{_fmt(p.lo)} .. {_fmt(p.hi)}{' (int)' if p.integer else ''}"
        L.append(f"| `{p.name}` | {rng} | {_fmt(p.base)} | {_fmt(played[p.name])}{mark} |")
    cons = []
    if spec.max_changes is not None:
        cons.append(f"at most {spec.max_changes} parameters move from the base (`--max-changes`)")
    if spec.keep_mean_total is not None:
        cons.append(f"the mean total score stays within ±{spec.keep_mean_total:g}% of the base's (`--keep-mean-total`)")
    return [*L, "", "Constraints: " + ("; ".join(cons) if cons else "none") + ".", ""]


def _loss_text(spec) -> str:
    """The loss of the study's objective, table by table, in words."""
    parts = []
    for t in spec.tables():
        if t.by == "agent":
            who = ", ".join(f"`{a}`" for a in spec.labels)
            parts.append(
                f"over the agents {who} in {t.block_games * spec.blocks:,} games at {t.players} players, seats rotated,"
                f" of (win share − {100 / t.players:.0f}%)²"
            )
        else:
            parts.append(
                f"over the seats of {t.block_games * spec.blocks:,} games at {t.players} players, every seat"
                f" `{t.agents[0]}`, of (win share − {100 / t.players:.0f}%)²"
            )
    return "Loss per trial, in points²: the sum " + "; plus the sum ".join(parts) + "."


def _raced_blocks(summary: dict) -> str:
    """Which games a raced best's loss is on (it played fewer blocks than a trial has)."""
    n = summary.get("best_blocks")
    if n is None:
        return ""
    value = summary["best_value"]
    return f"; the best raced: its {n} blocks (the race's value: {value:.1f}, the best it beat plus the gap)"


def _report_result(spec, best, summary) -> list[str]:
    changes = [f"`{k}` {_fmt(a)} → {_fmt(b)}" for k, (a, b) in summary["changes"].items() if a != b]
    best_loss = _ci(summary["best_loss"], *summary["best_loss_ci"])
    return [
        "## Result",
        "",
        f"Best: trial {best.number}, written to `best.toml` ({', '.join(changes) or 'no change: the base is best'}).",
        f"On the tuning games ({spec.games:,} per trial{_raced_blocks(summary)}) its loss is {best_loss}"
        f" pts² (95% bootstrap over games), the base's {_ci(summary['base_loss'], *summary['base_loss_ci'])}; its mean"
        f" total is {100 * best.user_attrs['mean_total_change']:+.1f}% from the base's. Sampling noise alone adds"
        f" about {summary['noise_floor']:.1f} pts² at this size, and the best of many trials on the same games is"
        " optimistic: the verification on fresh seeds is the number to quote.",
        "",
        *_shares_rows(pd.DataFrame(summary["tuning_shares"]), f"the tuning games, every block{_raced_blocks(summary)}"),
    ]


def _pairs(t: pd.DataFrame):
    """(row name, base row, best row) per agent and per seat of a verify_table frame, in its order."""
    for kind in dict.fromkeys(t["kind"]):
        sub = t[t["kind"] == kind]
        for g in dict.fromkeys(sub["group"]):
            a = sub[(sub["rules"] == "base") & (sub["group"] == g)].iloc[0]
            b = sub[(sub["rules"] == "best") & (sub["group"] == g)].iloc[0]
            yield (f"`{g}`" if kind == "agent" else f"seat {g}" if kind == "seat" else f"seat {g} ({kind[5:]})"), a, b


def _shares_rows(t: pd.DataFrame, games: str) -> list[str]:
    """The base's and the best's win share per agent and per seat, a markdown table (`games`: which games)."""
    L = [f"Win shares on {games} (base → best; 95% Wilson):", "", "| | base win % | best win % |", "|---|---|---|"]
    L += [f"| {name} | {_ci(a.win_pct, a.lo, a.hi)} | {_ci(b.win_pct, b.lo, b.hi)} |" for name, a, b in _pairs(t)]
    return [*L, ""]


def _report_verification(v: Verification | None) -> list[str]:
    if v is None:
        return ["No verification run (`--verify-games 0`).", ""]
    L = [
        f"### Verification: {v.games:,} fresh games for each rule set (the same seeds for both)",
        "",
        "![win shares before and after](win_shares.png)",
        "",
        "| | base win % [95% Wilson] | best win % [95% Wilson] | base mean total | best mean total |",
        "|---|---|---|---|---|",
    ]
    t = v.table
    for name, a, b in _pairs(t):
        L.append(
            f"| {name} | {_ci(a.win_pct, a.lo, a.hi)} | {_ci(b.win_pct, b.lo, b.hi, bold=True)} "
            f"| {a.mean_total:.1f} | {b.mean_total:.1f} |"
        )
    change = 100 * (v.mean_total["best"] / v.mean_total["base"] - 1)
    dev = {
        (kind, label): (sub["win_pct"] - 100 / sub["players"]).abs().max()
        for kind in dict.fromkeys(t["kind"])
        for label in ("base", "best")
        for sub in [t[(t["kind"] == kind) & (t["rules"] == label)]]
    }
    worst = "; ".join(
        f"per {kind}, {dev[(kind, 'base')]:.1f} → **{dev[(kind, 'best')]:.1f}**" for kind in dict.fromkeys(t["kind"])
    )
    return [
        *L,
        "",
        f"Largest deviation from {_fair_text(t)}, in points, base → best: {worst}.",
        "",
        f"Loss on the verification games: base {_ci(*v.loss['base'])}, best {_ci(*v.loss['best'], bold=True)} pts²;"
        f" mean total score {v.mean_total['base']:.1f} → {v.mean_total['best']:.1f} ({change:+.1f}%).",
        "",
    ]


def _fair_text(t: pd.DataFrame) -> str:
    counts = set(t["players"])
    return f"{100 / counts.pop():.0f}%" if len(counts) == 1 else "1/N"


def _report_search(spec, trials, summary, imp) -> list[str]:
    searched = trials[trials["state"] != "base"]
    pruned = searched[searched["pruned"]]
    n_invalid = int((searched["state"] == "invalid").sum())
    n_complete = len(searched) - len(pruned) - n_invalid
    outside = int(((searched["value"] >= PENALTY) & (searched["state"] != "invalid")).sum())
    saved = int(len(pruned) * spec.games - pruned["games"].sum())
    by = pruned["pruned_by"].value_counts() if "pruned_by" in pruned else pd.Series(dtype=int)
    stoppers = {"stop-z": "the early stop", "race": "the race (as good as the best)"}
    how = ", ".join(f"{int(n)} by {stoppers.get(k, 'the Wilcoxon pruner')}" for k, n in by.items())
    counts = f"{n_complete} complete, {len(pruned)} pruned{f' ({how})' if how else ''}, {n_invalid} invalid rule sets"
    if spec.keep_mean_total is not None:
        counts += f", {outside} outside the mean-total band"
    first = "the base as trial 0, " if (trials["state"] == "base").any() else ""
    if spec.prune_p > 0:
        prune = (
            f"Optuna's WilcoxonPruner, p < {spec.prune_p:g}, looking after each block from the {spec.prune_after}th"
            " (never after the last): a trial stops when a one-sided Wilcoxon signed-rank test on its block losses,"
            " paired with the best trial's on the same blocks, says it is worse. A trial exactly as good as the best is"
            f" pruned anyway with probability at most {100 * summary['false_prune_rate']:.1f}% (the repeated looks"
            f" raise the per-look {100 * spec.prune_p:g}%); one worse on every block stops after block"
            f" {max(spec.prune_after, _min_blocks_to_prune(spec.prune_p))}. Rules an earlier trial played in full are"
            " read back whole and not pruned, so a point asked twice gets the same value."
        )
    else:
        prune = "none (`--prune-p 0`)."
    if spec.stop_z > 0:
        stop = (
            f"after each block from the 2nd (never after the last), a trial stops when its pooled value so far is"
            f" above the best trial's on the same blocks by more than {spec.stop_z:g} standard errors of the paired"
            " per-block difference (`--stop-z`); complementary to the pruner, which needs its 5 blocks. A trial"
            f" exactly as good as the best is stopped anyway with probability about"
            f" {100 * summary.get('false_stop_rate', 0.0):.1f}% (normal block differences, Monte Carlo: few blocks"
            " give a noisy standard error, and every look is another chance); the reason is in `trials.csv`"
            " (`pruned_by`) and in the study."
        )
        if spec.race > 0:
            rates = summary["race_rates"]
            stop += (
                f" Raced (`--race {spec.race:g}`): a trial also stops when it is below the best by more than"
                f" {spec.stop_z:g} standard errors (told complete with the best's value plus the paired gap, it is"
                f" the new best; one as good as the best is raced so with probability about"
                f" {100 * rates['better_when_as_good']:.1f}%), or when its gap ± {spec.stop_z:g} standard errors lies"
                f" within ±{spec.race:g} points² of the best's (pruned, `pruned_by = race`; a trial exactly"
                f" {spec.race:g} off the best is stopped so with probability at most"
                f" {100 * rates['equivalent_when_a_margin_off']:.1f}%). A trial plays the blocks the best played"
                " first; `trials.csv`'s `raced` says which trials the race decided."
            )
    else:
        stop = "none (`--stop-z 0`)."
    if len(imp):
        ranked = ", ".join(f"`{k}` {v:.2f}" for k, v in imp.sort_values(ascending=False).items())
        importance = (
            "Parameter importance (Optuna's PED-ANOVA over the finished trials' played values, a pruned trial with"
            f" the loss of the games it played): {ranked}."
        )
    else:
        importance = "Parameter importance: too few complete trials to estimate it."
    return [
        "## The search",
        "",
        "![loss over trials](loss.png)",
        "",
        f"{len(trials)} trials ({first}{counts}); {int(searched['games'].sum()):,} games played by the search,"
        f" {saved:,} saved by pruning. Every trial plays the same {spec.blocks} seed blocks of"
        f" {spec.block_total:,} games (common random numbers), in an order shuffled per trial.",
        "",
        _sampler_text(spec, trials),
        f"- Pruner: {prune}",
        f"- Early stop: {stop}",
        "- `--max-changes`: every parameter is sampled; when more than K move from the base, only the K with the"
        " largest move relative to their range are played and the others return to the base (`trials.csv` lists"
        f" the played values, and the sampled ones as `sampled:`). The sampler is also told {EXCESS_PENALTY:g} points²"
        " per parameter sampled away from the base beyond K (`sampled_excess`), so that it learns to leave unneeded"
        " parameters at the base; the best trial is chosen on the played rules alone."
        if spec.max_changes is not None
        else "- No limit on the number of changed parameters.",
        "- `--keep-mean-total`: a trial outside the band gets a penalty larger than any loss, block by block, so"
        " the best trial and the pruner's reference are inside the band whenever any trial is."
        if spec.keep_mean_total is not None
        else "- No constraint on the score scale.",
        "",
        "![parameter importance](importance.png)",
        "",
        importance,
        "",
        f"Files: `best.toml` (a variant file: `{COMMAND} rules --game {spec.game} best.toml`,"
        f" `{COMMAND} simulate --game {spec.game} --rules best.toml`),"
        " `trials.csv` (every finished trial), `verify.csv`, `loss.png`, `importance.png`, `win_shares.png`,"
        " `tune.json`; the study itself is `study.db` (Optuna, SQLite).",
    ]


def _sampler_text(spec, trials=None) -> str:
    if spec.sampler == "cmaes":
        runs = int(trials["cma_run"].max()) + 1 if trials is not None and "cma_run" in trials else 1
        return (
            "- Sampler: Optuna's CMA-ES (with margin for integer parameters; a pruned trial counts with its last"
            " block's loss), started at the centre of the ranges and started afresh when a run's best has not"
            f" improved for {cma_patience(spec)} trials ({runs} run(s) here, `cma_run` in `trials.csv`); trial k's"
            " sampler is seeded from (seed, k), so an uninterrupted study replays identically."
        )
    return (
        f"- Sampler: Optuna's TPE, multivariate, the first {spec.n_startup} trials random; trial k's sampler is seeded"
        " from (seed, k), so the study replays identically and `--resume` continues it exactly."
    )


def _min_blocks_to_prune(p: float) -> int:
    """Fewest paired blocks at which the one-sided signed-rank test can reach p < `p` (its smallest p is 1/2^n)."""
    n = 2
    while 0.5**n >= p and n < 64:
        n += 1
    return n
