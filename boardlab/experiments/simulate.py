"""`boardlab simulate`: many games in parallel, reproducible, resumable, Parquet out.

A run is cut into chunks of consecutive games.  Each chunk is a pure function
of the run's parameters and its index (:func:`run_chunk`),
so it gives the same rows on any process, machine or backend.  Finished chunks are
written atomically (temporary file + rename) into ``OUT.parts/`` beside the
output, as Arrow IPC files: writing one is little more than a copy, and reading
it back is a memory map, so the only encoding a row goes through is the final
Parquet file's.  A run that stops for any reason is continued with ``--resume``,
which computes only the missing chunks.  When every chunk is there they are
streamed, in game order, into ``OUT`` (zstd Parquet, one row group per chunk,
written whole to a temporary file, then renamed), the run's metadata goes into
the Parquet file and a sidecar ``OUT.json``, and the parts are removed.

With ``--jobs 1`` the chunks are played in game order, so that encoding need not wait
for the end: :class:`_StreamedAssembly` hands each played chunk to one background
thread, which makes its tables, writes its parts and encodes it into the final file
(inside ``OUT.parts/`` until complete) while the next chunk plays; the game kernels
release the GIL.  That thread is the only one the process adds (still one level of
parallelism: it does table building and I/O encoding, never games).  The file is the
same, byte for byte, as :func:`_assemble` writes after the run, which is what runs
with several jobs (chunks in any order) use.
"""

from __future__ import annotations

import base64
import datetime as _dt
import functools
import itertools
import json
import os
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from boardlab.experiments.isolation import AgentFailure, Isolation
from boardlab.experiments.play import needs_api, play_table
from boardlab.experiments.provenance import git_commit, package_version
from boardlab.experiments.schema import conform, plain_columns, schema_of
from boardlab.experiments.seating import SEATINGS
from boardlab.sim.games import GameDef, default_game, get_game

# The key of a result file's run metadata (in the Parquet file's key-value metadata); files written while
# the toolkit hosted one game used the second, and are read as well.
METADATA_KEY = b"boardlab"
METADATA_KEYS = (METADATA_KEY, b"citywright")
# Parts are uncompressed Arrow IPC: about 170 bytes a row on disk until the run is
# assembled (a 1M-game 4-player run holds ~0.7 GB of parts at its end), in exchange
# for writes and reads that cost next to nothing beside the kernels.
PART_COMPRESSION = None
# Games per chunk for a game that declares no chunk-size rule (GameDef.chunk_size).
DEFAULT_CHUNK = 100
# Game numbers are int64 in every table.
MAX_GAMES = 2**62
# Run seeds are SplitMix64 states: 0..2**64-1.
MAX_SEED = 2**64 - 1


class SimulateError(ValueError):
    """A run that cannot start or continue; one line for the user."""


@dataclass(frozen=True)
class RunSpec:
    """Everything that decides a run's rows (what --resume must match)."""

    players: int
    agents: tuple[str, ...]
    games: int
    seed: int
    rules: str  # canonical JSON of the rule set
    rules_name: str
    seating: str
    chunk_size: int
    moves: bool
    game: str = field(default_factory=default_game)
    tiers: tuple[str, ...] = ()  # per agent: the tier name it was given by, or ""
    # per Python agent (py:module:Name), the version of its code (boardlab.experiments.play): a resumed run with other
    # code would mix two agents' games
    agent_versions: tuple[tuple[str, str], ...] = ()

    def to_json(self) -> dict:
        """Plain JSON types (what the manifest stores and --resume compares)."""
        return json.loads(json.dumps(asdict(self)))

    def game_def(self) -> GameDef:
        """The run's game (a spec is plain data: it names its game by id, as the manifest stores it)."""
        return get_game(self.game)

    def agent_specs(self) -> list:
        return [self.game_def().agents().parse_agent(a) for a in self.agents]

    def rule_set(self):
        return _rule_set(self.game, self.rules)

    @property
    def n_chunks(self) -> int:
        return (self.games + self.chunk_size - 1) // self.chunk_size

    def bounds(self, i: int) -> tuple[int, int]:
        return i * self.chunk_size, min((i + 1) * self.chunk_size, self.games)


# Games per chunk when a Python agent plays (boardlab.experiments.play: milliseconds to seconds per game).
PYTHON_CHUNK = 20


