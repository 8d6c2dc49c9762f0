"""The command line's errors and outputs.

Inputs are opened by :mod:`axisops.cli.sources`.  Outputs are written to a
temporary name beside the target and renamed into place only once complete,
so a failed or interrupted run never leaves a file under the requested name.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

__all__ = ["CLIError", "atomic_output", "default_output"]


class CLIError(Exception):
    """A problem with the command's inputs: reported on one line, exit status 1."""


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
