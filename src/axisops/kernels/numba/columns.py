"""The columns strategy: many sequences side by side, one unit stride apart.

Along axis 0 of a C-order array (and alike), neighbouring sequences are
neighbouring elements of each row, so ``panel`` sequences are walked together,
row by row along the axis, each keeping its own candidates.  For ``rows`` rows
at a time the maximum key of every column comes straight from the input (one
vectorised pass over contiguous row slices); a column whose maximum cannot
enter costs one comparison, and only the others have their keys computed.
Before the walk, each column takes a first bound from samples of its rows, so
a column that rises along the axis does not insert every element, and a random
one refuses most of its early rows.  Inside a group of rows, each ``SUB_ROWS``
rows' maxima are kept too, and a column that can enter reads only the sub-groups
that can.  The columns (and then the sub-groups) to visit are listed branch-free
first: on random columns which of them can enter is unpredictable, and the
mispredicted branches cost more than the visits.

With fewer panels than threads, the driver cuts the axis instead: each thread
walks every column over its part of the rows, and :func:`merge_columns` merges
each sequence's parts from the elements the parts found, without reading the
input again.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .keys import cast_like, max_keys_into, order_key
from .select import SORTED_K, finish_best, insert_later, out_place, partition_best, write_row

__all__ = ["MIN_BUFFER", "merge_columns", "topk_columns"]

#: the smallest candidate buffer of a column (k > SORTED_K only): see the scan's.
MIN_BUFFER = 32
#: rows of a column whose maximum is kept apart inside each group of ``rows``: a column
#: whose group maximum can enter has only the sub-groups that can enter read (on
#: random columns usually one of four), not every row of the group.
SUB_ROWS = 4
#: columns take a sampled first bound (:func:`_sampled_bounds`) when the axis is at
#: least this many times the 2k sampled rows: the sample then costs at most 1/8 of a read.
SAMPLE_MIN_FACTOR = 8
#: the spread sample of :func:`_sampled_bounds` reads 1/SPREAD_SHARE of the axis.
SPREAD_SHARE = 16


@njit(inline="always")
def _worst_key(ckeys, k):
    worst = ckeys[0]
    for j in range(1, k):
        worst = min(worst, ckeys[j])
    return worst


@njit(inline="always")
def _push(ckeys, cidx, cnt, lo, closed, c, key, i, k, ones, sign):
    """Add one candidate to column ``c``; compact its buffer when full."""
    j = cnt[c]
    ckeys[c, j] = key
    cidx[c, j] = i
    j += 1
    if j == ckeys.shape[1]:
        row_k, row_i = ckeys[c], cidx[c]
        partition_best(row_k, row_i, j, k)
        j = k
        worst = _worst_key(row_k, k)
        if worst == ones:
            closed[c] = True  # k keys at the maximum: nothing later can enter
        else:
            nxt = cast_like(worst + cast_like(1, sign), sign)
            lo[c] = nxt if nxt > lo[c] else lo[c]
    cnt[c] = j


@njit
def _sampled_bounds(flat, base, stride, n, k, width, kind, sign, absmask, nanbound, ones,
                    flip, least, most, lo):
    """Each column's first bounds (:func:`_runs_bound`), raised into ``lo``: from the
    middle k rows and from the last k rows (runs of one row), and, on a long enough
    axis, from k runs of ``n // (SPREAD_SHARE * k)`` rows around the middle.

    Without the first two, a column that rises along the axis (sorted input, or
    descending input with ``largest=False``) inserts every element, at O(k) each;
    with them, rising and organ-pipe columns start at about their k-th best.  The
    third is for random columns: it sits near the top 1/span of their keys, so
    the walk's early rows, which would otherwise insert about one element in i at
    row i, mostly stay below it.  ``lo`` is left alone where the axis is too short
    to sample.
    """
    mid = n // 2
    if n < SAMPLE_MIN_FACTOR * 2 * k or mid + k > n - k:
        return
    span = n // (SPREAD_SHARE * k)
    for start, run in ((mid, 1), (n - k, 1), ((n - k * span) // 2, span)):
        if run == 1 or span >= 2:
            _runs_bound(flat, base, stride, start, k, run, width, kind, sign, absmask,
                        nanbound, ones, flip, least, most, lo)


@njit(inline="always")
def _runs_bound(flat, base, stride, start, k, span, width, kind, sign, absmask, nanbound,
                ones, flip, least, most, lo):
    """Raise ``lo`` to the least of the maxima of k runs of ``span`` rows from row
    ``start``.  Each run's maximum is a distinct element at least that large, so the
    column's k-th best key is too."""
    zero = cast_like(0, sign)
    least[:width] = ones
    for g in range(k):
        most[:width] = zero
        for i in range(start + g * span, start + (g + 1) * span):
            row = base + i * stride
            max_keys_into(flat[row:row + width], width, most, kind, sign, absmask, nanbound,
                          ones, flip)
        for c in range(width):
            least[c] = most[c] if most[c] < least[c] else least[c]
    for c in range(width):
        lo[c] = least[c] if least[c] > lo[c] else lo[c]


