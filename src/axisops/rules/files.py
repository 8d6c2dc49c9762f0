"""Rules of the file jobs (``topk_file``, ``gather_file``, the command line)."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ..errors import Arg
from . import invalid

__all__ = ["as_chunk_bytes", "as_key", "as_path", "as_progress", "check_scheduler", "no_index_key"]


def as_path(name: str, value: Any, optional: bool = False) -> str | None:
    """A path argument as a str (None allowed when ``optional``)."""
    if value is None and optional:
        return None
    if isinstance(value, (str, os.PathLike)):
        path = os.fspath(value)
        if isinstance(path, str):
            return path
    invalid(f"{name}={value!r} ({type(value).__name__}) is not a path "
            f"(need a str or os.PathLike{' or None' if optional else ''})",
            name=name, value=value, allowed="a path")


def as_key(name: str, value: Any) -> str | None:
    """The name of an array in an archive or group (or None)."""
    if value is None or isinstance(value, str):
        return value
    invalid(f"{name}={value!r} is not an array name (need a str or None)", name=name,
            value=value, allowed="a str or None")


def no_index_key(value: str | None) -> None:
    """``index_key`` names an array in an index *file*: refused beside an index array."""
    if value is not None:
        invalid(f"index_key={value!r} names an array in an index file, but index is an array "
                f"(pass a path, or no index_key)", name="index_key", value=value,
                allowed="None when index is an array")


def as_progress(value: Any) -> bool | None:
    """``progress``: True, False or None."""
    if value is None or isinstance(value, (bool, np.bool_)):
        return None if value is None else bool(value)
    invalid(f"progress={value!r} is not allowed (need True, False or None)", name="progress",
            value=value, allowed="True, False or None")


def check_scheduler(value: Any, is_client: bool) -> None:
    """``scheduler``: an address, a ``distributed.Client`` (``is_client``) or None."""
    if not (value is None or isinstance(value, str) or is_client):
        invalid(f"scheduler={value!r} is not a scheduler (need an address such as "
                f"'tcp://host:8786', a distributed.Client, or None)", name="scheduler",
                value=value, allowed="an address, a distributed.Client or None")


def as_chunk_bytes(value: Any) -> int:
    """``chunk_bytes`` (``--chunk-bytes``): an integer >= 1."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) \
            or value < 1:
        invalid(Arg("chunk_bytes", value, "assign"), " is not allowed (need an integer >= 1)",
                name="chunk_bytes", value=value, allowed="an integer >= 1")
    return int(value)
