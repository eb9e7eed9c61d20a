"""Agents for every registered game, over its public API only (never a game's internals).

``random`` (uniform over the listed moves) and ``ismcts`` (an information-set Monte Carlo tree search)
are plain Python and slow, and that is their point: a new game has a searching agent before it has
numba agents, and the numba agents can be checked against them.  The agent interface, which a
user's own Python agent implements too, is :class:`boardlab.agents.generic.base.Agent`.
"""
