"""`citywright simulate`: many games in parallel, reproducible, resumable, Parquet out.

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
import json
import os
import subprocess
import time
from collections.abc import Callable, Iterable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from experiments.citywright.runner import play_chunk_arrays, results_table
from experiments.seating import SEATINGS
from sim.citywright.rules import N_SLOTS, SLOT_NAMES, Rules, load_rules
from sim.games import get_game

METADATA_KEY = b"citywright"
MOVES_SCHEMA = pa.schema(
    [
        ("game", pa.int64()), ("turn", pa.int16()), ("seat", pa.int8()), ("kind", pa.large_string()),
        ("slot", pa.large_string()), ("shape", pa.large_string()), ("orientation", pa.int8()),
        ("anchor", pa.large_string()), ("tiles", pa.large_string()), ("waste", pa.int8()), ("score_change", pa.int16()),
    ]
)  # fmt: skip
MOVE_COLUMNS = MOVES_SCHEMA.names
# Parts are uncompressed Arrow IPC: about 170 bytes a row on disk until the run is
# assembled (a 1M-game 4-player run holds ~0.7 GB of parts at its end), in exchange
# for writes and reads that cost next to nothing beside the kernels.
PART_COMPRESSION = None
# Result columns whose values are (nearly) all distinct within a chunk: Parquet would
# build a dictionary for them only to drop it; plain encoding is faster and the file smaller.
# (In the move log a game's number repeats on every turn: a dictionary pays there.)
_PLAIN_COLUMNS = ("game", "game_seed", "board")


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
    game: str = "citywright"
    tiers: tuple[str, ...] = ()  # per agent: the tier name it was given by, or ""

    def to_json(self) -> dict:
        """Plain JSON types (what the manifest stores and --resume compares)."""
        return json.loads(json.dumps(asdict(self)))

    def agent_specs(self) -> list:
        return [get_game(self.game).agents().parse_agent(a) for a in self.agents]

    def rule_set(self):
        data = json.loads(self.rules)
        return get_game(self.game).rules_from_mapping(data)

    @property
    def n_chunks(self) -> int:
        return (self.games + self.chunk_size - 1) // self.chunk_size

    def bounds(self, i: int) -> tuple[int, int]:
        return i * self.chunk_size, min((i + 1) * self.chunk_size, self.games)


def default_chunk_size(agents: list, games: int) -> int:
    """About a few seconds of work per chunk: many chunks for slow agents, big ones for random play."""
    if all(a.name == "random" for a in agents):
        size = 50_000
    elif any(a.name in ("mcts", "flatmc", "expert-specialist") for a in agents):
        size = 20  # searches of milliseconds per move: a 4-player expert game takes about 0.4 s
    else:
        size = 1_000
    return max(1, min(size, games))


# A draw pool's size limit: a sanity bound (a ladder of more agents needs more games than it is worth);
# the draw itself is uniform to within pool / 2**64 for any size (experiments.citywright.runner.draw_orders).
MAX_POOL = 32


def make_spec(
    players: int,
    agents: list[str],
    games: int,
    seed: int,
    rules: Rules,
    seating: str = "rotate",
    chunk_size: int | None = None,
    moves: bool = False,
    game: str = "citywright",
) -> RunSpec:
    g = get_game(game)
    lo, hi = g.players
    if not lo <= players <= hi:
        raise SimulateError(f"--players must be {lo}..{hi} for {g.id}, got {players}")
    if moves and g.id != "citywright":
        raise SimulateError(f"--moves: no move log for {g.id} yet")
    if games < 1:
        raise SimulateError(f"--games must be at least 1, got {games}")
    if seating not in SEATINGS:
        raise SimulateError(f"--seating must be one of {', '.join(SEATINGS)}, got {seating!r}")
    reg = g.agents()
    try:
        parsed = [reg.parse_agent(a) for a in agents]
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
    return RunSpec(
        players=players,
        agents=tuple(str(a) for a in parsed),
        tiers=tuple(getattr(a, "tier", "") for a in parsed) if any(getattr(a, "tier", "") for a in parsed) else (),
        games=games,
        seed=int(seed) & ((1 << 64) - 1),
        rules=rules.to_json(),
        rules_name=rules.name,
        seating=seating,
        chunk_size=chunk_size or default_chunk_size(parsed, games),
        moves=moves,
        game=g.id,
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


def _git_commit() -> str:
    try:
        root = Path(__file__).resolve().parent.parent
        r = subprocess.run(
            ["git", "-C", str(root), "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5, check=False
        )
        return r.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("boardlab")
    except Exception:
        return "unknown"


# --- the work of one chunk (runs in a worker process or on a Dask worker) ----------


def run_chunk(spec: RunSpec, i: int) -> tuple[int, pa.Table, pa.Table | None]:
    """Chunk i's rows (and its move log when the run keeps one) as Arrow tables."""
    return i, *chunk_tables(spec, i, play_chunk(spec, i))


