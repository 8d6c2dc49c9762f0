"""The public operations: take the array, validate, pick the engine once, run, convert back.

Each function validates and normalises every argument (through
:mod:`axisops.validation`) before any engine runs, so every engine sees the same
clean request and every error comes from one place.  The array's adapter
(:func:`axisops.adapters.of`) takes it as engines read it, and the registry
(:mod:`axisops.registry`) picks the engine once per call, for the validated
request::

    adapter = adapters.of(x)
    a = adapter.take(x, "x")
    spec = topk_spec(adapter.meta(a, "x"), k, axis, ...)
    engine = registry.pick(x, backend, spec, a)[1]
    return adapter.from_engine(adapter.topk(engine, a, spec), x)

The same lines serve every array type: NumPy arrays, torch tensors (whose
adapter runs observed calls through the ``axisops::`` torch operators), JAX
arrays and tracers, CuPy and Dask arrays.  Each function is a
:func:`~axisops.errors.boundary`: errors leaving it carry its name.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from . import adapters, registry
from .errors import boundary
from .validation import as_choice, gather_spec, take_along_axis_shapes, topk_spec

__all__ = ["TopK", "gather", "take_along_axis", "top_k", "topk"]


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
    adapter = adapters.of(x)
    a = adapter.take(x, "x")
    spec = topk_spec(adapter.meta(a, "x"), k, axis, largest, sorted, index_dtype)
    engine = registry.pick(x, backend, spec, a)[1]
    values, indices = adapter.from_engine(adapter.topk(engine, a, spec), x)
    return TopK(values, indices)


@boundary("topk")
def topk(
    x: Any,
    k: int,
    axis: int = -1,
    *,
    largest: bool = True,
    sorted: bool = True,
    index_dtype: Any = None,
    backend: str | None = None,
) -> TopK:
    """The ``k`` greatest (or least) elements of every sequence along ``axis``.

    Ties go to the lower index, in both directions; NaN is greater than +inf;
    -0.0 equals +0.0; integers compare exactly.  ``largest=False`` gives the
    first ``k`` entries of ``np.argsort(x, axis, kind="stable")``.

    Parameters
    ----------
    x : array_like
        Any rank >= 1, any layout: NumPy arrays (and array-likes), torch tensors,
        JAX arrays and tracers, CuPy and Dask arrays.  NumPy subclasses
        (``np.memmap``, ``np.matrix``, your own) are read as plain ndarrays and
        give plain ndarrays; masked arrays are refused (use ``x.filled(v)``), as
        their mask would be ignored.
    k : int
        How many elements to keep, ``0 <= k <= x.shape[axis]``.
    axis : int, optional
        The axis to select along, in ``[-x.ndim, x.ndim)``; the last by default.
    largest : bool, optional
        The greatest elements, greatest first (default), or the least, least first.
    sorted : bool, optional
        ``False`` allows the k elements in any order (the same set).
    index_dtype : dtype, optional
        Integer dtype of ``indices`` (default int64); it must hold ``n - 1``.
    backend : str, optional
        An engine from :func:`axisops.backends` to override the default.

    Returns
    -------
    TopK
        ``(values, indices)``, each shaped like ``x`` with ``k`` at ``axis``, in
        ``x``'s array type and on its device.

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
    """
    return _topk(x, k, axis, largest, sorted, index_dtype, backend)


@boundary("top_k")
def top_k(x: Any, k: int, /, *, axis: int = -1, mode: str = "largest") -> TopK:
    """Array-API spelling of :func:`topk`.

    Parameters
    ----------
    x : array_like
        As for :func:`topk`.
    k : int
        How many elements to keep (positional only).
    axis : int, optional
        The axis to select along (keyword only; the last by default).
    mode : {"largest", "smallest"}, optional
        Which end of the order to keep.

    Returns
    -------
    TopK
        As for :func:`topk` (sorted, int64 indices).

    Raises
    ------
    InvalidArgumentError
        A bad ``k``, ``axis`` or ``mode``, or the errors of :func:`topk`.

    Examples
    --------
    >>> import axisops
    >>> axisops.top_k([4, 1, 4, 0], 3, mode="smallest").indices
    array([3, 1, 0])
    """
    largest = as_choice("mode", mode, ("largest", "smallest")) == "largest"
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
        An engine from :func:`axisops.backends` to override the default.

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
    adapter = adapters.of(x)
    a = adapter.take(x, "x")
    idx = adapter.index(index, a, "index")
    spec = gather_spec(adapter.meta(a, "x"), dim, adapter.meta(idx, "index"))
    engine = registry.pick(x, backend, spec, a)[1]
    return adapter.from_engine(adapter.gather(engine, a, idx, spec), x)


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
    adapter = adapters.of(x)
    a = adapter.take(x, "x")
    idx = adapter.index(indices, a, "indices")
    ax, x_shape, idx_shape = take_along_axis_shapes(
        adapter.meta(a, "x"), adapter.meta(idx, "indices"), axis
    )
    a = adapter.broadcast_to(a, x_shape)
    idx = adapter.broadcast_to(idx, idx_shape)
    spec = gather_spec(adapter.meta(a, "x"), ax, adapter.meta(idx, "indices"),
                       index_name="indices", dim_name="axis")
    engine = registry.pick(x, None, spec, a)[1]
    return adapter.from_engine(adapter.gather(engine, a, idx, spec, "take_along_axis"), x)
