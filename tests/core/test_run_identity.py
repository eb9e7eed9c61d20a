"""A run's identity and its one writer: the run id (manifest, metadata, sidecar, chunk stamps), --resume taking
only its own chunks, the output lock, --force replacing only when complete, and the output names checked first."""

from __future__ import annotations

import fcntl
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from boardlab.experiments import simulate as S
from boardlab.experiments.io import run_identity
from boardlab.sim.games import get_game
from tests.per_game import PLUGIN_GAMES, game_ids


def _read(path: Path) -> pd.DataFrame:
    return pd.read_parquet(path)


def _stamp(path: Path) -> str:
    return pa.ipc.open_file(pa.memory_map(str(path))).schema.metadata[S.PART_STAMP].decode()


class _Stop(Exception):
    """Raised by a patched chunk player: the run stops there."""


def _stop_at(monkeypatch, chunk: int) -> None:
    """The --jobs 1 run stops (KeyboardInterrupt) when it comes to play `chunk`."""
    real = S.play_chunk

    def play(spec, i, *rest):
        if i == chunk:
            raise KeyboardInterrupt
        return real(spec, i, *rest)

    monkeypatch.setattr(S, "play_chunk", play)


# --- 1. the run id -----------------------------------------------------------------------------------


def test_run_id_is_in_manifest_parts_metadata_and_sidecar_and_kept_by_resume(tmp_path, monkeypatch, run_files):
    spec, out = run_files.spec(), tmp_path / "r.parquet"
    paths = S.RunPaths(out)
    _stop_at(monkeypatch, 2)
    with pytest.raises(KeyboardInterrupt):
        S.run(spec, out)
    run_id = run_files.run_id(paths)
    assert re.fullmatch(r"[0-9a-f]{20}", run_id)
    assert [_stamp(paths.chunk(i)) for i in (0, 1)] == [run_id, run_id]
    monkeypatch.undo()
    meta = S.run(spec, out, resume=True)
    assert meta["this_session"]["games"] == 20
    assert meta[S.RUN_ID] == run_id
    assert S.read_metadata(out)[S.RUN_ID] == run_id
    assert json.loads(paths.sidecar.read_text())[S.RUN_ID] == run_id
    assert run_identity(out, S.read_metadata(out)) == run_id
    assert "run_id" not in pq.read_schema(out).names  # rows unchanged: no column of it


def test_two_runs_of_one_command_have_two_ids_and_the_same_rows(tmp_path, run_files):
    a = S.run(run_files.spec(), tmp_path / "a.parquet")
    b = S.run(run_files.spec(), tmp_path / "b.parquet", jobs=2)
    assert a[S.RUN_ID] != b[S.RUN_ID]
    pd.testing.assert_frame_equal(_read(tmp_path / "a.parquet"), _read(tmp_path / "b.parquet"))


