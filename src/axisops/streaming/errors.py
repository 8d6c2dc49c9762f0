"""The streaming engine's error, and how its messages name the caller's arguments.

The engine serves two callers that spell the same arguments differently: the
command line (``INPUT x.npy``, ``--key``, ``--chunk-bytes``) and the Python
API (``path='x.npy'``, ``key``, ``chunk_bytes``).  A :class:`Spelling` holds
one caller's words; the engine's messages are written with it, so each caller
reads its own names.  The Python API adds the function's name once, at its
boundary (``topk_file(): path='x.npy': no such file``).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from ..errors import AxisOpsError

__all__ = ["API", "CLI", "FileError", "Role", "Spelling", "one_line", "show_names"]

#: Messages longer than this are cut (a file name can be 4096 bytes).
MAX_MESSAGE = 1000


class FileError(AxisOpsError, ValueError):
    """A file that cannot be read as an array, or an output that cannot be written there.

    A missing or non-regular file, a malformed or pickled ``.npy``, a missing
    key, a zarr chunk larger than the memory budget, an output that is one of
    the inputs, a scheduler that cannot be reached.  Nothing is written when
    it is raised.
    """


def one_line(text: str, limit: int = MAX_MESSAGE) -> str:
    r"""``text`` with control characters escaped, cut to about ``limit`` characters.

    >>> one_line("two\nlines")
    'two\\nlines'
    """
    out = "".join(repr(c)[1:-1] if unicodedata.category(c).startswith("C") else c
                  for c in text[: limit + 1])
    return out if len(out) <= limit else out[: limit - 3] + "..."


def show_names(names: Iterable[str], first: int = 5) -> str:
    r"""Names for a message: the first few, escaped, and how many in all.

    >>> show_names(["a", "b"])
    'a, b'
    >>> show_names([f"m{i}" for i in range(9)], first=3)
    'm0, m1, m2, ... (9 in all)'
    >>> show_names(["new\nline"])
    "'new\\nline'"
    """
    names = list(names)
    if not names:
        return "none"

    def show(name: str) -> str:
        plain = name.isprintable() and name == name.strip() and "," not in name and name
        return name[:80] if plain else repr(name[:80])

    shown = ", ".join(show(n) for n in names[:first])
    return shown if len(names) <= first else f"{shown}, ... ({len(names)} in all)"


def _label(cli: bool, name: str, value: object) -> str:
    return f"{name} {value}" if cli else f"{name}={str(value)!r}"


@dataclass(frozen=True)
class Role:
    """One input file argument as the caller names it, and its array-naming option.

    >>> CLI.input.label("x.npy"), API.input.label("x.npy")
    ('INPUT x.npy', "path='x.npy'")
    >>> CLI.input.suggest(4096), API.index.suggest(4096)
    ('--chunk-bytes 4096', 'chunk_bytes=4096')
    """

    name: str
    key: str
    chunk_bytes: str
    cli: bool

    def label(self, path: object) -> str:
        """The argument and its value, as a message starts."""
        return _label(self.cli, self.name, path)

    def suggest(self, chunk_bytes: int) -> str:
        """How to pass ``chunk_bytes`` as this caller would."""
        sep = " " if self.cli else "="
        return f"{self.chunk_bytes}{sep}{chunk_bytes}"


@dataclass(frozen=True)
class Spelling:
    """The words of one caller: the command line's (:data:`CLI`) or the API's (:data:`API`)."""

    cli: bool
    input: Role
    index: Role
    chunk_bytes: str
    scheduler: str
    output: str
    output_option: str

    def label(self, name: str, value: object) -> str:
        """An argument and its value, as a message starts.

        >>> CLI.label(CLI.output, "o.npz"), API.label(API.scheduler, "tcp://h:1")
        ('output o.npz', "scheduler='tcp://h:1'")
        """
        return _label(self.cli, name, value)


CLI = Spelling(True, Role("INPUT", "--key", "--chunk-bytes", True),
               Role("INDEX", "--index-key", "--chunk-bytes", True),
               "--chunk-bytes", "--scheduler", "output", "-o")
API = Spelling(False, Role("path", "key", "chunk_bytes", False),
               Role("index", "index_key", "chunk_bytes", False),
               "chunk_bytes", "scheduler", "out", "out")
