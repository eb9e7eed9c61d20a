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

Each run has an id (:func:`new_run_id`), in its manifest, result, sidecar and every part; one process
writes an output at a time (:func:`output_lock`); ``--force`` replaces a result only when the new one is
complete; with several jobs the workers write their own parts and :class:`_StreamedAssembly` encodes the
final file in game order while the rest play.

Design notes: docs/architecture/reproducibility.md#run-ids
"""

from __future__ import annotations

import base64
import collections
import contextlib
import datetime as _dt
import fcntl
import functools
import hashlib
import json
import os
import secrets
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from boardlab.experiments import executor
from boardlab.experiments.executor import BACKENDS, map_chunks
from boardlab.experiments.isolation import AgentFailure, Isolation
from boardlab.experiments.play import needs_api, play_table
from boardlab.experiments.provenance import git_commit, package_version
from boardlab.experiments.schema import conform, plain_columns, schema_of
from boardlab.experiments.seating import SEATINGS
from boardlab.sim.games import GameDef, GameError, default_game, get_game

# The key of a result file's run metadata (in the Parquet file's key-value metadata); files written while
# the toolkit hosted one game used the second, and are read as well.
METADATA_KEY = b"boardlab"
METADATA_KEYS = (METADATA_KEY, b"citywright")
# Parts are uncompressed Arrow IPC: about 170 bytes a row on disk until the run is
# assembled (a 1M-game 4-player run holds ~0.7 GB of parts at its end), in exchange
# for writes and reads that cost next to nothing beside the kernels.
PART_COMPRESSION = None
# Games per chunk for a game that declares no chunk-size rule (GameDef.simulation.chunk_size).
DEFAULT_CHUNK = 100
# Game numbers are int64 in every table.
MAX_GAMES = 2**62
# The key of a run's id: in its manifest, its result's metadata and sidecar (boardlab.experiments.io.RUN_ID).
RUN_ID = "run_id"
# The key of the run id stamped in every chunk part's Arrow schema metadata (what --resume checks).
PART_STAMP = b"run_id"
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
        """Plain JSON types (what the manifest stores and --resume compares).

        Returns
        -------
        dict
            Every field, tuples as lists.
        """
        return json.loads(json.dumps(asdict(self)))

    def game_def(self) -> GameDef:
        """The run's game (a spec is plain data: it names its game by id, as the manifest stores it).

        Returns
        -------
        GameDef
            The registered game.
        """
        return get_game(self.game)

    def agent_specs(self) -> list:
        """The agents parsed by the game's registry.

        Returns
        -------
        list of AgentSpec or PythonSpec
            One per entry of ``agents`` (per seat, or the draw pool).
        """
        return [self.game_def().agents().parse_agent(a) for a in self.agents]

    def rule_set(self):
        """The run's rule set, rebuilt from its canonical JSON.

        Returns
        -------
        RuleSet
            The game's rule set.
        """
        return _rule_set(self.game, self.rules)

    @property
    def n_chunks(self) -> int:
        """The number of chunks: ``games`` in chunks of ``chunk_size``, the last perhaps shorter."""
        return (self.games + self.chunk_size - 1) // self.chunk_size

    def bounds(self, i: int) -> tuple[int, int]:
        """The games of chunk `i`.

        Parameters
        ----------
        i : int
            The chunk's index.

        Returns
        -------
        tuple of int
            ``(start, stop)``: game indices ``start..stop-1``.
        """
        return i * self.chunk_size, min((i + 1) * self.chunk_size, self.games)


# Games per chunk when a Python agent plays (boardlab.experiments.play: milliseconds to seconds per game), and when
# every Python agent is one of the generic agents that cost about what the game's own move does (a chunk of a few
# seconds for most games).
PYTHON_CHUNK = 20
FAST_PYTHON = ("random", "random-prefers")
FAST_PYTHON_CHUNK = 1000


def default_chunk_size(game: GameDef, agents: list, games: int) -> int:
    """Games per chunk of a run of these parsed agents: the game's rule (its Simulation's chunk_size) where it has
    one and either no Python agent plays or the game has no kernels (its rule is about the generic chunk player
    then); with Python agents otherwise FAST_PYTHON_CHUNK when each is one of FAST_PYTHON, else PYTHON_CHUNK; else
    DEFAULT_CHUNK.

    Parameters
    ----------
    game : GameDef
        The game.
    agents : list of AgentSpec or PythonSpec
        The parsed agents.
    games : int
        The run's number of games (no chunk is larger).

    Returns
    -------
    int
        Games per chunk, at least 1.
    """
    python = needs_api(agents)
    rule = game.optional("chunk_size")
    if rule is not None and not (python and game.kernels is not None):
        return int(rule(agents, games))
    if python:
        fast = all(a.name in FAST_PYTHON for a in agents if getattr(a, "python", False))
        return max(1, min(FAST_PYTHON_CHUNK if fast else PYTHON_CHUNK, games))
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
    None: the registry's default game).

    Parameters
    ----------
    players : int
        Players per game (within the game's range and allowed by `rules`).
    agents : list of str
        Agent spec strings: one per seat, one for every seat, or the pool of ``seating="draw"``.
    games : int
        Number of games, 1..MAX_GAMES.
    seed : int
        The run seed, 0..2**64-1 (game seeds: :func:`boardlab.sim.seeds.game_seeds`).
    rules : RuleSet
        The game's rule set.
    seating : str
        One of SEATINGS (``rotate``, ...).
    chunk_size : int or None
        Games per chunk; None: :func:`default_chunk_size`.
    moves : bool
        Keep the move log (games with one).
    game : GameDef or str or None
        The game.
    resolve : bool
        The agents as they play under `rules` (the registry's ``for_rules``: Citywright's ``weights=auto`` made
        the rules' weights, an error when there are none); False keeps the specs as given, for a caller that
        checks them before their rules' weights exist (``tune scoring --train``).

    Returns
    -------
    RunSpec
        The run (SimulateError, one line, on anything the run cannot do).
    """
    g = get_game(game if game is not None else default_game())
    lo, hi = g.players
    if not lo <= players <= hi:
        raise SimulateError(f"--players must be {lo}..{hi} for {g.id}, got {players}")
    why = g.players_error(players, rules)
    if why is not None:
        raise SimulateError(f"--players: {why}")
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or not 0 <= int(seed) <= MAX_SEED:
        raise SimulateError(f"--seed must be 0..{MAX_SEED} (2**64 - 1), got {seed!r}")
    if moves:
        try:
            g.require("move_log")
        except GameError as e:
            raise SimulateError(f"--moves: {e}") from None
    if not 1 <= games <= MAX_GAMES:
        raise SimulateError(f"--games must be 1..{MAX_GAMES:,}, got {games:,}")
    if seating not in SEATINGS:
        raise SimulateError(f"--seating must be one of {', '.join(SEATINGS)}, got {seating!r}")
    reg = g.agents()
    try:
        parsed = [reg.parse_agent(a) for a in agents]
    except reg.AgentError as e:
        raise SimulateError(f"--agents: {e}") from None
    for_rules = reg.for_rules  # a registry's agents whose play depends on the rules (weights), or None
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
    if python:
        from boardlab.agents.generic.prefers import check_families

        why = check_families(g.new_game(players, rules, 0), parsed)
        if why is not None:
            raise SimulateError(f"--agents: {why}")
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
    """The files of a run whose result is `out`: its parts directory and manifest, sidecar, move log, lock.

    Parameters
    ----------
    out : pathlib.Path
        The result file.
    """

    out: Path

    @property
    def parts(self) -> Path:
        """The directory of the run's parts (``OUT.parts``), gone once the run is assembled."""
        return self.out.with_name(self.out.name + ".parts")

    @property
    def manifest(self) -> Path:
        """The run's manifest in the parts directory (its spec and run id: what --resume reads)."""
        return self.parts / "run.json"

    @property
    def sidecar(self) -> Path:
        """The result's metadata as JSON beside it (``OUT.json``)."""
        return self.out.with_name(self.out.name + ".json")

    @property
    def moves(self) -> Path:
        """The move log's file (``OUT-stem.moves.parquet``)."""
        return self.out.with_name(self.out.stem + ".moves.parquet")

    @property
    def error_log(self) -> Path:
        """Where a Python agent's failure leaves its traceback."""
        return self.out.with_name(self.out.name + ".error.log")

    @property
    def lock(self) -> Path:
        """The file whose exclusive lock the run's one writer holds (:func:`output_lock`)."""
        return self.out.with_name(self.out.name + ".lock")

    def temporary(self, final: Path) -> Path:
        """Where `final` (the result, its move log or sidecar, or a part) is written before its rename:
        inside ``OUT.parts/``, so that an unfinished file goes with the run's parts.

        Parameters
        ----------
        final : pathlib.Path
            The file's final path.

        Returns
        -------
        pathlib.Path
            A name in the parts directory unique to this process.
        """
        return self.parts / f".{final.name}.{os.getpid()}.tmp"

    def chunk(self, i: int) -> Path:
        """The part holding chunk `i`'s rows.

        Parameters
        ----------
        i : int
            The chunk's index.

        Returns
        -------
        pathlib.Path
            ``OUT.parts/chunk-NNNNNNN.arrow``.
        """
        return self.parts / f"chunk-{i:07d}.arrow"

    def chunk_moves(self, i: int) -> Path:
        """The part holding chunk `i`'s move log.

        Parameters
        ----------
        i : int
            The chunk's index.

        Returns
        -------
        pathlib.Path
            ``OUT.parts/moves-NNNNNNN.arrow``.
        """
        return self.parts / f"moves-{i:07d}.arrow"