def test_jobs_2_workers_write_stamped_parts_and_the_main_process_no_rows(tmp_path, monkeypatch, run_files):
    """On the --jobs >1 path the worker processes write the parts (the main process writes none: its writer
    is disabled here), stamped with the run id; a run that fails at assembly resumes from them."""
    spec, out = run_files.spec(), tmp_path / "r.parquet"
    paths = S.RunPaths(out)
    real_open, real_write = S._open_parquet, S._atomic_write_table

    def no_rows_here(*a, **k):
        raise AssertionError("the main process wrote a part")

    def fail(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(S, "_atomic_write_table", no_rows_here)
    monkeypatch.setattr(S, "_open_parquet", fail)
    with pytest.raises(OSError, match="disk full"):
        S.run(spec, out, jobs=2)
    run_id = run_files.run_id(paths)
    # the failure ends the run as soon as it surfaces: the chunks not yet finished then are not written
    written = [i for i in range(spec.n_chunks) if paths.chunk(i).exists()]
    assert written and {_stamp(paths.chunk(i)) for i in written} == {run_id}
    monkeypatch.setattr(S, "_open_parquet", real_open)
    meta = S.run(spec, out, jobs=2, resume=True)
    missing = sum(b - a for i in range(spec.n_chunks) if i not in written for a, b in [spec.bounds(i)])
    assert meta[S.RUN_ID] == run_id and meta["this_session"]["games"] == missing
    monkeypatch.setattr(S, "_atomic_write_table", real_write)
    S.run(spec, tmp_path / "one.parquet")
    pd.testing.assert_frame_equal(_read(out), _read(tmp_path / "one.parquet"))


def test_rows_are_the_same_for_jobs_1_jobs_2_and_a_resumed_run(tmp_path, monkeypatch, run_files):
    spec = run_files.spec()
    S.run(spec, tmp_path / "one.parquet", jobs=1)
    S.run(spec, tmp_path / "two.parquet", jobs=2)
    _stop_at(monkeypatch, 3)
    with pytest.raises(KeyboardInterrupt):
        S.run(spec, tmp_path / "cut.parquet")
    monkeypatch.undo()
    S.run(spec, tmp_path / "cut.parquet", jobs=2, resume=True)
    one = _read(tmp_path / "one.parquet")
    pd.testing.assert_frame_equal(one, _read(tmp_path / "two.parquet"))
    pd.testing.assert_frame_equal(one, _read(tmp_path / "cut.parquet"))


# --- 2. --resume takes only its own chunks -----------------------------------------------------------


def test_a_chunk_of_another_run_is_refused_and_kept(tmp_path, run_files):
    paths = run_files.with_foreign_chunk(tmp_path)
    mine, theirs = run_files.run_id(paths), _stamp(paths.chunk(2))
    assert mine != theirs
    before = run_files.snapshot(tmp_path)
    msg = f"{re.escape(str(paths.chunk(2)))} belongs to run {theirs}, not this run {mine}; delete it to replay it$"
    with pytest.raises(S.SimulateError, match=msg):
        S.run(run_files.spec(), paths.out, resume=True)
    assert run_files.snapshot(tmp_path) == before
    paths.chunk(2).unlink()  # as the message says: then the chunk is played again
    S.run(run_files.spec(), paths.out, resume=True)
    S.run(run_files.spec(), tmp_path / "full.parquet")
    pd.testing.assert_frame_equal(_read(paths.out), _read(tmp_path / "full.parquet"))


def test_a_truncated_chunk_is_refused_and_kept(tmp_path, run_files):
    paths = run_files.with_truncated_chunk(tmp_path)
    before = run_files.snapshot(tmp_path)
    with pytest.raises(S.SimulateError, match=r"chunk-0000001\.arrow is damaged \(.+\); delete it to replay it$"):
        S.run(run_files.spec(), paths.out, resume=True)
    assert run_files.snapshot(tmp_path) == before


def test_an_unstamped_chunk_is_refused(tmp_path, run_files):
    paths = run_files.interrupted(tmp_path / "r.parquet")
    S._atomic_write_table(S.run_chunk(run_files.spec(), 1)[1], paths.chunk(1))  # no run id
    with pytest.raises(S.SimulateError, match=r"chunk-0000001\.arrow is damaged \(no run id stamp\)"):
        S.run(run_files.spec(), paths.out, resume=True)


def test_a_chunk_of_another_size_is_refused(tmp_path, run_files):
    """A chunk of this run renamed into another chunk's place (the last, short chunk as chunk 1)."""
    spec = S.make_spec(2, ["random"], 35, 5, run_files.spec().rule_set(), "rotate", 10, game=run_files.GAME)
    paths = S.RunPaths(tmp_path / "r.parquet")
    run_id = S.prepare(spec, paths, resume=False, force=False)[S.RUN_ID]
    S._atomic_write_table(S.run_chunk(spec, 3)[1], paths.chunk(1), run_id)
    with pytest.raises(S.SimulateError, match=r"chunk-0000001\.arrow is damaged \(10 rows, not 20\)"):
        S.run(spec, paths.out, resume=True)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("\x00garbage{", r"not JSON: .+"),
        ("{}", "no spec"),
        ("[1, 2]", "not a JSON object"),
        ('{"spec": {"games": 40}}', "no run id"),
    ],
)
def test_a_damaged_manifest_is_refused_and_kept(tmp_path, text, reason, run_files):
    paths = run_files.with_manifest(tmp_path, text)
    before = run_files.snapshot(tmp_path)
    with pytest.raises(S.SimulateError) as e:
        S.run(run_files.spec(), paths.out, resume=True)
    assert re.fullmatch(
        rf"cannot resume: {re.escape(str(paths.manifest))} is damaged \({reason}\); start again with --force",
        str(e.value),
    ), str(e.value)
    assert run_files.snapshot(tmp_path) == before


