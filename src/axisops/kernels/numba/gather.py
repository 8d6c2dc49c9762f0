"""Numba gather kernels: each index value is read once and checked as it becomes a position.

Values are moved as raw bits (unsigned integers of their width, complex128 as
itself), so every dtype is gathered exactly.  The index keeps its own integer
type: no int64 copy of an int32 index is made.

Element ``(o, j, c)`` of the output, shaped ``(outer, m, inner)`` around the
gather dimension, is ``x_flat[xoffs[q] + wrap(idx) * xstride]`` with
``idx = i_flat[ioffs[q] + j * istride]`` and ``q = o * inner + c``.

Memory safety does not rest on a separate bounds pass: another thread may
rewrite the index at any moment, so each value is read once, and the position
made from it is the only one used.  Two paths:

- *blocks* (along an inner dimension, or when ``x`` is small enough to read
  without hints): positions are computed a block at a time into a private
  buffer and checked there, and the copy (and its prefetch) reads only
  positions of a block that passed.  A block holding a value outside
  ``[-n, n-1]`` (``[0, n-1]`` for unsigned types) stops the kernel before its
  copy.
- *rows* (along the last dimension of the layout, prefetching): each value is
  turned into a position clamped into its row, so every read, hint included,
  stays inside ``x``; an out-of-range value is noted, and the kernel stops at
  the end of that block.  Its output is then discarded by the driver.

Either way the kernel returns where it stopped.

Speed: a gather from an ``x`` larger than the caches waits on one memory
latency per element, so what counts is how many reads are in flight at
once.  The copy asks for the line ``ahead`` elements later in the L2 (see
:mod:`.prefetch`).  In the block path the copy loop is kept to about five
instructions per element (positions are unsigned: reading ``x`` needs no
negative-index wrapping), so the out-of-order window also holds many
reads.  The rows path interleaves computing positions with the copy in one
loop instead of a block pass then a copy pass: on Zen 4 that keeps the hints
flowing, and the axis-1 gather (4096, 4096) by (4096, 64) took 0.67-0.74 ms
on one thread against 1.02-1.10 for the block path (rows of 4: 0.89-1.02
against 1.69-1.83; one row of 10M: the same).  The block path stays where it
is faster: without hints (``x`` in the L2: its vectorised position pass
wins) and along inner dimensions.  The driver passes ``ahead = 0`` when ``x``
fits in half a core's L2, where the hints cost more than they bring.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import overload

from .keys import cast_like
from .prefetch import prefetch

__all__ = ["BLOCK", "PREFETCH_DISTANCE", "first_bad", "gather_flat"]

#: elements between a prefetch and the read it serves: enough reads to cover a memory
#: latency (about 100 ns at 4 ns a read) with room to spare.  Measured on Zen 4, one
#: thread, the three benchmark gathers: 96-256 equally fast (within the noise of a
#: shared machine), 64 up to 15% slower, 384-512 up to 35% slower on the axis-0 row
#: (strided lines), 1024 up to 45%; on the earlier machine 128-512 saturated.
PREFETCH_DISTANCE = 256
#: output elements per block of positions: the buffer (BLOCK + PREFETCH_DISTANCE
#: 8-byte positions, 18 KiB) stays within a 32 KiB L1.  Measured: 2048 and 4096 equally
#: fast, 256-1024 3-15% slower (the look-ahead re-read per block weighs more).
BLOCK = 2048


def _signed(v):  # pragma: no cover - replaced by the overload in jitted code
    """Whether ``v``'s integer type is signed (a compile-time constant in kernels)."""
    return np.asarray(v).dtype.kind == "i"


@overload(_signed, inline="always")
def _signed_overload(v):
    flag = isinstance(v, types.Integer) and v.signed
    return lambda v: flag


@njit(inline="always")
def _along(v, n):
    """Index value ``v`` as a coordinate along the axis of size ``n`` (an int64): in
    ``[0, n)`` when ``v`` is valid, outside it otherwise.  Negative values of a signed
    type count from the end; an unsigned 64-bit value of 2**63 or more casts to a
    negative number and stays invalid (unsigned values are never wrapped)."""
    w = cast_like(v, n)
    return w + n if _signed(v) and w < 0 else w


@njit(inline="always")
def _inside(w, n):
    return (w >= 0) & (w < n)


