"""Games paired across result files on (run id, game), never on the game seed, by the shared reader: two runs of one
seed are two runs, one run id in two files is refused, a file without a run id is known by its metadata, a damaged
file is named in one line; on small Pig runs (tests/core/conftest.py's ``result_files``).  Citywright's seat
compensation and rescorer over such files: tests/citywright/test_pairing.py.

Every case is run twice: on files as ``simulate`` wrote them here (with or without a run id in their metadata,
as the code that wrote them did), and on the same files with a run id written into their metadata.
"""

from __future__ import annotations

import re

import pandas as pd
import pytest

from boardlab.experiments import simulate as S
from boardlab.experiments.io import ResultsError, open_runs, read_runs, run_identity
from tests.result_files import FORMATS, paired_files


def test_two_files_of_one_run_id_are_refused_however_their_bytes_differ(tmp_path, result_files):
    f, g = paired_files(result_files, tmp_path, "as-written")
    a = result_files.with_run_id(f, tmp_path / "a.parquet", "run-1")
    b = result_files.with_run_id(g, tmp_path / "b.parquet", "run-1")
    with pytest.raises(ResultsError, match=rf"^{re.escape(str(b))}: holds the same run as {re.escape(str(a))} \(run"):
        read_runs([a, b])


def test_run_identity_without_a_run_id(tmp_path, result_files):
    """The fallback: a hash of the run metadata (a copy keeps it, another run does not), or of the bytes of a
    file with no metadata; a table rescored from one file is its source's run."""
    f, g = paired_files(result_files, tmp_path, "as-written")
    mf, mg = S.read_metadata(f), S.read_metadata(g)
    mf.pop("run_id", None), mg.pop("run_id", None)
    assert run_identity(f, mf).startswith("meta-") and run_identity(f, mf) != run_identity(g, mg)
    assert run_identity(tmp_path / "elsewhere", mf) == run_identity(f, mf)
    assert run_identity(f, {"rescored_from": [str(f)], "original": mf, "rules": {}}) == run_identity(f, mf)
    assert run_identity(f, {"run_id": "abc"}) == "abc"
    plain = tmp_path / "plain.parquet"
    pd.read_parquet(f).to_parquet(plain)
    twin = tmp_path / "twin.parquet"
    twin.write_bytes(plain.read_bytes())
    [p] = open_runs([plain])
    assert p.meta == {} and p.runs[0].startswith("file-")
    with pytest.raises(ResultsError, match="holds the same run as"):
        open_runs([plain, twin])


@pytest.mark.parametrize(
    "make, says",
    [
        (lambda rf, d: rf.zero_rows(d), r"holds no games \(0 rows\)"),
        (lambda rf, d: rf.truncated(d), "cannot read it as a result file"),
        (lambda rf, d: rf.corrupted(d), "cannot read it as a result file"),
        (lambda rf, d: rf.not_parquet(d), "cannot read it as a result file"),
        (lambda rf, d: rf.empty(d), r"is empty \(0 bytes\)"),
        (lambda rf, d: rf.fifo(d), r"is a FIFO \(named pipe\), not a result file"),
        (lambda rf, d: rf.directory(d), "is a directory, not a result file"),
        (lambda rf, d: "/dev/null", "is a character device, not a result file"),
        (lambda rf, d: d / "missing.parquet", "no such file"),
    ],
    ids=["zero-rows", "truncated", "corrupted", "not-parquet", "empty", "fifo", "directory", "dev-null", "missing"],
)
def test_the_shared_reader_names_a_damaged_file_in_one_line(tmp_path, make, says, result_files):
    good = result_files.run_file(tmp_path / "src", agents=result_files.mixed)  # another run than the damaged file's
    bad = make(result_files, tmp_path)
    with pytest.raises(ResultsError) as e:
        read_runs([good, bad])
    assert re.fullmatch(rf"{re.escape(str(bad))}: {says}.*", str(e.value)) and "\n" not in str(e.value)


@pytest.mark.parametrize("fmt", FORMATS)
def test_ratings_count_the_games_of_two_runs_of_one_seed_apart(tmp_path, fmt, result_files):
    from boardlab.experiments import ratings as R

    f, g = paired_files(result_files, tmp_path, fmt)
    table, spread = R.rating_table(read_runs([f, g]), boot=10)
    games = table.set_index("agent")["games"]
    n = result_files.GAMES
    assert spread["games"] == 2 * n and games[result_files.main] == 2 * n and games[result_files.other] == n
    with pytest.raises(ValueError, match="not whole"):
        R.rating_table(pd.concat([pd.read_parquet(f), pd.read_parquet(g)], ignore_index=True), boot=10)
