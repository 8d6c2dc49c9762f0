"""The radix strategy: large k, up to a full sort.

Each sequence's keys go to a tile (:func:`.keys.fill_keys`) and are sorted
by a least-significant-digit radix sort with 8-bit digits, which is stable, so
equal keys keep index order: sorting the complemented keys ascending lists the
best first, ties by lower index.  Keys of up to 32 bits travel with their index
in one 64-bit word; a digit every key shares is skipped.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .keys import cast_like, fill_keys
from .select import write_row

__all__ = ["topk_radix_rows"]

#: the low 32 bits of a word ``key << 32 | index``.
_LOW32 = np.uint64(0xFFFFFFFF)


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
            _, si = _radix_pairs(tile, n, keys_b, idx_a, idx_b, hist)
            write_row(flat, base, stride, si, k, q, inner, out_vals, out_idx)
