"""Citywright's seat compensation (``tune seats``), rescorer (``rescore``) and ``compare`` over several result files:
games paired on (run id, game), never on the game seed; two runs of one seed pool as their games do, one run given
twice (the same file, or a copy) is refused.  The shared reader's own cases play Pig: tests/core/test_pairing.py.

Every case is run twice: on files as ``simulate`` wrote them here (with or without a run id in their metadata,
as the code that wrote them did), and on the same files with a run id written into their metadata.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from boardlab.experiments import simulate as S
from boardlab.experiments.io import RUN_ID, read_runs, run_identity
from tests.cli import cli
from tests.result_files import FORMATS, paired_files


def _truth(paths) -> np.ndarray:
    """Each seat's win share over the games of all `paths`, computed per file: the pooled truth."""
    df = pd.concat([pd.read_parquet(p) for p in paths], ignore_index=True)
    return df.groupby("seat")["win_share"].mean().to_numpy()


def _stored(out: str) -> np.ndarray:
    """The seat shares `tune seats` prints on its ``stored`` line."""
    line = next(s for s in out.splitlines() if s.startswith("stored"))
    return np.array([float(x) for x in re.findall(r"([\d.]+)% \[", line)]) / 100


@pytest.mark.parametrize("fmt", FORMATS)
def test_tune_seats_pools_two_runs_of_one_seed_as_their_games(tmp_path, capsys, fmt, result_files):
    f, g = paired_files(result_files, tmp_path, fmt)
    assert pd.read_parquet(f)["game_seed"].tolist() == pd.read_parquet(g)["game_seed"].tolist()  # the same seeds
    code, out, err = cli(capsys, "tune", "seats", f, "--top", 1)
    assert code == 0, err
    alone = _truth([f])
    assert abs(alone[0] - 0.5) > 0.1  # a real seat advantage (greedy against greedy, fixed seats)
    assert _stored(out) == pytest.approx(alone, abs=1e-3)
    code, out, err = cli(capsys, "tune", "seats", f, g, "--top", 1)
    assert code == 0, err
    assert out.startswith(f"{2 * result_files.GAMES} games, 2 players")
    assert _stored(out) == pytest.approx(_truth([f, g]), abs=1e-3)


@pytest.mark.parametrize("fmt", FORMATS)
def test_compensation_reranks_the_pooled_games_exactly(tmp_path, fmt, result_files):
    from boardlab.experiments import compensation as C

    f, g = paired_files(result_files, tmp_path, fmt)
    df = read_runs([f, g])
    assert df[RUN_ID].nunique() == 2 and df.groupby(RUN_ID, observed=True).size().tolist() == [80, 80]
    a = C.game_arrays(df, "citywright")
    assert a.games == 2 * result_files.GAMES
    some = read_runs([f, g], columns=["total"])
    assert list(some.columns) == [RUN_ID, "total", "game", "seat"] and some[RUN_ID].equals(df[RUN_ID])
    assert C.seat_shares(a, a.stored) == pytest.approx(_truth([f, g]))


def test_runs_of_one_seed_concatenated_without_run_ids_are_refused_not_mispaired(tmp_path, result_files):
    from boardlab.experiments import compensation as C

    f, g = paired_files(result_files, tmp_path, "as-written")
    df = pd.concat([pd.read_parquet(f), pd.read_parquet(g)], ignore_index=True)
    with pytest.raises(ValueError, match="not whole"):
        C.game_arrays(df, "citywright")


def test_the_same_file_under_two_run_ids_is_two_runs(tmp_path, capsys, result_files):
    """What pairs games is the run id: the same rows recorded as two runs pool as 80 games of the same shares."""
    f = result_files.run_file(tmp_path / "src")
    a = result_files.with_run_id(f, tmp_path / "a.parquet", "run-a")
    b = result_files.with_run_id(f, tmp_path / "b.parquet", "run-b")
    code, out, err = cli(capsys, "tune", "seats", a, b, "--top", 1)
    assert code == 0, err
    assert out.startswith(f"{2 * result_files.GAMES} games") and _stored(out) == pytest.approx(_truth([f]), abs=1e-3)


