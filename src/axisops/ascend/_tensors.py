"""``aclTensor``: a view (dims, strides, offset) of typed elements in device memory.

Element ``(i_0, ..., i_{r-1})`` of a tensor lives at byte
``tensor_data + (offset + sum(i_k * stride_k)) * itemsize``.  ``aclCreateTensor``
checks only the form of its arguments (it returns None, with a message, where
they make no tensor); whether the view fits its storage and device memory is
checked by each operator's phase 1 (:func:`placement_problem`), and again when
queued work runs (:func:`device_view`), so no access ever leaves its allocation.

>>> from axisops.ascend import acl, aclnn
>>> t = aclnn.aclCreateTensor((4, 2), acl.ACL_FLOAT, None, 0, acl.ACL_FORMAT_ND, (4, 2), 0)
>>> t
<aclTensor ACL_FLOAT view (4, 2) strides (2, 1) offset 0 storage (4, 2) data 0x0>
>>> aclnn.aclCreateTensor((4, -2), acl.ACL_FLOAT, None, 0, acl.ACL_FORMAT_ND, (8,), 0) is None
True
>>> aclnn.aclGetRecentErrMsg()
'aclCreateTensor(): view_dims[1]=-2 is invalid (need an integer 0 <= value < 2**63)'
"""

from __future__ import annotations

import operator
from itertools import islice
from math import prod
from typing import Any

import numpy as np

from .._forksafe import imported
from ._boundary import Failure, brief, describe, is_int, record, show
from ._constants import (
    ACL_ERROR_RT_AICORE_EXCEPTION,
    DTYPE_NAMES,
    FORMAT_NAMES,
    listing,
    numpy_dtype,
)
from ._memory import AddressSpace

_INT64_END = 1 << 63
#: The most entries aclCreateTensor reads from a dims or strides argument (ACL_MAX_DIM_CNT).
MAX_DIM_COUNT = 128


class AclTensor:
    """An ``aclTensor``: immutable geometry plus a data pointer (an int)."""

    __slots__ = ("data", "data_type", "destroyed", "dtype", "format", "offset", "storage_dims",
                 "strides", "view_dims")

    def __init__(self, view_dims: tuple[int, ...], data_type: int, strides: tuple[int, ...],
                 offset: int, format: int, storage_dims: tuple[int, ...], data: int) -> None:
        self.view_dims = view_dims
        self.data_type = data_type
        self.strides = strides
        self.offset = offset
        self.format = format
        self.storage_dims = storage_dims
        self.data = data
        self.dtype = numpy_dtype(data_type)
        self.destroyed = False

    def __repr__(self) -> str:
        state = " destroyed" if self.destroyed else ""
        return (f"<aclTensor {self.type_name} view {self.view_dims} strides {self.strides} "
                f"offset {self.offset} storage {self.storage_dims} data {self.data:#x}{state}>")

    @property
    def type_name(self) -> str:
        """The data type's C name, e.g. ``"ACL_FLOAT"``."""
        return DTYPE_NAMES[self.data_type]

    @property
    def rank(self) -> int:
        """Number of view dimensions (0 for a 0-d tensor)."""
        return len(self.view_dims)

    @property
    def numel(self) -> int:
        """Number of elements of the view (1 for a 0-d tensor)."""
        return prod(self.view_dims)

    @property
    def is_empty(self) -> bool:
        """True when some view dimension is 0."""
        return self.numel == 0

    @property
    def last_element(self) -> int:
        """The storage index of the view's farthest element (the view must be non-empty)."""
        return self.offset + sum((n - 1) * s for n, s in zip(self.view_dims, self.strides))


def _contiguous(dims: tuple[int, ...]) -> tuple[int, ...]:
    out, step = [], 1
    for n in reversed(dims):
        out.append(step)
        step *= max(n, 1)
    return tuple(reversed(out))


class _Refused(Exception):
    pass


def _int(name: str, value: Any, end: int = _INT64_END) -> int:
    try:  # int subclasses are read without running their methods
        number = operator.index(value) if is_int(value) else None
    except Exception as exc:
        raise _Refused(f"{show(name, value)} is an integer whose value cannot be read "
                       f"(__index__ raised {describe(exc)})") from None
    if number is None or not 0 <= number < end:
        raise _Refused(f"{name}={brief(value)} is invalid (need an integer 0 <= value < "
                       f"2**{end.bit_length() - 1})")
    return number


def _dims(name: str, value: Any) -> tuple[int, ...]:
    if value is None:
        return ()  # a NULL array with no entries, as C's (nullptr, 0)
    if issubclass(type(value), (str, bytes)) or not hasattr(type(value), "__iter__"):
        raise _Refused(f"{show(name, value)} is not a sequence of integers")
    try:  # at most one entry past the limit is read, so an endless iterable ends here
        items = list(islice(iter(value), MAX_DIM_COUNT + 1))
    except Exception as exc:
        raise _Refused(f"{show(name, value)} cannot be read as a sequence of integers "
                       f"({describe(exc)})") from None
    if len(items) > MAX_DIM_COUNT:
        raise _Refused(f"{show(name, value)} has more than {MAX_DIM_COUNT} entries (need at "
                       f"most ACL_MAX_DIM_CNT={MAX_DIM_COUNT})")
    return tuple(_int(f"{name}[{i}]", v) for i, v in enumerate(items))


