"""`boardlab compare A B`: two rule sets of one game on the same games, side by side, as paired differences.

Both rule sets play the same game seeds with the same agents and seating, so the
difference B − A on each (game, seat) removes the luck of the deal; every
difference carries a 95% interval (normal, on the paired differences; see
:func:`boardlab.experiments.pipelines.paired_difference`).  Two identical rule sets give
differences that are exactly zero, intervals included: the engine is
deterministic given the seed.  What is compared besides the win shares is the game's summary
(``GameDef.reports.summary``: sections of per-player numbers, e.g. Citywright's score breakdown and waste) and,
where the game has them, its own sections (``GameDef.reports.compare_sections``, a :class:`CompareSections`:
rows the generic summary cannot give, e.g. Cartographers' points per scoring card in the games where the
card is in play, and its solo titles).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from boardlab.experiments import simulate as S
from boardlab.experiments.io import atomic_write_text, read_results
from boardlab.experiments.pipelines import mean_ci, paired_difference, win_share

OUT_COLUMNS = ["section", "by", "group", "metric", "n", "a", "a_lo", "a_hi", "b", "b_lo", "b_hi", "diff", "lo", "hi"]


@dataclass(frozen=True)
class ExtraSection:
    """How REPORT.md shows one section of a game's own compare rows: a table headed `what`, a row per
    (group, metric) in the rows' order; `percent`: the values are shares, shown ×100."""

    section: str
    what: str
    percent: bool = False


@dataclass(frozen=True)
class CompareSections:
    """A game's own compare sections (the GameDef part ``compare_sections``).

    rows : callable(a, b, rules_a, rules_b) -> DataFrame
        The two runs' result frames (the same seeds, one row per game and seat) and their rule sets ->
        long rows of :data:`OUT_COLUMNS` (``diff``, ``lo``, ``hi``: B − A paired on the same games, with its
        95% interval; ``a``, ``b`` with theirs), only of the `sections` below, in the order to show them.
    sections : tuple[ExtraSection, ...]
        Each section the rows may hold, in REPORT.md's order (a section with no rows is left out).
    """

    rows: Callable[[pd.DataFrame, pd.DataFrame, Any, Any], pd.DataFrame]
    sections: tuple[ExtraSection, ...]

    def table(self, a: pd.DataFrame, b: pd.DataFrame, rules_a, rules_b) -> pd.DataFrame:
        """The game's own rows, checked: exactly OUT_COLUMNS, sections declared (ValueError otherwise: a bug in
        the game).

        Parameters
        ----------
        a, b : pandas.DataFrame
            The result rows of rules A and B (the same seeds, one row per game and seat).
        rules_a, rules_b : RuleSet
            The two rule sets.

        Returns
        -------
        pandas.DataFrame
            The rows ``rows`` returned.
        """
        t = self.rows(a, b, rules_a, rules_b)
        if list(t.columns) != OUT_COLUMNS:
            raise ValueError(f"compare_sections rows have columns {list(t.columns)}, not {OUT_COLUMNS}")
        unknown = set(t["section"]) - {s.section for s in self.sections}
        if unknown:
            raise ValueError(f"compare_sections rows of undeclared sections {sorted(unknown)}")
        return t.assign(group=t["group"].astype(str)).reset_index(drop=True)


def rule_differences(a, b) -> list[tuple[str, object, object]]:
    """Every dotted key whose value differs between the two rule sets (the name aside).

    Parameters
    ----------
    a, b : RuleSet
        The two rule sets.

    Returns
    -------
    list of tuple
        ``(dotted key, A's value, B's value)``, in A's key order, then B's own keys (a value a set lacks is None).
    """

    def flat(d, prefix=""):
        out = {}
        for k, v in d.items():
            key = f"{prefix}{k}"
            if isinstance(v, dict):
                out.update(flat(v, key + "."))
            else:
                out[key] = v
        return out

    fa, fb = flat(a.data), flat(b.data)
    keys = [k for k in dict.fromkeys([*fa, *fb]) if k != "name"]
    return [(k, fa.get(k), fb.get(k)) for k in keys if fa.get(k) != fb.get(k)]


