"""The insert strategy: short sequences, many per call.

Keys go to a tile first, in one vectorised pass (over many sequences at once
when they lie back to back in memory, as the rows of a C-order array do).
Then, per sequence:

- **extraction** (keys of up to 32 bits, small k): every key is packed with
  its index into one signed word (:func:`.select.pack_signed`, whose plain
  ``>`` is the tie rule), and the k best are taken one at a time, each as the largest
  word below the one taken before (a vectorised reduction that stores
  nothing).  Two sequences are reduced in the same loop, so that each one's
  reduction runs while the other's waits on its result.  No branch depends on
  the data, so a short row costs about ``k * n / lanes`` vector steps;
- **insertion** (otherwise): every key is offered to a best-first array of at
  most k (:func:`.select.insert_best`, or packed words through
  :func:`.select.insert_word`), which most keys leave after one
  comparison.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .keys import fill_keys
from .select import (
    insert_best,
    insert_word,
    out_place,
    pack,
    pack_signed,
    unpack_index,
    write_one,
    write_row,
)

__all__ = ["CHUNK", "EXTRACT_MAX_K", "PACKED_MAX_BYTES", "topk_insert_rows"]

#: keys of at most this many bytes travel with their index in one 64-bit word.
PACKED_MAX_BYTES = 4
#: up to this k, packed keys are selected by k maximum reductions, whose cost does not
#: depend on the data.  Measured, float32, one thread, ns a row (extraction against the
#: best other route): (64, k=48) 464 vs 757 radix, (128, 64) 919 vs 1079 radix, (512, 64)
#: 2840 vs 3331 radix; above about k = 64 the radix sort wins (the driver also bounds
#: k * n, see ``driver.EXTRACT_MAX_WORK``).
EXTRACT_MAX_K = 64
#: keys per tile: sequences back to back in memory get their keys in one pass of this
#: many elements (a call per short sequence would cost as much as the sequence).
CHUNK = 8192


#: below every signed packed word (:func:`.select.pack_signed`).
_EMPTY = np.int64(-(2**63))


@njit(inline="always")
def _put(flat, base, stride, word, j, where, out_vals, out_idx):
    o, col = where
    write_one(flat, base, stride, unpack_index(word), j, o, col, out_vals, out_idx)


@njit(inline="always")
def _extract_pair(words, n, k, best_a, best_b, flat, base_a, base_b, stride, at_a, at_b,
                  out_vals, out_idx):
    """The k largest packed words of two sequences, ``words[:n]`` and ``words[n:2n]``
    (k >= 1), written best first as results of the sequences at ``base_a`` and
    ``base_b`` (output places ``at_a`` and ``at_b``).  ``best_a`` and ``best_b`` are
    the largest words, taken while the words were packed (3-5% faster for k <= 4
    than a pass of their own).

    Each pass after the first takes the largest word below the one taken before.  The
    two reductions share one loop: each one's latency (the maximum across lanes
    at the end of a pass) hides behind the other's work, which made short rows
    15-20% faster than one sequence at a time (measured, float32, AVX-512).  Each
    pass writes its two results at once: a separate loop over an index buffer
    afterwards cost about a fifth of the MoE router row (8192, 64) k=2.  The words
    are signed: on AVX2, unsigned 64-bit words made k=3-8 12-25% slower (their
    compares and maxima are emulated).
    """
    _put(flat, base_a, stride, best_a, 0, at_a, out_vals, out_idx)
    _put(flat, base_b, stride, best_b, 0, at_b, out_vals, out_idx)
    for j in range(1, k):
        last_a, last_b = best_a, best_b
        best_a = best_b = _EMPTY
        for i in range(n):
            wa = words[i]
            wb = words[n + i]
            best_a = max(best_a, wa if wa < last_a else _EMPTY)
            best_b = max(best_b, wb if wb < last_b else _EMPTY)
        _put(flat, base_a, stride, best_a, j, at_a, out_vals, out_idx)
        _put(flat, base_b, stride, best_b, j, at_b, out_vals, out_idx)


@njit(inline="always")
def _extract_rows(flat, offs, stride, n, k, t0, rows, inner, tile, words, out_vals, out_idx):
    """The extraction route for the ``rows`` sequences from ``t0`` whose keys are in
    ``tile``, two at a time (an odd last one is paired with itself, and its results
    written twice)."""
    r = 0
    while r < rows:  # a range with a step made the whole route twice as slow
        b = r + 1 if r + 1 < rows else r
        at_a, at_b = r * n, b * n
        best_a = best_b = _EMPTY
        for i in range(n):
            wa = pack_signed(tile[at_a + i], i)
            wb = pack_signed(tile[at_b + i], i)
            words[i] = wa
            words[n + i] = wb
            best_a = max(best_a, wa)
            best_b = max(best_b, wb)
        qa, qb = t0 + r, t0 + b
        _extract_pair(words, n, k, best_a, best_b, flat, offs[qa], offs[qb], stride,
                      out_place(qa, inner), out_place(qb, inner), out_vals, out_idx)
        r += 2


@njit(inline="always")
def _insert_rows(flat, offs, stride, n, k, t0, rows, inner, tile, words, ckeys, cidx, packed,
                 out_vals, out_idx):
    """The insertion route for the ``rows`` sequences from ``t0`` whose keys are in
    ``tile``: packed words when they fit, else (key, index) pairs."""
    for r in range(rows):
        at = r * n
        count = 0
        if packed:
            for i in range(n):
                count = insert_word(words, count, k, pack(tile[at + i], i))
            for j in range(k):
                cidx[j] = unpack_index(words[j])
        else:
            for i in range(n):
                count = insert_best(ckeys, cidx, count, k, tile[at + i], i)
        q = t0 + r
        write_row(flat, offs[q], stride, cidx, k, q, inner, out_vals, out_idx)


@njit(inline="always")
def _back_to_back(offs, q, rows, n, stride):
    """Whether sequences q .. q+rows-1 are one contiguous run of memory, in order."""
    if stride != 1:
        return False
    first = offs[q]
    for r in range(1, rows):  # noqa: SIM110 (a generator is not compiled by numba)
        if offs[q + r] != first + r * n:
            return False
    return True


@njit(nogil=True, cache=True)
def topk_insert_rows(flat, offs, stride, n, k, q0, q1, inner, kind, sign, absmask, nanbound,
                     ones, flip, out_vals, out_idx):
    """The insert strategy for sequences ``q0 .. q1-1``, each of length ``n``."""
    per_tile = max(2, CHUNK // n // 2 * 2)  # even: only a range's last row goes unpaired
    tile = np.empty(per_tile * n, flat.dtype)
    packed = flat.itemsize <= PACKED_MAX_BYTES and n <= 0xFFFFFFFF
    extract = packed and k <= EXTRACT_MAX_K
    words = np.empty(2 * n if packed and not extract else 1, np.uint64)
    signed_words = np.empty(2 * n if extract else 1, np.int64)
    ckeys = np.empty(k, flat.dtype)
    cidx = np.empty(k, np.int64)
    t0 = q0
    while t0 < q1:
        rows = min(per_tile, q1 - t0)
        if _back_to_back(offs, t0, rows, n, stride):
            fill_keys(flat, offs[t0], 1, 0, rows * n, tile, kind, sign, absmask, nanbound,
                      ones, flip)
        else:
            for r in range(rows):
                fill_keys(flat, offs[t0 + r], stride, 0, n, tile[r * n:], kind, sign, absmask,
                          nanbound, ones, flip)
        if extract:
            _extract_rows(flat, offs, stride, n, k, t0, rows, inner, tile, signed_words,
                          out_vals, out_idx)
        else:
            _insert_rows(flat, offs, stride, n, k, t0, rows, inner, tile, words, ckeys, cidx,
                         packed, out_vals, out_idx)
        t0 += rows
