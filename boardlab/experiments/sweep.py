"""Rule sweeps: re-simulate for each value of one rule parameter and tabulate each agent's win share.

Unlike rescoring, a sweep lets the agents replan: each value is a fresh
simulation under the changed rules, on the same game seeds (common random
numbers, so differences between values are not luck of the deal).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pandas as pd

from boardlab.experiments import simulate as S
from boardlab.experiments.io import atomic_write_text
from boardlab.experiments.pipelines import mean_ci, win_share


def parse_values(text: str) -> list:
    """``'3,4,5'`` -> ``[3, 4, 5]``; JSON per value (numbers, true/false, "text"); ';' separates values holding commas.
    A lone list (``'[5,18,13]'``) is one value: there is nothing to separate it from.

    Parameters
    ----------
    text : str
        The ``--values`` text.

    Returns
    -------
    list
        The values, in order.
    """
    if ";" not in text and text.strip().startswith("["):
        try:
            return [json.loads(text)]
        except json.JSONDecodeError:
            pass
    sep = ";" if ";" in text else ","
    out = []
    for tok in (t.strip() for t in text.split(sep)):
        if not tok:
            raise ValueError(f"--values: empty value in {text!r}")
        try:
            out.append(json.loads(tok))
        except json.JSONDecodeError:
            out.append(tok)  # a bare word, e.g. a district letter
    return out


def value_label(v) -> str:
    """A value as file names and tables show it: a string as it is, anything else as JSON.

    Parameters
    ----------
    v : object
        A swept value.

    Returns
    -------
    str
        Its label.
    """
    return json.dumps(v) if not isinstance(v, str) else v


def sweep_rules(base, param: str, values: list) -> list:
    """One rule set per value of any game (raises its rules error naming the key if the path or a value is wrong).
    ``param`` may end in list indices, as ``tune scoring --param`` takes them (``scoring.commercial.tier_points[2]``):
    each value sets that element and the rest of the list is the base's (``RuleSet.with_overrides``).

    Parameters
    ----------
    base : RuleSet
        The base rules.
    param : str
        The dotted key swept.
    values : list
        Its values.

    Returns
    -------
    list of RuleSet
        One per value, in order.
    """
    return [base.with_overrides({param: v}) for v in values]


def run_sweep(
    base,
    param: str,
    values: list,
    players: int,
    agents: list[str],
    games: int,
    seed: int,
    seating: str,
    work: Path,
    jobs: int = 1,
    log: Callable[[str], None] = print,
    progress: Callable[[str, int, int, float], None] | None = None,
    *,
    game,
    backend: str = "loky",
    scheduler: str | None = None,
    chunk_size: int | None = None,
) -> pd.DataFrame:
    """Long table: value, agent, n, win_pct, lo, hi, mean total and its interval; its ``attrs["seats"]`` holds the
    same per seat (value, seat, n, win_pct, lo, hi: :func:`seat_rows`), beside the agents.

    Parameters
    ----------
    base : RuleSet
        The base rules (of `game`).
    param : str
        The dotted key swept.
    values : list
        Its values.
    players : int
        Players per game.
    agents : list of str
        Agent specs.
    games : int
        Games per value.
    seed : int
        The run seed (the same games for every value).
    seating : str
        As in simulate.
    work : pathlib.Path
        The run cache (one run per value, reused when repeated).
    jobs : int
        Worker processes.
    log : callable
        Receives progress lines.
    progress : callable or None
        Called ``progress(label, done, total, rate)`` after each chunk of each value's run.
    game : GameDef or str
        The game.
    backend, scheduler : str, str or None
        As in :func:`boardlab.experiments.simulate.run`.
    chunk_size : int or None
        As in :func:`boardlab.experiments.simulate.make_spec`.

    Returns
    -------
    pandas.DataFrame
        The long table, its seats in ``attrs["seats"]``.
    """
    game = getattr(game, "id", game)
    parts, seats = [], []
    for v, rules in zip(values, sweep_rules(base, param, values), strict=True):
        spec = S.make_spec(players, agents, games, seed, rules, seating, chunk_size, game=game)
        path = Path(work) / f"{param}={value_label(v)}.parquet".replace("/", "_")
        label = f"{param}={value_label(v)}"

        def tick(done: int, total: int, rate: float, label=label) -> None:
            if progress:
                progress(label, done, total, rate)

        _, reused = S.run_or_reuse(spec, path, jobs=jobs, backend=backend, scheduler=scheduler, progress=tick)
        df = pd.read_parquet(path)
        log(f"{param} = {value_label(v)}: {games:,} games ({'reused' if reused else 'played'})")
        ws = win_share(df, "agent")
        tot = mean_ci(df, ["total"], "agent").set_index("agent")
        ws = ws.assign(
            value=value_label(v),
            win_pct=100 * ws["win_share"],
            lo=100 * ws["lo"],
            hi=100 * ws["hi"],
            mean_total=ws["agent"].map(tot["mean"]),
            total_lo=ws["agent"].map(tot["lo"]),
            total_hi=ws["agent"].map(tot["hi"]),
            games=games,
            param=param,
        )
        parts.append(
            ws[["param", "value", "agent", "games", "n", "win_pct", "lo", "hi", "mean_total", "total_lo", "total_hi"]]
        )
        seats.append(seat_rows(df, param, value_label(v), games))
    table = pd.concat(parts, ignore_index=True)
    table.attrs["seats"] = pd.concat(seats, ignore_index=True)
    return table


def seat_rows(df: pd.DataFrame, param: str, value: str, games: int) -> pd.DataFrame:
    """Win share per seat of one value's games, in percent with its 95% Wilson interval.

    Parameters
    ----------
    df : pandas.DataFrame
        The value's result rows.
    param : str
        The rule parameter swept.
    value : str
        The value's label.
    games : int
        Games played at the value.

    Returns
    -------
    pandas.DataFrame
        param, value, seat, games, n, win_pct, lo, hi.
    """
    ws = win_share(df, "seat")
    return ws.assign(
        param=param, value=value, games=games, win_pct=100 * ws["win_share"], lo=100 * ws["lo"], hi=100 * ws["hi"]
    )[["param", "value", "seat", "games", "n", "win_pct", "lo", "hi"]]


def write_outputs(table: pd.DataFrame, param: str, out: Path, about: dict) -> None:
    """sweep.csv, sweep_seats.csv (where the table holds its seats), sweep.png and sweep.json (the command and
    parameters) in `out`, each written whole.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`run_sweep`'s table.
    param : str
        The dotted key swept.
    out : pathlib.Path
        The output directory.
    about : dict
        The sweep's facts, written to sweep.json.
    """
    from boardlab.experiments import charts

    atomic_write_text(table.to_csv(index=False, float_format="%.4g"), out / "sweep.csv")
    if "seats" in table.attrs:
        atomic_write_text(table.attrs["seats"].to_csv(index=False, float_format="%.4g"), out / "sweep_seats.csv")
    charts.sweep_chart(table, param, out / "sweep.png")
    atomic_write_text(json.dumps(about, indent=1), out / "sweep.json")


def pivot_text(table: pd.DataFrame, values: list, by: str = "agent") -> str:
    """Agents (or seats: `by`) by value: 'win% [lo, hi]' cells, as the command prints them.

    Parameters
    ----------
    table : pandas.DataFrame
        :func:`run_sweep`'s table (or its seats' table).
    values : list
        The swept values, in column order.
    by : str
        ``"agent"`` or ``"seat"``: the rows.

    Returns
    -------
    str
        The pivot table as text.
    """
    piv = table.assign(
        cell=[
            f"{w:5.1f} [{lo:4.1f}, {hi:4.1f}]"
            for w, lo, hi in zip(table["win_pct"], table["lo"], table["hi"], strict=True)
        ]
    ).pivot(index=by, columns="value", values="cell")
    return piv[[value_label(v) for v in values]].to_string()
