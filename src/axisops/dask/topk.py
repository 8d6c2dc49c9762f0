"""Exact top-k of a dask array along any axis, for any chunking and fan-in.

Every block along the axis yields its own top-k, *sorted*, with indices made
global by adding the block's offset.  A tree merges ``split_every`` of these
candidate sets at a time, concatenated in block order, and keeps the top-k of
each concatenation.  Within a sorted candidate set equal values come in index
order, and every index of an earlier block is below every index of a later
one, so in each concatenation equal values appear in increasing global-index
order: a top-k of the concatenated values (ties to the lower position) is the
top-k of their union, with the contract's tie rule.  The result is therefore
bit-identical to the NumPy result for every chunking and every fan-in.

Blocks and merges are :mod:`axisops.merge`'s, on the validated spec: each
task runs the NumPy engine named ``block_backend``, or the worker's default
(the fastest installed), looked up by name once per task
(:func:`axisops.engines.blocks.named`) and never validated again.
"""

from __future__ import annotations

from functools import partial
from itertools import product

import dask.array as da
import numpy as np
from dask.base import tokenize
from dask.task_spec import Task, TaskRef

from ..engines import blocks as block_engines
from ..merge import Candidates, block_candidates, merge_candidates
from ..requests import TopKSpec
from .tree import graph_with, resolve_split_every, tree_reduce

__all__ = ["topk"]


def _candidates(block: np.ndarray, spec: TopKSpec, offset: int,
                engine: str | None) -> Candidates:
    return block_candidates(block, spec, offset, block_engines.named(engine))


def _merge(engine: str | None, spec: TopKSpec, *parts: Candidates) -> Candidates:
    return merge_candidates(spec, *parts, engine=block_engines.named(engine))


def _values(candidates: Candidates) -> np.ndarray:
    return candidates[0]


def _indices(candidates: Candidates, dtype: np.dtype) -> np.ndarray:
    return candidates[1].astype(dtype, copy=False)


def topk(x: da.Array, spec: TopKSpec, split_every: int | None = None,
         block_backend: str | None = None) -> tuple[da.Array, da.Array]:
    """Lazy ``(values, indices)`` of a validated top-k request on a dask array.

    ``split_every`` is the merge fan-in (default: dask's ``split_every``
    setting, else 4).  ``block_backend`` names the NumPy engine the tasks run
    (default: each worker's default).  Results are sorted whatever
    ``spec.sorted`` says.

    >>> import dask.array as da, axisops
    >>> x = da.from_array([3, 1, 3, 2, 3], chunks=2)
    >>> axisops.topk(x, 2).indices.compute()
    array([0, 2])
    """
    axis, k = spec.axis, spec.k
    fan_in = resolve_split_every(split_every, axis)
    token = tokenize(x, axis, k, spec.largest, spec.index_dtype, fan_in, block_backend)
    merge = partial(_merge, block_backend)
    work, vname, iname = (f"axisops-topk-{part}-{token}" for part in ("work", "values", "indices"))
    offsets = np.cumsum((0, *x.chunks[axis]))
    grid = [range(n) if d != axis else range(1) for d, n in enumerate(x.numblocks)]
    layer: dict = {}
    values_layer: dict = {}
    indices_layer: dict = {}
    for where in product(*grid):
        leaves = []
        for j in range(x.numblocks[axis]):
            block = (*where[:axis], j, *where[axis + 1 :])
            key = (work, 0, *block)
            layer[key] = Task(key, _candidates, TaskRef((x.name, *block)), spec,
                              int(offsets[j]), block_backend)
            leaves.append(key)
        final = tree_reduce(layer, leaves, merge, fan_in, work, where, spec)
        values_layer[(vname, *where)] = Task((vname, *where), _values, TaskRef(final))
        indices_layer[(iname, *where)] = Task(
            (iname, *where), _indices, TaskRef(final), spec.index_dtype
        )
    graph = graph_with([x], work, layer, {vname: values_layer, iname: indices_layer})
    chunks = (*x.chunks[:axis], (k,), *x.chunks[axis + 1 :])
    empty = (0,) * x.ndim
    values = da.Array(graph, vname, chunks, meta=np.empty(empty, spec.out_dtype))
    indices = da.Array(graph, iname, chunks, meta=np.empty(empty, spec.index_dtype))
    return values, indices