@njit(inline="always")
def _run_positions(xbase, xstride, n, i_flat, start, istride, count, dst):
    """``dst[e] = xbase + w * xstride`` for the ``count`` index values from ``start``;
    False when one of them is out of range (``dst`` is then meaningless).  Unit strides
    get a loop that vectorises."""
    good = True
    if istride == 1:
        idx = i_flat[start:start + count]
        for e in range(count):
            w = _along(idx[e], n)
            good &= _inside(w, n)
            dst[e] = xbase + w * xstride
    else:
        for e in range(count):
            w = _along(i_flat[start + e * istride], n)
            good &= _inside(w, n)
            dst[e] = xbase + w * xstride
    return good


@njit(inline="always")
def _positions_rows(xoffs, xstride, n, i_flat, ioffs, istride, m, t, count, pos):
    """``pos[e]``: where in ``x_flat`` output element ``t + e`` reads, when ``inner`` is 1
    (element ``t`` is position ``t % m`` of sequence ``t // m``), a sequence's run at a
    time; False when a value is out of range."""
    q, j = t // m, t % m
    e = 0
    good = True
    while e < count:
        run = min(m - j, count - e)
        good &= _run_positions(xoffs[q], xstride, n, i_flat, ioffs[q] + j * istride, istride,
                               run, pos[e:e + run])
        e += run
        q, j = q + 1, 0
    return good


@njit(inline="always")
def _unit_run_positions(xbase, xstride, n, i_flat, start, count, dst):
    """``dst[u] = xbase + u + w * xstride`` over a contiguous run of the index."""
    idx = i_flat[start:start + count]
    good = True
    for u in range(count):
        w = _along(idx[u], n)
        good &= _inside(w, n)
        dst[u] = xbase + u + w * xstride
    return good


