"""Which element types each operation supports, and how to name them.

bfloat16 is recognised by name (it comes from ``ml_dtypes``), so that this
module never imports ``ml_dtypes`` itself: importing it costs half a second and a
caller holding a bfloat16 array has already paid that.
"""

from __future__ import annotations

import numpy as np

from ._forksafe import imported
from .tracing import constant_while_tracing

__all__ = [
    "GATHER_DTYPES",
    "INDEX_DTYPES",
    "TIME_DTYPES",
    "TOPK_DTYPES",
    "as_dtype",
    "bfloat16",
    "is_bfloat16",
    "is_gather_dtype",
    "is_index_dtype",
    "is_time_dtype",
    "is_topk_dtype",
    "native",
    "supported_name",
]

_INTEGER_NAMES = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64")
_FLOAT_NAMES = ("float16", "float32", "float64")

#: The numeric dtype names top-k supports (every one of them is also gathered), which the
#: quantile family takes too.
TOPK_DTYPES: tuple[str, ...] = ("bool", *_INTEGER_NAMES, *_FLOAT_NAMES, "bfloat16")
#: The numeric dtype names gather supports: top-k's plus complex.
GATHER_DTYPES: tuple[str, ...] = (*TOPK_DTYPES, "complex64", "complex128")
#: NumPy's time types, in every unit (``datetime64[ns]``, ``timedelta64[D]``...): top-k, gather
#: and the selection family take them besides the numbers above (NaT is the greatest, as
#: NaN is); torch and JAX have no such types.
TIME_DTYPES: tuple[str, ...] = ("datetime64", "timedelta64")
#: dtype names allowed for gather indices and for ``topk(index_dtype=...)``.
INDEX_DTYPES: tuple[str, ...] = _INTEGER_NAMES

_NUMPY_NAMES = frozenset(n for n in GATHER_DTYPES if n != "bfloat16")


def is_bfloat16(dtype: np.dtype) -> bool:
    """True for ``ml_dtypes.bfloat16`` (checked without importing ml_dtypes)."""
    # ml_dtypes' types are of kind "V"; the kind is cheap, dtype.name is not.
    return (dtype.kind == "V" and dtype.name == "bfloat16"
            and dtype.type.__module__.startswith("ml_dtypes"))


#: The memo of :func:`supported_name`, keyed by the dtype's type number, which is the same
#: in either byte order (so is the answer) and shared only among types that share their
#: answer (every void or string type: None; every unit of datetime64: "datetime64", of
#: timedelta64: "timedelta64"); an int, which
#: torch.compile's tracer can hash where it cannot hash a dtype (torch 2.11).
_NAMES: dict[int, str | None] = {}


@constant_while_tracing
def supported_name(dtype: np.dtype) -> str | None:
    """The supported type's name (None if unsupported); memoised, as dtype names are slow.
    A time type's name has no unit (:data:`TIME_DTYPES`).

    torch.compile calls it for real while it traces: Dynamo works on its own copy of
    the memo, so a fill made while tracing one dtype would be invisible when the
    same graph meets the next.

    >>> supported_name(np.dtype(">i4")), supported_name(np.dtype("U3"))
    ('int32', None)
    >>> supported_name(np.dtype("M8[ns]")), supported_name(np.dtype("m8[D]"))
    ('datetime64', 'timedelta64')
    """
    num = dtype.num
    try:
        return _NAMES[num]
    except KeyError:
        pass
    name = _NAMES[num] = _lookup(dtype)
    return name


def _lookup(dtype: np.dtype) -> str | None:
    if is_bfloat16(dtype):
        return "bfloat16"
    if dtype.kind in "mM":
        return "datetime64" if dtype.kind == "M" else "timedelta64"
    if dtype.fields is None and dtype.name in _NUMPY_NAMES and dtype.kind in "biufc":
        return dtype.name
    return None


def is_topk_dtype(dtype: np.dtype) -> bool:
    """True when top-k supports elements of ``dtype`` (any byte order)."""
    return supported_name(dtype) in TOPK_DTYPES


def is_gather_dtype(dtype: np.dtype) -> bool:
    """True when gather supports elements of ``dtype`` (any byte order)."""
    return supported_name(dtype) in GATHER_DTYPES


def is_time_dtype(dtype: np.dtype) -> bool:
    """True for ``datetime64`` and ``timedelta64`` of any unit (any byte order).

    >>> is_time_dtype(np.dtype("M8[s]")), is_time_dtype(np.dtype("int64"))
    (True, False)
    """
    return dtype.kind in "mM"


def is_index_dtype(dtype: np.dtype) -> bool:
    """True for the eight integer types (bool is not an index type)."""
    return dtype.kind in "iu" and dtype.itemsize in (1, 2, 4, 8)  # dtype.name is slow


def native(dtype: np.dtype) -> np.dtype:
    """The same type in the machine's byte order (results are always native)."""
    return dtype if dtype.isnative else dtype.newbyteorder("=")


def bfloat16() -> np.dtype:
    """``ml_dtypes.bfloat16`` as a NumPy dtype (imports ml_dtypes on first use)."""
    try:
        imported("ml_dtypes")
        import ml_dtypes
    except ImportError:
        imported("axisops.errors")
        from .errors import bfloat16_needs_ml_dtypes

        raise bfloat16_needs_ml_dtypes() from None

    return np.dtype(ml_dtypes.bfloat16)


def as_dtype(value: object) -> np.dtype:
    """``value`` as a NumPy dtype; the name ``"bfloat16"`` gives ml_dtypes' type.

    >>> as_dtype("float32"), as_dtype("bfloat16")
    (dtype('float32'), dtype(bfloat16))
    """
    if isinstance(value, str) and value == "bfloat16":
        return bfloat16()
    return np.dtype(value)