@pytest.mark.parametrize("fmt", FORMATS)
def test_rescore_ranks_each_run_on_its_own_when_files_share_seeds_and_names(tmp_path, capsys, fmt, result_files):
    """Two runs of one seed, in files of the same name in two folders: every rescored game holds each seat once,
    ranks from 1 within 1..N and win shares summing to 1."""
    f, g = paired_files(result_files, tmp_path, fmt)
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    f, g = f.rename(tmp_path / "a" / "run.parquet"), g.rename(tmp_path / "b" / "run.parquet")
    out = tmp_path / "out.parquet"
    code, _, err = cli(capsys, "rescore", f, g, "--rules", "v1.0", "--out", out)
    assert code == 0, err
    df = pd.read_parquet(out)
    assert len(df) == 4 * result_files.GAMES and df[RUN_ID].nunique() == 2
    games = df.groupby([RUN_ID, "game"])
    assert games.ngroups == 2 * result_files.GAMES
    assert (games["seat"].apply(sorted).map(tuple) == (1, 2)).all()
    assert (games["rank"].min() == 1).all() and (games["rank"].max() <= 2).all()
    assert np.allclose(games["win_share"].sum(), 1.0)
    # the rescored table keeps its runs apart: re-read, its games are the same 80
    assert read_runs([out]).groupby([RUN_ID, "game"], observed=True).ngroups == 2 * result_files.GAMES


def test_a_rescored_table_keeps_its_runs_and_is_the_same_run_as_its_source(tmp_path, capsys, result_files):
    f, g = paired_files(result_files, tmp_path, "as-written")
    out = tmp_path / "same.parquet"
    assert cli(capsys, "rescore", f, g, "--rules", "v1.1", "--out", out)[0] == 0
    code, text, err = cli(capsys, "tune", "seats", out, "--top", 1)
    assert code == 0, err
    assert _stored(text) == pytest.approx(_truth([f, g]), abs=1e-3)
    code, _, err = cli(capsys, "tune", "seats", out, f)
    assert code == 2 and re.fullmatch(rf"boardlab: error: {re.escape(str(f))}: holds the same run as .*\n", err)


@pytest.mark.parametrize("command", [["tune", "seats"], ["rescore", "--rules", "v1.0"]])
@pytest.mark.parametrize("fmt", FORMATS)
def test_a_file_given_twice_or_a_copy_is_refused_naming_both(tmp_path, capsys, command, fmt, result_files):
    f, _ = paired_files(result_files, tmp_path, fmt)
    out = tmp_path / "out.parquet"
    extra = ["--out", out] if command[0] == "rescore" else []
    code, _, err = cli(capsys, *command, f, tmp_path / "." / f.name, *extra)
    assert code == 2 and err.count("\n") == 1
    assert err == f"boardlab: error: {tmp_path / '.' / f.name}: the same file as {f}; give each result file once\n"
    copy = tmp_path / "copy.parquet"
    copy.write_bytes(f.read_bytes())
    code, _, err = cli(capsys, *command, f, copy, *extra)
    rid = S.read_metadata(f).get("run_id") or run_identity(f, S.read_metadata(f))
    assert code == 2 and err == (
        f"boardlab: error: {copy}: holds the same run as {f} (run id {rid}); give each run once (a copy?)\n"
    )
    assert not out.exists()


def test_compare_names_a_damaged_cached_run_in_one_line(tmp_path, capsys, result_files):
    args = ["compare", "v1.1", "v1.0", "--players", 2, "--agents", "greedy,random", "--games", 20, "--out", tmp_path]
    code, _, err = cli(capsys, *args, "--quiet")
    assert code == 0, err
    cached = result_files.corrupt(tmp_path / "runs" / "a.parquet")
    code, _, err = cli(capsys, *args, "--quiet")
    assert code == 2 and re.fullmatch(
        rf"boardlab: error: {re.escape(str(cached))}: cannot read it as a result file: .*\n", err
    )