def test_run_or_reuse_replays_a_run_with_a_damaged_manifest(tmp_path, run_files):
    paths = run_files.with_manifest(tmp_path, "{}")
    _, reused = S.run_or_reuse(run_files.spec(), paths.out)
    assert not reused and len(_read(paths.out)) == run_files.GAMES * run_files.PLAYERS and not paths.parts.exists()


# --- 3. one writer per output ------------------------------------------------------------------------


@pytest.mark.parametrize("how", ["plain", "force", "resume"])
def test_a_second_writer_is_refused_and_touches_nothing(tmp_path, how, run_files):
    paths = run_files.interrupted(tmp_path / "r.parquet")
    with S.output_lock(paths):
        before = run_files.snapshot(tmp_path)
        with pytest.raises(
            S.SimulateError, match=r"another process is writing .*r\.parquet \(it holds .*r\.parquet\.lock\)"
        ):
            S.run(run_files.spec(), paths.out, resume=how == "resume", force=how == "force")
        assert run_files.snapshot(tmp_path) == before
        with pytest.raises(S.SimulateError, match="another process is writing"):
            S.run_or_reuse(run_files.spec(), paths.out)
        assert run_files.snapshot(tmp_path) == before
    assert not paths.lock.exists()
    S.run(run_files.spec(), paths.out, resume=True)
    assert not paths.lock.exists()


def test_the_lock_is_held_while_the_run_plays_and_released_however_it_ends(tmp_path, monkeypatch, run_files):
    spec, out = run_files.spec(), tmp_path / "r.parquet"
    paths = S.RunPaths(out)
    seen = []

    def progress(done, total, rate):
        with pytest.raises(S.SimulateError, match="another process is writing"):
            S._lock(paths)
        seen.append(done)

    _stop_at(monkeypatch, 2)
    with pytest.raises(KeyboardInterrupt):
        S.run(spec, out, progress=progress)
    assert seen == [0, 10, 20] and not paths.lock.exists()
    monkeypatch.undo()
    S.run(spec, out, resume=True, progress=progress)
    assert seen[-1] == run_files.GAMES and not paths.lock.exists()


def test_the_lock_of_a_killed_writer_is_free(tmp_path, run_files):
    """Another process holds the lock (the same helper); refused while it lives; kill -9 releases it."""
    out = tmp_path / "r.parquet"
    code = textwrap.dedent(f"""
        import sys, time
        from pathlib import Path
        from boardlab.experiments import simulate as S
        with S.output_lock(S.RunPaths(Path({str(out)!r}))):
            print("locked", flush=True)
            time.sleep(600)
    """)
    holder = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(S.SimulateError, match="another process is writing"):
            S.run(run_files.spec(), out)
        assert sorted(p.name for p in tmp_path.iterdir()) == ["r.parquet.lock"]
    finally:
        holder.kill()
        holder.wait()
    S.run(run_files.spec(), out)  # the stale lock file is not held by anyone
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.parquet", "r.parquet.json"]