@njit(inline="always")
def _group_maxima(flat, base, stride, r0, h, width, sub, top, kind, sign, absmask, nanbound,
                  ones, flip):
    """``sub[s, c]``: the maximum key of column c over rows ``r0 + s * SUB_ROWS`` (and the
    next SUB_ROWS - 1) of the group of ``h`` rows from ``r0``; ``top[c]``: over the group.
    Vectorised over contiguous row slices."""
    zero = cast_like(0, sign)
    groups = (h + SUB_ROWS - 1) // SUB_ROWS
    for s in range(groups):
        part = sub[s, :width]
        part[:] = zero
        for r in range(s * SUB_ROWS, min(h, (s + 1) * SUB_ROWS)):
            start = base + (r0 + r) * stride
            max_keys_into(flat[start:start + width], width, part, kind, sign, absmask,
                          nanbound, ones, flip)
    top[:] = sub[0, :width]
    for s in range(1, groups):
        part = sub[s, :width]
        for c in range(width):
            top[c] = max(top[c], part[c])
    return groups


@njit(inline="always")
def _next_gate(tk, count, k, floor, ones, sign):
    """The least key that can still enter a column holding ``count`` keys."""
    if count < k:
        return floor
    kth = tk[k - 1]
    return cast_like(kth + cast_like(1, sign), sign) if kth != ones else kth


@njit(inline="always")
def _columns_insert(flat, base, stride, r0, h, width, sub, groups, top, lo, gate, hits, subs,
                    ckeys, cidx, cnt, k, kind, sign, absmask, nanbound, ones, flip):
    """Small k: each column keeps its k best sorted (insertion), so its bound is exact;
    keys below ``lo`` (the sampled bound) are refused before that.  Only the sub-groups
    whose maximum beats the column's k-th best so far are read (an equal key comes
    later, so it loses the tie).  ``gate[c]`` is the least key that can still enter
    column c (``lo[c]``, then its k-th best + 1): one contiguous array, so the check of
    every column per group is one branch-free pass that lists the columns to visit."""
    m = 0
    for c in range(width):
        hits[m] = c
        m += top[c] >= gate[c]
    for t in range(m):
        c = hits[t]
        tk, ti = ckeys[c], cidx[c]
        count = cnt[c]
        need = gate[c]
        m_sub = 0
        for s in range(groups):
            subs[m_sub] = s
            m_sub += sub[s, c] >= need
        for u in range(m_sub):
            s = subs[u]
            if sub[s, c] < need:
                continue
            for r in range(s * SUB_ROWS, min(h, (s + 1) * SUB_ROWS)):
                i = r0 + r
                key = order_key(flat[base + i * stride + c], kind, sign, absmask, nanbound,
                                ones, flip)
                if key >= need:
                    count = insert_later(tk, ti, count, k, key, i)
                    need = _next_gate(tk, count, k, lo[c], ones, sign)
        cnt[c] = count
        gate[c] = need