def _atomic_write_table(table: pa.Table, path: Path, run_id: str | None = None) -> None:
    """A part: an Arrow IPC file, complete under its name or absent; stamped with `run_id` (PART_STAMP in its
    schema metadata) when given."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    if run_id is not None:
        table = table.replace_schema_metadata({**(table.schema.metadata or {}), PART_STAMP: run_id.encode()})
    options = pa.ipc.IpcWriteOptions(compression=PART_COMPRESSION)
    with pa.OSFile(str(tmp), "wb") as sink, pa.ipc.new_file(sink, table.schema, options=options) as writer:
        writer.write_table(table)
    os.replace(tmp, path)


def _read_part(path: Path) -> pa.Table:
    """A part written by _atomic_write_table (memory-mapped: no copy until it is encoded)."""
    return pa.ipc.open_file(pa.memory_map(str(path))).read_all()


def _atomic_write_text(text: str, path: Path, tmp: Path | None = None) -> None:
    """`text` at `path`, whole or not at all (written first to `tmp`, by default a hidden name beside it)."""
    tmp = tmp or path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def new_run_id(spec: RunSpec) -> str:
    """A fresh run's id: 20 hex digits of a hash of its spec and a random nonce (two runs of one spec differ).

    Parameters
    ----------
    spec : RunSpec
        The run.

    Returns
    -------
    str
        The id, as the manifest, the result's metadata, its sidecar and every chunk part record it.
    """
    text = json.dumps(spec.to_json(), sort_keys=True, separators=(",", ":")) + secrets.token_hex(16)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


# --- the work of one chunk (runs in a worker process or on a Dask worker) ----------


def run_chunk(spec: RunSpec, i: int, isolation: Isolation | None = None) -> tuple[int, pa.Table, pa.Table | None]:
    """Chunk i's rows (and its move log when the run keeps one) as Arrow tables.

    Parameters
    ----------
    spec : RunSpec
        The run.
    i : int
        The chunk's index.
    isolation : boardlab.experiments.isolation.Isolation or None
        How Python agents play (it changes no row); None: in process.

    Returns
    -------
    tuple
        ``(i, rows, moves)``: the rows conformed to the game's schema, the move log or None.
    """
    return i, *chunk_tables(spec, i, play_chunk(spec, i, isolation))


def play_chunk(spec: RunSpec, i: int, isolation: Isolation | None = None):
    """Chunk i's games, before the tables perhaps (what chunk_tables takes): what the game's chunk player,
    or its move log with --moves, returns (boardlab.sim.games.Simulation).

    Parameters
    ----------
    spec : RunSpec
        The run.
    i : int
        The chunk's index.
    isolation : boardlab.experiments.isolation.Isolation or None
        How Python agents play (it changes no row); None: in process.

    Returns
    -------
    object
        A table, a function building one, or (with --moves) a pair of tables.
    """
    start, stop = spec.bounds(i)
    agents = spec.agent_specs()
    if needs_api(agents):  # a Python agent plays through the public API (make_spec refuses --moves here)
        g, rs = spec.game_def(), spec.rule_set()
        return play_table(g, rs, spec.players, agents, spec.seating, spec.seed, start, stop, isolation)
    player = spec.game_def().require("move_log" if spec.moves else "chunk_player")
    return player(spec.rule_set(), spec.players, agents, spec.seating, spec.seed, start, stop)


def chunk_tables(spec: RunSpec, i: int, played) -> tuple[pa.Table, pa.Table | None]:
    """play_chunk's games -> the chunk's result table (checked against the game's schema) and move log (or None).

    Parameters
    ----------
    spec : RunSpec
        The run.
    i : int
        The chunk's index (for messages).
    played : object
        What :func:`play_chunk` returned.

    Returns
    -------
    tuple
        ``(rows, moves)``: a pyarrow.Table of the game's schema, and the move log's table or None.
    """
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


def _pid_digits() -> int:
    """Digits of the largest process id (the temporary names carry one)."""
    try:
        return len(Path("/proc/sys/kernel/pid_max").read_text().strip())
    except OSError:
        return 7  # Linux's largest possible, 4194304


def _names(paths: RunPaths, moves: bool) -> list[tuple[str, str]]:
    """Every name the run may create, (as a pattern for the user, as it is here): the output and its sidecars
    beside it, and the temporary names inside ``OUT.parts/`` (a process id of the largest width)."""
    pid = "9" * _pid_digits()
    finals = [("NAME", paths.out.name), ("NAME.json", paths.sidecar.name)]
    if moves:
        finals.append(("STEM.moves.parquet", paths.moves.name))
    beside = [
        ("NAME.parts", paths.parts.name),
        ("NAME.lock", paths.lock.name),
        ("NAME.error.log", paths.error_log.name),
    ]
    inside = [(f".{pattern}.PID.tmp", f".{name}.{pid}.tmp") for pattern, name in finals]
    return [*finals, *beside, *inside]


def check_place(paths: RunPaths, moves: bool = False) -> None:
    """Refuse an output the run could not write, before anything is written: a missing or non-directory
    parent, a directory in the output's place, a name that (with a sidecar's or temporary name's suffix)
    exceeds the filesystem's limit on a name, a directory where no file can be created (checked by creating
    and deleting a probe file: permission bits say nothing for root, nor for /proc).

    Parameters
    ----------
    paths : RunPaths
        The run's files.
    moves : bool
        Whether the run writes a move log (its names are checked too).
    """
    parent = paths.out.parent
    try:
        if not parent.exists():
            raise SimulateError(f"--out: directory {parent} does not exist")
        if not parent.is_dir():
            raise SimulateError(f"--out: {parent} is a file, not a directory")
        try:
            name_max = os.pathconf(parent, "PC_NAME_MAX")
        except (OSError, ValueError):
            name_max = 255
        pattern, longest = max(_names(paths, moves), key=lambda n: len(n[1]))
        if len(longest) > name_max:
            allowed = name_max - (len(longest) - len(paths.out.name))
            raise SimulateError(
                f"--out: the file name is {len(paths.out.name)} characters long, and the run also writes {pattern}"
                f" ({len(longest)} characters) where a name has at most {name_max}: give a name of at most"
                f" {max(allowed, 0)} characters"
            )
        if paths.out.is_dir():
            raise SimulateError(f"--out: {paths.out} is a directory; give a file name such as run.parquet")
    except OSError as e:  # a path the system refuses to look at (a folder's name too long, a loop of links)
        raise SimulateError(f"--out: {paths.out}: {e.strerror or e}") from None
    try:
        with tempfile.NamedTemporaryFile(dir=parent, prefix=".boardlab-probe-"):
            pass
    except OSError as e:
        raise SimulateError(
            f"--out: directory {parent} is not writable: cannot create a file in it ({e.strerror or e})"
        ) from None


@contextlib.contextmanager
def output_lock(paths: RunPaths) -> Iterator[None]:
    """Hold the exclusive lock of the run's output (``fcntl.flock`` on ``OUT.lock``) for the block: the one
    writer of ``OUT`` and its sidecars.  The lock goes with the process however it ends (a kill -9 too);
    the lock file is removed when the block ends.

    Parameters
    ----------
    paths : RunPaths
        The run's files.

    Returns
    -------
    contextlib.AbstractContextManager
        Entered: the lock is held.  SimulateError, one line, when another process holds it.
    """
    fd = _lock(paths)
    try:
        yield
    finally:
        with contextlib.suppress(OSError):
            os.unlink(paths.lock)  # while still held: whoever opened this file finds it gone and retries
        os.close(fd)


def _lock(paths: RunPaths) -> int:
    """The locked file descriptor of OUT.lock (see output_lock)."""
    while True:
        try:
            fd = os.open(paths.lock, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        except OSError as e:
            raise SimulateError(f"--out: cannot create {paths.lock} ({e.strerror or e})") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            raise SimulateError(
                f"--out: another process is writing {paths.out} (it holds {paths.lock}); wait for it to end"
            ) from None
        except BaseException:
            os.close(fd)
            raise
        # the holder before us may have removed the file between our open and our lock: then the lock is on
        # a file no other process can find, and the path's (new) file is the one to lock
        try:
            st = os.stat(paths.lock)
        except FileNotFoundError:
            st = None
        fst = os.fstat(fd)
        if st is not None and (st.st_dev, st.st_ino) == (fst.st_dev, fst.st_ino):
            return fd
        os.close(fd)


def check_output(paths: RunPaths, resume: bool, force: bool) -> None:
    """Refuse to start where the result would be ambiguous; nothing is written here.

    Parameters
    ----------
    paths : RunPaths
        The run's files.
    resume : bool
        ``--resume``: an interrupted run must be there.
    force : bool
        ``--force``: an existing result or parts may be replaced.
    """
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


def read_manifest(paths: RunPaths) -> dict:
    """An interrupted run's manifest (``OUT.parts/run.json``), checked to hold its spec and run id.

    Parameters
    ----------
    paths : RunPaths
        The run's files.

    Returns
    -------
    dict
        The manifest.  SimulateError, one line naming the file, when it is not a manifest.
    """
    try:
        manifest = json.loads(paths.manifest.read_bytes())
    except OSError as e:
        reason = e.strerror or str(e)
    except ValueError as e:  # not JSON, or not UTF-8
        reason = f"not JSON: {str(e).splitlines()[0]}"
    else:
        if not isinstance(manifest, dict):
            reason = "not a JSON object"
        elif not isinstance(manifest.get("spec"), dict):
            reason = "no spec"
        elif not isinstance(manifest.get(RUN_ID), str) or not manifest[RUN_ID]:
            reason = "no run id"
        else:
            return manifest
    raise SimulateError(f"cannot resume: {paths.manifest} is damaged ({reason}); start again with --force")


def check_part(path: Path, run_id: str, rows: int | None = None) -> None:
    """Refuse a part that is not a whole part of run `run_id`: unreadable, unstamped, another run's (copied
    from its ``.parts``), or of another row count than `rows` (when given).

    Parameters
    ----------
    path : Path
        The part (an Arrow IPC file written by the run writer).
    run_id : str
        The run it must belong to.
    rows : int, optional
        The rows it must hold.
    """
    again = "delete it to replay it"
    try:
        with pa.memory_map(str(path)) as source:
            reader = pa.ipc.open_file(source)
            stamp = (reader.schema.metadata or {}).get(PART_STAMP)
            n = sum(reader.get_batch(k).num_rows for k in range(reader.num_record_batches))
    except (OSError, pa.ArrowException) as e:
        lines = str(e).strip().splitlines()
        reason = getattr(e, "strerror", None) or (lines[0] if lines else type(e).__name__)
        raise SimulateError(f"--resume: {path} is damaged ({reason}); {again}") from None
    if stamp is None:
        raise SimulateError(f"--resume: {path} is damaged (no run id stamp); {again}")
    if stamp.decode(errors="replace") != run_id:
        raise SimulateError(
            f"--resume: {path} belongs to run {stamp.decode(errors='replace')}, not this run {run_id}; {again}"
        )
    if rows is not None and n != rows:
        raise SimulateError(f"--resume: {path} is damaged ({n:,} rows, not {rows:,}); {again}")


def check_parts(spec: RunSpec, paths: RunPaths, run_id: str, done: Iterable[int]) -> None:
    """Every part of the chunks `done` checked (:func:`check_part`): what --resume keeps is this run's.

    Parameters
    ----------
    spec : RunSpec
        The run.
    paths : RunPaths
        The run's files.
    run_id : str
        The interrupted run's id (its parts must carry it).
    done : iterable of int
        The chunks whose parts are on disk.
    """
    for i in sorted(done):
        a, b = spec.bounds(i)
        check_part(paths.chunk(i), run_id, (b - a) * spec.players)
        if spec.moves:
            check_part(paths.chunk_moves(i), run_id)


def check_resume(spec: RunSpec, paths: RunPaths) -> dict:
    """The interrupted run's manifest, checked to be this spec's, with its parts this run's.

    Parameters
    ----------
    spec : RunSpec
        The run.
    paths : RunPaths
        The run's files.

    Returns
    -------
    dict
        The manifest (SimulateError, one line, naming the first difference otherwise).
    """
    manifest = read_manifest(paths)
    if not same_spec(manifest["spec"], spec.to_json()):
        raise SimulateError(
            "--resume: this is not the interrupted run's command ("
            + _describe_difference(manifest["spec"], spec.to_json())
            + "); rerun it with the original parameters"
        )
    check_parts(spec, paths, manifest[RUN_ID], chunks_on_disk(spec, paths))
    return manifest


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


def prepare(spec: RunSpec, paths: RunPaths, resume: bool, force: bool, manifest: dict | None = None) -> dict:
    """Create or check the run's parts directory and manifest; return the manifest.

    A resumed run keeps its manifest (and run id).  A new run gets a fresh parts directory (under `force` an
    earlier run's parts are discarded; its result files stay until the new result replaces them) and a manifest
    with a new run id.

    Parameters
    ----------
    spec : RunSpec
        The run.
    paths : RunPaths
        The run's files.
    resume : bool
        Continue an interrupted run.
    force : bool
        Discard an earlier run's parts.
    manifest : dict or None
        With `resume`: the manifest :func:`check_resume` returned (None: checked here).

    Returns
    -------
    dict
        The manifest: run id, spec, start time, package version, git commit.
    """
    check_output(paths, resume, force)
    if resume:
        return manifest if manifest is not None else check_resume(spec, paths)
    if force and (paths.parts.exists() or paths.parts.is_symlink()):
        if paths.parts.is_dir() and not paths.parts.is_symlink():
            shutil.rmtree(paths.parts)
        else:
            paths.parts.unlink()
    paths.parts.mkdir()
    manifest = {
        RUN_ID: new_run_id(spec),
        "spec": spec.to_json(),
        "started": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "package_version": package_version(),
        "git_commit": git_commit(),
    }
    _atomic_write_text(json.dumps(manifest, indent=1), paths.manifest)
    return manifest


def same_spec(stored: dict | None, spec: dict) -> bool:
    """Whether a stored run's spec is `spec` (runs stored before the game registry are the default game's).

    Parameters
    ----------
    stored : dict or None
        The manifest's spec.
    spec : dict
        :meth:`RunSpec.to_json` of this run.

    Returns
    -------
    bool
        True when equal, the fields a stored spec may lack given their defaults.
    """
    return stored is not None and {"game": default_game(), "tiers": [], "agent_versions": [], **stored} == spec


def chunks_on_disk(spec: RunSpec, paths: RunPaths) -> set[int]:
    """The chunks whose parts are all written, from one listing of the parts directory.

    Parameters
    ----------
    spec : RunSpec
        The run.
    paths : RunPaths
        The run's files.

    Returns
    -------
    set of int
        Chunk indices with a rows part (and a move-log part when the run keeps moves).
    """
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
    (its plan is never a list of every chunk).

    Parameters
    ----------
    spec : RunSpec
        The run.
    paths : RunPaths
        The run's files.
    done : set of int or None
        The chunks already written; None: :func:`chunks_on_disk`.

    Returns
    -------
    iterator of int
        The indices of the other chunks, ascending.
    """
    done = chunks_on_disk(spec, paths) if done is None else done
    return (i for i in range(spec.n_chunks) if i not in done)