def test_a_lock_file_removed_under_the_locker_is_retried(tmp_path, monkeypatch):
    """The unlink race: between our open and our lock, the holder removes the lock file and a third writer
    locks a new one at the path; we must not take the unlinked file's lock for the output's."""
    paths = S.RunPaths(tmp_path / "r.parquet")
    first = S.output_lock(paths)
    first.__enter__()
    third = []
    real = fcntl.flock

    def flock(fd, op):
        if not third and op & fcntl.LOCK_EX:
            third.append(None)
            first.__exit__(None, None, None)  # the holder ends: unlinks, then unlocks
            third[0] = S._lock(paths)  # a third writer creates and locks the new file
        return real(fd, op)

    monkeypatch.setattr(S.fcntl, "flock", flock)
    with pytest.raises(S.SimulateError, match="another process is writing"):
        S._lock(paths)
    os.close(third[0])


# --- 4. --force replaces only when complete ----------------------------------------------------------


def _files(d: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(d.iterdir()) if p.is_file()}


def test_a_force_run_that_is_interrupted_leaves_the_old_result(tmp_path, monkeypatch, run_files):
    spec, out = run_files.spec(), tmp_path / "r.parquet"
    S.run(spec, out)
    before = _files(tmp_path)
    _stop_at(monkeypatch, 2)
    with pytest.raises(KeyboardInterrupt):
        S.run(spec, out, force=True)
    after = _files(tmp_path)
    assert after == before
    assert sorted(p.name for p in S.RunPaths(out).parts.iterdir()) == [
        "chunk-0000000.arrow", "chunk-0000001.arrow", "run.json"
    ]  # fmt: skip


def test_a_force_run_that_fails_at_assembly_leaves_the_old_result(tmp_path, monkeypatch, run_files):
    spec, out = run_files.spec(), tmp_path / "r.parquet"
    S.run(spec, out)
    before = _files(tmp_path)

    def fail(*a, **k):
        raise OSError("disk full")

    monkeypatch.setattr(S, "_open_parquet", fail)
    for jobs in (1, 2):
        with pytest.raises(OSError, match="disk full"):
            S.run(spec, out, jobs=jobs, force=True)
        assert _files(tmp_path) == before


# --- 5. output names and places, checked first ------------------------------------------------------


def _longest_extra() -> int:
    """What the run's longest name adds to the output's: its sidecar's temporary name, ``.NAME.json.PID.tmp``
    inside ``NAME.parts/`` (PID of the width of the system's largest process id)."""
    pid = len(Path("/proc/sys/kernel/pid_max").read_text().strip())
    return len("." + ".json" + "." + ".tmp") + pid


def test_names_at_the_limit_run_and_one_more_is_refused_first(tmp_path, run_files):
    allowed = os.pathconf(tmp_path, "PC_NAME_MAX") - _longest_extra()
    ok = tmp_path / ("a" * (allowed - len(".parquet")) + ".parquet")
    S.run(run_files.spec(), ok)
    assert len(_read(ok)) == run_files.GAMES * run_files.PLAYERS
    long = tmp_path / ("b" * (allowed + 1 - len(".parquet")) + ".parquet")
    with pytest.raises(S.SimulateError, match=rf"give a name of at most {allowed} characters$"):
        S.run(run_files.spec(), long)
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([ok.name, ok.name + ".json"])


def test_a_directory_where_nothing_can_be_created_is_refused(tmp_path, run_files):
    with pytest.raises(
        S.SimulateError, match=r"^--out: directory /proc is not writable: cannot create a file in it \(.+\)$"
    ):
        S.run(run_files.spec(), Path("/proc/x.parquet"))


def test_a_read_only_directory_is_refused_by_its_probe(tmp_path, monkeypatch, run_files):
    """The probe file is what decides (permission bits say nothing for root): a failing creation is refused."""
    import tempfile

    def refuse(*a, **k):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(tempfile, "NamedTemporaryFile", refuse)
    says = rf"directory {re.escape(str(tmp_path))} is not writable: cannot create a file in it \(Permission denied\)$"
    with pytest.raises(S.SimulateError, match=says):
        S.run(run_files.spec(), tmp_path / "r.parquet")
    assert list(tmp_path.iterdir()) == []


