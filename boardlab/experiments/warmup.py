"""Compile a game's numba kernels as a phase of its own, announced, timed, before any play.

A command calls :func:`ensure_compiled` before its run: when numba's cache holds no index (``*.nbi``) for one of
the game's kernel modules (a first run, or a cache the guard in :mod:`boardlab.sim._cache` dropped after a
kernel source changed), it plays one tiny game in-process so every kernel those agents use is compiled (and
cached) before the run's clock starts, and once that game has lasted longer than loading cached kernels takes
(:data:`ANNOUNCE_AFTER`) it says on stderr what it compiles and about how long it takes.
``boardlab warmup`` does it ahead for every game and tier, spread over processes, and for the machine code the
game's other commands call outside its game loops (:data:`EXTRAS`: the public API's per-move players, self-play
training).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from boardlab.sim import _cache
from boardlab.sim.games import GameDef, get_game

#: one warm-up task: (game id, tier or None, agent specs or None)
Task = tuple[str, str | None, list[str] | None]

#: the warm-up's tasks beyond the game loops, for a game with kernels: what each compiles (its "tier" in a task)
EXTRAS = {
    "api": "the per-move players of the public API (the generic chunk player, Python agents beside built-in ones)",
    "train": "self-play training (train, tune scoring --train)",
}

SHIPPED = Path(__file__).resolve().parents[1] / "sim" / "compile_times.json"


def _times_path() -> Path:
    # BOARDLAB_COMPILE_TIMES: another table (the tests' private one); default: this machine's, beside the numba
    # cache (the shipped table is a source file, never written)
    custom = os.environ.get("BOARDLAB_COMPILE_TIMES")
    return Path(custom) if custom else _cache._cache_dirs()[0] / "boardlab-compile-times.json"


def compile_times() -> dict[str, float]:
    """Measured cold compile seconds per ``game`` or ``game/tier``: the shipped defaults, overridden by this
    machine's measurements (``warmup`` records them beside the numba cache).

    Returns
    -------
    dict[str, float]
        Key -> seconds; the shipped table alone when nothing was measured here.
    """
    table = {k: float(v) for k, v in _shipped().items()}
    try:
        table.update({k: float(v) for k, v in json.loads(_times_path().read_text()).items()})
    except (OSError, ValueError, AttributeError):
        pass
    return table


def _shipped() -> dict[str, float]:
    try:
        return json.loads(SHIPPED.read_text())
    except (OSError, ValueError):
        return {}


def record_compile_time(key: str, seconds: float) -> None:
    """Store one measured cold compile time in this machine's table (an unwritable place keeps none).

    Parameters
    ----------
    key : str
        ``game`` or ``game/tier``.
    seconds : float
        The measured compile seconds.
    """
    path = _times_path()
    try:
        table = json.loads(path.read_text())
    except (OSError, ValueError):
        table = {}
    if not isinstance(table, dict):
        table = {}
    table[key] = round(seconds, 1)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}")
        tmp.write_text(json.dumps(dict(sorted(table.items())), indent=1) + "\n")
        os.replace(tmp, path)
    except OSError:
        pass


def _cache_folder(src: Path) -> Path:
    custom = os.environ.get("NUMBA_CACHE_DIR")
    if custom:  # numba's folder for a source's kernels under NUMBA_CACHE_DIR
        from numba.core.caching import _CacheLocator

        return Path(custom) / _CacheLocator.get_suitable_cache_subpath(str(src))
    return src.parent / "__pycache__"


def indexed_modules(game: GameDef) -> dict[str, int]:
    """How many numba index files (``*.nbi``, one per cached kernel) each of the game's kernel modules has.

    Parameters
    ----------
    game : GameDef
        The game.

    Returns
    -------
    dict[str, int]
        Kernel source path (relative to the repository root) -> its cached kernels (0: none).
    """
    out = {}
    for name in game.kernels.sources if game.kernels is not None else ():
        src = _cache._ROOT / name
        if src.suffix == ".py" and src.exists() and "cache=True" in src.read_text():
            out[name] = sum(1 for _ in _cache_folder(src).glob(f"{src.stem}.*.nbi"))
    return out


def _cached_kernels(game: GameDef) -> int:
    """The game's cached machine-code files (``*.nbc``: one per kernel and signature)."""
    n = 0
    for name in indexed_modules(game):
        src = _cache._ROOT / name
        n += sum(1 for _ in _cache_folder(src).glob(f"{src.stem}.*.nbc"))
    return n


