"""The oracle of quantile, nanquantile and nanmedian: a stable sort, then NumPy 2.4's formulas.

Every sequence is sorted stably (NaN last, as the contract orders them), and NumPy's
``_quantile`` is run on the sorted sequence as NumPy's source states it: the virtual
index of each method (``_QuantileMethods``), ``_get_indexes``, ``_get_gamma`` and
``_lerp`` with its ``t >= 0.5`` branch, one sequence at a time (as ``nanquantile`` runs
``_quantile`` on each sequence's non-NaN elements), in the dtypes NumPy computes in; a
NaN the interpolation makes is ``np.nan`` (NumPy's has the sign and payload the processor
gives it).
Where a sequence holds no NaN this is NumPy's ``quantile`` itself (``np.quantile``
partitions where this sorts: the same order statistics); ``tests/test_quantile.py``
checks it against ``np.quantile`` and ``np.nanquantile`` bit for bit.  Where NumPy's
``quantile`` gives NaN for a sequence with a NaN, the contract sorts NaN last and reads
the order statistics the formula asks for.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .sort import sort

__all__ = ["nanmedian", "quantile", "quantile_parts", "torch_quantile_parts"]


def _compute_virtual_index(n, quantiles, alpha, beta):
    return n * quantiles + (alpha + quantiles * (1 - alpha - beta)) - 1


def _get_gamma_mask(shape, default_value, conditioned_value, where):
    out = np.full(shape, default_value)
    np.copyto(out, conditioned_value, where=where, casting="unsafe")
    return out


def _discrete_interpolation_to_boundaries(index, gamma_condition_fun):
    previous = np.floor(index)
    following = previous + 1
    gamma = index - previous
    res = _get_gamma_mask(shape=index.shape, default_value=following,
                          conditioned_value=previous,
                          where=gamma_condition_fun(gamma, index)).astype(np.intp)
    res[res < 0] = 0
    return res


def _closest_observation(n, quantiles):
    def rule(gamma, index):
        return (gamma == 0) & (np.floor(index) % 2 == 1)

    return _discrete_interpolation_to_boundaries((n * quantiles) - 1 - 0.5, rule)


def _inverted_cdf(n, quantiles):
    return _discrete_interpolation_to_boundaries((n * quantiles) - 1, lambda gamma, _: gamma == 0)


#: NumPy's methods: (virtual index, gamma rule; None: the element is taken as it is).
METHODS: dict[str, tuple[Any, Any]] = {
    "inverted_cdf": (_inverted_cdf, None),
    "averaged_inverted_cdf": (
        lambda n, q: (n * q) - 1,
        lambda gamma, _: _get_gamma_mask(gamma.shape, 1.0, 0.5, gamma == 0)),
    "closest_observation": (_closest_observation, None),
    "interpolated_inverted_cdf": (lambda n, q: _compute_virtual_index(n, q, 0, 1),
                                  lambda gamma, _: gamma),
    "hazen": (lambda n, q: _compute_virtual_index(n, q, 0.5, 0.5), lambda gamma, _: gamma),
    "weibull": (lambda n, q: _compute_virtual_index(n, q, 0, 0), lambda gamma, _: gamma),
    "linear": (lambda n, q: (n - 1) * q, lambda gamma, _: gamma),
    "median_unbiased": (lambda n, q: _compute_virtual_index(n, q, 1 / 3.0, 1 / 3.0),
                        lambda gamma, _: gamma),
    "normal_unbiased": (lambda n, q: _compute_virtual_index(n, q, 3 / 8.0, 3 / 8.0),
                        lambda gamma, _: gamma),
    "lower": (lambda n, q: np.floor((n - 1) * q).astype(np.intp), None),
    "higher": (lambda n, q: np.ceil((n - 1) * q).astype(np.intp), None),
    "nearest": (lambda n, q: np.around((n - 1) * q).astype(np.intp), None),
    "midpoint": (lambda n, q: 0.5 * (np.floor((n - 1) * q) + np.ceil((n - 1) * q)),
                 lambda gamma, index: _get_gamma_mask(gamma.shape, 0.5, 0.0, index % 1 == 0)),
}


def _lerp(a, b, t):
    diff_b_a = b - a
    lerp_interpolation = np.add(a, diff_b_a * t, out=...)
    np.subtract(b, diff_b_a * (1 - t), out=lerp_interpolation, where=t >= 0.5,
                casting="unsafe", dtype=type(lerp_interpolation.dtype))
    return lerp_interpolation


def _plan(values_count: int, quantiles: np.ndarray, method: str, weak_q: bool):
    """NumPy's ``_quantile`` up to the values, for a sequence of ``values_count``: the
    positions ``(previous, next)`` in the sorted sequence (``-1``: the last) and the weight
    ``gamma``, or ``(indexes, None, None)`` where NumPy takes the element as it is."""
    get_virtual_index, fix_gamma = METHODS[method]
    virtual_indexes = np.asanyarray(get_virtual_index(values_count, quantiles))
    if fix_gamma is None or (method == "linear" and virtual_indexes.dtype.kind in "iu"):
        return virtual_indexes, None, None
    previous_indexes = np.floor(virtual_indexes, out=...)
    next_indexes = np.add(previous_indexes, 1, out=...)
    above = virtual_indexes >= values_count - 1
    previous_indexes[above] = -1
    next_indexes[above] = -1
    below = virtual_indexes < 0
    previous_indexes[below] = 0
    next_indexes[below] = 0
    if virtual_indexes.dtype.kind == "f":
        nans = np.isnan(virtual_indexes)
        previous_indexes[nans] = -1
        next_indexes[nans] = -1
    previous_indexes = previous_indexes.astype(np.intp)
    next_indexes = next_indexes.astype(np.intp)
    gamma = np.asanyarray(virtual_indexes - previous_indexes)
    gamma = np.asanyarray(fix_gamma(gamma, virtual_indexes), dtype=virtual_indexes.dtype)
    if weak_q:
        gamma = float(gamma)
    return previous_indexes, next_indexes, gamma


def _one(arr: np.ndarray, quantiles: np.ndarray, method: str, weak_q: bool) -> np.ndarray:
    """NumPy's ``_quantile`` of one sorted sequence ``arr`` (no weights), as an array of
    ``quantiles.shape``; ``arr`` is sorted already, so NumPy's partitions change nothing."""
    previous_indexes, next_indexes, gamma = _plan(arr.shape[0], quantiles, method, weak_q)
    if next_indexes is None:  # taken by a 1-D index: an array, a bool's byte kept
        return np.take(arr, np.reshape(previous_indexes, -1)).reshape(np.shape(previous_indexes))
    values = np.asarray(_lerp(arr[previous_indexes], arr[next_indexes], gamma))
    if values.dtype.kind == "f" or values.dtype.name == "bfloat16":
        values[np.isnan(values)] = np.nan  # the contract's NaN
    return values


