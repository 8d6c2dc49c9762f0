"""The ``"dask"`` engine: lazy, exact top-k and gather on ``dask.array`` arrays.

Dask in, Dask out: results are lazy dask arrays for any chunking, chunks
along the selected axis included, and compute to exactly the NumPy result.
The graphs are built by :mod:`axisops.dask`; each task runs its blocks on the
NumPy engine it is given by name (default: each worker's default, looked up
in :mod:`axisops.engines`).  dask is imported when a graph is first built.

The merge fan-in is dask's ``split_every`` setting (default 4)::

    with dask.config.set(split_every=8):
        values, indices = axisops.topk(x, 10, axis=0)
"""

from __future__ import annotations

from typing import Any

from ..validation import GatherSpec, TopKSpec
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
        from ..dask.topk import topk

        return topk(x, spec)

    def gather(self, x: Any, index: Any, spec: GatherSpec) -> Any:
        from ..dask.gather import gather

        return gather(x, index, spec)


ENGINE = DaskEngine()
