"""The ``"triton"`` backend: Triton kernels for torch tensors on the GPU.

The default for CUDA tensors when Triton is installed.  Top-k of element
types up to 32 bits runs the packed-key kernels of
:mod:`axisops.kernels.triton.topk`; gather runs the fused check-and-gather
kernel of :mod:`axisops.kernels.triton.gather`.  What those kernels do not take
(64-bit element types, sequences of 2**31 elements or more, complex128
gathers, layouts of more than four dimensions after coalescing) runs the
exact torch-ops path, so every request gets the contract's answer.

CPU tensors: never the default (that stays the ``"torch"`` backend's
zero-copy path through the CPU kernels).  With ``TRITON_INTERPRET=1`` set
before Triton is first used, ``backend="triton"`` runs the very same kernels on
CPU tensors in Triton's interpreter, which is how the test suite checks them.
"""

from __future__ import annotations

import sys
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from ..validation import GatherSpec, TopKSpec
from .torch_backend import TorchBackend

__all__ = ["BACKEND", "TritonBackend", "interpreter_on"]

_KERNELS = "axisops.kernels.triton.topk"


def interpreter_on() -> bool:
    """True when Triton kernels run (or will be built to run) in the CPU interpreter."""
    built = sys.modules.get(_KERNELS)
    if built is not None:
        return bool(built.INTERPRETED)
    import os

    return os.environ.get("TRITON_INTERPRET", "0").strip().lower() in ("1", "true", "on")


def _on_device_of(x: Any) -> AbstractContextManager:
    """Triton launches on the current CUDA device: make it x's (cuda:1 included)."""
    if x.device.type != "cuda":
        return nullcontext()
    import torch

    return torch.cuda.device(x.device)


class TritonBackend(TorchBackend):
    """torch CUDA tensors through Triton kernels (CPU tensors only when interpreting)."""

    name = "triton"
    priority = 10
    requires = ("torch", "triton")
    extra = "triton"
    description = "Triton kernels for CUDA tensors (packed-key top-k, fused gather)"

    def accepts(self, x: Any) -> bool:
        if not super().accepts(x):
            return False
        return x.device.type == "cuda" or (x.device.type == "cpu" and interpreter_on())

    def default_for(self, x: Any) -> bool:
        return super().accepts(x) and x.device.type == "cuda"

    def run_topk(self, x: Any, spec: TopKSpec) -> tuple[Any, Any]:
        from ..kernels.triton import topk as triton_topk

        if triton_topk.supports(x, spec):
            with _on_device_of(x):
                return triton_topk.topk(x, spec)
        from ..kernels.torch import ops as torch_ops

        return torch_ops.topk(x, spec)

    def run_gather(self, x: Any, index: Any, spec: GatherSpec) -> Any:
        from ..kernels.triton import gather as triton_gather

        if triton_gather.supports(x, spec):
            with _on_device_of(x):
                return triton_gather.gather(x, index, spec)
        from ..kernels.torch import ops as torch_ops

        return torch_ops.gather(x, index, spec)


BACKEND = TritonBackend()