@njit(inline="always")
def _positions_columns(xoffs, xstride, n, i_flat, ioffs, istride, m, inner, t, count, unit,
                       pos):
    """Like :func:`_positions_rows` for ``inner > 1``: element ``t`` is column
    ``t % inner`` of output row ``r = t // inner``, which is ``(o, j) = divmod(r, m)``."""
    r, c = t // inner, t % inner
    e = 0
    good = True
    while e < count:
        run = min(inner - c, count - e)
        base, shift = (r // m) * inner + c, (r % m) * istride
        dst = pos[e:e + run]
        if unit:  # both inner runs are unit-stride: offsets are consecutive
            good &= _unit_run_positions(xoffs[base], xstride, n, i_flat, ioffs[base] + shift,
                                        run, dst)
        else:
            for u in range(run):
                w = _along(i_flat[ioffs[base + u] + shift], n)
                good &= _inside(w, n)
                dst[u] = xoffs[base + u] + w * xstride
        e += run
        r, c = r + 1, 0
    return good


@njit(nogil=True, cache=True)
def first_bad(n, i_flat, ioffs, istride, m, inner, t0, t1):
    """The first output element in ``t0 .. t1-1`` whose index value is out of range
    now, or ``t0`` when none is (the index changed since it was read)."""
    for t in range(t0, t1):
        r, c = t // inner, t % inner
        q = (r // m) * inner + c
        if not _inside(_along(i_flat[ioffs[q] + (r % m) * istride], n), n):
            return t
    return t0


@njit(inline="always")
def _positions(xoffs, xstride, n, i_flat, ioffs, istride, m, inner, unit, t, count, pos):
    """``pos[e]`` for output elements ``t .. t+count-1``; False when a value is out of range."""
    if inner == 1:
        return _positions_rows(xoffs, xstride, n, i_flat, ioffs, istride, m, t, count, pos)
    return _positions_columns(xoffs, xstride, n, i_flat, ioffs, istride, m, inner, t, count,
                              unit, pos)


@njit(inline="always")
def _copy(x_flat, pos, count, look, ahead, dst):
    """``dst[e] = x_flat[pos[e]]`` for ``e < count``, prefetching ``pos[e + ahead]`` while
    it is below ``look`` (no prefetch when ``ahead`` is 0).  Positions are unsigned, so
    no read of ``x`` pays for negative-index wrapping: the loops stay a handful of
    instructions, and the out-of-order window holds many reads."""
    hinted = max(0, min(count, look - ahead)) if ahead > 0 else 0
    for e in range(hinted):
        prefetch(x_flat, pos[e + ahead])
        dst[e] = x_flat[pos[e]]
    for e in range(hinted, count):
        u = np.uint64(e)  # unsigned: no wrapping of e either
        dst[u] = x_flat[pos[u]]


@njit(inline="always")
def _clamped(v, n, last, xbase, xstride):
    """Index value ``v`` as a position in ``x_flat`` for a sequence starting at ``xbase``,
    and whether it was out of range.  An out-of-range value becomes the last
    coordinate, so the position is always inside ``x``."""
    w = np.uint64(_along(v, n))  # a negative coordinate becomes 2**63 or more
    return xbase + np.int64(min(w, last)) * xstride, w > last


@njit(nogil=True, cache=True)
def _gather_rows(x_flat, xoffs, xstride, n, i_flat, ioffs, istride, m, t0, t1, ahead, out):
    """:func:`gather_flat` for ``inner == 1`` and ``ahead > 0``: output element ``t`` is
    position ``t % m`` of sequence ``t // m``.  After the first ``lead`` positions
    (computed and checked at once), one loop does everything: each iteration turns
    the index value ``lead`` elements later into a clamped position, keeps it in a
    small ring and prefetches it, then copies the element whose position is
    already there.  At the end of each ``BLOCK`` it stops if a value was out of
    range."""
    lead, total = min(ahead, t1 - t0), t1 - t0
    size = 1
    while size <= lead:
        size *= 2
    ring, mask = np.empty(size, np.uint64), np.uint64(size - 1)
    if not _positions_rows(xoffs, xstride, n, i_flat, ioffs, istride, m, t0, lead, ring):
        return first_bad(n, i_flat, ioffs, istride, m, 1, t0, t0 + lead)
    # The look-ahead's place: output element t0 + lead, index value j of sequence q
    # (``left`` values to go in it), read at ``ipos``; ``f`` counts from t0, as ``e`` does.
    q, j = (t0 + lead) // m, (t0 + lead) % m
    left = m - j
    ipos, xbase = np.uint64(0), np.int64(0)
    if q < xoffs.size:
        ipos, xbase = np.uint64(ioffs[q] + j * istride), xoffs[q]
    istep = np.uint64(istride)  # two's complement: adding it also steps backwards
    last, f, bad, dst = np.uint64(n - 1), np.uint64(lead), False, out[t0:t1]
    for s in range(0, total, BLOCK):
        hi = min(s + BLOCK, total)
        both = max(s, min(hi, total - lead))
        for e in range(np.uint64(s), np.uint64(both)):
            p, out_of_range = _clamped(i_flat[ipos], n, last, xbase, xstride)
            bad |= out_of_range
            ring[f & mask] = np.uint64(p)
            prefetch(x_flat, p)
            f += np.uint64(1)
            ipos += istep
            left -= 1
            if left == 0:
                q, left = q + 1, m
                if q < xoffs.size:
                    ipos, xbase = np.uint64(ioffs[q]), xoffs[q]
            dst[e] = x_flat[ring[e & mask]]
        for e in range(np.uint64(both), np.uint64(hi)):
            dst[e] = x_flat[ring[e & mask]]
        if bad:  # the values read in this block: positions s + lead .. f - 1
            return first_bad(n, i_flat, ioffs, istride, m, 1, t0 + s + lead, t0 + np.int64(f))
    return -1


@njit(nogil=True, cache=True)
def gather_flat(x_flat, xoffs, xstride, n, i_flat, ioffs, istride, m, t0, t1, inner, unit,
                ahead, out):
    """Output elements ``t0 .. t1-1`` of the C-ordered ``(outer, m, inner)`` output ``out``
    (given flat), by :func:`_gather_rows` when ``inner == 1`` and ``ahead > 0``, else
    a block of ``BLOCK`` at a time, prefetching ``ahead >= 0`` reads
    ahead (0: no prefetch); returns -1, or the output element (an index position in
    C order) where an out-of-range value stopped it.

    For each block, the positions in ``x_flat`` are first computed from the
    index (read in order) into a small buffer, along with the next ``ahead``
    ones, and checked; the copy loop then prefetches the element it will read
    ``ahead`` iterations later, so many random reads are in flight.  Both read
    only checked positions.  (The next block reads its first ``ahead`` values
    again and checks them again: carrying them over measured no faster, and
    compiled slower.)
    """
    if inner == 1 and ahead > 0:
        return _gather_rows(x_flat, xoffs, xstride, n, i_flat, ioffs, istride, m, t0, t1, ahead,
                            out)
    pos = np.empty(BLOCK + ahead, np.uint64)
    for s in range(t0, t1, BLOCK):
        count = min(BLOCK, t1 - s)
        look = min(count + ahead, t1 - s)
        if not _positions(xoffs, xstride, n, i_flat, ioffs, istride, m, inner, unit, s, look,
                          pos):
            return first_bad(n, i_flat, ioffs, istride, m, inner, s, s + look)
        _copy(x_flat, pos, count, look, ahead, out[s:s + count])
    return -1