def _execute(
    spec: RunSpec, todo: Iterable[int], backend: str, jobs: int, client=None, isolation: Isolation | None = None
) -> Iterable[tuple[int, pa.Table, pa.Table | None]]:
    """The chunks `todo` played, as (index, table, move log), in the order they finish."""
    if backend not in BACKENDS:
        raise SimulateError(f"--backend must be loky or dask, got {backend!r}")
    work = functools.partial(run_chunk, spec, isolation=isolation)
    return map_chunks(work, todo, jobs, backend, ordered=False, client=client)


def connect(scheduler: str | None):
    """A Dask client: of the scheduler at `scheduler`, or of a local cluster of two processes.

    Parameters
    ----------
    scheduler : str or None
        The scheduler's address; None: a local cluster.

    Returns
    -------
    distributed.Client
        The client (SimulateError, one line, when the scheduler cannot be reached, before anything is written).
    """
    return executor.connect(scheduler, SimulateError)


def write_chunk(spec: RunSpec, i: int, paths: RunPaths, run_id: str, isolation: Isolation | None = None) -> int:
    """Chunk i played and written as its parts (atomically, stamped with `run_id`): what a worker process does
    on the --jobs >1 path, so that its rows never travel to the main process.

    Parameters
    ----------
    spec : RunSpec
        The run.
    i : int
        The chunk.
    paths : RunPaths
        The run's files (on a filesystem the worker shares with the main process).
    run_id : str
        The run's id, stamped in the parts.
    isolation : Isolation, optional
        How Python agents play.

    Returns
    -------
    int
        i.
    """
    _, table, moves = run_chunk(spec, i, isolation)
    if moves is not None:
        _atomic_write_table(moves, paths.chunk_moves(i), run_id)
    _atomic_write_table(table, paths.chunk(i), run_id)
    return i


