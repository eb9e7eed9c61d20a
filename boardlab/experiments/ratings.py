"""Ratings of agents from full finishing orders: a Plackett–Luce model, fitted with choix.

Under Plackett–Luce each agent has a strength ``w = exp(rating)``; a game's finishing
order is drawn best-first, each place going to one of the players still unplaced with
probability proportional to their strength.  So in a two-player game agent *a* finishes
ahead of *b* with probability ``1 / (1 + exp(rating_b - rating_a))``: a rating 1.0
higher is e ≈ 2.7 times the odds.  Ratings are only defined up to a constant; they are
reported relative to a reference agent (``greedy`` when it plays).

* **Every seat counts.** A table where one agent fills several seats (one expert, three
  greedy) is a ranking with repeated items; choix's spectral estimator (ILSR) treats each
  entry as a separate draw from the remaining strengths, which is the Plackett–Luce
  likelihood with repeats (its fixed point is the maximum-likelihood estimate).
* **Ties.** Players who share a rank (equal total, empty cells and distinct shapes) are
  put in a random order, drawn from the seeded generator: a tie is then half a win each way
  on average.  The share of games with a tie is reported.
* **Intervals.** Games are resampled with replacement (percentile bootstrap, seeded); the
  ties are re-drawn in every resample.
* **Skill spread.** The standard deviation of the fitted ratings (Duersch, Lambrecht &
  Oechssler 2020 measure how much a game rewards skill by how far apart fitted playing
  strengths lie): 0 when every agent is alike, larger when skill decides more.
* **Separated agents.** An agent that never finished ahead of another agent (or never
  behind one) has an infinite maximum-likelihood rating; its fitted value is set by the
  regularisation alone.  The table flags it (``separated``) and the spread leaves it out.
"""

from __future__ import annotations

import choix
import numpy as np
import pandas as pd

ALPHA = 1e-4  # a whisper of regularisation so an agent that never lost still has a finite rating
# ILSR's iteration cap: with a strong agent that almost never loses (or a weak one that almost never wins)
# the fixed point is far out and slow to reach; choix's default of 100 iterations stops short
MAX_ITER = 10_000


def _fit(n_agents: int, orders: list[tuple[int, ...]]) -> np.ndarray:
    """Regularised Plackett–Luce strengths by choix's ILSR; where it does not converge (a small or lopsided
    resample: agents that never met, one that never lost), ILSR again with ten and a hundred times the
    regularisation (on the test tables the ratings move by less than 0.001 between ALPHA and 100 x ALPHA;
    choix.opt_rankings is not a fallback: with repeated agents at a table its likelihood differs)."""
    for alpha in (ALPHA, 10 * ALPHA, 100 * ALPHA, 1000 * ALPHA):
        try:
            return choix.ilsr_rankings(n_agents, orders, alpha=alpha, max_iter=MAX_ITER)
        except RuntimeError:
            continue
    raise RuntimeError(f"Plackett-Luce fit did not converge, even with regularisation {1000 * ALPHA:g}")


def game_keys(df: pd.DataFrame) -> list[str]:
    """The columns whose values together name a game of `df`: its run (``run_id``, from
    :func:`boardlab.experiments.io.read_runs`), player count and game number; not the game seed, which two runs with the
    same seed share.  A table without run ids (one run, or runs concatenated by hand) falls back on
    ``run, players, game_seed, game``, and :class:`Games` refuses one whose games are then not whole.

    Parameters
    ----------
    df : pandas.DataFrame
        Result rows.

    Returns
    -------
    list of str
        The key columns present in `df`.
    """
    if "run_id" in df.columns:
        return [c for c in ("run_id", "players", "game") if c in df.columns]
    return [c for c in ("run", "players", "game_seed", "game") if c in df.columns]


class Games:
    """A result table as arrays: per player count, agent index and rank, ``[games, seats]``.

    Parameters
    ----------
    df : pandas.DataFrame
        Result rows (one per game and seat; each game whole).
    agents : list of str
        The agents, in index order (every agent of `df` among them).

    Raises
    ------
    ValueError
        The games of a player count are not whole (a seat missing or repeated).
    """

    def __init__(self, df: pd.DataFrame, agents: list[str]):
        keys = game_keys(df)
        d = df.assign(_agent=df["agent"].map({a: i for i, a in enumerate(agents)}))
        d = d.sort_values([*keys, "seat"], kind="stable")
        self.blocks = []  # (agent int[G, n], rank int[G, n])
        for n, part in d.groupby("players"):
            n = int(n)
            if "seat" in part.columns and len(part) % n == 0:
                seats = part["seat"].to_numpy(np.int64).reshape(-1, n)
                whole = (seats == np.arange(1, n + 1)).all()
            else:
                whole = len(part) % n == 0
            if not whole:
                raise ValueError(
                    f"the {n}-player games are not whole (each seat once): rows of one game repeat (two runs of one"
                    " seed with no run_id column?)"
                )
            self.blocks.append(
                (part["_agent"].to_numpy(np.int64).reshape(-1, n), part["rank"].to_numpy(np.int64).reshape(-1, n))
            )
        self.sizes = [len(a) for a, _ in self.blocks]

    @property
    def n(self) -> int:
        """The number of games, over every player count."""
        return sum(self.sizes)

    def orders(self, rng: np.random.Generator, picks: list[np.ndarray] | None = None) -> list[tuple[int, ...]]:
        """Finishing orders (agent indices, best first), ties in random order; `picks` resamples each block.

        Parameters
        ----------
        rng : numpy.random.Generator
            Draws the order of tied seats.
        picks : list of numpy.ndarray or None
            Per player count (block), int game indices to use (a bootstrap resample); None: every game once.

        Returns
        -------
        list of tuple of int
            One order per game.
        """
        out: list[tuple[int, ...]] = []
        for b, (agent, rank) in enumerate(self.blocks):
            if picks is not None:
                agent, rank = agent[picks[b]], rank[picks[b]]
            key = rank + 0.5 * rng.random(rank.shape)  # ranks are integers: only ties are reordered
            ordered = np.take_along_axis(agent, np.argsort(key, axis=1), axis=1)
            out.extend(map(tuple, ordered.tolist()))
        return out

    def separated(self, n_agents: int) -> np.ndarray:
        """bool per agent: never finished ahead of another agent, or never behind one (ties aside).

        Such an agent's maximum-likelihood rating is infinite; the fitted value is set by the
        regularisation alone, so only its side of the others is meaningful.

        Parameters
        ----------
        n_agents : int
            The number of agents.

        Returns
        -------
        numpy.ndarray
            bool, shape ``(n_agents,)``.
        """
        ahead = np.zeros(n_agents, bool)
        behind = np.zeros(n_agents, bool)
        for agent, rank in self.blocks:
            for i in range(agent.shape[1]):
                for j in range(agent.shape[1]):
                    beat = (rank[:, i] < rank[:, j]) & (agent[:, i] != agent[:, j])
                    ahead[agent[beat, i]] = True
                    behind[agent[beat, j]] = True
        return ~(ahead & behind)

    def tied_share(self) -> float:
        """The share of games with a tie for some place.

        Returns
        -------
        float
            Tied games over all games (0 with no games).
        """
        tied = sum(int((np.diff(np.sort(r, axis=1), axis=1) == 0).any(axis=1).sum()) for _, r in self.blocks)
        return tied / max(self.n, 1)