def _at(seq: np.ndarray, index: np.ndarray) -> np.ndarray:
    """``seq[index]`` as an array of ``index``'s shape (a 0-d index too: a bool keeps its byte)."""
    return np.take(seq, np.reshape(index, -1)).reshape(np.shape(index))


def _sequences(x: np.ndarray, axis: int):
    """``(moved, positions)``: ``x``'s sorted sequences (the stable order, NaN last) along the
    last axis of ``moved``, and the positions of every sequence."""
    values, _ = sort(x, axis)
    moved = np.moveaxis(values, axis, -1)
    return moved, list(np.ndindex(moved.shape[:-1]))


def quantile(x: np.ndarray, q: Any, axis: int = -1, method: str = "linear",
             keepdims: bool = False, skipnan: bool = False, dtype: Any = None) -> np.ndarray:
    """``quantile`` (or ``nanquantile``: ``skipnan``) of ``x`` along ``axis``: NumPy's formulas
    on each sequence's stable sort, with NaN last.  ``q`` as the caller gave it (a Python
    scalar is promoted weakly, as NumPy promotes it); the result has ``q``'s shape first.
    ``dtype``: the result dtype, for sequences that give no number of their own
    (nanquantile of a sequence with no non-NaN element: NaN).

    Examples
    --------
    >>> x = np.array([[4.0, 1.0, 3.0, np.nan], [2.0, 2.0, 8.0, 6.0]])
    >>> quantile(x, [0.25, 0.5], axis=1).tolist()
    [[2.5, 2.0], [3.5, 4.0]]
    >>> quantile(x, 0.5, axis=1, skipnan=True).tolist()
    [3.0, 4.0]
    """
    with np.errstate(all="ignore"):  # axisops raises no floating-point warning
        return _quantile(x, q, axis, method, keepdims, skipnan, dtype)


