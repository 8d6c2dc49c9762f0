"""Reads and writes at an offset of a file, on every platform.

``os.preadv`` and ``os.pwrite`` leave the file position alone and let several
threads share one descriptor, but Windows has neither (nor ``os.pread``).
Each function picks, at call time, the best call this Python has:
``preadv`` (reads straight into the caller's buffer), then ``pread`` (one
copy), then ``lseek`` + ``read`` under a process-wide lock, so that two
threads never move one descriptor's position under each other.
"""

from __future__ import annotations

import os
import threading
from typing import Any

from .errors import FileError

__all__ = ["read_at", "read_exact", "write_at"]

# Not taken at fork: only used where os.pread is missing (Windows), which has no fork().
_SEEK_LOCK = threading.Lock()


def read_at(fd: int, view: memoryview, offset: int) -> int:
    """Read up to ``len(view)`` bytes at ``offset`` into ``view``; how many were read.

    >>> import tempfile
    >>> with tempfile.TemporaryFile() as f:
    ...     _ = f.write(b"abcdef"); f.flush()
    ...     buf = bytearray(3)
    ...     read_at(f.fileno(), memoryview(buf), 2), bytes(buf)
    (3, b'cde')
    """
    preadv = getattr(os, "preadv", None)
    if preadv is not None:
        return preadv(fd, [view], offset)
    pread = getattr(os, "pread", None)
    if pread is not None:
        data = pread(fd, len(view), offset)
    else:
        with _SEEK_LOCK:
            os.lseek(fd, offset, os.SEEK_SET)
            data = os.read(fd, len(view))
    view[: len(data)] = data
    return len(data)


def read_exact(fd: int, view: memoryview, offset: int, label: Any) -> None:
    """Fill all of ``view`` from ``offset``; :class:`FileError` naming ``label`` (text, or
    the :class:`~axisops.errors.Arg` of a file argument) when the file ends first."""
    done = 0
    while done < len(view):
        got = read_at(fd, view[done:], offset + done)
        if got == 0:
            raise FileError(label, ": the file ended early (it was cut or changed while read)")
        done += got


def write_at(fd: int, data: memoryview, offset: int) -> None:
    """Write all of ``data`` at ``offset``."""
    pwrite = getattr(os, "pwrite", None)
    while data:
        if pwrite is not None:
            written = pwrite(fd, data, offset)
        else:
            with _SEEK_LOCK:
                os.lseek(fd, offset, os.SEEK_SET)
                written = os.write(fd, data)
        data, offset = data[written:], offset + written
