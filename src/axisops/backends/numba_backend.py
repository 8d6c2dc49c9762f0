"""The ``"numba"`` backend: the fast CPU path, default for NumPy arrays.

It reads every layout in place (see :mod:`axisops.kernels.layout`), maps
elements to order keys of their own width, picks a strategy per request (see
:func:`axisops.kernels.numba.driver.choose_strategy`) and splits the work over threads.  Results
are bit-identical to the ``"numpy"`` oracle for every thread count.

A call never waits for the compiler (unless :func:`axisops.config.set_compile_mode`
says ``"sync"``): while the kernel it needs is being compiled in the background
(:mod:`axisops.kernels.numba.cache`), the call is answered by the ``"numpy"``
backend, which gives the same bits.
"""

from __future__ import annotations

import numpy as np

from ..validation import GatherSpec, TopKSpec
from .numpy_backend import BACKEND as FALLBACK
from .numpy_family import NumpyFamily

__all__ = ["BACKEND", "NumbaBackend"]


class NumbaBackend(NumpyFamily):
    name = "numba"
    priority = 10
    requires = ("numba",)
    description = "compiled CPU kernels (threshold filter, radix sort, one-pass gather)"

    def topk(self, x: np.ndarray, spec: TopKSpec) -> tuple[np.ndarray, np.ndarray]:
        from ..kernels.numba import cache as numba_cache
        from ..kernels.numba import driver as numba_driver

        try:
            return numba_driver.topk(x, spec)
        except numba_cache.NotReady:
            numba_cache.count_fallback()
            return FALLBACK.topk(x, spec)

    def gather(self, x: np.ndarray, index: np.ndarray, spec: GatherSpec) -> np.ndarray:
        from ..kernels.numba import cache as numba_cache
        from ..kernels.numba import driver as numba_driver

        try:
            return numba_driver.gather(x, index, spec)
        except numba_cache.NotReady:
            numba_cache.count_fallback()
            return FALLBACK.gather(x, index, spec)


BACKEND = NumbaBackend()
