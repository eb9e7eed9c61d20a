"""A game's learned weights, fitted by a seeded command: ``boardlab train --game ID``.

A game that fits weights for one of its agents (a learned value, say) names a :class:`Trainer` in
its ``GameDef.training.trainer``; the command parses and checks the options, then calls it.  The weights must
be a function of the options that decide them (seed, games per round, k, ridge, and with ``--rules``
the rule data), whatever ``--jobs`` or backend, so a committed weight file is regenerated exactly by the
command it names.  A game whose agents look weights up by the rules in play (``out_for``) fits them
under a variant with ``train --rules FILE`` and keeps them where its agents find them.

The built-in games fit a linear value by self-play with one skeleton, :class:`SelfPlay`: rounds of
self-play (round 0 by the game's rule-based agent, each later round by its searching agent with the
weights the round before produced), every decision a sample summed into least-squares moments per bucket,
and the ridge solution of the last round's moments::

    w[b] = (X'X + ridge * diag(X'X) + 1e-6 I)^-1 X'y        per bucket b

(ridge is relative to each feature's own scale; the small absolute term keeps a feature that never occurs
in a bucket at weight 0).  A game declares only what is its own: how one chunk of games is played and
sampled, its agent per round, its defaults and where its weights go.

**Deterministic given the seed, on any number of processes.**  Game g of round r has the seed
``game_seeds(round_seed(seed, r), g, g + 1)``; a round is cut into chunks of the game's ``chunk`` games
whatever the number of jobs or the backend, and the chunks' moments are added in chunk order.  The weights
are rounded to 9 significant digits before they are written or used, so the same command writes the same
file.
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from boardlab.experiments.executor import connect, map_chunks
from boardlab.sim.seeds import game_seeds

DEFAULT_RIDGE = 1e-3
MAX_K = 256


@dataclass(frozen=True)
class Trainer:
    """What ``train`` needs of a game.

    Attributes
    ----------
    what : str
        What is fitted, for the help and the log ("the strong agent's learned value").
    train : callable(seed, rounds, *, k, ridge, jobs, backend, scheduler, progress[, rules]) -> dict
        Self-play rounds (games per round) and the fit; the weight file's content, with ``"command"``
        (the canonical command that regenerates it) and ``"rounds"`` (per round: ``games``, ``agent``,
        ``mean_total``, ``r2``).  ``rules`` (a rule set) is passed only where ``out_for`` is set.
    write : callable(content, path)
        Writes the content whole (a temporary file, then a rename).
    default_out : Path
        The weight file the game's agent reads.
    default_k : int
        The searching agent's k in the self-play rounds.
    default_ridge : float
        The fit's ridge penalty by default (``train --ridge``).
    error : type[Exception]
        What ``train`` raises on options it cannot use (one line for the user).
    out_for : callable(rules) -> Path, optional
        Where the weights fitted under a rule set go (where the game's agents look them up for those
        rules); None: the game fits its weights under its default rules only (``--rules`` is refused).
    trained_with : callable(rules) -> dict or None, optional
        The training settings (``seed``, ``games``, ``k``, ``ridge``) of the weights the game's agents play
        under a rule set, None when none are trained; with ``out_for``, what lets ``tune scoring --train`` fit
        each trial's weights and reuse only those fitted as it would fit them.
    """

    what: str
    train: Callable[..., dict]
    write: Callable[[dict, Path], None]
    default_out: Path
    default_k: int
    error: type[Exception]
    out_for: Callable[[object], Path] | None = None
    default_ridge: float = DEFAULT_RIDGE
    trained_with: Callable[[object], dict | None] | None = None


class TrainError(ValueError):
    """Bad training parameters (one line)."""


# --- the moments and the fit ---------------------------------------------------------------------------------
@dataclass
class Moments:
    """Least-squares moments, per bucket or (``buckets`` None) of one set of samples.

    Attributes
    ----------
    xtx : numpy.ndarray
        float64[B, F, F] (float64[F, F] without buckets): the sum of x x'.
    xty : numpy.ndarray
        float64[B, F] (float64[F]): the sum of x y.
    yty : numpy.ndarray
        float64[B] (float64[1]): the sum of y^2.
    count : numpy.ndarray
        int64[B] (int64[1]): the samples.
    """

    xtx: np.ndarray
    xty: np.ndarray
    yty: np.ndarray
    count: np.ndarray

    @classmethod
    def zeros(cls, features: int, buckets: int | None = None) -> Moments:
        """No samples yet.

        Parameters
        ----------
        features : int
            Features per sample (F).
        buckets : int or None
            Buckets of samples (B); None: one set, the arrays without a bucket axis.

        Returns
        -------
        Moments
            Zero moments of that shape.
        """
        lead: tuple[int, ...] = () if buckets is None else (buckets,)
        n = 1 if buckets is None else buckets
        f = features
        return cls(np.zeros((*lead, f, f)), np.zeros((*lead, f)), np.zeros(n), np.zeros(n, dtype=np.int64))

    def add(self, other: Moments) -> None:
        """Add another set's moments to these (in place).

        Parameters
        ----------
        other : Moments
            Moments of the same shape.
        """
        self.xtx += other.xtx
        self.xty += other.xty
        self.yty += other.yty
        self.count += other.count


def round9(w: np.ndarray) -> np.ndarray:
    """The weights rounded to 9 significant digits (what is written and played).

    Parameters
    ----------
    w : numpy.ndarray
        float64 weights of any shape.

    Returns
    -------
    numpy.ndarray
        A float64 array of the same shape.
    """
    return np.array([float(f"{x:.9g}") for x in np.ravel(w)]).reshape(np.shape(w))


def ridge_solve(m: Moments, ridge: float) -> tuple[np.ndarray, np.ndarray]:
    """The ridge weights per bucket by numpy's solver, rounded, and each bucket's R^2 of the rounded weights.

    Feature 0 must be the constant 1.  A bucket without samples has weights 0 and R^2 NaN.

    Parameters
    ----------
    m : Moments
        The moments.
    ridge : float
        The ridge penalty, relative to each feature's scale.

    Returns
    -------
    w : numpy.ndarray
        float64[B, F] (float64[F] without buckets), rounded by :func:`round9`.
    r2 : numpy.ndarray
        float64[B] (float64[1]).
    """
    f = m.xty.shape[-1]
    xtx, xty = m.xtx.reshape(-1, f, f), m.xty.reshape(-1, f)
    w = np.zeros_like(xty)
    r2 = np.full(len(xty), np.nan)
    for b in range(len(xty)):
        c = int(m.count[b])
        if c == 0:
            continue
        a = xtx[b] + ridge * np.diag(np.diag(xtx[b])) + 1e-6 * np.eye(f)
        w[b] = round9(np.linalg.solve(a, xty[b]))
        mean = xty[b][0] / c
        sst = m.yty[b] - c * mean * mean
        sse = m.yty[b] - 2 * w[b] @ xty[b] + w[b] @ xtx[b] @ w[b]
        if sst > 0:
            r2[b] = 1 - sse / sst
    return w.reshape(m.xty.shape), r2


# --- where a game's weights go by the rules in play ----------------------------------------------------------
@dataclass(frozen=True)
class RuleWeights:
    """How a game's agents look their weights up by the rules in play: by a hash of the rules' data.

    Attributes
    ----------
    rules_hash : callable(rules) -> str
        The hash the weights fitted under a rule set are named by.
    default_hash : callable() -> str
        The hash of the rules the default weight file is fitted under.
    preset_hashes : callable() -> collection of str
        The hashes of the rule sets under which the agents play the default weight file.
    cached : callable(str) -> Path
        The weight cache's file for a hash (it may not exist).
    """

    rules_hash: Callable[[Any], str]
    default_hash: Callable[[], str]
    preset_hashes: Callable[[], Any]
    cached: Callable[[str], Path]


TRAINING_SETTINGS = ("seed", "games", "k", "ridge")  # what decides a weight file besides the rules


# --- a game's self-play training -----------------------------------------------------------------------------
@dataclass(frozen=True)
class SelfPlay:
    """A game's self-play training: what is its own; :meth:`train` and :meth:`trainer` are the skeleton.

    Attributes
    ----------
    name : str
        The game's name in messages.
    command : str
        The start of the canonical command (``boardlab train --game ID``).
    what : str
        What is fitted, for the help and the log.
    play : callable(rule_set, agent, weights, seeds, moments) -> numpy.ndarray
        One chunk of self-play at ``players`` seats: the games of `seeds` played by `agent` (the agent spec
        of :attr:`round_agent`) in every seat with `weights`, every decision's sample added to `moments`;
        returns the final totals int[G, players].
    round_agent : callable(r, k) -> str
        The agent spec that plays round r.
    load_rules : callable(name or rule set) -> rule set
        The game's rule loader.
    rules : str
        The rules the default weights are fitted under.
    players : int
        Players per self-play game.
    chunk : int
        Games per unit of work (fixes the order of the sums).
    features : tuple of str
        The value's features (feature 0 the constant 1).
    buckets : int or None
        Buckets of samples, each fitted on its own; None: one set.
    version : str
        The default weight file's version (its name).
    weights_dir : Path
        The folder of the game's committed weights.
    default_games : tuple of int
        Games per round by default.
    default_k : int
        The searching agent's k by default.
    searches : bool
        Whether the searching agent has a k (False: only k = 1, and neither command nor file names it).
    backends : tuple of str
        Where the self-play may run.
    settings : mapping
        Further settings the weight file records after ``ridge``.
    description : mapping
        What the weight file says of its fit after ``samples`` (``fit``, its buckets).
    solve : callable(moments, ridge) -> (weights, r2)
        The ridge fit: weights rounded by :func:`round9`, R^2 per bucket (NaN without samples).
    by_rules : RuleWeights or None
        Where weights fitted under a variant go; None: only the default rules are trained.
    """

    name: str
    command: str
    what: str
    play: Callable[..., np.ndarray]
    round_agent: Callable[[int, int], str]
    load_rules: Callable[[Any], Any]
    rules: str
    players: int
    chunk: int
    features: tuple[str, ...]
    buckets: int | None
    version: str
    weights_dir: Path
    default_games: tuple[int, ...]
    default_k: int = 1
    searches: bool = True
    backends: tuple[str, ...] = ("loky",)
    settings: Mapping[str, Any] = field(default_factory=dict)
    description: Mapping[str, Any] = field(default_factory=dict)
    solve: Callable[[Moments, float], tuple[np.ndarray, np.ndarray]] = ridge_solve
    by_rules: RuleWeights | None = None

    @property
    def owner(self) -> str:
        """The game's name in the possessive (a name ending in s takes an apostrophe alone)."""
        return self.name + ("'" if self.name.endswith("s") else "'s")

    @property
    def default_out(self) -> Path:
        """The weight file the game's agent reads under the default rules."""
        return self.weights_dir / f"{self.version}.json"

    def zeros(self) -> Moments:
        """Zero moments of this game's shape.

        Returns
        -------
        Moments
            Sums over no samples, for ``len(features)`` features (per bucket when the game has buckets).
        """
        return Moments.zeros(len(self.features), self.buckets)

    def no_weights(self) -> np.ndarray:
        """The weights round 0 is given (zeros; its agent reads none).

        Returns
        -------
        numpy.ndarray
            float64 zeros, shape ``(features,)``, or ``(buckets, features)`` for a game with buckets.
        """
        f = len(self.features)
        return np.zeros(f if self.buckets is None else (self.buckets, f))

    # --- the parts of a training run ---
    def play_chunk(
        self, seed: int, r: int, k: int, weights: np.ndarray, start: int, stop: int, rules: Any = None
    ) -> tuple[Moments, np.ndarray]:
        """Games start..stop-1 of round r under `rules` (None: the default rules).

        Parameters
        ----------
        seed : int
            The training seed.
        r : int
            The round.
        k : int
            The searching agent's k.
        weights : numpy.ndarray
            The weights the round plays with.
        start, stop : int
            The games.
        rules : rule set, optional
            A variant's rules; None plays the default ones (by name).

        Returns
        -------
        moments : Moments
            The games' samples.
        totals : numpy.ndarray
            Their final totals, int[G, players].
        """
        rule_set = self.load_rules(self.rules if rules is None else rules)
        seeds = game_seeds(round_seed(seed, r), start, stop)
        m = self.zeros()
        totals = self.play(rule_set, self.round_agent(r, k), weights, seeds, m)
        return m, totals

    def fit(self, m: Moments, ridge: float = DEFAULT_RIDGE) -> tuple[np.ndarray, dict]:
        """The weights of the moments and the fit's figures.

        Parameters
        ----------
        m : Moments
            The last round's moments.
        ridge : float
            The ridge penalty.

        Returns
        -------
        weights : numpy.ndarray
            float64[B, F] (float64[F] without buckets), rounded to 9 significant digits.
        figures : dict
            ``samples`` (per bucket, or one number) and ``r2`` (per bucket, None where undefined).
        """
        w, r2 = self.solve(m, float(ridge))
        counts = [int(c) for c in m.count]
        return w, {
            "samples": counts[0] if self.buckets is None else counts,
            "r2": [None if np.isnan(x) else round(float(x), 4) for x in r2],
        }

    def command_line(self, seed: int, games: tuple[int, ...], k: int, ridge: float, variant: bool = False) -> str:
        """The canonical training command: what decides the weights, not --jobs or --out; under a variant, FILE
        is any file of its rules (the weight file's ``rules_data``).

        Parameters
        ----------
        seed : int
            The training seed.
        games : tuple of int
            Games per round.
        k : int
            The searching agent's k (named only where it has one).
        ridge : float
            The ridge penalty.
        variant : bool
            Whether the weights are fitted under a variant.

        Returns
        -------
        str
            The command.
        """
        rules = "--rules FILE " if variant else ""
        search = f" --k {k}" if self.searches else ""
        g = ",".join(str(x) for x in games)
        return f"{self.command} {rules}--seed {seed} --games {g}{search} --ridge {ridge:g}"

    def variant_key(self, rules: Any) -> str | None:
        """The hash that names weights fitted under `rules`; None for the default rules (or None).

        Parameters
        ----------
        rules : rule set or None
            The rules.

        Returns
        -------
        str or None
            The rules' hash where they are a variant.
        """
        if rules is None:
            return None
        if self.by_rules is None:
            raise TrainError(f"--rules: {self.owner} training fits its weights under its default rules only")
        key = self.by_rules.rules_hash(rules)
        return None if key == self.by_rules.default_hash() else key

    def out_for(self, rules: Any) -> Path:
        """Where the weights fitted under `rules` go: the committed file for the default rules, else the cache.

        Parameters
        ----------
        rules : rule set
            The rules.

        Returns
        -------
        Path
            The weight file.
        """
        key = self.variant_key(rules)
        return self.default_out if key is None else self._cached(key)

    def trained_with(self, rules: Any) -> dict | None:
        """The training settings of the weights ``weights=auto`` plays under `rules`: the committed file under a
        preset, else the cache's file of the rules' hash.

        Parameters
        ----------
        rules : rule set
            The rules.

        Returns
        -------
        dict or None
            ``seed``, ``games``, ``k``, ``ridge`` of the file; None when the cache has none.
        """
        if self.by_rules is None:
            return None
        key = self.by_rules.rules_hash(rules)
        path = self.default_out if key in self.by_rules.preset_hashes() else self._cached(key)
        try:
            head = json.loads(path.read_text())
        except FileNotFoundError:
            return None
        return {name: head[name] for name in TRAINING_SETTINGS}

    def _cached(self, key: str) -> Path:
        assert self.by_rules is not None
        return self.by_rules.cached(key)

    def check(self, games: tuple[int, ...], k: int, ridge: float, backend: str) -> None:
        """The options checked before any game is played: TrainError, one line, on the first one that is off.

        Parameters
        ----------
        games : tuple of int
            Games per round.
        k : int
            The searching agent's k.
        ridge : float
            The ridge penalty.
        backend : str
            Where the self-play runs.
        """
        if not games or any(g < 1 for g in games):
            raise TrainError(f"--games: one positive number of games per round, got {games}")
        if not self.searches and k != 1:
            raise TrainError(f"--k: {self.owner} strong searches no k best moves (only 1 is accepted), got {k}")
        if not 1 <= k <= MAX_K:
            raise TrainError(f"--k must be in 1..{MAX_K}, got {k}")
        if not 0 <= ridge < float("inf"):
            raise TrainError(f"--ridge must be >= 0, got {ridge}")
        if backend not in self.backends:
            if self.backends == ("loky",):
                raise TrainError(f"--backend: {self.owner} training runs on local processes only (loky), got {backend}")
            raise TrainError(f"--backend must be {' or '.join(self.backends)}, got {backend}")

    # --- the skeleton ---
    def train(
        self,
        seed: int,
        games: tuple[int, ...] | None = None,
        k: int | None = None,
        ridge: float = DEFAULT_RIDGE,
        jobs: int = 1,
        progress: Callable[[int, int, float, str], None] | None = None,
        backend: str = "loky",
        scheduler: str | None = None,
        rules: Any = None,
    ) -> dict:
        """Every round of self-play and its fit; the weight file's content (JSON types).

        Parameters
        ----------
        seed : int
            The training seed: every game of every round comes from it.
        games : tuple of int, optional
            Games per round (default: the game's).
        k : int, optional
            The searching agent's k (default: the game's).
        ridge : float
            The ridge penalty, relative to each feature's scale.
        jobs : int
            Worker processes with the loky backend.
        progress : callable(done, total, rate, label), optional
            Called after each chunk: games done, games in all, games per second, the round.
        backend : str
            ``loky`` or, where the game allows it, ``dask``.
        scheduler : str or None
            The Dask scheduler (None: a local cluster).
        rules : rule set, optional
            A variant to fit the weights under (games with :attr:`by_rules`); None or the default rules'
            data: the default rules.

        Returns
        -------
        dict
            The weight file's content, for :func:`write_weights`.

        Raises
        ------
        TrainError
            Options it cannot use, or a Dask scheduler it cannot reach (before any game is played).
        """
        games = tuple(int(g) for g in (self.default_games if games is None else games))
        k = self.default_k if k is None else int(k)
        self.check(games, k, ridge, backend)
        key = self.variant_key(rules)
        play_rules = rules if key is not None else None  # the default rules play by name
        client = connect(scheduler, TrainError) if backend == "dask" else None
        try:
            rounds, weights = self._rounds(seed, games, k, ridge, jobs, progress, backend, client, play_rules)
        finally:
            if client is not None:
                client.close()
        cmd = self.command_line(seed, games, k, ridge, key is not None)
        head: dict[str, Any] = {"version": self.version, "command": cmd, "seed": seed, "rules": self.rules}
        if key is not None:  # named by the rules' hash, as weights=auto looks them up
            head.update(version=key, rules=rules.name, rules_hash=key)
        samples = rounds[-1]["samples"]
        return {
            **head,
            "players": self.players,
            "games": list(games),
            **({"k": k} if self.searches else {}),
            "ridge": ridge,
            **self.settings,
            "samples": samples if self.buckets is None else int(sum(samples)),
            **self.description,
            "features": list(self.features),
            "rounds": rounds,
            **({"rules_data": {n: v for n, v in rules.data.items() if n != "name"}} if key is not None else {}),
            "weights": weights.tolist(),
        }

    def _rounds(self, seed, games, k, ridge, jobs, progress, backend, client, rules) -> tuple[list, np.ndarray]:
        total = sum(games)
        done = 0
        t0 = time.perf_counter()
        weights = self.no_weights()
        rounds = []
        for r, n in enumerate(games):
            agent = self.round_agent(r, k)

            def tick(chunk: tuple[int, int], _result, label=f"round {r} ({agent})") -> None:
                nonlocal done
                done += chunk[1] - chunk[0]
                if progress:
                    progress(done, total, done / max(time.perf_counter() - t0, 1e-9), label)

            m = self.zeros()
            mean_total = 0.0
            work = functools.partial(_play_chunk, self, seed, r, k, weights, rules)
            for cm, totals in map_chunks(work, chunks(n, self.chunk), jobs, backend, progress=tick, client=client):
                m.add(cm)  # in chunk order
                mean_total += float(totals.sum())
            weights, figures = self.fit(m, ridge)
            rounds.append({"agent": agent, "games": n, "mean_total": round(mean_total / (n * self.players), 3),
                           **figures})  # fmt: skip
        return rounds, weights

    def trainer(self) -> Trainer:
        """The game's :class:`Trainer` (its ``GameDef.training.trainer``).

        Returns
        -------
        Trainer
            ``train`` over this declaration.
        """
        return Trainer(
            what=self.what,
            train=self.train,
            write=write_weights,
            default_out=self.default_out,
            default_k=self.default_k,
            error=TrainError,
            out_for=None if self.by_rules is None else self.out_for,
            default_ridge=DEFAULT_RIDGE,
            trained_with=None if self.by_rules is None else self.trained_with,
        )