def _marker(game: GameDef, specs: list[str]) -> Path:
    digest = hashlib.sha1(json.dumps([game.id, sorted(set(specs))]).encode()).hexdigest()[:16]
    return _cache._cache_dirs()[0] / "boardlab-warm" / f"{game.id}-{digest}.json"


def _stamp() -> str:
    try:
        return (_cache._cache_dirs()[0] / _cache._STAMP).read_text()
    except OSError:
        return ""


def cold_modules(game: GameDef, agents: list[str] | None = None, recorded: bool = False) -> list[str]:
    """The kernel modules a run of `game` with `agents` would compile: empty when its kernels are cached.

    A run's kernels count as cached when a warm-up of the same game and agents (together, or each agent on its
    own) left its marker beside the cache under the current kernel stamp (:mod:`boardlab.sim._cache`) and every
    module that then held cached kernels still holds them; otherwise the game's modules without cached kernels
    are named (every kernel module when the cache is warm but was never warmed up for these agents).

    Parameters
    ----------
    game : GameDef
        The game.
    agents : list[str], optional
        Agent specs; default: the game's default agents.
    recorded : bool
        The game's recorded loop too (``Simulation.trajectory_player``): a marker counts only if its warm-up
        played that loop.

    Returns
    -------
    list[str]
        Kernel source paths (relative to the repository root).
    """
    _cache.ensure_fresh_cache()  # a stale cache is dropped first, so it counts as cold
    indexed = indexed_modules(game)
    specs = agents or game.agents().split_specs(game.ladder.default_agents)

    def warm(group: list[str]) -> bool:
        try:
            mark = json.loads(_marker(game, group).read_text())
            fresh = mark["stamp"] == _stamp() and all(indexed.get(m, 0) for m in mark["modules"])
            return fresh and (mark.get("recorded", False) or not recorded)
        except (OSError, ValueError, KeyError, TypeError):
            return False

    # these agents together, or each on its own (as `boardlab warmup` leaves a marker per tier)
    if warm(specs) or all(warm([s]) for s in dict.fromkeys(specs)):
        return []
    return [m for m, n in indexed.items() if not n] or list(indexed)


def _mark_warm(game: GameDef, specs: list[str], recorded: bool = False) -> None:
    path = _marker(game, specs)
    try:
        old = json.loads(path.read_text())
        recorded = recorded or (old.get("stamp") == _stamp() and bool(old.get("recorded")))  # kept until stale
    except (OSError, ValueError, AttributeError):
        pass
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}")
        modules = [m for m, n in indexed_modules(game).items() if n]
        tmp.write_text(json.dumps({"stamp": _stamp(), "modules": modules, "recorded": recorded}))
        os.replace(tmp, path)
    except OSError:
        pass


def estimate(key: str, game_id: str) -> float | None:
    """The measured compile seconds for `key` (``game/tier``), else for the game, else None.

    Parameters
    ----------
    key : str
        ``"game/tier"``.
    game_id : str
        The game's id.

    Returns
    -------
    float or None
        Seconds, from the committed compile times.
    """
    t = compile_times()
    return t.get(key, t.get(game_id))


def announce(game_id: str, what: str, seconds: float | None) -> str:
    """The one line that says what is compiled and why.

    Parameters
    ----------
    game_id : str
        The game's id.
    what : str
        What of it is compiled (text appended after "kernels").
    seconds : float or None
        The expected time (None: not said).

    Returns
    -------
    str
        The line.
    """
    about = f", about {seconds:.0f} s" if seconds else ""
    return f"compiling the {game_id} kernels{what}: first run on this machine or kernels changed{about}"