def default_chunk_size(game: GameDef, agents: list, games: int) -> int:
    """Games per chunk of a run of these parsed agents: PYTHON_CHUNK when a Python agent plays (through the
    public API), else the game's rule (GameDef.chunk_size), or DEFAULT_CHUNK."""
    if needs_api(agents):
        return max(1, min(PYTHON_CHUNK, games))
    if game.has("chunk_size"):
        return int(game.part("chunk_size")(agents, games))
    return max(1, min(DEFAULT_CHUNK, games))


# A draw pool's size limit: a sanity bound (a ladder of more agents needs more games than it is worth);
# the draw itself is uniform to within pool / 2**64 for any size (boardlab.experiments.seating.draw_orders).
MAX_POOL = 32


def make_spec(
    players: int,
    agents: list[str],
    games: int,
    seed: int,
    rules,
    seating: str = "rotate",
    chunk_size: int | None = None,
    moves: bool = False,
    game: GameDef | str | None = None,
    resolve: bool = True,
) -> RunSpec:
    """A checked run of `game` (its definition, resolved at the command's edge; an id is looked up here;
    None: the registry's default game).  SimulateError, one line, on anything the run cannot do.

    `resolve`: the agents as they play under `rules` (the registry's ``for_rules``: Citywright's
    ``weights=auto`` made the rules' weights, an error when there are none); False keeps the specs as given,
    for a caller that checks them before their rules' weights exist (``tune scoring --train``)."""
    g = get_game(game if game is not None else default_game())
    lo, hi = g.players
    if not lo <= players <= hi:
        raise SimulateError(f"--players must be {lo}..{hi} for {g.id}, got {players}")
    why = g.players_error(players, rules)
    if why is not None:
        raise SimulateError(f"--players: {why}")
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or not 0 <= int(seed) <= MAX_SEED:
        raise SimulateError(f"--seed must be 0..{MAX_SEED} (2**64 - 1), got {seed!r}")
    if moves and not g.has("move_log"):
        raise SimulateError(f"--moves: {g.id} has no move log")
    if not 1 <= games <= MAX_GAMES:
        raise SimulateError(f"--games must be 1..{MAX_GAMES:,}, got {games:,}")
    if seating not in SEATINGS:
        raise SimulateError(f"--seating must be one of {', '.join(SEATINGS)}, got {seating!r}")
    reg = g.agents()
    try:
        parsed = [reg.parse_agent(a) for a in agents]
    except reg.AgentError as e:
        raise SimulateError(f"--agents: {e}") from None
    for_rules = getattr(reg, "for_rules", None)  # a registry's agents whose play depends on the rules (weights)
    if for_rules is not None and resolve:
        try:
            parsed = [for_rules(a, rules) for a in parsed]
        except reg.AgentError as e:
            raise SimulateError(f"--agents: {e}") from None
    if len(parsed) == 1 and seating != "draw":
        parsed = parsed * players
    if seating == "draw" and len(parsed) > MAX_POOL:
        raise SimulateError(f"--agents: a draw pool holds at most {MAX_POOL} agents, got {len(parsed)}")
    if seating != "draw" and len(parsed) != players:
        raise SimulateError(f"--agents: {len(parsed)} agents for {players} players (give one per seat, or one for all)")
    if chunk_size is not None and chunk_size < 1:
        raise SimulateError(f"--chunk-size must be at least 1, got {chunk_size}")
    python = needs_api(parsed)
    if moves and python:
        raise SimulateError("--moves: a run with Python agents keeps no move log (the game's kernels write it)")
    versions = tuple((str(a), a.version) for a in parsed if getattr(a, "version", ""))
    return RunSpec(
        players=players,
        agents=tuple(str(a) for a in parsed),
        tiers=tuple(getattr(a, "tier", "") for a in parsed) if any(getattr(a, "tier", "") for a in parsed) else (),
        games=games,
        seed=int(seed),
        rules=rules.to_json(),
        rules_name=rules.name,
        seating=seating,
        chunk_size=chunk_size or default_chunk_size(g, parsed, games),
        moves=moves,
        game=g.id,
        agent_versions=tuple(dict.fromkeys(versions)),
    )


# --- paths -------------------------------------------------------------------------


