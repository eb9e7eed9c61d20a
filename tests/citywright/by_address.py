"""Calling flatmc's inner kernels from a test as the expert's search calls them."""

from __future__ import annotations

import numba
from numba import types

from boardlab.agents.citywright.play import mover_signatures
from boardlab.agents.citywright.strong import strong_move


def with_strong_by_address(kernel, *args):
    """kernel(*args, strong_move) through the machine code the game loop's flatmc uses: args are every argument but
    the last, strong_fn, with Tables.kernel_args() among them and the read-only weights last; strong_move goes by
    its address, as flatmc_search passes it.  Called with strong_move itself (or without it), numba would
    compile a specialization of the kernel for the test alone."""
    tables = next(a for a in args if isinstance(a, tuple) and len(a) == 8)  # Tables.kernel_args()
    strong = types.FunctionType(mover_signatures(tables, numba.typeof(args[-1]))[1])
    sig = (*(numba.typeof(a) for a in args), strong)
    kernel.compile(sig)  # loaded from numba's cache when the loop compiled it
    return kernel.overloads[sig].entry_point(*args, strong_move)
