"""The ``"torch"`` engine: the exact contract from stock torch operations, on any device.

The default for torch tensors on every device without a faster engine (CPU
tensors take the ``"cpu"`` engine, as NumPy views; CUDA tensors ``"triton"``
where it is installed), the engine the registry gives way to for requests the
``"triton"`` engine does not take (64-bit element types, say), and the reference
the Triton kernels are held to.  ``backend="torch"`` runs it on CPU tensors too.
It is also the selection family's engine for tensors off the CPU (sort, argsort,
kthvalue, median, partition, and the quantile family: the ``"triton"`` engine has no
kernels for them).  The operations are in :mod:`axisops.kernels.torch.ops`,
:mod:`axisops.kernels.torch.select` and :mod:`axisops.kernels.torch.quantile`; torch is
imported when they first run.
"""

from __future__ import annotations

from typing import Any

from .._forksafe import imported
from ..requests import GatherSpec, KthSpec, PartitionSpec, QuantileSpec, SortSpec, TopKSpec
from .base import Engine

__all__ = ["ENGINE", "TorchEngine"]


class TorchEngine(Engine):
    name = "torch"
    array_type = "torch"
    priority = 0
    requires = ("torch",)
    extra = "torch"
    description = "stock torch operations, exact on every torch device"

    def topk(self, x: Any, spec: TopKSpec) -> tuple[Any, Any]:
        imported("axisops.kernels.torch", "axisops.kernels.torch.ops")
        from ..kernels.torch import ops

        return ops.topk(x, spec)

    def gather(self, x: Any, index: Any, spec: GatherSpec) -> Any:
        imported("axisops.kernels.torch", "axisops.kernels.torch.ops")
        from ..kernels.torch import ops

        return ops.gather(x, index, spec)

    def sort(self, x: Any, spec: SortSpec, values: bool = True,
             indices: bool = True) -> tuple[Any, Any]:
        imported("axisops.kernels.torch", "axisops.kernels.torch.select")
        from ..kernels.torch import select

        return select.sort(x, spec, values, indices)

    def kthvalue(self, x: Any, spec: KthSpec) -> tuple[Any, Any]:
        imported("axisops.kernels.torch", "axisops.kernels.torch.select")
        from ..kernels.torch import select

        return select.kthvalue(x, spec)

    def partition(self, x: Any, spec: PartitionSpec, values: bool = True,
                  indices: bool = True) -> tuple[Any, Any]:
        imported("axisops.kernels.torch", "axisops.kernels.torch.select")
        from ..kernels.torch import select

        return select.partition(x, spec, values, indices)

    def quantile(self, x: Any, spec: QuantileSpec, parts: bool = False) -> Any:
        imported("axisops.kernels.torch", "axisops.kernels.torch.quantile")
        from ..kernels.torch import quantile

        return quantile.quantile(x, spec, parts)


ENGINE = TorchEngine()
