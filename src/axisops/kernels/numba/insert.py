"""The insert strategy: short sequences, many per call.

Keys go to a tile first, in one vectorised pass (over many sequences at once
when they lie back to back in memory, as the rows of a C-order array do).
Then, per sequence:

- **extraction** (keys of up to 32 bits, small k): every key is packed with
  its index into one word (:func:`.select.pack`, whose plain ``>`` is the
  tie rule), and the k best are taken one at a time by a maximum over the
  words (a vectorised reduction), each winner zeroed after it is taken.  No
  branch depends on the data, so a short row costs about ``k * n / lanes``
  vector steps;
- **insertion** (otherwise): every key is offered to a best-first array of at
  most k (:func:`.select.insert_best`, or packed words through
  :func:`.select.insert_word`), which most keys leave after one
  comparison.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .keys import fill_keys
from .select import insert_best, insert_word, pack, unpack_index, write_row

__all__ = ["CHUNK", "EXTRACT_MAX_K", "topk_insert_rows"]

#: up to this k, packed keys are selected by k maximum reductions: on 64..512-element
#: rows that beats insertion up to about k = 16 (measured, float32, AVX-512).
EXTRACT_MAX_K = 16
#: keys per tile: sequences back to back in memory get their keys in one pass of this
#: many elements (a call per short sequence would cost as much as the sequence).
CHUNK = 8192


@njit(inline="always")
def _extract(words, n, k, cidx):
    """The indices of the k largest of the n packed ``words``, best first (zeroes them)."""
    zero = np.uint64(0)
    for j in range(k):
        best = zero
        for i in range(n):
            best = max(best, words[i])
        i = unpack_index(best)
        words[i] = zero
        cidx[j] = i


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
    per_tile = max(1, CHUNK // n)
    tile = np.empty(per_tile * n, flat.dtype)
    packed = flat.itemsize <= 4 and n <= 0xFFFFFFFF
    extract = packed and k <= EXTRACT_MAX_K
    words = np.empty(n if packed else 1, np.uint64)
    ckeys = np.empty(k, flat.dtype)
    cidx = np.empty(k, np.int64)
    for t0 in range(q0, q1, per_tile):
        rows = min(per_tile, q1 - t0)
        if _back_to_back(offs, t0, rows, n, stride):
            fill_keys(flat, offs[t0], 1, 0, rows * n, tile, kind, sign, absmask, nanbound,
                      ones, flip)
        else:
            for r in range(rows):
                fill_keys(flat, offs[t0 + r], stride, 0, n, tile[r * n:], kind, sign, absmask,
                          nanbound, ones, flip)
        for r in range(rows):
            at = r * n
            if extract:
                for i in range(n):
                    words[i] = pack(tile[at + i], i)
                _extract(words, n, k, cidx)
            elif packed:
                count = 0
                for i in range(n):
                    count = insert_word(words, count, k, pack(tile[at + i], i))
                for j in range(k):
                    cidx[j] = unpack_index(words[j])
            else:
                count = 0
                for i in range(n):
                    count = insert_best(ckeys, cidx, count, k, tile[at + i], i)
            q = t0 + r
            write_row(flat, offs[q], stride, cidx, k, q, inner, out_vals, out_idx)
