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
  When the boxes of a column would read the region's blocks over and over (an
  index that jumps about), the rest of the column goes through scratch files,
  ordered by block, so that each block of ``x`` is read once.

Every box runs on the NumPy engine picked once for the job, with a spec derived
from the job's validated one (:meth:`~axisops.engines.base.Engine.topk_block`,
:meth:`~axisops.engines.base.Engine.gather_block`): nothing is validated per box.
Boxes are planned in the layout of the input (the top-k input, the gather index): a Fortran-order
file is processed as its transpose, and written in Fortran order.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, Protocol

import numpy as np

from ..engines.base import Engine
from ..merge import block_candidates, merge_candidates
from ..requests import GatherSpec, TopKSpec
from ..rules.operations import check_index_values
from .boxes import Box, Plan, plan_boxes, slab_boxes
from .errors import file_error
from .outputs import scratch_file
from .positional import read_exact, write_at
from .sources import Source

__all__ = ["DEFAULT_CHUNK_BYTES", "Layout", "Scratch", "Writer", "gather_plan", "scratch_in",
           "stream_gather", "stream_topk", "topk_plan"]

#: Makes a private scratch file (its label is for people), removed with the job.
Scratch = Callable[[str], IO[bytes]]


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
        return spec.replace(axis=self.axis, shape=self.shape(spec.shape))

    def gather(self, spec: GatherSpec) -> GatherSpec:
        """``spec`` in layout coordinates (what the boxes' arrays are)."""
        return spec.replace(dim=self.axis, shape=self.shape(spec.shape),
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
                indices: Writer, bar: Any, impl: Engine) -> int:
    """Write the top-k of ``source`` into ``values`` and ``indices``; the number of boxes.

    The writers must have been made with the returned plan's layout (see
    :func:`topk_plan`): ``reverse`` when the input is in Fortran order.
    ``impl`` is the NumPy engine that runs every box and merge.
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
            best = merge_candidates(piece, best, candidates(box), engine=impl)
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
    raise file_error(index.arg, index.path, "changed while it was being read")


class _Region:
    """The part of ``x`` an index box may address, read once per column of boxes."""

    def __init__(self, x: Source, layout: Layout, spec: GatherSpec, chunk_bytes: int,
                 impl: Engine):
        self.x, self.layout, self.spec = x, layout, layout.gather(spec)
        self.chunk_bytes, self.impl = chunk_bytes, impl
        self.box: Box | None = None
        self.data: np.ndarray | None = None

    def region(self, box: Box) -> Box:
        """What ``box`` may address: its range off ``dim``, all of ``dim``."""
        return box.with_axis(self.layout.axis, 0, self.spec.n)

    def fits(self, box: Box) -> bool:
        """Whether the region of ``box`` can be read whole."""
        return self.region(box).size * self.x.dtype.itemsize <= self.chunk_bytes

    def step(self, box: Box) -> int:
        """Positions along ``dim`` per block of a region too large to read whole."""
        per_position = self.region(box).size // self.spec.n * self.x.dtype.itemsize
        return max(1, self.chunk_bytes // max(1, per_position))

    def blocks(self, box: Box) -> int:
        """How many blocks of :meth:`step` positions the region of ``box`` has."""
        return -(-self.spec.n // self.step(box))

    def read_block(self, box: Box, j: int) -> np.ndarray:
        """Block ``j`` of the region of ``box`` (positions ``j * step`` on along ``dim``)."""
        step, n = self.step(box), self.spec.n
        part = self.region(box).with_axis(self.layout.axis, j * step, min(step, n - j * step))
        return self.x.read(part, self.layout.reverse)

    def gather(self, box: Box, block: np.ndarray) -> tuple[np.ndarray, int]:
        """The gather of one index box (its values already checked), and how many blocks
        of ``x`` it read (0 when the region was read whole)."""
        if self.fits(box):
            region = self.region(box)
            if region != self.box:
                self.box, self.data = None, None  # free the old region before reading
                self.data, self.box = self.x.read(region, self.layout.reverse), region
            return self.impl.gather_block(self.data, block, self.spec), 0
        return self._blocked(box, wrap(block, self.spec.n))

    def _blocked(self, box: Box, wrapped: np.ndarray) -> tuple[np.ndarray, int]:
        """Gather from a region too large to read whole: only the blocks addressed."""
        step = self.step(box)
        which = wrapped // step
        out = np.empty(wrapped.shape, self.spec.out_dtype)
        touched = np.unique(which).tolist()
        for j in touched:
            inside = which == j
            local = np.where(inside, wrapped - j * step, 0)
            np.copyto(out, self.impl.gather_block(self.read_block(box, j), local, self.spec),
                      where=inside)
        return out, len(touched)


class _Spill:
    """A scratch file of one dtype, read and written by element offsets."""

    def __init__(self, handle: IO[bytes], dtype: np.dtype):
        self.handle, self.dtype = handle, np.dtype(dtype)

    def write(self, offset: int, values: np.ndarray) -> None:
        data = np.ascontiguousarray(values, self.dtype).reshape(-1).view(np.uint8)
        write_at(self.handle.fileno(), memoryview(data), offset * self.dtype.itemsize)

    def read(self, offset: int, count: int) -> np.ndarray:
        out = np.empty(count, self.dtype)
        read_exact(self.handle.fileno(), memoryview(out.view(np.uint8)),
                   offset * self.dtype.itemsize, "a scratch file of the gather")
        return out


def _by_blocks(boxes: list[Box], index: Source, spec: GatherSpec, region: _Region,
               out: Writer, bar: Any, scratch: Scratch) -> None:
    """Gather the index boxes of one column from a region too large to read whole, reading
    each block of ``x`` once (an index that jumps about would otherwise make every box
    read most of the region again).

    1. Each box's elements, ordered by the block their value falls in, go to scratch
       files: their place in the box and their position along ``dim``.
    2. Each block of ``x`` is read once and gathers the elements of every box that
       fall in it; the values go to a third scratch file, box by box.
    3. Each box's values are put back in place and written out.
    """
    layout = region.layout
    dim, step, blocks = layout.axis, region.step(boxes[0]), region.blocks(boxes[0])
    places = _Spill(scratch("gather.places"), np.int64)
    positions = _Spill(scratch("gather.positions"), np.int64)
    values = _Spill(scratch("gather.values"), region.spec.out_dtype)
    starts = np.cumsum([0] + [box.size for box in boxes])
    counts = np.zeros((len(boxes), blocks), np.int64)
    for b, box in enumerate(boxes):
        block = index.read(box, layout.reverse)
        _check(block, spec, index)
        wrapped = wrap(block, region.spec.n).reshape(-1)
        which = wrapped // step
        order = np.argsort(which, kind="stable")
        counts[b] = np.bincount(which, minlength=blocks)
        places.write(int(starts[b]), order)
        positions.write(int(starts[b]), wrapped[order])
    cells = starts[:-1, None] + np.cumsum(counts, axis=1) - counts  # where cell (b, j) starts
    for j in np.flatnonzero(counts.sum(axis=0)).tolist():
        data = region.read_block(boxes[0], j)
        for b in np.flatnonzero(counts[:, j]).tolist():
            at, count = int(cells[b, j]), int(counts[b, j])
            where = list(np.unravel_index(places.read(at, count), boxes[b].extent))
            where[dim] = positions.read(at, count) - j * step
            values.write(at, data[tuple(where)])
    for b, box in enumerate(boxes):
        result = np.empty(box.size, region.spec.out_dtype)
        result[places.read(int(starts[b]), box.size)] = values.read(int(starts[b]), box.size)
        out.write(box, result.reshape(box.extent))
        bar.update(box.size * index.dtype.itemsize)


def stream_gather(x: Source, index: Source, spec: GatherSpec, chunk_bytes: int,
                  out: Writer, bar: Any, impl: Engine, scratch: Scratch | None = None) -> int:
    """Write ``gather(x, dim, index)`` into ``out``; the number of index boxes.

    ``out`` must be made with the plan's layout (see :func:`gather_plan`);
    ``impl`` is the NumPy engine that runs every box.  Where the region an
    index box addresses is too large to read whole, each box reads the blocks of it
    its values fall in; once a column's boxes have read its region twice, at more
    than three blocks a box (an index that jumps about, see :func:`_jumping`), the
    rest of the column is gathered by :func:`_by_blocks` through ``scratch`` files
    (made by ``scratch(label)``; in the system's temporary folder when None).
    """
    layout, plan = gather_plan(x, index, spec, chunk_bytes)
    region = _Region(x, layout, spec, chunk_bytes, impl)
    with ExitStack() as stack:
        for column in plan.columns:
            blocks, read = region.blocks(column[0]), 0
            for at, box in enumerate(column):
                if _jumping(read, at, blocks) and at + 1 < len(column):
                    _by_blocks(column[at:], index, spec, region, out, bar,
                               scratch or scratch_in(stack))
                    break
                block = index.read(box, layout.reverse)
                _check(block, spec, index)
                result, touched = region.gather(box, block)
                read += touched
                out.write(box, result)
                bar.update(block.nbytes)
    return plan.count


def _jumping(read: int, boxes: int, blocks: int) -> bool:
    """Whether a column's first ``boxes`` boxes, having read ``read`` blocks of a region of
    ``blocks``, are better gathered by blocks from here on.

    By blocks, the rest costs one more read of the region plus scratch traffic of
    about two chunks a box; box by box, the blocks each box touches.  Switch once
    the boxes have read the region twice, at more than three blocks a box (a sorted
    index touches one or two).
    """
    return read > 2 * blocks and read > 3 * boxes


def scratch_in(stack: ExitStack, folder: Path | None = None) -> Scratch:
    """Scratch files in ``folder`` (the system's temporary folder when None), removed when
    ``stack`` unwinds."""
    where = Path(tempfile.gettempdir()) if folder is None else folder
    return lambda label: scratch_file(stack, where, label)
