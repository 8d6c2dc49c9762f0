"""The quantile family on NumPy arrays: NumPy 2.4's formulas on order statistics found by
selection.  Shared by the NumPy engines (``"cpu"``: its selection is the compiled core's
``kth_many``) and the blocks of the Dask graphs.

A request (:class:`~axisops.requests.QuantileSpec`) becomes a *plan* per sequence: the
stable ranks of the order statistics it reads (``below`` and ``above``: NumPy's
``previous_indexes`` and ``next_indexes``, with ``-1`` turned into ``n - 1``) and the
interpolation weight ``gamma`` of each q.  The plan is NumPy's own arithmetic, in the
dtypes NumPy uses (``q``'s dtype, a Python int ``n`` promoted weakly), so its ranks and
weights are NumPy's bit for bit; NaN sort last, so the ``v`` non-NaN elements of a
sequence are its stable ranks ``0 .. v - 1`` and nanquantile's plan is quantile's with
``n = v``.  The selection then reads only those ranks (one selection per distinct rank,
several q sharing it), and :func:`lerp` is NumPy's ``_lerp`` in the result dtype.  The
torch drop-ins' plan (``flavour="torch"``) is torch's arithmetic instead, in ``x``'s
dtype; their interpolation is ``torch.lerp``, run by the drop-in.
"""

from __future__ import annotations

from collections.abc import Callable
from math import prod
from typing import NamedTuple

import numpy as np

from ..requests import QuantileSpec
from ..rules.quantile import picks, weights_dtype
from .keys import order_keys

__all__ = ["Plan", "lerp", "no_weights", "plan", "plans", "positions", "quantile",
           "valid_counts"]

_FLOAT64 = np.dtype(np.float64)
#: (alpha, beta) of NumPy's continuous methods (Hyndman and Fan's).
_ALPHA_BETA = {"interpolated_inverted_cdf": (0, 1), "hazen": (0.5, 0.5), "weibull": (0, 0),
               "median_unbiased": (1 / 3.0, 1 / 3.0), "normal_unbiased": (3 / 8.0, 3 / 8.0)}

#: selection: ``select(x, axis, ranks)`` -> the elements of stable ranks ``ranks`` (int64,
#: ``(t,)`` for every sequence or ``(sequences, t)``) of every sequence along ``axis``, as an
#: array of ``x``'s shape without the axis and a trailing dimension of ``t``.
Select = Callable[[np.ndarray, int, np.ndarray], np.ndarray]


class Plan(NamedTuple):
    """The ranks (int64, in ``[0, n)``) of the order statistics below and above each q, and
    the weight of the one above (``None`` for a method that picks ``below``); shapes ``(t,)``
    for every sequence alike, ``(sequences, t)`` for one plan per sequence."""

    below: np.ndarray
    above: np.ndarray
    gamma: np.ndarray | None


def _weak(n: int | np.ndarray, dtype: np.dtype) -> int | np.ndarray:
    """``n`` as NumPy meets it beside an array of ``dtype``: a Python int stays one (it is
    promoted weakly, to ``dtype``); the counts of several sequences are cast to ``dtype``,
    which is what the weak promotion does to each."""
    return n if isinstance(n, int) else n.astype(dtype)


def _boundaries(index: np.ndarray, rule: Callable[[np.ndarray, np.ndarray], np.ndarray]
                ) -> np.ndarray:
    """NumPy's ``_discrete_interpolation_to_boundaries``: ``floor(index)`` where ``rule``
    holds, else the next integer, never below 0."""
    previous = np.floor(index)
    following = previous + 1
    gamma = index - previous
    res = np.where(rule(gamma, index), previous, following).astype(np.intp)
    res[res < 0] = 0
    return res