def test_probe_files_are_not_left_behind(tmp_path):
    S.check_place(S.RunPaths(tmp_path / "r.parquet"))
    assert list(tmp_path.iterdir()) == []


# --- 6. workers write the parts; the main process encodes them in game order -------------------------


def test_parts_ready_in_any_order_give_the_assembled_file_byte_for_byte(tmp_path, run_files):
    """The --jobs >1 path's assembly (_StreamedAssembly.ready: chunks queued in game order as their parts come,
    with an earlier session's parts among them) writes the file _assemble writes from the same parts."""
    spec = S.make_spec(2, ["random"], 70, 5, run_files.spec().rule_set(), "rotate", 10, game=run_files.GAME)
    meta = {"finished": "then"}
    files = {}
    for name in ("ref", "ready"):
        paths = S.RunPaths(tmp_path / f"{name}.parquet")
        run_id = S.prepare(spec, paths, resume=False, force=False)[S.RUN_ID]
        for i in range(spec.n_chunks):
            S.write_chunk(spec, i, paths, run_id)
        if name == "ref":
            S._assemble(spec, paths, meta)
        else:
            stream = S._StreamedAssembly(spec, paths, run_id)
            stream.have([1, 5])
            for i in (3, 0, 6, 2, 4):
                stream.ready(i)
            assert stream.next == spec.n_chunks and not stream.available
            stream.finish(meta)
        files[name] = paths.out.read_bytes()
    assert files["ready"] == files["ref"]
    assert pq.ParquetFile(tmp_path / "ready.parquet").metadata.num_row_groups == spec.n_chunks


# --- 7. the bench reports simulate against the kernels ---------------------------------------------------


# the games with a bench of simulate figures: the built-in ones run this in their folders (tests/per_game.py)
game_id = game_ids([g for g in PLUGIN_GAMES if get_game(g).bench is not None])


def test_bench_reports_simulate_ratios_of_the_games_asked_for(capsys, game_id):
    game = game_id
    from tests.cli import cli

    args = ["bench", "--game", game, "--games", "200", "--boards", "1000", "--json", "--no-subprocess",
            "--no-agents", "--simulate-games", "48"]  # fmt: skip
    code, out, err = cli(capsys, *args)
    assert code == 0, err
    res = json.loads(out)
    assert res["simulate_games"] == 48
    kernel = res["random_games_per_s_4p"]
    if game == "citywright":  # by wall time
        rate = res["simulate_random_games_per_s_4p"]
        assert rate > 0 and res["simulate_vs_kernel_4p"] == round(rate / kernel, 2)
        jobs2 = res["simulate_random_games_per_s_4p_jobs2"]
        assert jobs2 > 0 and res["simulate_jobs2_vs_kernel_4p"] == round(jobs2 / kernel, 2)
    else:  # by wall time, and by CPU time beside
        rate, cpu = res["simulate_random_games_per_s_4p_wall"], res["simulate_random_games_per_s_4p"]
        assert rate > 0 and res["simulate_vs_kernel_4p"] == round(rate / kernel, 2)
        assert cpu > 0 and res["simulate_cpu_vs_kernel_4p"] == round(cpu / kernel, 2)
        agent_kernel = res["random_agent_games_per_s_4p"]
        assert res["simulate_vs_agent_kernel_4p"] == round(rate / agent_kernel, 2)


def test_bench_simulate_games_of_a_bench_without_the_figure_is_one_line(capsys, monkeypatch):
    from boardlab.experiments.bench import Bench
    from boardlab.sim.games import get_game
    from tests.cli import cli

    g = get_game("pig")
    real = g.optional

    def optional(name):
        return Bench(lambda **kw: {}) if name == "bench" else real(name)

    monkeypatch.setattr(type(g), "optional", lambda self, name: optional(name))
    code, _, err = cli(capsys, "bench", "--game", "pig", "--simulate-games", "100")
    assert code == 2 and err.strip().endswith("--simulate-games: pig's bench has no simulate figure")
