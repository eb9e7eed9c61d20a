"""Bit and cell helpers every grid game's kernels and tables share.

``popcount`` and ``lowest_bit_index`` are numba intrinsics: one LLVM instruction each
(``ctpop``, ``cttz``) on a uint64, callable from any ``@njit`` kernel.  ``orient_cells``
is the plain-Python transform the games' tables enumerate placements with.

numba freezes what a kernel calls into its machine code, so this file is in every grid
game's ``kernel_sources`` (the cache guard, :mod:`boardlab.sim._cache`, hashes it).
"""

from __future__ import annotations

from numba import types
from numba.extending import intrinsic


@intrinsic
def popcount(typingctx, x):
    """LLVM ctpop on a uint64 (one instruction on x86-64 with POPCNT), callable from numba code only.

    Parameters
    ----------
    x : numpy.uint64
        The bits.

    Returns
    -------
    numpy.int64
        How many bits of `x` are set.
    """
    sig = types.int64(types.uint64)

    def codegen(context, builder, signature, args):
        res = builder.ctpop(args[0])
        return builder.zext(res, context.get_value_type(types.int64)) if res.type.width < 64 else res

    return sig, codegen


@intrinsic
def lowest_bit_index(typingctx, x):
    """Index of the lowest set bit (cttz), callable from numba code only; undefined for 0.

    Parameters
    ----------
    x : numpy.uint64
        The bits (not 0).

    Returns
    -------
    numpy.int64
        The index (0..63) of `x`'s lowest set bit.
    """
    sig = types.int64(types.uint64)

    def codegen(context, builder, signature, args):
        import llvmlite.ir as ir

        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return sig, codegen


def orient_cells(cells, o: int) -> tuple[tuple[int, int], ...]:
    """Transform `o` of a shape's (row, col) cells: reflect (r, c) -> (r, -c) if o >= 4, then o % 4 quarter
    turns clockwise (r, c) -> (c, -r), then shift the smallest row and column to 0.

    Cell k of the result is the image of cell k of `cells`.

    Parameters
    ----------
    cells : iterable of tuple of int
        The shape's (row, col) cells.
    o : int
        The orientation, 0..7.

    Returns
    -------
    tuple of tuple of int
        The transformed cells, in the order of `cells`.
    """
    pts = [(r, -c) if o >= 4 else (r, c) for r, c in cells]
    for _ in range(o % 4):
        pts = [(c, -r) for r, c in pts]
    mr = min(r for r, _ in pts)
    mc = min(c for _, c in pts)
    return tuple((r - mr, c - mc) for r, c in pts)
