"""The JAX backend's route for concrete arrays on one CPU device: DLPack views, JAX back.

:mod:`axisops.backends.jax_backend` imports :data:`DLPACK` and hands it such arrays: they
are imported through DLPack (:mod:`axisops.adapters.dlpack`), run on the default engine
for what the import gave (NumPy views; torch tensors when the import is forced through
torch), and the results are exported back as JAX arrays.  JAX without ``jax_enable_x64``
narrows int64 indices to int32: a sequence too long for that is an error.  This module
goes with the JAX backend when it is rewritten as an adapter and engine.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from .. import engines
from ..adapters import dlpack
from ..adapters.dlpack import Imported, export, is_torch
from ..engines.base import Engine
from ..validation import GatherSpec, TopKSpec, check_narrowed_index

__all__ = ["DLPACK"]


def _engine_for(a: Any) -> Engine:
    """The default engine for an imported array (a NumPy view, or a torch tensor)."""
    return next(e for e in engines.of_type("torch" if is_torch(a) else "numpy")
                if e.default_for(a))


class _DLPackRoute:
    """The JAX backend's route for concrete CPU arrays (it imports this as ``DLPACK``):
    DLPack views on the default NumPy engine, results back as JAX arrays."""

    def asarray(self, x: Any, name: str) -> Imported:
        return dlpack.import_array(x, name)

    def as_index(self, index: Any, x: Imported, name: str) -> Imported:
        if type(index).__module__.partition(".")[0] in ("jax", "jaxlib") \
                and hasattr(index, "__dlpack_device__"):
            index = dlpack.import_array(index, name, via_torch=is_torch(x.array)).array
        return replace(x, array=dlpack.ADAPTER.index(index, x.array, None, name))

    def topk(self, x: Imported, spec: TopKSpec) -> tuple[Any, Any]:
        values, indices = _engine_for(x.array).topk(x.array, spec)
        out_indices = export(indices, x)
        check_narrowed_index(spec.index_dtype, np.dtype(str(out_indices.dtype)), spec.n,
                             spec.axis, f"{x.kind} (for JAX, jax_enable_x64 is off)")
        return export(values, x), out_indices

    def gather(self, x: Imported, index: Imported, spec: GatherSpec) -> Any:
        return export(_engine_for(x.array).gather(x.array, index.array, spec), x)


DLPACK = _DLPackRoute()
