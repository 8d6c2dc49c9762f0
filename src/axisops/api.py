"""The public operations: each one call of the runner, with its own rules.

Each function validates and normalises every argument (through the rules,
:mod:`axisops.rules`) before any engine runs, so every engine sees the same
clean request and every error comes from one place; the runner
(:mod:`axisops.runner`) takes the array with its adapter, has the registry
choose the engine once and gives the result back in the array's type::

    call = Call(x, backend)
    values, indices = call.run(topk_spec(call.meta(), k, axis, ...))

The same lines serve every array type: NumPy arrays, torch tensors (calls torch
could observe run through the ``axisops::`` torch operators), JAX arrays and
tracers, CuPy and Dask arrays.  Each function is a
:func:`~axisops.errors.boundary`: errors leaving it carry its name.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from ._forksafe import imported
from .errors import boundary
from .rules.arguments import as_bool, as_choice
from .rules.operations import (
    gather_spec,
    kthvalue_spec,
    median_spec,
    partition_spec,
    sort_spec,
    take_along_axis_shapes,
    topk_spec,
)
from .rules.quantile import nanmedian_spec, quantile_spec
from .runner import Call

__all__ = [
    "KthValue",
    "Median",
    "TopK",
    "argpartition",
    "argsort",
    "gather",
    "kthvalue",
    "median",
    "nanmedian",
    "nanquantile",
    "partition",
    "quantile",
    "sort",
    "take_along_axis",
    "top_k",
    "topk",
]


class TopK(NamedTuple):
    """The result of :func:`topk`: ``values`` and their ``indices`` along the axis.

    Attributes
    ----------
    values : array
        The selected elements, in the input's array type and dtype (their bits
        are the input's own: NaN payloads and the sign of zero survive).
    indices : array
        Their positions along the axis (int64 unless ``index_dtype`` says otherwise).

    Examples
    --------
    >>> import axisops
    >>> values, indices = axisops.topk([3, 1, 2], 2)
    >>> values.tolist(), indices.tolist()
    ([3, 2], [0, 2])
    """

    values: Any
    indices: Any


def _topk(
    x: Any,
    k: Any,
    axis: Any,
    largest: Any,
    sorted: Any,
    index_dtype: Any,
    backend: str | None,
) -> TopK:
    call = Call(x, backend)
    ax = _along(call, axis)
    return TopK(*call.run(topk_spec(call.meta(), k, ax, largest, sorted, index_dtype)))


def _along(call: Call, axis: Any) -> Any:
    """``axis`` for the spec: ``None`` flattens ``x`` first, in C order as NumPy's
    ``axis=None`` does (``runner.Call.reshape``), and selects along its one axis."""
    if axis is None:
        call.reshape((-1,))
        return 0
    return axis


@boundary("topk")
def topk(
    x: Any,
    k: int,
    axis: int | None = -1,
    *,
    largest: bool = True,
    sorted: bool = True,
    index_dtype: Any = None,
    backend: str | None = None,
) -> TopK:
    """The ``k`` greatest (or least) elements of every sequence along ``axis``.

    Ties go to the lower index, in both directions; NaN is greater than +inf;
    -0.0 equals +0.0; integers compare exactly; NaT is greater than every time
    (``datetime64``, ``timedelta64``).  ``largest=False`` gives the first ``k``
    entries of ``np.argsort(x, axis, kind="stable")``.

    Parameters
    ----------
    x : array_like
        Any rank >= 1 (any rank with ``axis=None``), any layout: NumPy arrays (and
        array-likes), torch tensors, JAX arrays and tracers, CuPy and Dask arrays.
        NumPy subclasses (``np.memmap``, ``np.matrix``, your own) are read as plain
        ndarrays and give plain ndarrays; masked arrays are refused (use
        ``x.filled(v)``), as their mask would be ignored.
    k : int
        How many elements to keep, ``0 <= k <= x.shape[axis]`` (``x.size`` with
        ``axis=None``).
    axis : int or None, optional
        The axis to select along, in ``[-x.ndim, x.ndim)``; the last by default.
        ``None``: every element of ``x`` flattened in C order (as NumPy's
        ``axis=None``), with 1-D results and indices into the flattened ``x``.
    largest : bool, optional
        The greatest elements, greatest first (default), or the least, least first.
    sorted : bool, optional
        ``False`` allows the k elements in any order (the same set).
    index_dtype : dtype, optional
        Integer dtype of ``indices`` (default int64); it must hold ``n - 1``.
    backend : str, optional
        A backend from :func:`axisops.backends` to override the default.

    Returns
    -------
    TopK
        ``(values, indices)``, each shaped like ``x`` with ``k`` at ``axis`` (of shape
        ``(k,)`` with ``axis=None``), in ``x``'s array type and on its device.

    Raises
    ------
    InvalidArgumentError
        A bad ``k``, ``axis``, ``largest``, ``sorted`` or ``backend``; a 0-d or
        masked ``x``; an ``index_dtype`` too small for the axis.
    UnsupportedDTypeError
        A dtype top-k does not take (object, string, complex...) or a
        non-integer ``index_dtype``.

    Examples
    --------
    >>> import numpy as np, axisops
    >>> axisops.topk(np.array([1, 3, 3, 2]), 2)
    TopK(values=array([3, 3]), indices=array([1, 2]))
    >>> axisops.topk([0.0, np.nan, np.inf], 2).indices
    array([1, 2])
    >>> axisops.topk([[5, 1], [2, 4]], 1, axis=0, largest=False).values
    array([[2, 1]])
    >>> axisops.topk([[5, 1], [2, 5]], 2, axis=None)
    TopK(values=array([5, 5]), indices=array([0, 3]))
    >>> axisops.topk(np.array(["2024-05-01", "NaT", "2023-01-01"], "M8[D]"), 2).indices
    array([1, 0])
    """
    return _topk(x, k, axis, largest, sorted, index_dtype, backend)


@boundary("top_k")
def top_k(x: Any, k: int, /, *, axis: int | None = -1, mode: str = "largest",
          sorted: bool = True) -> TopK:
    """Array-API spelling of :func:`topk`, with NumPy's ``sorted`` flag.

    ``top_k(x, k, axis=a, mode=m, sorted=s)`` is ``topk(x, k, a, largest=(m ==
    "largest"))`` whatever ``s``: ``sorted=False`` allows any order of the k elements
    (as in :func:`topk` and NumPy's ``top_k``), and axisops gives the sorted one,
    best first and ties by lower index, on every backend, so results never depend on
    the flag.  (:func:`topk`'s ``sorted=False`` is a speed hint whose order varies with
    the strategy and backend.)

    Parameters
    ----------
    x : array_like
        As for :func:`topk`.
    k : int
        How many elements to keep (positional only).
    axis : int or None, optional
        The axis to select along (keyword only; the last by default); ``None``
        flattens ``x``, as for :func:`topk`.
    mode : {"largest", "smallest"}, optional
        Which end of the order to keep.
    sorted : bool, optional
        ``True`` (default): best first.  ``False``: any order allowed; the sorted one
        is given.

    Returns
    -------
    TopK
        As for :func:`topk` (sorted, int64 indices).

    Raises
    ------
    InvalidArgumentError
        A bad ``k``, ``axis``, ``mode`` or ``sorted``, or the errors of :func:`topk`.

    Examples
    --------
    >>> import axisops
    >>> axisops.top_k([4, 1, 4, 0], 3, mode="smallest").indices
    array([3, 1, 0])
    >>> axisops.top_k([4, 1, 4, 0], 3, sorted=False).indices
    array([0, 2, 1])
    """
    largest = as_choice("mode", mode, ("largest", "smallest")) == "largest"
    as_bool("sorted", sorted)  # either way, the sorted order (it is one of those allowed)
    return _topk(x, k, axis, largest, True, None, None)


@boundary("gather")
def gather(x: Any, dim: int, index: Any, *, backend: str | None = None) -> Any:
    """``out[i..., j, ...] = x[i..., index[i..., j, ...], ...]`` along ``dim``.

    The semantics of ``torch.gather`` and Ascend's aclnnGather.  Nothing outside
    ``x`` is ever read, even while another thread rewrites ``index``.

    Parameters
    ----------
    x : array_like
        Any rank >= 1, any dtype of top-k's plus complex.  NumPy subclasses are
        read as plain ndarrays; masked arrays are refused.
    dim : int
        The dimension to gather along, in ``[-x.ndim, x.ndim)``.
    index : array_like of int
        Same rank as ``x``, ``index.shape[d] <= x.shape[d]`` for ``d != dim``,
        values in ``[-n, n-1]`` where ``n = x.shape[dim]`` (negatives count from
        the end); any integer dtype.
    backend : str, optional
        A backend from :func:`axisops.backends` to override the default.

    Returns
    -------
    array
        ``index``'s shape, ``x``'s dtype and array type.

    Raises
    ------
    IndexOutOfRangeError
        An index value outside ``[-n, n-1]``, named by its position (the first in
        C order); nothing is returned.
    InvalidArgumentError
        A bad ``dim``, rank or shape, a masked array, or a bad ``backend``.
    UnsupportedDTypeError
        A dtype gather does not take, or a non-integer ``index``.

    Examples
    --------
    >>> import numpy as np, axisops
    >>> x = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    >>> axisops.gather(x, 0, [[0, 2], [1, 0]])
    array([[1, 8],
           [4, 2]])
    >>> axisops.gather(x, 1, [[-1], [0]])
    array([[3],
           [4]])
    """
    call = Call(x, backend)
    idx = call.index(index)
    return call.run(gather_spec(call.meta(), dim, call.meta(idx, "index")), idx)


@boundary("take_along_axis")
def take_along_axis(x: Any, indices: Any, /, *, axis: int = -1) -> Any:
    """Array-API ``take_along_axis``: :func:`gather` that broadcasts.

    Parameters
    ----------
    x : array_like
        As for :func:`gather` (positional only).
    indices : array_like of int
        Same rank as ``x``; ``x`` and ``indices`` broadcast against each other in
        every dimension except ``axis`` (positional only).
    axis : int, optional
        The axis to take along (keyword only; the last by default).

    Returns
    -------
    array
        The broadcast shape, with ``indices``' size along ``axis``.

    Raises
    ------
    IndexOutOfRangeError, InvalidArgumentError, UnsupportedDTypeError
        As for :func:`gather` (the messages say ``indices`` and ``axis``).

    Examples
    --------
    >>> import numpy as np, axisops
    >>> x = np.array([[10, 30, 20]])
    >>> axisops.take_along_axis(x, np.array([[1], [2]]), axis=1)
    array([[30],
           [20]])
    """
    call = Call(x)
    idx = call.index(indices, "indices")
    ax, x_shape, idx_shape = take_along_axis_shapes(call.meta(), call.meta(idx, "indices"),
                                                    axis)
    call.broadcast_to(x_shape)
    idx = call.adapter.broadcast_to(idx, idx_shape)
    spec = gather_spec(call.meta(), ax, call.meta(idx, "indices"), index_name="indices",
                       dim_name="axis")
    return call.run(spec, idx, function="take_along_axis")


# ---- the selection family --------------------------------------------------------------------


class KthValue(NamedTuple):
    """The result of :func:`kthvalue`: the ``values`` and their ``indices`` along the axis.

    Attributes
    ----------
    values : array
        The k-th smallest element of every sequence, in the input's array type and
        dtype (its bits are the input's own).
    indices : array
        Its position along the axis (int64).

    Examples
    --------
    >>> import axisops
    >>> values, indices = axisops.kthvalue([3, 1, 2], 2)
    >>> int(values), int(indices)
    (2, 2)
    """

    values: Any
    indices: Any


class Median(NamedTuple):
    """The result of :func:`median`: the lower median ``values`` and their ``indices``.

    Attributes
    ----------
    values : array
        The lower median of every sequence, in the input's array type and dtype.
    indices : array
        Its position along the axis (int64).

    Examples
    --------
    >>> import axisops
    >>> values, indices = axisops.median([4, 1, 3, 2])
    >>> int(values), int(indices)
    (2, 3)
    """

    values: Any
    indices: Any


def _one(x: Any, axis: Any, spec_of: Any, backend: str | None, values: bool) -> Any:
    """The values (or the indices) of a sort or partition of ``x`` along ``axis``
    (``spec_of(meta, axis)``; ``axis=None`` flattens ``x``)."""
    call = Call(x, backend)
    ax = _along(call, axis)
    return call.run(spec_of(call.meta(), ax), want=(values, not values))[not values]


def _kth(x: Any, axis: Any, keepdims: Any, spec_of: Any, backend: str | None
         ) -> tuple[Any, Any]:
    """``(values, indices)`` of a kthvalue or median of ``x`` (``spec_of(meta, axis,
    keepdims)``); ``axis=None`` flattens ``x``, a 0-d result (every dimension of ``x``
    kept as 1 with ``keepdims``)."""
    call = Call(x, backend)
    ax, ndim = _flattened(call, axis, keepdims)
    spec = spec_of(call.meta(), ax, keepdims if ndim is None else False)
    return _kept(call, tuple(call.run(spec)), (), ndim)


@boundary("sort")
def sort(x: Any, axis: int | None = -1, *, descending: bool = False,
         backend: str | None = None) -> Any:
    """The elements of every sequence along ``axis`` in order: a stable sort.

    Equal elements keep their index order, in both directions
    (``descending=True`` is *not* the reverse of the ascending sort where there
    are ties); NaN is greater than +inf; -0.0 equals +0.0; integers compare
    exactly; NaT is greater than every time; the values keep their bits (NaN
    payloads, the sign of zero).  ``sort(x)`` has the values of
    ``np.sort(x, kind="stable")``, ``sort(x, axis=None)`` those of
    ``np.sort(x, axis=None, kind="stable")``.

    Parameters
    ----------
    x : array_like
        Any rank >= 1 (any rank with ``axis=None``), any layout, any dtype of
        :func:`topk`'s: NumPy arrays (and array-likes), torch tensors, JAX arrays,
        CuPy and Dask arrays (a Dask array must be in one chunk along ``axis``).
    axis : int or None, optional
        The axis to sort along, in ``[-x.ndim, x.ndim)``; the last by default.
        ``None``: every element of ``x`` flattened in C order, as NumPy's.
    descending : bool, optional
        Greatest first (equal elements still in index order).
    backend : str, optional
        A backend from :func:`axisops.backends` to override the default.

    Returns
    -------
    array
        ``x``'s shape (1-D of ``x.size`` with ``axis=None``), dtype and array type.

    Raises
    ------
    InvalidArgumentError
        A bad ``axis``, ``descending`` or ``backend``; a 0-d (with an integer
        ``axis``) or masked ``x``; a Dask array in several chunks along ``axis``
        (the message says how to ``rechunk``).
    UnsupportedDTypeError
        A dtype sort does not take (object, string, complex...).

    See Also
    --------
    argsort : the indices of the same order.

    Examples
    --------
    >>> import numpy as np, axisops
    >>> axisops.sort(np.array([2.0, np.nan, -0.0, 0.0, -np.inf]))
    array([-inf, -0.,  0.,  2., nan])
    >>> axisops.sort([[3, 1], [2, 4]], axis=0, descending=True)
    array([[3, 4],
           [2, 1]])
    >>> axisops.sort([[3, 1], [2, 4]], axis=None)
    array([1, 2, 3, 4])
    """
    return _one(x, axis, lambda meta, ax: sort_spec(meta, ax, descending), backend, True)


@boundary("argsort")
def argsort(x: Any, axis: int | None = -1, *, descending: bool = False,
            backend: str | None = None) -> Any:
    """The int64 indices that sort every sequence along ``axis``, stably.

    Equal elements come in increasing index order in both directions (so
    ``argsort(x, descending=True)`` is not ``argsort(x)[::-1]`` where there are
    ties); NaN is greater than +inf; -0.0 equals +0.0.  ``argsort(x)`` is
    ``np.argsort(x, kind="stable")``, and its first ``k`` entries are
    ``topk(x, k, largest=False).indices``.  ``argsort(x, axis=None)`` is
    ``np.argsort(x, axis=None, kind="stable")``: indices into the flattened ``x``.

    Parameters
    ----------
    x : array_like
        As for :func:`sort`.
    axis : int or None, optional
        The axis to sort along, in ``[-x.ndim, x.ndim)``; the last by default.
        ``None``: every element of ``x`` flattened in C order.
    descending : bool, optional
        Greatest first (equal elements still in index order).
    backend : str, optional
        A backend from :func:`axisops.backends` to override the default.

    Returns
    -------
    array
        ``x``'s shape (1-D with ``axis=None``), int64, ``x``'s array type.

    Raises
    ------
    InvalidArgumentError, UnsupportedDTypeError
        As for :func:`sort`.

    Examples
    --------
    >>> import numpy as np, axisops
    >>> axisops.argsort(np.array([5, 7, 5, 7]))
    array([0, 2, 1, 3])
    >>> axisops.argsort(np.array([5, 7, 5, 7]), descending=True)
    array([1, 3, 0, 2])
    >>> axisops.argsort(np.array([[5, 7], [5, 1]]), axis=None)
    array([3, 0, 2, 1])
    """
    return _one(x, axis, lambda meta, ax: sort_spec(meta, ax, descending), backend, False)


@boundary("kthvalue")
def kthvalue(x: Any, k: int, axis: int | None = -1, *, keepdims: bool = False,
             backend: str | None = None) -> KthValue:
    """The ``k``-th smallest element of every sequence along ``axis`` and its index.

    ``k`` is 1-based, as in ``torch.kthvalue``.  The element is defined by the
    stable order: ``kthvalue(x, k)`` is ``(sort(x)[k-1], argsort(x)[k-1])`` along
    the axis, so among equal elements the one of lower index comes first (and it
    is also the last of ``topk(x, k, largest=False)``).  NaN is greater than +inf,
    NaT than every time.

    Parameters
    ----------
    x : array_like
        As for :func:`sort` (a Dask array may be in any chunks).
    k : int
        Which element, ``1 <= k <= x.shape[axis]`` (``x.size`` with ``axis=None``).
    axis : int or None, optional
        The axis to select along, in ``[-x.ndim, x.ndim)``; the last by default.
        ``None``: every element of ``x`` flattened in C order, as one sequence (0-d
        results; the index counts in the flattened ``x``).
    keepdims : bool, optional
        Keep ``axis`` in the results, with size 1 (with ``axis=None``: every
        dimension of ``x``, each of size 1).
    backend : str, optional
        A backend from :func:`axisops.backends` to override the default.

    Returns
    -------
    KthValue
        ``(values, indices)``, shaped like ``x`` without ``axis`` (or with it of size
        1), ``x``'s dtype and int64, in ``x``'s array type.

    Raises
    ------
    InvalidArgumentError
        A bad ``k``, ``axis``, ``keepdims`` or ``backend``; a 0-d or masked ``x``.
    UnsupportedDTypeError
        A dtype kthvalue does not take (object, string, complex...).

    Examples
    --------
    >>> import numpy as np, axisops
    >>> axisops.kthvalue(np.array([4, 1, 4, 1, 3]), 4)
    KthValue(values=array(4), indices=array(0))
    >>> axisops.kthvalue(np.array([[1.0, np.nan], [5.0, 2.0]]), 2, axis=1, keepdims=True)
    KthValue(values=array([[nan],
           [ 5.]]), indices=array([[1],
           [0]]))
    >>> axisops.kthvalue(np.array([[1.0, np.nan], [5.0, 2.0]]), 2, axis=None)
    KthValue(values=array(2.), indices=array(3))
    """
    values, indices = _kth(
        x, axis, keepdims, lambda meta, ax, keep: kthvalue_spec(meta, k, ax, keep), backend)
    return KthValue(values, indices)


@boundary("median")
def median(x: Any, axis: int | None = -1, *, keepdims: bool = False,
           backend: str | None = None) -> Median:
    """The lower median of every sequence along ``axis`` and its index.

    ``median(x)`` is ``kthvalue(x, (n - 1) // 2 + 1)`` with ``n = x.shape[axis]``
    (torch's definition): an element of ``x`` itself, the lower of the two
    middle ones when ``n`` is even, and NaN only when more than half the
    sequence (counting the middle) is NaN, as NaN sorts last.  ``np.median``
    differs: it averages the two middle elements and returns NaN as soon as
    one element is NaN.

    Parameters
    ----------
    x : array_like
        As for :func:`kthvalue`; ``x.shape[axis]`` must be at least 1.
    axis : int or None, optional
        The axis to reduce, in ``[-x.ndim, x.ndim)``; the last by default.  ``None``:
        the lower median of every element (0-d results; the index counts in the
        flattened ``x``).
    keepdims : bool, optional
        Keep ``axis`` in the results, with size 1 (every dimension with ``axis=None``).
    backend : str, optional
        A backend from :func:`axisops.backends` to override the default.

    Returns
    -------
    Median
        ``(values, indices)`` shaped as for :func:`kthvalue`.

    Raises
    ------
    InvalidArgumentError
        An empty ``axis``, or the errors of :func:`kthvalue`.
    UnsupportedDTypeError
        As for :func:`kthvalue`.

    Examples
    --------
    >>> import numpy as np, axisops
    >>> x = np.array([4.0, 1.0, 3.0, 2.0])
    >>> axisops.median(x), float(np.median(x))
    (Median(values=array(2.), indices=array(3)), 2.5)
    >>> axisops.median(np.array([1.0, np.nan, 3.0])).values
    array(3.)
    >>> axisops.median(np.array([[4, 1], [3, 2]]), axis=None, keepdims=True)
    Median(values=array([[2]]), indices=array([[3]]))
    """
    values, indices = _kth(x, axis, keepdims, median_spec, backend)
    return Median(values, indices)


@boundary("partition")
def partition(x: Any, kth: Any, axis: int | None = -1, *,
              backend: str | None = None) -> Any:
    """``x`` partitioned along ``axis`` at the positions ``kth``, in a deterministic order.

    NumPy's meaning: position ``kth`` receives the element that would be there in
    the stable sort, every element before it is not greater and every element
    after it is not smaller.  Unlike NumPy's, the order is documented and the
    same on every backend: the elements between two kths (and before the first,
    after the last) come in their original index order.  ``partition(x, kth)``
    is ``x`` taken at :func:`argpartition`.

    Parameters
    ----------
    x : array_like
        As for :func:`sort` (a Dask array must be in one chunk along ``axis``).
    kth : int or sequence of int
        The positions, each in ``[-n, n)`` with ``n = x.shape[axis]`` (``x.size``
        with ``axis=None``; negatives count from the end; repeats are allowed, an
        empty sequence leaves ``x`` as it is).
    axis : int or None, optional
        The axis to partition along, in ``[-x.ndim, x.ndim)``; the last by default.
        ``None``: every element of ``x`` flattened in C order, as NumPy's.
    backend : str, optional
        A backend from :func:`axisops.backends` to override the default.

    Returns
    -------
    array
        ``x``'s shape (1-D with ``axis=None``), dtype and array type.

    Raises
    ------
    InvalidArgumentError
        A bad ``kth``, ``axis`` or ``backend``; a 0-d (with an integer ``axis``) or
        masked ``x``; a Dask array in several chunks along ``axis``.
    UnsupportedDTypeError
        A dtype partition does not take (object, string, complex...).

    Examples
    --------
    >>> import numpy as np, axisops
    >>> axisops.partition(np.array([3, 1, 4, 1, 5, 9, 2, 6]), 3)
    array([1, 1, 2, 3, 4, 5, 9, 6])
    >>> axisops.partition(np.array([3, 1, 4, 1, 5, 9, 2, 6]), [1, -1])
    array([1, 1, 3, 4, 5, 2, 6, 9])
    >>> axisops.partition(np.array([[3, 1, 4], [1, 5, 9]]), 2, axis=None)
    array([1, 1, 3, 4, 5, 9])
    """
    return _one(x, axis, lambda meta, ax: partition_spec(meta, kth, ax), backend, True)


@boundary("argpartition")
def argpartition(x: Any, kth: Any, axis: int | None = -1, *,
                 backend: str | None = None) -> Any:
    """The int64 indices that partition ``x`` along ``axis`` at ``kth`` (deterministically).

    ``x`` taken at these indices along ``axis`` is :func:`partition`'s result: the
    element of stable rank ``kth`` at position ``kth``, the others between the
    kths in increasing index order.

    Parameters
    ----------
    x : array_like
        As for :func:`partition`.
    kth : int or sequence of int
        As for :func:`partition`.
    axis : int or None, optional
        The axis to partition along; the last by default.  ``None``: every element
        of ``x`` flattened in C order (indices into the flattened ``x``).
    backend : str, optional
        A backend from :func:`axisops.backends` to override the default.

    Returns
    -------
    array
        ``x``'s shape (1-D with ``axis=None``), int64, ``x``'s array type.

    Raises
    ------
    InvalidArgumentError, UnsupportedDTypeError
        As for :func:`partition`.

    Examples
    --------
    >>> import numpy as np, axisops
    >>> axisops.argpartition(np.array([3, 1, 4, 1, 5]), 2)
    array([1, 3, 0, 2, 4])
    >>> axisops.argpartition(np.array([[3, 1], [4, 1]]), 1, axis=None)
    array([1, 3, 0, 2])
    """
    return _one(x, axis, lambda meta, ax: partition_spec(meta, kth, ax), backend, False)


# ---- the quantile family ---------------------------------------------------------------------

#: ``want`` of a quantile: its values; of nanmedian: the parts (the element and its index).
_VALUES = (True, False)
_PARTS = (False, True)


def _flattened(call: Call, axis: Any, keepdims: Any) -> tuple[Any, int | None]:
    """``axis`` for the spec, flattening ``x`` first for ``axis=None`` (as NumPy's default
    does); the number of dimensions to give back with ``keepdims`` then (None otherwise)."""
    if axis is not None:
        return axis, None
    imported("axisops.rules.arguments")
    from .rules.arguments import as_bool

    ndim = call.meta().ndim
    call.reshape((-1,))
    return 0, ndim if as_bool("keepdims", keepdims) else None


def _kept(call: Call, result: Any, lead: tuple[int, ...], ndim: int | None) -> Any:
    """``result`` (an array, or a tuple of them) with every dimension of ``x`` kept as 1 after
    ``lead`` (``q``'s), for ``axis=None, keepdims=True``."""
    if ndim is None:
        return result
    shape = lead + (1,) * ndim
    if isinstance(result, tuple):
        return tuple(call.adapter.reshape(r, shape) for r in result)
    return call.adapter.reshape(result, shape)


def _quantile(x: Any, q: Any, axis: Any, method: Any, keepdims: Any, skipnan: bool,
              backend: str | None) -> Any:
    call = Call(x, backend)
    ax, ndim = _flattened(call, axis, keepdims)
    spec = quantile_spec(call.meta(), q, ax, method, keepdims if ndim is None else False,
                         skipnan)
    return _kept(call, call.run(spec, want=_VALUES), spec.q_shape, ndim)


@boundary("quantile")
def quantile(x: Any, q: Any, axis: int | None = -1, *, method: str = "linear",
             keepdims: bool = False, backend: str | None = None) -> Any:
    """The ``q``-th quantiles of every sequence along ``axis``: NumPy 2.4's ``quantile``, exact.

    Every one of NumPy's 13 methods, with NumPy's formulas and result dtype, bit for bit
    (a float32 ``x`` with a Python float ``q`` gives float32, with an array ``q``
    float64; the methods that pick an element give ``x``'s dtype, so integers stay exact
    beyond 2**53).  The order statistics are found by selection, not a sort, one per
    distinct rank however many ``q`` share it.  Unlike NumPy's, the default ``axis`` is
    the last (as everywhere in axisops; ``axis=None`` flattens, NumPy's default), and a
    sequence holding NaN is not NaN as a whole: NaN sort last (the contract's order), so
    a quantile is NaN only when the formula reads a NaN.  NumPy's ``quantile`` is
    ``nanquantile``'s only on NaN-free data; see :func:`nanquantile` to skip NaN.

    Parameters
    ----------
    x : array_like
        Any rank >= 1 (any rank with ``axis=None``), a real or bool dtype (bool only for
        the element-picking methods); NumPy arrays and array-likes, torch tensors (with
        autograd), JAX arrays and tracers, CuPy and Dask arrays (any chunking).
    q : float or array_like of float
        Probabilities in ``[0, 1]``: a scalar, or an array of up to 2 dimensions, whose
        shape leads the result's.  A Python scalar is promoted weakly (as NumPy does), a
        NumPy float16/float32 ``q`` computes in its own precision; integers are 0 or 1.
    axis : int or None, optional
        The axis to reduce, in ``[-x.ndim, x.ndim)``; the last by default.  ``None``:
        every element, as one sequence.
    method : str, optional
        One of NumPy's: ``"inverted_cdf"``, ``"averaged_inverted_cdf"``,
        ``"closest_observation"``, ``"interpolated_inverted_cdf"``, ``"hazen"``,
        ``"weibull"``, ``"linear"`` (default), ``"median_unbiased"``,
        ``"normal_unbiased"``, ``"lower"``, ``"higher"``, ``"nearest"``, ``"midpoint"``.
    keepdims : bool, optional
        Keep the reduced axis (every axis for ``axis=None``) with size 1.
    backend : str, optional
        A backend from :func:`axisops.backends` to override the default.

    Returns
    -------
    array
        Shape ``q.shape`` followed by ``x``'s without ``axis`` (or with it as 1), in
        NumPy's result dtype, in ``x``'s array type (a 0-d array for a scalar result).
        Differentiable for torch tensors: the gradient goes to the one or two order
        statistics each quantile reads, weighted as they are interpolated.

    Raises
    ------
    InvalidArgumentError
        A ``q`` outside ``[0, 1]`` (or NaN, or a bool), of more than 2 dimensions, a bad
        ``axis``, ``method`` or ``keepdims``; an empty axis (it has no quantile; NumPy
        raises an IndexError).
    UnsupportedDTypeError
        A dtype quantile does not take (complex...); bool with an interpolating method.

    See Also
    --------
    nanquantile : the same, skipping NaN.
    median : the lower median, an element with its index (``quantile(x, 0.5)`` is the
        average of the two middle elements, NumPy's median).

    Examples
    --------
    >>> import numpy as np, axisops
    >>> x = np.array([[10.0, 7.0, 4.0], [3.0, 2.0, 1.0]])
    >>> axisops.quantile(x, 0.5)
    array([7., 2.])
    >>> axisops.quantile(x, [0.25, 0.75], axis=0)
    array([[4.75, 3.25, 1.75],
           [8.25, 5.75, 3.25]])
    >>> axisops.quantile(x, 0.5, axis=None), np.quantile(x, 0.5)
    (array(3.5), np.float64(3.5))
    >>> axisops.quantile(np.array([2**60 + 1, 5, 2**60 + 3]), 0.5, method="lower")
    array(1152921504606846977)
    """
    return _quantile(x, q, axis, method, keepdims, False, backend)


@boundary("nanquantile")
def nanquantile(x: Any, q: Any, axis: int | None = -1, *, method: str = "linear",
                keepdims: bool = False, backend: str | None = None) -> Any:
    """The ``q``-th quantiles of every sequence along ``axis``, skipping NaN: NumPy 2.4's
    ``nanquantile``, exact.

    Each sequence's quantiles are those of its ``v`` non-NaN elements (NaN sort last, so
    they are the stable ranks ``0 .. v - 1``, found by selection).  A sequence with no
    non-NaN element gives NaN, without a warning: NumPy warns ``RuntimeWarning: All-NaN
    slice encountered``; axisops gives the same NaN on every array type and backend, eager,
    lazy (Dask) or traced (JAX, ``torch.compile``), where no warning could be raised at
    the call.  The result dtype is NumPy's (where NumPy's depends on the data, an all-NaN
    first sequence making a float32 result of what would be float64, axisops keeps the
    dtype of the data-free rule).  Integer and bool ``x`` hold no NaN: their nanquantile
    is their quantile.

    Parameters
    ----------
    x : array_like
        As for :func:`quantile`.
    q : float or array_like of float
        As for :func:`quantile`.
    axis : int or None, optional
        As for :func:`quantile` (the last by default; ``None`` flattens).
    method : str, optional
        As for :func:`quantile`.
    keepdims : bool, optional
        As for :func:`quantile`.
    backend : str, optional
        A backend from :func:`axisops.backends` to override the default.

    Returns
    -------
    array
        As for :func:`quantile`.

    Raises
    ------
    InvalidArgumentError, UnsupportedDTypeError
        As for :func:`quantile`.

    Examples
    --------
    >>> import numpy as np, axisops
    >>> x = np.array([[10.0, np.nan, 4.0], [3.0, 2.0, 1.0], [np.nan, np.nan, np.nan]])
    >>> axisops.nanquantile(x, 0.5)
    array([ 7.,  2., nan])
    >>> axisops.nanquantile(x, [0.0, 1.0], axis=1, method="nearest")
    array([[ 4.,  1., nan],
           [10.,  3., nan]])
    """
    return _quantile(x, q, axis, method, keepdims, True, backend)


@boundary("nanmedian")
def nanmedian(x: Any, axis: int | None = -1, *, keepdims: bool = False,
              backend: str | None = None) -> Median:
    """The lower median of the non-NaN elements of every sequence along ``axis``, and its index.

    :func:`median`'s rule on each sequence's ``v`` non-NaN elements: the element of stable
    rank ``(v - 1) // 2`` (the lower of the two middle ones when ``v`` is even, equal
    elements by index), with its index; a sequence with no non-NaN element gives its
    lower median as a whole (a NaN, with its index), as ``torch.nanmedian`` does.
    NumPy's ``nanmedian`` averages the two middle elements instead: that is
    ``nanquantile(x, 0.5)`` here.

    Parameters
    ----------
    x : array_like
        As for :func:`median`; ``x.shape[axis]`` must be at least 1.
    axis : int or None, optional
        The axis to reduce (the last by default); ``None``: every element, as one sequence
        (the indices then count in the flattened ``x``).
    keepdims : bool, optional
        Keep ``axis`` (every axis for ``axis=None``) with size 1.
    backend : str, optional
        A backend from :func:`axisops.backends` to override the default.

    Returns
    -------
    Median
        ``(values, indices)``, shaped like ``x`` without ``axis`` (or with it as 1),
        ``x``'s dtype and int64.

    Raises
    ------
    InvalidArgumentError, UnsupportedDTypeError
        As for :func:`median`.

    Examples
    --------
    >>> import numpy as np, axisops
    >>> x = np.array([[4.0, np.nan, 1.0, 3.0, 2.0], [np.nan, np.nan, 5.0, np.nan, 7.0]])
    >>> axisops.nanmedian(x)
    Median(values=array([2., 5.]), indices=array([4, 2]))
    >>> float(np.nanmedian(x[0])), float(axisops.nanquantile(x[0], 0.5))
    (2.5, 2.5)
    """
    call = Call(x, backend)
    ax, ndim = _flattened(call, axis, keepdims)
    spec = nanmedian_spec(call.meta(), ax, keepdims if ndim is None else False)
    below, below_at = call.run(spec, want=_PARTS)[:2]
    return Median(*_kept(call, (below, below_at), (), ndim))