def play_both(
    a,
    b,
    players: int,
    agents: list[str],
    games: int,
    seed: int,
    seating: str,
    work: Path,
    jobs: int = 1,
    progress: Callable[[str, int, int, float], None] | None = None,
    *,
    game,
    backend: str = "loky",
    scheduler: str | None = None,
    chunk_size: int | None = None,
) -> tuple[pd.DataFrame, pd.DataFrame, S.RunSpec, S.RunSpec]:
    """Both rule sets of `game` on the same seeds (runs kept in `work` and reused when repeated).

    Parameters
    ----------
    a, b : RuleSet
        Rules A and B.
    players : int
        Players per game.
    agents : list of str
        Agent specs (one per seat, or one for all).
    games : int
        Games per rule set.
    seed : int
        The run seed of both.
    seating : str
        The seating (as in simulate).
    work : pathlib.Path
        The run cache.
    jobs : int
        Worker processes.
    progress : callable or None
        Called ``progress(label, done, total, rate)``, label ``"a"`` or ``"b"``.
    game : GameDef or str
        The game.
    backend, scheduler : str, str or None
        As in :func:`boardlab.experiments.simulate.run`.
    chunk_size : int or None
        As in :func:`boardlab.experiments.simulate.make_spec`.

    Returns
    -------
    tuple
        ``(rows A, rows B, spec A, spec B)``: two DataFrames and the two RunSpecs.
    """
    game = getattr(game, "id", game)
    specs = [S.make_spec(players, agents, games, seed, rules, seating, chunk_size, game=game) for rules in (a, b)]
    frames = []
    for label, spec in zip(("a", "b"), specs, strict=True):

        def tick(done: int, total: int, rate: float, label=label) -> None:
            if progress:
                progress(label.upper(), done, total, rate)

        path = Path(work) / f"{label}.parquet"
        S.run_or_reuse(spec, path, jobs=jobs, backend=backend, scheduler=scheduler, progress=tick)
        frames.append(read_results(path))  # one line naming a damaged cached run
    # the same agents under both rule sets, though B's specs may name other weights (an agent whose play
    # depends on the rules, resolved for each: boardlab.experiments.simulate.make_spec): B's rows are labelled as A's
    same = dict(zip(specs[1].agents, specs[0].agents, strict=True))
    frames[1]["agent"] = frames[1]["agent"].map(same).fillna(frames[1]["agent"])
    return frames[0], frames[1], specs[0], specs[1]


def _played_lines(pairs: list) -> list[str]:
    if not pairs:
        return []
    return [
        "Agents as played where the two rule sets resolve them differently (B's rows are labelled as A's): "
        + "; ".join(f"`{x}` under A, `{y}` under B" for x, y in pairs)
        + ".",
        "",
    ]


def played_differently(spec_a: S.RunSpec, spec_b: S.RunSpec) -> list[tuple[str, str]]:
    """(A's agent spec, B's) for each seat whose agent the two rule sets resolved differently (learned weights
    fitted per rule set), once each: the report says what B's rows, labelled as A's, played.

    Parameters
    ----------
    spec_a, spec_b : boardlab.experiments.simulate.RunSpec
        The two runs.

    Returns
    -------
    list of tuple of (str, str)
        The differing pairs, in seat order, each once.
    """
    return list(dict.fromkeys((str(x), str(y)) for x, y in zip(spec_a.agents, spec_b.agents, strict=True) if x != y))


def _rows(section: str, by: str, diff: pd.DataFrame, a_ci: pd.DataFrame, b_ci: pd.DataFrame, metric: str):
    d = diff.rename(columns={by: "group"})
    ka = a_ci.rename(columns={by: "group", "lo": "a_lo", "hi": "a_hi"})[["group", "a_lo", "a_hi"]]
    kb = b_ci.rename(columns={by: "group", "lo": "b_lo", "hi": "b_hi"})[["group", "b_lo", "b_hi"]]
    d = d.merge(ka, on="group").merge(kb, on="group")
    return d.assign(section=section, by=by, metric=metric)


