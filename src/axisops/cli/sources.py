"""Where the command line reads arrays from, one box at a time.

- :class:`NpySource`: a ``.npy`` file, or an uncompressed member of an ``.npz``
  archive (what ``np.savez`` writes), read with positioned reads
  (``os.preadv``) into a buffer of the box.  Nothing is memory-mapped: mapped
  pages count as resident memory, so reading a mapped 2 GB file front to back
  would make a 2 GB process.
- :class:`ZarrSource`: a zarr array, or an array in a zarr group (``--key``),
  when the ``zarr`` extra is installed.
- :class:`MemorySource`: a compressed ``.npz`` member, which cannot be read in
  pieces and is decompressed whole.

Files are never unpickled.  Sources hold paths, not open files, once pickled,
so dask workers can read the same boxes by path (``--scheduler``).
"""

from __future__ import annotations

import math
import os
import struct
import zipfile
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any

import numpy as np

from .boxes import Box, contiguous_runs
from .files import CLIError

__all__ = ["MemorySource", "NpySource", "Source", "ZarrSource", "open_source"]

_READ_ERRORS = (ValueError, OSError, EOFError, zipfile.BadZipFile, struct.error)


class Source(ABC):
    """An array on disk: shape, dtype, and boxes read on demand.

    ``reversed_layout`` is true when the bytes are in Fortran order: the
    file then holds the transposed array in C order, and boxes are cheapest
    to read in reversed coordinates.
    """

    path: str
    shape: tuple[int, ...]
    dtype: np.dtype
    reversed_layout: bool = False
    kind: str = ""

    @property
    def grain(self) -> tuple[int, ...]:
        """Chunk shape reads should align to, in layout coordinates (1s: any)."""
        return (1,) * len(self.shape)

    @property
    def layout_shape(self) -> tuple[int, ...]:
        """The shape in layout coordinates (reversed for a Fortran-order file)."""
        return self.shape[::-1] if self.reversed_layout else self.shape

    @property
    def nbytes(self) -> int:
        return math.prod(self.shape) * self.dtype.itemsize

    def read(self, box: Box, reverse: bool) -> np.ndarray:
        """The elements of ``box``: in reversed coordinates if ``reverse``, else as stored."""
        if reverse == self.reversed_layout:
            return self.read_layout(box)
        return self.read_layout(box.reversed()).T

    @abstractmethod
    def read_layout(self, box: Box) -> np.ndarray:
        """The elements of a box given in layout coordinates, as a C-order array."""

    def close(self) -> None:  # noqa: B027 (most sources hold nothing open)
        """Release what the source holds open (it reopens on the next read)."""


def _pread_exact(fd: int, view: memoryview, offset: int, path: str) -> None:
    done = 0
    while done < len(view):
        got = os.preadv(fd, [view[done:]], offset + done)
        if got == 0:
            raise CLIError(f"{path}: the file ended early (it was cut or changed while read)")
        done += got


class NpySource(Source):
    """A C- or Fortran-order array of raw bytes at ``offset`` in a file."""

    kind = "npy"

    def __init__(self, path: str, offset: int, shape: tuple[int, ...], dtype: np.dtype,
                 fortran: bool) -> None:
        self.path, self.offset = path, offset
        self.shape, self.dtype = tuple(shape), dtype
        self.reversed_layout = bool(fortran) and len(shape) > 1
        self._fd: int | None = None

    def _file(self) -> int:
        if self._fd is None:
            self._fd = os.open(self.path, os.O_RDONLY)
        return self._fd

    def read_layout(self, box: Box) -> np.ndarray:
        out = np.empty(box.extent, self.dtype)
        if out.size == 0:
            return out
        raw = memoryview(out.reshape(-1).view(np.uint8))
        offsets, length = contiguous_runs(self.layout_shape, box)
        size = self.dtype.itemsize
        fd = self._file()
        for i, start in enumerate(offsets.tolist()):
            piece = raw[i * length * size : (i + 1) * length * size]
            _pread_exact(fd, piece, self.offset + start * size, self.path)
        return out

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_fd": None}

    def __del__(self) -> None:
        self.close()


class MemorySource(Source):
    """An array already in memory (a decompressed ``.npz`` member)."""

    kind = "memory"

    def __init__(self, path: str, array: np.ndarray) -> None:
        self.path, self.array = path, array
        self.shape, self.dtype = array.shape, array.dtype

    def read_layout(self, box: Box) -> np.ndarray:
        return np.ascontiguousarray(self.array[box.slices])


class ZarrSource(Source):
    """An array of a zarr store (``key`` names it inside a group)."""

    kind = "zarr"

    def __init__(self, path: str, key: str | None, array: Any) -> None:
        self.path, self.key = path, key
        self.shape, self.dtype = tuple(array.shape), np.dtype(array.dtype)
        self._chunks = tuple(array.chunks)
        self._array: Any = array

    @property
    def grain(self) -> tuple[int, ...]:
        return self._chunks

    def read_layout(self, box: Box) -> np.ndarray:
        if self._array is None:
            self._array = _open_zarr_array(Path(self.path), self.key, "INPUT")
        return np.ascontiguousarray(self._array[box.slices])

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_array": None}


def _explain(exc: BaseException) -> str:
    text = str(exc)
    if "pickle" in text or "Python objects" in text or "Object arrays" in text:
        return "holds Python objects (object dtype), which are never unpickled"
    return f"is not a valid NumPy file ({text})"


