"""Numba gather kernels: validate the index in one pass, then copy unchecked.

Values are moved as raw bits (unsigned integers of their width, complex128 as
itself), so every dtype is gathered exactly.  The index keeps its own integer
type: no int64 copy of an int32 index is made.

Element ``(o, j, c)`` of the output, shaped ``(outer, m, inner)`` around the
gather dimension, is ``x_flat[xoffs[q] + wrap(idx) * xstride]`` with
``idx = i_flat[ioffs[q] + j * istride]`` and ``q = o * inner + c``.
"""

from __future__ import annotations

from numba import njit

from .numba_keys import cast_like

__all__ = ["gather_columns", "gather_rows", "index_bounds"]


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


@njit(nogil=True, cache=True)
def gather_rows(x_flat, xoffs, xstride, n, i_flat, ioffs, istride, m, q0, q1, inner, out):
    """Sequences ``q0 .. q1-1`` one after another (best when ``inner`` is 1)."""
    for q in range(q0, q1):
        o = q // inner
        c = q - o * inner
        xb = xoffs[q]
        ib = ioffs[q]
        dst = out[o, :, c]
        if istride == 1:
            src = i_flat[ib:ib + m]
            for j in range(m):
                dst[j] = x_flat[xb + _wrap(src[j], n) * xstride]
        else:
            for j in range(m):
                dst[j] = x_flat[xb + _wrap(i_flat[ib + j * istride], n) * xstride]


@njit(nogil=True, cache=True)
def gather_columns(x_flat, xoffs, xstride, n, i_flat, ioffs, istride, m, r0, r1, inner, out):
    """Output rows ``r0 .. r1-1`` (row ``r`` is ``(r // m, r % m)``), walking the
    inner run so that the index and the output are read and written in order."""
    for r in range(r0, r1):
        o = r // m
        j = r - o * m
        xo = xoffs[o * inner:(o + 1) * inner]
        io = ioffs[o * inner:(o + 1) * inner]
        dst = out[o, j]
        shift = j * istride
        for c in range(inner):
            v = _wrap(i_flat[io[c] + shift], n)
            dst[c] = x_flat[xo[c] + v * xstride]
