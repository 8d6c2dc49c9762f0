"""``acl.util``: host pointers for NumPy arrays and bytes, and NumPy views of host pointers.

As in pyACL these helpers return their value alone (no status code), so a bad
argument raises :class:`axisops.InvalidArgumentError` (a ``ValueError``)
naming the argument, the value and the rule.  They work before ``acl.init``.

``numpy_to_ptr`` / ``bytes_to_ptr`` register the object (keeping a reference
until ``acl.rt.host_unregister(ptr)`` or ``acl.finalize()``) and return a
pointer into the emulated host space; registering the same object again
returns the same pointer.  Copies into a registration write through to the
object's own memory.  Whatever an argument's methods do, a helper either
returns or raises ``InvalidArgumentError``.

>>> import numpy as np
>>> from axisops.ascend import acl
>>> a = np.arange(6, dtype=np.float32)
>>> ptr = acl.util.numpy_to_ptr(a)
>>> ptr == acl.util.numpy_to_ptr(a)
True
>>> acl.util.ptr_to_numpy(ptr + 8, (2, 2), np.dtype(np.float32).num)
array([[2., 3.],
       [4., 5.]], dtype=float32)
>>> acl.util.ptr_to_numpy(ptr + 8, (5,), np.float32)  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
axisops.errors.InvalidArgumentError: acl.util.ptr_to_numpy(): ptr=0x...8 with count=20 ...
"""

from __future__ import annotations

import operator
from itertools import islice
from math import prod
from typing import Any

import numpy as np

from ...errors import InvalidArgumentError
from .._boundary import is_int, raises_invalid, show
from .._context import CONTEXT
from .._memory import MemoryFault

__all__ = ["bytes_to_ptr", "numpy_to_ptr", "ptr_to_numpy"]


#: The most dimensions ``ptr_to_numpy`` reads from ``shape`` (NumPy 2's limit).
_MAX_DIMS = 64


def _refuse(func: str, name: str, value: Any, need: str) -> InvalidArgumentError:
    return InvalidArgumentError(f"{func}: {show(name, value)} is invalid (need {need})")


@raises_invalid("acl.util.numpy_to_ptr()")
def numpy_to_ptr(array: np.ndarray) -> int:
    """The host pointer of ``array``'s data (pyACL ``acl.util.numpy_to_ptr``).

    ``array`` must be one contiguous block (C or Fortran order; its bytes are
    used in memory order) without Python objects.  A read-only array gives a
    read-only registration.  The registration holds ``array`` until
    ``acl.rt.host_unregister(ptr)`` or ``acl.finalize()``.
    """
    func = "acl.util.numpy_to_ptr()"
    if not issubclass(type(array), np.ndarray):
        raise _refuse(func, "array", array, "a NumPy array")
    if array.dtype.hasobject:
        raise _refuse(func, "array", array, f"plain data, not dtype {array.dtype}")
    if not (array.flags.c_contiguous or array.flags.f_contiguous):
        raise _refuse(func, "array", array, "a contiguous array (np.ascontiguousarray)")
    data = array.view(np.ndarray).ravel(order="K").view(np.uint8)
    with CONTEXT.lock:
        return CONTEXT.space.register_host(array, data).base


@raises_invalid("acl.util.bytes_to_ptr()")
def bytes_to_ptr(data: bytes | bytearray | memoryview) -> int:
    """The host pointer of ``data`` (pyACL ``acl.util.bytes_to_ptr``).

    ``bytes`` (and read-only memoryviews) are read-only: copying into them
    returns 100000.  ``bytearray`` and writable memoryviews are writable.
    """
    func = "acl.util.bytes_to_ptr()"
    if not issubclass(type(data), (bytes, bytearray, memoryview)):
        raise _refuse(func, "data", data, "bytes, bytearray or memoryview")
    try:
        view = np.frombuffer(data, np.uint8)
    except (ValueError, TypeError, BufferError) as exc:
        raise _refuse(func, "data", data, f"a contiguous buffer: {exc}") from None
    with CONTEXT.lock:
        return CONTEXT.space.register_host(data, view).base


def _numpy_types() -> dict[int, np.dtype]:
    table: dict[int, np.dtype] = {}
    for scalar_type in set(np.sctypeDict.values()):
        dtype = np.dtype(scalar_type)
        table.setdefault(dtype.num, dtype)
    return table


def _as_dtype(func: str, value: Any) -> np.dtype:
    if is_int(value):
        found = _numpy_types().get(int(value))
        if found is None:
            raise _refuse(func, "dtype", value, "a NumPy dtype or NumPy type number")
        dtype = found
    else:
        try:
            dtype = np.dtype(value)
        except Exception:  # np.dtype() may look into the object, whose methods may raise
            raise _refuse(func, "dtype", value, "a NumPy dtype or NumPy type number") from None
    if dtype.hasobject or dtype.itemsize == 0:
        raise _refuse(func, "dtype", value, "a fixed-size plain data type")
    return dtype


def _as_shape(func: str, shape: Any) -> tuple[int, ...]:
    need = f"an integer or a sequence of at most {_MAX_DIMS} integers >= 0"
    try:  # at most one item past the limit is read, so an endless iterable ends here
        items = [shape] if is_int(shape) else list(islice(iter(shape), _MAX_DIMS + 1))
        dims = tuple(operator.index(d) for d in items if is_int(d))
    except Exception:
        raise _refuse(func, "shape", shape, need) from None
    if len(items) > _MAX_DIMS or len(dims) != len(items) or any(d < 0 for d in dims):
        raise _refuse(func, "shape", shape, need)
    return dims


@raises_invalid("acl.util.ptr_to_numpy()")
def ptr_to_numpy(ptr: int, shape: Any, dtype: Any) -> np.ndarray:
    """A NumPy view of registered host memory at ``ptr`` (pyACL ``acl.util.ptr_to_numpy``).

    ``dtype`` is a NumPy dtype or pyACL's NumPy type number
    (``np.dtype(np.float32).num``).  The view shares memory with the
    registered object and is read-only where the registration is.
    """
    func = "acl.util.ptr_to_numpy()"
    dims, dt = _as_shape(func, shape), _as_dtype(func, dtype)
    count = prod(dims) * dt.itemsize
    with CONTEXT.lock:
        try:
            raw = CONTEXT.space.span(ptr, count, want="host", write=False, name="ptr")
        except MemoryFault as exc:
            raise InvalidArgumentError(f"{func}: {exc}") from None
    try:
        return raw.view(dt).reshape(dims)
    except ValueError as exc:  # more dimensions than this NumPy allows
        raise InvalidArgumentError(f"{func}: shape={dims} is invalid ({exc})") from None