@dataclass(frozen=True)
class RunPaths:
    out: Path

    @property
    def parts(self) -> Path:
        return self.out.with_name(self.out.name + ".parts")

    @property
    def manifest(self) -> Path:
        return self.parts / "run.json"

    @property
    def sidecar(self) -> Path:
        return self.out.with_name(self.out.name + ".json")

    @property
    def moves(self) -> Path:
        return self.out.with_name(self.out.stem + ".moves.parquet")

    @property
    def error_log(self) -> Path:
        """Where a Python agent's failure leaves its traceback."""
        return self.out.with_name(self.out.name + ".error.log")

    def chunk(self, i: int) -> Path:
        return self.parts / f"chunk-{i:07d}.arrow"

    def chunk_moves(self, i: int) -> Path:
        return self.parts / f"moves-{i:07d}.arrow"


def _atomic_write_table(table: pa.Table, path: Path) -> None:
    """A part: an Arrow IPC file, complete under its name or absent."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    options = pa.ipc.IpcWriteOptions(compression=PART_COMPRESSION)
    with pa.OSFile(str(tmp), "wb") as sink, pa.ipc.new_file(sink, table.schema, options=options) as writer:
        writer.write_table(table)
    os.replace(tmp, path)


def _read_part(path: Path) -> pa.Table:
    """A part written by _atomic_write_table (memory-mapped: no copy until it is encoded)."""
    return pa.ipc.open_file(pa.memory_map(str(path))).read_all()


def _atomic_write_text(text: str, path: Path) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


# --- the work of one chunk (runs in a worker process or on a Dask worker) ----------


def run_chunk(spec: RunSpec, i: int, isolation: Isolation | None = None) -> tuple[int, pa.Table, pa.Table | None]:
    """Chunk i's rows (and its move log when the run keeps one) as Arrow tables."""
    return i, *chunk_tables(spec, i, play_chunk(spec, i, isolation))


def play_chunk(spec: RunSpec, i: int, isolation: Isolation | None = None):
    """Chunk i's games, before the tables perhaps (what chunk_tables takes): what the game's chunk player,
    or its move log with --moves, returns (boardlab.sim.games.GameDef.chunk_player).  `isolation`: how Python agents
    play (boardlab.experiments.isolation; it changes no row)."""
    start, stop = spec.bounds(i)
    agents = spec.agent_specs()
    if needs_api(agents):  # a Python agent plays through the public API (make_spec refuses --moves here)
        g, rs = spec.game_def(), spec.rule_set()
        return play_table(g, rs, spec.players, agents, spec.seating, spec.seed, start, stop, isolation)
    player = spec.game_def().part("move_log" if spec.moves else "chunk_player")
    return player(spec.rule_set(), spec.players, agents, spec.seating, spec.seed, start, stop)


def chunk_tables(spec: RunSpec, i: int, played) -> tuple[pa.Table, pa.Table | None]:
    """play_chunk's games -> the chunk's result table (checked against the game's schema) and move log (or None)."""
    g = spec.game_def()
    if callable(played):
        played = played()
    table, moves = played if spec.moves else (played, None)
    who = f"{g.id}'s {'move log' if spec.moves else 'chunk player'} (chunk {i})"
    return conform(table, schema_of(g), who), moves


@functools.lru_cache(maxsize=8)
def _rule_set(game: str, rules: str):
    """RunSpec.rule_set, parsed once per process (rule sets are frozen; parsing copies deeply)."""
    return get_game(game).rules_from_mapping(json.loads(rules))


# --- the run ---------------------------------------------------------------------------


def check_output(paths: RunPaths, resume: bool, force: bool) -> None:
    """Refuse to start where the result would be ambiguous; nothing is written here."""
    parent = paths.out.parent
    if not parent.exists():
        raise SimulateError(f"--out: directory {parent} does not exist")
    if not os.access(parent, os.W_OK):
        raise SimulateError(f"--out: directory {parent} is not writable")
    if paths.out.is_dir():
        raise SimulateError(f"--out: {paths.out} is a directory; give a file name such as run.parquet")
    if resume and force:
        raise SimulateError("--resume and --force contradict each other: choose one")
    if resume:
        if paths.out.exists() and not paths.parts.exists():
            raise SimulateError(f"--resume: {paths.out} is already complete")
        if not paths.manifest.exists():
            raise SimulateError(
                f"--resume: no interrupted run at {paths.out} (no {paths.manifest.name} in {paths.parts})"
            )
    elif not force and (paths.out.exists() or paths.parts.exists()):
        what = paths.out if paths.out.exists() else paths.parts
        raise SimulateError(f"--out: {what} exists; use --resume to continue it or --force to overwrite")


