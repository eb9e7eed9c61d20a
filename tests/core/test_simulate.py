"""`boardlab simulate`: reproducibility across jobs and backends, resume after interruption, bad input.

The runs are of Pig (examples/pig: pure Python, nothing to compile) where the game is not the point; Citywright's
own columns and move log are tested in tests/citywright/test_results.py."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from boardlab.experiments import simulate as S
from boardlab.experiments.cli import main
from boardlab.experiments.schema import schema_of
from boardlab.experiments.seating import seat_orders
from boardlab.sim.games import get_game
from tests.cli import said
from tests.result_files import ResultFiles

GAME = get_game("pig")
AGENTS = ["random", "random-prefers:hold", "random-prefers:roll"]  # three agents: the seat order shows


def _spec(games=120, chunk=20, moves=False, agents=AGENTS, players=3, seating="rotate"):
    """A run of Pig's default rules, seed 11."""
    return S.make_spec(
        players, agents, games, 11, GAME.load_rules(GAME.default_preset), seating, chunk, moves, game=GAME
    )


def _read(path: Path) -> pd.DataFrame:
    return pd.read_parquet(path)


def test_run_metadata_is_in_the_file_and_its_sidecar(tmp_path):
    out = tmp_path / "run.parquet"
    meta = S.run(_spec(games=40), out)
    df = _read(out)
    assert list(df.columns) == schema_of(GAME).names
    assert len(df) == 40 * 3 and sorted(df["game"].unique()) == list(range(40))
    assert df.groupby("game")["win_share"].sum().round(9).eq(1.0).all()
    side = json.loads((tmp_path / "run.parquet.json").read_text())
    assert side == S.read_metadata(out) == meta
    for key in ("rules", "agents", "seed", "games", "seating", "package_version", "git_commit", "started", "finished"):
        assert key in side
    assert not (tmp_path / "run.moves.parquet").exists()


def test_file_schema_and_pandas_types(tmp_path):
    """The Parquet file holds the game's schema plus the run's metadata, nothing else; a row group per chunk,
    zstd-compressed, min/max statistics for every column but the text ones; pandas reads the strings as str."""
    out = tmp_path / "run.parquet"
    S.run(_spec(games=30, chunk=7), out)
    schema = pq.read_schema(out)
    assert schema.remove_metadata().equals(schema_of(GAME).remove_metadata())
    assert list(schema.metadata) == [S.METADATA_KEY]
    f = pq.ParquetFile(out)
    assert [f.metadata.row_group(i).num_rows for i in range(f.num_row_groups)] == [21, 21, 21, 21, 6]
    assert {f.metadata.row_group(0).column(i).compression for i in range(len(schema))} == {"ZSTD"}
    dtypes = _read(out).dtypes
    strings = [c.name for c in schema if c.type == pa.large_string()]
    assert strings == ["rules", "agent"]
    assert [c for c in schema.names if dtypes[c] == "str"] == strings
    group = f.metadata.row_group(0)
    with_stats = [schema.names[i] for i in range(len(schema)) if group.column(i).is_stats_set]
    assert with_stats == [c for c in schema.names if c not in strings] == S.statistics_columns(schema)
    assert group.column(schema.names.index("total")).statistics.has_min_max


def test_same_table_for_any_jobs_and_chunking(tmp_path):
    a = S.run(_spec(chunk=20), tmp_path / "a.parquet", jobs=1)
    b = S.run(_spec(chunk=20), tmp_path / "b.parquet", jobs=2)
    c = S.run(_spec(chunk=7), tmp_path / "c.parquet", jobs=2)
    assert a["games"] == b["games"] == c["games"]
    da, db, dc = (_read(tmp_path / f"{x}.parquet") for x in "abc")
    pd.testing.assert_frame_equal(da, db)
    pd.testing.assert_frame_equal(da, dc)
    # and game g does not depend on how many games the run has
    S.run(_spec(games=60, chunk=20), tmp_path / "d.parquet")
    pd.testing.assert_frame_equal(da[da.game < 60].reset_index(drop=True), _read(tmp_path / "d.parquet"))


