"""The internal entry: pieces of a validated request, run on a resolved backend.

The public functions (:mod:`axisops.ops`) validate every argument once, pick a
backend once, and hand the backend a spec.  Code that cuts one request into
many pieces (the blocks and merges of a chunked top-k, the blocks of a
streamed gather, the tasks of a Dask graph) comes here instead of calling the
public functions per piece: each piece's spec is *derived* from the validated
one (only its shape, dtype and k change, by construction within range), and
runs on a backend resolved once.  Nothing is validated twice and no backend
is selected per piece.

A message a backend raises while running a piece names the public function
the user called all the same: the name is added where that function returns
(see :func:`axisops.errors.boundary`), not carried here.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from . import registry
from .backends.base import Backend
from .dtypes import native
from .validation import GatherSpec, TopKSpec

__all__ = ["gather_block", "numpy_backend", "topk_block"]

#: The index dtype of every partial top-k (offsets may exceed the caller's type).
PIECE_INDEX = np.dtype(np.int64)


def numpy_backend(name: str | None, dtype: Any = np.float64) -> Backend:
    """The backend that runs NumPy arrays of ``dtype``: the one named, else the default.

    Raises the registry's error (naming ``backend=``) for a name that is
    unknown, not installed, or not a NumPy-family backend.

    >>> numpy_backend("numpy").name
    'numpy'
    """
    return registry.select(np.empty(0, dtype), name)


def topk_block(impl: Backend, block: np.ndarray, spec: TopKSpec, k: int | None = None
               ) -> tuple[np.ndarray, np.ndarray]:
    """The sorted top-``min(k, n)`` of ``block`` along ``spec.axis``, with int64 indices.

    ``block`` is a NumPy array with ``spec``'s rank and a dtype ``spec``
    allows (its own byte order); ``k`` defaults to ``spec.k``.

    >>> from axisops.validation import ArrayMeta, topk_spec
    >>> spec = topk_spec(ArrayMeta((4,), np.dtype(int)), 2, 0, True, False, None)
    >>> topk_block(numpy_backend("numpy"), np.array([5, 7, 5, 1]), spec)
    (array([7, 5]), array([1, 0]))
    """
    n = block.shape[spec.axis]
    piece = replace(spec, shape=block.shape, dtype=block.dtype, sorted=True,
                    k=min(spec.k if k is None else k, n), index_dtype=PIECE_INDEX)
    return impl.topk(block, piece)


def gather_block(impl: Backend, data: np.ndarray, index: np.ndarray, spec: GatherSpec
                 ) -> np.ndarray:
    """``gather(data, spec.dim, index)`` for one block of a validated request.

    ``data`` and ``index`` are NumPy arrays of ``spec``'s rank, with
    ``index.shape[d] <= data.shape[d]`` off ``spec.dim`` and index values
    valid for ``data`` (the caller checked or wrapped them).
    """
    piece = replace(spec, shape=data.shape, dtype=data.dtype, index_shape=index.shape,
                    index_dtype=native(index.dtype))
    return impl.gather(data, index, piece)