def play_chunk(spec: RunSpec, i: int) -> tuple:
    """Chunk i's games, before the tables (what chunk_tables takes): the rules and agents, and the
    kernels' arrays (experiments.citywright.runner.play_chunk_arrays) or, for another game, its DataFrame."""
    start, stop = spec.bounds(i)
    rules = _rule_set(spec.game, spec.rules)
    agents = spec.agent_specs()
    if spec.game != "citywright":  # the registry's chunk players give DataFrames
        return (
            rules,
            agents,
            get_game(spec.game).play_chunk(rules, spec.players, agents, spec.seating, spec.seed, start, stop),
        )
    return (
        rules,
        agents,
        play_chunk_arrays(rules, spec.players, agents, spec.seating, spec.seed, start, stop, spec.moves),
    )


def chunk_tables(spec: RunSpec, i: int, played: tuple) -> tuple[pa.Table, pa.Table | None]:
    """play_chunk's games -> the chunk's result table and move log (or None)."""
    rules, agents, games = played
    if spec.game != "citywright":
        return pa.Table.from_pandas(games, preserve_index=False).replace_schema_metadata(None), None
    start = spec.bounds(i)[0]
    seeds, order, scores, boards, stats, log = games
    table = results_table(rules, agents, start, seeds, order, scores, boards, stats)
    return table, (moves_table(log, rules, spec.players, start) if spec.moves else None)


@functools.lru_cache(maxsize=8)
def _rule_set(game: str, rules: str):
    """RunSpec.rule_set, parsed once per process (rule sets are frozen; parsing copies deeply)."""
    return get_game(game).rules_from_mapping(json.loads(rules))


