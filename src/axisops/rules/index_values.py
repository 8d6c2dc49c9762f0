"""The one data-dependent rule: gather index values, checked where they are read."""

from __future__ import annotations

from typing import NoReturn

import numpy as np

from ..errors import Arg, IndexOutOfRangeError, with_fields
from ..requests import GatherSpec

__all__ = ["check_index_values", "raise_index_error"]


def check_index_values(
    index: np.ndarray, spec: GatherSpec, offset: tuple[int, ...] | None = None
) -> None:
    """Raise :class:`IndexOutOfRangeError` unless every value is in ``[-n, n-1]``.

    Two reductions and no temporary the size of ``index``; the slow search for
    the first offender runs only when there is one.  ``offset`` is where
    ``index`` starts inside the whole index when it is one block of it (the
    error then names the position in the whole index).
    """
    if index.size == 0:
        return
    n = spec.n
    lo, hi = index.min(), index.max()
    if int(lo) >= -n and int(hi) <= n - 1:
        return
    bad = (index < -n) | (index > n - 1) if index.dtype.kind == "i" else index > n - 1
    pos = np.unravel_index(int(np.argmax(bad)), index.shape)
    where = tuple(int(p) + (offset[d] if offset else 0) for d, p in enumerate(pos))
    raise_index_error(spec, where, int(index[pos]))


def raise_index_error(spec: GatherSpec, position: tuple[int, ...], value: int | None) -> NoReturn:
    """Raise the contract's out-of-range error for ``index[position] == value``.

    ``value=None``: a kernel met an out-of-range value at or after ``position``
    while reading, and the index no longer holds one (another thread changed it).
    """
    n, dim = spec.n, spec.dim
    where = ", ".join(map(str, position))
    fields = dict(name="index", position=tuple(position), value=value, size=n, dim=dim,
                  dim_name="dim")
    index, axis = Arg("index"), Arg("dim")
    if value is None:
        raise with_fields(IndexOutOfRangeError(
            index, " held an out-of-range value at or after ", index, f"[{where}] when it "
            f"was read, for ", axis, f" {dim} of size {n}, but holds none now (was it changed "
            f"during the call?); need {-n} <= ", index, f" <= {n - 1}"), **fields)
    raise with_fields(IndexOutOfRangeError(
        index, f"[{where}]={value} is out of range for ", axis, f" {dim} of size {n} "
        f"(need {-n} <= ", index, f" <= {n - 1})"), **fields)