def _write_chunks(
    spec: RunSpec,
    paths: RunPaths,
    run_id: str,
    todo: Iterable[int],
    backend: str,
    jobs: int,
    client=None,
    isolation: Isolation | None = None,
) -> Iterator[int]:
    """The chunks `todo` played and written as parts, in the order they finish; yields each one's index once its
    parts are complete.  On loky each worker process writes its own chunks' parts (the filesystem is the one the
    main process writes to); Dask's workers may not share it, so their chunks come back as tables and the main
    process writes them."""
    if backend == "dask":
        for i, table, moves in _execute(spec, todo, backend, jobs, client, isolation):
            if moves is not None:
                _atomic_write_table(moves, paths.chunk_moves(i), run_id)
            _atomic_write_table(table, paths.chunk(i), run_id)
            yield i
        return
    work = functools.partial(write_chunk, spec, paths=paths, run_id=run_id, isolation=isolation)
    yield from map_chunks(work, todo, jobs, backend, ordered=False)


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
    before: Callable[[], object] | None = None,
) -> dict:
    """Play the run's missing chunks, then assemble the result.

    Every check (the output's place and names, its one writer, the state --resume or --force needs, the
    backend, the Dask scheduler) comes before anything is written; the run holds the output's lock
    (:func:`output_lock`) from then until it ends.  A Python agent's failure (AgentFailure) leaves the finished
    chunks in OUT.parts and its traceback in OUT.error.log, which the failure's message names.  Under `force` the
    earlier result stays in place until the new one replaces it, whole.

    Parameters
    ----------
    spec : RunSpec
        The run.
    out : pathlib.Path
        The result file (Parquet).
    jobs : int
        Worker processes (at most one per chunk).
    backend : str
        ``loky`` or ``dask``.
    scheduler : str or None
        The Dask scheduler's address (``dask`` only; None: a local cluster).
    resume : bool
        Continue the interrupted run at `out`.
    force : bool
        Replace an earlier result or run at `out`.
    progress : callable or None
        Called ``progress(games done, games, games per second)`` after each chunk.
    isolation : boardlab.experiments.isolation.Isolation or None
        How Python agents play (it changes no row); None: in process.
    before : callable or None
        Called once every check has passed, before the first write (the command compiles the kernels there);
        the seconds it returns, when a number, are the session's compile time (``this_session.compile_seconds``
        in the metadata), apart from its play.

    Returns
    -------
    dict
        The result's metadata (what :func:`read_metadata` reads back).
    """
    paths = RunPaths(Path(out))
    if backend not in BACKENDS:
        raise SimulateError(f"--backend must be loky or dask, got {backend!r}")
    jobs = max(1, min(jobs, spec.n_chunks))  # never more worker processes than chunks (reproduce, tune, train)
    if resume and force:
        raise SimulateError("--resume and --force contradict each other: choose one")
    check_place(paths, spec.moves)
    with output_lock(paths):
        return _run_locked(spec, paths, jobs, backend, scheduler, resume, force, progress, isolation, before)