@njit(nogil=True, cache=True)
def topk_columns(flat, offs, stride, n, k, t0, t1, inner, panel, rows, do_sort, kind, sign,
                 absmask, nanbound, ones, flip, out_vals, out_idx):
    """Many sequences at once: ``panel`` neighbouring sequences (unit stride apart)
    are walked row by row along the axis, each keeping its own candidates.

    For ``rows`` rows at a time, the maximum key of each column comes straight
    from the input (one vectorised pass over contiguous row slices, no key
    tile); a column whose maximum is below its bound costs one compare, and
    only the others have their keys computed again.
    """
    cap = max(2 * k, MIN_BUFFER)
    colmax = np.empty(panel, flat.dtype)
    ckeys = np.empty((panel, cap), flat.dtype)
    cidx = np.empty((panel, cap), np.int64)
    cnt = np.zeros(panel, np.int64)
    lo = np.empty(panel, flat.dtype)
    gate = np.empty(panel, flat.dtype)
    hits = np.empty(panel, np.int64)
    subs = np.empty((rows + SUB_ROWS - 1) // SUB_ROWS, np.int64)
    closed = np.zeros(panel, np.bool_)
    least = np.empty(panel, flat.dtype)
    sub = np.empty(((rows + SUB_ROWS - 1) // SUB_ROWS, panel), flat.dtype)
    zero = cast_like(0, sign)
    per_outer = (inner + panel - 1) // panel
    for t in range(t0, t1):
        o = t // per_outer
        c0 = (t - o * per_outer) * panel
        width = min(panel, inner - c0)
        base = offs[o * inner + c0]
        cnt[:] = 0
        lo[:] = zero
        closed[:] = False
        _sampled_bounds(flat, base, stride, n, k, width, kind, sign, absmask, nanbound,
                        ones, flip, least, colmax, lo)
        gate[:width] = lo[:width]
        top = colmax[:width]
        for r0 in range(0, n, rows):
            h = min(rows, n - r0)
            groups = _group_maxima(flat, base, stride, r0, h, width, sub, top, kind, sign,
                                   absmask, nanbound, ones, flip)
            if k <= SORTED_K:
                _columns_insert(flat, base, stride, r0, h, width, sub, groups, top, lo, gate,
                                hits, subs, ckeys, cidx, cnt, k, kind, sign, absmask, nanbound,
                                ones, flip)
                continue
            for c in range(width):
                if top[c] < lo[c] or closed[c]:
                    continue
                for s in range(groups):
                    if sub[s, c] < lo[c]:
                        continue
                    for r in range(s * SUB_ROWS, min(h, (s + 1) * SUB_ROWS)):
                        i = r0 + r
                        key = order_key(flat[base + i * stride + c], kind, sign, absmask,
                                        nanbound, ones, flip)
                        if key >= lo[c] and not closed[c]:
                            _push(ckeys, cidx, cnt, lo, closed, c, key, i, k, ones, sign)
        for c in range(width):
            row_k, row_i = ckeys[c], cidx[c]
            if cnt[c] < k:
                raise RuntimeError("axisops internal error: a column kept fewer than k")
            finish_best(row_k, row_i, cnt[c], k, do_sort)
            q = o * inner + c0 + c
            write_row(flat, offs[q], stride, row_i, k, q, inner, out_vals, out_idx)


@njit(nogil=True, cache=True)
def merge_columns(cvals, cidx, k, q0, q1, inner, do_sort, kind, sign, absmask, nanbound, ones,
                  flip, out_vals, out_idx):
    """Sequences ``q0 .. q1-1`` from the candidates of their parts (the axis cut across
    threads, each part walked by :func:`topk_columns`): ``cidx[o, :, c]`` holds the
    indices, in the whole sequence, of sequence ``o * inner + c``'s candidates (at
    least k), and ``cvals[o, :, c]`` their elements, so the input is not read again.

    Each candidate's place among them rides in the low bits of its index while the
    k best are chosen: the driver cuts the axis only for indices below 2**48 and fewer
    than 2**15 candidates, so the words keep the indices' order and never overflow."""
    m = cidx.shape[1]
    shift = 1
    while (1 << shift) < m:
        shift += 1
    low = (1 << shift) - 1
    ckeys = np.empty(m, cvals.dtype)
    row_i = np.empty(m, np.int64)
    for q in range(q0, q1):
        o, c = out_place(q, inner)
        for j in range(m):
            row_i[j] = (cidx[o, j, c] << shift) | j
            ckeys[j] = order_key(cvals[o, j, c], kind, sign, absmask, nanbound, ones, flip)
        finish_best(ckeys, row_i, m, k, do_sort)
        for j in range(k):
            w = row_i[j]
            out_vals[o, j, c] = cvals[o, w & low, c]
            out_idx[o, j, c] = w >> shift
