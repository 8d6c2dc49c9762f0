"""Candidates: (key, index) pairs, the tie rule, and their selection and sorting.

**The tie rule lives here.**  "Better" is a strict total order: a larger key,
or an equal key and a lower index (:func:`better`).  Keys of up to 32 bits may
travel with their index in one 64-bit word, ``key << 32 | (2**32 - 1 - index)``
(:func:`pack`), whose plain ``>`` is the same order (or, flipped at the top bit,
as a signed word: :func:`pack_signed`).  Every kernel keeps its
best candidates with :func:`insert_best` (pairs) or :func:`insert_word`
(words), selects with :func:`select_best` and sorts with :func:`sort_best` (both:
:func:`finish_best`).
Indices within one sequence are unique, so any correct selection or sort gives
the same result: stability is never needed, and neither the thread count nor
the order candidates arrive in can change the answer.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = [
    "SORTED_K",
    "better",
    "finish_best",
    "insert_best",
    "insert_later",
    "insert_word",
    "out_place",
    "pack",
    "pack_signed",
    "partition_best",
    "select_best",
    "sort_best",
    "unpack_index",
    "write_one",
    "write_row",
]

#: ranges this short are finished by insertion sort inside the quickselect and introsort.
_INSERTION = 24
#: up to this k, :func:`select_best` selects by insertion and leaves the k sorted: a
#: quickselect's comparisons mispredict half the time, and for k=10 over 2k candidates
#: insertion measured 5x faster; from about 32 on, the quickselect wins.
SORTED_K = 32
#: the low 32 bits of a packed word.
_LOW32 = np.uint64(0xFFFFFFFF)


@njit(inline="always")
def pack(key, i):
    """``key << 32 | (2**32 - 1 - i)``: one word whose ``>`` is :func:`better` (keys of
    at most 32 bits, ``0 <= i < 2**32 - 1``); never 0, so 0 can mean "empty"."""
    return (np.uint64(key) << np.uint64(32)) | (_LOW32 - np.uint64(i))


_TOP = np.uint64(1 << 63)


@njit(inline="always")
def pack_signed(key, i):
    """:func:`pack` with its top bit flipped, as an int64: the same order under a signed
    ``>``, which x86 compares in one vector instruction (AVX2 has no unsigned 64-bit
    compare or maximum); never the smallest int64, so that can mean "empty"."""
    return np.int64(pack(key, i) ^ _TOP)


@njit(inline="always")
def unpack_index(word):
    """The index packed in ``word`` (see :func:`pack`; :func:`pack_signed` keeps the
    same low bits)."""
    return np.int64(_LOW32 - (np.uint64(word) & _LOW32))


@njit(inline="always")
def better(ka, ia, kb, ib):
    """True when (ka, ia) comes before (kb, ib)."""
    return ka > kb or (ka == kb and ia < ib)


@njit(inline="always")
def _swap(keys, idx, a, b):
    keys[a], keys[b] = keys[b], keys[a]
    idx[a], idx[b] = idx[b], idx[a]


@njit(inline="always")
def _median_to_mid(keys, idx, lo, mid, hi):
    if better(keys[mid], idx[mid], keys[lo], idx[lo]):
        _swap(keys, idx, mid, lo)
    if better(keys[hi], idx[hi], keys[lo], idx[lo]):
        _swap(keys, idx, hi, lo)
    if better(keys[hi], idx[hi], keys[mid], idx[mid]):
        _swap(keys, idx, hi, mid)


@njit(inline="always")
def _partition(keys, idx, lo, hi):
    """Hoare partition around the median of three; returns (j, i) with j < i."""
    mid = (lo + hi) >> 1
    _median_to_mid(keys, idx, lo, mid, hi)
    pk, pi = keys[mid], idx[mid]
    i, j = lo, hi
    while i <= j:
        while better(keys[i], idx[i], pk, pi):
            i += 1
        while better(pk, pi, keys[j], idx[j]):
            j -= 1
        if i <= j:
            _swap(keys, idx, i, j)
            i += 1
            j -= 1
    return j, i


@njit(inline="always")
def _sift_down(keys, idx, lo, root, end):
    # A heap whose top is the *worst* element, so heapsort yields best first.
    while True:
        child = 2 * root + 1
        if child >= end:
            return
        a, b = lo + child, lo + child + 1
        if child + 1 < end and better(keys[a], idx[a], keys[b], idx[b]):
            a = b
            child += 1
        r = lo + root
        if better(keys[a], idx[a], keys[r], idx[r]):
            return
        _swap(keys, idx, r, a)
        root = child


@njit(nogil=True)
def _heapsort(keys, idx, lo, hi):
    n = hi - lo + 1
    for start in range(n // 2 - 1, -1, -1):
        _sift_down(keys, idx, lo, start, n)
    for end in range(n - 1, 0, -1):
        _swap(keys, idx, lo, lo + end)
        _sift_down(keys, idx, lo, 0, end)


@njit(inline="always")
def _insertion(keys, idx, lo, hi):
    for i in range(lo + 1, hi + 1):
        k, v = keys[i], idx[i]
        j = i - 1
        while j >= lo and better(k, v, keys[j], idx[j]):
            keys[j + 1] = keys[j]
            idx[j + 1] = idx[j]
            j -= 1
        keys[j + 1] = k
        idx[j + 1] = v


@njit(inline="always")
def insert_best(keys, idx, count, k, key, i):
    """Insert the pair ``(key, i)`` into ``keys[:count]``/``idx[:count]``, kept sorted
    best first and at most ``k`` long; returns the new count.

    Once ``k`` pairs are kept, a pair enters only if it is better than the k-th
    (one well-predicted comparison for most); it lands after every pair it does
    not beat.  Pairs arriving in increasing index order thus keep the first of
    equal keys, which is the tie rule.
    """
    if count == k:
        if not better(key, i, keys[k - 1], idx[k - 1]):
            return count
        j = k - 1
    else:
        j = count
        count += 1
    while j > 0 and better(key, i, keys[j - 1], idx[j - 1]):
        keys[j] = keys[j - 1]
        idx[j] = idx[j - 1]
        j -= 1
    keys[j] = key
    idx[j] = i
    return count


@njit(inline="always")
def insert_later(keys, idx, count, k, key, i):
    """:func:`insert_best` for a pair whose index ``i`` is after every kept one (the
    pairs of one sequence offered in index order): it lands after every equal key,
    which is the tie rule, so no index is compared (the columns' walk, where the
    index compares cost a branch each)."""
    if count == k:
        if key <= keys[k - 1]:
            return count
        j = k - 1
    else:
        j = count
        count += 1
    while j > 0 and key > keys[j - 1]:
        keys[j] = keys[j - 1]
        idx[j] = idx[j - 1]
        j -= 1
    keys[j] = key
    idx[j] = i
    return count


@njit(inline="always")
def insert_word(words, count, k, word):
    """:func:`insert_best` for single values (packed words, or plain keys where ties
    need no rule); returns the new count."""
    if count == k:
        if word <= words[k - 1]:
            return count
        j = k - 1
    else:
        j = count
        count += 1
    while j > 0 and word > words[j - 1]:
        words[j] = words[j - 1]
        j -= 1
    words[j] = word
    return count


@njit(inline="always")
def _insertion_select(keys, idx, m, k):
    """The k best of ``m`` pairs to the front, sorted best first, by insertion."""
    count = 0
    for i in range(m):
        count = insert_best(keys, idx, count, k, keys[i], idx[i])


@njit(nogil=True)
def partition_best(keys, idx, m, k):
    """Reorder ``keys[:m]``/``idx[:m]`` so the first ``k`` are the ``k`` best, in no
    particular order (a quickselect: O(m) on any input, which is what compacting a
    candidate buffer needs; a heapsort takes over if it ever goes deep)."""
    if k <= 0 or k >= m:
        return
    lo, hi, target = 0, m - 1, k - 1
    budget = 64
    while hi - lo > _INSERTION:
        if budget == 0:
            _heapsort(keys, idx, lo, hi)
            return
        budget -= 1
        j, i = _partition(keys, idx, lo, hi)
        if target <= j:
            hi = j
        elif target >= i:
            lo = i
        else:
            return
    _insertion(keys, idx, lo, hi)


@njit(nogil=True)
def select_best(keys, idx, m, k):
    """Reorder ``keys[:m]``/``idx[:m]`` so the first ``k`` are the ``k`` best.

    For ``k <= SORTED_K`` they also come sorted best first (insertion is the
    fastest selection there when most pairs are refused at once: a quickselect's
    comparisons mispredict half the time); larger k uses :func:`partition_best`.
    """
    if k <= 0:
        return
    if k <= SORTED_K:
        _insertion_select(keys, idx, m, k)
    else:
        partition_best(keys, idx, m, k)


@njit(nogil=True)
def sort_best(keys, idx, m):
    """Sort ``keys[:m]``/``idx[:m]`` best first (introsort)."""
    if m < 2:
        return
    # Each pushed range is the larger side, so at most log2(m) <= 64 are pending.
    stack = np.empty((64, 3), np.int64)
    stack[0, 0], stack[0, 1], stack[0, 2] = 0, m - 1, 2 * (64 - _leading_zeros(m))
    top = 1
    while top > 0:
        top -= 1
        lo, hi, depth = stack[top, 0], stack[top, 1], stack[top, 2]
        while hi - lo > _INSERTION and depth > 0:
            depth -= 1
            j, i = _partition(keys, idx, lo, hi)
            if j - lo < hi - i:
                stack[top, 0], stack[top, 1], stack[top, 2] = i, hi, depth
                hi = j
            else:
                stack[top, 0], stack[top, 1], stack[top, 2] = lo, j, depth
                lo = i
            top += 1
        if hi - lo > _INSERTION:
            _heapsort(keys, idx, lo, hi)
        else:
            _insertion(keys, idx, lo, hi)


@njit(inline="always")
def finish_best(keys, idx, m, k, do_sort):
    """The k best of ``m`` candidates to the front of ``keys``/``idx``; sorted best first
    if ``do_sort`` (:func:`select_best` leaves k <= SORTED_K sorted already, larger k
    gets :func:`sort_best`: O(k log k) on any input)."""
    select_best(keys, idx, m, k)
    if do_sort and k > SORTED_K:
        sort_best(keys, idx, k)


@njit(inline="always")
def _leading_zeros(m):
    n = 0
    while m > 0:
        m >>= 1
        n += 1
    return 64 - n


@njit(inline="always")
def out_place(q, inner):
    """``(o, col)``: where sequence ``q``'s results go in the ``(outer, k, inner)``
    outputs."""
    if inner == 1:  # no division: on short rows it costs as much as the stores
        return q, 0
    o = q // inner
    return o, q - o * inner


@njit(inline="always")
def write_one(flat, base, stride, i, j, o, col, out_vals, out_idx):
    """Result ``j`` of the sequence at ``(o, col)``: its element ``i`` (read from the
    input itself, so its bits are the input's) and ``i``."""
    out_vals[o, j, col] = flat[base + i * stride]
    out_idx[o, j, col] = i


@njit(inline="always")
def write_row(flat, base, stride, cidx, k, q, inner, out_vals, out_idx):
    """Row ``q`` of the ``(outer, k, inner)`` outputs: the elements at ``cidx[:k]``
    and their indices."""
    o, col = out_place(q, inner)
    for j in range(k):
        write_one(flat, base, stride, cidx[j], j, o, col, out_vals, out_idx)