def _virtual(method: str, n: int | np.ndarray, q: np.ndarray) -> np.ndarray:
    """NumPy's virtual index of each q (``_QuantileMethods[method]["get_virtual_index"]``)."""
    dtype = q.dtype
    if method == "inverted_cdf":
        return _boundaries(_weak(n, dtype) * q - 1, lambda gamma, _: gamma == 0)
    if method == "averaged_inverted_cdf":
        return _weak(n, dtype) * q - 1
    if method == "closest_observation":
        return _boundaries(_weak(n, dtype) * q - 1 - 0.5,
                           lambda gamma, index: (gamma == 0) & (np.floor(index) % 2 == 1))
    if method in _ALPHA_BETA:
        alpha, beta = _ALPHA_BETA[method]
        return _weak(n, dtype) * q + (alpha + q * (1 - alpha - beta)) - 1
    scaled = _weak(n - 1, dtype) * q
    if method == "linear":
        return scaled
    if method == "lower":
        return np.floor(scaled).astype(np.intp)
    if method == "higher":
        return np.ceil(scaled).astype(np.intp)
    if method == "nearest":
        return np.around(scaled).astype(np.intp)
    return 0.5 * (np.floor(scaled) + np.ceil(scaled))  # midpoint


def _numpy_plan(spec: QuantileSpec, n: int | np.ndarray) -> Plan:
    q = np.array(spec.q, spec.q_dtype)
    virtual = np.asanyarray(_virtual(spec.method, n, q))
    last = n - 1
    if picks(spec.method, spec.q_dtype):
        ranks = np.broadcast_to(virtual.astype(np.int64), np.broadcast_shapes(
            virtual.shape, np.shape(last))).copy()
        return Plan(ranks, ranks, None)
    # NumPy's _get_indexes: -1 (the last element) above the range and for a NaN index,
    # 0 below it.
    previous = np.floor(virtual)
    following = previous + 1
    beyond = (virtual >= _weak(last, virtual.dtype)) | (
        np.isnan(virtual) if virtual.dtype.kind == "f" else False)
    before = virtual < 0
    previous = np.where(beyond, -1, np.where(before, 0, previous)).astype(np.intp)
    following = np.where(beyond, -1, np.where(before, 0, following)).astype(np.intp)
    # NumPy's _get_gamma, from the previous index as it stands (-1 included).
    gamma = virtual - previous
    if spec.method == "averaged_inverted_cdf":
        gamma = np.where(gamma == 0, 0.5, 1.0)
    elif spec.method == "midpoint":
        gamma = np.where(virtual % 1 == 0, 0.0, 0.5)
    gamma = np.asarray(gamma, dtype=virtual.dtype)
    if spec.weak:
        gamma = gamma.astype(_FLOAT64)  # float(gamma): a Python float
    last_rank = np.asarray(last, np.int64)
    below = np.where(previous < 0, last_rank, previous).astype(np.int64)
    above = np.where(following < 0, last_rank, following).astype(np.int64)
    return Plan(below, above, gamma)


def _torch_plan(spec: QuantileSpec, n: int | np.ndarray) -> Plan:
    """torch's ``quantile_impl``: the ranks ``q * (n - 1)`` in ``x``'s dtype (``n`` the count of
    non-NaN for nanquantile, a rank below 0 made 0), rounded by the method; the weight
    ``rank - floor`` (0.5 for midpoint)."""
    dtype = spec.dtype
    q = np.array(spec.q, dtype)
    ranks = q * (n - 1) if isinstance(n, int) else q * (n - 1).astype(dtype)
    if not isinstance(n, int):
        ranks = np.where(ranks < 0, dtype.type(0), ranks)
    if spec.method == "lower":
        ranks = np.floor(ranks)
    elif spec.method == "higher":
        ranks = np.ceil(ranks)
    elif spec.method == "nearest":
        ranks = np.round(ranks)
    below = ranks.astype(np.int64)
    if spec.method not in ("linear", "midpoint"):
        return Plan(below, below, None)
    gamma = (np.full(ranks.shape, 0.5, dtype) if spec.method == "midpoint"
             else ranks - below.astype(dtype))
    return Plan(below, np.ceil(ranks).astype(np.int64), gamma)


