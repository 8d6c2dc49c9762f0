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

**The quantile family** (quantile, nanquantile, nanmedian) runs the same radix select for
every rank its request reads, all in the same rounds (a histogram per rank and sequence),
then NumPy's interpolation; nanquantile's ranks differ per sequence, made from the NaN
every chunk counts (one more read).

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
from ..kernels.quantile import lerp, no_weights, plan, plans
from ..requests import KthSpec, PartitionSpec, QuantileSpec, SortSpec
from ..rules.inputs import check_one_chunk
from ..rules.quantile import weights_dtype
from .tree import graph_with, resolve_split_every, tree_reduce

__all__ = ["kthvalue", "order_keys", "partition", "quantile", "sort"]

#: bits of the key decided per round of the radix select, and the buckets they make.
DIGIT_BITS = 8
BUCKETS = 1 << DIGIT_BITS

def _rows(block: np.ndarray, axis: int) -> np.ndarray:
    """``block``'s sequences along ``axis`` as the rows of a 2-D array (a view if it can)."""
    moved = np.moveaxis(block, axis, -1)
    return moved.reshape(prod(moved.shape[:-1]), block.shape[axis])


class _State:
    """What the radix select knows of each sequence and each rank it looks for: the high bits
    of the answer's key (``prefix``) and its rank among the keys that start with them
    (``rank``, 1-based); both of shape ``(sequences, ranks)``."""

    def __init__(self, prefix: np.ndarray, rank: np.ndarray) -> None:
        self.prefix = prefix
        self.rank = rank


def _histogram(block: np.ndarray, axis: int, state: _State | None, shift: int) -> np.ndarray:
    """Per sequence and rank, how many keys starting with ``state.prefix`` (above bit
    ``shift + DIGIT_BITS``) have each value of bits ``[shift, shift + DIGIT_BITS)``: an array
    of shape ``(sequences, ranks, BUCKETS)`` (one rank, shared, in the first round)."""
    keys = _rows(order_keys(block), axis).astype(np.uint64)
    rows = keys.shape[0]
    digits = (keys >> np.uint64(shift)) & np.uint64(BUCKETS - 1)
    flat = (np.arange(rows, dtype=np.uint64)[:, None] * np.uint64(BUCKETS) + digits).astype(
        np.intp)
    if state is None:
        return np.bincount(flat.ravel(), minlength=rows * BUCKETS).reshape(rows, 1, BUCKETS)
    high = np.uint64(shift + DIGIT_BITS)
    above = keys >> high
    prefixes = state.prefix >> high
    ranks = prefixes.shape[1]
    out = np.empty((rows, ranks, BUCKETS), np.int64)
    done: list[int] = []
    for t in range(ranks):
        same = next((u for u in done if np.array_equal(prefixes[:, u], prefixes[:, t])), None)
        if same is not None:  # ranks close together share their prefix for most rounds
            out[:, t] = out[:, same]
            continue
        # keys of another prefix go to one spare bucket past the last (no gather of them)
        counted = np.where(above == prefixes[:, t][:, None], flat, rows * BUCKETS)
        out[:, t] = np.bincount(counted.ravel(), minlength=rows * BUCKETS + 1)[:-1].reshape(
            rows, BUCKETS)
        done.append(t)
    return out


def _add(*parts: np.ndarray) -> np.ndarray:
    return sum(parts[1:], parts[0])


def _pick(state: _State | None, k: Any, shift: int, total: np.ndarray) -> _State:
    """The bucket of each sequence and rank that holds it: the prefix grows by its bits.
    ``k`` (first round): the 1-based ranks, an int, ``(ranks,)`` for every sequence or
    ``(sequences, ranks)``."""
    rows = total.shape[0]
    if state is None:
        k = np.asarray(k, np.int64)
        wide = k.reshape(1, -1) if k.ndim < 2 else k
        rank = np.ascontiguousarray(np.broadcast_to(wide, (rows, wide.shape[1])))
        state = _State(np.zeros(rank.shape, np.uint64), rank)
    cum = np.cumsum(np.broadcast_to(total, state.rank.shape + (BUCKETS,)), axis=2)
    bucket = (cum < state.rank[:, :, None]).sum(axis=2)
    picked = np.take_along_axis(cum, np.maximum(bucket - 1, 0)[:, :, None], axis=2)[:, :, 0]
    below = np.where(bucket > 0, picked, 0)
    prefix = state.prefix | (bucket.astype(np.uint64) << np.uint64(shift))
    return _State(prefix, state.rank - below)


def _equal_count(histogram: np.ndarray, state: _State) -> np.ndarray:
    """From a chunk's last-round histogram: how many of its keys equal each answer's key."""
    rows, ranks = state.prefix.shape
    digit = (state.prefix & np.uint64(BUCKETS - 1)).astype(np.intp)
    which = np.arange(ranks)[None, :] if histogram.shape[1] > 1 else 0
    return histogram[np.arange(rows)[:, None], which, digit]


