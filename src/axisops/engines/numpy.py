"""The ``"numpy"`` engine: the reference implementations (:mod:`axisops.reference`).

A full stable sort per top-k, sort, kthvalue, partition and quantile, and
``take_along_axis`` per gather: slow and obviously right, the oracle every other
engine is tested against.  Values keep their bits (NaN payloads, the sign of
zero); gather checks every index value first
(:func:`~axisops.rules.operations.check_index_values`).  The references are
imported when it first runs: listing the NumPy engines imports this module.
"""

from __future__ import annotations

import numpy as np

from .._forksafe import imported
from ..dtypes import native
from ..requests import GatherSpec, KthSpec, PartitionSpec, QuantileSpec, SortSpec, TopKSpec
from ..rules.operations import check_index_values
from .base import Engine

__all__ = ["ENGINE", "NumpyEngine"]


def _taken(x: np.ndarray, order: np.ndarray, axis: int, dtype: np.dtype,
           wanted: bool) -> np.ndarray | None:
    """``x`` taken at ``order`` along ``axis``, C-contiguous of ``dtype`` (if ``wanted``)."""
    if not wanted:
        return None
    return np.ascontiguousarray(np.take_along_axis(x, order, axis), dtype=dtype)


class NumpyEngine(Engine):
    name = "numpy"
    array_type = "numpy"
    priority = 0
    requires = ("numpy",)
    description = "reference implementation on NumPy (full stable sort)"

    def topk(self, x: np.ndarray, spec: TopKSpec) -> tuple[np.ndarray, np.ndarray]:
        imported("axisops.reference.topk")
        from ..reference.topk import topk

        values, indices = topk(x, spec.k, spec.axis, spec.largest)
        return (np.ascontiguousarray(values, dtype=spec.out_dtype),
                np.ascontiguousarray(indices, dtype=spec.index_dtype))

    def gather(self, x: np.ndarray, index: np.ndarray, spec: GatherSpec) -> np.ndarray:
        imported("axisops.reference.gather")
        from ..reference.gather import gather

        check_index_values(index, spec)
        out = gather(x, spec.dim, index)
        return np.ascontiguousarray(out, dtype=spec.out_dtype)

    def sort(self, x: np.ndarray, spec: SortSpec, values: bool = True,
             indices: bool = True) -> tuple[np.ndarray | None, np.ndarray | None]:
        imported("axisops.reference")
        from ..reference import argsort

        order = argsort(x, spec.axis, spec.descending)
        return _taken(x, order, spec.axis, spec.out_dtype, values), order if indices else None

    def kthvalue(self, x: np.ndarray, spec: KthSpec) -> tuple[np.ndarray, np.ndarray]:
        imported("axisops.reference", "axisops.reference.kthvalue")
        from ..reference import kthvalue

        values, indices = kthvalue(x, spec.k, spec.axis)
        return (np.ascontiguousarray(values, dtype=spec.out_dtype).reshape(spec.out_shape),
                np.ascontiguousarray(indices, dtype=np.int64).reshape(spec.out_shape))

    def partition(self, x: np.ndarray, spec: PartitionSpec, values: bool = True,
                  indices: bool = True) -> tuple[np.ndarray | None, np.ndarray | None]:
        imported("axisops.reference")
        from ..reference import argpartition

        order = argpartition(x, list(spec.kth), spec.axis)
        return _taken(x, order, spec.axis, spec.out_dtype, values), order if indices else None

    def quantile(self, x: np.ndarray, spec: QuantileSpec, parts: bool = False):
        imported("axisops.reference.quantile")
        from ..reference.quantile import quantile

        if parts:
            return _reference_parts(x, spec)
        values = quantile(x, _user_q(spec), spec.axis, spec.method, spec.keepdims, spec.skipnan,
                          spec.out_dtype)
        return np.asarray(values, spec.out_dtype, order="C")


def _user_q(spec: QuantileSpec):
    """``q`` as the caller gave it: a Python scalar (NumPy promotes it weakly) or an array."""
    if spec.weak:
        return spec.q[0] if spec.q_dtype.kind == "f" else int(spec.q[0])
    return np.array(spec.q, spec.q_dtype).reshape(spec.q_shape)


def _reference_parts(x: np.ndarray, spec: QuantileSpec):
    """The parts of :meth:`Engine.quantile <axisops.engines.base.Engine.quantile>` from the
    oracle's stable sort: the order statistics NumPy's formulas read, or torch's ranks
    (``flavour="torch"``), with their indices and weight."""
    imported("axisops.reference.quantile", "axisops.rules.quantile")
    from ..reference.quantile import quantile_parts, torch_quantile_parts
    from ..rules.quantile import weights_dtype

    if spec.flavour == "numpy":
        parts = quantile_parts(x, _user_q(spec), spec.axis, spec.method, spec.keepdims,
                               spec.skipnan, weights_dtype(spec))
    else:
        q = np.array(spec.q, spec.dtype).reshape(spec.q_shape)
        parts = torch_quantile_parts(x, q, spec.axis, spec.method, spec.skipnan)
        if spec.keepdims:
            parts = tuple(np.expand_dims(a, len(spec.q_shape) + spec.axis) for a in parts)
    return tuple(np.asarray(a, native(a.dtype), order="C") for a in parts)


ENGINE = NumpyEngine()
