"""The ``"numpy"`` backend: slow, obviously correct, the oracle of every test.

Top-k is a full stable argsort of each sequence; "largest" is the stable
ascending sort of the *reversed* sequence, read backwards, which orders equal
elements by lower index and puts NaN first (NumPy sorts NaN last).  No key is
negated and no integer goes through float64.  float16 and bfloat16 are sorted
as float32, which holds both exactly.  Values are taken from ``x`` itself, so
NaN payloads and the sign of zero survive bit for bit.

Gather checks every index value, wraps negatives, and uses
``np.take_along_axis`` on ``x`` cut to the index's extent.
"""

from __future__ import annotations

import numpy as np

from ..dtypes import is_bfloat16
from ..validation import GatherSpec, TopKSpec, check_index_values
from .numpy_family import NumpyFamily

__all__ = ["BACKEND", "NumpyBackend"]


def _sort_keys(x: np.ndarray) -> np.ndarray:
    if x.dtype == np.float16 or is_bfloat16(x.dtype):
        return x.astype(np.float32)
    return x


def stable_order(x: np.ndarray, largest: bool) -> np.ndarray:
    """Indices that sort every last-axis sequence of ``x``, ties by lower index."""
    keys = _sort_keys(x)
    if not largest:
        return np.argsort(keys, axis=-1, kind="stable")
    n = x.shape[-1]
    backwards = np.argsort(keys[..., ::-1], axis=-1, kind="stable")[..., ::-1]
    return (n - 1) - backwards


class NumpyBackend(NumpyFamily):
    name = "numpy"
    priority = 0
    requires = ("numpy",)
    description = "reference implementation on NumPy (full stable sort)"

    def topk(self, x: np.ndarray, spec: TopKSpec) -> tuple[np.ndarray, np.ndarray]:
        moved = np.moveaxis(x, spec.axis, -1)
        order = stable_order(moved, spec.largest)[..., : spec.k]
        values = np.take_along_axis(moved, order, axis=-1)
        values = np.ascontiguousarray(np.moveaxis(values, -1, spec.axis), dtype=spec.out_dtype)
        indices = np.ascontiguousarray(
            np.moveaxis(order, -1, spec.axis), dtype=spec.index_dtype
        )
        return values, indices

    def gather(self, x: np.ndarray, index: np.ndarray, spec: GatherSpec) -> np.ndarray:
        check_index_values(index, spec)
        extent = tuple(
            slice(None) if d == spec.dim else slice(0, s) for d, s in enumerate(spec.index_shape)
        )
        wide = index.astype(np.int64)
        wide[wide < 0] += spec.n
        out = np.take_along_axis(x[extent], wide, axis=spec.dim)
        return np.ascontiguousarray(out, dtype=spec.out_dtype)


BACKEND = NumpyBackend()
