"""The JAX adapter: JAX arrays and tracers in, JAX arrays out.

- **concrete arrays on one CPU device** are read by the NumPy engines (``"cpu"``
  by default) as NumPy views, imported through DLPack without a copy
  (:mod:`axisops.adapters.dlpack`), and the results are exported back as JAX
  arrays on that device;
- **tracers** (inside ``jax.jit``, ``jax.vmap``, ``jax.grad`` and their
  compositions) and **other concrete arrays** (GPU/TPU, sharded) are read as they
  are by the ``"jax"`` engine (:mod:`axisops.engines.jax`), which runs the
  contract in ``lax`` operations, and, compiled for the CPU, top-k on the host's
  CPU engine through a buffer callback.  ``backend="jax"`` runs it on concrete
  CPU arrays too.

Gather index values that are concrete (NumPy arrays, lists, concrete JAX arrays)
are checked whatever the engine, with the library's error; traced index values
cannot be, and out-of-range ones give ``take_along_axis``'s fill value.  JAX
without ``jax_enable_x64`` has no 64-bit integers: like ``jax.lax.top_k``,
indices then come back as int32.  jax is imported by the methods only.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..requests import ArrayMeta, GatherSpec, KthSpec, PartitionSpec, SortSpec, TopKSpec
from ..rules.types import check_narrowed_index
from .base import Adapter
from .dlpack import Imported, export, import_array
from .numpy import as_ndarray

__all__ = ["ADAPTER", "JaxAdapter"]

#: The words of the narrowed-index error (JAX without 64-bit types).
_NARROWED_BY = "JAX (jax_enable_x64 is off)"
_INT64 = np.dtype(np.int64)


def _is_jax_array(x: Any) -> bool:
    import jax

    return isinstance(x, jax.Array)


def _on_one_cpu(x: Any) -> bool:
    """A concrete array on one CPU device (the NumPy engines' inputs)."""
    import jax

    if isinstance(x, jax.core.Tracer):
        return False
    devices = x.devices()
    return len(devices) == 1 and next(iter(devices)).platform == "cpu"


class JaxAdapter(Adapter):
    """JAX arrays and tracers: CPU arrays as NumPy views for the NumPy engines, all as
    themselves for the ``"jax"`` engine."""

    name = "jax"
    families = ("jax", "jaxlib")
    engine_types = ("numpy", "jax")

    def engine_type(self, x: Any) -> str:
        return "numpy" if _on_one_cpu(x) else "jax"

    def accepts(self, x: Any, array_type: str) -> bool:
        return array_type == "jax" or (array_type == "numpy" and _on_one_cpu(x))

    def index(self, index: Any, x: Any, name: str) -> Any:
        return index if _is_jax_array(index) else as_ndarray(index, name)

    def meta(self, a: Any, name: str) -> ArrayMeta:
        return ArrayMeta(tuple(a.shape), np.dtype(a.dtype))

    def broadcast_to(self, a: Any, shape: tuple[int, ...]) -> Any:
        if tuple(a.shape) == shape:
            return a
        if isinstance(a, np.ndarray):
            return np.broadcast_to(a, shape)
        import jax.numpy as jnp

        return jnp.broadcast_to(a, shape)

    def topk(self, engine: Any, a: Any, spec: TopKSpec) -> tuple[Any, Any]:
        if engine.array_type != "numpy":
            return engine.topk(a, spec)
        imported = import_array(a, "x", via_torch=False)
        values, indices = engine.topk(imported.array, spec)
        out_indices = export(indices, imported)
        check_narrowed_index(spec.index_dtype, np.dtype(str(out_indices.dtype)), spec.n,
                             spec.axis, _NARROWED_BY)
        return export(values, imported), out_indices

    def sort(self, engine: Any, a: Any, spec: SortSpec, values: bool = True,
             indices: bool = True) -> tuple[Any, Any]:
        if engine.array_type != "numpy":
            return engine.sort(a, spec, values, indices)
        imported = import_array(a, "x", via_torch=False)
        return _exported(engine.sort(imported.array, spec, values, indices), imported, spec)

    def kthvalue(self, engine: Any, a: Any, spec: KthSpec) -> tuple[Any, Any]:
        if engine.array_type != "numpy":
            return engine.kthvalue(a, spec)
        imported = import_array(a, "x", via_torch=False)
        return _exported(engine.kthvalue(imported.array, spec), imported, spec)

    def partition(self, engine: Any, a: Any, spec: PartitionSpec, values: bool = True,
                  indices: bool = True) -> tuple[Any, Any]:
        if engine.array_type != "numpy":
            return engine.partition(a, spec, values, indices)
        imported = import_array(a, "x", via_torch=False)
        return _exported(engine.partition(imported.array, spec, values, indices), imported,
                         spec)

    def gather(self, engine: Any, a: Any, index: Any, spec: GatherSpec,
               function: str = "gather") -> Any:
        if engine.array_type != "numpy":
            return engine.gather(a, index, spec)
        imported: Imported = import_array(a, "x", via_torch=False)
        if _is_jax_array(index):
            index = import_array(index, "index", via_torch=False).array
        return export(engine.gather(imported.array, index, spec), imported)


def _exported(pair: tuple[Any, Any], imported: Imported,
              spec: SortSpec | KthSpec | PartitionSpec) -> tuple[Any, Any]:
    """A NumPy engine's ``(values, indices)`` as JAX arrays on the input's device (``None``
    stays ``None``); int64 indices that JAX narrows must still hold the last index."""
    values, indices = pair
    if indices is not None:
        indices = export(indices, imported)
        check_narrowed_index(_INT64, np.dtype(str(indices.dtype)), spec.n, spec.axis,
                             _NARROWED_BY)
    return (None if values is None else export(values, imported)), indices


ADAPTER = JaxAdapter()