def moves_table(log: np.ndarray, rules: Rules, players: int, start: int) -> pa.Table:
    """Readable move log from the kernels' records (agents.citywright.play.LOG_*)."""
    from agents.citywright import play as P
    from sim.citywright.tables import PL_AC, PL_AR, PL_ORIENT, SHP_PLAIN, SHP_STAR, tables_for

    tb = tables_for(rules, players)
    g, t, _ = log.shape
    rec = log.reshape(g * t, -1)
    kind = rec[:, P.LOG_KIND]
    slot = rec[:, P.LOG_SLOT]
    shape = rec[:, P.LOG_SHAPE]
    pl = rec[:, P.LOG_PL]
    place = kind == 0
    pli = np.where(place, pl, 0)
    orient = np.where(place, tb.pl_info[pli, PL_ORIENT], -1)
    ar = np.where(place, tb.pl_info[pli, PL_AR], -1)
    ac = np.where(place, tb.pl_info[pli, PL_AC], -1)
    # tiles per shape cell, in the shape's cell order ('-' for no tile; 0 for no cell)
    letters = np.frombuffer(b"RCPI-", dtype=np.uint8)
    row = np.arange(len(rec))
    cells = np.zeros((len(rec), 5), dtype=np.uint8)
    sh = np.where(shape >= 0, shape, 0)
    for m in range(4):
        cells[row, tb.shp[sh, SHP_PLAIN + m]] = letters[np.clip(rec[:, P.LOG_TILES + m], 0, 4)]
    star = tb.shp[sh, SHP_STAR]
    has_star = star >= 0
    cells[row[has_star], star[has_star]] = letters[np.clip(rec[has_star, P.LOG_FREE], 0, 4)]
    swap = kind == 2
    cells[~place] = 0
    cells[swap, 0] = letters[np.clip(rec[swap, P.LOG_TILES], 0, 4)]
    # anchor 'row,col' of a placement, or the cell of a swap, from a table of the pairs that occur
    a = np.where(place, ar, pl // 8)
    b = np.where(place, ac, pl % 8)
    located = place | swap
    both = np.concatenate([a[located], b[located]])
    lo, hi = (int(both.min()), int(both.max()) + 1) if both.size else (0, 0)
    pairs = [f"{x},{y}" for x in range(lo, hi) for y in range(lo, hi)] + [""]
    span = hi - lo
    anchor = pa.array(pairs, pa.large_string()).take(np.where(located, (a - lo) * span + (b - lo), span * span))
    names = {
        "kind": (["place", "discard", "swap", "pass"], kind),
        "slot": ([*SLOT_NAMES, ""], np.where((slot >= 0) & (slot < N_SLOTS), slot, N_SLOTS)),
        "shape": ([s.name for s in rules.shapes] + [""], np.where(shape >= 0, shape, len(rules.shapes))),
    }
    columns = {
        "game": np.repeat(np.arange(start, start + g, dtype=np.int64), t),
        "turn": np.tile(np.arange(1, t + 1, dtype=np.int16), g),
        "seat": (rec[:, P.LOG_SEAT] + 1).astype(np.int8),
        **{k: pa.array(v, pa.large_string()).take(np.asarray(i, dtype=np.int64)) for k, (v, i) in names.items()},
        "orientation": orient.astype(np.int8),
        "anchor": anchor,
        "tiles": _nonzero_bytes_strings(cells),
        "waste": rec[:, P.LOG_WASTE].astype(np.int8),
        "score_change": rec[:, P.LOG_GAIN].astype(np.int16),
    }
    return pa.Table.from_arrays([pa.array(columns[f.name], f.type) for f in MOVES_SCHEMA], schema=MOVES_SCHEMA)


def _nonzero_bytes_strings(rows: np.ndarray) -> pa.LargeStringArray:
    """uint8[M, W] -> M strings: each row's non-zero bytes, in order."""
    keep = rows != 0
    offsets = np.zeros(rows.shape[0] + 1, dtype=np.int64)
    np.cumsum(keep.sum(axis=1), out=offsets[1:])
    return pa.LargeStringArray.from_buffers(rows.shape[0], pa.py_buffer(offsets), pa.py_buffer(rows[keep]))


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
        "package_version": _version(),
        "git_commit": _git_commit(),
    }
    _atomic_write_text(json.dumps(manifest, indent=1), paths.manifest)
    return manifest


def same_spec(stored: dict | None, spec: dict) -> bool:
    """Whether a stored run's spec is `spec` (runs stored before the game registry are Citywright's)."""
    return stored is not None and {"game": "citywright", "tiers": [], **stored} == spec


def missing_chunks(spec: RunSpec, paths: RunPaths) -> list[int]:
    out = []
    for i in range(spec.n_chunks):
        if not paths.chunk(i).exists() or (spec.moves and not paths.chunk_moves(i).exists()):
            out.append(i)
    return out


def _execute(
    spec: RunSpec, todo: list[int], backend: str, jobs: int, scheduler: str | None
) -> Iterable[tuple[int, pa.Table, pa.Table | None]]:
    if backend == "loky":
        from joblib import Parallel, delayed

        if jobs == 1:
            return (run_chunk(spec, i) for i in todo)
        return Parallel(n_jobs=jobs, return_as="generator_unordered", batch_size=1)(
            delayed(run_chunk)(spec, i) for i in todo
        )
    if backend == "dask":
        return _execute_dask(spec, todo, scheduler)
    raise SimulateError(f"--backend must be loky or dask, got {backend!r}")


