"""Top-k and gather over arrays larger than memory, one box at a time, in this process.

Memory is bounded by ``chunk_bytes``, whatever the size of the input:

- **top-k** reads boxes of the input (see :mod:`axisops.streaming.boxes`).  A box
  spanning the whole axis gives final results at once; otherwise the boxes of
  one column are folded in axis order, each one's sorted top-k merged into the
  running one (:mod:`axisops.merge`, in piece order), which is exact.  A column holds
  at most about ``chunk_bytes / 2`` of candidates (``k`` values and int64
  indices per position off the axis), so memory grows with ``k`` only through
  how many columns a box may take.
- **gather** reads boxes of the index; for each box it reads the *region* of
  ``x`` it can address (the box's range off ``dim``, all of ``dim``), or, when
  that region is over ``chunk_bytes``, the blocks of it that its values fall in.

Every box runs on the NumPy-family backend resolved once for the job, with a
spec derived from the job's validated one (:mod:`axisops.dispatch`): nothing
is validated per box.  Boxes are planned in
the layout of the input (the top-k input, the gather index): a Fortran-order
file is processed as its transpose, and written in Fortran order.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Protocol

import numpy as np

from ..backends.base import Backend
from ..dispatch import gather_block
from ..merge import block_candidates, merge_candidates
from ..validation import GatherSpec, TopKSpec, check_index_values
from .boxes import Box, Plan, plan_boxes, slab_boxes
from .errors import FileError
from .sources import Source

__all__ = ["DEFAULT_CHUNK_BYTES", "Layout", "Writer", "gather_plan", "stream_gather",
           "stream_topk", "topk_plan"]

class Writer(Protocol):
    """Where results go, box by box (:class:`~axisops.streaming.outputs.NpyWriter`, an array)."""

    def write(self, box: Box, block: np.ndarray) -> None: ...


#: Input bytes per chunk unless ``chunk_bytes`` (``--chunk-bytes``) says otherwise.
DEFAULT_CHUNK_BYTES = 32 * 1024 * 1024


@dataclass(frozen=True)
class Layout:
    """How a job sees its arrays: reversed (a Fortran-order file) or not, and its axis."""

    reverse: bool
    axis: int

    @classmethod
    def of(cls, source: Source, axis: int) -> Layout:
        ndim = len(source.shape)
        return cls(source.reversed_layout, ndim - 1 - axis if source.reversed_layout else axis)

    def shape(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        return shape[::-1] if self.reverse else shape

    def topk(self, spec: TopKSpec) -> TopKSpec:
        """``spec`` in layout coordinates (what the boxes' arrays are)."""
        return replace(spec, axis=self.axis, shape=self.shape(spec.shape))

    def gather(self, spec: GatherSpec) -> GatherSpec:
        """``spec`` in layout coordinates (what the boxes' arrays are)."""
        return replace(spec, dim=self.axis, shape=self.shape(spec.shape),
                       index_shape=self.shape(spec.index_shape))


def chunk_elements(chunk_bytes: int, itemsize: int) -> int:
    """Elements per chunk: ``chunk_bytes`` of input, counting small types as 4 bytes.

    A top-k's working memory grows with the number of elements, not bytes, so
    int8 or float16 chunks get no more elements than float32 ones.
    """
    return max(1, chunk_bytes // max(itemsize, 4))


def topk_plan(source: Source, spec: TopKSpec, chunk_bytes: int) -> tuple[Layout, Plan]:
    """The layout and boxes ``stream_topk`` uses for ``source``."""
    layout = Layout.of(source, spec.axis)
    size = source.dtype.itemsize
    columns = chunk_bytes // (2 * max(spec.k, 1) * (size + 8))
    plan = plan_boxes(source.layout_shape, layout.axis, chunk_elements(chunk_bytes, size),
                      columns, source.grain, size)
    return layout, plan


def stream_topk(source: Source, spec: TopKSpec, chunk_bytes: int, values: Writer,
                indices: Writer, bar: Any, impl: Backend) -> int:
    """Write the top-k of ``source`` into ``values`` and ``indices``; the number of boxes.

    The writers must have been made with the returned plan's layout (see
    :func:`topk_plan`): ``reverse`` when the input is in Fortran order.
    ``impl`` is the NumPy-family backend that runs every box and merge.
    """
    layout, plan = topk_plan(source, spec, chunk_bytes)
    axis, k = layout.axis, spec.k
    piece = layout.topk(spec)

    def candidates(box: Box) -> tuple[np.ndarray, np.ndarray]:
        block = source.read(box, layout.reverse)
        bar.update(block.nbytes)
        return block_candidates(block, piece, box.start[axis], impl)

    for first, *rest in plan.columns:
        best = candidates(first)
        for box in rest:
            best = merge_candidates(piece, best, candidates(box), backend=impl)
        out = first.with_axis(axis, 0, k)
        values.write(out, best[0])
        indices.write(out, best[1].astype(spec.index_dtype, copy=False))
    return plan.count


def gather_plan(x: Source, index: Source, spec: GatherSpec, chunk_bytes: int
                ) -> tuple[Layout, Plan]:
    """The layout and index boxes ``stream_gather`` uses."""
    layout = Layout.of(index, spec.dim)
    per_element = index.dtype.itemsize + 8 + x.dtype.itemsize
    region_columns = chunk_bytes // max(1, spec.n * x.dtype.itemsize)
    elements = max(1, chunk_bytes // per_element)
    plan = plan_boxes(index.layout_shape, layout.axis, elements, region_columns or elements,
                      index.grain, index.dtype.itemsize)
    return layout, plan


def _check(block: np.ndarray, spec: GatherSpec, index: Source) -> None:
    """An out-of-range value raises the core's error, naming its place in the whole index."""
    if block.size and (int(block.min()) < -spec.n or int(block.max()) > spec.n - 1):
        _raise_first_bad(index, spec)


def wrap(index: np.ndarray, n: int) -> np.ndarray:
    """Valid index values as int64 in ``[0, n)`` (negatives count from the end)."""
    wrapped = index.astype(np.int64)
    np.add(wrapped, n, out=wrapped, where=wrapped < 0)
    return wrapped


def _raise_first_bad(index: Source, spec: GatherSpec) -> None:
    """Raise the error for the first offending value in C order, as the core reports it."""
    for box in slab_boxes(index.shape, chunk_elements(1 << 24, index.dtype.itemsize)):
        check_index_values(index.read(box, False), spec, box.start)
    raise FileError(f"{index.role.label(index.path)}: changed while it was being read")


class _Region:
    """The part of ``x`` an index box may address, read once per column of boxes."""

    def __init__(self, x: Source, layout: Layout, spec: GatherSpec, chunk_bytes: int,
                 impl: Backend):
        self.x, self.layout, self.spec = x, layout, layout.gather(spec)
        self.chunk_bytes, self.impl = chunk_bytes, impl
        self.box: Box | None = None
        self.data: np.ndarray | None = None

    def gather(self, box: Box, block: np.ndarray) -> np.ndarray:
        """The gather of one index box (its values already checked)."""
        dim, n = self.layout.axis, self.spec.n
        region = box.with_axis(dim, 0, n)
        if region.size * self.x.dtype.itemsize <= self.chunk_bytes:
            if region != self.box:
                self.box, self.data = None, None  # free the old region before reading
                self.data, self.box = self.x.read(region, self.layout.reverse), region
            return gather_block(self.impl, self.data, block, self.spec)
        return self._blocked(region, wrap(block, n))

    def _blocked(self, region: Box, wrapped: np.ndarray) -> np.ndarray:
        """Gather from a region too large to read whole: only the blocks addressed."""
        dim, n = self.layout.axis, self.spec.n
        step = max(1, self.chunk_bytes // max(1, region.size // n * self.x.dtype.itemsize))
        which = wrapped // step
        out = np.empty(wrapped.shape, self.spec.out_dtype)
        for j in np.unique(which).tolist():
            start = j * step
            block = self.x.read(region.with_axis(dim, start, min(step, n - start)),
                                self.layout.reverse)
            inside = which == j
            local = np.where(inside, wrapped - start, 0)
            np.copyto(out, gather_block(self.impl, block, local, self.spec), where=inside)
        return out


def stream_gather(x: Source, index: Source, spec: GatherSpec, chunk_bytes: int,
                  out: Writer, bar: Any, impl: Backend) -> int:
    """Write ``gather(x, dim, index)`` into ``out``; the number of index boxes.

    ``out`` must be made with the plan's layout (see :func:`gather_plan`);
    ``impl`` is the NumPy-family backend that runs every box.
    """
    layout, plan = gather_plan(x, index, spec, chunk_bytes)
    region = _Region(x, layout, spec, chunk_bytes, impl)
    for column in plan.columns:
        for box in column:
            block = index.read(box, layout.reverse)
            _check(block, spec, index)
            out.write(box, region.gather(box, block))
            bar.update(block.nbytes)
    return plan.count
