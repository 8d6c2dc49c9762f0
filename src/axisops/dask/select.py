"""Sort, partition and kthvalue (median) of dask arrays, exact for the chunkings they allow.

**kthvalue and median** work along a chunked axis without a full sort, by an exact
radix select over *order keys*.  Every element maps to an unsigned integer of its
own width whose order is the contract's (NaN above +inf, -0.0 equal to +0.0,
integers exact; :func:`order_keys`).  The k-th smallest key is then found 8 bits
at a time, from the top: in round ``t`` every chunk counts, per sequence, the
keys whose higher bits equal the prefix found so far, by their next 8 bits (a
histogram of 256 buckets); the histograms are summed along the axis by a tree
of ``split_every`` tasks, and the bucket that holds rank ``k`` extends the
prefix (and ``k`` becomes the rank inside that bucket).  After ``itemsize``
rounds the prefix is the whole key ``K`` of the answer and ``r`` its rank among
the elements equal to ``K``.  The last round's per-chunk histograms already hold
how many keys equal ``K`` in each chunk, so one more pass finds the chunk, and in
it the position, of the ``r``-th equal key in index order: that element is the
k-th of the stable order, and its value is read from the chunk (its bits kept).
Each chunk is read ``itemsize + 1`` times; the tasks hold 256 counts per
sequence, never a chunk's sort.  Along an axis in one chunk, each block runs the
block engine's own kthvalue (the compiled core by default).

**sort, argsort, partition and argpartition** need the whole sequence at once:
along an axis in one chunk they run block by block on the block engine; along a
chunked axis they are refused with an error that says how to ``rechunk``.
"""

from __future__ import annotations

from itertools import product
from math import prod
from typing import Any

import dask.array as da
import numpy as np
from dask.base import tokenize
from dask.task_spec import Task, TaskRef

from ..dtypes import native
from ..engines import blocks as block_engines
from ..kernels.keys import order_keys
from ..requests import KthSpec, PartitionSpec, SortSpec
from ..rules.inputs import check_one_chunk
from .tree import graph_with, resolve_split_every, tree_reduce

__all__ = ["kthvalue", "order_keys", "partition", "sort"]

#: bits of the key decided per round of the radix select, and the buckets they make.
DIGIT_BITS = 8
BUCKETS = 1 << DIGIT_BITS

def _rows(block: np.ndarray, axis: int) -> np.ndarray:
    """``block``'s sequences along ``axis`` as the rows of a 2-D array (a view if it can)."""
    moved = np.moveaxis(block, axis, -1)
    return moved.reshape(prod(moved.shape[:-1]), block.shape[axis])


class _State:
    """What the radix select knows of each sequence: the high bits of the answer's key
    (``prefix``) and its rank among the keys that start with them (``rank``, 1-based)."""

    def __init__(self, prefix: np.ndarray, rank: np.ndarray) -> None:
        self.prefix = prefix
        self.rank = rank


def _histogram(block: np.ndarray, axis: int, state: _State | None, shift: int) -> np.ndarray:
    """Per sequence, how many keys starting with ``state.prefix`` (above bit
    ``shift + DIGIT_BITS``) have each value of bits ``[shift, shift + DIGIT_BITS)``."""
    keys = _rows(order_keys(block), axis).astype(np.uint64)
    rows = keys.shape[0]
    digits = (keys >> np.uint64(shift)) & np.uint64(BUCKETS - 1)
    flat = np.arange(rows, dtype=np.uint64)[:, None] * np.uint64(BUCKETS) + digits
    if state is not None:
        high = np.uint64(shift + DIGIT_BITS)
        flat = flat[(keys >> high) == (state.prefix >> high)[:, None]]
    return np.bincount(flat.ravel().astype(np.intp), minlength=rows * BUCKETS).reshape(
        rows, BUCKETS)


def _add(*parts: np.ndarray) -> np.ndarray:
    return sum(parts[1:], parts[0])


def _pick(state: _State | None, k: int, shift: int, total: np.ndarray) -> _State:
    """The bucket of each sequence that holds its rank: the prefix grows by its bits."""
    rows = total.shape[0]
    if state is None:
        state = _State(np.zeros(rows, np.uint64), np.full(rows, k, np.int64))
    cum = np.cumsum(total, axis=1)
    bucket = (cum < state.rank[:, None]).sum(axis=1)
    below = np.where(bucket > 0, cum[np.arange(rows), np.maximum(bucket - 1, 0)], 0)
    prefix = state.prefix | (bucket.astype(np.uint64) << np.uint64(shift))
    return _State(prefix, state.rank - below)


def _equal_count(histogram: np.ndarray, state: _State) -> np.ndarray:
    """From a chunk's last-round histogram: how many of its keys equal each answer's key."""
    rows = histogram.shape[0]
    digit = (state.prefix & np.uint64(BUCKETS - 1)).astype(np.intp)
    return histogram[np.arange(rows), digit]


