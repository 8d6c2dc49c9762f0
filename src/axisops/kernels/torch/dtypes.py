"""torch dtypes: their NumPy names, and same-width integer views of their bits.

Kernels move and compare *bits*: a float, a bool or an unsigned tensor is
reinterpreted as the signed integer type of the same width (a view, never a
copy), because torch and Triton support every operation on signed integers
while many are missing for ``torch.uint16/32/64``.  A bool's byte may be any
value (any non-zero byte is True), and torch's copies of a bool tensor make
every True byte 1, so a bool tensor is copied through its bytes
(:func:`keep_bytes`).  Importing this module imports torch; the engines and the
torch adapter import it lazily.
"""

from __future__ import annotations

import numpy as np
import torch

from ...dtypes import bfloat16, supported_name
from ...tracing import constant_while_tracing

__all__ = ["SIGNED_BY_WIDTH", "contiguous_bits", "keep_bytes", "numpy_dtype", "reshape_bits",
           "signed_view", "torch_dtype"]

#: The signed integer type of each width in bytes.
SIGNED_BY_WIDTH: dict[int, torch.dtype] = {
    1: torch.int8,
    2: torch.int16,
    4: torch.int32,
    8: torch.int64,
}


def _table() -> dict[torch.dtype, str]:
    names = {
        torch.bool: "bool",
        torch.uint8: "uint8",
        torch.int8: "int8",
        torch.int16: "int16",
        torch.int32: "int32",
        torch.int64: "int64",
        torch.float16: "float16",
        torch.bfloat16: "bfloat16",
        torch.float32: "float32",
        torch.float64: "float64",
        torch.complex64: "complex64",
        torch.complex128: "complex128",
    }
    # torch's wide unsigned types exist from torch 2.3 on.
    for name in ("uint16", "uint32", "uint64"):
        dtype = getattr(torch, name, None)
        if isinstance(dtype, torch.dtype):
            names[dtype] = name
    return names


_TO_NUMPY: dict[torch.dtype, str] = _table()
_FROM_NUMPY: dict[str, torch.dtype] = {v: k for k, v in _TO_NUMPY.items()}


@constant_while_tracing
def numpy_dtype(dtype: torch.dtype) -> np.dtype | None:
    """The NumPy dtype of a torch dtype (bfloat16 is ``ml_dtypes``'s); None if none.

    torch.compile calls this while it traces instead of tracing it (its
    result depends on ``dtype`` alone): the memos it fills, this module's and
    :func:`axisops.dtypes.supported_name`'s, are filled for real, where a
    traced fill would be a side effect Dynamo cannot replay (a NumPy dtype
    stored in a global table), and recognising bfloat16 calls what Dynamo
    cannot trace.  So a call compiled as the first thing a process does
    works, for every dtype.

    >>> numpy_dtype(torch.float16)
    dtype('float16')
    >>> numpy_dtype(torch.complex32) is None
    True
    """
    try:
        return _NUMPY_OF[dtype]
    except KeyError:
        pass
    name = _TO_NUMPY.get(dtype)
    if name is None:
        return None
    found = bfloat16() if name == "bfloat16" else np.dtype(name)
    supported_name(found)  # validation asks next; memoised here, outside any trace
    _NUMPY_OF[dtype] = found
    return found


#: numpy_dtype's answers so far (each call would otherwise parse a name).
_NUMPY_OF: dict[torch.dtype, np.dtype] = {}


def torch_dtype(dtype: np.dtype) -> torch.dtype:
    """The torch dtype of a supported NumPy dtype (byte order ignored).

    >>> torch_dtype(np.dtype("uint32"))
    torch.uint32
    """
    return _FROM_NUMPY[supported_name(np.dtype(dtype))]


def signed_view(t: torch.Tensor) -> torch.Tensor:
    """``t``'s bits as the signed integer type of the same width (a view).

    complex128 has no integer type of its width; it is returned as it is.

    >>> signed_view(torch.tensor([1.0])).dtype
    torch.int32
    """
    width = t.element_size()
    if t.dtype == torch.bool:
        return t.view(torch.uint8).view(torch.int8)
    if width not in SIGNED_BY_WIDTH:
        return t
    return t.view(SIGNED_BY_WIDTH[width])


def keep_bytes(t: torch.Tensor) -> torch.Tensor:
    """A bool ``t`` as its bytes (a uint8 view) for an operation that may copy it; any
    other tensor as it is.  View the result back with ``.view(torch.bool)``.

    >>> t = torch.tensor([0, 2, 255], dtype=torch.uint8).view(torch.bool)
    >>> t.clone().view(torch.uint8).tolist(), keep_bytes(t).clone().tolist()
    ([0, 1, 1], [0, 2, 255])
    """
    return t.view(torch.uint8) if t.dtype == torch.bool else t


def contiguous_bits(t: torch.Tensor) -> torch.Tensor:
    """``t.contiguous()``, a bool's bytes kept."""
    return t.contiguous() if t.dtype != torch.bool else keep_bytes(t).contiguous().view(t.dtype)


def reshape_bits(t: torch.Tensor, shape: tuple[int, ...]) -> torch.Tensor:
    """``t.reshape(shape)``, a bool's bytes kept."""
    return t.reshape(shape) if t.dtype != torch.bool else keep_bytes(t).reshape(shape).view(t.dtype)
