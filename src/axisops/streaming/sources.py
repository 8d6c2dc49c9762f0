"""Where the engine reads arrays from, one box at a time.

- :class:`NpySource`: a ``.npy`` file, or an uncompressed member of an ``.npz``
  archive (what ``np.savez`` writes), read with positioned reads
  (:func:`axisops.streaming.positional.read_exact`) into a buffer of the box.  Nothing
  is memory-mapped: mapped pages count as resident memory, so reading a
  mapped 2 GB file front to back would make a 2 GB process.
- :class:`ZarrSource`: a zarr array, or an array in a zarr group (``key``),
  when the ``zarr`` extra is installed.
- :class:`MemorySource`: a compressed ``.npz`` member, which cannot be read in
  pieces and is decompressed whole, or an array given in memory (a gather
  index passed as an array).

Files are never unpickled, and only regular files are opened (a FIFO named
``x.npy`` is refused, not waited on).  A header is checked before anything is
read: its shape must be one NumPy can hold, and its data must fit in the
file.  Sources hold paths, not open files, once pickled, so dask workers can
read the same boxes by path (``scheduler``).  Messages name the file as the
caller does (a :class:`~axisops.streaming.errors.Role`: ``INPUT x.npy`` on the
command line, ``path='x.npy'`` in Python).
"""

from __future__ import annotations

import math
import os
import stat
import struct
import zipfile
from abc import ABC, abstractmethod
from pathlib import Path
from typing import IO, Any

import numpy as np

from .._forksafe import imported
from ..errors import Arg
from .boxes import Box, contiguous_runs
from .errors import KEY_OF, FileError, file_error, one_line, show_names
from .outputs import file_kind
from .positional import read_exact

__all__ = ["MemorySource", "NpySource", "Source", "ZarrSource", "open_regular", "open_source"]

_READ_ERRORS = (ValueError, OSError, EOFError, zipfile.BadZipFile, struct.error)

_READ_FLAGS = (os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
               | getattr(os, "O_CLOEXEC", 0))


def open_regular(path: str, arg: str) -> int:
    """A read-only descriptor of ``path``, which must be a regular file.

    The kind is checked before opening (a FIFO would block ``open``) and
    again after (the name may have changed meanwhile); ``O_NONBLOCK`` keeps
    the open itself from waiting.
    """
    try:
        if not stat.S_ISREG(mode := os.stat(path).st_mode):
            raise file_error(arg, path, f"is {file_kind(mode)}, not a regular file")
        fd = os.open(path, _READ_FLAGS)
    except FileNotFoundError:
        raise file_error(arg, path, "no such file") from None
    except OSError as exc:
        raise file_error(arg, path, f"{exc.strerror or exc}") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise file_error(arg, path, f"is {file_kind(mode)}, not a regular file")
    return fd


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
    arg: str = "path"

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

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def token(self) -> tuple[Any, ...]:
        """What identifies the data, for the names of dask tasks that read it."""
        return (self.kind, self.path, self.shape, str(self.dtype))

    def check_budget(self, chunk_bytes: int) -> None:  # noqa: B027 (most sources read any box)
        """Raise :class:`FileError` when no read can stay within ``chunk_bytes``."""

    def close(self) -> None:  # noqa: B027 (most sources hold nothing open)
        """Release what the source holds open (it reopens on the next read)."""


class NpySource(Source):
    """A C- or Fortran-order array of raw bytes at ``offset`` in a file."""

    kind = "npy"

    def __init__(self, path: str, offset: int, shape: tuple[int, ...], dtype: np.dtype,
                 fortran: bool, arg: str = "path") -> None:
        self.path, self.offset, self.arg = path, offset, arg
        self.shape, self.dtype = tuple(shape), dtype
        self.reversed_layout = bool(fortran) and len(shape) > 1
        self._fd: int | None = None

    def _file(self) -> int:
        if self._fd is None:
            self._fd = open_regular(self.path, self.arg)
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
            read_exact(fd, piece, self.offset + start * size, Arg(self.arg, self.path, "label"))
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
    """An array already in memory (a decompressed ``.npz`` member, an index array)."""

    kind = "memory"

    def __init__(self, path: str, array: np.ndarray, arg: str = "path") -> None:
        self.path, self.array, self.arg = path, array, arg
        self.shape, self.dtype = array.shape, array.dtype

    def read_layout(self, box: Box) -> np.ndarray:
        return np.ascontiguousarray(self.array[box.slices])

    @property
    def token(self) -> tuple[Any, ...]:
        imported("dask.base")
        from dask.base import tokenize

        return (self.kind, self.path, tokenize(self.array))