def kernel_specs(game: GameDef, specs: list[str]) -> list[str]:
    """The specs among `specs` whose play compiles kernels: Python agents (``py:``) are left out, so a
    warm-up never runs a user's code; when only Python agents remain, the game's default agents stand in
    (what the game's own API compiles for them).

    Parameters
    ----------
    game : GameDef
        The game.
    specs : list[str]
        Agent specs.

    Returns
    -------
    list[str]
        The specs to warm up with, in their order, never empty.
    """
    from boardlab.experiments.play import needs_api

    reg = game.agents()
    try:
        kept = [s for s in specs if not needs_api([reg.parse_agent(s)])]
    except reg.AgentError:  # the run itself reports a bad spec, in one line
        kept = list(specs)
    return kept or reg.split_specs(game.ladder.default_agents)


#: seconds the tiny game may take before the compile announcement is said: loading cached kernels takes less,
#: so a run whose kernels numba has cached (agents of other parameters than any warm-up saw) says nothing
ANNOUNCE_AFTER = 2.0


@contextlib.contextmanager
def _announced(line: str, log: Callable[[str], None] | None, t0: float) -> Iterator[threading.Event]:
    """Run the block; once it has lasted ANNOUNCE_AFTER seconds, say `line` through `log` (default: stderr,
    live with the elapsed time on a terminal) while it goes on.  Yields an event set once the line is said."""
    done, said = threading.Event(), threading.Event()

    def watch() -> None:
        if done.wait(ANNOUNCE_AFTER):
            return
        said.set()
        if log is None and sys.stderr.isatty():
            from rich.console import Console

            with Console(stderr=True).status(line) as status:
                while not done.wait(0.5):
                    status.update(f"{line} [{time.perf_counter() - t0:.0f} s]")
        else:
            (log or (lambda s: print(s, file=sys.stderr, flush=True)))(line)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        yield said
    finally:
        done.set()
        watcher.join()


def ensure_compiled(
    game: GameDef | str,
    agents: list[str] | None = None,
    players: int | None = None,
    rules=None,
    tier: str | None = None,
    log: Callable[[str], None] | None = None,
    force: bool = False,
    recorded: bool = False,
) -> dict:
    """Compile the kernels a run of `game` with `agents` uses when the cache lacks them, by playing one game.

    Parameters
    ----------
    game : GameDef or str
        The game or its id.
    agents : list[str], optional
        Agent specs (one per seat, or one for all); default: the game's default agents.
    players : int, optional
        Players of the tiny game; default: one per agent spec, else two (or the game's only counts).
    rules : optional
        A rule set; default: the game's default preset.
    tier : str, optional
        The tier's name, for the announcement and the compile-time table.
    log : callable(str), optional
        Where the announcement goes; default: stderr (a live elapsed time on a terminal).
    force : bool
        Play the tiny game even when the cache looks warm.
    recorded : bool
        Play it through the game's recorded loop too (``Simulation.trajectory_player``, the game-anatomy panel's),
        when the game has one.

    Returns
    -------
    dict
        ``compiled`` (bool: anything was missing), ``cold`` (the kernel files missing), ``seconds`` (compile time).
    """
    from boardlab.experiments import simulate as S

    g = get_game(game) if isinstance(game, str) else game
    specs = kernel_specs(g, agents or g.agents().split_specs(g.ladder.default_agents))
    player = g.optional("trajectory_player") if recorded else None
    cold = cold_modules(g, specs, player is not None)
    if not cold and not force:
        return {"compiled": False, "cold": [], "seconds": 0.0}
    before = _cached_kernels(g)
    rs = rules if rules is not None else g.load_rules(g.default_preset)
    lo, hi = g.players
    n = players or (len(specs) if lo <= len(specs) <= hi else max(lo, min(hi, 2)))
    key = f"{g.id}/{tier}" if tier else g.id
    line = announce(g.id, f" ({tier})" if tier else f" ({','.join(dict.fromkeys(specs))})", estimate(key, g.id))
    spec = S.make_spec(n, specs if len(specs) in (1, n) else specs[:1], 1, 0, rs, game=g)
    t0 = time.perf_counter()
    with _announced(line, log, t0) as said:
        S.play_chunk(spec, 0)
        if player is not None:
            parsed = spec.agent_specs()
            player(rs, n, parsed * n if len(parsed) == 1 else parsed, "fixed", 0, 0, 1)
    seconds = time.perf_counter() - t0
    compiled = _cached_kernels(g) > before  # numba cached machine code for a kernel or signature it compiled
    _mark_warm(g, specs, player is not None)
    if log is None and (compiled or said.is_set()):
        what = f"compiled the {g.id} kernels" if compiled else f"the {g.id} kernels were cached already:"
        print(f"{what} in {seconds:.1f} s", file=sys.stderr, flush=True)
    return {"compiled": compiled, "cold": cold, "seconds": seconds}


