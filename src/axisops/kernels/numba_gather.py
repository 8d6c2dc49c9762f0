"""Numba gather kernels: validate the index in one pass, then copy unchecked.

Values are moved as raw bits (unsigned integers of their width, complex128 as
itself), so every dtype is gathered exactly.  The index keeps its own integer
type: no int64 copy of an int32 index is made.

Element ``(o, j, c)`` of the output, shaped ``(outer, m, inner)`` around the
gather dimension, is ``x_flat[xoffs[q] + wrap(idx) * xstride]`` with
``idx = i_flat[ioffs[q] + j * istride]`` and ``q = o * inner + c``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .numba_keys import cast_like
from .numba_prefetch import prefetch

__all__ = ["BLOCK", "PREFETCH_DISTANCE", "gather_flat", "index_bounds"]

#: elements between a prefetch and the read it serves (measured: 128-512 saturate).
PREFETCH_DISTANCE = 256
#: output elements per block of positions (the buffer stays in L1).
BLOCK = 2048


@njit(nogil=True, cache=True)
def index_bounds(i_flat, ioffs, istride, m):
    """(min, max) of every index value (as int64 / uint64 of the index type)."""
    lo = i_flat[ioffs[0]]
    hi = lo
    for q in range(ioffs.shape[0]):
        pos = ioffs[q]
        if istride == 1:
            seq = i_flat[pos:pos + m]
            for j in range(m):
                v = seq[j]
                lo = min(lo, v)
                hi = max(hi, v)
        else:
            for j in range(m):
                v = i_flat[pos + j * istride]
                lo = min(lo, v)
                hi = max(hi, v)
    return lo, hi


@njit(inline="always")
def _wrap(v, n):
    w = cast_like(v, n)
    return w + n if w < 0 else w


@njit(inline="always")
def _run_positions(xbase, xstride, n, i_flat, start, istride, count, wrap, dst):
    """``dst[e] = xbase + idx * xstride`` for the ``count`` index values from ``start``
    (negative ones wrapped when ``wrap``); unit strides get a loop that vectorises."""
    if istride == 1:
        idx = i_flat[start:start + count]
        if wrap:
            for e in range(count):
                dst[e] = xbase + _wrap(idx[e], n) * xstride
        else:
            for e in range(count):
                dst[e] = xbase + cast_like(idx[e], n) * xstride
    else:
        for e in range(count):
            dst[e] = xbase + _wrap(i_flat[start + e * istride], n) * xstride


@njit(inline="always")
def _positions_rows(xoffs, xstride, n, i_flat, ioffs, istride, m, t, count, wrap, pos):
    """``pos[e]``: where in ``x_flat`` output element ``t + e`` reads, when ``inner`` is 1
    (element ``t`` is position ``t % m`` of sequence ``t // m``), a sequence's run at a time."""
    q, j = t // m, t % m
    e = 0
    while e < count:
        run = min(m - j, count - e)
        _run_positions(xoffs[q], xstride, n, i_flat, ioffs[q] + j * istride, istride, run,
                       wrap, pos[e:e + run])
        e += run
        q, j = q + 1, 0


@njit(inline="always")
def _unit_run_positions(xbase, xstride, n, i_flat, start, count, wrap, dst):
    """``dst[u] = xbase + u + idx[u] * xstride`` over a contiguous run of the index."""
    idx = i_flat[start:start + count]
    if wrap:
        for u in range(count):
            dst[u] = xbase + u + _wrap(idx[u], n) * xstride
    else:
        for u in range(count):
            dst[u] = xbase + u + cast_like(idx[u], n) * xstride


@njit(inline="always")
def _positions_columns(xoffs, xstride, n, i_flat, ioffs, istride, m, inner, t, count, wrap,
                       unit, pos):
    """Like :func:`_positions_rows` for ``inner > 1``: element ``t`` is column
    ``t % inner`` of output row ``r = t // inner``, which is ``(o, j) = divmod(r, m)``."""
    r, c = t // inner, t % inner
    e = 0
    while e < count:
        run = min(inner - c, count - e)
        base, shift = (r // m) * inner + c, (r % m) * istride
        dst = pos[e:e + run]
        if unit:  # both inner runs are unit-stride: offsets are consecutive
            _unit_run_positions(xoffs[base], xstride, n, i_flat, ioffs[base] + shift, run,
                                wrap, dst)
        elif wrap:
            for u in range(run):
                dst[u] = xoffs[base + u] + _wrap(i_flat[ioffs[base + u] + shift], n) * xstride
        else:
            for u in range(run):
                dst[u] = xoffs[base + u] + cast_like(i_flat[ioffs[base + u] + shift], n) * xstride
        e += run
        r, c = r + 1, 0


@njit(nogil=True, cache=True)
def gather_flat(x_flat, xoffs, xstride, n, i_flat, ioffs, istride, m, t0, t1, inner, wrap,
                unit, out):
    """Output elements ``t0 .. t1-1`` of the C-ordered ``(outer, m, inner)`` output ``out``
    (given flat), a block of ``BLOCK`` at a time.

    For each block, the positions in ``x_flat`` are first computed from the
    index (read in order) into a small buffer, along with the next
    ``PREFETCH_DISTANCE`` ones; the copy loop then prefetches the element it
    will read that many iterations later, so many random reads are in flight.
    """
    pos = np.empty(BLOCK + PREFETCH_DISTANCE, np.int64)
    for s in range(t0, t1, BLOCK):
        count = min(BLOCK, t1 - s)
        look = min(count + PREFETCH_DISTANCE, t1 - s)
        if inner == 1:
            _positions_rows(xoffs, xstride, n, i_flat, ioffs, istride, m, s, look, wrap, pos)
        else:
            _positions_columns(xoffs, xstride, n, i_flat, ioffs, istride, m, inner, s, look,
                               wrap, unit, pos)
        dst = out[s:s + count]
        ahead = max(0, min(count, look - PREFETCH_DISTANCE))
        for e in range(ahead):
            prefetch(x_flat, pos[e + PREFETCH_DISTANCE])
            dst[e] = x_flat[pos[e]]
        for e in range(ahead, count):
            dst[e] = x_flat[pos[e]]