class ZarrSource(Source):
    """An array of a zarr store (``key`` names it inside a group)."""

    kind = "zarr"

    def __init__(self, path: str, key: str | None, array: Any, arg: str = "path") -> None:
        self.path, self.key, self.arg = path, key, arg
        self.shape, self.dtype = tuple(array.shape), np.dtype(array.dtype)
        self._chunks = tuple(int(c) for c in array.chunks)
        self._array: Any = array
        if any(c < 1 for c in self._chunks) and math.prod(self.shape):
            raise file_error(arg, path, f"is not a readable zarr array (its chunk "
                            f"shape {self._chunks} has an empty side)")

    @property
    def grain(self) -> tuple[int, ...]:
        return self._chunks

    @property
    def chunk_nbytes(self) -> int:
        """Bytes one zarr chunk takes once decoded (zarr always decodes whole chunks)."""
        return math.prod(self._chunks) * self.dtype.itemsize

    def check_budget(self, chunk_bytes: int) -> None:
        """Refuse a chunk larger than ``chunk_bytes``: reading any of it decodes all of it."""
        if self.chunk_nbytes > chunk_bytes and math.prod(self.shape):
            raise file_error(
                self.arg, self.path, f"its zarr chunks {self._chunks} of {self.dtype} take "
                f"{self.chunk_nbytes} bytes each once decoded, more than ", Arg("chunk_bytes"),
                f"={chunk_bytes} (zarr decodes whole chunks); pass ",
                Arg("chunk_bytes", self.chunk_nbytes, "setting"), " or more, or rechunk the array")

    def read_layout(self, box: Box) -> np.ndarray:
        if self._array is None:
            self._array = _open_zarr_array(Path(self.path), self.key, self.arg)
        try:
            return np.ascontiguousarray(self._array[box.slices])
        except MemoryError:
            raise
        except Exception as exc:  # codecs and stores raise many types for a bad chunk
            raise file_error(self.arg, self.path, f"a zarr chunk cannot be read "
                           f"({type(exc).__name__}: {one_line(str(exc), 200)})") from None

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_array": None}


def _explain(exc: BaseException) -> str:
    text = one_line(str(exc), 200)
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


def _check_shape(shape: tuple[Any, ...], dtype: np.dtype, arg: str, path: str) -> None:
    """A header's shape must be non-negative integers that NumPy can hold as an array."""
    if not all(type(d) is int and d >= 0 for d in shape):
        raise file_error(arg, path, f"is not a valid NumPy file (its header's shape "
                        f"{shape!r} is not a tuple of integers >= 0)")
    try:
        np.broadcast_to(np.empty((), dtype), shape)  # NumPy's own limits, nothing allocated
    except ValueError as exc:
        raise file_error(arg, path, f"is not a valid NumPy file (its header's shape "
                        f"{shape!r} of {dtype} is not one NumPy can hold: {exc})") from None


def _npy_at(f: IO[bytes], path: str, start: int, available: int, arg: str) -> NpySource:
    """The ``.npy`` stream that begins ``start`` bytes into the open file ``f`` of ``path``."""
    f.seek(start)
    if f.read(4) == b"PK\x03\x04":
        raise file_error(arg, path, "is not a .npy array file (it looks like an archive)")
    f.seek(start)
    try:
        shape, fortran, dtype = _npy_header(f)
    except _READ_ERRORS as exc:
        raise file_error(arg, path, f"{_explain(exc)}") from None
    header = f.tell() - start
    if dtype.hasobject:
        raise file_error(arg, path, f"{_explain(ValueError('Python objects'))}")
    _check_shape(shape, dtype, arg, path)
    need = math.prod(shape) * dtype.itemsize
    if header + need > available:
        raise file_error(
            arg, path, f"is not a valid NumPy file (its header promises {need} bytes "
            f"of data, the file holds {max(available - header, 0)})"
        )
    return NpySource(path, start + header, shape, dtype, fortran, arg)