def tasks(games: list[GameDef], agents: list[str] | None = None, extras: bool = True) -> list[Task]:
    """The warm-up's units of work: (game id, tier or None, agent specs) for each game and tier (or `agents`), and,
    for a game whose fixed ladder pairs agents that are neither its default agents nor a tier (Citywright's mcts,
    which its own report plays too), a task ``ladder`` of those pairings' agents together; then, for a game with
    kernels, a task ``random`` of random agents alone where they are neither, and the tasks of :data:`EXTRAS`
    (``api``, and ``train`` where the game has a trainer; agent specs None).

    Parameters
    ----------
    games : list[GameDef]
        The games.
    agents : list[str], optional
        Agent specs to compile instead of every tier.
    extras : bool
        The tasks ``random`` and :data:`EXTRAS` too (``warmup --tiers-only``: not).

    Returns
    -------
    list[tuple[str, str | None, list[str] | None]]
        One task per game and tier (and ladder, and extra).
    """
    out: list[Task] = []
    for g in games:
        if agents:
            out.append((g.id, None, agents))
            continue
        tiers = g.tiers()
        out.append((g.id, None, None))
        out.extend((g.id, name, [spec]) for name, (spec, _desc) in tiers.items())
        paired = list(dict.fromkeys(s for _name, seats, _target in g.optional("pairings") or () for s in seats))
        known = {_agent_key(g, s) for s in (*g.agents().split_specs(g.ladder.default_agents),
                                             *(spec for spec, _ in tiers.values()))}  # fmt: skip
        if not {_agent_key(g, s) for s in paired} <= known:
            out.append((g.id, "ladder", paired))
        if not extras or g.kernels is None:  # (a pure-Python game has nothing to compile)
            continue
        # runs of random agents alone play a loop of their own (Cartographers' engine's random-game loop)
        if _has_agent(g, "random") and _agent_key(g, "random") not in known | {_agent_key(g, s) for s in paired}:
            out.append((g.id, "random", ["random"]))
        out.append((g.id, "api", None))
        if g.optional("trainer") is not None:
            out.append((g.id, "train", None))
    return out


def ensure_extra(game: GameDef | str, what: str) -> dict:
    """Compile the machine code one of :data:`EXTRAS` calls, when the cache lacks it: ``api`` plays one tiny
    game through the generic chunk player with the game's default agents as the public API's per-move players,
    and one through the public API itself (listing the moves, redealing, to the end);
    ``train`` plays one self-play round of four games and fits the weights (nothing is written).

    Parameters
    ----------
    game : GameDef or str
        The game or its id.
    what : str
        A key of :data:`EXTRAS`.

    Returns
    -------
    dict
        ``compiled`` (bool: anything was missing), ``cold`` (the kernel files missing), ``seconds`` (the time).
    """
    from boardlab.experiments import simulate as S
    from boardlab.experiments.play import play_table

    g = get_game(game) if isinstance(game, str) else game
    if what not in EXTRAS:
        raise ValueError(f"no warm-up task {what!r}: one of {', '.join(EXTRAS)}")
    marker = [f"<{what}>"]  # a marker of its own, beside the agents' (cold_modules, _mark_warm)
    cold = cold_modules(g, marker)
    if not cold:
        return {"compiled": False, "cold": [], "seconds": 0.0}
    before = _cached_kernels(g)
    rs = g.load_rules(g.default_preset)
    t0 = time.perf_counter()
    if what == "api":
        specs = g.agents().split_specs(g.ladder.default_agents)
        lo, hi = g.players
        n = len(specs) if lo <= len(specs) <= hi else max(lo, min(hi, 2))
        parsed = S.make_spec(n, specs if len(specs) in (1, n) else specs[:1], 1, 0, rs, game=g).agent_specs()
        play_table(g, rs, n, parsed * n if len(parsed) == 1 else parsed, "fixed", 0, 0, 1)
        api = g.new_game(n, rs, 0)  # what a Python agent and a script call (listings, redeals) to the end
        api.legal_moves()
        redealt = api.redeal(api.current, 0)
        getattr(redealt, "agent_moves", redealt.legal_moves)()  # (Citywright's full listing is long)
        while not api.done:
            api.apply(api.random_move())
        api.scores()
    else:
        trainer = g.require("trainer")
        trainer.train(0, (4,), k=trainer.default_k, ridge=trainer.default_ridge, jobs=1, backend="loky",
                      scheduler=None, progress=None, **({} if trainer.out_for is None else {"rules": rs}))  # fmt: skip
    seconds = time.perf_counter() - t0
    _mark_warm(g, marker)
    return {"compiled": _cached_kernels(g) > before, "cold": cold, "seconds": seconds}