def plan(spec: QuantileSpec, n: int | np.ndarray) -> Plan:
    """The plan of ``spec`` for sequences of ``n`` elements (a Python int), or of the counts
    ``n`` (an int64 array of shape ``(sequences, 1)``, each at least 1).

    >>> from axisops.requests import ArrayMeta
    >>> from axisops.rules.quantile import quantile_spec
    >>> spec = quantile_spec(ArrayMeta((5,), np.dtype("float64")), [0.1, 0.5, 1.0], 0,
    ...                      "linear", False, False)
    >>> p = plan(spec, 5)
    >>> p.below.tolist(), p.above.tolist(), p.gamma.tolist()
    ([0, 2, 4], [1, 3, 4], [0.4, 0.0, 5.0])
    """
    with np.errstate(all="ignore"):
        if spec.flavour == "torch":
            return _torch_plan(spec, n)
        return _numpy_plan(spec, n)


def lerp(below: np.ndarray, above: np.ndarray, gamma: np.ndarray, spec: QuantileSpec
         ) -> np.ndarray:
    """NumPy's ``_lerp(below, above, gamma)`` in the result dtype, operation by operation:
    ``below + (above - below) * gamma``, or where ``gamma >= 0.5``, ``above - (above - below)
    * (1 - gamma)``; the difference in ``x``'s dtype (integers wrap, as NumPy's do), ``1 -
    gamma`` in ``gamma``'s (a Python float's, float64, for a weak ``q``), each cast to the
    result dtype as NumPy casts them.  A NaN it makes is NumPy's ``np.nan`` (the sign and
    payload of a NaN from arithmetic depend on the processor and the operands' order; the
    contract's NaN does not).  No floating-point warning is raised.

    >>> from axisops.requests import ArrayMeta
    >>> from axisops.rules.quantile import quantile_spec
    >>> spec = quantile_spec(ArrayMeta((2,), np.dtype("float32")), 0.5, 0, "linear", False,
    ...                      False)
    >>> lerp(np.float32([1.0]), np.float32([2.0]), np.array([0.25]), spec)
    array([1.25], dtype=float32)
    """
    out = spec.out_dtype
    with np.errstate(all="ignore"):
        diff = (above - below).astype(out)
        low = below.astype(out) + diff * gamma.astype(out)
        high = above.astype(out) - diff * (1 - gamma).astype(out)
        values = np.where(gamma >= 0.5, high, low)
    if out.kind == "f" or out.name == "bfloat16":
        values[np.isnan(values)] = np.nan
    return values


def valid_counts(x: np.ndarray, axis: int) -> np.ndarray | None:
    """The number of non-NaN elements of every sequence along ``axis`` (C order of ``x``
    without the axis), or None when no element is NaN (or ``x`` holds no float)."""
    if x.dtype.kind != "f" and x.dtype.name != "bfloat16":
        return None
    nan = np.isnan(x)
    if not nan.any():
        return None
    counts = x.shape[axis] - np.count_nonzero(nan, axis=axis)
    return counts.reshape(-1).astype(np.int64)


def _rows(x: np.ndarray, axis: int) -> np.ndarray:
    moved = np.moveaxis(x, axis, -1)
    return moved.reshape(prod(moved.shape[:-1]), x.shape[axis])