def _before(*counts: np.ndarray) -> np.ndarray:
    """Per chunk (first axis), how many keys equal to the answer's come in earlier chunks."""
    stacked = np.stack(counts)
    return np.cumsum(stacked, axis=0) - stacked


def _raw(a: np.ndarray) -> np.ndarray:
    return a.view(np.dtype(f"u{a.dtype.itemsize}"))


def _take(block: np.ndarray, axis: int, state: _State, before: np.ndarray, j: int,
          offset: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The sequences and ranks whose answer lies in this chunk (``found``), its value's bits
    and its global index: the ``r``-th key equal to the answer's, counting from the first
    chunk.  Arrays of shape ``(sequences, ranks)``."""
    block = block.astype(native(block.dtype), copy=False)
    keys = _rows(order_keys(block), axis).astype(np.uint64)
    rows, m = keys.shape
    ranks = state.prefix.shape[1]
    raw = np.dtype(f"u{block.dtype.itemsize}")
    found = np.zeros((rows, ranks), bool)
    values = np.zeros((rows, ranks), raw)
    indices = np.zeros((rows, ranks), np.int64)
    if m == 0:  # an empty chunk holds no answer
        return found, values, indices
    target = state.rank - before[j]
    bits = _raw(_rows(block, axis))
    for t in range(ranks):
        equal = keys == state.prefix[:, t][:, None]
        seen = np.cumsum(equal, axis=1)
        found[:, t] = (target[:, t] >= 1) & (target[:, t] <= seen[:, -1])
        local = np.argmax(equal & (seen == target[:, t][:, None]), axis=1)
        values[:, t] = bits[np.arange(rows), local]
        indices[:, t] = local + offset
    return found, values, indices


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
            final = _radix_select(layer, work, where, refs, axis, spec.dtype.itemsize, spec.k,
                                  fan_in, offsets)
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
                  axis: int, itemsize: int, k: Any, fan_in: int, offsets: np.ndarray) -> tuple:
    """Add the radix select of one row of blocks along the axis to ``layer``, for the 1-based
    ranks ``k`` (an int, ``(ranks,)`` for every sequence, ``(sequences, ranks)``, or the
    reference of a task that makes one); the key of its ``(found, value bits, indices)``,
    each of shape ``(sequences, ranks)``."""
    width = 8 * itemsize
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
        layer[key] = Task(key, _pick, state, k, shift, TaskRef(total))
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


# ---- the quantile family: any chunking ----------------------------------------------------------


def _nan_count(block: np.ndarray, axis: int) -> np.ndarray:
    """How many NaN each sequence of the block holds."""
    return np.count_nonzero(np.isnan(block), axis=axis).reshape(-1).astype(np.int64)


def _row_plan(spec: QuantileSpec, *nan_counts: np.ndarray):
    """One plan per sequence, from the NaN each chunk holds: ``(ranks, plan, empty)``, the
    1-based ranks to select (below, then above; ``(sequences, 2t)``)."""
    counts = spec.n - _add(*nan_counts)
    p, empty = plans(spec, None if (counts == spec.n).all() else counts)
    rows = counts.shape[0]
    below = np.broadcast_to(p.below, (rows, p.below.shape[-1]))
    above = np.broadcast_to(p.above, below.shape)
    return np.concatenate([below, above], axis=1) + 1, p, empty


def _ranks(planned: Any) -> np.ndarray:
    return planned[0]


def _quantile_out(selected: tuple[np.ndarray, np.ndarray, np.ndarray], planned: Any,
                  spec: QuantileSpec, parts: bool, reduced: tuple[int, ...]) -> tuple:
    """The block's quantiles (or parts), from the selected order statistics: ``planned`` is
    ``(ranks, plan, empty)``, the ranks selected (1-based: the distinct ones for every
    sequence, ``(r,)``, or below then above per sequence)."""
    _, bits, at = selected
    ranks, p, empty = planned
    values = bits.view(native(spec.dtype))
    t = p.below.shape[-1]
    if ranks.ndim == 1:
        where_below = np.searchsorted(ranks, p.below + 1)
        where_above = np.searchsorted(ranks, p.above + 1)
    else:
        where_below, where_above = np.arange(t), np.arange(t, 2 * t)
    below, below_at = values[:, where_below], at[:, where_below]
    above, above_at = values[:, where_above], at[:, where_above]
    shape = spec.q_shape + reduced

    def out(a: np.ndarray) -> np.ndarray:
        return np.asarray(np.moveaxis(a, 1, 0).reshape(shape), order="C")

    rows = values.shape[0]
    if parts:
        weights = (no_weights(spec, (rows, t)) if p.gamma is None
                   else np.broadcast_to(p.gamma, (rows, t)))
        return tuple(out(a) for a in (below, below_at, above, above_at, weights))
    got = below if p.gamma is None else lerp(below, above, p.gamma, spec)
    got = got.astype(spec.out_dtype, copy=True)
    if empty is not None:
        got[empty] = np.nan
    return (out(got),)


def _block_quantile(block: np.ndarray, spec: QuantileSpec, parts: bool,
                    engine: str | None) -> tuple:
    piece = spec.replace(shape=tuple(block.shape), dtype=block.dtype)
    got = block_engines.named(engine).quantile(block, piece, parts)
    return tuple(got) if parts else (got,)


def quantile(x: da.Array, spec: QuantileSpec, parts: bool = False,
             split_every: int | None = None, block_backend: str | None = None) -> Any:
    """Lazy quantiles of a validated quantile, nanquantile or nanmedian request (or their
    parts, see :meth:`axisops.engines.base.Engine.quantile`).

    Along a chunked axis, the radix select of this module's docstring for every rank the
    request reads at once (the distinct ranks of all ``q``; for nanquantile, one set of
    ranks per sequence, made from the NaN each chunk counts), then NumPy's interpolation
    (:mod:`axisops.kernels.quantile`) on the order statistics; along an axis in one chunk,
    each block's quantiles on the NumPy engine ``block_backend``.

    >>> import dask.array as da, axisops
    >>> x = da.from_array([5.0, 1.0, 4.0, 2.0, 3.0, 9.0], chunks=2)
    >>> axisops.quantile(x, [0.5, 0.9]).compute()
    array([3.5, 7. ])
    """
    axis = spec.axis
    fan_in = resolve_split_every(split_every, axis)
    token = tokenize(x, spec, parts, fan_in, block_backend)
    work = f"axisops-quantile-work-{token}"
    names = [f"axisops-quantile-{i}-{token}" for i in range(5 if parts else 1)]
    grid = [range(n) if d != axis else range(1) for d, n in enumerate(x.numblocks)]
    nblocks = x.numblocks[axis]
    offsets = np.cumsum((0, *x.chunks[axis]))
    floating = spec.dtype.kind == "f" or spec.dtype.name == "bfloat16"
    per_row = spec.skipnan and floating
    uniform = None
    if not per_row and nblocks > 1:
        p = plan(spec, spec.n)
        uniform = (np.unique(np.concatenate([p.below, p.above])) + 1, p, None)
    lead = (0,) * len(spec.q_shape)
    layer: dict = {}
    outputs: dict[str, dict] = {name: {} for name in names}
    for where in product(*grid):
        blocks = [(*where[:axis], j, *where[axis + 1 :]) for j in range(nblocks)]
        refs = [TaskRef((x.name, *b)) for b in blocks]
        out = _out_where(where, axis, spec.keepdims)
        reduced = tuple(x.chunks[d][w] for d, w in enumerate(where) if d != axis)
        if spec.keepdims:
            reduced = reduced[:axis] + (1,) + reduced[axis:]
        if nblocks == 1:
            final = (work, "block", *where)
            layer[final] = Task(final, _block_quantile, refs[0], spec, parts, block_backend)
        else:
            if per_row:
                nans = []
                for j, ref in enumerate(refs):
                    key = (work, "nan", *where, j)
                    layer[key] = Task(key, _nan_count, ref, axis)
                    nans.append(TaskRef(key))
                planned: Any = (work, "plan", *where)
                layer[planned] = Task(planned, _row_plan, spec, *nans)
                ranks = (work, "ranks", *where)
                layer[ranks] = Task(ranks, _ranks, TaskRef(planned))
                k: Any = TaskRef(ranks)
                planned = TaskRef(planned)
            else:
                planned, k = uniform, uniform[0]
            selected = _radix_select(layer, work, where, refs, axis, spec.dtype.itemsize, k,
                                     fan_in, offsets)
            final = (work, "out", *where)
            layer[final] = Task(final, _quantile_out, TaskRef(selected), planned, spec, parts,
                                reduced)
        for i, name in enumerate(names):
            outputs[name][(name, *lead, *out)] = Task((name, *lead, *out), _item,
                                                      TaskRef(final), i)
    graph = graph_with([x], work, layer, outputs)
    reduced_chunks = (*x.chunks[:axis], *(((1,),) if spec.keepdims else ()),
                      *x.chunks[axis + 1 :])
    chunks = tuple((s,) for s in spec.q_shape) + reduced_chunks
    empty = (0,) * len(chunks)
    dtypes = ((spec.out_dtype,) if not parts else
              (native(spec.dtype), np.dtype(np.int64), native(spec.dtype), np.dtype(np.int64),
               weights_dtype(spec)))
    made = tuple(da.Array(graph, name, chunks, meta=np.empty(empty, dtype))
                 for name, dtype in zip(names, dtypes))
    return made if parts else made[0]


# ---- sort and partition: one chunk along the axis ---------------------------------------------


def _block_run(block: np.ndarray, spec: SortSpec | PartitionSpec, values: bool,
               indices: bool, engine: str | None) -> tuple[Any, Any]:
    piece = spec.replace(shape=tuple(block.shape), dtype=block.dtype)
    return piece.compute(block_engines.named(engine), block, want=(values, indices))


def _blockwise(x: da.Array, spec: SortSpec | PartitionSpec, op: str, values: bool,
               indices: bool, block_backend: str | None) -> tuple[Any, Any]:
    check_one_chunk("x", x.chunks[spec.axis], spec.axis, op, x.ndim)
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