def _quantile(x, q, axis, method, keepdims, skipnan, dtype):
    weak_q = type(q) in (int, float)
    quantiles = np.asanyarray(q)
    x = np.asarray(x)
    axis %= x.ndim
    moved, positions = _sequences(x, axis)
    rows = []
    for pos in positions:
        seq = moved[pos]
        if skipnan and (seq.dtype.kind == "f" or seq.dtype.name == "bfloat16"):
            seq = seq[~np.isnan(seq)]
        rows.append(None if seq.size == 0 else _one(seq, quantiles, method, weak_q))
    got = [r for r in rows if r is not None]
    out_dtype = np.dtype(dtype) if dtype is not None else (
        got[0].dtype if got else np.dtype(np.float64))
    out = np.empty(moved.shape[:-1] + quantiles.shape, out_dtype)
    for pos, r in zip(positions, rows):
        out[pos] = np.nan if r is None else r
    out = np.moveaxis(out, tuple(range(moved.ndim - 1, out.ndim)), tuple(range(quantiles.ndim)))
    if keepdims:
        out = np.expand_dims(out, quantiles.ndim + axis)
    return np.asarray(out, order="C")


def quantile_parts(x: np.ndarray, q: Any, axis: int = -1, method: str = "linear",
                   keepdims: bool = False, skipnan: bool = False, dtype: Any = None
                   ) -> tuple[np.ndarray, ...]:
    """What :func:`quantile` interpolates: ``(below, below_indices, above, above_indices,
    weights)``, each of the result's shape: the elements NumPy's formulas read from the
    stable sort (their bits), their indices along ``axis``, and the weight of ``above``
    (``gamma``: float64 for a Python scalar ``q``, else NumPy's virtual index's dtype;
    zeros of ``dtype`` where the method takes ``below`` as it is).  For nanquantile, a
    sequence with no non-NaN element reads the lower median of the whole sequence (a NaN).

    >>> parts = quantile_parts(np.array([4.0, 1.0, 3.0]), 0.25)
    >>> [a.tolist() for a in parts]
    [1.0, 1, 3.0, 2, 0.5]
    """
    weak_q = type(q) in (int, float)
    quantiles = np.asanyarray(q)
    x = np.asarray(x)
    axis %= x.ndim
    values, order = sort(x, axis)
    moved, moved_order = np.moveaxis(values, axis, -1), np.moveaxis(order, axis, -1)
    n = moved.shape[-1]
    shape = moved.shape[:-1] + quantiles.shape
    below, above = np.empty(shape, x.dtype), np.empty(shape, x.dtype)
    below_at, above_at = np.empty(shape, np.int64), np.empty(shape, np.int64)
    weights: list = []
    for pos in np.ndindex(moved.shape[:-1]):
        seq = moved[pos]
        count = n - int(np.isnan(seq).sum()) if skipnan and (
            seq.dtype.kind == "f" or seq.dtype.name == "bfloat16") else n
        if count == 0:
            low = high = np.full(quantiles.shape, (n - 1) // 2, np.intp)
            gamma = None
        else:
            low, high, gamma = _plan(count, quantiles, method, weak_q)
            low = np.where(low < 0, count - 1, low)
            high = low if high is None else np.where(high < 0, count - 1, high)
        below[pos], below_at[pos] = _at(seq, low), _at(moved_order[pos], low)
        above[pos], above_at[pos] = _at(seq, high), _at(moved_order[pos], high)
        weights.append((pos, gamma))
    known = [np.asarray(g) for _, g in weights if g is not None]
    weight = np.zeros(shape, known[0].dtype if known else np.dtype(dtype or np.float64))
    for pos, gamma in weights:
        if gamma is not None:
            weight[pos] = gamma
    lead = tuple(range(moved.ndim - 1, len(shape)))
    parts = [np.moveaxis(a, lead, tuple(range(quantiles.ndim)))
             for a in (below, below_at, above, above_at, weight)]
    if keepdims:
        parts = [np.expand_dims(a, quantiles.ndim + axis) for a in parts]
    return tuple(np.asarray(a, order="C") for a in parts)


def nanmedian(x: np.ndarray, axis: int = -1, keepdims: bool = False
              ) -> tuple[np.ndarray, np.ndarray]:
    """The lower median of each sequence's non-NaN elements and its index: rank ``(v - 1) //
    2`` of the stable order for ``v`` non-NaN elements (NaN sort last), or ``(n - 1) // 2``
    when all ``n`` are NaN (a NaN, as ``torch.nanmedian`` gives).

    >>> values, indices = nanmedian(np.array([3.0, np.nan, 1.0, 2.0, np.nan]))
    >>> float(values), int(indices)
    (2.0, 3)
    """
    x = np.asarray(x)
    axis %= x.ndim
    values, indices = sort(x, axis)
    n = x.shape[axis]
    counts = n - (np.isnan(x).sum(axis=axis, keepdims=True) if x.dtype.kind == "f" or
                  x.dtype.name == "bfloat16" else 0)
    rank = np.where(counts > 0, (counts - 1) // 2, (n - 1) // 2)
    rank = np.broadcast_to(rank, values.shape[:axis] + (1,) + values.shape[axis + 1:])
    picked = np.take_along_axis(values, rank, axis), np.take_along_axis(indices, rank, axis)
    if not keepdims:
        picked = tuple(a.squeeze(axis) for a in picked)
    return np.asarray(picked[0], order="C"), np.asarray(picked[1], np.int64, order="C")


def torch_quantile_parts(x: np.ndarray, q: np.ndarray, axis: int, method: str, skipnan: bool
                         ) -> tuple[np.ndarray, ...]:
    """The order statistics ``torch.quantile`` (``nanquantile``: ``skipnan``) reads on the
    stable sort, their indices and the weight it interpolates them with, as ``(below,
    below_indices, above, above_indices, weight)``, each of ``q``'s shape then ``x``'s
    without ``axis``: torch's ranks ``q * (n - 1)`` in ``x``'s dtype (``q`` already of it;
    ``n`` the count of non-NaN for nanquantile, a rank below 0 made 0), rounded by the
    method.  The interpolation is ``torch.lerp``'s, which belongs to torch."""
    x = np.asarray(x)
    axis %= x.ndim
    values, order = sort(x, axis)
    moved, moved_order = np.moveaxis(values, axis, -1), np.moveaxis(order, axis, -1)
    n = moved.shape[-1]
    shape = moved.shape[:-1] + q.shape
    below, above = np.empty(shape, x.dtype), np.empty(shape, x.dtype)
    below_at, above_at = np.empty(shape, np.int64), np.empty(shape, np.int64)
    weight = np.zeros(shape, x.dtype)
    rounding = {"lower": np.floor, "higher": np.ceil, "nearest": np.round}
    for pos in np.ndindex(moved.shape[:-1]):
        seq = moved[pos]
        count = n - int(np.isnan(seq).sum()) if skipnan else n
        ranks = q * x.dtype.type(count - 1)
        ranks = np.where(ranks < 0, x.dtype.type(0), ranks)
        ranks = rounding.get(method, lambda r: r)(ranks)
        low = ranks.astype(np.int64)
        high = np.ceil(ranks).astype(np.int64) if method in ("linear", "midpoint") else low
        below[pos], below_at[pos] = seq[low], moved_order[pos][low]
        above[pos], above_at[pos] = seq[high], moved_order[pos][high]
        if method == "linear":
            weight[pos] = ranks - low.astype(x.dtype)
        elif method == "midpoint":
            weight[pos] = 0.5
    lead = tuple(range(moved.ndim - 1, len(shape)))
    return tuple(np.asarray(np.moveaxis(a, lead, tuple(range(q.ndim))), order="C")
                 for a in (below, below_at, above, above_at, weight))
