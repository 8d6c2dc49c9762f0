"""Reading inputs and writing outputs for the command line, safely.

Inputs are ``.npy`` files (opened memory-mapped, never pickled) or members of
``.npz`` archives.  Outputs are written to a temporary name beside the target
and renamed into place only once complete, so a failed or interrupted run
never leaves a file under the requested name.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import numpy as np

__all__ = ["CLIError", "atomic_output", "default_output", "load_array"]


class CLIError(Exception):
    """A problem with the command's inputs: reported on one line, exit status 1."""


def load_array(path: str, key: str | None = None, *, what: str = "INPUT") -> np.ndarray:
    """The array stored at ``path`` (``.npy``, or ``.npz`` with ``key``).

    A ``.npy`` file is memory-mapped read-only, so it is never read whole.
    """
    p = Path(path)
    if not p.exists():
        raise CLIError(f"{what} {path}: no such file")
    if p.is_dir():
        raise CLIError(f"{what} {path}: is a directory (need a .npy or .npz file)")
    suffix = p.suffix.lower()
    if suffix == ".npy":
        if key is not None:
            raise CLIError(f"{what} {path}: a key applies to .npz archives only")
        return _load_npy(p, what)
    if suffix == ".npz":
        return _load_npz(p, key, what)
    raise CLIError(
        f"{what} {path}: unsupported file type {suffix or '(none)'!r} (need .npy or .npz)"
    )


_READ_ERRORS = (ValueError, OSError, EOFError, zipfile.BadZipFile)


def _explain(exc: BaseException) -> str:
    text = str(exc)
    if "pickle" in text or "Python objects" in text or "Object arrays" in text:
        return "holds Python objects (object dtype), which are never unpickled"
    return f"is not a valid NumPy file ({text})"


def _load_npy(p: Path, what: str) -> np.ndarray:
    try:
        array = np.load(p, mmap_mode="r", allow_pickle=False)
    except _READ_ERRORS as exc:
        raise CLIError(f"{what} {p}: {_explain(exc)}") from None
    if not isinstance(array, np.ndarray):
        if hasattr(array, "close"):
            array.close()
        raise CLIError(f"{what} {p}: is not a .npy array file (it looks like an archive)")
    return array


def _load_npz(p: Path, key: str | None, what: str) -> np.ndarray:
    try:
        with np.load(p, allow_pickle=False) as archive:
            names = list(archive.files)
            if key is None:
                if len(names) != 1:
                    raise CLIError(
                        f"{what} {p}: holds {len(names)} arrays, name one with --key "
                        f"(keys: {', '.join(names) or 'none'})"
                    )
                key = names[0]
            if key not in names:
                raise CLIError(
                    f"{what} {p}: no array named {key!r} (keys: {', '.join(names) or 'none'})"
                )
            return archive[key]
    except CLIError:
        raise
    except (*_READ_ERRORS, KeyError) as exc:
        raise CLIError(f"{what} {p}: {_explain(exc)}") from None


def default_output(input_path: str, suffix: str) -> str:
    """``INPUT``'s stem plus ``suffix``, in INPUT's directory."""
    p = Path(input_path)
    return str(p.with_name(p.stem + suffix))


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def atomic_output(path: str) -> Iterator[IO[bytes]]:
    """A binary file that appears at ``path`` only if the block completes."""
    target = Path(path)
    if target.is_dir():
        raise CLIError(f"output {path}: is a directory")
    if not target.parent.is_dir():
        raise CLIError(f"output {path}: directory {target.parent} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".part", dir=target.parent)
    try:
        os.fchmod(fd, 0o666 & ~_umask())
        with os.fdopen(fd, "wb") as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
