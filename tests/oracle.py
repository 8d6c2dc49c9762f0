"""An oracle independent of every backend: plain Python, one element at a time.

Top-k sorts each sequence with Python's ``sorted`` on Python numbers (ints are
exact at any size; ``reverse=True`` keeps equal elements in index order, which
is the contract's tie rule in both directions).  NaN is keyed above every
number; a time (datetime64, timedelta64) is its int64, NaT keyed as NaN.  Gather
walks every index position.  Nothing here shares code with ``axisops``.
"""

from __future__ import annotations

import math
from itertools import product

import numpy as np


def _python_values(seq: np.ndarray) -> list:
    if seq.dtype.kind in "mM":  # NaT (INT64_MIN) is the greatest, as NaN
        return [math.nan if v == -(2**63) else v for v in seq.view(np.int64).tolist()]
    if seq.dtype.name in ("float16", "bfloat16"):
        seq = seq.astype(np.float32)
    return seq.tolist()


def _key(v):
    if isinstance(v, float) and math.isnan(v):
        return (1, 0.0)
    return (0, v)


def ref_topk(x: np.ndarray, k: int, axis: int = -1, largest: bool = True):
    """(values, indices) with int64 indices, computed one sequence at a time."""
    x = np.asarray(x)
    axis %= x.ndim
    moved = np.moveaxis(x, axis, -1)
    n = moved.shape[-1]
    values = np.empty(moved.shape[:-1] + (k,), dtype=x.dtype)
    indices = np.empty(moved.shape[:-1] + (k,), dtype=np.int64)
    for pos in product(*map(range, moved.shape[:-1])):
        seq = moved[pos]
        py = _python_values(seq)
        order = sorted(range(n), key=lambda i: _key(py[i]), reverse=largest)[:k]
        indices[pos] = order
        values[pos] = seq[order] if k else seq[:0]
    return np.moveaxis(values, -1, axis), np.moveaxis(indices, -1, axis)


def first_bad_index(index: np.ndarray, n: int):
    """(position, value) of the first index value outside [-n, n-1], or None."""
    for pos in product(*map(range, index.shape)):
        v = int(index[pos])
        if not -n <= v <= n - 1:
            return pos, v
    return None


def ref_gather(x: np.ndarray, dim: int, index: np.ndarray) -> np.ndarray:
    """torch.gather semantics, element by element (index values must be valid)."""
    x, index = np.asarray(x), np.asarray(index)
    dim %= x.ndim
    n = x.shape[dim]
    out = np.empty(index.shape, dtype=x.dtype)
    for pos in product(*map(range, index.shape)):
        v = int(index[pos])
        src = list(pos)
        src[dim] = v + n if v < 0 else v
        out[(*pos, ...)] = x[(*src, ...)]  # 0-d views: a bool scalar would make its byte 1
    return out


def bits(a: np.ndarray) -> np.ndarray:
    """The raw bit patterns of ``a`` (so NaN payloads and -0.0 compare exactly)."""
    a = np.ascontiguousarray(a)
    if a.dtype.kind == "c":
        return a.view(np.dtype(f"u{a.dtype.itemsize // 2}"))
    if a.dtype == np.bool_:
        return a.view(np.uint8)
    return a.view(np.dtype(f"u{a.dtype.itemsize}"))


def assert_same_bits(got, want) -> None:
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    assert np.array_equal(bits(got), bits(want)), (got, want)


def _stable_order(seq: np.ndarray, descending: bool) -> list[int]:
    """The contract's order of one sequence: Python's stable ``sorted`` (with
    ``reverse=True`` equal elements keep their index order too)."""
    py = _python_values(seq)
    return sorted(range(len(py)), key=lambda i: _key(py[i]), reverse=descending)


def _each_sequence(x: np.ndarray, axis: int):
    """``(moved, pos)`` for every sequence ``moved[pos]`` of ``x`` along ``axis``."""
    moved = np.moveaxis(x, axis, -1)
    return moved, list(product(*map(range, moved.shape[:-1])))


def ref_sort(x: np.ndarray, axis: int = -1, descending: bool = False):
    """(values, int64 indices) of the stable sort along ``axis``, one sequence at a time."""
    x = np.asarray(x)
    axis %= x.ndim
    moved, positions = _each_sequence(x, axis)
    values = np.empty(moved.shape, x.dtype)
    indices = np.empty(moved.shape, np.int64)
    for pos in positions:
        order = _stable_order(moved[pos], descending)
        indices[pos] = order
        values[pos] = moved[pos][order] if order else moved[pos][:0]
    return np.moveaxis(values, -1, axis), np.moveaxis(indices, -1, axis)


def ref_kthvalue(x: np.ndarray, k: int, axis: int = -1, keepdims: bool = False):
    """(value, int64 index) of the ``k``-th (1-based) of the stable ascending order."""
    values, indices = ref_sort(x, axis)
    axis %= values.ndim
    # [k - 1] and squeeze: arrays even of 1-D x (a scalar would make a bool's byte 1).
    v = np.take(values, [k - 1], axis=axis).squeeze(axis)
    i = np.take(indices, [k - 1], axis=axis).squeeze(axis)
    if keepdims:
        v, i = np.expand_dims(v, axis), np.expand_dims(i, axis)
    return v, i


def ref_partition(x: np.ndarray, kth, axis: int = -1):
    """(values, int64 indices) of the deterministic partition: the element of stable rank
    ``kth`` at each kth, the others grouped between the kths, each group in index order."""
    x = np.asarray(x)
    axis %= x.ndim
    moved, positions = _each_sequence(x, axis)
    n = moved.shape[-1]
    kths = sorted({k + n if k < 0 else k for k in np.ravel(np.asarray(kth, np.int64)).tolist()})
    values = np.empty(moved.shape, x.dtype)
    indices = np.empty(moved.shape, np.int64)
    for pos in positions:
        rank = [0] * n
        for r, i in enumerate(_stable_order(moved[pos], False)):
            rank[i] = r
        group = [2 * sum(k < rank[i] for k in kths) + (rank[i] in kths) for i in range(n)]
        order = sorted(range(n), key=lambda i: (group[i], i))
        indices[pos] = order
        values[pos] = moved[pos][order] if order else moved[pos][:0]
    return np.moveaxis(values, -1, axis), np.moveaxis(indices, -1, axis)