def _describe_difference(old: dict, new: dict) -> str:
    diffs = [k for k in new if old.get(k) != new[k]]
    parts = []
    for k in diffs:
        a, b = old.get(k), new[k]
        if k == "rules":
            parts.append("rules differ")
        else:
            parts.append(f"{k} was {a!r}, now {b!r}")
    return "; ".join(parts)


def prepare(spec: RunSpec, paths: RunPaths, resume: bool, force: bool) -> dict:
    """Create or check the run's parts directory and manifest; return the manifest."""
    check_output(paths, resume, force)
    if force:
        for p in (paths.out, paths.sidecar, paths.moves):
            p.unlink(missing_ok=True)
        if paths.parts.exists():
            for f in paths.parts.iterdir():
                f.unlink()
            paths.parts.rmdir()
    if resume:
        manifest = json.loads(paths.manifest.read_text())
        if not same_spec(manifest["spec"], spec.to_json()):
            raise SimulateError(
                "--resume: this is not the interrupted run's command ("
                + _describe_difference(manifest["spec"], spec.to_json())
                + "); rerun it with the original parameters"
            )
        return manifest
    paths.parts.mkdir()
    manifest = {
        "spec": spec.to_json(),
        "started": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "package_version": package_version(),
        "git_commit": git_commit(),
    }
    _atomic_write_text(json.dumps(manifest, indent=1), paths.manifest)
    return manifest


def same_spec(stored: dict | None, spec: dict) -> bool:
    """Whether a stored run's spec is `spec` (runs stored before the game registry are the default game's)."""
    return stored is not None and {"game": default_game(), "tiers": [], "agent_versions": [], **stored} == spec


def chunks_on_disk(spec: RunSpec, paths: RunPaths) -> set[int]:
    """The chunks whose parts are all written, from one listing of the parts directory."""
    if not paths.parts.is_dir():
        return set()
    names = {f.name for f in paths.parts.iterdir()}
    done = set()
    for name in names:
        if name.startswith("chunk-") and name.endswith(".arrow") and name[6:-6].isdigit():
            i = int(name[6:-6])
            if i < spec.n_chunks and (not spec.moves or paths.chunk_moves(i).name in names):
                done.add(i)
    return done


def missing_chunks(spec: RunSpec, paths: RunPaths, done: set[int] | None = None) -> Iterator[int]:
    """The chunks still to play, in game order, one at a time: a run of any size starts at once
    (its plan is never a list of every chunk)."""
    done = chunks_on_disk(spec, paths) if done is None else done
    return (i for i in range(spec.n_chunks) if i not in done)


def _execute(
    spec: RunSpec, todo: Iterable[int], backend: str, jobs: int, client=None, isolation: Isolation | None = None
) -> Iterable[tuple[int, pa.Table, pa.Table | None]]:
    if backend == "loky":
        from joblib import Parallel, delayed

        if jobs == 1:
            return (run_chunk(spec, i, isolation) for i in todo)
        return Parallel(n_jobs=jobs, return_as="generator_unordered", batch_size=1)(
            delayed(run_chunk)(spec, i, isolation) for i in todo
        )
    if backend == "dask":
        return _execute_dask(spec, todo, client, isolation)
    raise SimulateError(f"--backend must be loky or dask, got {backend!r}")


def connect(scheduler: str | None):
    """A Dask client: of the scheduler at `scheduler`, or of a local cluster of two processes.
    SimulateError, one line, when the scheduler cannot be reached (before anything is written)."""
    from dask.distributed import Client

    try:
        if scheduler:
            return Client(scheduler, timeout="20s")
        return Client(processes=True, n_workers=2, threads_per_worker=1)
    except (OSError, TimeoutError, ValueError) as e:  # ValueError: an address that is not one
        raise SimulateError(f"--scheduler: cannot reach {scheduler}: {str(e).splitlines()[0]}") from None