def _has_agent(game: GameDef, spec: str) -> bool:
    """The game's registry parses `spec`."""
    reg = game.agents()
    try:
        reg.parse_agent(spec)
    except reg.AgentError:
        return False
    return True


def _agent_key(game: GameDef, spec: str) -> str:
    """An agent spec as the game parses it (``basic`` and the tier's spelled-out ``basic:...`` alike), or the text
    when it does not parse (the warm-up's run reports that)."""
    reg = game.agents()
    try:
        return str(reg.parse_agent(spec))
    except reg.AgentError:
        return spec


def batches(todo: list[Task], jobs: int) -> list[list[Task]]:
    """The warm-up's tasks shared out over `jobs` processes, each batch run in order in one process.

    A game's tiers share most of their kernels (the engine, the cheaper agents a search plays out with), so two
    processes compiling tiers of one game at once compile those twice. With at least as many games as
    processes, each game's tasks therefore stay together, and the games go to the processes largest first by
    their estimated compile time (the game's default agents' figure plus each tier's own, :func:`compile_times`:
    what the tier compiles after the tasks before it, nothing when it has no figure of its own), each to the
    process with the least work so far. With fewer games than processes (one game on two processes), every task is a
    batch of its own, as the processes free up.

    Parameters
    ----------
    todo : list of (game id, tier or None, agent specs or None)
        The tasks, as :func:`tasks` gives them.
    jobs : int
        Processes.

    Returns
    -------
    list of list of (game id, tier or None, agent specs or None)
        The batches, at most `jobs` of them when whole games are kept together; every task exactly once.
    """
    by_game: dict[str, list[Task]] = {}
    for t in todo:
        by_game.setdefault(t[0], []).append(t)
    if jobs <= 1:
        return [list(todo)] if todo else []
    if len(by_game) < jobs:
        return [[t] for t in todo]

    times = compile_times()

    def cost(game_id: str) -> float:
        # a tier's figure is what it compiles after its game's default agents, in the same process; a tier with
        # none of its own compiles nothing more (it reuses the kernels the tasks before it compiled)
        return sum(times.get(f"{g}/{tier}", 0.0) if tier else times.get(g, 1.0) for g, tier, _ in by_game[game_id])

    bins: list[list[Task]] = [[] for _ in range(jobs)]
    load = [0.0] * jobs
    for game_id in sorted(by_game, key=lambda g: (-cost(g), g)):
        k = min(range(jobs), key=lambda j: (load[j], j))
        bins[k].extend(by_game[game_id])
        load[k] += cost(game_id)
    return [b for b in bins if b]


def task_line(result: dict, elapsed: float) -> str:
    """The line ``boardlab warmup`` prints for a finished task.

    Parameters
    ----------
    result : dict
        :func:`run_task`'s result.
    elapsed : float
        Seconds since the warm-up started.

    Returns
    -------
    str
        E.g. ``  citadels/strong: compiled in 21.7 s (elapsed 40 s)``.
    """
    name = result["game"] + (f"/{result['tier']}" if result["tier"] else "")
    what = "compiled" if result["compiled"] else "already cached"
    return f"  {name}: {what} in {result['seconds']:.1f} s (elapsed {elapsed:.0f} s)"