def _before(*counts: np.ndarray) -> np.ndarray:
    """Per chunk (first axis), how many keys equal to the answer's come in earlier chunks."""
    stacked = np.stack(counts)
    return np.cumsum(stacked, axis=0) - stacked


def _raw(a: np.ndarray) -> np.ndarray:
    return a.view(np.dtype(f"u{a.dtype.itemsize}"))


def _take(block: np.ndarray, axis: int, state: _State, before: np.ndarray, j: int,
          offset: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The sequences whose answer lies in this chunk (``found``), its value's bits and its
    global index: the ``r``-th key equal to the answer's, counting from the first chunk."""
    block = block.astype(native(block.dtype), copy=False)
    keys = _rows(order_keys(block), axis).astype(np.uint64)
    rows, m = keys.shape
    raw = np.dtype(f"u{block.dtype.itemsize}")
    if m == 0:  # an empty chunk holds no answer
        return np.zeros(rows, bool), np.zeros(rows, raw), np.zeros(rows, np.int64)
    target = state.rank - before[j]
    equal = keys == state.prefix[:, None]
    seen = np.cumsum(equal, axis=1)
    found = (target >= 1) & (target <= seen[:, -1])
    local = np.argmax(equal & (seen == target[:, None]), axis=1)
    values = _raw(_rows(block, axis))[np.arange(rows), local]
    return found, values, local.astype(np.int64) + offset


def _combine(*parts: tuple[np.ndarray, np.ndarray, np.ndarray]
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    found, values, indices = parts[0]
    for more_found, more_values, more_indices in parts[1:]:
        values = np.where(more_found, more_values, values)
        indices = np.where(more_found, more_indices, indices)
        found = found | more_found
    return found, values, indices


def _shaped(result: tuple[np.ndarray, np.ndarray, np.ndarray], shape: tuple[int, ...],
            dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
    _, values, indices = result
    return values.view(dtype).reshape(shape), indices.reshape(shape)


def _block_kthvalue(block: np.ndarray, spec: KthSpec, engine: str | None
                    ) -> tuple[np.ndarray, np.ndarray]:
    piece = spec.replace(shape=tuple(block.shape), dtype=block.dtype)
    return block_engines.named(engine).kthvalue(block, piece)


def _item(pair: tuple[Any, ...], i: int) -> Any:
    return pair[i]


def _out_where(where: tuple[int, ...], axis: int, keepdims: bool) -> tuple[int, ...]:
    return where if keepdims else where[:axis] + where[axis + 1 :]


def kthvalue(x: da.Array, spec: KthSpec, split_every: int | None = None,
             block_backend: str | None = None) -> tuple[da.Array, da.Array]:
    """Lazy ``(values, indices)`` of a validated kthvalue (or median) request.

    Along a chunked axis, the radix select of this module's docstring (``split_every``:
    the fan-in of its sums, default dask's setting, else 4); along an axis in one
    chunk, each block's kthvalue on the NumPy engine ``block_backend`` (default: each
    worker's default).

    >>> import dask.array as da, axisops
    >>> x = da.from_array([5, 1, 5, 2, 5, 1], chunks=2)
    >>> values, indices = axisops.kthvalue(x, 5)
    >>> int(values.compute()), int(indices.compute())
    (5, 2)
    """
    axis = spec.axis
    fan_in = resolve_split_every(split_every, axis)
    token = tokenize(x, spec, fan_in, block_backend)
    work, vname, iname = (f"axisops-kthvalue-{part}-{token}"
                          for part in ("work", "values", "indices"))
    grid = [range(n) if d != axis else range(1) for d, n in enumerate(x.numblocks)]
    nblocks = x.numblocks[axis]
    offsets = np.cumsum((0, *x.chunks[axis]))
    dtype = spec.out_dtype
    layer: dict = {}
    values_layer: dict = {}
    indices_layer: dict = {}
    for where in product(*grid):
        blocks = [(*where[:axis], j, *where[axis + 1 :]) for j in range(nblocks)]
        refs = [TaskRef((x.name, *b)) for b in blocks]
        out = _out_where(where, axis, spec.keepdims)
        if nblocks == 1:
            final = (work, "block", *where)
            layer[final] = Task(final, _block_kthvalue, refs[0], spec, block_backend)
        else:
            final = _radix_select(layer, work, where, refs, spec, fan_in, offsets)
            shape = tuple(1 if d == axis else x.chunks[d][w] for d, w in enumerate(where))
            if not spec.keepdims:
                shape = shape[:axis] + shape[axis + 1 :]
            key = (work, "shaped", *where)
            layer[key] = Task(key, _shaped, TaskRef(final), shape, dtype)
            final = key
        values_layer[(vname, *out)] = Task((vname, *out), _item, TaskRef(final), 0)
        indices_layer[(iname, *out)] = Task((iname, *out), _item, TaskRef(final), 1)
    graph = graph_with([x], work, layer, {vname: values_layer, iname: indices_layer})
    chunks = (*x.chunks[:axis], *(((1,),) if spec.keepdims else ()), *x.chunks[axis + 1 :])
    empty = (0,) * len(chunks)
    values = da.Array(graph, vname, chunks, meta=np.empty(empty, dtype))
    indices = da.Array(graph, iname, chunks, meta=np.empty(empty, np.int64))
    return values, indices


def _radix_select(layer: dict, work: str, where: tuple[int, ...], refs: list[TaskRef],
                  spec: KthSpec, fan_in: int, offsets: np.ndarray) -> tuple:
    """Add the radix select of one row of blocks along the axis to ``layer``; the key
    of its ``(found, value bits, indices)``."""
    axis = spec.axis
    width = 8 * spec.dtype.itemsize
    state: Any = None
    hists: list[tuple] = []
    for t, shift in enumerate(range(width - DIGIT_BITS, -1, -DIGIT_BITS)):
        hists = []
        for j, ref in enumerate(refs):
            key = (work, "hist", t, *where, j)
            layer[key] = Task(key, _histogram, ref, axis, state, shift)
            hists.append(key)
        total = tree_reduce(layer, hists, _add, fan_in, work, (t, *where))
        key = (work, "pick", t, *where)
        layer[key] = Task(key, _pick, state, spec.k, shift, TaskRef(total))
        state = TaskRef(key)
    counts = []
    for j, hist in enumerate(hists):
        key = (work, "count", *where, j)
        layer[key] = Task(key, _equal_count, TaskRef(hist), state)
        counts.append(TaskRef(key))
    before = (work, "before", *where)
    layer[before] = Task(before, _before, *counts)
    parts = []
    for j, ref in enumerate(refs):
        key = (work, "take", *where, j)
        layer[key] = Task(key, _take, ref, axis, state, TaskRef(before), j, int(offsets[j]))
        parts.append(key)
    return tree_reduce(layer, parts, _combine, fan_in, work, ("take", *where))


# ---- sort and partition: one chunk along the axis ---------------------------------------------


def _block_run(block: np.ndarray, spec: SortSpec | PartitionSpec, values: bool,
               indices: bool, engine: str | None) -> tuple[Any, Any]:
    piece = spec.replace(shape=tuple(block.shape), dtype=block.dtype)
    return piece.compute(block_engines.named(engine), block, want=(values, indices))


def _blockwise(x: da.Array, spec: SortSpec | PartitionSpec, op: str, values: bool,
               indices: bool, block_backend: str | None) -> tuple[Any, Any]:
    check_one_chunk("x", x.chunks[spec.axis], spec.axis, op)
    token = tokenize(x, spec, values, indices, block_backend)
    work, vname, iname = (f"axisops-{op}-{part}-{token}" for part in ("work", "values", "indices"))
    layer: dict = {}
    outputs: dict[str, dict] = {}
    wanted: list[tuple[str, int, np.dtype]] = []
    if values:
        wanted.append((vname, 0, spec.out_dtype))
    if indices:
        wanted.append((iname, 1, np.dtype(np.int64)))
    for name, _, _ in wanted:
        outputs[name] = {}
    for where in product(*(range(n) for n in x.numblocks)):
        key = (work, *where)
        layer[key] = Task(key, _block_run, TaskRef((x.name, *where)), spec, values, indices,
                          block_backend)
        for name, i, _ in wanted:
            outputs[name][(name, *where)] = Task((name, *where), _item, TaskRef(key), i)
    graph = graph_with([x], work, layer, outputs)
    empty = (0,) * x.ndim
    made = {name: da.Array(graph, name, x.chunks, meta=np.empty(empty, dtype))
            for name, _, dtype in wanted}
    return made.get(vname), made.get(iname)


def sort(x: da.Array, spec: SortSpec, values: bool = True, indices: bool = True,
         block_backend: str | None = None) -> tuple[Any, Any]:
    """Lazy ``(values, indices)`` of a validated sort (``None`` for the one not asked
    for); ``x`` must be in one chunk along the axis.

    >>> import dask.array as da, axisops
    >>> axisops.argsort(da.from_array([[3, 1, 3]], chunks=(1, 3))).compute()
    array([[1, 0, 2]])
    """
    return _blockwise(x, spec, "sort", values, indices, block_backend)


def partition(x: da.Array, spec: PartitionSpec, values: bool = True, indices: bool = True,
              block_backend: str | None = None) -> tuple[Any, Any]:
    """Lazy ``(values, indices)`` of a validated partition; one chunk along the axis."""
    return _blockwise(x, spec, "partition", values, indices, block_backend)