def _execute_dask(spec: RunSpec, todo: Iterable[int], client, isolation: Isolation | None = None):
    """The chunks on the cluster, a few per worker thread in flight (the plan is read as they finish)."""
    from dask.distributed import as_completed

    todo = iter(todo)
    threads = sum(w.get("nthreads", 1) for w in client.scheduler_info().get("workers", {}).values())
    ahead = max(4, 2 * threads)
    pending = as_completed(
        [client.submit(run_chunk, spec, i, isolation, pure=False) for i in itertools.islice(todo, ahead)]
    )
    for fut in pending:
        yield fut.result()
        for i in itertools.islice(todo, 1):
            pending.add(client.submit(run_chunk, spec, i, isolation, pure=False))


def run(
    spec: RunSpec,
    out: Path,
    jobs: int = 1,
    backend: str = "loky",
    scheduler: str | None = None,
    resume: bool = False,
    force: bool = False,
    progress: Callable[[int, int, float], None] | None = None,
    isolation: Isolation | None = None,
) -> dict:
    """Play the run's missing chunks, then assemble the result.  Returns the metadata.

    Every check (the output, the backend, the Dask scheduler) comes before anything is written.  `isolation`:
    how Python agents play (boardlab.experiments.isolation).  A Python agent's failure (AgentFailure) leaves the
    finished chunks in OUT.parts and its traceback in OUT.error.log, which the failure's message names."""
    paths = RunPaths(Path(out))
    if backend not in ("loky", "dask"):
        raise SimulateError(f"--backend must be loky or dask, got {backend!r}")
    check_output(paths, resume, force)
    client = connect(scheduler) if backend == "dask" else None
    try:
        return _run(spec, paths, jobs, backend, client, resume, force, progress, isolation)
    except AgentFailure as e:
        e.write_log(paths.error_log)
        raise
    finally:
        if client is not None:
            client.close()


def _run(
    spec: RunSpec, paths: RunPaths, jobs: int, backend: str, client, resume: bool, force: bool, progress, isolation
):
    manifest = prepare(spec, paths, resume, force)
    done = chunks_on_disk(spec, paths)
    todo = missing_chunks(spec, paths, done)
    done_games = sum(spec.bounds(i)[1] - spec.bounds(i)[0] for i in done)
    t0 = time.perf_counter()
    new_games = 0
    if progress:
        progress(done_games, spec.games, 0.0)
    # --jobs 1: the chunks are played here, in game order, and each is handed to a thread that makes
    # its tables and parts and encodes it into the final file while the next plays; otherwise the
    # parts are written as chunks come, in any order, and the final file is encoded at the end
    stream = _StreamedAssembly(spec, paths) if jobs == 1 and backend == "loky" else None
    try:
        if stream is not None:
            played = ((i, None, None) for i in todo)
        else:
            played = _execute(spec, todo, backend, jobs, client, isolation)
        for i, table, moves in played:
            if stream is not None:
                stream.add(i, play_chunk(spec, i, isolation))
            else:
                if moves is not None:
                    _atomic_write_table(moves, paths.chunk_moves(i))
                _atomic_write_table(table, paths.chunk(i))
            a, b = spec.bounds(i)
            done_games += b - a
            new_games += b - a
            if progress:
                progress(done_games, spec.games, new_games / max(time.perf_counter() - t0, 1e-9))
        if stream is not None:
            stream.wait()  # every chunk's parts are written, as on the other path
        elapsed = time.perf_counter() - t0
        meta = _metadata(spec, manifest, new_games, elapsed)
        if stream is not None:
            stream.finish(meta)
            stream = None
        else:
            _assemble(spec, paths, meta)
    except BaseException:
        if stream is not None:
            stream.abort()  # the parts stay, for --resume
        raise
    return meta


def _metadata(spec: RunSpec, manifest: dict, new_games: int, elapsed: float) -> dict:
    meta = {
        **manifest,
        "finished": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "rules": json.loads(spec.rules),
        "agents": list(spec.agents),
        "agent_tiers": {a: t for a, t in zip(spec.agents, spec.tiers, strict=True) if t} if spec.tiers else {},
        "agent_versions": dict(spec.agent_versions),
        "players": spec.players,
        "games": spec.games,
        "seed": spec.seed,
        "seating": spec.seating,
        "rows": spec.games * spec.players,
        "this_session": {"games": new_games, "seconds": round(elapsed, 2)},
    }
    return meta


