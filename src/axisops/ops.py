"""The public operations: validate, pick a backend, run it.

Each function validates and normalises every argument (through
:mod:`axisops.validation`) before any backend runs, so every backend sees the
same clean request and every error comes from one place.  Each is a
:func:`~axisops.errors.boundary`: errors leaving it carry its name.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from . import registry
from .backends.base import Backend
from .errors import InvalidArgumentError, boundary
from .validation import gather_spec, take_along_axis_shapes, topk_spec

__all__ = ["TopK", "gather", "take_along_axis", "top_k", "topk"]


class TopK(NamedTuple):
    """The result of :func:`topk`: ``values`` and their ``indices`` along the axis."""

    values: Any
    indices: Any


def _select(x: Any, backend: str | None) -> Backend:
    """The backend for ``x``: the registry's choice, except while torch.compile traces.

    Dynamo cannot trace the registry's first-use work (module discovery, its
    lock), so torch tensors under tracing go straight to the torch backend; the
    operator it calls resolves ``backend`` through the registry when it runs.
    """
    if type(x).__module__.partition(".")[0] == "torch":
        import torch

        if torch.compiler.is_compiling():
            from .backends.torch_backend import for_op

            return for_op(backend)
    return registry.select(x, backend)


def _topk(
    x: Any,
    k: Any,
    axis: Any,
    largest: Any,
    sorted: Any,
    index_dtype: Any,
    backend: str | None,
) -> TopK:
    impl = _select(x, backend)
    x = impl.asarray(x, "x")
    spec = topk_spec(impl.meta(x, "x"), k, axis, largest, sorted, index_dtype)
    values, indices = impl.topk(x, spec)
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

    Args:
        x: an array (any rank >= 1, any layout) or array-like.  NumPy subclasses
            (``np.memmap``, ``np.matrix``, your own) are read as plain ndarrays and
            give plain ndarrays; masked arrays are refused (``InvalidArgumentError``:
            use ``x.filled(v)``), as their mask would be ignored.
        k: how many elements to keep, ``0 <= k <= x.shape[axis]``.
        axis: the axis to select along, in ``[-x.ndim, x.ndim)``.
        largest: the greatest elements, greatest first (else the least, least first).
        sorted: ``False`` allows the k elements in any order (same set).
        index_dtype: integer dtype of ``indices`` (default int64).
        backend: a name from :func:`axisops.backends` to override the default.

    Returns:
        ``TopK(values, indices)``, each shaped like ``x`` with ``k`` at ``axis``.

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
    """Array-API spelling of :func:`topk`: ``mode`` is ``"largest"`` or ``"smallest"``.

    >>> import axisops
    >>> axisops.top_k([4, 1, 4, 0], 3, mode="smallest").indices
    array([3, 1, 0])
    """
    if not isinstance(mode, str) or mode not in ("largest", "smallest"):
        raise InvalidArgumentError(
            f"mode={mode!r} is not allowed (need 'largest' or 'smallest')"
        )
    return _topk(x, k, axis, mode == "largest", True, None, None)


@boundary("gather")
def gather(x: Any, dim: int, index: Any, *, backend: str | None = None) -> Any:
    """``out[i..., j, ...] = x[i..., index[i..., j, ...], ...]`` along ``dim``.

    The semantics of ``torch.gather`` and Ascend's aclnnGather: ``index`` has
    x's rank, ``index.shape[d] <= x.shape[d]`` for ``d != dim``, values in
    ``[-n, n-1]`` (negatives count from the end), and the result has
    ``index``'s shape and x's dtype.  Out-of-range values raise
    :class:`axisops.IndexOutOfRangeError` and nothing is returned; nothing
    outside ``x`` is read, even while another thread rewrites ``index``.
    NumPy subclasses of ``x`` or ``index`` (``np.memmap``, ``np.matrix``, your
    own) are read as plain ndarrays and give plain ndarrays; masked arrays are
    refused with :class:`axisops.InvalidArgumentError`.

    >>> import numpy as np, axisops
    >>> x = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    >>> axisops.gather(x, 0, [[0, 2], [1, 0]])
    array([[1, 8],
           [4, 2]])
    >>> axisops.gather(x, 1, [[-1], [0]])
    array([[3],
           [4]])
    """
    impl = _select(x, backend)
    x = impl.asarray(x, "x")
    idx = impl.as_index(index, x, "index")
    spec = gather_spec(impl.meta(x, "x"), dim, impl.meta(idx, "index"))
    return impl.gather(x, idx, spec)


@boundary("take_along_axis")
def take_along_axis(x: Any, indices: Any, /, *, axis: int = -1) -> Any:
    """Array-API ``take_along_axis``: gather that broadcasts ``x`` and ``indices``.

    ``x`` and ``indices`` have the same rank and broadcast against each other
    in every dimension except ``axis``.

    >>> import numpy as np, axisops
    >>> x = np.array([[10, 30, 20]])
    >>> axisops.take_along_axis(x, np.array([[1], [2]]), axis=1)
    array([[30],
           [20]])
    """
    impl = _select(x, None)
    x = impl.asarray(x, "x")
    idx = impl.as_index(indices, x, "indices")
    ax, x_shape, idx_shape = take_along_axis_shapes(
        impl.meta(x, "x"), impl.meta(idx, "indices"), axis
    )
    x = impl.broadcast_to(x, x_shape)
    idx = impl.broadcast_to(idx, idx_shape)
    spec = gather_spec(
        impl.meta(x, "x"), ax, impl.meta(idx, "indices"), index_name="indices", dim_name="axis"
    )
    return impl.gather(x, idx, spec)
