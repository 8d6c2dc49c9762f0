"""The selection family (sort, kthvalue, partition) for the ``"jax"`` engine; traceable.

Compiled for the CPU, each runs the NumPy engine it is given (``host``: ``"cpu"``,
the compiled core, as the registry gives it) on XLA's input buffer through a
buffer callback, as top-k does (:mod:`axisops.kernels.jax.ops`), with a
``custom_jvp``: the tangent of the values is the tangent at their indices.
Compiled for any other device, or given no host engine, it runs the contract in
``lax`` operations:

- the order is ``lax.sort`` of the exact order keys of
  :func:`~axisops.kernels.jax.ops.order_key` (the bitwise NOT of the keys for a
  descending sort) with the index as a second key, so equal elements keep their
  index order in both directions, NaN is above +inf and -0.0 equals +0.0;
- kthvalue (and median) is position ``k - 1`` of the ascending order;
- partition gives each element of stable rank ``r`` the group ``2 * (kths below r)
  + (1 if r is a kth)`` and sorts the groups with the index as a second key (the
  oracle's statement, :mod:`axisops.reference.partition`).

Values are taken from the input by index with :func:`~axisops.kernels.jax.ops.take`
(bits kept, differentiable), so ``jax.grad`` flows into the chosen positions.  Both
paths give the same bits, under ``jit``, ``vmap`` (the batch is more leading
dimensions) and ``grad``.  Without ``jax_enable_x64`` indices are int32, as
``jax.lax.top_k``'s are.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ...requests import KthSpec, PartitionSpec, SortSpec
from ...rules.types import check_axis_length, check_narrowed_index
from .ops import _buffer_callback, on_host, order_key, take

__all__ = ["kthvalue", "lax_kthvalue", "lax_partition", "lax_sort", "partition", "sort"]

Spec = SortSpec | KthSpec | PartitionSpec
_INT64 = np.dtype(np.int64)
_INT32_MAX = np.iinfo(np.int32).max


def index_dtype(spec: Spec) -> np.dtype:
    """The index dtype JAX holds (int64; int32 without x64, refused where too narrow)."""
    got = np.dtype(jax.dtypes.canonicalize_dtype(_INT64))
    check_narrowed_index(_INT64, got, spec.n, spec.axis, "JAX (jax_enable_x64 is off)")
    return got


def _iota_dtype(n: int, dtype: np.dtype) -> np.dtype:
    return np.dtype(np.int32) if n <= _INT32_MAX else dtype


def _stable_order(moved: jax.Array, descending: bool, itype: np.dtype) -> jax.Array:
    """Indices of the stable sort of ``moved`` along its last axis (equal keys by index)."""
    key = order_key(lax.stop_gradient(moved), not descending)
    iota = lax.broadcasted_iota(itype, key.shape, key.ndim - 1)
    return lax.sort((key, iota), dimension=key.ndim - 1, num_keys=2)[1]


def _back(a: jax.Array, axis: int) -> jax.Array:
    return jnp.moveaxis(a, -1, axis)


def lax_sort(x: jax.Array, spec: SortSpec, values: bool = True, indices: bool = True):
    """``(values, indices)`` of the stable sort in ``lax`` operations (``None`` for the one
    not asked for); any device.

    >>> from axisops.requests import ArrayMeta
    >>> from axisops.rules.operations import sort_spec
    >>> spec = sort_spec(ArrayMeta((5,), np.dtype("float32")), 0, True)
    >>> lax_sort(jnp.array([1.0, jnp.nan, 3.0, 1.0, -0.0]), spec)[1].tolist()
    [1, 2, 0, 3, 4]
    """
    itype = index_dtype(spec)
    moved = jnp.moveaxis(x, spec.axis, -1)
    order = _stable_order(moved, spec.descending, _iota_dtype(spec.n, itype))
    return (_back(take(moved, order, -1), spec.axis) if values else None,
            _back(order.astype(itype), spec.axis) if indices else None)


def lax_kthvalue(x: jax.Array, spec: KthSpec):
    """``(values, indices)`` at position ``k - 1`` of the stable ascending order, of
    ``spec.out_shape``, in ``lax`` operations; any device.

    >>> from axisops.requests import ArrayMeta
    >>> from axisops.rules.operations import kthvalue_spec
    >>> spec = kthvalue_spec(ArrayMeta((5,), np.dtype("int32")), 4, 0, False)
    >>> [int(a) for a in lax_kthvalue(jnp.array([4, 1, 4, 1, 3]), spec)]
    [4, 0]
    """
    itype = index_dtype(spec)
    moved = jnp.moveaxis(x, spec.axis, -1)
    order = _stable_order(moved, False, _iota_dtype(spec.n, itype))[..., spec.k - 1:spec.k]
    values = _back(take(moved, order, -1), spec.axis).reshape(spec.out_shape)
    return values, _back(order.astype(itype), spec.axis).reshape(spec.out_shape)


def lax_partition(x: jax.Array, spec: PartitionSpec, values: bool = True,
                  indices: bool = True):
    """``(values, indices)`` of the deterministic partition at ``spec.kth`` in ``lax``
    operations (``None`` for the one not asked for); any device.

    >>> from axisops.requests import ArrayMeta
    >>> from axisops.rules.operations import partition_spec
    >>> spec = partition_spec(ArrayMeta((7,), np.dtype("float32")), 3, 0)
    >>> lax_partition(jnp.array([3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0]), spec)[1].tolist()
    [1, 3, 6, 0, 2, 4, 5]
    """
    itype = index_dtype(spec)
    moved = jnp.moveaxis(x, spec.axis, -1)
    small = _iota_dtype(spec.n, itype)
    iota = lax.broadcasted_iota(small, moved.shape, moved.ndim - 1)
    result = iota
    if spec.kth:
        order = _stable_order(moved, False, small)
        rank = lax.sort((order, iota), dimension=moved.ndim - 1, num_keys=1)[1]
        kths = jnp.asarray(spec.kth, small)
        group = (jnp.searchsorted(kths, rank, side="left")
                 + jnp.searchsorted(kths, rank, side="right"))
        result = lax.sort((group, iota), dimension=moved.ndim - 1, num_keys=2)[1]
    return (_back(take(moved, result, -1), spec.axis) if values else None,
            _back(result.astype(itype), spec.axis) if indices else None)


# ---- the CPU: the host kernels through a buffer callback ------------------------------------


def _empty(x: jax.Array, spec: Spec, values: bool, indices: bool):
    shape = spec.out_shape
    return (jnp.zeros(shape, x.dtype) if values else None,
            jnp.zeros(shape, index_dtype(spec)) if indices else None)


def _run(x: jax.Array, method: str, spec: Spec, values: bool, indices: bool, on_lax: Any,
         host: Any):
    check_axis_length(spec.n, spec.axis, _INT32_MAX, f"a traced JAX {method}")
    if x.size == 0:
        return _empty(x, spec, values, indices)
    if host is None or _buffer_callback() is None:
        return on_lax(x)
    return lax.platform_dependent(
        x, cpu=partial(on_host, spec=spec, want=(values, indices), itype=index_dtype(spec),
                       host=host),
        default=on_lax)


def sort(x: jax.Array, spec: SortSpec, values: bool = True, indices: bool = True,
         host: Any = None):
    """``(values, indices)`` of the stable sort for a validated spec (``None`` for the one not
    asked for); traceable.  Compiled for the CPU, the NumPy engine ``host`` (without one,
    and elsewhere, :func:`lax_sort`).

    >>> from axisops.requests import ArrayMeta
    >>> from axisops.rules.operations import sort_spec
    >>> spec = sort_spec(ArrayMeta((4,), np.dtype("float32")), 0, False)
    >>> jax.jit(sort, static_argnums=1)(jnp.array([2.0, jnp.nan, -0.0, 0.0]), spec)[1]
    Array([2, 3, 0, 1], dtype=int32)
    """
    return _run(x, "sort", spec, values, indices,
                partial(lax_sort, spec=spec, values=values, indices=indices), host)


def kthvalue(x: jax.Array, spec: KthSpec, host: Any = None):
    """``(values, indices)`` of a validated kthvalue (or median) spec; traceable.  Compiled
    for the CPU, the NumPy engine ``host`` (without one, and elsewhere, :func:`lax_kthvalue`).

    >>> from axisops.requests import ArrayMeta
    >>> from axisops.rules.operations import median_spec
    >>> spec = median_spec(ArrayMeta((4,), np.dtype("float32")), 0, False)
    >>> jax.jit(kthvalue, static_argnums=1)(jnp.array([4.0, 1.0, 3.0, 2.0]), spec)[1]
    Array(3, dtype=int32)
    """
    return _run(x, "kthvalue", spec, True, True, partial(lax_kthvalue, spec=spec), host)


def partition(x: jax.Array, spec: PartitionSpec, values: bool = True, indices: bool = True,
              host: Any = None):
    """``(values, indices)`` of the deterministic partition for a validated spec (``None``
    for the one not asked for); traceable.  Compiled for the CPU, the NumPy engine ``host``
    (without one, and elsewhere, :func:`lax_partition`).

    >>> from axisops.requests import ArrayMeta
    >>> from axisops.rules.operations import partition_spec
    >>> spec = partition_spec(ArrayMeta((5,), np.dtype("int32")), 2, 0)
    >>> jax.jit(partition, static_argnums=1)(jnp.array([3, 1, 4, 1, 5]), spec)[1]
    Array([1, 3, 0, 2, 4], dtype=int32)
    """
    return _run(x, "partition", spec, values, indices,
                partial(lax_partition, spec=spec, values=values, indices=indices), host)