def _run_locked(
    spec: RunSpec,
    paths: RunPaths,
    jobs: int,
    backend: str,
    scheduler: str | None,
    resume: bool,
    force: bool,
    progress,
    isolation,
    before: Callable[[], object] | None = None,
) -> dict:
    """run, its output's lock held."""
    check_output(paths, resume, force)
    manifest = check_resume(spec, paths) if resume else None
    compiled = before() if before is not None else None
    client = connect(scheduler) if backend == "dask" else None
    try:
        return _run(spec, paths, jobs, backend, client, resume, force, progress, isolation, manifest,
                    compile_seconds=_seconds(compiled))  # fmt: skip
    except AgentFailure as e:
        e.write_log(paths.error_log)
        raise
    finally:
        if client is not None:
            client.close()


def _seconds(value: object) -> float | None:
    """`value` as seconds when it is a number (not a bool), else None."""
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _run(
    spec: RunSpec,
    paths: RunPaths,
    jobs: int,
    backend: str,
    client,
    resume: bool,
    force: bool,
    progress,
    isolation,
    manifest: dict | None = None,
    compile_seconds: float | None = None,
):
    manifest = prepare(spec, paths, resume, force, manifest)
    run_id = manifest[RUN_ID]
    done = chunks_on_disk(spec, paths)
    todo = missing_chunks(spec, paths, done)
    done_games = sum(spec.bounds(i)[1] - spec.bounds(i)[0] for i in done)
    t0 = time.perf_counter()
    new_games = 0
    if progress:
        progress(done_games, spec.games, 0.0)
    # one thread encodes the final file in game order while the chunks play.  --jobs 1: the chunks are
    # played here, in game order, and each is handed to that thread, which makes its tables and parts and
    # encodes it while the next plays.  Otherwise workers write the parts as their chunks finish, in any
    # order, and the thread encodes each from its parts once the chunks before it are there
    stream = _StreamedAssembly(spec, paths, run_id)
    try:
        if jobs == 1 and backend == "loky":
            finished = iter(todo)
        else:
            stream.have(done)
            finished = _write_chunks(spec, paths, run_id, todo, backend, jobs, client, isolation)
        for i in finished:
            if jobs == 1 and backend == "loky":
                stream.add(i, play_chunk(spec, i, isolation))
            else:
                stream.ready(i)
            a, b = spec.bounds(i)
            done_games += b - a
            new_games += b - a
            if progress:
                progress(done_games, spec.games, new_games / max(time.perf_counter() - t0, 1e-9))
        stream.wait()  # every chunk's parts are written
        elapsed = time.perf_counter() - t0
        meta = _metadata(spec, manifest, new_games, elapsed, compile_seconds)
        stream.finish(meta, replacing=force)
    except BaseException:
        # the workers stop before the lock is released (closing joblib's generator ends its worker processes):
        # none may write a part once another run can own the output
        close = getattr(finished, "close", None)
        if close is not None:
            close()
        stream.abort()  # the parts stay, for --resume
        raise
    return meta


