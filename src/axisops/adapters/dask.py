"""The Dask adapter: ``dask.array`` arrays for the ``"dask"`` engine, dask arrays back.

A gather index may be a dask array or anything NumPy reads (a NumPy index is
checked at once, when the graph is built; a dask index block by block when
computed).  dask is imported when a dask array is first served, never before.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._forksafe import imported
from ..requests import ArrayMeta
from ..rules.inputs import check_known_chunks, unreadable
from .base import Adapter
from .numpy import as_ndarray

__all__ = ["ADAPTER", "DaskAdapter"]


def _is_dask_array(x: Any) -> bool:
    imported("dask.array")
    import dask.array as da

    return isinstance(x, da.Array)


class DaskAdapter(Adapter):
    name = "dask"
    engine_types = ("dask",)

    def take(self, x: Any, name: str) -> Any:
        if not _is_dask_array(x):
            unreadable(name, x, "is a dask collection but not a dask array",
                       "need a dask.array.Array")
        return x

    def index(self, index: Any, x: Any, name: str) -> Any:
        return index if _is_dask_array(index) else as_ndarray(index, name)

    def meta(self, a: Any, name: str) -> ArrayMeta:
        if isinstance(a, np.ndarray):
            return ArrayMeta(a.shape, a.dtype)
        return ArrayMeta(check_known_chunks(name, tuple(a.shape)), np.dtype(a.dtype))

    def broadcast_to(self, a: Any, shape: tuple[int, ...]) -> Any:
        if tuple(a.shape) == shape:
            return a
        if _is_dask_array(a):
            imported("dask.array")
            import dask.array as da

            # da.broadcast_to mis-chunks a size-1 axis split as (0, 1).
            split_ones = {d: 1 for d, c in enumerate(a.chunks) if a.shape[d] == 1 and len(c) > 1}
            return da.broadcast_to(a.rechunk(split_ones) if split_ones else a, shape)
        return np.broadcast_to(a, shape)

    def reshape(self, a: Any, shape: tuple[int, ...]) -> Any:
        """``a`` in ``shape``, C order: dask's own reshape (what ``dask.array.ravel`` does for
        ``axis=None``), lazy, chunks as dask makes them; an empty array in one chunk first
        (dask's reshape cannot merge a dimension of size 0 split in chunks)."""
        if _is_dask_array(a) and 0 in a.shape and a.npartitions > 1:
            a = a.rechunk(-1)  # nothing to move
        return a.reshape(shape)


ADAPTER = DaskAdapter()
