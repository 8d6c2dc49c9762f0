"""The ``"dask"`` backend: lazy, exact top-k and gather on ``dask.array`` arrays.

Dask in, Dask out: results are lazy dask arrays for any chunking, chunks
along the selected axis included, and compute to exactly the NumPy result.
The graphs live in :mod:`axisops.dask`; this module only adapts arrays.
dask is imported when a dask array is first served, never at discovery.

A gather index may be a dask array or anything NumPy reads (checked at once,
when the graph is built); a dask index is checked block by block when computed.
The merge fan-in is dask's ``split_every`` setting (default 4)::

    with dask.config.set(split_every=8):
        values, indices = axisops.topk(x, 10, axis=0)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..errors import InvalidArgumentError
from ..validation import ArrayMeta, GatherSpec, TopKSpec
from .base import Backend
from .numpy_family import as_ndarray

__all__ = ["BACKEND", "DaskBackend"]


def _is_dask_array(x: Any) -> bool:
    import dask.array as da

    return isinstance(x, da.Array)


class DaskBackend(Backend):
    name = "dask"
    array_modules = ("dask",)
    priority = 0
    requires = ("dask",)
    extra = "dask"
    description = "lazy dask arrays: per-chunk kernels, exact tree merges"

    def asarray(self, x: Any, name: str) -> Any:
        if not _is_dask_array(x):
            raise InvalidArgumentError(
                f"{name} of type {type(x).__module__}.{type(x).__qualname__} is a "
                f"dask collection but not a dask array (need a dask.array.Array)"
            )
        return x

    def as_index(self, index: Any, x: Any, name: str) -> Any:
        return index if _is_dask_array(index) else as_ndarray(index, name)

    def meta(self, x: Any, name: str) -> ArrayMeta:
        for d, size in enumerate(x.shape):
            if isinstance(size, float) and math.isnan(size):
                raise InvalidArgumentError(
                    f"{name} has unknown chunk sizes along axis {d} "
                    f"(shape {x.shape}); call {name}.compute_chunk_sizes() first"
                )
        return ArrayMeta(tuple(int(s) for s in x.shape), np.dtype(x.dtype))

    def broadcast_to(self, x: Any, shape: tuple[int, ...]) -> Any:
        if tuple(x.shape) == shape:
            return x
        if _is_dask_array(x):
            import dask.array as da

            # da.broadcast_to mis-chunks a size-1 axis split as (0, 1).
            split_ones = {d: 1 for d, c in enumerate(x.chunks) if x.shape[d] == 1 and len(c) > 1}
            return da.broadcast_to(x.rechunk(split_ones) if split_ones else x, shape)
        return np.broadcast_to(x, shape)

    def topk(self, x: Any, spec: TopKSpec) -> tuple[Any, Any]:
        from ..dask.topk import topk

        return topk(x, spec)

    def gather(self, x: Any, index: Any, spec: GatherSpec) -> Any:
        from ..dask.gather import gather

        return gather(x, index, spec)


BACKEND = DaskBackend()
