"""Calling flatmc's inner kernels from a test as the expert's search calls them."""

from __future__ import annotations

import numba
from numba import types

from boardlab.agents.citywright.kernels import evaluator_search
from boardlab.agents.citywright.play import evaluator_signature, mover_signatures
from boardlab.agents.citywright.strong import strong_move


def by_address(kernel, *args, strong: bool = True):
    """kernel(*args, strong_move, evaluator_search) through the machine code the game loop's flatmc uses: args
    are every argument but the movers, with Tables.kernel_args() among them (and, with `strong`, the read-only
    weights last); strong_move (with `strong`: the playouts and the memo take it, the candidates do not) and
    evaluator_search go by their addresses, as flatmc_search passes them.  Called with the kernels themselves (or
    without them), numba would compile a specialization of the kernel for the test alone."""
    tables = next(a for a in args if isinstance(a, tuple) and len(a) == 8)  # Tables.kernel_args()
    movers: list = [evaluator_search]
    kinds = [types.FunctionType(evaluator_signature(tables))]
    if strong:
        movers.insert(0, strong_move)
        kinds.insert(0, types.FunctionType(mover_signatures(tables, numba.typeof(args[-1]))[1]))
    sig = (*(numba.typeof(a) for a in args), *kinds)
    kernel.compile(sig)  # loaded from numba's cache when the loop compiled it
    return kernel.overloads[sig].entry_point(*args, *movers)