def _member_start(f: IO[bytes], info: zipfile.ZipInfo) -> int:
    """Where a stored zip member's bytes begin (after its local file header)."""
    f.seek(info.header_offset)
    local = f.read(30)
    if len(local) < 30 or local[:4] != b"PK\x03\x04":
        raise zipfile.BadZipFile(f"bad local header for {info.filename}")
    name_len, extra_len = struct.unpack("<HH", local[26:30])
    return info.header_offset + 30 + name_len + extra_len


def _open_npz(f: IO[bytes], path: str, key: str | None, arg: str) -> Source:
    try:
        with zipfile.ZipFile(f) as archive:
            members = {n[:-4] if n.endswith(".npy") else n: n for n in archive.namelist()}
            if key is None:
                if len(members) != 1:
                    raise file_error(
                        arg, path, f"holds {len(members)} arrays, name one with ", Arg(KEY_OF[arg]),
                        f" (keys: {show_names(members)})"
                    )
                key = next(iter(members))
            if key not in members:
                raise file_error(arg, path, f"no array named {key!r} (keys: {show_names(members)})")
            info = archive.getinfo(members[key])
        if info.compress_type == zipfile.ZIP_STORED and not info.flag_bits & 1:
            return _npy_at(f, path, _member_start(f, info), info.file_size, arg)
        f.seek(0)
        with np.load(f, allow_pickle=False) as loaded:
            return MemorySource(path, loaded[key], arg)
    except FileError:
        raise
    except (*_READ_ERRORS, KeyError) as exc:
        raise file_error(arg, path, f"{_explain(exc)}") from None


def _is_zarr(p: Path) -> bool:
    return p.suffix.lower() == ".zarr" or any(
        (p / name).exists() for name in ("zarr.json", ".zarray", ".zgroup")
    )


def _open_zarr_array(p: Path, key: str | None, arg: str) -> Any:
    path = str(p)
    try:
        imported("zarr")
        import zarr
    except ImportError:
        raise file_error(
            arg, path, "reading zarr arrays needs the zarr package (pip install 'axisops[zarr]')"
        ) from None
    try:
        node = zarr.open(store=str(p), mode="r")
    except Exception as exc:  # zarr raises many types for a store it cannot read
        raise file_error(arg, path, f"is not a readable zarr array "
                        f"({one_line(str(exc), 200)})") from None
    if isinstance(node, zarr.Array):
        if key is not None:
            raise file_error(arg, path, "is a zarr array, not a group (", Arg(KEY_OF[arg]),
                            " names an array inside a zarr group or an .npz archive)")
        return node
    names = sorted(node.array_keys())
    if key is None:
        if len(names) != 1:
            raise file_error(arg, path, f"is a zarr group of {len(names)} arrays, name one with ",
                            Arg(KEY_OF[arg]), f" (keys: {show_names(names)})")
        key = names[0]
    try:
        member = node[key]
    except KeyError:
        member = None
    if not isinstance(member, zarr.Array):
        raise file_error(arg, path, f"no array named {key!r} (keys: {show_names(names)})")
    return member


def open_source(path: str, key: str | None = None, *, arg: str = "path") -> Source:
    """The array at ``path``: a ``.npy`` file, an ``.npz`` member or a zarr array.

    ``arg`` is the argument it was given as (``"path"`` or ``"index"``), for
    messages, which also name the argument that names an array inside it.
    """
    p = Path(path)
    if not os.path.lexists(p):
        raise file_error(arg, path, "no such file")
    if p.is_dir():
        if _is_zarr(p):
            return ZarrSource(path, key, _open_zarr_array(p, key, arg), arg)
        raise file_error(arg, path, "is a directory (need a .npy or .npz file, or a zarr array)")
    suffix = p.suffix.lower()
    if suffix not in (".npy", ".npz"):
        raise file_error(
            arg, path, f"unsupported file type {suffix or '(none)'!r} "
            f"(need .npy, .npz or a .zarr directory)"
        )
    if suffix == ".npy" and key is not None:
        raise file_error(arg, path, Arg(KEY_OF[arg]),
                        " applies to .npz archives only (and zarr groups)")
    with os.fdopen(open_regular(path, arg), "rb") as f:
        if suffix == ".npy":
            return _npy_at(f, path, 0, os.fstat(f.fileno()).st_size, arg)
        return _open_npz(f, path, key, arg)