def _targets(spec: RunSpec, paths: RunPaths) -> list[tuple[Callable[[int], Path], Path]]:
    """(part path of chunk i, final file) per output file."""
    targets = [(paths.chunk, paths.out)]
    if spec.moves:
        targets.append((paths.chunk_moves, paths.moves))
    return targets


def _open_parquet(path: Path, schema: pa.Schema, blob: bytes) -> pq.ParquetWriter:
    """The final file's writer (both assembly paths: the same options give the same bytes).  The columns
    the schema names as all distinct (boardlab.experiments.schema.plain_columns) are written without a dictionary."""
    plain = plain_columns(schema)
    dictionary = [c for c in schema.names if c not in plain]
    return pq.ParquetWriter(
        path, schema.with_metadata({METADATA_KEY: blob}), compression="zstd", use_dictionary=dictionary
    )


def _finish_run(paths: RunPaths, meta: dict) -> None:
    """After the final files are in place: the sidecar, then drop the parts (and any stale temporary file)."""
    _atomic_write_text(json.dumps(meta, indent=1), paths.sidecar)
    for f in paths.parts.iterdir():
        f.unlink()
    paths.parts.rmdir()


def _assemble(spec: RunSpec, paths: RunPaths, meta: dict) -> None:
    """Stream the chunks, in game order, into the final files; then drop the parts."""
    blob = json.dumps(meta).encode()
    for chunk_path, final in _targets(spec, paths):
        tmp = final.with_name(f".{final.name}.{os.getpid()}.tmp")
        writer = None
        try:
            for i in range(spec.n_chunks):
                table = _read_part(chunk_path(i))
                if writer is None:
                    writer = _open_parquet(tmp, table.schema, blob)
                writer.write_table(table.replace_schema_metadata({METADATA_KEY: blob}))
        finally:
            if writer is not None:
                writer.close()
        os.replace(tmp, final)
    _finish_run(paths, meta)