def positions(x: np.ndarray, axis: int, ranks: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The index along ``axis`` of the element of each stable rank, given its value: ``ranks``
    (``(t,)`` or ``(sequences, t)``) and ``values`` (``(sequences, t)``, the elements of those
    ranks) give int64 indices of shape ``(sequences, t)``.  Among the elements equal to the
    value, the one whose place in index order makes up the rank (the stable order's)."""
    rows = _rows(x, axis)
    if rows.shape[0] == 0:
        return np.empty(values.shape, np.int64)
    keys = order_keys(rows)
    wanted = order_keys(values)
    ranks = np.broadcast_to(ranks, values.shape)
    out = np.empty(values.shape, np.int64)
    for j in range(values.shape[1]):
        key = wanted[:, j : j + 1]
        equal = keys == key
        among = ranks[:, j] - np.count_nonzero(keys < key, axis=1)
        seen = np.cumsum(equal, axis=1) - 1
        out[:, j] = np.argmax(equal & (seen == among[:, None]), axis=1)
    return out


def _to_out(a: np.ndarray, spec: QuantileSpec) -> np.ndarray:
    """``(sequences, t)`` (C order of ``x`` without the axis) to ``spec.out_shape``."""
    moved = np.moveaxis(a, -1, 0)
    return np.asarray(moved.reshape(spec.out_shape), order="C")


def plans(spec: QuantileSpec, counts: np.ndarray | None) -> tuple[Plan, np.ndarray | None]:
    """The plan of every sequence and which sequences have no non-NaN element (None: none).

    ``counts``: the non-NaN elements of every sequence (:func:`valid_counts`), or None for
    one plan of ``spec.n`` for all.  A sequence with none reads the lower median of the
    whole sequence (a NaN, as nanmedian gives), with weight 0.
    """
    if counts is None:
        return plan(spec, spec.n), None
    empty = counts == 0
    p = plan(spec, np.maximum(counts, 1)[:, None])
    middle = np.int64((spec.n - 1) // 2)
    gamma = None if p.gamma is None else np.where(empty[:, None], 0, p.gamma).astype(
        p.gamma.dtype)
    return Plan(np.where(empty[:, None], middle, p.below),
                np.where(empty[:, None], middle, p.above), gamma), empty


def no_weights(spec: QuantileSpec, shape: tuple[int, ...]) -> np.ndarray:
    """The weights of a method that picks ``below``: zeros of :func:`weights_dtype`'s."""
    return np.zeros(shape, weights_dtype(spec))


def quantile(x: np.ndarray, spec: QuantileSpec, select: Select, parts: bool = False):
    """The quantiles of ``x`` for ``spec`` (an array of ``spec.out_shape`` and ``out_dtype``)
    with the order statistics ``select`` finds; ``parts``: instead, ``(below, below_indices,
    above, above_indices, weights)``, each of ``spec.out_shape``: the order statistics read,
    their int64 indices along the axis and the weight of ``above`` (``gamma``, of
    :func:`~axisops.rules.quantile.weights_dtype`; zeros for the methods that pick
    ``below``).

    For nanquantile a sequence with no non-NaN element gives NaN (its parts: the lower
    median of the whole sequence, a NaN itself, as nanmedian's).
    """
    axis, n = spec.axis, spec.n
    sequences = prod(spec.shape) // n
    p, empty = plans(spec, valid_counts(x, axis) if spec.skipnan else None)
    t = p.below.shape[-1]
    wanted = p.below if p.gamma is None else np.concatenate([p.below, p.above], axis=-1)
    if sequences == 0:
        got = np.empty((0, wanted.shape[-1]), x.dtype)
    elif wanted.ndim == 1:
        unique, back = np.unique(wanted, return_inverse=True)
        got = select(x, axis, unique).reshape(sequences, unique.size)[:, back]
    else:
        got = select(x, axis, np.ascontiguousarray(wanted)).reshape(sequences, -1)
    below = got[:, :t]
    above = below if p.gamma is None else got[:, t:]
    if parts:
        weights = (no_weights(spec, (sequences, t)) if p.gamma is None
                   else np.broadcast_to(p.gamma, (sequences, t)))
        below_at = positions(x, axis, p.below, below)
        above_at = below_at if p.gamma is None else positions(x, axis, p.above, above)
        return tuple(_to_out(a, spec) for a in (below, below_at, above, above_at, weights))
    values = below if p.gamma is None else lerp(below, above, p.gamma, spec)
    values = values.astype(spec.out_dtype, copy=empty is not None and bool(empty.any()))
    if empty is not None:
        values[empty] = np.nan
    return _to_out(values, spec)