def round_seed(seed: int, r: int) -> int:
    """The run seed of round r's games (a SplitMix64 output of the training seed).

    Parameters
    ----------
    seed : int
        The training seed.
    r : int
        The round.

    Returns
    -------
    int
        The seed of the round's game seeds.
    """
    return int(game_seeds(seed, r, r + 1)[0])


def chunks(n: int, size: int) -> Iterator[tuple[int, int]]:
    """Games 0..n-1 cut into chunks of `size` consecutive games (the last one shorter).

    Parameters
    ----------
    n : int
        Games.
    size : int
        Games per chunk.

    Returns
    -------
    iterator of (int, int)
        Each chunk's start and stop.
    """
    return ((a, min(a + size, n)) for a in range(0, n, size))


def _play_chunk(selfplay: SelfPlay, seed, r, k, weights, rules, chunk: tuple[int, int]):
    """One chunk's work, as the executor calls it (a module-level function: worker processes get it pickled)."""
    return selfplay.play_chunk(seed, r, k, weights, *chunk, rules)


def write_weights(content: dict, out: Path) -> None:
    """The weight file: metadata first, then the weights one bucket (or one weight) per line, written whole.

    Parameters
    ----------
    content : dict
        What :meth:`SelfPlay.train` returns.
    out : Path
        The file; its missing folders are created (a weight cache's folder, on first use); it is written
        under a temporary name, then renamed.
    """
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    head = {key: v for key, v in content.items() if key != "weights"}
    text = json.dumps(head, indent=1)[:-2] + ',\n "weights": [\n'
    text += ",\n".join("  " + json.dumps(row) for row in content["weights"]) + "\n ]\n}\n"
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_text(text)
    tmp.replace(out)