class _StreamedAssembly:
    """The run's --jobs 1 path: the final files written while the chunks play, in game order.

    Each chunk the main thread has played (:func:`play_chunk`: the kernels' arrays) is handed
    to one background thread, which makes its tables (:func:`chunk_tables`), writes its parts
    (atomically, as the other path does: what --resume needs) and appends it, one row group,
    to the final files, kept as temporary files inside ``OUT.parts/`` until complete (so an
    interrupted run's leftovers go with its parts).  Chunks an earlier session left as parts
    are read back from them in their turn.  The run's metadata is only known at the end: the
    files are opened with an empty value under METADATA_KEY, and :meth:`finish` replaces it,
    and the Arrow schema stored beside it, before the footer is written, so a file is the
    same, byte for byte, as :func:`_assemble` writes from the parts.  At most one chunk waits
    for the thread, so memory stays at about two chunks' worth.

    The thread is the only one this process adds, and it does no game work: it turns finished
    games into tables and files (pyarrow and numpy release the GIL for the bulk of that, and
    the game kernels release it while they play).  It is one level of parallelism still:
    worker processes (--jobs > 1) do not use it.
    """

    def __init__(self, spec: RunSpec, paths: RunPaths):
        self.spec, self.paths = spec, paths
        self.targets = _targets(spec, paths)
        self.tmps = [paths.parts / f".{final.name}.{os.getpid()}.tmp" for _, final in self.targets]
        self.writers: list[pq.ParquetWriter | None] = [None] * len(self.targets)
        self.next = 0  # chunks before it are queued
        self.pending: Future | None = None
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="boardlab-parquet")

    def _on_disk(self, i: int) -> bool:
        return all(chunk(i).exists() for chunk, _ in self.targets)

    def add(self, i: int, played: tuple | None) -> None:
        """Queue chunk i, played (play_chunk's result), after the chunks before it not yet queued,
        which must be parts from an earlier session; with played None, chunk i is a part too."""
        for j in range(self.next, i + 1 if played is None else i):
            if not self._on_disk(j):
                raise SimulateError(f"chunk {j} is neither played nor in {self.paths.parts}")
            self._queue(j, None)
        if played is not None:
            if i < self.next:
                raise SimulateError(f"chunk {i} comes after chunk {self.next - 1}: not in game order")
            self._queue(i, played)

    def _queue(self, i: int, played: tuple | None) -> None:
        self.wait()  # the previous chunk is done: at most one waits
        self.pending = self.pool.submit(self._write, i, played)
        self.next = i + 1

    def _write(self, i: int, played: tuple | None) -> None:
        """On the thread: chunk i's parts (when played here) and its row groups in the final files."""
        if played is None:
            tables = [_read_part(chunk(i)) for chunk, _ in self.targets]
        else:
            table, moves = chunk_tables(self.spec, i, played)
            if moves is not None:
                _atomic_write_table(moves, self.paths.chunk_moves(i))
            _atomic_write_table(table, self.paths.chunk(i))
            tables = [table, moves][: len(self.targets)]
        for k, table in enumerate(tables):
            if self.writers[k] is None:
                self.writers[k] = _open_parquet(self.tmps[k], table.schema, b"")
            self.writers[k].write_table(table)

    def wait(self) -> None:
        """Until the thread has done every chunk queued (an error of its is raised here)."""
        if self.pending is not None:
            self.pending.result()

    def finish(self, meta: dict) -> None:
        """Queue the chunks not yet queued (all parts by now), wait, write the metadata and footers,
        rename into place; then the sidecar, and drop the parts."""
        if self.next < self.spec.n_chunks:
            self.add(self.spec.n_chunks - 1, None)
        self.wait()
        self.pool.shutdown()
        blob = json.dumps(meta).encode()
        for writer, tmp, (_, final) in zip(self.writers, self.tmps, self.targets, strict=True):
            # what ParquetWriter stores at opening for a schema with this metadata: the metadata, and
            # the Arrow schema (with it) under ARROW:schema as base64 of its IPC serialization
            schema = writer.schema.with_metadata({METADATA_KEY: blob})
            arrow_schema = base64.b64encode(schema.serialize().to_pybytes())
            writer.add_key_value_metadata({METADATA_KEY: blob, b"ARROW:schema": arrow_schema})
            writer.close()
            os.replace(tmp, final)
        self.writers = []
        _finish_run(self.paths, meta)

    def abort(self) -> None:
        """Stop without a result: let the thread finish the chunk it has (so every chunk played has its
        parts, as on the other path), then close and delete the temporary files (the parts stay)."""
        self.pool.shutdown(wait=True)
        for writer in self.writers:
            if writer is not None:
                try:
                    writer.close()
                except Exception:  # an unfinished file: deleted below anyway
                    pass
        for tmp in self.tmps:
            tmp.unlink(missing_ok=True)
        self.writers = []


def read_metadata(path: Path) -> dict:
    """A result file's run metadata; SimulateError, one line naming the file, when it has none or
    cannot be read."""
    try:
        md = pq.read_schema(path).metadata or {}
    except (OSError, pa.ArrowException) as e:
        raise SimulateError(f"{path}: cannot read it as a result file: {str(e).splitlines()[0]}") from None
    key = next((k for k in METADATA_KEYS if k in md), None)
    if key is None:
        raise SimulateError(f"{path}: not a result of a run (no run metadata)")
    return json.loads(md[key])


def run_or_reuse(spec: RunSpec, out: Path, **kwargs) -> tuple[dict, bool]:
    """The run at `out` for `spec`: reused when complete with the same spec, resumed when
    interrupted with the same spec, played afresh otherwise (a stale file of another spec is
    replaced).  For tools that keep their own run cache (reproduce, sweep).  Returns
    (metadata, reused)."""
    paths = RunPaths(Path(out))
    want = spec.to_json()
    if paths.out.exists() and not paths.parts.exists():
        try:
            meta = read_metadata(paths.out)
            if same_spec(meta.get("spec"), want):
                return meta, True
        except (SimulateError, OSError, ValueError):
            pass
        return run(spec, out, force=True, **kwargs), False
    if paths.manifest.exists():
        manifest = json.loads(paths.manifest.read_text())
        if same_spec(manifest.get("spec"), want):
            return run(spec, out, resume=True, **kwargs), False
    force = paths.out.exists() or paths.parts.exists()
    return run(spec, out, force=force, **kwargs), False
