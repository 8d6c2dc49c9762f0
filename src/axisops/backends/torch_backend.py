"""The ``"torch"`` backend: torch tensors in, torch tensors out, same device and dtype.

- **CPU tensors** are viewed as NumPy arrays without a copy (bfloat16 through
  an int16 view, conjugate/negative views resolved first) and handed, with the
  same validated spec, to the default NumPy-family backend, so they run on the
  fastest CPU kernels installed.  Results are wrapped back with
  ``torch.from_numpy`` (no copy).
- **Other devices** (CUDA, ROCm, MPS, XPU ...) run the exact contract built
  from stock torch operations (:mod:`axisops.kernels.torch.ops`).  On CUDA the
  ``"triton"`` backend, when installed, is the default instead.

Every call goes through the torch operators of
:mod:`axisops.kernels.torch.library` (``axisops::topk``, ``axisops::gather``,
``axisops::take_along_axis``), which run the kernels above (:meth:`run_topk`,
:meth:`run_gather`), carry autograd and are opaque to ``torch.compile``.
Gather indices may be tensors (moved to x's device), NumPy arrays or nested
lists.  torch is imported only by the methods (the operators are registered on
the first call), so discovering this backend costs nothing.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..adapters.numpy import as_ndarray
from ..dtypes import GATHER_DTYPES, is_bfloat16, is_index_dtype, native
from ..errors import InvalidArgumentError, UnsupportedDTypeError
from ..validation import ArrayMeta, GatherSpec, TopKSpec
from .base import Backend

__all__ = ["BACKEND", "TorchBackend", "for_op", "from_numpy", "numpy_view"]


def numpy_view(t: Any) -> np.ndarray:
    """A NumPy view of a CPU tensor's data (no copy; bfloat16 as ml_dtypes').

    >>> import torch
    >>> numpy_view(torch.tensor([1.5], dtype=torch.bfloat16)).dtype
    dtype(bfloat16)
    """
    import torch

    t = t.detach()
    if t.is_conj():
        t = t.resolve_conj()
    if t.is_neg():
        t = t.resolve_neg()
    if t.dtype == torch.bfloat16:
        from ..dtypes import bfloat16

        return t.view(torch.int16).numpy().view(bfloat16())
    return t.numpy()


def from_numpy(a: np.ndarray) -> Any:
    """A CPU tensor sharing ``a``'s memory (bfloat16 included; read-only input is copied).

    >>> import torch
    >>> from_numpy(np.array([1, 2], np.uint32)).dtype
    torch.uint32
    """
    import torch

    if not a.flags.writeable:
        a = a.copy()
    if is_bfloat16(a.dtype):
        return torch.from_numpy(a.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(a)


class TorchBackend(Backend):
    """torch tensors: CPU through the NumPy-family kernels, other devices torch ops."""

    name = "torch"
    array_modules = ("torch",)
    priority = 0
    requires = ("torch",)
    extra = "torch"
    description = "torch tensors (CPU: zero-copy through the CPU kernels; else exact torch ops)"

    def accepts(self, x: Any) -> bool:
        import torch

        return isinstance(x, torch.Tensor)

    def asarray(self, x: Any, name: str) -> Any:
        import torch

        if x.layout != torch.strided:
            raise InvalidArgumentError(
                f"{name} is a torch tensor with layout {x.layout} "
                f"(need a dense tensor, layout torch.strided; call .to_dense() first)"
            )
        if x.device.type == "meta":
            raise InvalidArgumentError(
                f"{name} is on the 'meta' device, which holds no data "
                f"(need a tensor on a real device such as 'cpu' or 'cuda')"
            )
        return x

    def as_index(self, index: Any, x: Any, name: str) -> Any:
        import torch

        if isinstance(index, torch.Tensor):
            index = self.asarray(index, name)
        else:
            arr = as_ndarray(index, name)
            if not is_index_dtype(arr.dtype):
                return arr  # validation rejects its dtype with the usual message
            index = from_numpy(np.ascontiguousarray(arr, dtype=native(arr.dtype)))
        if is_index_dtype(self.meta(index, name).dtype) and index.device != x.device:
            index = index.to(x.device)
        return index

    def meta(self, x: Any, name: str) -> ArrayMeta:
        if isinstance(x, np.ndarray):
            return ArrayMeta(x.shape, x.dtype)
        from ..kernels.torch.dtypes import numpy_dtype

        dtype = numpy_dtype(x.dtype)
        if dtype is None:
            raise UnsupportedDTypeError(
                f"{name} has torch dtype {x.dtype}, which axisops does not "
                f"support (supported: {', '.join(GATHER_DTYPES)})"
            )
        return ArrayMeta(tuple(x.shape), dtype)

    def broadcast_to(self, x: Any, shape: tuple[int, ...]) -> Any:
        if isinstance(x, np.ndarray):
            return x if x.shape == shape else np.broadcast_to(x, shape)
        return x if tuple(x.shape) == shape else x.expand(shape)

    @property
    def op_backend(self) -> str | None:
        """The ``backend`` argument this backend passes to the axisops operators."""
        return self.name

    def topk(self, x: Any, spec: TopKSpec) -> tuple[Any, Any]:
        from ..kernels.torch import library as torch_library

        return torch_library.topk(x, spec, self.op_backend)

    def gather(self, x: Any, index: Any, spec: GatherSpec) -> Any:
        from ..kernels.torch import library as torch_library

        return torch_library.gather(x, index, spec, self.op_backend)

    def run_topk(self, x: Any, spec: TopKSpec) -> tuple[Any, Any]:
        """The kernels behind ``axisops::topk`` (no autograd): int64 indices."""
        if x.device.type == "cpu":
            view = numpy_view(x)
            values, indices = self.delegate(view).topk(view, spec)
            return from_numpy(values), from_numpy(indices)
        from ..kernels.torch import ops as torch_ops

        return torch_ops.topk(x, spec)

    def run_gather(self, x: Any, index: Any, spec: GatherSpec) -> Any:
        """The kernels behind ``axisops::gather`` (no autograd)."""
        if x.device.type == "cpu":
            view = numpy_view(x)
            out = self.delegate(view).gather(view, numpy_view(index), spec)
            return from_numpy(out)
        from ..kernels.torch import ops as torch_ops

        return torch_ops.gather(x, index, spec)


class _ForOp(TorchBackend):
    """The torch backend with the operators' kernel choice left to run time."""

    def __init__(self, op_backend: str | None) -> None:
        self._op_backend = op_backend

    @property
    def op_backend(self) -> str | None:
        return self._op_backend


_AUTO = _ForOp(None)


def for_op(backend: str | None) -> TorchBackend:
    """A torch backend whose operators run ``backend``'s kernels (None: the default).

    Used while ``torch.compile`` traces, where the registry is not consulted.
    """
    return _AUTO if backend is None else _ForOp(backend)


BACKEND = TorchBackend()