def test_dask_backend_equals_loky(tmp_path):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    ) as cluster:
        S.run(_spec(), tmp_path / "dask.parquet", backend="dask", scheduler=cluster.scheduler_address)
    S.run(_spec(), tmp_path / "loky.parquet", jobs=2)
    pd.testing.assert_frame_equal(_read(tmp_path / "dask.parquet"), _read(tmp_path / "loky.parquet"))


@pytest.mark.parametrize("seating", ["fixed", "rotate", "permute"])
def test_seatings_balance(seating):
    orders = seat_orders(3, seating, 0, 60)
    assert all(sorted(o) == [0, 1, 2] for o in orders)
    counts = pd.DataFrame(orders).apply(pd.Series.value_counts)
    if seating == "fixed":
        assert (orders == [0, 1, 2]).all()
    else:
        assert (counts == 20).all().all()  # every agent in every seat equally often
    if seating == "permute":
        assert len({tuple(o) for o in orders}) == 6


def sigint_default() -> None:
    """In the child before exec: Ctrl-C's default disposition, so Python installs its KeyboardInterrupt handler.

    A shell starts background jobs with SIGINT ignored and children inherit that; a test suite run that
    way (`bash .ci/run &`) would otherwise see the interrupted command ignore the signal and finish."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _cli(args: list[str], **kw) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "boardlab.experiments.cli", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=sigint_default,
        **kw,
    )


def _wait_for_chunks(parts: Path, n: int, proc: subprocess.Popen, timeout: float = 240) -> None:
    t = time.time()
    while time.time() - t < timeout:
        if parts.exists() and len(list(parts.glob("chunk-*.arrow"))) >= n:
            return
        if proc.poll() is not None:
            raise AssertionError(f"finished before being interrupted: {proc.stderr.read()}")
        time.sleep(0.05)
    raise AssertionError("no chunks appeared")


RUN = ["simulate", "--players", "2", "--agents", "greedy,specialist:C", "--games", "240", "--seed", "3",
       "--chunk-size", "10", "--quiet"]  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("how", ["kill -9", "ctrl-c"])
def test_interrupted_run_resumes_to_the_same_table(tmp_path, how):
    full = tmp_path / "full.parquet"
    p = _cli([*RUN, "--out", str(full)])
    assert p.wait(timeout=600) == 0, p.stderr.read()
    out = tmp_path / "cut.parquet"
    p = _cli([*RUN, "--out", str(out)])
    _wait_for_chunks(Path(f"{out}.parts"), 3, p)
    if how == "kill -9":
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
    else:
        os.killpg(p.pid, signal.SIGINT)
        assert p.wait(timeout=60) == 130
        err = p.stderr.read()
        assert "--resume" in err and "Traceback" not in err
    assert not out.exists()  # nothing that looks complete
    done = len(list(Path(f"{out}.parts").glob("chunk-*.arrow")))
    assert 3 <= done < 24
    p = _cli([*RUN, "--out", str(out), "--resume"])
    assert p.wait(timeout=600) == 0, p.stderr.read()
    assert f"{(24 - done) * 10:,} games played now" in p.stdout.read()
    pd.testing.assert_frame_equal(_read(full), _read(out))
    assert not Path(f"{out}.parts").exists()


def _loky_workers(pid: int) -> list[int]:
    """The loky worker processes among the children of `pid` (Linux: /proc/PID/task/*/children), not its
    resource tracker."""
    out = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        for c in (task / "children").read_text().split():
            cmd = Path(f"/proc/{c}/cmdline").read_bytes().replace(b"\0", b" ")
            if b"loky" in cmd and b"resource_tracker" not in cmd:
                out.append(int(c))
    return out


@pytest.mark.slow
def test_a_worker_killed_from_outside_is_one_line_and_the_run_resumes_to_the_same_table(tmp_path):
    run = [*RUN[:6], "2400", *RUN[7:]]  # long enough to be cut in the middle
    full = tmp_path / "full.parquet"
    p = _cli([*run, "--out", str(full)])
    assert p.wait(timeout=600) == 0, p.stderr.read()
    out = tmp_path / "cut.parquet"
    p = _cli([*run, "--jobs", "2", "--out", str(out)])
    _wait_for_chunks(Path(f"{out}.parts"), 3, p)
    workers = _loky_workers(p.pid)
    assert workers, "no worker processes"
    os.kill(workers[0], signal.SIGKILL)  # as an OOM killer or a user's kill would
    assert p.wait(timeout=120) == 1
    err = p.stderr.read()
    assert "a worker process died" in err and "Traceback" not in err and len(said(err)) == 1, err
    assert not out.exists()
    p = _cli([*run, "--jobs", "2", "--out", str(out), "--resume"])
    assert p.wait(timeout=600) == 0, p.stderr.read()
    pd.testing.assert_frame_equal(_read(full), _read(out))


def test_resume_with_other_parameters_is_refused(tmp_path, pig_spec):
    out = tmp_path / "r.parquet"
    spec = pig_spec(games=40)
    paths = S.RunPaths(out)
    S.prepare(spec, paths, resume=False, force=False)  # an interrupted run: manifest, no chunks
    other = pig_spec(games=50)
    with pytest.raises(S.SimulateError, match="games was 40, now 50"):
        S.run(other, out, resume=True)
    S.run(spec, out, resume=True)
    assert len(_read(out)) == 40 * 3


def run_cli(args, capsys):
    try:
        main(args)
        code = 0
    except SystemExit as e:
        code = e.code
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--players", "5", "--agents", "greedy"], "--players must be 1..4"),
        (["--players", "2", "--agents", "greedy,random,random"], "3 agents for 2 players"),
        (["--players", "2", "--agents", "smart"], "unknown agent 'smart'"),
        (["--players", "2", "--agents", "mcts:depth=2"], "unknown parameter 'depth'"),
        (["--players", "2", "--agents", "greedy", "--seating", "random"], "--seating must be one of"),
        (["--players", "2", "--agents", "greedy", "--backend", "spark"], "--backend must be loky or dask"),
        (["--players", "2", "--agents", "greedy", "--rules", "v2"], "unknown preset"),
    ],
)
def test_bad_input_is_one_line_and_writes_nothing(tmp_path, capsys, args, fragment):
    out = tmp_path / "x.parquet"
    code, _, err = run_cli(["simulate", *args, "--games", "10", "--out", str(out), "--quiet"], capsys)
    assert code == 2
    assert fragment in err
    assert len(err.strip().splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


def test_existing_output_needs_resume_or_force(tmp_path, capsys):
    out = tmp_path / "x.parquet"
    args = [
        "simulate",
        "--game",
        "pig",
        "--players",
        "2",
        "--agents",
        "random",
        "--games",
        "50",
        "--out",
        str(out),
        "--quiet",
    ]
    assert run_cli(args, capsys)[0] == 0
    before = out.read_bytes()
    code, _, err = run_cli(args, capsys)
    assert code == 2 and "exists" in err and "--force" in err
    assert out.read_bytes() == before
    assert run_cli([*args, "--force"], capsys)[0] == 0
    code, _, err = run_cli([*args, "--resume"], capsys)
    assert code == 2 and "already complete" in err


def test_unwritable_output_is_refused(tmp_path, capsys):
    code, _, err = run_cli(
        [
            "simulate",
            "--game",
            "pig",
            "--players",
            "2",
            "--agents",
            "random",
            "--games",
            "5",
            "--out",
            str(tmp_path / "no" / "x.parquet"),
        ],
        capsys,
    )
    assert code == 2 and "does not exist" in err


def test_chunks_are_written_atomically(tmp_path, pig_spec):
    """A chunk file is either absent or a complete Arrow IPC file: no partial names are left behind."""
    out = tmp_path / "a.parquet"
    spec = pig_spec(games=40)
    paths = S.RunPaths(out)
    S.prepare(spec, paths, resume=False, force=False)
    for i, table, _ in S._execute(spec, [0, 1], "loky", 1, None):
        S._atomic_write_table(table, paths.chunk(i))
    names = sorted(f.name for f in paths.parts.iterdir())
    assert names == ["chunk-0000000.arrow", "chunk-0000001.arrow", "run.json"]
    assert S._read_part(paths.chunk(1)).num_rows == 20 * 3


def assert_streamed_file_is_the_assembled_file(spec: S.RunSpec, tmp_path: Path) -> None:
    """--jobs 1 encodes the final file while the chunks play (boardlab.experiments.simulate._StreamedAssembly);
    other runs encode it from the parts at the end (_assemble).  Same metadata, same bytes: the
    metadata set at the end, the row groups, dictionaries and values; also when an earlier session
    left some chunks as parts (read back in their turn) and the parts are there at the end only.  With a move log
    (``spec.moves``: the seed games' kernels write one) its file too."""
    moves = spec.moves
    meta = {"finished": "then", "note": "the same metadata for every file"}
    ref = S.RunPaths(tmp_path / "ref.parquet")
    S.prepare(spec, ref, resume=False, force=False)
    for i, table, mv in S._execute(spec, list(range(spec.n_chunks)), "loky", 2, None):  # in any order
        if mv is not None:
            S._atomic_write_table(mv, ref.chunk_moves(i))
        S._atomic_write_table(table, ref.chunk(i))
    S._assemble(spec, ref, meta)
    for name, from_parts in [("played", ()), ("resumed", (0, 2, 3)), ("parts", tuple(range(spec.n_chunks)))]:
        paths = S.RunPaths(tmp_path / f"{name}.parquet")
        S.prepare(spec, paths, resume=False, force=False)
        for i in from_parts:  # an earlier session's parts
            _, table, mv = S.run_chunk(spec, i)
            if mv is not None:
                S._atomic_write_table(mv, paths.chunk_moves(i))
            S._atomic_write_table(table, paths.chunk(i))
        stream = S._StreamedAssembly(spec, paths)
        for i in S.missing_chunks(spec, paths):
            stream.add(i, S.play_chunk(spec, i))
        stream.finish(meta)
        assert not paths.parts.exists()
        assert paths.out.read_bytes() == ref.out.read_bytes(), name
        assert paths.moves.exists() == moves
        if moves:
            assert paths.moves.read_bytes() == ref.moves.read_bytes(), name
        assert json.loads(paths.sidecar.read_text()) == meta
    assert pq.ParquetFile(ref.out).metadata.num_row_groups == spec.n_chunks
    assert S.read_metadata(ref.out) == meta


def test_streamed_file_is_the_assembled_file_byte_for_byte(tmp_path):
    assert_streamed_file_is_the_assembled_file(_spec(games=100, chunk=20), tmp_path)


def test_streamed_run_interrupted_leaves_parts_and_no_output(tmp_path, monkeypatch):
    """An exception (Ctrl-C) in the middle of a --jobs 1 run: no output file, no temporary file,
    the chunks written so far are parts; --resume gives the table of an uninterrupted run."""
    spec = _spec(games=100, chunk=20)
    out = tmp_path / "cut.parquet"
    real = S.play_chunk

    def play(spec, i, *rest):
        if i == 3:
            raise KeyboardInterrupt
        return real(spec, i, *rest)

    monkeypatch.setattr(S, "play_chunk", play)
    with pytest.raises(KeyboardInterrupt):
        S.run(spec, out, jobs=1)
    paths = S.RunPaths(out)
    assert not out.exists() and not paths.sidecar.exists()
    assert sorted(f.name for f in paths.parts.iterdir()) == [
        "chunk-0000000.arrow", "chunk-0000001.arrow", "chunk-0000002.arrow", "run.json"
    ]  # fmt: skip
    assert [f for f in tmp_path.iterdir() if f.name.startswith(".")] == []
    monkeypatch.setattr(S, "play_chunk", real)
    meta = S.run(spec, out, jobs=1, resume=True)
    assert meta["this_session"]["games"] == 40
    S.run(spec, tmp_path / "full.parquet", jobs=2)
    pd.testing.assert_frame_equal(_read(out), _read(tmp_path / "full.parquet"))
    assert sorted(f.name for f in tmp_path.iterdir()) == sorted(
        ["cut.parquet", "cut.parquet.json", "full.parquet", "full.parquet.json"]
    )


def test_python_agents_chunks_follow_their_cost_and_a_pure_python_game_s_own_rule(monkeypatch):
    """Python agents through the generic player: the cheap generic ones in big chunks, any other in small ones; a
    game without kernels keeps its own chunk-size rule for them (it is about the generic player)."""
    from dataclasses import replace

    from boardlab.experiments.simulate import FAST_PYTHON_CHUNK, PYTHON_CHUNK, default_chunk_size
    from boardlab.sim.games import get_game

    city, pig = get_game("citywright"), get_game("pig")
    city_agents, pig_agents = city.agents().parse_agent, pig.agents().parse_agent
    assert default_chunk_size(city, [city_agents("ismcts:iters=5"), city_agents("greedy")], 5000) == PYTHON_CHUNK
    assert default_chunk_size(city, [city_agents("random-prefers:R"), city_agents("random")], 5000) == FAST_PYTHON_CHUNK
    assert default_chunk_size(pig, [pig_agents("random"), pig_agents("random-prefers:hold")], 5000) == FAST_PYTHON_CHUNK
    assert default_chunk_size(pig, [pig_agents("random"), pig_agents("ismcts")], 5000) == PYTHON_CHUNK
    assert default_chunk_size(pig, [pig_agents("random")], 300) == 300  # never more than the run
    from boardlab.sim.games import Lazy

    rule = replace(pig.simulation, chunk_size=Lazy("boardlab.experiments.simulate:_seven_games"))
    own = replace(pig, simulation=rule)
    monkeypatch.setattr(S, "_seven_games", lambda agents, games: 7, raising=False)
    assert default_chunk_size(own, [pig_agents("ismcts")], 5000) == 7


def test_a_run_of_any_size_starts_at_once(tmp_path, pig_spec):
    """The chunk plan is read one chunk at a time: 10**12 games start playing (and writing parts) at once,
    where a list of every chunk grew for minutes with nothing written."""
    spec = pig_spec(games=10**12, players=2, chunk=10)
    assert spec.n_chunks == 10**11
    stop_after = {"calls": 0}

    def progress(done, total, rate):
        assert total == 10**12
        stop_after["calls"] += 1
        if stop_after["calls"] == 3:  # the initial call, then two chunks
            raise KeyboardInterrupt

    t = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        S.run(spec, tmp_path / "huge.parquet", progress=progress)
    assert time.perf_counter() - t < 30
    paths = S.RunPaths(tmp_path / "huge.parquet")
    assert S.chunks_on_disk(spec, paths) == {0, 1}
    assert next(S.missing_chunks(spec, paths)) == 2
    with pytest.raises(S.SimulateError, match="--games must be 1"):
        pig_spec(games=S.MAX_GAMES + 1, players=2)


def test_a_failed_dask_connect_writes_nothing(tmp_path, monkeypatch, pig_spec):
    """The scheduler is reached before the run's parts and manifest are made: the same command without it runs."""

    def unreachable(scheduler):
        raise S.SimulateError(f"--scheduler: cannot reach {scheduler}: refused")

    monkeypatch.setattr(S, "connect", unreachable)
    out = tmp_path / "x.parquet"
    with pytest.raises(S.SimulateError, match="cannot reach"):
        S.run(pig_spec(games=10), out, backend="dask", scheduler="tcp://127.0.0.1:1")
    assert list(tmp_path.iterdir()) == []
    S.run(pig_spec(games=10), out)
    assert len(_read(out)) == 30


@pytest.mark.slow
def test_an_unreachable_scheduler_is_one_line_and_the_rerun_works(tmp_path, capsys):
    out = tmp_path / "x.parquet"
    args = ["simulate", "--game", "pig", "--players", "2", "--agents", "random", "--games", "10", "--out", str(out)]
    args.append("--quiet")
    code, _, err = run_cli([*args, "--backend", "dask", "--scheduler", "tcp://127.0.0.1:1"], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1 and "cannot reach tcp://127.0.0.1:1" in err
    assert list(tmp_path.iterdir()) == []
    assert run_cli(args, capsys)[0] == 0


def _corrupt(path: Path, to: Path) -> None:
    """`path` with bytes of its largest column chunk zeroed (its zstd frames no longer decode) at `to`."""
    to.write_bytes(path.read_bytes())
    ResultFiles.corrupt(to)


def test_a_corrupted_result_file_is_named(tmp_path):
    """A zstd error says nothing of its file: every reader of results names it, in one line."""
    from boardlab.experiments.io import ResultsError, read_results
    from boardlab.experiments.pipelines import load_results

    good = tmp_path / "good.parquet"
    S.run(_spec(games=40), good)
    bad = tmp_path / "bad.parquet"
    _corrupt(good, bad)
    assert S.read_metadata(bad) == S.read_metadata(good)  # the footer is whole
    for read in (lambda: load_results([bad]), lambda: read_results(bad)):
        with pytest.raises(ResultsError) as e:
            read()
        assert str(e.value).startswith(f"{bad}: cannot read it as a result file: ") and "\n" not in str(e.value)
    (tmp_path / "short.parquet").write_bytes(good.read_bytes()[:100])
    with pytest.raises(S.SimulateError, match=r"short\.parquet: cannot read it as a result file"):
        S.read_metadata(tmp_path / "short.parquet")


@dataclass(frozen=True)
class _Job:
    """A report's run (boardlab.experiments.report.Job) of Pig."""

    key: str
    players: int
    agents: tuple[str, ...]
    games: int
    seating: str = "rotate"

    def rule_set(self):
        return GAME.load_rules(GAME.default_preset)


def test_a_report_names_a_corrupted_run_of_its_cache(tmp_path):
    from boardlab.experiments.io import ResultsError
    from boardlab.experiments.report import run_jobs

    job = _Job("tiny", 2, ("random", "random-prefers:hold"), 20)
    assert len(run_jobs("pig", [job], tmp_path, 0, 1, log=lambda line: None)[job]) == 40
    path = tmp_path / "tiny.parquet"
    _corrupt(path, path)
    with pytest.raises(ResultsError, match=r"tiny\.parquet: cannot read it as a result file"):
        run_jobs("pig", [job], tmp_path, 0, 1, log=lambda line: None)


def test_metadata_key_is_the_toolkits_and_the_old_one_is_read(tmp_path):
    out = tmp_path / "new.parquet"
    meta = S.run(_spec(games=10), out)
    assert S.METADATA_KEY == b"boardlab" and list(pq.read_schema(out).metadata) == [b"boardlab"]
    old = tmp_path / "old.parquet"
    table = pq.read_table(out)
    pq.write_table(table.replace_schema_metadata({b"citywright": json.dumps(meta).encode()}), old)
    assert S.read_metadata(old) == meta
    pq.write_table(table.replace_schema_metadata({}), tmp_path / "none.parquet")
    with pytest.raises(S.SimulateError, match="no run metadata"):
        S.read_metadata(tmp_path / "none.parquet")


@pytest.mark.parametrize(
    "command",
    [
        ["compare", "standard", "quick", "--players", 2, "--agents", "random"],
        ["sweep", "--param", "game.target", "--values", "20,30", "--players", 2, "--agents", "random"],
        ["ladder", "--players", 2, "--agents", "random,random-prefers:hold"],
    ],
    ids=["compare", "sweep", "ladder"],
)
def test_every_command_that_plays_takes_a_chunk_size(command, tmp_path, capsys):
    """compare, sweep and ladder cut their runs into --chunk-size games, as simulate does (the runs record it)."""
    from tests.cli import cli

    out = tmp_path / "out"
    code, _, err = cli(capsys, *command, "--game", "pig", "--games", 20, "--chunk-size", 7, "--out", out, "--quiet")
    assert code == 0, err
    runs = sorted((out / "runs").glob("*.parquet"))
    assert runs and all(S.read_metadata(r)["spec"]["chunk_size"] == 7 for r in runs)


def test_tune_scoring_takes_a_chunk_size_and_reuses_runs_of_another(tmp_path, capsys):
    """tune scoring cuts every run (blocks and verification) into --chunk-size games; chunking never changes a
    run's games, so a second study in the same run cache with another chunk size plays nothing anew."""
    from tests.cli import cli

    args = ["tune", "scoring", "--game", "pig", "--param", "game.target=20:40:int", "--objective", "seats",
            "--agents", "random", "--players", 2, "--games", 20, "--blocks", 2, "--trials", 2, "--verify-games", 8,
            "--work", tmp_path / "runs", "--quiet"]  # fmt: skip
    code, _, err = cli(capsys, *args, "--chunk-size", 7, "--out", tmp_path / "a")
    assert code == 0, err
    runs = sorted((tmp_path / "runs").rglob("*.parquet"))
    assert len(runs) >= 3 and {S.read_metadata(r)["spec"]["chunk_size"] for r in runs} == {7}
    stamps = {r: r.stat().st_mtime_ns for r in runs}
    code, _, err = cli(capsys, *args, "--chunk-size", 3, "--out", tmp_path / "b")
    assert code == 0, err
    assert {r: r.stat().st_mtime_ns for r in runs} == stamps  # reused, not played again
    assert (tmp_path / "a" / "best.toml").read_text() == (tmp_path / "b" / "best.toml").read_text()


def test_the_compile_time_a_command_reports_is_kept_apart_from_play_in_the_metadata(tmp_path, pig_spec):
    spec = pig_spec(games=20, chunk=10)
    meta = S.run(spec, tmp_path / "a.parquet", before=lambda: 1.25)
    assert meta["this_session"]["compile_seconds"] == 1.25 and meta["this_session"]["games"] == 20
    assert S.read_metadata(tmp_path / "a.parquet")["this_session"]["compile_seconds"] == 1.25
    for before in (None, lambda: None, lambda: True):  # nothing compiled ahead (or no number): no compile time
        meta = S.run(spec, tmp_path / "b.parquet", before=before, force=True)
        assert "compile_seconds" not in meta["this_session"]


def test_a_run_a_command_plays_through_its_run_cache_is_compiled_first_and_a_reused_one_is_not(
    tmp_path, pig_spec, monkeypatch, capsys
):
    from boardlab.experiments import warmup as W

    calls = []

    def ensure_compiled(game, agents, players, rules, log):
        log(f"compiling the {game.id} kernels")
        calls.append((game.id, agents, players))
        return {"compiled": True, "cold": ["k.py"], "seconds": 2.5}

    monkeypatch.setattr(W, "ensure_compiled", ensure_compiled)
    spec = pig_spec(games=20, players=3, chunk=10)
    meta, reused = S.run_or_reuse(spec, tmp_path / "r.parquet")
    assert not reused and calls == [("pig", list(spec.agents), 3)]
    assert meta["this_session"]["compile_seconds"] == 2.5
    assert capsys.readouterr().err.splitlines() == ["compiling the pig kernels", "compiled the pig kernels in 2.5 s"]
    _, reused = S.run_or_reuse(spec, tmp_path / "r.parquet")
    assert reused and len(calls) == 1  # nothing played, nothing compiled
    S.run_or_reuse(spec, tmp_path / "s.parquet", before=lambda: None)  # a command's own step replaces it
    assert len(calls) == 1