def _metadata(
    spec: RunSpec, manifest: dict, new_games: int, elapsed: float, compile_seconds: float | None = None
) -> dict:
    session: dict = {"games": new_games, "seconds": round(elapsed, 2)}  # play only: compilation is apart
    if compile_seconds is not None:
        session["compile_seconds"] = round(float(compile_seconds), 2)
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
        "this_session": session,
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
    the schema names as all distinct (boardlab.experiments.schema.plain_columns) are written without a dictionary;
    text columns without min/max statistics (nothing reads them, and they cost about a tenth of the encoding:
    :func:`statistics_columns`)."""
    plain = plain_columns(schema)
    dictionary = [c for c in schema.names if c not in plain]
    return pq.ParquetWriter(
        path,
        schema.with_metadata({METADATA_KEY: blob}),
        compression="zstd",
        use_dictionary=dictionary,
        write_statistics=statistics_columns(schema),
    )


def statistics_columns(schema: pa.Schema) -> list[str]:
    """The columns of a result file written with Parquet min/max statistics: all but the text columns.

    Parameters
    ----------
    schema : pyarrow.Schema
        The result schema.

    Returns
    -------
    list of str
        The column names, in schema order.
    """
    text = (pa.types.is_string, pa.types.is_large_string, pa.types.is_binary, pa.types.is_large_binary)
    return [f.name for f in schema if not any(is_text(f.type) for is_text in text)]


def _finish_run(spec: RunSpec, paths: RunPaths, meta: dict, replacing: bool = False) -> None:
    """After the final files are in place: the sidecar, the move log of the result replaced (`replacing`)
    when this run keeps none, then drop the parts (and any stale temporary file)."""
    _atomic_write_text(json.dumps(meta, indent=1), paths.sidecar, paths.temporary(paths.sidecar))
    if replacing and not spec.moves:
        paths.moves.unlink(missing_ok=True)
    shutil.rmtree(paths.parts)


def _assemble(spec: RunSpec, paths: RunPaths, meta: dict, replacing: bool = False) -> None:
    """Stream the chunks, in game order, into the final files; then drop the parts."""
    blob = json.dumps(meta).encode()
    for chunk_path, final in _targets(spec, paths):
        tmp = paths.temporary(final)
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
    _finish_run(spec, paths, meta, replacing)


class _StreamedAssembly:
    """The final files written while the chunks play, in game order.

    On the --jobs 1 path (:meth:`add`) each chunk the main thread has played (:func:`play_chunk`:
    the kernels' arrays) is handed to one background thread, which makes its tables
    (:func:`chunk_tables`), writes its parts (atomically: what --resume needs) and appends it, one row group,
    to the final files, kept as temporary files inside ``OUT.parts/`` until complete (so an
    interrupted run's leftovers go with its parts).  Chunks an earlier session left as parts
    are read back from them in their turn.  The run's metadata is only known at the end: the
    files are opened with an empty value under METADATA_KEY, and :meth:`finish` replaces it,
    and the Arrow schema stored beside it, before the footer is written, so a file is the
    same, byte for byte, as :func:`_assemble` writes from the parts.  At most one chunk waits
    for the thread, so memory stays at about two chunks' worth.  With several jobs
    (:meth:`ready`) the workers write the parts, in any order, and each chunk is queued, to be
    read back from its parts, once the chunks before it are queued (a queued part costs no
    memory until the thread reads it).

    The thread is the only one this process adds, and it does no game work: it turns finished
    games into tables and files (pyarrow and numpy release the GIL for the bulk of that, and
    the game kernels release it while they play).
    """

    def __init__(self, spec: RunSpec, paths: RunPaths, run_id: str | None = None):
        self.spec, self.paths, self.run_id = spec, paths, run_id
        self.targets = _targets(spec, paths)
        self.tmps = [paths.temporary(final) for _, final in self.targets]
        self.writers: list[pq.ParquetWriter | None] = [None] * len(self.targets)
        self.next = 0  # chunks before it are queued
        self.pending: collections.deque[Future] = collections.deque()
        self.available: set[int] = set()  # chunks from `next` on whose parts are written (ready, have)
        self.failed = False  # the thread stopped on an error: later chunks are not appended
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

    def have(self, chunks: Iterable[int]) -> None:
        """Chunks whose parts an earlier session wrote: each is queued in its turn (see ready)."""
        self.available.update(c for c in chunks if c >= self.next)
        self._flush()

    def ready(self, i: int) -> None:
        """Chunk i's parts are written (by a worker, in any order): queue it, and the chunks after it whose parts
        are there, as soon as every chunk before it is queued.  Queuing parts does not wait for the thread
        (a part is a file, not memory); an error of the thread's is raised here or by wait."""
        self.available.add(i)
        self._flush()

    def _flush(self) -> None:
        while self.next in self.available:
            self.available.discard(self.next)
            self._queue(self.next, None, block=False)

    def _queue(self, i: int, played: tuple | None, block: bool = True) -> None:
        if block:
            self.wait()  # the previous chunk is done: at most one played chunk waits
        while self.pending and self.pending[0].done():
            self.pending.popleft().result()  # an error of the thread's, raised here
        self.pending.append(self.pool.submit(self._write, i, played))
        self.next = i + 1

    def _write(self, i: int, played: tuple | None) -> None:
        """On the thread: chunk i's parts (when played here) and its row groups in the final files; after an
        error or abort only the parts (a chunk played is kept for --resume)."""
        try:
            if played is None:
                if self.failed:
                    return
                tables = [_read_part(chunk(i)) for chunk, _ in self.targets]
            else:
                table, moves = chunk_tables(self.spec, i, played)
                if moves is not None:
                    _atomic_write_table(moves, self.paths.chunk_moves(i), self.run_id)
                _atomic_write_table(table, self.paths.chunk(i), self.run_id)
                tables = [table, moves][: len(self.targets)]
            if not self.failed:
                self._append(tables)
        except BaseException:
            self.failed = True
            raise

    def _append(self, tables: list[pa.Table]) -> None:
        for k, table in enumerate(tables):
            if self.writers[k] is None:
                self.writers[k] = _open_parquet(self.tmps[k], table.schema, b"")
            self.writers[k].write_table(table)

    def wait(self) -> None:
        """Until the thread has done every chunk queued (an error of its is raised here)."""
        while self.pending:
            self.pending.popleft().result()

    def finish(self, meta: dict, replacing: bool = False) -> None:
        """Queue the chunks not yet queued (all parts by now), wait, write the metadata and footers,
        rename into place; then the sidecar, and drop the parts (`replacing`: see _finish_run)."""
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
        _finish_run(self.spec, self.paths, meta, replacing)

    def abort(self) -> None:
        """Stop without a result: let the thread finish the chunk it has (so every chunk played has its
        parts, as on the other path), then close and delete the temporary files (the parts stay)."""
        self.failed = True  # the chunks queued after it only write the parts of chunks played here
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
    """A result file's run metadata.

    Parameters
    ----------
    path : pathlib.Path
        The result file.

    Returns
    -------
    dict
        The metadata (SimulateError, one line naming the file, when it has none or cannot be read).
    """
    try:
        md = pq.read_schema(path).metadata or {}
    except (OSError, pa.ArrowException) as e:
        raise SimulateError(f"{path}: cannot read it as a result file: {str(e).splitlines()[0]}") from None
    key = next((k for k in METADATA_KEYS if k in md), None)
    if key is None:
        raise SimulateError(f"{path}: not a result of a run (no run metadata)")
    return json.loads(md[key])


def compile_first(spec: RunSpec) -> Callable[[], float | None]:
    """What a command runs once a run's checks have passed and before it plays: the kernels its agents use,
    compiled when the cache lacks them, announced on stderr first (:func:`boardlab.experiments.warmup.ensure_compiled`).

    Parameters
    ----------
    spec : RunSpec
        The run.

    Returns
    -------
    callable
        ``before()`` for :func:`run`: the seconds it compiled, or None when everything was cached.
    """

    def before() -> float | None:
        from boardlab.experiments.warmup import ensure_compiled

        def say(line: str) -> None:  # plain lines: a command's own progress display may be live on stderr
            print(line, file=sys.stderr, flush=True)

        g = spec.game_def()
        done = ensure_compiled(g, list(spec.agents), spec.players, spec.rule_set(), log=say)
        if done["compiled"]:
            say(f"compiled the {g.id} kernels in {done['seconds']:.1f} s")
        return done["seconds"] if done["compiled"] else None

    return before


def run_or_reuse(spec: RunSpec, out: Path, **kwargs) -> tuple[dict, bool]:
    """The run at `out` for `spec`: reused when complete with the same spec, resumed when
    interrupted with the same spec, played afresh otherwise (a stale file of another spec, or an
    interrupted run of another spec or with a damaged manifest, is replaced).  For tools that keep their
    own run cache (reproduce, sweep).  The choice and the run are made holding the output's lock
    (:func:`output_lock`).

    Parameters
    ----------
    spec : RunSpec
        The run.
    out : Path
        Its result file.
    **kwargs
        As :func:`run` takes them (jobs, backend, scheduler, progress, isolation, before); `before` defaults to
        :func:`compile_first` (a run reused compiles nothing).

    Returns
    -------
    tuple[dict, bool]
        (metadata, reused).
    """
    paths = RunPaths(Path(out))
    want = spec.to_json()
    opts = {"jobs": 1, "backend": "loky", "scheduler": None, "progress": None, "isolation": None, "before": None}
    unknown = set(kwargs) - set(opts)
    if unknown:
        raise TypeError(f"run_or_reuse: unexpected arguments {sorted(unknown)}")
    opts.update(kwargs)
    if opts["before"] is None:
        opts["before"] = compile_first(spec)
    if opts["backend"] not in BACKENDS:
        raise SimulateError(f"--backend must be loky or dask, got {opts['backend']!r}")
    check_place(paths, spec.moves)
    with output_lock(paths):
        if paths.out.exists() and not paths.parts.exists():
            try:
                meta = read_metadata(paths.out)
                if same_spec(meta.get("spec"), want):
                    return meta, True
            except (SimulateError, OSError, ValueError):
                pass
            return _run_locked(spec, paths, resume=False, force=True, **opts), False
        if paths.manifest.exists():
            try:
                manifest = read_manifest(paths)
            except SimulateError:
                manifest = {}
            if same_spec(manifest.get("spec"), want):
                return _run_locked(spec, paths, resume=True, force=False, **opts), False
        force = paths.out.exists() or paths.parts.exists()
        return _run_locked(spec, paths, resume=False, force=force, **opts), False