def compare_table(a: pd.DataFrame, b: pd.DataFrame, agents: list[str] | None = None, summary=()) -> pd.DataFrame:
    """Long table: section, by (agent or seat), group, metric, n, A and B with intervals, B − A with its interval.

    Win shares per agent and per seat, then each section of `summary` (the game's ``GameDef.reports.summary``:
    ``(section, what, columns)``) per agent.  Agents come in the order of `agents` (e.g. the run's seat
    order), seats in seat order.

    Parameters
    ----------
    a, b : pandas.DataFrame
        The result rows of rules A and B (the same seeds, one row per game and seat).
    agents : list of str or None
        The agents' order; None: sorted.
    summary : sequence of tuple
        The game's summary sections.

    Returns
    -------
    pandas.DataFrame
        Columns OUT_COLUMNS.
    """
    parts = []
    for by in ("agent", "seat"):
        diff = paired_difference(a, b, "win_share", by)
        parts.append(_rows("win share", by, diff, win_share(a, by), win_share(b, by), "win_share"))
    for section, _, columns in summary:
        columns = list(columns)
        ma, mb = mean_ci(a, columns, "agent"), mean_ci(b, columns, "agent")
        for metric in columns:
            diff = paired_difference(a, b, metric, "agent")
            ca = ma[ma["metric"] == metric].drop(columns="metric")
            cb = mb[mb["metric"] == metric].drop(columns="metric")
            parts.append(_rows(section, "agent", diff, ca, cb, metric))
    out = pd.concat(parts, ignore_index=True)
    out["group"] = out["group"].astype(str)
    rank = {g: i for i, g in enumerate(dict.fromkeys(agents or []))}
    out = out.assign(
        _section=out["section"].map({"win share": 0, **{s: i + 1 for i, (s, _, _) in enumerate(summary)}}),
        _by=(out["by"] == "seat").astype(int),
        _group=[
            rank.get(g, len(rank)) if by == "agent" else int(g) for g, by in zip(out["group"], out["by"], strict=True)
        ],
    ).sort_values(["_section", "_by", "_group"], kind="stable")
    return out[OUT_COLUMNS].reset_index(drop=True)


def _cell(x: float, lo: float, hi: float, scale: float = 1.0, signed: bool = False) -> str:
    f = "+.1f" if signed else ".1f"
    return f"{scale * x:{f}} [{scale * lo:{f}}, {scale * hi:{f}}]"


def report(
    table: pd.DataFrame,
    diffs: list,
    about: dict,
    labels: dict[str, str],
    summary=(),
    extra: CompareSections | None = None,
) -> str:
    """One page: what differs, win shares per agent and seat, the game's summary sections (e.g. score breakdown,
    waste), then the game's own sections (`extra`); the chart.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`compare_table`'s rows (and the game's own, `extra`), columns OUT_COLUMNS.
    diffs : list of tuple
        :func:`rule_differences`.
    about : dict
        The comparison's facts: the two rule sets' names (``a``, ``b``), games, seed, players, agents, ...
    labels : dict of str to str
        Canonical agent spec -> the label shown (:func:`agent_labels`).
    summary : sequence of tuple
        The game's summary sections.
    extra : CompareSections or None
        The game's own sections.

    Returns
    -------
    str
        REPORT.md's Markdown.
    """
    A, B = about["a"], about["b"]
    L = [
        f"# Rules compared: `{A}` (A) and `{B}` (B)",
        "",
        f"{about['games']:,} games for each, the same seeds (seed {about['seed']}), {about['players']} "
        f"player{'s' if about['players'] != 1 else ''}, "
        f"seating `{about['seating']}`; agents {', '.join(f'`{x}`' for x in about['agents'])}. Differences are B − A"
        " on the same (game, seat), with 95% intervals (normal, paired); win shares of A and B with Wilson"
        " intervals.  ",
        f"Command: `{about['command']}`  ",
        f"Commit: `{about['git_commit']}`",
        "",
        *_played_lines(about.get("played_differently") or []),
        "**Rule differences:** "
        + ("; ".join(f"`{k}` {json.dumps(x)} → {json.dumps(y)}" for k, x, y in diffs) if diffs else "none")
        + ".",
        "",
        "![comparison](compare.png)",
        "",
    ]
    for by in ("agent", "seat"):
        t = table[(table["section"] == "win share") & (table["by"] == by)]
        L += [f"| win share, % ({by}) | A | B | B − A |", "|---|---|---|---|"]
        for r in t.itertuples():
            name = f"`{labels.get(r.group, r.group)}`" if by == "agent" else f"seat {r.group}"
            L.append(
                f"| {name} | {_cell(r.a, r.a_lo, r.a_hi, 100)} | {_cell(r.b, r.b_lo, r.b_hi, 100)} "
                f"| **{_cell(r.diff, r.lo, r.hi, 100, True)}** |"
            )
        L.append("")
    for section, what, columns in summary:
        t = table[table["section"] == section]
        L += [f"| {what}, B − A | " + " | ".join(columns) + " |", "|---|" + "---|" * len(columns)]
        for g in dict.fromkeys(t["group"]):
            sub = t[t["group"] == g].set_index("metric")
            cells = [_cell(sub.at[m, "diff"], sub.at[m, "lo"], sub.at[m, "hi"], signed=True) for m in columns]
            L.append(f"| `{labels.get(g, g)}` | " + " | ".join(cells) + " |")
        L.append("")
    for sec in extra.sections if extra is not None else ():
        t = table[table["section"] == sec.section]
        if t.empty:
            continue
        scale = 100 if sec.percent else 1
        several = t["metric"].nunique() > 1
        L += [f"| {sec.what} | n | A | B | B − A |", "|---|---|---|---|---|"]
        for r in t.itertuples():
            name = f"{r.group}, {r.metric}" if several else r.group
            L.append(
                f"| {name} | {r.n:,} | {_cell(r.a, r.a_lo, r.a_hi, scale)} | {_cell(r.b, r.b_lo, r.b_hi, scale)} "
                f"| **{_cell(r.diff, r.lo, r.hi, scale, True)}** |"
            )
        L.append("")
    L.append("Files: `compare.csv` (every row above with A's and B's values), `compare.png`, `compare.json`.")
    return "\n".join(L) + "\n"


