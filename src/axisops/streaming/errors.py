"""The streaming engine's error, and the helpers its messages use.

The engine names the caller's arguments by their Python names (``path``,
``index``, ``key``, ``index_key``, ``chunk_bytes``, ``scheduler``, ``out``) as
:class:`~axisops.errors.Arg` parts of its messages, never in a caller's words:
the Python API shows them as they are (``path='x.npy': no such file``, named by
the function at its boundary: ``topk_file(): path='x.npy': ...``), the command
line as its flags (``INPUT x.npy: no such file``, see :mod:`axisops.cli.main`).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from typing import Any

from ..errors import Arg, AxisOpsError, with_fields

__all__ = ["KEY_OF", "FileError", "file_error", "one_line", "show_names"]

#: Messages longer than this are cut (a file name can be 4096 bytes).
MAX_MESSAGE = 1000


class FileError(AxisOpsError, ValueError):
    """A file that cannot be read as an array, or an output that cannot be written there.

    A missing or non-regular file, a malformed or pickled ``.npy``, a missing
    key, a zarr chunk larger than the memory budget, an output that is one of
    the inputs, a scheduler that cannot be reached.  Nothing is written when
    it is raised.  Fields: ``name`` (the argument) and ``path`` (its value).
    """

    name: str | None = None
    path: Any = None


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


#: The argument that names an array inside each file argument's archive or group.
KEY_OF = {"path": "key", "index": "index_key"}


def file_error(arg: str, path: Any, *problem: Any) -> FileError:
    """A :class:`FileError` about the file argument ``arg`` (``path``, ``index``, ``out``...)
    whose value is ``path``: ``<argument and value>: <problem>``.

    >>> str(file_error("path", "x.npy", "no such file"))
    "path='x.npy': no such file"
    """
    return with_fields(FileError(Arg(arg, path, "label"), ": ", *problem), name=arg, path=path)
