"""The ``"cpu"`` backend: the compiled C++ core, default for NumPy arrays.

It reads every layout in place, maps elements to order keys of their own width,
picks a strategy per request (see ``csrc/topk/driver.cpp``) and splits the work
over the core's threads.  Results are bit-identical to the ``"numpy"`` oracle
for every thread count and instruction-set level.
"""

from __future__ import annotations

import numpy as np

from ..validation import GatherSpec, TopKSpec
from .numpy_family import NumpyFamily

__all__ = ["BACKEND", "CpuBackend"]


class CpuBackend(NumpyFamily):
    name = "cpu"
    priority = 20
    requires = ("axisops._core",)
    description = "compiled C++ kernels (threshold scan, radix sort, one-pass gather)"

    def topk(self, x: np.ndarray, spec: TopKSpec) -> tuple[np.ndarray, np.ndarray]:
        from ..kernels import cpu

        return cpu.topk(x, spec)

    def gather(self, x: np.ndarray, index: np.ndarray, spec: GatherSpec) -> np.ndarray:
        from ..kernels import cpu

        return cpu.gather(x, index, spec)


BACKEND = CpuBackend()
