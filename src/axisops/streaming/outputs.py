"""Outputs: checked first, committed last.

An output is written to a temporary file beside its target (see
:mod:`axisops.streaming.tempfiles`) and put in place only once complete, by
:meth:`Output.commit`, so a failed or interrupted run never leaves a file
under the requested name, and never replaces what it should not:

- an output path through a symbolic link writes the link's target; the link stays.
- An existing output must be a regular file; devices, FIFOs and sockets are
  refused (``/dev/null`` is an error, and the device node is untouched).
- An existing output keeps its permission bits (a 0600 file stays 0600); a
  new one gets 0666 less the umask, applied by the kernel at creation.
- An output that is one of the inputs (the same file, through a link or not)
  is refused before any work starts.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Callable, Iterable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from ..errors import Arg
from . import signals, tempfiles
from .errors import file_error
from .positional import read_at, write_at

__all__ = ["Output", "default_output", "file_kind", "open_output", "output_target",
           "scratch_file", "write_bytes"]


def default_output(input_path: str, suffix: str) -> str:
    """``INPUT``'s stem plus ``suffix``, in INPUT's directory."""
    p = Path(input_path)
    return str(p.with_name(p.stem + suffix))


_KINDS = [(stat.S_ISDIR, "a directory"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISFIFO, "a FIFO"),
          (stat.S_ISSOCK, "a socket")]


def file_kind(mode: int) -> str:
    """What a non-regular file is, in words.

    >>> file_kind(stat.S_IFIFO)
    'a FIFO'
    """
    return next((words for test, words in _KINDS if test(mode)), "not a regular file")


def output_target(path: str, inputs: Iterable[tuple[str, str]] = ()) -> Path:
    """Where the output ``path`` (the argument ``out``) writes (a symbolic link's target),
    after every check.

    ``inputs`` are ``(argument, path)`` pairs, such as ``("path", "x.npy")``.
    Raises :class:`~axisops.streaming.errors.FileError` when the target is not
    a regular file, when its folder does not exist, or when it is one of the
    inputs.
    """
    target = Path(os.path.realpath(path))
    try:
        info = os.stat(target)
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise file_error("out", path, f"{exc.strerror}") from None
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise file_error("out", path, "is a directory")
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise file_error("out", path, f"is {file_kind(info.st_mode)}; axisops writes only "
                         f"regular files (choose a file name)")
    if not target.parent.is_dir():
        raise file_error("out", path, f"directory {target.parent} does not exist")
    if info is not None:
        for arg, source in inputs:
            with contextlib.suppress(OSError):
                if os.path.samefile(target, source):
                    raise file_error("out", path, "is ", Arg(arg, source, "label"),
                                     " itself (choose another ", Arg("out", style="option"),
                                     "; the input is left as it is)")
    return target


@dataclass
class Output:
    """A temporary file that :meth:`commit` puts in place at ``target``."""

    target: Path
    temp: tempfiles.TempFile
    committed: bool = False

    @property
    def handle(self) -> IO[bytes]:
        """The file to write."""
        return self.temp.open()

    def commit(self, announce: Callable[[], None] | None = None) -> None:
        """Flush, call ``announce`` (print the result), then put the file in place.

        ``announce`` and the renaming run as one
        :func:`~axisops.streaming.signals.critical` section: a signal arriving
        meanwhile is acted on after, when the output is complete; if
        ``announce`` raises, nothing is put in place.
        """
        self.handle.flush()
        os.fsync(self.temp.fd)
        with signals.critical():
            if announce is not None:
                announce()
            if self.temp.unnamed:
                _link_into_place(self.temp, self.target)
            else:
                os.replace(self.temp.directory / self.temp.name, self.target)
                self.temp.name = None
            self.committed = True
            signals.output_committed()


def _link_into_place(temp: tempfiles.TempFile, target: Path) -> None:
    """Give an unnamed file the name ``target``, replacing a file there atomically.

    A link cannot replace a file, so an existing target is replaced by way of
    a fresh hidden name, renamed over it at once (the caller holds signals).
    """
    source = f"/proc/self/fd/{temp.fd}"
    folder = os.open(target.parent, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    try:
        if not os.path.lexists(target):
            try:
                os.link(source, target.name, dst_dir_fd=folder)  # dir fd: linkat FOLLOW
                return
            except FileExistsError:
                pass
        hidden = tempfiles.hidden_name(target.name)
        os.link(source, hidden, dst_dir_fd=folder)
        try:
            os.replace(hidden, target.name, src_dir_fd=folder, dst_dir_fd=folder)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(hidden, dir_fd=folder)
            raise
    except (FileExistsError, FileNotFoundError, IsADirectoryError, NotADirectoryError):
        raise
    except OSError:  # this system refuses to link an unnamed file: copy it to a name
        _copy_into_place(temp, target)
    finally:
        os.close(folder)


def _copy_into_place(temp: tempfiles.TempFile, target: Path) -> None:
    """Copy an unnamed file to a named temporary one, and rename that over ``target``."""
    mode = os.fstat(temp.fd).st_mode & 0o7777
    copy = tempfiles.create_named(target.parent, target.name, mode)
    try:
        _set_mode(copy, mode)  # exactly the unnamed file's, not less the umask again
        offset, buffer = 0, memoryview(bytearray(1 << 20))
        while got := read_at(temp.fd, buffer, offset):
            write_at(copy.fd, buffer[:got], offset)
            offset += got
        os.fsync(copy.fd)
        os.replace(copy.directory / copy.name, target)
        copy.name = None
    finally:
        copy.discard()


def _set_mode(temp: tempfiles.TempFile, mode: int) -> None:
    if hasattr(os, "fchmod"):
        os.fchmod(temp.fd, mode)
    elif temp.name is not None:
        os.chmod(temp.directory / temp.name, mode)


def open_output(stack: ExitStack, target: Path) -> Output:
    """A temporary file for ``target`` (from :func:`output_target`), removed by ``stack``.

    Temporary files dead runs left in the target's folder are swept first.
    """
    tempfiles.sweep(target.parent)
    try:
        existing = os.stat(target).st_mode & 0o7777
    except OSError:
        existing = None
    with signals.critical():
        temp = tempfiles.create(target.parent, target.name, 0o666)
        stack.callback(temp.discard)
        temp.open()
    if existing is not None:
        _set_mode(temp, existing)
    return Output(target, temp)


def scratch_file(stack: ExitStack, folder: Path, label: str) -> IO[bytes]:
    """A private temporary file in ``folder`` for intermediate data, removed by ``stack``."""
    with signals.critical():
        temp = tempfiles.create(folder, label, 0o600)
        stack.callback(temp.discard)
        return temp.open()


def write_bytes(path: str, data: bytes) -> None:
    """Write ``data`` to ``path`` the way outputs are written (complete or not at all)."""
    with ExitStack() as stack:
        out = open_output(stack, output_target(path))
        out.handle.write(data)
        out.commit()