def _npy_header(f: Any) -> tuple[tuple[int, ...], bool, np.dtype]:
    version = np.lib.format.read_magic(f)
    if version == (1, 0):
        return np.lib.format.read_array_header_1_0(f)
    if version == (2, 0):
        return np.lib.format.read_array_header_2_0(f)
    raise ValueError(f"unsupported .npy format version {version[0]}.{version[1]}")


def _npy_at(path: str, start: int, available: int, what: str, shown: str) -> NpySource:
    """The ``.npy`` stream that begins ``start`` bytes into ``path``."""
    with open(path, "rb") as f:
        f.seek(start)
        if f.read(4) == b"PK\x03\x04":
            raise CLIError(f"{what} {shown}: is not a .npy array file (it looks like an archive)")
        f.seek(start)
        try:
            shape, fortran, dtype = _npy_header(f)
        except _READ_ERRORS as exc:
            raise CLIError(f"{what} {shown}: {_explain(exc)}") from None
        header = f.tell() - start
    if dtype.hasobject:
        raise CLIError(f"{what} {shown}: {_explain(ValueError('Python objects'))}")
    need = math.prod(shape) * dtype.itemsize
    if header + need > available:
        raise CLIError(
            f"{what} {shown}: is not a valid NumPy file (its header promises {need} bytes "
            f"of data, the file holds {max(available - header, 0)})"
        )
    return NpySource(path, start + header, shape, dtype, fortran)


def _member_start(path: str, info: zipfile.ZipInfo) -> int:
    """Where a stored zip member's bytes begin (after its local file header)."""
    with open(path, "rb") as f:
        f.seek(info.header_offset)
        local = f.read(30)
    if len(local) < 30 or local[:4] != b"PK\x03\x04":
        raise zipfile.BadZipFile(f"bad local header for {info.filename}")
    name_len, extra_len = struct.unpack("<HH", local[26:30])
    return info.header_offset + 30 + name_len + extra_len


def _open_npz(p: Path, key: str | None, what: str) -> Source:
    try:
        with zipfile.ZipFile(p) as archive:
            members = {n[:-4] if n.endswith(".npy") else n: n for n in archive.namelist()}
            if key is None:
                if len(members) != 1:
                    raise CLIError(
                        f"{what} {p}: holds {len(members)} arrays, name one with --key "
                        f"(keys: {', '.join(members) or 'none'})"
                    )
                key = next(iter(members))
            if key not in members:
                raise CLIError(
                    f"{what} {p}: no array named {key!r} (keys: {', '.join(members) or 'none'})"
                )
            info = archive.getinfo(members[key])
        if info.compress_type == zipfile.ZIP_STORED and not info.flag_bits & 1:
            return _npy_at(str(p), _member_start(str(p), info), info.file_size, what, str(p))
        with np.load(p, allow_pickle=False) as loaded:
            return MemorySource(str(p), loaded[key])
    except CLIError:
        raise
    except (*_READ_ERRORS, KeyError) as exc:
        raise CLIError(f"{what} {p}: {_explain(exc)}") from None


def _is_zarr(p: Path) -> bool:
    return p.suffix.lower() == ".zarr" or any(
        (p / name).exists() for name in ("zarr.json", ".zarray", ".zgroup")
    )


def _open_zarr_array(p: Path, key: str | None, what: str) -> Any:
    try:
        import zarr
    except ImportError:
        raise CLIError(
            f"{what} {p}: reading zarr arrays needs the zarr package "
            f"(pip install 'axisops[zarr]')"
        ) from None
    try:
        node = zarr.open(store=str(p), mode="r")
    except Exception as exc:  # zarr raises many types for a store it cannot read
        raise CLIError(f"{what} {p}: is not a readable zarr array ({exc})") from None
    if isinstance(node, zarr.Array):
        if key is not None:
            raise CLIError(f"{what} {p}: is a zarr array, not a group (--key names an array "
                           f"inside a zarr group or an .npz archive)")
        return node
    names = sorted(node.array_keys())
    if key is None:
        if len(names) != 1:
            raise CLIError(f"{what} {p}: is a zarr group of {len(names)} arrays, name one with "
                           f"--key (keys: {', '.join(names) or 'none'})")
        key = names[0]
    try:
        member = node[key]
    except KeyError:
        member = None
    if not isinstance(member, zarr.Array):
        raise CLIError(f"{what} {p}: no array named {key!r} (keys: {', '.join(names) or 'none'})")
    return member


def open_source(path: str, key: str | None = None, *, what: str = "INPUT") -> Source:
    """The array at ``path``: a ``.npy`` file, an ``.npz`` member or a zarr array.

    ``what`` names the argument in error messages (``INPUT``, ``INDEX``).
    """
    p = Path(path)
    if not p.exists():
        raise CLIError(f"{what} {path}: no such file")
    if p.is_dir():
        if _is_zarr(p):
            return ZarrSource(path, key, _open_zarr_array(p, key, what))
        raise CLIError(f"{what} {path}: is a directory (need a .npy or .npz file, "
                       f"or a zarr array)")
    suffix = p.suffix.lower()
    if suffix == ".npy":
        if key is not None:
            raise CLIError(f"{what} {path}: a key applies to .npz archives only "
                           f"(and zarr groups)")
        return _npy_at(path, 0, p.stat().st_size, what, path)
    if suffix == ".npz":
        return _open_npz(p, key, what)
    raise CLIError(
        f"{what} {path}: unsupported file type {suffix or '(none)'!r} "
        f"(need .npy, .npz or a .zarr directory)"
    )
