"""Gather along a chunked axis of a dask array (torch.gather semantics).

The output has the index's chunks.  ``x`` is cut to the index's extent and
its chunks in every dimension but ``dim`` are aligned with the index's, so the
index block ``b`` needs only the blocks of ``x`` that share ``b``'s position
off ``dim``: one *column* of data blocks along ``dim``.  Each index block is
checked (its out-of-range values raise the core's error, naming the position
in the whole index) and wrapped once; then for every data block ``j`` it may
touch, a task gathers the entries that fall in ``j`` (a masked partial), and a
tree combines the partials.  No task ever holds more than one data block.

A NumPy index is checked when the graph is built, and routed: each index block
is sent only to the data blocks its values fall in.  A dask index's values are
unknown until computed, so each of its blocks visits its whole column.
"""

from __future__ import annotations

from itertools import product
from typing import Any

import dask.array as da
import numpy as np
from dask.base import tokenize
from dask.task_spec import Task, TaskRef

from ..engines import blocks as block_engines
from ..errors import call_as, current_function
from ..requests import GatherSpec
from ..rules.operations import check_index_values
from .tree import graph_with, resolve_split_every, tree_reduce

__all__ = ["gather"]

Partial = tuple[np.ndarray, np.ndarray]


def checked_block(index: np.ndarray, spec: GatherSpec, offset: tuple[int, ...]) -> np.ndarray:
    """One index block checked against the whole ``dim`` and wrapped into ``[0, n)``."""
    check_index_values(index, spec, offset)
    return _wrap(index, spec.n)


def _wrap(index: np.ndarray, n: int) -> np.ndarray:
    wrapped = index.astype(np.int64)
    np.add(wrapped, n, out=wrapped, where=wrapped < 0)
    return wrapped


def _local(block: np.ndarray, local: np.ndarray, spec: GatherSpec,
           backend: str | None) -> np.ndarray:
    """Gather from one data block at block-local positions, on the engine named (or this
    worker's default)."""
    return block_engines.named(backend).gather_block(block, local, spec)


def take_block(block: np.ndarray, wrapped: np.ndarray, start: int, spec: GatherSpec,
               backend: str | None = None) -> np.ndarray:
    """The gather of an index block whose values all fall in one data block."""
    return _local(block, wrapped - start, spec, backend)


def partial_block(
    block: np.ndarray, wrapped: np.ndarray, start: int, stop: int, spec: GatherSpec,
    backend: str | None = None,
) -> Partial:
    """The entries of an index block that fall in one data block, and where they are."""
    inside = (wrapped >= start) & (wrapped < stop)
    local = np.where(inside, wrapped - start, 0)
    return _local(block, local, spec, backend), inside


def merge_partials(*parts: Partial) -> Partial:
    """Partials of one index block, combined (each position is filled by one of them)."""
    out, filled = parts[0][0].copy(), parts[0][1].copy()
    for values, inside in parts[1:]:
        np.copyto(out, values, where=inside)
        filled |= inside
    return out, filled


def _out(partial: Partial) -> np.ndarray:
    return partial[0]


