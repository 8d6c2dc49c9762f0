"""Exact order statistics along an axis of an array on disk, read in boxes of bounded size.

The quantile job (:func:`axisops.streaming.jobs.quantile_job`) needs, for every sequence
along the axis, the elements of a few stable ranks (the one or two order statistics
around each quantile's virtual index).  Two ways to get them, planned per input like
top-k's boxes (:mod:`axisops.streaming.boxes`):

- **whole sequences**: a box spans the axis; it is computed where it stands (the
  caller runs the engine's own quantile on it), each box read once;
- **an exact radix select over boxes along the axis** (the Dask graphs' select,
  :mod:`axisops.dask.select`, done in passes over the file): every element maps to its
  *order key* (:func:`axisops.kernels.keys.order_keys`: an unsigned integer of its width
  whose order is the contract's, NaN above +inf, -0.0 equal to +0.0).  The first pass
  counts, per sequence, the keys by their top 8 bits (and the NaN, which nanquantile's
  ranks need); the bucket that holds each rank gives the rank's top bits.  Each further
  pass counts the keys that begin with the bits found so far by their next 8 bits.  As
  soon as the keys left in the chosen buckets (every rank of every sequence of the
  column together) fit in the memory budget, one more pass *collects* them with their
  values, in index order, and each rank is read off their stable sort.  Otherwise,
  once every bit is known, a last pass counts the keys equal to the answer's in index
  order and reads the element of the rank among them.  Either way the element is the
  stable order's (its bits kept: the sign of a zero, a NaN's payload).  Typical data
  take three passes (two histograms and the collection); keys that stay crowded (many
  equal elements) take ``itemsize + 1``.

Memory: a box of at most ``chunk_bytes`` of input, its keys and per-element scratch
(about 20 bytes an element, which the plan counts), and 256 counts per rank and
sequence of the column (the plan bounds the sequences a box takes).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .._forksafe import imported
from ..dtypes import native
from ..kernels.keys import order_keys
from .boxes import LONG_RUN, Box, Plan, _grow, run_length
from .sources import Source
from .stream import Layout, chunk_elements

if TYPE_CHECKING:
    from ..requests import QuantileSpec

__all__ = ["DIGIT_BITS", "SelectPlan", "Selection", "plan_select", "quantile_select_plan",
           "select_column", "stream_quantile"]

#: Bits of the key decided per pass, and the buckets they make.
DIGIT_BITS = 8
BUCKETS = 1 << DIGIT_BITS
#: Bytes of scratch per element a pass of the radix select holds besides the box itself
#: (its keys, digits, the bucket index of each and a mask).
_SELECT_SCRATCH = 20
#: Passes a radix select typically takes (two histograms, the collection).
_TYPICAL_PASSES = 3
#: A positioned read costs about the time of reading this many bytes (the cost model
#: that chooses between whole sequences read in short runs and passes of long runs).
_READ_COST = 16 * 1024


@dataclass(frozen=True)
class SelectPlan:
    """How the order statistics of a source are found: the boxes (``plan``, in layout
    coordinates) and whether each spans the axis (``whole``) or the column's boxes along
    the axis are selected over in passes."""

    plan: Plan
    whole: bool


def _cost(plan_extent: tuple[int, ...], shape: tuple[int, ...], itemsize: int,
          passes: int) -> float:
    run = run_length(shape, plan_extent) * itemsize
    return passes * (1 + _READ_COST / max(1, min(run, 1 << 30)))


def plan_select(shape: tuple[int, ...], axis: int, itemsize: int, chunk_bytes: int,
                ranks: int, whole_elements: int, grain: tuple[int, ...] | None = None
                ) -> SelectPlan:
    """Boxes for the order statistics along ``axis`` of a C-order array of ``shape``.

    A whole-sequence box holds at most ``whole_elements`` elements (what the caller's
    in-memory computation may take); a box of the radix select at most ``chunk_bytes``
    of input with its scratch, and at most as many sequences as 256 counts per rank
    (``ranks`` of them) fit in a quarter of ``chunk_bytes``.  Of the two, the one whose
    estimated reading time (its runs' length; the radix select reads the file about
    three times) is less.

    >>> p = plan_select((100, 1000), 1, 4, 1 << 20, 2, 1 << 17)
    >>> p.whole, p.plan.extent
    (True, (100, 1000))
    >>> plan_select((3, 10**7), 1, 4, 1 << 20, 2, 1 << 17).whole
    False
    """
    ndim = len(shape)
    grain = tuple(max(1, g) for g in (grain or (1,) * ndim))
    n = max(shape[axis], 1)
    off_axis = [d for d in reversed(range(ndim)) if d != axis]
    whole = None
    if n <= whole_elements:
        extent = [1] * ndim
        extent[axis] = n
        _grow(shape, off_axis, max(1, whole_elements // n), grain, extent)
        whole = tuple(extent)
    elements = max(1, chunk_bytes // (itemsize + _SELECT_SCRATCH))
    rows = max(1, (chunk_bytes // 4) // (max(ranks, 1) * BUCKETS * 8))
    extent = [1] * ndim
    inner = [d for d in off_axis if d > axis]
    columns = _grow(shape, inner, min(rows, elements), grain, extent)
    for d in (d for d in off_axis if d < axis):
        extent[d] = min(grain[d], shape[d])
        columns *= extent[d]
    g = grain[axis]
    extent[axis] = min(n, max(g, (elements // max(columns, 1)) // g * g))
    parts = tuple(max(1, e) for e in extent)
    if whole is not None and (
            _cost(whole, shape, itemsize, 1) <= _cost(parts, shape, itemsize, _TYPICAL_PASSES)
            or run_length(shape, whole) * itemsize >= LONG_RUN):
        return SelectPlan(Plan(tuple(shape), whole, axis), True)
    return SelectPlan(Plan(tuple(shape), parts, axis), False)


# ---- the radix select of one column of boxes -------------------------------------------------


def _floating(dtype: np.dtype) -> bool:
    return dtype.kind == "f" or dtype.name == "bfloat16"


def _rows(block: np.ndarray, axis: int) -> np.ndarray:
    """``block``'s sequences along ``axis`` as the rows of a 2-D array."""
    moved = np.moveaxis(block, axis, -1)
    return moved.reshape(math.prod(moved.shape[:-1]), block.shape[axis])


