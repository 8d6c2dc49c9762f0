"""The ``"triton"`` engine: Triton kernels for torch tensors on the GPU.

The default for CUDA tensors when Triton is installed.  Top-k of element types
up to 32 bits runs the packed-key kernels of :mod:`axisops.kernels.triton.topk`;
gather runs the fused check-and-gather kernel of
:mod:`axisops.kernels.triton.gather`.  What those kernels do not take (64-bit
element types or sequences of 2**31 elements or more for top-k; complex128, or
layouts of more than four dimensions after coalescing, for gather) is not asked
of them: :meth:`TritonEngine.supports` says so, and the registry gives such
requests to the ``"torch"`` engine instead.  The selection family (sort,
kthvalue, partition) has no Triton kernels: this engine takes none of those
requests, and the registry gives them to ``"torch"``.

CPU tensors: never the default (they take the ``"cpu"`` engine, as NumPy
views).  With ``TRITON_INTERPRET=1`` set before Triton is first used,
``backend="triton"`` runs the very same kernels on CPU tensors in Triton's
interpreter, which is how the test suite checks them.
"""

from __future__ import annotations

import os
import sys
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from .._forksafe import imported
from ..kernels.triton.layout import fits
from ..requests import GatherSpec, TopKSpec
from .base import Engine, Spec

__all__ = ["ENGINE", "TritonEngine", "interpreter_on"]

_KERNELS = "axisops.kernels.triton.topk"
#: Element types the packed-key top-k kernels take: those of 32 bits or fewer.
_TOPK_MAX_ITEMSIZE = 4
#: The longest sequence those kernels take (indices live in 32 bits).
_TOPK_MAX_N = 2**31 - 1


def interpreter_on() -> bool:
    """True when Triton kernels run (or will be built to run) in the CPU interpreter."""
    built = sys.modules.get(_KERNELS)
    if built is not None:
        return bool(built.INTERPRETED)
    return os.environ.get("TRITON_INTERPRET", "0").strip().lower() in ("1", "true", "on")


def _on_device_of(x: Any) -> AbstractContextManager:
    """Triton launches on the current CUDA device: make it x's (cuda:1 included)."""
    if x.device.type != "cuda":
        return nullcontext()
    imported("torch")
    import torch

    return torch.cuda.device(x.device)


class TritonEngine(Engine):
    """torch CUDA tensors through Triton kernels (CPU tensors only when interpreting)."""

    name = "triton"
    array_type = "torch"
    priority = 10
    requires = ("torch", "triton")
    extra = "triton"
    description = "Triton kernels for CUDA tensors (packed-key top-k, fused gather)"

    def supports(self, x: Any, spec: Spec | None = None) -> bool:
        device = x.device.type
        if not (device == "cuda" or (device == "cpu" and interpreter_on())):
            return False
        if isinstance(spec, TopKSpec):
            return spec.dtype.itemsize <= _TOPK_MAX_ITEMSIZE and spec.n <= _TOPK_MAX_N
        if isinstance(spec, GatherSpec):
            return spec.dtype.itemsize < 16 and fits(spec, tuple(x.stride()))
        return spec is None  # the selection family: no kernels here

    def default_for(self, x: Any, spec: Spec | None = None) -> bool:
        return x.device.type == "cuda" and self.supports(x, spec)

    def topk(self, x: Any, spec: TopKSpec) -> tuple[Any, Any]:
        imported("axisops.kernels.triton", "axisops.kernels.triton.topk")
        from ..kernels.triton import topk

        with _on_device_of(x):
            return topk.topk(x, spec)

    def gather(self, x: Any, index: Any, spec: GatherSpec) -> Any:
        imported("axisops.kernels.triton", "axisops.kernels.triton.gather")
        from ..kernels.triton import gather

        with _on_device_of(x):
            return gather.gather(x, index, spec)


ENGINE = TritonEngine()
