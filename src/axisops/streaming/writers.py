"""Writing results box by box: ``.npy`` files, ``.npz`` archives of them, or arrays.

An output is a ``.npy`` file whose header is written first and whose data is
filled with positioned writes (:func:`axisops.streaming.positional.write_at`) as
boxes of the result arrive, in any order; nothing is mapped, so written pages
never count as the process's resident memory.  A ``.npz`` result is packed
from such files (scratch files, :func:`axisops.streaming.outputs.scratch_file`).
Everything is written to temporary files (see :mod:`axisops.streaming.outputs`), so a
failed or interrupted run leaves no file under the requested name.
:class:`ArrayWriter` fills a NumPy array instead, for results returned in memory.
"""

from __future__ import annotations

import math
import os
import shutil
import zipfile
from typing import IO

import numpy as np

from .boxes import Box, contiguous_runs
from .positional import write_at

__all__ = ["ArrayWriter", "NpyWriter", "pack_npz"]


def _write_header(handle: IO[bytes], shape: tuple[int, ...], dtype: np.dtype,
                  fortran: bool) -> None:
    header = {"descr": np.lib.format.dtype_to_descr(dtype), "fortran_order": fortran,
              "shape": tuple(shape)}
    try:
        np.lib.format.write_array_header_1_0(handle, header)
    except ValueError:  # a header over 64 KiB needs format 2.0
        handle.seek(0)
        handle.truncate()
        np.lib.format.write_array_header_2_0(handle, header)


class NpyWriter:
    """A ``.npy`` file filled box by box; boxes are in layout coordinates.

    ``reverse`` writes a Fortran-order file: boxes are then given in the
    reversed coordinates of ``shape`` (its transposed array's).
    """

    def __init__(self, handle: IO[bytes], shape: tuple[int, ...], dtype: np.dtype,
                 reverse: bool = False) -> None:
        self.handle, self.dtype = handle, np.dtype(dtype)
        self.reverse = reverse and len(shape) > 1
        self.layout_shape = tuple(shape)[::-1] if self.reverse else tuple(shape)
        handle.seek(0)
        _write_header(handle, tuple(shape), self.dtype, self.reverse)
        handle.flush()
        self.fd = handle.fileno()
        self.offset = handle.tell()
        os.ftruncate(self.fd, self.offset + math.prod(shape) * self.dtype.itemsize)

    def write(self, box: Box, block: np.ndarray) -> None:
        """Store ``block`` (shaped like ``box``) at ``box``."""
        if block.size == 0:
            return
        data = np.ascontiguousarray(block, dtype=self.dtype)
        raw = memoryview(data.reshape(-1).view(np.uint8))
        offsets, length = contiguous_runs(self.layout_shape, box)
        size = self.dtype.itemsize
        span = length * size
        for i, start in enumerate(offsets.tolist()):
            write_at(self.fd, raw[i * span : (i + 1) * span], self.offset + start * size)


class ArrayWriter:
    """A C-order NumPy array filled box by box, like :class:`NpyWriter`.

    ``reverse`` takes boxes in the reversed coordinates of ``shape``; the
    array itself is C-order either way, like the results of :func:`axisops.topk`.

    >>> from axisops.streaming.boxes import Box
    >>> w = ArrayWriter((2, 3), np.dtype(np.int8), reverse=True)
    >>> w.write(Box((0, 1), (3, 1)), np.array([[1], [2], [3]]))
    >>> w.array[1]
    array([1, 2, 3], dtype=int8)
    """

    def __init__(self, shape: tuple[int, ...], dtype: np.dtype, reverse: bool = False) -> None:
        self.array = np.zeros(shape, dtype)
        self._layout = self.array.T if reverse and len(shape) > 1 else self.array

    def write(self, box: Box, block: np.ndarray) -> None:
        """Store ``block`` (shaped like ``box``) at ``box``."""
        self._layout[box.slices] = block


def pack_npz(handle: IO[bytes], members: dict[str, IO[bytes]]) -> None:
    """Write an ``.npz`` archive (as ``np.savez`` does) holding each ``.npy`` member."""
    with zipfile.ZipFile(handle, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
        for name, source in members.items():
            source.flush()
            source.seek(0)
            with zf.open(f"{name}.npy", "w", force_zip64=True) as dst:
                shutil.copyfileobj(source, dst, 1 << 20)
