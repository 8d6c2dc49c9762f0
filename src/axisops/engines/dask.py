"""The ``"dask"`` engine: lazy, exact top-k, gather and the selection family on dask arrays.

Dask in, Dask out: results are lazy dask arrays for any chunking, chunks
along the selected axis included, and compute to exactly the NumPy result.
The graphs are built by :mod:`axisops.dask`; each task runs its blocks on the
NumPy engine it is given by name (default: each worker's default, looked up
by :func:`axisops.engines.blocks.named`).  dask is imported when a graph is first built.

kthvalue, median and the quantile family (quantile, nanquantile, nanmedian) work
along a chunked axis too (an exact radix select over the order keys,
:mod:`axisops.dask.select`); sort, argsort, partition and argpartition need the axis
in one chunk, and say how to ``rechunk`` otherwise.

The merge fan-in is dask's ``split_every`` setting (default 4)::

    with dask.config.set(split_every=8):
        values, indices = axisops.topk(x, 10, axis=0)
"""

from __future__ import annotations

from typing import Any

from .._forksafe import imported
from ..requests import GatherSpec, KthSpec, PartitionSpec, QuantileSpec, SortSpec, TopKSpec
from .base import Engine

__all__ = ["ENGINE", "DaskEngine"]


class DaskEngine(Engine):
    name = "dask"
    array_type = "dask"
    priority = 0
    requires = ("dask",)
    extra = "dask"
    description = "lazy dask arrays: per-chunk kernels, exact tree merges"

    def topk(self, x: Any, spec: TopKSpec) -> tuple[Any, Any]:
        imported("axisops.dask.topk")
        from ..dask.topk import topk

        return topk(x, spec)

    def gather(self, x: Any, index: Any, spec: GatherSpec) -> Any:
        imported("axisops.dask.gather")
        from ..dask.gather import gather

        return gather(x, index, spec)

    def sort(self, x: Any, spec: SortSpec, values: bool = True,
             indices: bool = True) -> tuple[Any, Any]:
        imported("axisops.dask.select")
        from ..dask.select import sort

        return sort(x, spec, values, indices)

    def kthvalue(self, x: Any, spec: KthSpec) -> tuple[Any, Any]:
        imported("axisops.dask.select")
        from ..dask.select import kthvalue

        return kthvalue(x, spec)

    def partition(self, x: Any, spec: PartitionSpec, values: bool = True,
                  indices: bool = True) -> tuple[Any, Any]:
        imported("axisops.dask.select")
        from ..dask.select import partition

        return partition(x, spec, values, indices)

    def quantile(self, x: Any, spec: QuantileSpec, parts: bool = False) -> Any:
        imported("axisops.dask.select")
        from ..dask.select import quantile

        return quantile(x, spec, parts)


ENGINE = DaskEngine()
