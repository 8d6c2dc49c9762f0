"""Rules of the streaming front: the file jobs (``topk_file``, ``gather_file``, the
command line) and :class:`axisops.StreamingTopK`'s blocks, offsets and result."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ..dtypes import native
from ..errors import Arg
from ..requests import ArrayMeta, TopKSpec
from . import invalid
from .arguments import as_int
from .types import check_index_capacity

__all__ = ["INT64_END", "as_chunk_bytes", "as_key", "as_offset", "as_path", "as_progress",
           "check_block_range", "check_next_block", "check_scheduler", "check_stream_result",
           "no_index_key"]


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


#: Global indices are int64: every index of a streamed sequence stays below this.
INT64_END = 2**63


def check_next_block(meta: ArrayMeta, spec: TopKSpec) -> None:
    """A block of a stream: the first block's rank and dtype, its size off the axis."""
    if meta.ndim != len(spec.shape):
        invalid(f"block has {meta.ndim} dimensions, the first block had {len(spec.shape)} "
                f"(every block has the same rank)", name="block", value=meta.shape,
                allowed=f"{len(spec.shape)} dimensions")
    if native(meta.dtype) != spec.dtype:
        invalid(f"block has dtype {meta.dtype}, the first block had {spec.dtype} "
                f"(every block has one dtype; convert it first if you mean to)",
                name="block", value=meta.dtype, allowed=str(spec.dtype))
    axis = spec.axis
    off = meta.shape[:axis] + meta.shape[axis + 1 :]
    if off != spec.shape[:axis] + spec.shape[axis + 1 :]:
        invalid(f"block.shape={meta.shape} differs from the first block's {spec.shape} off "
                f"axis {axis} (every block has the same size in every dimension but the axis)",
                name="block", value=meta.shape, allowed=f"{spec.shape} off axis {axis}")


def as_offset(value: Any) -> int:
    """A block's global offset: an integer >= 0."""
    start = as_int("offset", value)
    if start < 0:
        invalid(f"offset={start} is negative (need >= 0)", name="offset", value=start,
                allowed=">= 0")
    return start


def check_block_range(start: int, n: int, axis: int, dtype: np.dtype,
                      overlap: tuple[int, int] | None) -> None:
    """``[start, start + n)`` along ``axis`` is indexable (int64, and ``dtype``) and
    overlaps no range given before (``overlap``: the one it meets, if any)."""
    end = start + n
    if end > INT64_END:
        invalid(f"offset={start} with {n} elements along axis {axis} reaches index {end - 1}, "
                f"beyond int64 (need offset + block size <= 2**63)", name="offset",
                value=start, allowed="offset + block size <= 2**63")
    if n:
        check_index_capacity(dtype, end - 1, axis, n, offset=start)
    if overlap is not None:
        s, e = overlap
        invalid(f"offset={start} with {n} elements along axis {axis} covers [{start}, {end}), "
                 f"which overlaps [{s}, {e}) given before (every element may be given once)",
                 name="offset", value=start, allowed="a range not given before")


def check_stream_result(started: bool, ranges: list[tuple[int, int]], seen: int, k: int,
                        axis: int) -> None:
    """A stream can give its result: a block was given, the blocks cover ``[0, n)`` with
    no gap, and at least ``k`` elements."""
    if not started:
        invalid("no block has been given (call update() first)", name="block", value=None,
                allowed="at least one block")
    if ranges and (ranges[0][0] != 0 or len(ranges) > 1):
        gap = (0, ranges[0][0]) if ranges[0][0] else (ranges[0][1], ranges[1][0])
        covered = ", ".join(f"[{s}, {e})" for s, e in ranges[:4])
        more = ", ..." if len(ranges) > 4 else ""
        invalid(f"elements [{gap[0]}, {gap[1]}) along axis {axis} were never given (the "
                 f"blocks cover {covered}{more}; need every element from 0 on)",
                 name="offset", value=gap, allowed="no gap")
    if seen < k:
        invalid(f"k={k} but only {seen} elements have been given along axis {axis} "
                f"(need at least k)", name="k", value=k, size=seen, allowed=f"k <= {seen}")