def _empty(shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    return np.empty(shape, dtype)


def _cut(chunks: tuple[int, ...], extent: int) -> tuple[int, ...]:
    """``chunks`` of an axis cut to its first ``extent`` elements."""
    out, left = [], extent
    for c in chunks:
        if left <= 0:
            break
        out.append(min(c, left))
        left -= out[-1]
    return tuple(out) or (0,)


def _dask_index(index: Any, x: da.Array, spec: GatherSpec) -> da.Array:
    if isinstance(index, da.Array):
        return index
    if index.size == 0:
        return da.from_array(index, chunks=-1)
    chunks: list[Any] = [_cut(c, s) for c, s in zip(x.chunks, index.shape)]
    chunks[spec.dim] = "auto"
    return da.from_array(index, chunks=tuple(chunks))


def _aligned(x: da.Array, index: da.Array, dim: int) -> da.Array:
    """``x`` cut to the index's extent off ``dim``, with the index's chunks there."""
    cut = tuple(slice(None) if d == dim else slice(0, s) for d, s in enumerate(index.shape))
    xs = x[cut]
    target = {d: index.chunks[d] for d in range(x.ndim) if d != dim}
    if any(xs.chunks[d] != c for d, c in target.items()):
        xs = xs.rechunk(target)
    return xs


def _routes(index: np.ndarray, index_d: da.Array, ends: np.ndarray, spec: GatherSpec) -> dict:
    """For a NumPy index: the data blocks along ``dim`` each index block needs."""
    routes = {}
    starts = [np.cumsum((0, *c)) for c in index_d.chunks]
    for b in product(*(range(n) for n in index_d.numblocks)):
        sel = tuple(slice(s[i], s[i + 1]) for s, i in zip(starts, b))
        wrapped = _wrap(index[sel], spec.n)
        routes[b] = np.unique(np.searchsorted(ends, wrapped, side="right")).tolist()
    return routes


def gather(
    x: da.Array, index: Any, spec: GatherSpec, split_every: int | None = None,
    block_backend: str | None = None,
) -> da.Array:
    """The lazy gather of a validated request; ``index`` is NumPy or dask.

    ``block_backend`` names the NumPy engine the tasks run (default:
    each worker's default).

    >>> import dask.array as da, numpy as np, axisops
    >>> x = da.from_array(np.arange(12).reshape(3, 4), chunks=2)
    >>> axisops.gather(x, 1, np.array([[3, 0], [-1, 1]])).compute()
    array([[3, 0],
           [7, 5]])
    """
    dim = spec.dim
    fan_in = resolve_split_every(split_every, dim)
    if isinstance(index, np.ndarray):
        check_index_values(index, spec)
    idx = _dask_index(index, x, spec)
    if idx.size == 0:
        return da.empty(idx.shape, dtype=spec.out_dtype, chunks=idx.chunks)
    xs = _aligned(x, idx, dim)
    bounds = np.cumsum((0, *xs.chunks[dim]))
    routes = _routes(index, idx, bounds[1:], spec) if isinstance(index, np.ndarray) else None
    # Index values are checked when computed, after the public function returned:
    # the check names it all the same.
    function = current_function()
    token = tokenize(xs, idx, spec, fan_in, block_backend, function)
    work, name = f"axisops-gather-work-{token}", f"axisops-gather-{token}"
    starts = [np.cumsum((0, *c)) for c in idx.chunks]
    layer: dict = {}
    out_layer: dict = {}
    nonempty = [j for j in range(xs.numblocks[dim]) if bounds[j + 1] > bounds[j]]
    for b in product(*(range(n) for n in idx.numblocks)):
        offset = tuple(int(s[i]) for s, i in zip(starts, b))
        shape = tuple(int(s[i + 1] - s[i]) for s, i in zip(starts, b))
        wkey = (work, "index", *b)
        layer[wkey] = Task(wkey, call_as, function, checked_block, TaskRef((idx.name, *b)),
                           spec, offset)
        js = nonempty if routes is None else routes[b]
        out_key = (name, *b)
        if not js:
            out_layer[out_key] = Task(out_key, _empty, shape, spec.out_dtype)
            continue
        data = [(xs.name, *b[:dim], j, *b[dim + 1 :]) for j in js]
        if len(js) == 1:
            key = (work, "take", *b)
            layer[key] = Task(key, take_block, TaskRef(data[0]), TaskRef(wkey),
                              int(bounds[js[0]]), spec, block_backend)
            out_layer[out_key] = Task(out_key, _identity, TaskRef(key))
            continue
        leaves = []
        for j, dkey in zip(js, data):
            key = (work, "part", *b, j)
            layer[key] = Task(key, partial_block, TaskRef(dkey), TaskRef(wkey),
                              int(bounds[j]), int(bounds[j + 1]), spec, block_backend)
            leaves.append(key)
        final = tree_reduce(layer, leaves, merge_partials, fan_in, work, b)
        out_layer[out_key] = Task(out_key, _out, TaskRef(final))
    graph = graph_with([xs, idx], work, layer, {name: out_layer})
    return da.Array(graph, name, idx.chunks, meta=np.empty((0,) * x.ndim, spec.out_dtype))


def _identity(value: np.ndarray) -> np.ndarray:
    return value
