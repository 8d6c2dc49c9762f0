"""Rules on dtypes: what each operation takes, index dtypes and what they can hold."""

from __future__ import annotations

from typing import Any, NoReturn

import numpy as np

from ..dtypes import (
    GATHER_DTYPES,
    INDEX_DTYPES,
    TIME_DTYPES,
    TOPK_DTYPES,
    is_gather_dtype,
    is_index_dtype,
    is_time_dtype,
    is_topk_dtype,
    native,
)
from ..errors import UnsupportedDTypeError, with_fields
from . import invalid

__all__ = ["check_axis_length", "check_gather_dtype", "check_index_capacity",
           "check_index_type", "check_narrowed_index", "check_ordered_dtype", "check_topk_dtype",
           "index_dtype", "refuse_dtype"]


def check_topk_dtype(name: str, dtype: np.dtype, what: str = "top-k") -> None:
    """A numeric dtype top-k takes (every real type, bool, float16 and bfloat16); ``what``
    names the operation in the message (the quantile family takes these dtypes; top-k and
    the selection family take the time types too: :func:`check_ordered_dtype`)."""
    if not is_topk_dtype(dtype):
        allowed = ", ".join(TOPK_DTYPES)
        raise with_fields(UnsupportedDTypeError(
            f"{name} has dtype {dtype}, which {what} does not support (supported: {allowed})"),
            name=name, dtype=dtype, allowed=allowed)


def check_ordered_dtype(name: str, dtype: np.dtype, what: str = "top-k") -> None:
    """A dtype top-k and the selection family take: :func:`check_topk_dtype`'s, and
    ``datetime64`` and ``timedelta64`` of every unit (NaT the greatest, as NaN);
    ``what`` names the operation in the message.

    >>> check_ordered_dtype("x", np.dtype("M8[ns]"), "sort")
    >>> check_ordered_dtype("x", np.dtype("U3"), "sort")
    Traceback (most recent call last):
    ...
    axisops.errors.UnsupportedDTypeError: x has dtype <U3, which sort does not support
    (supported: bool, ..., bfloat16, datetime64, timedelta64)
    """
    if not (is_topk_dtype(dtype) or is_time_dtype(dtype)):
        allowed = ", ".join((*TOPK_DTYPES, *TIME_DTYPES))
        raise with_fields(UnsupportedDTypeError(
            f"{name} has dtype {dtype}, which {what} does not support (supported: {allowed})"),
            name=name, dtype=dtype, allowed=allowed)


def check_gather_dtype(name: str, dtype: np.dtype) -> None:
    """A dtype gather takes (top-k's, complex and the time types: it moves bytes)."""
    if not (is_gather_dtype(dtype) or is_time_dtype(dtype)):
        allowed = ", ".join((*GATHER_DTYPES, *TIME_DTYPES))
        raise with_fields(UnsupportedDTypeError(
            f"{name} has dtype {dtype}, which gather does not support (supported: {allowed})"),
            name=name, dtype=dtype, allowed=allowed)


def check_index_type(dtype: np.dtype, name: str = "index") -> None:
    """A gather index is of an integer dtype."""
    if not is_index_dtype(dtype):
        allowed = ", ".join(INDEX_DTYPES)
        raise with_fields(UnsupportedDTypeError(
            f"{name} has dtype {dtype}, need an integer dtype ({allowed})"),
            name=name, dtype=dtype, allowed=allowed)


def index_dtype(value: Any) -> np.dtype:
    """The ``index_dtype`` argument as a native integer dtype (None: int64).

    >>> index_dtype("uint16")
    dtype('uint16')
    """
    if value is None:
        return np.dtype(np.int64)
    # A framework dtype such as torch.int32 is spelled "torch.int32".  torch's
    # are read by name, never through np.dtype(): torch.compile cannot trace the
    # exception np.dtype() raises for them.
    name = str(value).rpartition(".")[2]
    if type(value).__module__ == "torch":
        dtype = np.dtype(name) if name in INDEX_DTYPES else None
    else:
        try:
            dtype = np.dtype(value)
        except (TypeError, ValueError):
            ok = name in INDEX_DTYPES and not isinstance(value, str)
            dtype = np.dtype(name) if ok else None
    allowed = ", ".join(INDEX_DTYPES)
    if dtype is None:
        raise with_fields(UnsupportedDTypeError(
            f"index_dtype={value!r} is not a dtype (allowed: {allowed})"),
            name="index_dtype", dtype=value, allowed=allowed)
    if not is_index_dtype(dtype):
        raise with_fields(UnsupportedDTypeError(
            f"index_dtype={dtype.name} is not an integer type (allowed: {allowed})"),
            name="index_dtype", dtype=dtype, allowed=allowed)
    return native(dtype)


def _int_max(dtype: np.dtype) -> int:
    """The largest value of an integer dtype (``np.iinfo(dtype).max``, without its cost)."""
    return (1 << (8 * dtype.itemsize - (dtype.kind == "i"))) - 1


def check_index_capacity(dtype: np.dtype, top: int, axis: int, size: int | None = None,
                         offset: int | None = None) -> None:
    """``dtype`` can hold index ``top``, the last of an axis of ``size``, or the last of
    ``size`` elements given at ``offset`` (a stream's block)."""
    if top <= _int_max(dtype):
        return  # no message built: sizes may be symbolic (torch.compile) until here
    need = f"need an integer type whose maximum is >= {top}"
    where = (f"of axis {axis} of size {size} ({need})" if offset is None
             else f"(offset={offset} plus {size} elements along axis {axis}; {need})")
    invalid(f"index_dtype={dtype.name} cannot hold index {top} {where}",
            name="index_dtype", value=dtype, allowed=f"a maximum >= {top}")


def check_axis_length(n: int, axis: int, most: int, what: str) -> None:
    """An axis of size ``n`` is at most ``most`` long, the longest ``what`` takes."""
    if n > most:
        invalid(f"axis {axis} of size {n} is too long for {what} (need at most {most} "
                f"elements)", name="x", value=n, axis=axis, high=most,
                allowed=f"at most {most} elements along the axis")


def check_narrowed_index(wanted: np.dtype, got: np.dtype, n: int, axis: int, by: str) -> None:
    """A producer that narrows ``wanted`` to ``got`` (JAX without 64-bit types) can still
    hold the last index of an axis of size ``n``."""
    if got != wanted and n - 1 > _int_max(got):
        invalid(f"index_dtype={wanted.name} is narrowed to {got.name} by {by}, which cannot "
                f"hold index {n - 1} of axis {axis} of size {n} (enable 64-bit types in the "
                f"producer)", name="index_dtype", value=wanted, allowed=f"a maximum >= {n - 1}")


def refuse_dtype(name: str, dtype: Any, framework: str) -> NoReturn:
    """A ``framework`` dtype with no NumPy dtype axisops takes (torch's complex32, say)."""
    allowed = ", ".join(GATHER_DTYPES)
    raise with_fields(UnsupportedDTypeError(
        f"{name} has {framework} dtype {dtype}, which axisops does not support "
        f"(supported: {allowed})"), name=name, dtype=dtype, allowed=allowed)
