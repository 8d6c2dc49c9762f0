"""Numba top-k kernels over order keys (see :mod:`.numba_keys`).

Every sequence is read in place from ``flat``, a 1-D unsigned view of the
input's memory: element ``p`` of sequence ``q`` is ``flat[offs[q] + p * stride]``.
That covers every layout (C, Fortran, transposed, negative and zero strides)
without a copy.  Results are written into 3-D outputs shaped
``(outer, k, inner)``: sequence ``q`` is ``(q // inner, q % inner)``.

Three ways to find the k best keys of a sequence, chosen by the caller:

- **scan** (long sequences, small k): the sequence is read in segments.  Each
  segment's keys go to a small tile, and the maximum of every block of
  ``BLOCK`` keys is taken (vectorised).  A block whose maximum is below the
  acceptance bound ``lo`` is skipped whole.  ``lo`` rises two ways: when the
  candidate buffer (about 2k entries) fills, it is compacted to its k best and
  ``lo`` becomes one above the worst kept key (later elements that tie it have
  higher indices and lose); and when a segment has at least k blocks, the k-th
  largest block maximum is a lower bound of the k-th best key (k blocks each
  hold an element at least that large).  Sorted, constant or adversarial input
  therefore stays linear.
- **insert** (short sequences, small k): a sorted array of the k best, with
  insertion from the back; ties never move an earlier index.
- **radix** (large k, up to a full sort): an LSD radix sort of the keys, which
  is stable, so equal keys keep index order.

Candidates are (key, index) pairs; selection and sorting are by the strict
order of :mod:`.numba_select`, so the answer never depends on how work was
split.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .numba_keys import cast_like, fill_keys, max_keys_into, order_key
from .numba_select import SORTED_K, select_best, sort_best

__all__ = [
    "BLOCK",
    "SEGMENT_BYTES",
    "UNIT_SEGMENT",
    "merge_parts",
    "topk_columns",
    "topk_insert_rows",
    "topk_radix_rows",
    "topk_scan_part",
    "topk_scan_rows",
]

BLOCK = 16
#: the low 32 bits of a packed ``key << 32 | index`` word.
_LOW32 = np.uint64(0xFFFFFFFF)
#: up to this k, short sequences use the branch-free insertion network.
BRANCHLESS_K = 16
#: keys per segment tile: 32 KiB, so a tile stays in L1 while it is scanned.
SEGMENT_BYTES = 32768
#: elements per segment at unit stride, where block maxima come straight from
#: the input: more blocks per segment give tighter bounds (measured best at 32K).
UNIT_SEGMENT = 32768


@njit(inline="always")
def _block_layout(m):
    """(blocks, rows): block j of a segment holds elements r * blocks + j.

    Rows are vectorised across blocks; a block count that is a multiple of 64
    leaves no scalar remainder in any full row (an odd count like 511 ran the
    whole scan 3x slower).
    """
    blocks = max(1, m // BLOCK)
    if blocks >= 128:
        blocks -= blocks % 64
    return blocks, (m + blocks - 1) // blocks


@njit(inline="always")
def _block_maxima(tile, m, bmax):
    """Maximum of every (interleaved) block: a vertical max over rows, in SIMD."""
    blocks, rows = _block_layout(m)
    head = bmax[:blocks]
    head[:] = tile[:blocks]
    for r in range(1, rows):
        row = tile[r * blocks:min((r + 1) * blocks, m)]
        part = head[:row.shape[0]]
        for j in range(row.shape[0]):
            part[j] = max(part[j], row[j])
    return blocks, rows


@njit(inline="always")
def _source_maxima(src, m, kind, sign, absmask, nanbound, ones, flip, bmax):
    """:func:`_block_maxima` of the keys of ``src[:m]`` (unit stride), without a tile."""
    blocks, rows = _block_layout(m)
    head = bmax[:blocks]
    head[:] = cast_like(0, sign)  # the least key
    for r in range(rows):
        row = src[r * blocks:min((r + 1) * blocks, m)]
        max_keys_into(row, row.shape[0], head, kind, sign, absmask, nanbound, ones, flip)
    return blocks, rows


@njit(inline="always")
def _kth_largest(vals, m, k, scratch):
    """The k-th largest of ``vals[:m]`` (1 <= k <= m); ``scratch`` holds >= m values."""
    if k <= 32:
        top = scratch[:k]
        c = 0
        for i in range(m):
            v = vals[i]
            if c == k:
                if v <= top[k - 1]:
                    continue
                j = k - 1
            else:
                j = c
                c += 1
            while j > 0 and v > top[j - 1]:
                top[j] = top[j - 1]
                j -= 1
            top[j] = v
        return top[k - 1]
    buf = scratch[:m]
    buf[:] = vals[:m]
    lo, hi, target = 0, m - 1, k - 1
    while lo < hi:
        pivot = buf[(lo + hi) >> 1]
        i, j = lo, hi
        while i <= j:
            while buf[i] > pivot:
                i += 1
            while pivot > buf[j]:
                j -= 1
            if i <= j:
                buf[i], buf[j] = buf[j], buf[i]
                i += 1
                j -= 1
        if target <= j:
            hi = j
        elif target >= i:
            lo = i
        else:
            break
    return buf[target]


@njit(inline="always")
def _qualifying(bmax, blocks, lo, hits):
    """Blocks whose maximum reaches ``lo``, into ``hits``; returns their count."""
    h = 0
    for j in range(blocks):
        if bmax[j] >= lo:
            hits[h] = j
            h += 1
    return h


@njit(inline="always")
def _worst_key(ckeys, k):
    worst = ckeys[0]
    for j in range(1, k):
        v = ckeys[j]
        worst = v if v < worst else worst
    return worst


@njit(nogil=True, cache=True)
def scan_sequence(flat, base, stride, p0, p1, k, seg, kind, sign, absmask, nanbound, ones,
                  flip, tile, bmax, hits, scratch, ckeys, cidx):
    """Candidates for the k best keys of elements ``p0 .. p1-1`` of one sequence.

    Returns how many (key, index) pairs are in ``ckeys``/``cidx``: at least
    ``min(k, p1 - p0)``, and among them the k best.  Qualifying blocks are read
    row by row, so candidates arrive in increasing index order and a key equal
    to the worst kept one can be refused.
    """
    cap = ckeys.shape[0]
    lo = cast_like(0, sign)
    c = 0
    parts = (p1 - p0 + seg - 1) // seg
    step = (p1 - p0 + parts - 1) // parts  # equal segments, none of them a short tail
    unit = stride == 1
    for s0 in range(p0, p1, step):
        m = min(step, p1 - s0)
        if unit:  # keys straight from the input; a tile only for other strides
            start = base + s0
            blocks, rows = _source_maxima(flat[start:start + m], m, kind, sign, absmask,
                                          nanbound, ones, flip, bmax)
        else:
            fill_keys(flat, base, stride, s0, m, tile, kind, sign, absmask, nanbound, ones,
                      flip)
            blocks, rows = _block_maxima(tile, m, bmax)
        h = _qualifying(bmax, blocks, lo, hits)
        if h > k and blocks >= k:
            bound = _kth_largest(bmax, blocks, k, scratch)
            if bound > lo:
                lo = bound
                h = _qualifying(bmax, blocks, lo, hits)
        for r in range(rows):
            first = r * blocks
            for t in range(h):
                i = first + hits[t]
                if i >= m:
                    break
                if unit:
                    key = order_key(flat[base + s0 + i], kind, sign, absmask, nanbound, ones,
                                    flip)
                else:
                    key = tile[i]
                if key < lo:
                    continue
                ckeys[c] = key
                cidx[c] = s0 + i
                c += 1
                if c == cap:
                    select_best(ckeys, cidx, c, k)
                    c = k
                    worst = _worst_key(ckeys, k)
                    if worst == ones:
                        return c
                    nxt = cast_like(worst + cast_like(1, sign), sign)
                    lo = nxt if nxt > lo else lo
    return c


@njit(inline="always")
def _write_row(flat, base, stride, ckeys, cidx, k, q, inner, out_vals, out_idx):
    o = q // inner
    col = q - o * inner
    for j in range(k):
        i = cidx[j]
        out_vals[o, j, col] = flat[base + i * stride]
        out_idx[o, j, col] = i


@njit(inline="always")
def _sort_candidates(ckeys, cidx, k, n):
    """Sort the k selected pairs best first (introsort: O(k log k) on any input)."""
    if k > SORTED_K:  # below, select_best left them sorted
        sort_best(ckeys, cidx, k)


@njit(nogil=True, cache=True)
def topk_scan_rows(flat, offs, stride, n, k, q0, q1, inner, seg, do_sort, kind, sign, absmask,
                   nanbound, ones, flip, out_vals, out_idx):
    """The scan strategy for sequences ``q0 .. q1-1``, each of length ``n``."""
    cap = max(2 * k, 64)
    m = min(seg, n)
    tile = np.empty(m, flat.dtype)
    bmax = np.empty(m, flat.dtype)
    hits = np.empty(m, np.int64)
    scratch = np.empty(m, flat.dtype)
    ckeys = np.empty(cap, flat.dtype)
    cidx = np.empty(cap, np.int64)
    for q in range(q0, q1):
        base = offs[q]
        c = scan_sequence(flat, base, stride, 0, n, k, seg, kind, sign, absmask, nanbound, ones,
                          flip, tile, bmax, hits, scratch, ckeys, cidx)
        if c < k:
            raise RuntimeError("axisops internal error: scan kept fewer than k candidates")
        select_best(ckeys, cidx, c, k)
        if do_sort:
            _sort_candidates(ckeys, cidx, k, n)
        _write_row(flat, base, stride, ckeys, cidx, k, q, inner, out_vals, out_idx)


@njit(inline="always")
def _insert_packed(tile, n, top, k):
    """Best-first ``top`` of packed ``key << 32 | (2**32 - 1 - index)`` words.

    One comparison of two words orders by key, then by lower index.
    """
    c = 0
    for i in range(n):
        p = (np.uint64(tile[i]) << np.uint64(32)) | (_LOW32 - np.uint64(i))
        if c == k:
            if p <= top[k - 1]:
                continue
            j = k - 1
        else:
            j = c
            c += 1
        while j > 0 and p > top[j - 1]:
            top[j] = top[j - 1]
            j -= 1
        top[j] = p


@njit(inline="always")
def _insert_branchless(tile, n, top, k):
    """Like :func:`_insert_packed`, but an accepted word is merged into the sorted
    ``top`` by a min/max network instead of a search loop (no mispredicted exit)."""
    top[:] = 0  # every packed word is >= 1, so 0 means "empty"
    for i in range(n):
        p = (np.uint64(tile[i]) << np.uint64(32)) | (_LOW32 - np.uint64(i))
        if p <= top[k - 1]:
            continue
        for j in range(k - 1, 0, -1):
            top[j] = max(top[j], min(top[j - 1], p))
        top[0] = max(top[0], p)


@njit(inline="always")
def _insert_pairs(tile, n, ckeys, cidx, k):
    c = 0
    for i in range(n):
        key = tile[i]
        if c == k:
            if key <= ckeys[k - 1]:
                continue
            j = k - 1
        else:
            j = c
            c += 1
        while j > 0 and key > ckeys[j - 1]:
            ckeys[j] = ckeys[j - 1]
            cidx[j] = cidx[j - 1]
            j -= 1
        ckeys[j] = key
        cidx[j] = i


@njit(nogil=True, cache=True)
def topk_insert_rows(flat, offs, stride, n, k, q0, q1, inner, kind, sign, absmask, nanbound,
                     ones, flip, out_vals, out_idx):
    """The insert strategy: a best-first array of k, filled from the back."""
    tile = np.empty(n, flat.dtype)
    top = np.empty(k, np.uint64)
    ckeys = np.empty(k, flat.dtype)
    cidx = np.empty(k, np.int64)
    packed = flat.itemsize <= 4 and n <= 0xFFFFFFFF
    for q in range(q0, q1):
        base = offs[q]
        fill_keys(flat, base, stride, 0, n, tile, kind, sign, absmask, nanbound, ones, flip)
        if packed and k <= BRANCHLESS_K:
            _insert_branchless(tile, n, top, k)
            for j in range(k):
                cidx[j] = np.int64(_LOW32 - (top[j] & _LOW32))
        elif packed:
            _insert_packed(tile, n, top, k)
            for j in range(k):
                cidx[j] = np.int64(_LOW32 - (top[j] & _LOW32))
        else:
            _insert_pairs(tile, n, ckeys, cidx, k)
        _write_row(flat, base, stride, ckeys, cidx, k, q, inner, out_vals, out_idx)


@njit(inline="always")
def _prefix(counts):
    total = 0
    for b in range(256):
        c = counts[b]
        counts[b] = total
        total += c


@njit(inline="always")
def _packed_pass(src, dst, n, shift, counts):
    _prefix(counts)
    sh = np.uint64(shift)
    for j in range(n):
        w = src[j]
        b = (w >> sh) & np.uint64(0xFF)
        pos = counts[b]
        counts[b] = pos + 1
        dst[pos] = w


@njit(inline="always")
def _radix_packed(tile, n, a, b, hist):
    """Sort ``key << 32 | index`` words by key (LSD, stable); returns the sorted array."""
    width = tile.itemsize
    hist[:, :] = 0
    for j in range(n):
        key = tile[j]
        a[j] = (np.uint64(key) << np.uint64(32)) | np.uint64(j)
        for d in range(width):
            hist[d, (key >> (8 * d)) & 0xFF] += 1
    src, dst = a, b
    first = src[0] >> np.uint64(32)
    for d in range(width):
        if hist[d, (first >> np.uint64(8 * d)) & np.uint64(0xFF)] == n:
            continue  # every key shares this digit
        _packed_pass(src, dst, n, 32 + 8 * d, hist[d])
        src, dst = dst, src
    return src


@njit(inline="always")
def _radix_pairs(keys_a, n, keys_b, idx_a, idx_b, hist):
    """Sort (key, index) pairs by key (LSD, stable); returns the sorted arrays."""
    width = keys_a.itemsize
    hist[:, :] = 0
    for j in range(n):
        key = keys_a[j]
        idx_a[j] = j
        for d in range(width):
            hist[d, (key >> (8 * d)) & 0xFF] += 1
    src_k, src_i, dst_k, dst_i = keys_a, idx_a, keys_b, idx_b
    for d in range(width):
        if hist[d, (src_k[0] >> (8 * d)) & 0xFF] == n:
            continue
        counts = hist[d]
        _prefix(counts)
        for j in range(n):
            key = src_k[j]
            bkt = (key >> (8 * d)) & 0xFF
            pos = counts[bkt]
            counts[bkt] = pos + 1
            dst_k[pos] = key
            dst_i[pos] = src_i[j]
        src_k, src_i, dst_k, dst_i = dst_k, dst_i, src_k, src_i
    return src_k, src_i


@njit(nogil=True, cache=True)
def topk_radix_rows(flat, offs, stride, n, k, q0, q1, inner, kind, sign, absmask, nanbound,
                    ones, flip, out_vals, out_idx):
    """The radix strategy: a stable LSD sort of each sequence, best first.

    Keys of up to 32 bits travel with their index in one 64-bit word.
    """
    width = flat.itemsize
    packed = width <= 4 and n <= 0xFFFFFFFF
    tile = np.empty(n, flat.dtype)
    keys_b = np.empty(n if not packed else 1, flat.dtype)
    idx_a = np.empty(n if not packed else 1, np.int64)
    idx_b = np.empty(n if not packed else 1, np.int64)
    words_a = np.empty(n if packed else 1, np.uint64)
    words_b = np.empty(n if packed else 1, np.uint64)
    hist = np.zeros((width, 256), np.int64)
    # Ascending order of the complemented key is best first, ties by index.
    inv = cast_like(flip ^ ones, sign)
    for q in range(q0, q1):
        base = offs[q]
        fill_keys(flat, base, stride, 0, n, tile, kind, sign, absmask, nanbound, ones, inv)
        if packed:
            words = _radix_packed(tile, n, words_a, words_b, hist)
            o = q // inner
            col = q - o * inner
            dst_v, dst_i = out_vals[o, :, col], out_idx[o, :, col]
            for j in range(k):
                i = np.int64(words[j] & _LOW32)
                dst_i[j] = i
                dst_v[j] = flat[base + i * stride]
        else:
            sk, si = _radix_pairs(tile, n, keys_b, idx_a, idx_b, hist)
            _write_row(flat, base, stride, sk, si, k, q, inner, out_vals, out_idx)


@njit(nogil=True, cache=True)
def topk_scan_part(flat, base, stride, p0, p1, k, seg, kind, sign, absmask, nanbound, ones,
                   flip, ckeys, cidx):
    """The k best of one part of a long sequence, into ``ckeys``/``cidx``; returns the count."""
    m = min(seg, p1 - p0)
    tile = np.empty(m, flat.dtype)
    bmax = np.empty(m, flat.dtype)
    hits = np.empty(m, np.int64)
    scratch = np.empty(m, flat.dtype)
    c = scan_sequence(flat, base, stride, p0, p1, k, seg, kind, sign, absmask, nanbound, ones,
                      flip, tile, bmax, hits, scratch, ckeys, cidx)
    select_best(ckeys, cidx, c, k)
    return min(c, k)


@njit(nogil=True, cache=True)
def merge_parts(flat, base, stride, n, ckeys, cidx, m, k, do_sort, q, inner, out_vals,
                out_idx):
    """Merge the parts' candidates (``m`` pairs) into row ``q`` of the outputs."""
    if m < k:
        raise RuntimeError("axisops internal error: parts kept fewer than k candidates")
    select_best(ckeys, cidx, m, k)
    if do_sort:
        _sort_candidates(ckeys, cidx, k, n)
    _write_row(flat, base, stride, ckeys, cidx, k, q, inner, out_vals, out_idx)


