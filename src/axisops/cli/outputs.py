"""Writing results box by box: ``.npy`` files and ``.npz`` archives of them.

An output is a ``.npy`` file whose header is written first and whose data is
filled with positioned writes (:func:`axisops.cli.positional.write_at`) as
boxes of the result arrive, in any order; nothing is mapped, so written pages
never count as the process's resident memory.  A ``.npz`` result is packed
from such files (scratch files, :func:`axisops.cli.files.scratch_file`).
Everything is written to temporary files (see :mod:`axisops.cli.files`), so a
failed or interrupted run leaves no file under the requested name.
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

__all__ = ["NpyWriter", "pack_npz"]


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
        self.dtype = np.dtype(dtype)
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


def pack_npz(handle: IO[bytes], members: dict[str, IO[bytes]]) -> None:
    """Write an ``.npz`` archive (as ``np.savez`` does) holding each ``.npy`` member."""
    with zipfile.ZipFile(handle, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as zf:
        for name, source in members.items():
            source.flush()
            source.seek(0)
            with zf.open(f"{name}.npy", "w", force_zip64=True) as dst:
                shutil.copyfileobj(source, dst, 1 << 20)
