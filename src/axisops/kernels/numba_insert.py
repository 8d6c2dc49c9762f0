"""The insert strategy: short sequences, keys computed on the fly.

Each sequence is read once; every element's key is computed as it is read and
offered to a best-first array of at most k (:func:`.numba_select.insert_best`,
or one packed word per candidate for keys of up to 32 bits).  For ``k <=
NETWORK_K`` packed words enter through a min/max network instead of a search
loop, which has no data-dependent exit to mispredict.  Sequences are taken many
per call, so the per-sequence cost is the loop alone.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .numba_keys import order_key
from .numba_select import insert_best, insert_word, pack, unpack_index, write_row

__all__ = ["NETWORK_K", "topk_insert_rows"]

#: up to this k, packed words enter through the branch-free network; beyond, its k
#: min/max steps per accepted element cost more than the search loop's few compares.
NETWORK_K = 16


@njit(inline="always")
def _network(words, k, word):
    """Insert ``word`` into the sorted ``words[:k]`` (0 = empty) by a min/max network."""
    for j in range(k - 1, 0, -1):
        words[j] = max(words[j], min(words[j - 1], word))
    words[0] = max(words[0], word)


@njit(nogil=True, cache=True)
def topk_insert_rows(flat, offs, stride, n, k, q0, q1, inner, kind, sign, absmask, nanbound,
                     ones, flip, out_vals, out_idx):
    """The insert strategy for sequences ``q0 .. q1-1``, each of length ``n``."""
    words = np.zeros(k, np.uint64)
    ckeys = np.empty(k, flat.dtype)
    cidx = np.empty(k, np.int64)
    packed = flat.itemsize <= 4 and n <= 0xFFFFFFFF
    for q in range(q0, q1):
        base = offs[q]
        if packed:
            words[:] = 0
            count = 0
            for i in range(n):
                key = order_key(flat[base + i * stride], kind, sign, absmask, nanbound, ones,
                                flip)
                word = pack(key, i)
                if k <= NETWORK_K:
                    if word > words[k - 1]:
                        _network(words, k, word)
                else:
                    count = insert_word(words, count, k, word)
            for j in range(k):
                cidx[j] = unpack_index(words[j])
        else:
            count = 0
            for i in range(n):
                key = order_key(flat[base + i * stride], kind, sign, absmask, nanbound, ones,
                                flip)
                count = insert_best(ckeys, cidx, count, k, key, i)
        write_row(flat, base, stride, cidx, k, q, inner, out_vals, out_idx)