def _raw(a: np.ndarray) -> np.ndarray:
    return a.view(np.dtype(f"u{a.dtype.itemsize}"))


class Selection:
    """The order statistics of one column: every sequence's elements of the ranks it is
    given, found in passes over the column's boxes.

    ``read(box)`` reads a box (layout coordinates; it counts toward the progress bar);
    ``boxes`` are the column's, in axis order; ``axis`` the layout axis; ``budget`` the
    bytes the collected candidates may take.
    """

    def __init__(self, read: Callable[[Box], np.ndarray], boxes: list[Box], axis: int,
                 dtype: np.dtype, budget: int, bar: Any = None) -> None:
        self.read, self.boxes, self.axis, self.bar = read, boxes, axis, bar
        self.dtype = native(dtype)
        self.budget = budget
        self.rows = math.prod(e for d, e in enumerate(boxes[0].extent) if d != axis)
        self.width = 8 * self.dtype.itemsize if self.dtype.kind != "b" else 8
        self.passes = 0

    def _blocks(self) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Each box's ``(keys, raw values)`` as rows, in axis order: one pass (a progress bar
        counts two passes of every column, and more as they come)."""
        self.passes += 1
        if self.passes > 2 and self.bar is not None:
            self.bar.total += sum(b.size for b in self.boxes) * self.dtype.itemsize
        for box in self.boxes:
            block = self.read(box)
            block = block.astype(native(block.dtype), copy=False)
            yield _rows(order_keys(block), self.axis), _raw(_rows(block, self.axis))

    def first_pass(self, count_nan: bool) -> tuple[np.ndarray, np.ndarray | None]:
        """The counts of every sequence's keys by their top digit, ``(rows, 256)``, and the
        NaN in each sequence (``count_nan``; None otherwise)."""
        shift = self.width - DIGIT_BITS
        hist = np.zeros((self.rows, BUCKETS), np.int64)
        nan = np.zeros(self.rows, np.int64) if count_nan else None
        top = (1 << self.width) - 1 if _floating(self.dtype) else None
        base = np.arange(self.rows, dtype=np.intp)[:, None] * BUCKETS
        for keys, _ in self._blocks():
            digits = (keys >> keys.dtype.type(shift)).astype(np.intp)
            hist += np.bincount((base + digits).ravel(), minlength=self.rows * BUCKETS
                                ).reshape(self.rows, BUCKETS)
            if nan is not None and top is not None:
                nan += np.count_nonzero(keys == keys.dtype.type(top), axis=1)
        return hist, nan

    def select(self, ranks: np.ndarray, first: np.ndarray) -> np.ndarray:
        """The elements (``dtype``, their bits) of stable ranks ``ranks`` (``(rows, R)``,
        0-based) of every sequence, from the first pass's counts ``first``."""
        rows, r = ranks.shape
        want = ranks.astype(np.int64) + 1  # 1-based rank among the keys of the prefix
        prefix = np.zeros((rows, r), np.uint64)
        shift = self.width - DIGIT_BITS
        hist = np.broadcast_to(first[:, None, :], (rows, r, BUCKETS))
        while True:
            cum = np.cumsum(hist, axis=2)
            bucket = (cum < want[..., None]).sum(axis=2)
            below = np.where(bucket > 0, np.take_along_axis(
                cum, np.maximum(bucket - 1, 0)[..., None], axis=2)[..., 0], 0)
            left = np.take_along_axis(hist, bucket[..., None], axis=2)[..., 0]
            prefix |= bucket.astype(np.uint64) << np.uint64(shift)
            want = want - below
            if int(left.sum()) * (self.dtype.itemsize + 24) <= self.budget:
                return self._collect(prefix, shift, want)
            if shift == 0:
                return self._take(prefix, want)
            shift -= DIGIT_BITS
            hist = self._histogram(prefix, shift)

    @staticmethod
    def _distinct(prefix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The distinct columns of ``prefix`` (ranks whose prefixes agree in every sequence
        share their counts) and, for each rank, its column among them."""
        distinct, back = np.unique(prefix, axis=1, return_inverse=True)
        return distinct, back.reshape(-1)

    @staticmethod
    def _matching(keys: np.ndarray, prefix: np.ndarray, shift: int) -> list[np.ndarray]:
        """Per column of ``prefix``, which keys begin with its bits from ``shift`` up."""
        kind = keys.dtype.type
        high = keys >> kind(shift)
        return [high == (prefix[:, j] >> np.uint64(shift)).astype(keys.dtype)[:, None]
                for j in range(prefix.shape[1])]

    def _histogram(self, prefix: np.ndarray, shift: int) -> np.ndarray:
        """Per sequence and rank, the keys that begin with the prefix (above ``shift +
        8``), counted by their bits ``[shift, shift + 8)``: ``(rows, R, 256)``."""
        rows = prefix.shape[0]
        distinct, back = self._distinct(prefix)
        hist = np.zeros((rows, distinct.shape[1], BUCKETS), np.int64)
        base = np.arange(rows, dtype=np.intp)[:, None] * BUCKETS
        for keys, _ in self._blocks():
            digits = ((keys >> keys.dtype.type(shift)) & keys.dtype.type(BUCKETS - 1)
                      ).astype(np.intp)
            flat = base + digits
            for u, inside in enumerate(self._matching(keys, distinct, shift + DIGIT_BITS)):
                hist[:, u] += np.bincount(flat[inside], minlength=rows * BUCKETS
                                          ).reshape(rows, BUCKETS)
        return hist[:, back]

    def _collect(self, prefix: np.ndarray, shift: int, want: np.ndarray) -> np.ndarray:
        """One pass that keeps the keys beginning with each prefix (from ``shift`` up) and
        their values, in index order; each rank is then read off their stable order."""
        rows = prefix.shape[0]
        distinct, back = self._distinct(prefix)
        width = distinct.shape[1]
        groups, keys_kept, values_kept = [], [], []
        every = np.arange(rows, dtype=np.int64) * width
        for keys, raw in self._blocks():
            for u, inside in enumerate(self._matching(keys, distinct, shift)):
                groups.append(np.repeat(every + u, np.count_nonzero(inside, axis=1)))
                keys_kept.append(keys[inside])
                values_kept.append(raw[inside])
        group = np.concatenate(groups)
        key = np.concatenate(keys_kept)
        value = np.concatenate(values_kept)
        order = np.lexsort((np.arange(group.size), key, group))  # group, key, index order
        starts = np.searchsorted(group[order], every[:, None] + back[None, :])
        picked = order[starts + want - 1]
        return value[picked].view(self.dtype)

    def _take(self, prefix: np.ndarray, want: np.ndarray) -> np.ndarray:
        """One pass that counts the keys equal to each answer's in index order and reads
        the element of rank ``want`` among them."""
        rows, r = prefix.shape
        distinct, back = self._distinct(prefix)
        seen = np.zeros((rows, distinct.shape[1]), np.int64)
        out = np.zeros((rows, r), np.dtype(f"u{self.dtype.itemsize}"))
        every = np.arange(rows)
        for keys, raw in self._blocks():
            for u, equal in enumerate(self._matching(keys, distinct, 0)):
                count = np.cumsum(equal, axis=1) + seen[:, u : u + 1]
                for j in np.flatnonzero(back == u).tolist():
                    hit = equal & (count == want[:, j : j + 1])
                    found = hit.any(axis=1)
                    at = np.argmax(hit, axis=1)
                    out[found, j] = raw[every[found], at[found]]
                seen[:, u] = count[:, -1]
        return out.view(self.dtype)


def select_column(source: Source, boxes: list[Box], axis: int, reverse: bool, budget: int,
                  bar: Any, ranks_of: Callable[[np.ndarray | None], Any], count_nan: bool
                  ) -> tuple[Any, int]:
    """The order statistics of one column of boxes by the radix select: ``ranks_of(nan)``
    (the NaN count of each sequence, or None) gives ``(ranks, finish)``, ``ranks`` of shape
    ``(rows, R)``; returns ``finish(values)`` and how many passes it read the column."""

    def read(box: Box) -> np.ndarray:
        block = source.read(box, reverse)
        bar.update(block.nbytes)
        return block

    selection = Selection(read, boxes, axis, source.dtype, budget, bar)
    first, nan = selection.first_pass(count_nan)
    ranks, finish = ranks_of(nan)
    return finish(selection.select(ranks, first)), selection.passes


# ---- quantiles of a source -------------------------------------------------------------------


def _column_plan(spec: QuantileSpec, rows: int, nan: np.ndarray | None
                 ) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray]]:
    """The ranks a column's sequences read (``(rows, R)``) and how their elements become the
    quantiles (``(rows, t)``): the quantile kernel's plans and interpolation
    (:mod:`axisops.kernels.quantile`), as the NumPy engines use them on a whole array."""
    imported("axisops.kernels.quantile")
    from ..kernels.quantile import lerp, plans

    counts = spec.n - nan if spec.skipnan and nan is not None and nan.any() else None
    p, empty = plans(spec, counts)
    t = p.below.shape[-1]
    wanted = p.below if p.gamma is None else np.concatenate([p.below, p.above], axis=-1)
    ranks = np.broadcast_to(wanted, (rows, wanted.shape[-1]))

    def finish(values: np.ndarray) -> np.ndarray:
        below = values[:, :t]
        out = below if p.gamma is None else lerp(below, values[:, t:], p.gamma, spec)
        out = out.astype(spec.out_dtype, copy=empty is not None and bool(empty.any()))
        if empty is not None:
            out[empty] = np.nan
        return out

    return ranks, finish


def _q_last(shape: tuple[int, ...], q_ndim: int, reverse: bool) -> tuple[int, ...]:
    """The axes that put a result ``(q..., reduced...)`` in the writer's coordinates: as it
    is, or for a reversed layout ``(reduced..., q reversed...)``."""
    ndim = len(shape)
    if not reverse:
        return tuple(range(ndim))
    return (*range(q_ndim, ndim), *reversed(range(q_ndim)))


def quantile_select_plan(source: Source, spec: QuantileSpec, chunk_bytes: int
                         ) -> tuple[Any, SelectPlan]:
    """The layout and the boxes :func:`stream_quantile` uses for ``source``."""
    layout = Layout.of(source, spec.axis)
    size = source.dtype.itemsize
    ranks = 2 * len(spec.q)
    whole = chunk_elements(chunk_bytes, size) // 2  # the box and the engine's scratch
    return layout, plan_select(source.layout_shape, layout.axis, size, chunk_bytes, ranks,
                               whole, source.grain)


def stream_quantile(source: Source, spec: QuantileSpec, chunk_bytes: int, out: Any, bar: Any,
                    impl: Any) -> tuple[int, int]:
    """Write the quantiles of ``source`` for ``spec`` into ``out`` (a writer made with the
    source's layout: ``reverse`` for a Fortran-order file); ``(boxes, passes)``: the boxes
    planned and the most times a box was read.

    Whole sequences run ``impl``'s own quantile on each box (the engine the job chose);
    boxes that cut the axis are selected over (:class:`Selection`), and the quantile
    kernel's plan and interpolation turn the order statistics into the quantiles: both
    give :func:`axisops.quantile` of the whole array, bit for bit.
    """
    layout, select_plan = quantile_select_plan(source, spec, chunk_bytes)
    plan, axis, reverse = select_plan.plan, layout.axis, layout.reverse
    piece = spec.replace(axis=axis, shape=layout.shape(spec.shape), keepdims=False)
    q_shape, q_ndim = spec.q_shape, len(spec.q_shape)
    budget = max(1, chunk_bytes // 2)
    passes = 0

    def place(first: Box, result: np.ndarray) -> None:
        """Write ``result`` (``(q..., reduced box...)``) where the column ``first`` belongs."""
        start = tuple(s for d, s in enumerate(first.start) if d != axis)
        extent = tuple(e for d, e in enumerate(first.extent) if d != axis)
        result = result.transpose(_q_last(result.shape, q_ndim, reverse))
        if reverse:
            out.write(Box(start + (0,) * q_ndim, extent + q_shape[::-1]), result)
        else:
            out.write(Box((0,) * q_ndim + start, q_shape + extent), result)

    for column in plan.columns:
        first = column[0]
        if select_plan.whole:
            block = source.read(first, reverse)
            bar.update(block.nbytes)
            part = piece.replace(shape=tuple(block.shape))
            result = part.compute(impl, block, want=(True, False))
            passes = max(passes, 1)
        else:
            rows = math.prod(e for d, e in enumerate(first.extent) if d != axis)
            values, used = select_column(
                source, column, axis, reverse, budget, bar,
                lambda nan, rows=rows: _column_plan(spec, rows, nan),
                spec.skipnan and _floating(source.dtype))
            passes = max(passes, used)
            extent = tuple(e for d, e in enumerate(first.extent) if d != axis)
            result = np.moveaxis(values.reshape(*extent, values.shape[-1]), -1, 0)
            result = result.reshape(q_shape + extent)
        place(first, np.asarray(result))
    return plan.count, passes
