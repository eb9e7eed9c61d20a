"""The generic balance report (``boardlab reproduce --game ID`` for a game without a report of its own): the
game-anatomy panel (:mod:`boardlab.experiments.anatomy`) per skill tier and per player count.

The tiers are the game's declared skill tiers (``GameDef.ladder.skill_tiers``) or the generic ones: ``random`` and
``ismcts`` at two budgets (:data:`GENERIC_TIERS`).  For each tier and player count, every seat is played by the tier
(self-play: the outcome, duration, branching and trajectory figures), and for each tier but the first, one seat by
the tier against the first tier in every other seat, seats rotating (skill: the tier's win share against 1/N).
Games are played by the generic chunk player with trajectories (:func:`boardlab.experiments.play.play_tables`), so
the game must declare ``progress(player)``; where every seat is a built-in agent and the game has a recorded game
loop (``Simulation.trajectory_player``), by that loop: the same games and trajectories, without the public API.
A tier's tables after the first are played at a tenth of ``--games`` (at least 20): search agents are slow.

Restricted play (Jaffe et al. 2012), for a game that names move families (``move_families()``,
``move_family(move)``): for the first tier and the last, one seat is played by the tier restricted to a family --
the game's own specialist at that tier where its agent registry names one (``Registry.restricted``: Citadels'
``prefers``, Citywright's specialists), else ``random-prefers:FAMILY`` / ``ismcts-prefers:FAMILY`` for a
``random`` or ``ismcts`` tier (:mod:`boardlab.agents.generic.prefers`); when neither tier has a restricted form,
``random-prefers:FAMILY`` against ``random`` -- against the unrestricted tier in every other seat, seats rotating,
at the smallest player count reported; a family whose specialist wins more than 1/N (its interval above) is "too
strong".

Each run is kept in the run cache (``--work``) as ``<key>.results.parquet`` and ``<key>.trajectory.parquet``, and
reused when present; the outputs (``REPORT.md``, ``panel.csv``, ``skill.csv``, two charts) are written whole.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

from boardlab.experiments import anatomy as A
from boardlab.experiments.io import atomic_write_parquet, atomic_write_text, staged_directory
from boardlab.experiments.report import Report, ci, pct, render, rules_tag
from boardlab.sim.games import GameDef, get_game
from boardlab.sim.stats import wilson

# name -> agent spec: the tiers of a game that declares none
GENERIC_TIERS = {"random": "random", "ismcts-4": "ismcts:iters=4", "ismcts-16": "ismcts:iters=16"}
CHUNK = 10  # games per task when several processes play
DEFAULT_GAMES = 600


@dataclass(frozen=True)
class Run:
    """One run of the plan: `agents` (one spec per seat) at `players`, `games` games."""

    key: str
    tier: str
    kind: str  # "self" (every seat the tier), "skill" (one seat the tier, the others the first tier) or
    # "restricted" (one seat the tier restricted to `family`, the others the tier)
    players: int
    agents: tuple[str, ...]
    games: int
    seating: str
    family: str = ""


def families_of(game: GameDef) -> tuple[str, ...]:
    """The move families the game's public API names (``move_families()``), or () for none.

    Parameters
    ----------
    game : GameDef
        The game.

    Returns
    -------
    tuple of str
        The families, in the game's order.
    """
    g = game.new_game(player_counts(game)[0], game.load_rules(game.default_preset), 0)
    names = getattr(g, "move_families", None)
    return tuple(names()) if callable(names) and callable(getattr(g, "move_family", None)) else ()


def restricted_spec(spec: str, family: str, game: GameDef | None = None) -> str | None:
    """The restricted form of a tier's agent spec: the game's own specialist where its agent registry names one
    (``Registry.restricted``: Citadels' ``basic:...,prefers=0`` -> ``...,prefers=4`` for the king), else the
    generic one (``random`` -> ``random-prefers:F``, ``ismcts:iters=16`` -> ``ismcts-prefers:F,iters=16``), or None
    for an agent with no restricted form.

    Parameters
    ----------
    spec : str
        A tier's agent spec.
    family : str
        A move family.
    game : GameDef or None
        The game, whose registry may name its own specialist (None: the generic forms only).

    Returns
    -------
    str or None
        The restricted spec.
    """
    name, _, args = spec.partition(":")
    if name in ("random", "ismcts"):
        return f"{name}-prefers:{family}" + (f",{args}" if args else "")
    if game is not None:
        reg = game.agents()
        if reg.restricted is not None:
            return reg.restricted(reg.parse_agent(spec), family)
    return None


def stored_spec(game: GameDef, spec: str, rules) -> str:
    """An agent's spec as result rows store it (their ``agent`` column): the registry's full spec, as it plays
    under `rules` (Citywright's ``weights=auto`` made the weights those rules play).

    Parameters
    ----------
    game : GameDef
        The game.
    spec : str
        An agent spec.
    rules :
        The rule set played.

    Returns
    -------
    str
        The stored spec.
    """
    reg = game.agents()
    parsed = reg.parse_agent(spec)
    return str(reg.for_rules(parsed, rules) if reg.for_rules is not None else parsed)


def tiers_of(game: GameDef) -> dict[str, str]:
    """The report's tiers: the game's skill tiers (name -> spec), or GENERIC_TIERS.

    Parameters
    ----------
    game : GameDef
        The game.

    Returns
    -------
    dict of str to str
        Tier name -> agent spec, weakest first.
    """
    tiers = game.tiers()
    if tiers:
        return {name: spec for name, (spec, _) in tiers.items()}
    return dict(GENERIC_TIERS)


def player_counts(game: GameDef) -> list[int]:
    """The player counts reported: the game's two smallest counts of two players or more (2 and 3 for most games,
    3 and 4 for a 3-4-player game), or its one count; a solo-only game: 1.

    Parameters
    ----------
    game : GameDef
        The game.

    Returns
    -------
    list of int
        Ascending.
    """
    lo, hi = game.players
    counts = list(range(max(lo, 2), hi + 1))[:2]
    return counts or [lo]


def plan(game: GameDef, games: int) -> list[Run]:
    """Every run of the report for size `games` (module docstring).

    Parameters
    ----------
    game : GameDef
        The game.
    games : int
        Games of the first tier's tables.

    Returns
    -------
    list of Run
        Self-play runs per tier and player count, then skill runs.
    """
    tiers = tiers_of(game)
    first = next(iter(tiers))
    small = max(20, games // 10)
    runs = []
    for i, (name, spec) in enumerate(tiers.items()):
        n = games if i == 0 else small
        for p in player_counts(game):
            runs.append(Run(f"{name}-{p}p", name, "self", p, (spec,) * p, n, "rotate"))
    for name, spec in list(tiers.items())[1:]:
        for p in player_counts(game):
            agents = (spec, *[tiers[first]] * (p - 1))
            runs.append(Run(f"{name}-vs-{first}-{p}p", name, "skill", p, agents, small, "rotate"))
    names = list(tiers)
    p = player_counts(game)[0]
    families = families_of(game) if p > 1 else ()
    restricted_tiers = [
        (name, tiers[name], games if name == first else small)
        for name in dict.fromkeys([names[0], names[-1]])
        if families and restricted_spec(tiers[name], families[0], game) is not None
    ]
    if families and not restricted_tiers:  # no tier has a restricted form: the floor, random against random
        restricted_tiers = [("random", "random", games)]
    for name, spec, n in restricted_tiers:
        for family in families:
            restricted = restricted_spec(spec, family, game)
            if restricted is not None:
                agents = (restricted, *[spec] * (p - 1))
                runs.append(Run(f"{name}-prefers-{family}-{p}p", name, "restricted", p, agents, n, "rotate", family))
    return runs


def _recorded_loop(game: GameDef, agents: tuple[str, ...]):
    """The game's own recorded loop when it has one and every agent is built in; None: the generic chunk player's
    trajectories (through the public API)."""
    from boardlab.experiments.play import needs_api

    recorded = game.optional("trajectory_player")
    reg = game.agents()
    return None if recorded is None or needs_api([reg.parse_agent(a) for a in agents]) else recorded


def _chunk(game_id: str, rules, players: int, agents: tuple[str, ...], seating: str, seed: int, lo: int, hi: int):
    from boardlab.experiments.play import play_tables

    g = get_game(game_id)
    parsed = [g.agents().parse_agent(a) for a in agents]
    recorded = _recorded_loop(g, agents)
    if recorded is not None:
        return recorded(rules, players, parsed, seating, seed, lo, hi)
    return play_tables(g, rules, players, parsed, seating, seed, lo, hi)


def _compile_first(game: GameDef, rules, run: Run) -> None:
    """The kernels of a run the game's recorded loop plays (:func:`_recorded_loop`), that loop among them, compiled
    in this process when the cache lacks them, announced (boardlab.experiments.warmup), before its chunks are given
    to the processes: otherwise each would compile them at once."""
    from boardlab.experiments.warmup import ensure_compiled

    if _recorded_loop(game, run.agents) is not None:
        ensure_compiled(game, list(run.agents), run.players, rules, recorded=True)


def play_run(
    game: GameDef, rules, run: Run, seed: int, work: Path, n_jobs: int = 1
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """A run's result and trajectory tables, played (in chunks of CHUNK games over `n_jobs` processes) or reused
    from `work`.

    Parameters
    ----------
    game : GameDef
        The game.
    rules :
        Its rule set.
    run : Run
        The run.
    seed : int
        The run seed.
    work : Path
        The run cache.
    n_jobs : int
        Processes.

    Returns
    -------
    (pandas.DataFrame, pandas.DataFrame)
        Result rows and trajectory rows.
    """
    stem = f"{run.key}-{rules_tag(rules)}-s{seed}-g{run.games}"
    res, trj = work / f"{stem}.results.parquet", work / f"{stem}.trajectory.parquet"
    if not (res.exists() and trj.exists()):
        _compile_first(game, rules, run)
        bounds = [(lo, min(lo + CHUNK, run.games)) for lo in range(0, run.games, CHUNK)]
        args = (game.id, rules, run.players, run.agents, run.seating, seed)
        if n_jobs > 1 and len(bounds) > 1:
            from joblib import Parallel, delayed

            parts = Parallel(n_jobs=n_jobs)(delayed(_chunk)(*args, lo, hi) for lo, hi in bounds)
        else:
            parts = [_chunk(*args, lo, hi) for lo, hi in bounds]
        atomic_write_parquet(pa.concat_tables([p[1] for p in parts]), trj)
        atomic_write_parquet(pa.concat_tables([p[0] for p in parts]), res)
    return pq.read_table(res).to_pandas(), pq.read_table(trj).to_pandas()


def panel_rows(game: GameDef, run: Run, results: pd.DataFrame, steps: pd.DataFrame, seed: int) -> pd.DataFrame:
    """The anatomy panel of one self-play run, as rows with its tier and player count.

    Parameters
    ----------
    game : GameDef
        The game (its score direction).
    run : Run
        The run.
    results, steps : pandas.DataFrame
        Its result and trajectory rows.
    seed : int
        The bootstrap's seed.

    Returns
    -------
    pandas.DataFrame
        tier, players, games and :func:`boardlab.experiments.anatomy.panel_table`'s columns.
    """
    t = A.panel_table(A.from_tables(results, steps, game.score_direction), seed)
    t.insert(0, "games", run.games)
    t.insert(0, "players", run.players)
    t.insert(0, "tier", run.tier)
    return t


def skill_row(run: Run, results: pd.DataFrame, first: str, agent: str) -> dict:
    """One skill run's row: the tier's win share in its one seat per game against `first`, and its interval.

    Parameters
    ----------
    run : Run
        A skill run.
    results : pandas.DataFrame
        Its result rows.
    first : str
        The first tier's name.
    agent : str
        The tier's agent spec as results store it (the registry's full spec).

    Returns
    -------
    dict
        tier, against, players, games, win_share, lo, hi, fair (1/N), gain (win share minus 1/N).
    """
    mine = results[results["agent"].astype(str) == agent]
    if len(mine) != run.games:
        raise ValueError(f"{run.key}: {len(mine)} rows of {agent}, expected one per game ({run.games})")
    share = float(mine["win_share"].sum())
    lo, hi = wilson(share, run.games)
    fair = 1.0 / run.players
    return {
        "tier": run.tier, "against": first, "players": run.players, "games": run.games,
        "win_share": share / run.games, "lo": lo, "hi": hi, "fair": fair, "gain": share / run.games - fair,
    }  # fmt: skip


def restricted_row(run: Run, results: pd.DataFrame, agent: str) -> dict:
    """One restricted-play run's row: the restricted seat's win share against the unrestricted tier, its interval
    and the verdict.

    Parameters
    ----------
    run : Run
        A restricted run.
    results : pandas.DataFrame
        Its result rows.
    agent : str
        The restricted agent's spec as results store it.

    Returns
    -------
    dict
        tier, family, players, games, win_share, lo, hi, fair (1/N) and verdict: "too strong" (the interval
        above 1/N), "weak" (below) or "balanced".
    """
    row = skill_row(run, results, run.tier, agent)
    verdict = "too strong" if row["lo"] > row["fair"] else "weak" if row["hi"] < row["fair"] else "balanced"
    return {
        "tier": run.tier, "family": run.family, "players": run.players, "games": run.games,
        "win_share": row["win_share"], "lo": row["lo"], "hi": row["hi"], "fair": row["fair"], "verdict": verdict,
    }  # fmt: skip


HEADLINES = (
    "seat 1 win share",
    "largest seat deviation from 1/N",
    "decisions",
    "decisions with a real choice",
    "legal moves per decision (mean)",
    "lead changes per game",
    "winner = leader at 50%",
    "comeback (winner behind at half-time)",
    "drama (winner's mean deficit while behind)",
    "final margin",
)


def _fmt(r) -> str:
    if r["interval"] == "wilson":
        return pct(r["value"], r["lo"], r["hi"])
    if r["interval"] == "":
        return "n/a"
    return ci(r["value"], r["lo"], r["hi"], 2)


def own_specialists(game: GameDef, restricted: pd.DataFrame) -> str:
    """A sentence naming the game's own specialists among a restricted-play table's tiers ("" when every tier's is
    the generic restricted agent).

    Parameters
    ----------
    game : GameDef
        The game.
    restricted : pandas.DataFrame
        :func:`restricted_row` rows (``tier``, ``family``).

    Returns
    -------
    str
        The sentence, with a leading space, or "".
    """
    tiers = tiers_of(game)
    own = []
    for tier in dict.fromkeys(restricted["tier"]):
        family = restricted.loc[restricted["tier"] == tier, "family"].iloc[0]
        spec = restricted_spec(tiers.get(tier, tier), family, game)
        if spec is not None and not spec.startswith(("random-prefers:", "ismcts-prefers:")):
            reg = game.agents()
            base, special = reg.parse_agent(tiers.get(tier, tier)), reg.parse_agent(spec)
            if special.name != base.name:
                own.append(f"{tier}: `{special.name}`")
            else:  # the tier's agent with a parameter set: name it, for the table's first family
                changed = ", ".join(f"{k}={v}" for k, v in special.params.items() if base.params.get(k) != v)
                own.append(f"{tier}: `{base.name}` with {changed} for {family}")
    if not own:
        return ""
    return (
        "  Where the game has its own specialist of a family at a tier's strength, that agent plays the restricted"
        f" seat instead ({', '.join(own)}): it favours its family by its own rule rather than always taking it."
    )


def report_text(
    game: GameDef,
    rules,
    panel: pd.DataFrame,
    skill: pd.DataFrame,
    command: str,
    games: int,
    restricted: pd.DataFrame | None = None,
) -> str:
    """REPORT.md of the generic report: the headline figures per tier and player count, the skill table and the
    full panel (every figure with its interval).

    Parameters
    ----------
    game : GameDef
        The game.
    rules :
        The rule set played.
    panel : pandas.DataFrame
        :func:`panel_rows` of every self-play run.
    skill : pandas.DataFrame
        :func:`skill_row` of every skill run.
    command : str
        The command line that wrote the report.
    games : int
        Its size (--games).
    restricted : pandas.DataFrame, optional
        :func:`restricted_row` of every restricted-play run (none: the section says the game names no families).

    Returns
    -------
    str
        The Markdown text.
    """
    tiers = list(dict.fromkeys(panel["tier"]))
    headlines = []
    for p in sorted(set(panel["players"])):
        sub = panel[panel["players"] == p]
        rows = []
        for fig in HEADLINES:
            row = {"figure": fig}
            for t in tiers:
                r = sub[(sub["tier"] == t) & (sub["figure"] == fig)]
                row[t] = _fmt(r.iloc[0]) if len(r) else ""
            rows.append(row)
        headlines.append((p, pd.DataFrame(rows, columns=["figure", *tiers])))
    return render(
        "anatomy_report.md.j2",
        title=game.title,
        command=command,
        rules=rules.name,
        games=games,
        score_direction=game.score_direction,
        tier_specs=tiers_of(game),
        headlines=headlines,
        skill=skill.to_dict("records"),
        restricted=[] if restricted is None else restricted.to_dict("records"),
        own_specialists="" if restricted is None or not len(restricted) else own_specialists(game, restricted),
        has_families=bool(families_of(game)),
    )


def charts(panel: pd.DataFrame, out: Path) -> None:
    """leader.png (P(winner = leader) at 25/50/75% per tier and player count) and seats.png (seat win shares per
    tier and player count), bars with 95% whiskers.

    Parameters
    ----------
    panel : pandas.DataFrame
        :func:`panel_rows` of every self-play run.
    out : Path
        The folder.
    """
    from boardlab.experiments.charts import plt, save, whiskers

    for name, pick, label in (
        ("leader.png", lambda f: f.str.startswith("winner = leader at"), "P(winner = leader at x% of the game)"),
        ("seats.png", lambda f: f.str.match(r"seat \d+ win share"), "seat win share"),
    ):
        t = panel[pick(panel["figure"])]
        groups = list(dict.fromkeys(zip(t["tier"], t["players"], strict=True)))
        figs = list(dict.fromkeys(t["figure"]))
        fig, ax = plt.subplots(figsize=(8, 4))
        width = 0.8 / max(1, len(groups))
        for i, (tier, p) in enumerate(groups):
            g = t[(t["tier"] == tier) & (t["players"] == p)].set_index("figure").reindex(figs)
            x = [j + i * width for j in range(len(figs))]
            ax.bar(x, g["value"], width, yerr=whiskers(g, "value"), capsize=2, label=f"{tier}, {p}p")
        ax.set_xticks([j + width * (len(groups) - 1) / 2 for j in range(len(figs))])
        ax.set_xticklabels([f.replace(" win share", "").replace("winner = leader at ", "") for f in figs])
        ax.set_ylabel(label)
        ax.set_ylim(0, 1)
        ax.legend(fontsize=7, ncol=2)
        fig.tight_layout()
        save(fig, out / name)


def run_report(
    games: int,
    out: Path,
    work: Path,
    *,
    game: str | GameDef,
    seed: int = 0,
    n_jobs: int = 1,
    log: Callable[[str], None] = print,
    command: str = "",
    progress=None,
    **_,
) -> dict[str, pd.DataFrame]:
    """Play the plan for size `games` (reusing runs in `work`) and write REPORT.md, panel.csv, skill.csv,
    restricted.csv (for a game that names move families) and the charts into `out`.

    Parameters
    ----------
    games : int
        Games per table of the first tier.
    out, work : Path
        The report's folder and the run cache.
    game : str or GameDef
        The game.
    seed : int
        Run seed (and the bootstrap's).
    n_jobs : int
        Processes.
    log : callable(str)
        Gets a line per run.
    command : str
        The command line, quoted in REPORT.md.
    progress : callable(run, done, total, rate), optional
        Told of each run's end.

    Returns
    -------
    dict of str to pandas.DataFrame
        ``panel``, ``skill`` and ``restricted``.
    """
    g = get_game(game)
    rules = g.load_rules(g.default_preset)
    tiers = tiers_of(g)
    first = next(iter(tiers))
    runs = plan(g, games)

    work.mkdir(parents=True, exist_ok=True)
    panels, skills, restricted = [], [], []
    for i, run in enumerate(runs, 1):
        t = time.perf_counter()
        results, steps = play_run(g, rules, run, seed, work, n_jobs)
        log(f"[{i}/{len(runs)}] {run.key}: {run.games:,} games, {run.players}p ({time.perf_counter() - t:.1f} s)")
        if progress is not None:
            progress(run, run.games, run.games, 0.0)
        if run.kind == "self":
            panels.append(panel_rows(g, run, results, steps, seed))
        elif run.kind == "skill":
            skills.append(skill_row(run, results, first, stored_spec(g, tiers[run.tier], rules)))
        else:
            restricted.append(restricted_row(run, results, stored_spec(g, run.agents[0], rules)))
    panel = pd.concat(panels, ignore_index=True)
    skill = pd.DataFrame(skills)
    limited = pd.DataFrame(restricted)
    with staged_directory(out) as tmp:
        atomic_write_text(panel.to_csv(index=False, float_format="%.6g"), tmp / "panel.csv")
        atomic_write_text(skill.to_csv(index=False, float_format="%.6g"), tmp / "skill.csv")
        if len(limited):
            atomic_write_text(limited.to_csv(index=False, float_format="%.6g"), tmp / "restricted.csv")
        charts(panel, tmp)
        atomic_write_text(report_text(g, rules, panel, skill, command, games, limited), tmp / "REPORT.md")
    return {"panel": panel, "skill": skill, "restricted": limited}


def declares_progress(game: GameDef) -> bool:
    """Whether the game declares a running score (``progress(player)``), which the panel needs.

    Parameters
    ----------
    game : GameDef
        The game.

    Returns
    -------
    bool
        True when its public API's game has ``progress``.
    """
    from boardlab.experiments.play import has_progress

    return has_progress(game.new_game(player_counts(game)[0], game.load_rules(game.default_preset), 0))


def generic_report(game: GameDef, home: str | None = None) -> Report:
    """The generic balance report of `game` (what ``reproduce`` runs for a game without a report of its own, and
    ``reproduce --anatomy`` for any game).

    Parameters
    ----------
    game : GameDef
        The game; it must declare ``progress(player)`` (the report's check says so in one line otherwise).
    home : str, optional
        The folder of its default --out and --work under runs/ (default: the game's id).

    Returns
    -------
    Report
        Its plan's runner and what the command needs to know of it.
    """
    from boardlab.experiments.simulate import SimulateError

    def check(games: int, **_) -> None:
        if not declares_progress(game):
            raise SimulateError(
                f"--game: {game.id} has no report, and no generic one: its game declares no progress(player)"
            )

    def run(games, out, work, **kwargs):
        return run_report(games, out, work, game=game, **kwargs)

    return Report(
        run=run, title=f"the generic balance report of {game.id}", home=home or game.id, default_games=DEFAULT_GAMES,
        check=check,
    )  # fmt: skip


ANATOMY_GAMES = 2000  # the panel's first-tier games in a game's own report (its --games when fewer)


def section_games(games: int) -> int:
    """The panel's size inside a game's own report of size `games`: ``--games``, at most :data:`ANATOMY_GAMES`
    (its other tiers at a tenth of that, at least 20).

    Parameters
    ----------
    games : int
        The own report's ``--games``.

    Returns
    -------
    int
        Games per table of the panel's first tier.
    """
    return max(20, min(games, ANATOMY_GAMES))


def anatomy_section(game: GameDef, games: int, out: Path, work: Path, **kwargs) -> str:
    """The game-anatomy panel as a section of a game's own report: the generic report played into
    ``out/anatomy/`` (its runs cached in ``work/anatomy/``), and its headline, skill and restricted-play tables
    as Markdown, headed ``## Game anatomy``, for the own report's REPORT.md.

    Parameters
    ----------
    game : GameDef
        The game (it declares ``progress(player)``).
    games : int
        Games per table of the panel's first tier (:func:`section_games`).
    out, work : Path
        The own report's folder and run cache.
    **kwargs
        What :func:`run_report` takes besides (seed, n_jobs, log, command, progress).

    Returns
    -------
    str
        The section, ending in a newline.
    """
    sub_out, sub_work = Path(out) / "anatomy", Path(work) / "anatomy"
    sub_work.mkdir(parents=True, exist_ok=True)
    run_report(games, sub_out, sub_work, game=game, **kwargs)
    text = (sub_out / "REPORT.md").read_text()
    body = text[text.index("## Headline figures per tier") : text.index("## The full panel")].strip()
    body = "\n".join(
        "#" + line if line.startswith("## ") or line.startswith("### ") else line for line in body.splitlines()
    )
    intro = (
        f"The generic balance report's panel (`boardlab reproduce --anatomy`), played here at {games:,} games per"
        f" table of the first tier and a tenth per other tier: [anatomy/REPORT.md](anatomy/REPORT.md), every figure in"
        " [anatomy/panel.csv](anatomy/panel.csv)."
    )
    return f"## Game anatomy\n\n{intro}\n\n{body}\n"


def add_section(report: Path, section: str) -> None:
    """Append `section` to a report's REPORT.md, atomically (the file is replaced whole).

    Parameters
    ----------
    report : Path
        The REPORT.md.
    section : str
        Markdown.
    """
    text = Path(report).read_text().rstrip("\n")
    atomic_write_text(f"{text}\n\n{section}", Path(report))