def run_batch(batch: list[Task], started: float | None = None, report: str | None = None) -> list[dict]:
    """The tasks of one batch, in order, in this process (:func:`run_task` each), each one's line written as it
    finishes when `started` is given: appended to the file `report` (which the command's process forwards,
    :func:`run_batches`), else printed on stderr.

    Parameters
    ----------
    batch : list of (game id, tier or None, agent specs or None)
        The tasks.
    started : float, optional
        When the warm-up started (``time.time()``), for the lines' elapsed time; None: no lines.
    report : str, optional
        A file to append each finished task's line to (whole lines, flushed).

    Returns
    -------
    list of dict
        :func:`run_task`'s result per task, in order.
    """
    out = []
    for t in batch:
        out.append(run_task(*t))
        if started is not None:
            line = task_line(out[-1], time.time() - started)
            if report is None:
                print(line, file=sys.stderr, flush=True)
            else:
                with open(report, "a") as f:
                    f.write(line + "\n")
    return out


def run_batches(parts: list[list[Task]], jobs: int, log: Callable[[str], None]) -> list[dict]:
    """The batches on `jobs` worker processes (loky), each finished task's line passed to `log` as it comes
    (every half second); on a terminal a live line below them counts the tasks done and the elapsed time.

    Parameters
    ----------
    parts : list of list of (game id, tier or None, agent specs or None)
        The batches (:func:`batches`).
    jobs : int
        Worker processes.
    log : callable(str)
        Where the task lines go (printed above the live line on a terminal).

    Returns
    -------
    list of dict
        :func:`run_task`'s result per task, batches in the order they finished.
    """
    import tempfile
    import threading
    from contextlib import nullcontext

    from joblib import Parallel, delayed

    total = sum(len(b) for b in parts)
    started = time.time()
    with tempfile.TemporaryDirectory(prefix="boardlab-warmup-") as tmp:
        reports = [Path(tmp) / f"batch-{i}.log" for i in range(len(parts))]
        forwarded = [0] * len(parts)

        def forward(status) -> None:
            for i, path in enumerate(reports):
                try:
                    lines = path.read_text().split("\n")[:-1]  # whole lines only: the last may be half written
                except OSError:
                    continue
                for line in lines[forwarded[i] :]:
                    log(line)
                forwarded[i] = len(lines)
            if status is not None:
                status.update(f"warmup: {sum(forwarded)} of {total} done [{time.time() - started:.0f} s]")

        if sys.stderr.isatty():
            from rich.console import Console

            live = Console(stderr=True).status(f"warmup: 0 of {total} done")
        else:
            live = nullcontext()
        with live as status:
            done = threading.Event()

            def poll() -> None:
                while not done.wait(0.5):
                    forward(status)

            poller = threading.Thread(target=poll, daemon=True)
            poller.start()
            try:
                runs = Parallel(n_jobs=jobs, return_as="generator_unordered")(
                    delayed(run_batch)(b, started, str(r)) for b, r in zip(parts, reports, strict=True)
                )
                results = [r for batch in runs for r in batch]
            finally:
                done.set()
                poller.join()
            forward(status)
    return results


def run_task(game_id: str, tier: str | None, agents: list[str] | None) -> dict:
    """One warm-up task, in whatever process runs it (``boardlab warmup --jobs``): compile if cold, timed: the
    game's chunk player and its recorded loop (the game-anatomy panel's) with these agents, or one of
    :data:`EXTRAS` (:func:`ensure_extra`).

    Parameters
    ----------
    game_id : str
        The game.
    tier : str or None
        The tier's name (None: the game's default agents, or `agents`).
    agents : list[str] or None
        Agent specs.

    Returns
    -------
    dict
        ``game``, ``tier``, ``compiled``, ``seconds``.
    """
    t0 = time.perf_counter()
    g = get_game(game_id)
    if tier in EXTRAS and agents is None:
        r = ensure_extra(g, tier)
    else:
        r = ensure_compiled(g, agents, tier=tier, log=lambda line: None, recorded=True)
    seconds = time.perf_counter() - t0
    if r["compiled"]:
        record_compile_time(f"{g.id}/{tier}" if tier else g.id, r["seconds"])
    return {"game": g.id, "tier": tier, "compiled": r["compiled"], "seconds": round(seconds, 1)}