def _execute_dask(spec: RunSpec, todo: list[int], scheduler: str | None):
    from dask.distributed import Client, as_completed

    try:
        client = (
            Client(scheduler, timeout="20s") if scheduler else Client(processes=True, n_workers=2, threads_per_worker=1)
        )
    except (OSError, TimeoutError) as e:
        raise SimulateError(f"--scheduler: cannot reach {scheduler}: {e}") from None
    try:
        futures = client.map(run_chunk, [spec] * len(todo), todo, pure=False)
        for fut in as_completed(futures):
            yield fut.result()
    finally:
        client.close()


def run(
    spec: RunSpec,
    out: Path,
    jobs: int = 1,
    backend: str = "loky",
    scheduler: str | None = None,
    resume: bool = False,
    force: bool = False,
    progress: Callable[[int, int, float], None] | None = None,
) -> dict:
    """Play the run's missing chunks, then assemble the result.  Returns the metadata."""
    paths = RunPaths(Path(out))
    manifest = prepare(spec, paths, resume, force)
    todo = missing_chunks(spec, paths)
    done_games = spec.games - sum(spec.bounds(i)[1] - spec.bounds(i)[0] for i in todo)
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
            played = _execute(spec, todo, backend, jobs, scheduler)
        for i, table, moves in played:
            if stream is not None:
                stream.add(i, play_chunk(spec, i))
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
        "players": spec.players,
        "games": spec.games,
        "seed": spec.seed,
        "seating": spec.seating,
        "rows": spec.games * spec.players,
        "this_session": {"games": new_games, "seconds": round(elapsed, 2)},
    }
    return meta


def _targets(spec: RunSpec, paths: RunPaths) -> list[tuple[Callable[[int], Path], Path, tuple[str, ...]]]:
    """(part path of chunk i, final file, columns written without a dictionary) per output file."""
    targets = [(paths.chunk, paths.out, _PLAIN_COLUMNS)]
    if spec.moves:
        targets.append((paths.chunk_moves, paths.moves, ()))
    return targets


def _open_parquet(path: Path, schema: pa.Schema, plain: tuple[str, ...], blob: bytes) -> pq.ParquetWriter:
    """The final file's writer (both assembly paths: the same options give the same bytes)."""
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
    for chunk_path, final, plain in _targets(spec, paths):
        tmp = final.with_name(f".{final.name}.{os.getpid()}.tmp")
        writer = None
        try:
            for i in range(spec.n_chunks):
                table = _read_part(chunk_path(i))
                if writer is None:
                    writer = _open_parquet(tmp, table.schema, plain, blob)
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
        self.tmps = [paths.parts / f".{final.name}.{os.getpid()}.tmp" for _, final, _ in self.targets]
        self.writers: list[pq.ParquetWriter | None] = [None] * len(self.targets)
        self.next = 0  # chunks before it are queued
        self.pending: Future | None = None
        self.pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="citywright-parquet")

    def _on_disk(self, i: int) -> bool:
        return all(chunk(i).exists() for chunk, _, _ in self.targets)

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
            tables = [_read_part(chunk(i)) for chunk, _, _ in self.targets]
        else:
            table, moves = chunk_tables(self.spec, i, played)
            if moves is not None:
                _atomic_write_table(moves, self.paths.chunk_moves(i))
            _atomic_write_table(table, self.paths.chunk(i))
            tables = [table, moves][: len(self.targets)]
        for k, table in enumerate(tables):
            if self.writers[k] is None:
                self.writers[k] = _open_parquet(self.tmps[k], table.schema, self.targets[k][2], b"")
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
        for writer, tmp, (_, final, _) in zip(self.writers, self.tmps, self.targets, strict=True):
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
    md = pq.read_schema(path).metadata or {}
    if METADATA_KEY not in md:
        raise SimulateError(f"{path}: not a citywright result (no run metadata)")
    return json.loads(md[METADATA_KEY])


def load_rules_arg(spec: str) -> Rules:
    return load_rules(spec)


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
