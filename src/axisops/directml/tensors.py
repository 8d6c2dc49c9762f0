"""Buffer tensor descriptors: ``BufferTensorDesc``, their size and their rules.

A DirectML tensor lives in a flat byte buffer.  Its element at coordinates
``(i_0, ..., i_{r-1})`` starts at byte ``element_size * sum(i_d * strides[d])``;
``strides=None`` means packed row-major (outermost first).

>>> from axisops import directml as dml
>>> dml.calc_buffer_tensor_size(dml.TensorDataType.FLOAT16, (1, 1, 3, 3))
20
>>> desc = dml.BufferTensorDesc(dml.TensorDataType.FLOAT32, (2, 3), strides=(0, 1))
>>> desc.total_tensor_size_in_bytes, desc.element_strides
(12, (0, 1))
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from math import prod
from typing import Any

import numpy as np

from .._forksafe import imported
from .enums import TensorDataType, TensorFlags
from .errors import DMLError, invalid_arg

__all__ = [
    "MAX_DIMENSIONS",
    "BufferTensorDesc",
    "addresses_an_element_twice",
    "calc_buffer_tensor_size",
    "element_size",
    "numpy_dtype",
    "validate_tensor",
]

#: ``DML_TENSOR_DIMENSION_COUNT_MAX1``.
MAX_DIMENSIONS = 8
_UINT32_END = 1 << 32
_UINT64_END = 1 << 64
#: Interleaved output strides are checked exactly only below this many elements of
#: extent; a tensor beyond it would need a buffer of at least 2**62 bytes.
_EXACT_OVERLAP_LIMIT = 1 << 62

# DirectML data is little-endian.
_NUMPY_DTYPES: dict[TensorDataType, np.dtype] = {
    TensorDataType.FLOAT32: np.dtype("<f4"),
    TensorDataType.FLOAT16: np.dtype("<f2"),
    TensorDataType.UINT32: np.dtype("<u4"),
    TensorDataType.UINT16: np.dtype("<u2"),
    TensorDataType.UINT8: np.dtype("u1"),
    TensorDataType.INT32: np.dtype("<i4"),
    TensorDataType.INT16: np.dtype("<i2"),
    TensorDataType.INT8: np.dtype("i1"),
    TensorDataType.FLOAT64: np.dtype("<f8"),
    TensorDataType.UINT64: np.dtype("<u8"),
    TensorDataType.INT64: np.dtype("<i8"),
}


def numpy_dtype(data_type: TensorDataType) -> np.dtype:
    """The little-endian NumPy dtype of a (known) ``TensorDataType``."""
    return _NUMPY_DTYPES[data_type]


def element_size(data_type: TensorDataType) -> int:
    """Bytes per element of a (known) ``TensorDataType``."""
    return _NUMPY_DTYPES[data_type].itemsize


def _is_int(value: Any) -> bool:
    return not isinstance(value, (bool, np.bool_)) and hasattr(value, "__index__")


def _type_error(where: str, name: str, value: Any, need: str) -> DMLError:
    return invalid_arg(f"{where}: {name}={value!r} ({type(value).__name__}) is not {need}")


def _as_data_type(where: str, value: Any) -> TensorDataType | int:
    if not _is_int(value):
        raise _type_error(where, "data_type", value, "a TensorDataType")
    number = operator.index(value)
    return TensorDataType(number) if number in TensorDataType._value2member_map_ else number


def _as_int_tuple(where: str, name: str, value: Any) -> tuple[int, ...]:
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise _type_error(where, name, value, "a sequence of integers")
    items = tuple(value)
    for i, item in enumerate(items):
        if not _is_int(item):
            raise _type_error(where, f"{name}[{i}]", item, "an integer")
    return tuple(operator.index(item) for item in items)


def _as_int(where: str, name: str, value: Any) -> int:
    if not _is_int(value):
        raise _type_error(where, name, value, "an integer")
    return operator.index(value)


def _minimum_size(data_type: TensorDataType, sizes: tuple[int, ...],
                  strides: tuple[int, ...] | None) -> int:
    if strides is None:
        spanned = prod(sizes)
    else:  # from element 0 through the last element addressed
        spanned = 1 + sum((n - 1) * s for n, s in zip(sizes, strides))
    return (element_size(data_type) * spanned + 3) & ~3


def _size_problem(data_type: Any, sizes: tuple[int, ...],
                  strides: tuple[int, ...] | None) -> str | None:
    """What makes (data_type, sizes, strides) invalid, or None."""
    if data_type not in _NUMPY_DTYPES:
        return (f"data_type={_type_name(data_type)} is not a tensor data type "
                f"(allowed: {', '.join(t.name for t in _NUMPY_DTYPES)})")
    if not 1 <= len(sizes) <= MAX_DIMENSIONS:
        return (f"sizes={sizes} has {len(sizes)} entries "
                f"(need 1 to {MAX_DIMENSIONS} dimensions)")
    for d, n in enumerate(sizes):
        if not 1 <= n < _UINT32_END:
            return f"sizes[{d}]={n} is invalid (need 1 <= size < 2**32; a zero size is invalid)"
    if strides is None:
        return None
    if len(strides) != len(sizes):
        return (f"strides={strides} has {len(strides)} entries but sizes has {len(sizes)} "
                f"(need one stride per size)")
    for d, s in enumerate(strides):
        if not 0 <= s < _UINT32_END:
            return f"strides[{d}]={s} is invalid (strides are UINT: need 0 <= stride < 2**32)"
    return None


def _type_name(data_type: Any) -> str:
    return data_type.name if isinstance(data_type, TensorDataType) else repr(data_type)


def calc_buffer_tensor_size(data_type: TensorDataType | int, sizes: Any,
                            strides: Any = None) -> int:
    """``DMLCalcBufferTensorSize``: the least ``total_tensor_size_in_bytes`` of a tensor.

    ``element_size * prod(sizes)`` when packed, otherwise
    ``element_size * (1 + sum((size_i - 1) * stride_i))``; then rounded up to a
    multiple of 4 bytes.  Raises ``DMLError(E_INVALIDARG)`` on an unknown data
    type, a bad size or a stride count that does not match.

    >>> from axisops import directml as dml
    >>> dml.calc_buffer_tensor_size(dml.TensorDataType.FLOAT32, (2, 3), (0, 1))
    12
    >>> dml.calc_buffer_tensor_size(dml.TensorDataType.UINT8, (3,))
    4
    """
    where = "calc_buffer_tensor_size()"
    dt = _as_data_type(where, data_type)
    sz = _as_int_tuple(where, "sizes", sizes)
    st = None if strides is None else _as_int_tuple(where, "strides", strides)
    problem = _size_problem(dt, sz, st)
    if problem:
        raise invalid_arg(f"{where}: {problem}")
    return _minimum_size(dt, sz, st)  # type: ignore[arg-type]


@dataclass(frozen=True)
class BufferTensorDesc:
    """``DML_BUFFER_TENSOR_DESC`` (wrapped in a ``DML_TENSOR_DESC`` of type BUFFER).

    Building one checks only the types of its fields; ``create_operator``
    checks their values.  ``total_tensor_size_in_bytes=None`` is computed with
    :func:`calc_buffer_tensor_size` (0 when the fields are invalid, so that
    ``create_operator`` reports the real problem).

    >>> from axisops import directml as dml
    >>> dml.BufferTensorDesc(dml.TensorDataType.FLOAT16, [1, 1, 3, 3]).total_tensor_size_in_bytes
    20
    """

    data_type: TensorDataType | int
    sizes: tuple[int, ...]
    strides: tuple[int, ...] | None = None
    total_tensor_size_in_bytes: int | None = None
    guaranteed_base_offset_alignment: int = 0
    flags: TensorFlags | int = TensorFlags.NONE

    def __post_init__(self) -> None:
        where = "BufferTensorDesc()"
        put = object.__setattr__
        put(self, "data_type", _as_data_type(where, self.data_type))
        put(self, "sizes", _as_int_tuple(where, "sizes", self.sizes))
        if self.strides is not None:
            put(self, "strides", _as_int_tuple(where, "strides", self.strides))
        alignment = _as_int(where, "guaranteed_base_offset_alignment",
                            self.guaranteed_base_offset_alignment)
        put(self, "guaranteed_base_offset_alignment", alignment)
        flags = _as_int(where, "flags", self.flags)
        put(self, "flags", TensorFlags(flags) if 0 <= flags <= TensorFlags.OWNED_BY_DML else flags)
        total = self.total_tensor_size_in_bytes
        if total is None:
            valid = _size_problem(self.data_type, self.sizes, self.strides) is None
            total = _minimum_size(self.data_type, self.sizes, self.strides) if valid else 0
        put(self, "total_tensor_size_in_bytes", _as_int(where, "total_tensor_size_in_bytes", total))

    @property
    def dimension_count(self) -> int:
        """``DimensionCount``: how many sizes there are."""
        return len(self.sizes)

    @property
    def element_count(self) -> int:
        """The product of the sizes."""
        return prod(self.sizes)

    @property
    def element_strides(self) -> tuple[int, ...]:
        """The strides in elements; packed row-major ones when ``strides`` is None."""
        if self.strides is not None:
            return self.strides
        out, step = [], 1
        for n in reversed(self.sizes):
            out.append(step)
            step *= n
        return tuple(reversed(out))

    @property
    def minimum_size_in_bytes(self) -> int:
        """What :func:`calc_buffer_tensor_size` gives for this desc (must be valid)."""
        return _minimum_size(self.data_type, self.sizes, self.strides)  # type: ignore[arg-type]


def validate_tensor(where: str, field: str, desc: Any, *, output: bool) -> BufferTensorDesc:
    """Check every rule a tensor desc must meet on its own; raise ``E_INVALIDARG``.

    ``where`` starts the message (e.g. ``"create_operator(TOP_K1)"``) and
    ``field`` names the tensor (``"input_tensor"``).
    """
    if not isinstance(desc, BufferTensorDesc):
        raise invalid_arg(f"{where}: {field}={desc!r} is not a BufferTensorDesc")
    problem = _size_problem(desc.data_type, desc.sizes, desc.strides)
    if problem:
        raise invalid_arg(f"{where}: {field}.{problem}")
    count = desc.element_count
    if count >= _UINT32_END:
        raise invalid_arg(f"{where}: {field}.sizes={desc.sizes} hold {count} elements "
                          f"(need fewer than 2**32)")
    _check_total(where, field, desc)
    _check_alignment(where, field, desc)
    _check_flags(where, field, desc, output)
    if output:
        _check_no_element_twice(where, field, desc)
    return desc


def _check_total(where: str, field: str, desc: BufferTensorDesc) -> None:
    total, least = desc.total_tensor_size_in_bytes, desc.minimum_size_in_bytes
    if total >= _UINT64_END:  # type: ignore[operator]
        raise invalid_arg(f"{where}: {field}.total_tensor_size_in_bytes={total} "
                          f"does not fit a UINT64 (need < 2**64)")
    if total < least:  # type: ignore[operator]
        raise invalid_arg(f"{where}: {field}.total_tensor_size_in_bytes={total} is below "
                          f"the {least} bytes its sizes and strides address "
                          f"(need >= calc_buffer_tensor_size(...) = {least})")


def _check_alignment(where: str, field: str, desc: BufferTensorDesc) -> None:
    align, size = desc.guaranteed_base_offset_alignment, element_size(desc.data_type)
    power_of_two = align > 0 and align & (align - 1) == 0
    if align != 0 and not (power_of_two and size <= align < _UINT32_END):
        raise invalid_arg(f"{where}: {field}.guaranteed_base_offset_alignment={align} is invalid "
                          f"(need 0, or a power of two >= the element size {size})")


def _check_flags(where: str, field: str, desc: BufferTensorDesc, output: bool) -> None:
    flags = int(desc.flags)
    if flags & ~int(TensorFlags.OWNED_BY_DML):
        raise invalid_arg(f"{where}: {field}.flags={flags} has unknown bits "
                          f"(allowed: NONE 0, OWNED_BY_DML 1)")
    if output and flags & TensorFlags.OWNED_BY_DML:
        raise invalid_arg(f"{where}: {field}.flags=OWNED_BY_DML is allowed on input "
                          f"tensors only (an output is written by execute)")


def _check_no_element_twice(where: str, field: str, desc: BufferTensorDesc) -> None:
    rule = "an output tensor must not address any element twice"
    strides = desc.element_strides
    for d, (n, s) in enumerate(zip(desc.sizes, strides)):
        if s == 0 and n > 1:
            raise invalid_arg(f"{where}: {field}.strides[{d}]=0 broadcasts sizes[{d}]={n} "
                              f"({rule}; a zero stride is allowed only where the size is 1)")
    try:
        twice = addresses_an_element_twice(desc.sizes, strides)
    except OverflowError as exc:
        raise invalid_arg(f"{where}: {field}: {exc}") from None
    if twice:
        raise invalid_arg(f"{where}: {field}.strides={strides} with sizes={desc.sizes} "
                          f"address an element twice ({rule})")


def addresses_an_element_twice(sizes: tuple[int, ...], strides: tuple[int, ...]) -> bool:
    """True when two coordinates within ``sizes`` have the same element offset.

    Strides that nest (each larger than the extent of all smaller ones) are
    decided at once; interleaved ones are solved exactly with NumPy's
    overlap solver on a one-byte stand-in.  Raises ``OverflowError`` for
    interleaved strides spanning 2**62 elements or more.

    >>> addresses_an_element_twice((2, 2), (1, 1)), addresses_an_element_twice((3, 2), (2, 3))
    (True, False)
    """
    dims = sorted((s, n) for n, s in zip(sizes, strides) if n > 1)
    if any(s == 0 for s, _ in dims):
        return True
    extent, nested = 0, True
    for s, n in dims:
        nested = nested and s > extent
        extent += (n - 1) * s
    if nested:
        return False
    if prod(n for _, n in dims) > extent + 1:
        return True  # more coordinates than offsets
    if extent >= _EXACT_OVERLAP_LIMIT:
        raise OverflowError(f"strides={strides} with sizes={sizes} interleave dimensions over "
                            f"{extent + 1} elements (checked exactly only below 2**62)")
    return _solve_twice(tuple(n for _, n in dims), tuple(s for s, _ in dims))


def _solve_twice(sizes: tuple[int, ...], strides: tuple[int, ...]) -> bool:
    # Splitting one dimension in two halves: an element is addressed twice iff
    # the halves share one, or the larger half (which contains a translate of
    # the smaller) addresses one twice.  One-byte elements, strides in bytes.
    imported("numpy.lib.stride_tricks")
    from numpy.lib.stride_tricks import as_strided

    view = as_strided(np.zeros(1, np.uint8), shape=sizes, strides=strides)
    while True:
        d = next((d for d, n in enumerate(view.shape) if n > 1), None)
        if d is None:
            return False
        half = view.shape[d] // 2
        lead = (slice(None),) * d
        low, high = view[(*lead, slice(0, half))], view[(*lead, slice(half, None))]
        if np.shares_memory(low, high, max_work=None):
            return True
        view = high
