"""Cutting an N-D array into boxes that fit a memory budget, and walking them.

A *box* is one rectangular piece of an array: a start and an extent in every
dimension.  The engine reads its input one box at a time.  Boxes are
planned in the array's *layout* coordinates (the C order of the bytes on
disk), where contiguous runs are the trailing dimensions, so that reading a
box takes few, long positioned reads.

For an operation along ``axis`` (top-k, gather), a box either spans the whole
axis (plan A: each box is final) or a part of it (plan B: boxes along the axis
are folded one after another); the plan whose contiguous runs are longer wins.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import product

import numpy as np

__all__ = ["Box", "Plan", "contiguous_runs", "plan_boxes", "slab_boxes"]

#: Runs at least this long (in bytes) make a box cheap enough to read.
LONG_RUN = 64 * 1024


@dataclass(frozen=True)
class Box:
    """A rectangular piece of an array: ``start`` and ``extent`` per dimension."""

    start: tuple[int, ...]
    extent: tuple[int, ...]

    @property
    def slices(self) -> tuple[slice, ...]:
        return tuple(slice(s, s + e) for s, e in zip(self.start, self.extent))

    @property
    def size(self) -> int:
        return math.prod(self.extent)

    def with_axis(self, axis: int, start: int, extent: int) -> Box:
        """The same box with another range along ``axis``."""
        s, e = list(self.start), list(self.extent)
        s[axis], e[axis] = start, extent
        return Box(tuple(s), tuple(e))

    def reversed(self) -> Box:
        """The same box in reversed coordinates (a transposed array's)."""
        return Box(self.start[::-1], self.extent[::-1])


@dataclass(frozen=True)
class Plan:
    """Box extents for ``shape``, and the boxes in order (axis innermost)."""

    shape: tuple[int, ...]
    extent: tuple[int, ...]
    axis: int

    @property
    def columns(self) -> Iterator[list[Box]]:
        """For each position off the axis, its boxes along the axis, in order."""
        grids = [range(0, max(s, 1), e) for s, e in zip(self.shape, self.extent)]
        grids[self.axis] = range(1)
        along = range(0, max(self.shape[self.axis], 1), self.extent[self.axis])
        for start in product(*grids):
            first = Box(start, tuple(min(e, s - b) for b, e, s in
                                     zip(start, self.extent, self.shape)))
            yield [first.with_axis(self.axis, a, min(self.extent[self.axis],
                                                     self.shape[self.axis] - a))
                   for a in along]

    @property
    def count(self) -> int:
        """How many boxes there are."""
        return math.prod(max(1, -(-s // e)) for s, e in zip(self.shape, self.extent))


def _grow(shape: tuple[int, ...], dims: list[int], limit: int, grain: tuple[int, ...],
          extent: list[int]) -> int:
    """Grow ``extent`` over ``dims`` (last first) while their product stays <= limit."""
    size = 1
    for pos, d in enumerate(dims):
        if size * shape[d] <= limit:
            extent[d] = shape[d]
            size *= shape[d]
            continue
        g = grain[d]
        extent[d] = min(shape[d], max(g, (limit // size) // g * g))
        size *= extent[d]
        for rest in dims[pos + 1 :]:
            extent[rest] = min(grain[rest], shape[rest])
            size *= extent[rest]
        break
    return size


def run_length(shape: tuple[int, ...], extent: tuple[int, ...]) -> int:
    """Elements per contiguous run when reading a box of ``extent`` from C-order ``shape``."""
    run = 1
    for s, e in zip(reversed(shape), reversed(extent)):
        run *= e
        if e < s:
            break
    return run


def plan_boxes(
    shape: tuple[int, ...],
    axis: int,
    max_elements: int,
    max_columns: int,
    grain: tuple[int, ...] | None = None,
    itemsize: int = 1,
) -> Plan:
    """Box extents for an operation along ``axis`` of a C-order array.

    A box holds at most ``max_elements`` elements (at least one grain) and at
    most ``max_columns`` positions off the axis.  ``grain`` is a chunk shape
    to align to (zarr's chunks); boxes are multiples of it.

    >>> plan_boxes((100, 1000), 1, 10_000, 50).extent
    (10, 1000)
    >>> plan_boxes((100, 1000), 0, 10_000, 50).extent
    (100, 50)
    """
    ndim = len(shape)
    grain = tuple(max(1, g) for g in (grain or (1,) * ndim))
    max_elements, max_columns = max(1, max_elements), max(1, max_columns)
    n = max(shape[axis], 1)
    off_axis = [d for d in reversed(range(ndim)) if d != axis]
    inner = [d for d in off_axis if d > axis]
    outer = [d for d in off_axis if d < axis]
    plans = []
    if n <= max_elements:
        a = [1] * ndim
        a[axis] = n
        _grow(shape, off_axis, min(max_columns, max_elements // n), grain, a)
        plans.append(a)
    b = [1] * ndim
    columns = _grow(shape, inner, min(max_columns, max_elements), grain, b)
    for d in outer:
        b[d] = min(grain[d], shape[d])
        columns *= b[d]
    g = grain[axis]
    b[axis] = min(n, max(g, (max_elements // max(columns, 1)) // g * g))
    plans.append(b)
    best = max(plans, key=lambda e: min(run_length(shape, tuple(e)) * itemsize, LONG_RUN))
    return Plan(tuple(shape), tuple(max(1, e) for e in best), axis)


def slab_boxes(shape: tuple[int, ...], max_elements: int) -> Iterator[Box]:
    """Boxes that visit an array in C order of its elements (full trailing dimensions).

    >>> [b.slices for b in slab_boxes((2, 3), 4)]
    [(slice(0, 1, None), slice(0, 3, None)), (slice(1, 2, None), slice(0, 3, None))]
    """
    extent = [1] * len(shape)
    _grow(shape, list(reversed(range(len(shape)))), max(1, max_elements), (1,) * len(shape),
          extent)
    grids = [range(0, max(s, 1), e) for s, e in zip(shape, extent)]
    for start in product(*grids):
        yield Box(start, tuple(min(e, s - b) for b, e, s in zip(start, extent, shape)))


def contiguous_runs(shape: tuple[int, ...], box: Box) -> tuple[np.ndarray, int]:
    """Element offsets of a box's contiguous runs in C-order ``shape``, and their length.

    The runs are in the box's own C order, so run ``i`` fills elements
    ``i * length ... (i + 1) * length`` of a C-contiguous buffer of the box.

    >>> contiguous_runs((4, 5), Box((1, 0), (2, 5)))
    (array([5]), 10)
    >>> contiguous_runs((4, 5), Box((1, 2), (2, 3)))
    (array([ 7, 12]), 3)
    """
    ndim = len(shape)
    strides = [math.prod(shape[d + 1 :]) for d in range(ndim)]
    split = ndim
    while split > 0 and box.extent[split - 1] == shape[split - 1]:
        split -= 1
    if split == 0:
        return np.zeros(1, np.int64), math.prod(box.extent)
    length = box.extent[split - 1] * strides[split - 1]
    base = np.int64(sum(s * st for s, st in zip(box.start, strides)))
    offsets = np.zeros(1, np.int64) + base
    for d in range(split - 1):
        steps = np.arange(box.extent[d], dtype=np.int64) * strides[d]
        offsets = (offsets[:, None] + steps[None, :]).ravel()
    return offsets, length