def write_outputs(
    table: pd.DataFrame,
    diffs: list,
    out: Path,
    about: dict,
    labels: dict[str, str],
    summary=(),
    extra: CompareSections | None = None,
) -> None:
    """compare.csv, compare.png, REPORT.md and compare.json in `out`, each written whole; `table` holds the
    game's own rows (`extra`) after compare_table's.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`compare_table`'s rows (and the game's own, `extra`), columns OUT_COLUMNS.
    diffs : list of tuple
        :func:`rule_differences`.
    out : pathlib.Path
        The output directory.
    about : dict
        The comparison's facts: the two rule sets' names (``a``, ``b``), games, seed, players, agents, ...
    labels : dict of str to str
        Canonical agent spec -> the label shown (:func:`agent_labels`).
    summary : sequence of tuple
        The game's summary sections.
    extra : CompareSections or None
        The game's own sections.
    """
    from boardlab.experiments import charts

    out = Path(out)
    atomic_write_text(table.to_csv(index=False, float_format="%.6g"), out / "compare.csv")
    charts.compare_chart(table, labels, about["a"], about["b"], about["players"], out / "compare.png")
    atomic_write_text(report(table, diffs, about, labels, summary, extra), out / "REPORT.md")
    atomic_write_text(json.dumps({**about, "differences": diffs}, indent=1, default=str), out / "compare.json")


def summary_text(table: pd.DataFrame, labels: dict[str, str], extra: CompareSections | None = None) -> str:
    """Win share per agent and seat, A -> B and the paired difference, as the command prints it; then each of
    the game's own sections (`extra`).

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`compare_table`'s rows (and the game's own, `extra`), columns OUT_COLUMNS.
    labels : dict of str to str
        Canonical agent spec -> the label shown (:func:`agent_labels`).
    extra : CompareSections or None
        The game's own sections.

    Returns
    -------
    str
        The lines, joined.
    """
    lines = ["win share, % [95%]:        A                    B                 B - A"]
    for r in table[table["section"] == "win share"].itertuples():
        name = labels.get(r.group, r.group) if r.by == "agent" else f"seat {r.group}"
        lines.append(
            f"  {name:<20} {_cell(r.a, r.a_lo, r.a_hi, 100):>19}  {_cell(r.b, r.b_lo, r.b_hi, 100):>19}"
            f"  {_cell(r.diff, r.lo, r.hi, 100, True):>21}"
        )
    for sec in extra.sections if extra is not None else ():
        t = table[table["section"] == sec.section]
        if t.empty:
            continue
        scale = 100 if sec.percent else 1
        several = t["metric"].nunique() > 1
        lines.append(f"{sec.what} [95%]:")
        for r in t.itertuples():
            name = f"{r.group}, {r.metric}" if several else r.group
            lines.append(
                f"  {name:<26} {_cell(r.a, r.a_lo, r.a_hi, scale):>19}  {_cell(r.b, r.b_lo, r.b_hi, scale):>19}"
                f"  {_cell(r.diff, r.lo, r.hi, scale, True):>21}"
            )
    return "\n".join(lines)


def agent_labels(spec: S.RunSpec, given: list[str]) -> dict[str, str]:
    """Canonical agent spec -> the spec as the user wrote it (shorter in tables).

    Parameters
    ----------
    spec : boardlab.experiments.simulate.RunSpec
        The run (its canonical agents).
    given : list of str
        The specs as given on the command line.

    Returns
    -------
    dict of str to str
        One label per canonical spec (the canonical text itself when the counts differ).
    """
    if len(given) == len(spec.agents):
        return {str(c): g for c, g in zip(spec.agents, given, strict=True)}
    return {str(c): str(c) for c in np.unique(spec.agents)}