def fit(df: pd.DataFrame, agents: list[str] | None = None, seed: int = 0) -> pd.Series:
    """Plackett–Luce ratings (centred log-strengths) of the agents in a result table (rows per game and seat).

    Parameters
    ----------
    df : pandas.DataFrame
        Result rows.
    agents : list of str or None
        The agents (None: every agent of `df`, sorted).
    seed : int
        Seeds the random order of tied seats.

    Returns
    -------
    pandas.Series
        float64 ``rating`` per agent, summing to 0.
    """
    agents = agents or sorted(df["agent"].unique())
    games = Games(df, agents)
    params = _fit(len(agents), games.orders(np.random.default_rng(seed)))
    return pd.Series(params - params.mean(), index=agents, name="rating")


def rating_table(
    df: pd.DataFrame, boot: int = 200, seed: int = 0, reference: str | None = "greedy", level: float = 0.95
) -> tuple[pd.DataFrame, dict]:
    """Ratings relative to `reference` with bootstrap intervals, and the skill spread.

    Parameters
    ----------
    df : pandas.DataFrame
        Result rows (one per game and seat).
    boot : int
        Bootstrap resamples (games resampled per player count).
    seed : int
        Seeds the tie orders and the resampling.
    reference : str or None
        The agent rated 0 (None, or not among the agents: the ratings are centred).
    level : float
        The intervals' confidence level.

    Returns
    -------
    tuple of (pandas.DataFrame, dict)
        (table, spread): the table has one row per agent (agent, seats, games, rating, lo, hi, win
        probability against the reference in a two-player game with its interval), best first; spread has the
        standard deviation of the ratings with its interval and the share of games with a tie for a place.
    """
    agents = sorted(df["agent"].unique())
    if reference not in agents:
        reference = None
    games = Games(df, agents)
    rng = np.random.default_rng(seed)

    def ratings(picks=None) -> np.ndarray:
        params = _fit(len(agents), games.orders(rng, picks))
        ref = params[agents.index(reference)] if reference else params.mean()
        return params - ref

    point = ratings()
    draws = np.empty((boot, len(agents)))
    for b in range(boot):
        draws[b] = ratings([rng.integers(0, size, size) for size in games.sizes])
    q = [(1 - level) / 2, 1 - (1 - level) / 2]
    lo, hi = np.quantile(draws, q, axis=0)
    seats = df.groupby("agent").size()
    keys = game_keys(df)
    played = df.drop_duplicates([*keys, "agent"]).groupby("agent").size()
    table = pd.DataFrame(
        {
            "agent": agents,
            "seats": [int(seats[a]) for a in agents],
            "games": [int(played[a]) for a in agents],
            "rating": point,
            "lo": lo,
            "hi": hi,
        }
    )
    separated = games.separated(len(agents))
    table["separated"] = separated
    table["p_beats_reference"] = 1 / (1 + np.exp(-table["rating"]))
    table["p_lo"] = 1 / (1 + np.exp(-table["lo"]))
    table["p_hi"] = 1 / (1 + np.exp(-table["hi"]))
    table = table.sort_values("rating", ascending=False, kind="stable").reset_index(drop=True)
    keep = ~separated
    # fewer than two agents whose ratings are finite: no spread to speak of
    sd = np.std(draws[:, keep], axis=1, ddof=0) if keep.sum() >= 2 else np.full(boot, np.nan)
    spread = {
        "reference": reference or "mean of all agents",
        "games": games.n,
        "skill_spread": float(np.std(point[keep], ddof=0)) if keep.sum() >= 2 else float("nan"),
        "separated_agents": ", ".join(a for a, k in zip(agents, keep, strict=True) if not k),
        "skill_spread_lo": float(np.quantile(sd, q[0])),
        "skill_spread_hi": float(np.quantile(sd, q[1])),
        "tied_games_share": games.tied_share(),
        "bootstrap": boot,
    }
    return table, spread
