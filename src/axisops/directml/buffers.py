"""Binding caller buffers to tensor descs at ``execute``: checks, views, writes.

A buffer is any contiguous bytes-like object (``bytearray``, ``bytes``,
``memoryview``, ``array.array``, ``mmap``...) or a NumPy array of any dtype
without Python references, whose bytes are used in memory order.  Only the
first ``total_tensor_size_in_bytes`` bytes are ever viewed, and only after the
checks here; inputs are viewed in place (zero strides broadcast), outputs are
written only at the elements their sizes and strides address.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .tensors import BufferTensorDesc, numpy_dtype

__all__ = ["Binding", "BindingMisuse", "bind", "check_disjoint", "read_view", "write"]


class BindingMisuse(Exception):
    """A buffer that cannot be bound as asked; DirectML removes the device."""


@dataclass(frozen=True)
class Binding:
    """One buffer bound to one tensor: ``data`` is its first ``total`` bytes."""

    label: str
    desc: BufferTensorDesc
    data: np.ndarray

    @property
    def span(self) -> tuple[int, int]:
        """``[start, end)`` addresses of the bound bytes."""
        start = self.data.__array_interface__["data"][0]
        return start, start + self.data.size


def _describe(buffer: Any) -> str:
    if isinstance(buffer, np.ndarray):
        return f"a NumPy array of dtype {buffer.dtype} and shape {buffer.shape}"
    return f"a {type(buffer).__name__} object"


def _bytes_of(buffer: Any, label: str) -> np.ndarray:
    """The bytes of ``buffer`` as a 1-D uint8 array sharing its memory."""
    if isinstance(buffer, np.ndarray):
        if buffer.dtype.hasobject:
            raise BindingMisuse(f"{label} is {_describe(buffer)}, which holds Python "
                                f"references, not bytes")
        if not (buffer.flags.c_contiguous or buffer.flags.f_contiguous):
            raise BindingMisuse(f"{label} is {_describe(buffer)} that is not contiguous "
                                f"(need one block of memory)")
        return buffer.view(np.ndarray).ravel(order="K").view(np.uint8)
    try:
        return np.frombuffer(buffer, np.uint8)
    except (TypeError, ValueError, BufferError) as exc:
        raise BindingMisuse(f"{label} is {_describe(buffer)}, not a contiguous bytes-like "
                            f"buffer ({exc})") from None


def bind(buffer: Any, desc: BufferTensorDesc, label: str, *, output: bool) -> Binding:
    """Check ``buffer`` against ``desc`` and bind its first ``total`` bytes."""
    data = _bytes_of(buffer, label)
    total = int(desc.total_tensor_size_in_bytes)  # type: ignore[arg-type]
    if data.size < total:
        raise BindingMisuse(f"{label} holds {data.size} bytes, fewer than its desc's "
                            f"total_tensor_size_in_bytes={total}")
    if output and not data.flags.writeable:
        raise BindingMisuse(f"{label} is read-only ({_describe(buffer)}); an output must "
                            f"be writable")
    return Binding(label, desc, data[:total])


def check_disjoint(inputs: list[Binding], outputs: list[Binding]) -> None:
    """No output's bound bytes overlap an input's or another output's."""
    for i, out in enumerate(outputs):
        for other in [*inputs, *outputs[:i]]:
            (a0, a1), (b0, b1) = out.span, other.span
            if a0 < b1 and b0 < a1:
                raise BindingMisuse(f"{out.label} overlaps {other.label} (bytes "
                                    f"[{a0:#x}, {a1:#x}) and [{b0:#x}, {b1:#x})); "
                                    f"an output must not share memory with another binding")


def _view(binding: Binding) -> np.ndarray:
    desc = binding.desc
    dtype = numpy_dtype(desc.data_type)  # type: ignore[arg-type]
    strides = tuple(s * dtype.itemsize for s in desc.element_strides)
    # Validation proved the last addressed byte lies within ``total`` bytes;
    # the ndarray constructor checks the bound again.
    return np.ndarray(desc.sizes, dtype, buffer=binding.data, strides=strides)


def read_view(binding: Binding) -> np.ndarray:
    """The input tensor, viewed in place and read-only."""
    view = _view(binding)
    view.flags.writeable = False
    return view


def write(binding: Binding, result: np.ndarray) -> None:
    """Store ``result`` at the elements the output desc addresses, and nowhere else."""
    _view(binding)[...] = result
