"""Selection and sorting of (key, index) candidate pairs, best first.

"Better" is a strict total order: a larger key, or an equal key and a lower
index.  Indices within one sequence are unique, so any correct selection or
sort gives the same result — stability is not needed, and the thread count
or the order candidates arrive in cannot change the answer.
"""

from __future__ import annotations

from numba import njit

__all__ = ["SORTED_K", "better", "select_best", "sort_best"]

_INSERTION = 24
#: up to this k, :func:`select_best` selects by insertion and leaves the k sorted.
SORTED_K = 32


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
def _insertion_select(keys, idx, m, k):
    """The k best of ``m`` pairs to the front, sorted best first, by insertion.

    Pairs past the first k are compared with the k-th best only, so for small
    k almost every one costs a single, well-predicted comparison.
    """
    filled = 0
    for i in range(m):
        kk, ii = keys[i], idx[i]
        if filled == k:
            if not better(kk, ii, keys[k - 1], idx[k - 1]):
                continue
            j = k - 1
        else:
            j = filled
            filled += 1
        while j > 0 and better(kk, ii, keys[j - 1], idx[j - 1]):
            keys[j] = keys[j - 1]
            idx[j] = idx[j - 1]
            j -= 1
        keys[j] = kk
        idx[j] = ii


@njit(nogil=True)
def select_best(keys, idx, m, k):
    """Reorder ``keys[:m]``/``idx[:m]`` so the first ``k`` are the ``k`` best.

    For ``k <= SORTED_K`` they also come sorted best first (insertion is the
    fastest selection there: a quickselect's comparisons mispredict half the
    time); larger k uses a quickselect and leaves them in no particular order.
    """
    if k <= 0:
        return
    if k <= SORTED_K:
        _insertion_select(keys, idx, m, k)
        return
    if k >= m:
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
def sort_best(keys, idx, m):
    """Sort ``keys[:m]``/``idx[:m]`` best first (introsort)."""
    if m < 2:
        return
    stack = [(0, m - 1, 2 * (64 - _leading_zeros(m)))]
    while stack:
        lo, hi, depth = stack.pop()
        while hi - lo > _INSERTION and depth > 0:
            depth -= 1
            j, i = _partition(keys, idx, lo, hi)
            if j - lo < hi - i:
                stack.append((i, hi, depth))
                hi = j
            else:
                stack.append((lo, j, depth))
                lo = i
        if hi - lo > _INSERTION:
            _heapsort(keys, idx, lo, hi)
        else:
            _insertion(keys, idx, lo, hi)


@njit(inline="always")
def _leading_zeros(m):
    n = 0
    while m > 0:
        m >>= 1
        n += 1
    return 64 - n
