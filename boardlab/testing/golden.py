"""Golden games: fingerprints of fixed, seeded games that pin down a game's agents move for move.

A game's results were played by its agents as they are now.  A change that alters any move -- even which of
two equally good moves is kept, since ties are broken by the game's random stream -- silently changes every
game after it, and the committed figures no longer come from the code.  Golden games catch that: a few seeded
games of fixed agents per *set*, each game reduced to fingerprints (its seats' totals, a :func:`digest` of its
result rows or of its move log) that are committed in a CSV file and replayed by the game's tests.

A game declares its sets once, in a :class:`Golden` (an example there); its tests call ``GOLDEN.check(name)``
per set, and after an intended change of moves (and after regenerating the results that depend on it) the
data file is rewritten from the code as it is now::

    python -m boardlab.testing.golden examples/pig/tests/golden.py --update     # every set
    python -m boardlab.testing.golden tests.citadels.golden --update strong-4p  # one set (and new ones)

Without ``--update`` the same command checks the sets and prints what changed.  Procedure:
``docs/guides/project.md``, "Golden games".
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import importlib.util
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["Golden", "GoldenSet", "chunk_fingerprints", "compare_fingerprints", "digest", "load_golden", "main"]


def digest(*parts: Any) -> str:
    """A golden fingerprint: sha256 (first 16 hex digits) of `parts`, the same on every machine.

    A string counts as its UTF-8 bytes; anything else as a numpy array's values, little-endian.

    Parameters
    ----------
    *parts : str or array-like
        What to fingerprint, in order (a move log's text, a kernel's move arrays, ...).

    Returns
    -------
    str
        16 lowercase hex digits.
    """
    h = hashlib.sha256()
    for p in parts:
        if isinstance(p, str):
            h.update(p.encode())
        else:
            a = np.asarray(p)
            h.update(a.astype(a.dtype.newbyteorder("<"), copy=False).tobytes())
    return h.hexdigest()[:16]


def chunk_fingerprints(
    game_id: str, rules: Any, players: int, agents: Sequence[str], seating: str, run_seed: int, games: int
) -> pd.DataFrame:
    """Golden fingerprints of games 0..games-1 of a run, from the game's chunk player: one row per game.

    Each row holds ``game``, ``totals`` (the seats' totals, space-separated) and ``rows`` (a :func:`digest`
    of the chunk player's every result column for the game but ``rules``, as CSV).  This is how a
    :class:`Golden` plays a set unless the game gives its own ``play``.

    Parameters
    ----------
    game_id : str
        A registered game's id.
    rules : str, path or rule set
        What the game's ``load_rules`` takes.
    players : int
        Players per game.
    agents : sequence of str
        Agent specs, one per seat (or one for every seat).
    seating : str
        The seating (``"fixed"``, ``"rotate"``, ...).
    run_seed : int
        The run seed (each game's seed derives from it and the game's number).
    games : int
        Games to play.

    Returns
    -------
    pandas.DataFrame
        One row per game: ``game`` (int), ``totals`` (str), ``rows`` (str, 16 hex digits).
    """
    from boardlab.sim.games import get_game

    gd = get_game(game_id)
    reg = gd.agents()
    specs = [reg.parse_agent(a) for a in agents]
    if len(specs) == 1:
        specs = specs * players
    df = gd.play_chunk(gd.load_rules(rules), players, specs, seating, run_seed, 0, games)
    out = []
    for g, sub in df.groupby("game", sort=True):
        out.append(
            {
                "game": int(g),
                "totals": " ".join(str(int(t)) for t in sub["total"]),
                "rows": digest(sub.drop(columns=["rules"]).to_csv(index=False)),
            }
        )
    return pd.DataFrame(out)


def compare_fingerprints(
    name: str, got: pd.DataFrame, want: pd.DataFrame, columns: Sequence[str], regenerate: str
) -> None:
    """Compare a golden set's fingerprints as played now with the committed ones.

    Parameters
    ----------
    name : str
        The set's name (for the message).
    got, want : pandas.DataFrame
        One row per game, in game order: as played now, and as committed.
    columns : sequence of str
        The fingerprint columns to compare (``totals``, ``moves``, ``rows``, ...), compared as text.
    regenerate : str
        How to regenerate the committed fingerprints if the change of play is intended (ends the message).

    Returns
    -------
    None

    Raises
    ------
    AssertionError
        Another number of games, or games whose fingerprints differ: the message names the set, the games
        and, for the first, each differing column's value now and committed.
    """
    got, want = got.reset_index(drop=True), want.reset_index(drop=True)
    if len(got) != len(want):
        raise AssertionError(f"{name}: {len(got)} games played, {len(want)} committed. {regenerate}")
    differ = {c: (got[c].astype(str) != want[c].astype(str)) for c in columns}
    changed = [g for g in got.index if any(d[g] for d in differ.values())]
    if changed:
        g = changed[0]
        what = ", ".join(f"{c} {got[c][g]!r} (committed {want[c][g]!r})" for c in columns if differ[c][g])
        per = ", ".join(f"{c} in {int(d.sum())}" for c, d in differ.items() if d.any())
        raise AssertionError(
            f"{name}: {len(changed)} of {len(got)} games no longer play as committed, games {changed} "
            f"(differing: {per}). Game {g}: {what}. {regenerate}"
        )


@dataclass(frozen=True)
class GoldenSet:
    """One golden set: `games` seeded games of fixed agents, games 0..games-1 of the run of `seed`.

    Parameters
    ----------
    rules : str
        The rule set: a preset name (or whatever the :class:`Golden`'s ``rules`` resolves).
    players : int
        Players per game.
    agents : str
        Agent specs as on the command line, comma-separated: one per seat or one for every seat.
    seating : str
        The seating (``"fixed"``, ``"rotate"``, ...).
    seed : int
        The run seed.
    games : int
        Games in the set.
    """

    rules: str
    players: int
    agents: str
    seating: str = "fixed"
    seed: int = 0
    games: int = 1


@dataclass
class Golden:
    """A game's golden games: its named sets, the data file that holds their fingerprints, how a set is played.

    The data file is a CSV of one row per game: ``set``, ``game`` and the fingerprint columns ``play``
    returns (``totals`` and ``rows`` by default), in the order of `sets`.  Every column but ``set`` and
    ``game`` is compared.  A game may also pin named single digests (a search's outputs on fixed positions,
    ...) in a JSON file: `digests` maps each name to the function that computes it.  For example::

        GOLDEN = Golden(
            game="pig",
            path=Path(__file__).parent / "data" / "golden_games.csv",
            sets={
                "random-2p": GoldenSet("standard", 2, "random", "fixed", 401, 20),
                "ismcts-2p": GoldenSet("quick", 2, "ismcts:iters=20,random", "rotate", 402, 2),
            },
            module="examples/pig/tests/golden.py",
        )

        @pytest.mark.parametrize("name", list(GOLDEN.sets))
        def test_golden(name):
            GOLDEN.check(name)  # AssertionError naming the set, the games and the fingerprints that changed

    Parameters
    ----------
    game : str
        The registered game's id.
    path : pathlib.Path
        The CSV file of the fingerprints.
    sets : dict of str to GoldenSet
        The sets, by name, in the file's order.
    module : str
        How the update command names this object's module: a module (``tests.citadels.golden``) or a file
        (``examples/pig/tests/golden.py``) that defines it as ``GOLDEN``.
    play : callable, optional
        ``play(set) -> DataFrame`` of one row per game: ``game`` and the fingerprint columns.  None plays
        the set with the game's chunk player (:func:`chunk_fingerprints`).
    rules : callable, optional
        ``rules(name)`` -> what the game's ``load_rules`` (or `play`) takes, for a set's ``rules`` name; None
        passes the name as is.
    regenerate : str
        What to regenerate before the fingerprints after an intended change of moves (the committed results
        played by these agents): the start of every failure message.
    digests_path : pathlib.Path, optional
        The JSON file of the named digests.
    digests : dict of str to callable
        Each named digest's function (no argument, returns a :func:`digest`).
    """

    game: str
    path: Path
    sets: dict[str, GoldenSet]
    module: str
    play: Callable[[GoldenSet], pd.DataFrame] | None = None
    rules: Callable[[str], Any] | None = None
    regenerate: str = ""
    digests_path: Path | None = None
    digests: dict[str, Callable[[], str]] = field(default_factory=dict)

    @property
    def update_command(self) -> str:
        """The command that rewrites the data files from the code as it is now."""
        return f"python -m boardlab.testing.golden {self.module} --update"

    def _advice(self) -> str:
        first = f"{self.regenerate.rstrip('.')} and then" if self.regenerate else "Then"
        return f"If the change of moves is intended: {first} `{self.update_command}` rewrites the fingerprints."

    def fingerprints(self, name: str) -> pd.DataFrame:
        """Set `name` as played now.

        Parameters
        ----------
        name : str
            A set's name.

        Returns
        -------
        pandas.DataFrame
            One row per game: ``set``, ``game`` and the fingerprint columns.
        """
        s = self.sets[name]
        if self.play is not None:
            df = self.play(s)
        else:
            from boardlab.sim.games import get_game

            rules = self.rules(s.rules) if self.rules is not None else s.rules
            agents = get_game(self.game).agents().split_specs(s.agents)
            df = chunk_fingerprints(self.game, rules, s.players, agents, s.seating, s.seed, s.games)
        df = df.reset_index(drop=True)
        return pd.concat([pd.DataFrame({"set": [name] * len(df)}), df], axis=1)

    def committed(self) -> pd.DataFrame:
        """The committed fingerprints, every column as text (empty if the file does not exist yet).

        Returns
        -------
        pandas.DataFrame
            One row per game: ``set``, ``game`` and the fingerprint columns, as strings.
        """
        if not self.path.exists():
            return pd.DataFrame({"set": [], "game": []}, dtype=str)
        return pd.read_csv(self.path, dtype=str, keep_default_na=False)

    def check_committed(self) -> None:
        """Every set has its games in the data file (and the file no other set), every named digest its entry.

        Returns
        -------
        None

        Raises
        ------
        AssertionError
            Naming the sets (or digests) missing, left over or with another number of games.
        """
        got = self.committed()
        counts = got.groupby("set", sort=False).size().to_dict()
        want = {k: s.games for k, s in self.sets.items()}
        missing = [k for k in want if k not in counts]
        extra = [k for k in counts if k not in want]
        short = [
            f"{k} ({counts[k]} committed, {n} declared)" for k, n in want.items() if k in counts and counts[k] != n
        ]
        bad = []
        if missing:
            bad.append(f"sets not committed: {', '.join(missing)}")
        if extra:
            bad.append(f"committed sets no longer declared: {', '.join(extra)}")
        if short:
            bad.append(f"another number of games: {', '.join(short)}")
        if not missing and not extra and list(counts) != list(want):
            bad.append("the sets are committed in another order than declared")
        if self.digests:
            have = self._committed_digests()
            if sorted(have) != sorted(self.digests):
                bad.append(f"digests committed {sorted(have)}, declared {sorted(self.digests)}")
        if bad:
            raise AssertionError(f"{self.game} golden games ({self.path.name}): {'; '.join(bad)}. {self._advice()}")

    def check(self, name: str) -> None:
        """Replay set `name` and compare its fingerprints with the committed ones.

        Parameters
        ----------
        name : str
            A set's name.

        Returns
        -------
        None

        Raises
        ------
        AssertionError
            The set is not committed, or plays otherwise: the message names the set, how many games and which
            changed, and the first one's fingerprints now and committed (:func:`compare_fingerprints`).
        """
        got = self.fingerprints(name)
        want = self.committed()
        want = want[want["set"] == name]
        if want.empty:
            raise AssertionError(f"{self.game} {name}: no committed fingerprints. {self._advice()}")
        columns = [c for c in want.columns if c not in ("set", "game")]
        lacking = [c for c in columns if c not in got.columns]
        if lacking:
            raise AssertionError(f"{self.game} {name}: the set as played now has no column {', '.join(lacking)}")
        compare_fingerprints(f"{self.game} {name}", got, want, columns, self._advice())

    def _committed_digests(self) -> dict[str, str]:
        if self.digests_path is None or not self.digests_path.exists():
            return {}
        return dict(json.loads(self.digests_path.read_text()))

    def check_digest(self, name: str) -> None:
        """Recompute the named digest `name` and compare it with the committed one.

        Parameters
        ----------
        name : str
            A key of `digests`.

        Returns
        -------
        None

        Raises
        ------
        AssertionError
            It differs (or is not committed): the message gives both.
        """
        want = self._committed_digests().get(name)
        got = self.digests[name]()
        if got != want:
            where = self.digests_path.name if self.digests_path is not None else "no file"
            raise AssertionError(f"{self.game} {name}: digest {got}, committed {want} ({where}). {self._advice()}")

    def update(self, names: Sequence[str] | None = None) -> list[str]:
        """Rewrite the data files from the code as it is now.

        Parameters
        ----------
        names : sequence of str, optional
            The sets to replay, and any set not committed yet; the others keep their committed rows.  None
            replays every set and recomputes every named digest.

        Returns
        -------
        list of str
            The sets replayed.

        Raises
        ------
        KeyError
            A name is not a declared set.
        """
        unknown = [n for n in names or () if n not in self.sets]
        if unknown:
            raise KeyError(f"no golden set {', '.join(unknown)} in {self.game}'s (sets: {', '.join(self.sets)})")
        old = self.committed()
        have = set(old["set"])
        replay = [k for k in self.sets if names is None or k in names or k not in have]
        parts = [self.fingerprints(k) if k in replay else old[old["set"] == k] for k in self.sets]
        frames = [p for p in parts if not p.empty]
        self.path.parent.mkdir(parents=True, exist_ok=True)
        pd.concat(frames, ignore_index=True).to_csv(self.path, index=False)
        if self.digests and self.digests_path is not None and names is None:
            self.digests_path.write_text(json.dumps({k: f() for k, f in self.digests.items()}, indent=2) + "\n")
        return replay

    def main(self, argv: Sequence[str] | None = None) -> int:
        """The command line of this object (what ``python -m boardlab.testing.golden MODULE`` runs).

        Parameters
        ----------
        argv : sequence of str, optional
            ``[--update] [SET ...]``; ``sys.argv[1:]`` when None.

        Returns
        -------
        int
            The exit code: 0, 1 if a checked set plays otherwise, 2 for bad input.
        """
        return main([self.module, *(sys.argv[1:] if argv is None else argv)], golden=self)


def load_golden(where: str) -> Golden:
    """The ``GOLDEN`` object of a module (``tests.citadels.golden``) or a Python file (``path/golden.py``).

    Parameters
    ----------
    where : str
        A module name importable from the current directory, or a file path.

    Returns
    -------
    Golden
        The module's ``GOLDEN``.

    Raises
    ------
    ValueError
        Nothing to import there, or it defines no ``GOLDEN``.
    """
    path = Path(where)
    if where.endswith(".py") or path.is_file():
        if not path.is_file():
            raise ValueError(f"no such file: {where}")
        spec = importlib.util.spec_from_file_location(f"_golden_{path.stem}", path)
        if spec is None or spec.loader is None:
            raise ValueError(f"cannot import {where}")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    else:
        if "" not in sys.path and str(Path.cwd()) not in sys.path:
            sys.path.insert(0, str(Path.cwd()))
        try:
            mod = importlib.import_module(where)
        except ModuleNotFoundError as e:
            raise ValueError(f"cannot import {where}: {e}") from None
    golden = getattr(mod, "GOLDEN", None)
    if not isinstance(golden, Golden):
        raise ValueError(f"{where} defines no GOLDEN (a boardlab.testing.Golden)")
    return golden


class _BadInput(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    """argparse, but bad input is one line (main prints it and returns 2)."""

    def error(self, message: str):  # type: ignore[override]
        raise _BadInput(f"{message} (see --help)")


def main(argv: Sequence[str] | None = None, golden: Golden | None = None) -> int:
    """``python -m boardlab.testing.golden MODULE [--update] [SET ...]``: check or rewrite golden fingerprints.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments (``sys.argv[1:]`` when None).
    golden : Golden, optional
        The object to use instead of importing MODULE's ``GOLDEN``.

    Returns
    -------
    int
        0; 1 if a checked set or digest differs; 2 for bad input (one line on stderr).
    """
    ap = _Parser(
        prog="python -m boardlab.testing.golden",
        description="Check a game's golden games against the committed fingerprints, or rewrite them (--update).",
    )
    ap.add_argument("module", help="the module (tests.citadels.golden) or file (path/golden.py) defining GOLDEN")
    ap.add_argument("sets", nargs="*", help="the sets to check or replay (default: every set)")
    ap.add_argument("--update", action="store_true", help="rewrite the data files from the code as it is now")
    try:
        args = ap.parse_intermixed_args(list(sys.argv[1:] if argv is None else argv))
    except _BadInput as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    try:
        g = golden if golden is not None else load_golden(args.module)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    unknown = [n for n in args.sets if n not in g.sets]
    if unknown:
        print(f"error: no golden set {', '.join(unknown)} (sets: {', '.join(g.sets)})", file=sys.stderr)
        return 2
    if args.update:
        replayed = g.update(args.sets or None)
        wrote = [g.path] + ([g.digests_path] if g.digests_path is not None and g.digests and not args.sets else [])
        print(f"replayed {len(replayed)} set(s): {', '.join(replayed) or '-'}; wrote {', '.join(map(str, wrote))}")
        return 0
    failed = 0
    for name in args.sets or list(g.sets):
        try:
            g.check(name)
        except AssertionError as e:
            failed += 1
            print(f"FAIL {e}")
        else:
            print(f"ok   {g.game} {name}")
    for name in g.digests if not args.sets else ():
        try:
            g.check_digest(name)
        except AssertionError as e:
            failed += 1
            print(f"FAIL {e}")
        else:
            print(f"ok   {g.game} digest {name}")
    return 1 if failed else 0


if __name__ == "__main__":
    from boardlab.testing.golden import main as _main  # this module by its name, so GOLDEN's class is ours

    raise SystemExit(_main())