@njit(inline="always")
def _push(ckeys, cidx, cnt, lo, closed, c, key, i, k, ones, sign):
    """Add one candidate to column ``c``; compact its buffer when full."""
    j = cnt[c]
    ckeys[c, j] = key
    cidx[c, j] = i
    j += 1
    if j == ckeys.shape[1]:
        row_k, row_i = ckeys[c], cidx[c]
        select_best(row_k, row_i, j, k)
        j = k
        worst = _worst_key(row_k, k)
        if worst == ones:
            closed[c] = True  # k keys at the maximum: nothing later can enter
        else:
            nxt = cast_like(worst + cast_like(1, sign), sign)
            lo[c] = nxt if nxt > lo[c] else lo[c]
    cnt[c] = j


@njit(inline="always")
def _columns_insert(flat, base, stride, r0, h, width, top, ckeys, cidx, cnt, k, kind, sign,
                    absmask, nanbound, ones, flip):
    """Small k: each column keeps its k best sorted (insertion), so its bound is exact.

    Rows arrive in index order, so a key enters only when strictly greater
    than the k-th best, and lands after every equal key already kept.
    """
    for c in range(width):
        full = cnt[c] == k
        if full and top[c] <= ckeys[c, k - 1]:
            continue
        tk, ti = ckeys[c], cidx[c]
        for r in range(h):
            i = r0 + r
            key = order_key(flat[base + i * stride + c], kind, sign, absmask, nanbound, ones,
                            flip)
            if cnt[c] == k:
                if key <= tk[k - 1]:
                    continue
                j = k - 1
            else:
                j = cnt[c]
                cnt[c] = j + 1
            while j > 0 and key > tk[j - 1]:
                tk[j] = tk[j - 1]
                ti[j] = ti[j - 1]
                j -= 1
            tk[j] = key
            ti[j] = i


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
    cap = max(2 * k, 32)
    colmax = np.empty(panel, flat.dtype)
    ckeys = np.empty((panel, cap), flat.dtype)
    cidx = np.empty((panel, cap), np.int64)
    cnt = np.zeros(panel, np.int64)
    lo = np.empty(panel, flat.dtype)
    closed = np.zeros(panel, np.bool_)
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
        top = colmax[:width]
        for r0 in range(0, n, rows):
            h = min(rows, n - r0)
            top[:] = zero
            for r in range(h):
                start = base + (r0 + r) * stride
                max_keys_into(flat[start:start + width], width, top, kind, sign, absmask,
                              nanbound, ones, flip)
            if k <= SORTED_K:
                _columns_insert(flat, base, stride, r0, h, width, top, ckeys, cidx, cnt, k,
                                kind, sign, absmask, nanbound, ones, flip)
                continue
            for c in range(width):
                if top[c] < lo[c] or closed[c]:
                    continue
                for r in range(h):
                    i = r0 + r
                    key = order_key(flat[base + i * stride + c], kind, sign, absmask, nanbound,
                                    ones, flip)
                    if key >= lo[c] and not closed[c]:
                        _push(ckeys, cidx, cnt, lo, closed, c, key, i, k, ones, sign)
        for c in range(width):
            row_k, row_i = ckeys[c], cidx[c]
            if cnt[c] < k:
                raise RuntimeError("axisops internal error: a column kept fewer than k")
            select_best(row_k, row_i, cnt[c], k)
            if do_sort:
                _sort_candidates(row_k, row_i, k, n)
            q = o * inner + c0 + c
            _write_row(flat, offs[q], stride, row_k, row_i, k, q, inner, out_vals, out_idx)