def create_tensor(view_dims: Any, data_type: Any, stride: Any, offset: Any, format: Any,
                  storage_dims: Any, tensor_data: Any) -> AclTensor | None:
    """``aclCreateTensor``; None (with a recorded message) when the arguments make no tensor."""
    try:
        return _create(view_dims, data_type, stride, offset, format, storage_dims, tensor_data)
    except _Refused as exc:
        record(f"aclCreateTensor(): {exc}")
        return None


def _create(view_dims: Any, data_type: Any, stride: Any, offset: Any, format: Any,
            storage_dims: Any, tensor_data: Any) -> AclTensor:
    dims = _dims("view_dims", view_dims)
    if not is_int(data_type) or int(data_type) not in DTYPE_NAMES:
        raise _Refused(f"data_type={brief(data_type)} is not a data type the emulator knows "
                       f"(known: {listing(DTYPE_NAMES)})")
    strides = _contiguous(dims) if stride is None else _dims("stride", stride)
    if len(strides) != len(dims):
        raise _Refused(f"stride={strides} has {len(strides)} entries but view_dims={dims} has "
                       f"{len(dims)} (need one stride per dimension, or None for contiguous)")
    if not is_int(format) or int(format) not in FORMAT_NAMES:
        raise _Refused(f"format={brief(format)} is not emulated (allowed: "
                       f"{listing(FORMAT_NAMES)})")
    data = 0 if tensor_data is None else _int("tensor_data", tensor_data, 1 << 64)
    return AclTensor(dims, int(data_type), strides, _int("offset", offset), int(format),
                     _dims("storage_dims", storage_dims), data)


# --- where a view lives ------------------------------------------------------------------
def placement_problem(space: AddressSpace, tensor: AclTensor, name: str) -> str | None:
    """Why ``tensor``'s elements are not all inside its storage and device memory, or None.

    An empty view addresses nothing and always fits.
    """
    if tensor.is_empty:
        return None
    last, storage = tensor.last_element, prod(tensor.storage_dims)
    if last >= storage:
        return (f"{name}'s view reaches storage element {last} but storage_dims="
                f"{tensor.storage_dims} hold {storage} element{'s' if storage != 1 else ''}")
    found = space.resolve(tensor.data)
    if found is None:
        return space.explain(f"{name}.tensor_data", tensor.data)
    region, at = found
    if region.space != "device":
        return (f"{name}.tensor_data={tensor.data:#x} is host memory, in {region.describe()}; "
                f"aclnn operators work on device memory (copy it with acl.rt.memcpy)")
    size = tensor.dtype.itemsize
    start, end = at + tensor.offset * size, at + (last + 1) * size
    if end > region.size:
        return (f"{name}'s view addresses bytes [{start}, {end}) of {region.describe()} "
                f"(tensor_data={tensor.data:#x}, offset={tensor.offset}, view_dims="
                f"{tensor.view_dims}, strides={tensor.strides}; need end <= {region.size})")
    if (region.base + start) % tensor.dtype.alignment:
        return (f"{name}'s first element is at {region.base + start:#x}, which is not aligned "
                f"for {tensor.type_name} (need a multiple of {tensor.dtype.alignment})")
    return None


def addresses_an_element_twice(tensor: AclTensor) -> bool:
    """True when two coordinates of ``tensor``'s view share one storage element."""
    imported("axisops.directml.tensors")
    from ..directml.tensors import addresses_an_element_twice as twice

    try:
        return twice(tensor.view_dims, tensor.strides)
    except OverflowError:
        return True  # too large to decide exactly: refuse rather than risk it


def device_view(space: AddressSpace, tensor: AclTensor, name: str, *,
                writable: bool) -> np.ndarray:
    """``tensor`` as a NumPy view over its device allocation (no copy).

    Checks the placement again, since the memory may have been freed after
    phase 1; a problem raises ``Failure(ACL_ERROR_RT_AICORE_EXCEPTION)``.
    """
    problem = placement_problem(space, tensor, name)
    if problem is not None:
        raise Failure(ACL_ERROR_RT_AICORE_EXCEPTION,
                      f"the AI Core could not access {name}: {problem}")
    region, at = space.resolve(tensor.data)  # type: ignore[misc]
    size = tensor.dtype.itemsize
    view = np.ndarray(tensor.view_dims, tensor.dtype, buffer=region.data,
                      offset=at + tensor.offset * size,
                      strides=tuple(s * size for s in tensor.strides))
    view.flags.writeable = writable
    return view
