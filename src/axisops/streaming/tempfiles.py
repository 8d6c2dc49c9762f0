"""Temporary files that no kill leaves behind, not even SIGKILL.

On Linux a temporary file is *unnamed*: ``open(directory, O_TMPFILE)`` makes
an inode with no name, which the kernel frees when the last descriptor
closes, however the process ends.  An output is given a name only when it is
complete (``linkat`` of ``/proc/self/fd/N``).

Elsewhere, or on a filesystem without ``O_TMPFILE``, a temporary file has a
recognisable name, ``.LABEL.axisops-PID-XXXXXXXX.part``, and its owner holds
an exclusive ``flock`` on it while alive.  Every run first *sweeps* the
folder it writes to: a file of that pattern, owned by this user, that nobody
holds locked, is left over from a process that died, and is removed (on a
filesystem without locks nothing can be told apart, so nothing is removed).
Without ``fcntl`` (Windows) a file another process has open cannot be
removed, which is the same test.

The same sweep covers the one short-lived name of the unnamed scheme (an
output linked to a hidden name and then renamed over the target, when the
target already exists): it is locked too while its owner lives.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

__all__ = ["PATTERN", "TempFile", "create", "create_named", "hidden_name", "sweep"]

#: Names of the temporary files of every axisops run.
PATTERN = re.compile(r"\..*\.axisops-\d+-[0-9a-z]{8}\.part", re.DOTALL)

_BINARY = getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)

#: errno values from ``O_TMPFILE`` that mean "not here": use a named file.
_NO_TMPFILE = {errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL, errno.ENOENT,
               getattr(errno, "ENOTSUP", errno.EOPNOTSUPP)}


#: Characters of the label kept in a name (a file name has at most 255 bytes).
LABEL_CHARS = 64


def hidden_name(label: str) -> str:
    """A fresh name in the temporary files' pattern (``label`` is for people, and cut).

    >>> bool(PATTERN.fullmatch(hidden_name("out.npz")))
    True
    >>> len(hidden_name("x" * 300)) < 100
    True
    """
    token = "".join(secrets.choice("0123456789abcdefghijklmnopqrstuvwxyz") for _ in range(8))
    return f".{label[:LABEL_CHARS]}.axisops-{os.getpid()}-{token}.part"


def _lock(fd: int) -> bool:
    """Hold an exclusive lock on ``fd``'s file; False when another holder has it."""
    if fcntl is None:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    except OSError:  # no locks on this filesystem: nobody can tell we are alive
        return True
    return True


@dataclass
class TempFile:
    """A temporary file: ``fd`` open for reading and writing; ``name`` when it has one.

    ``handle`` is its file object once :meth:`open` made one; it then owns ``fd``.
    """

    fd: int
    directory: Path
    name: str | None
    handle: IO[bytes] | None = field(default=None)
    closed: bool = field(default=False)

    @property
    def unnamed(self) -> bool:
        return self.name is None

    def open(self) -> IO[bytes]:
        """A binary file object on ``fd`` (which it then owns)."""
        if self.handle is None:
            self.handle = os.fdopen(self.fd, "w+b")
        return self.handle

    def discard(self) -> None:
        """Close it and remove its name, if it still has one.  Safe to call twice."""
        if not self.closed:
            self.closed = True
            with contextlib.suppress(OSError):
                if self.handle is not None:
                    self.handle.close()
                else:
                    os.close(self.fd)
        if self.name is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.directory / self.name)
            self.name = None


def _unnamed_supported() -> bool:
    return hasattr(os, "O_TMPFILE") and os.path.isdir("/proc/self/fd")


def _create_unnamed(directory: Path, mode: int) -> int | None:
    try:
        return os.open(directory, os.O_TMPFILE | os.O_RDWR | _BINARY, mode)
    except OSError as exc:
        if exc.errno in _NO_TMPFILE:
            return None
        raise


def create_named(directory: Path, label: str, mode: int) -> TempFile:
    """A new file of the pattern, locked, still under its name once locked."""
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | _BINARY | getattr(os, "O_NOFOLLOW", 0)
    while True:
        name = hidden_name(label)
        fd = os.open(directory / name, flags, mode)
        temp = TempFile(fd, directory, name)
        if _lock(fd) and _same_file(directory / name, fd):
            return temp
        # A sweep took it in the instant before the lock: leave the name to the sweep.
        temp.name = None
        temp.discard()


def _same_file(path: Path, fd: int) -> bool:
    try:
        there = os.stat(path, follow_symlinks=False)
    except OSError:
        return False
    here = os.fstat(fd)
    return (there.st_dev, there.st_ino) == (here.st_dev, here.st_ino)


def create(directory: Path, label: str, mode: int) -> TempFile:
    """A temporary file in ``directory`` created with ``mode`` (the umask applies).

    Call it inside :func:`axisops.streaming.signals.critical`, and register
    :meth:`TempFile.discard` before the section ends.
    """
    if _unnamed_supported():
        fd = _create_unnamed(directory, mode)
        if fd is not None:
            _lock(fd)  # so the hidden name it may be given is never swept
            return TempFile(fd, directory, None)
    return create_named(directory, label, mode)


def _stale(path: Path) -> bool:
    """Whether ``path`` (of the pattern) is a regular file of ours whose owner is gone."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | _BINARY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        return False
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return False
        if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
            return False
        if fcntl is None:
            return True  # removal below fails while its owner has it open
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # held by a live owner, or no locks here: keep it
            return False
        return _same_file(path, fd)
    finally:
        os.close(fd)


def sweep(directory: Path) -> int:
    """Remove the temporary files dead runs left in ``directory``; how many.

    Only names of the pattern, regular files owned by this user, that no
    live process holds, are removed.
    """
    removed = 0
    try:
        entries = list(os.scandir(directory))
    except OSError:
        return 0
    for entry in entries:
        if PATTERN.fullmatch(entry.name) and _stale(Path(entry.path)):
            with contextlib.suppress(OSError):
                os.unlink(entry.path)
                removed += 1
    return removed
