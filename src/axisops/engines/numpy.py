"""The ``"numpy"`` engine: the reference implementations (:mod:`axisops.reference`).

A full stable sort per top-k and ``take_along_axis`` per gather: slow and
obviously right, the oracle every other engine is tested against.  Values keep
their bits (NaN payloads, the sign of zero); gather checks every index value
first (:func:`~axisops.validation.check_index_values`).
"""

from __future__ import annotations

import numpy as np

from ..reference import gather as reference_gather
from ..reference import topk as reference_topk
from ..validation import GatherSpec, TopKSpec, check_index_values
from .base import Engine

__all__ = ["ENGINE", "NumpyEngine"]


class NumpyEngine(Engine):
    name = "numpy"
    array_type = "numpy"
    priority = 0
    requires = ("numpy",)
    description = "reference implementation on NumPy (full stable sort)"

    def topk(self, x: np.ndarray, spec: TopKSpec) -> tuple[np.ndarray, np.ndarray]:
        values, indices = reference_topk.topk(x, spec.k, spec.axis, spec.largest)
        return (np.ascontiguousarray(values, dtype=spec.out_dtype),
                np.ascontiguousarray(indices, dtype=spec.index_dtype))

    def gather(self, x: np.ndarray, index: np.ndarray, spec: GatherSpec) -> np.ndarray:
        check_index_values(index, spec)
        out = reference_gather.gather(x, spec.dim, index)
        return np.ascontiguousarray(out, dtype=spec.out_dtype)


ENGINE = NumpyEngine()
