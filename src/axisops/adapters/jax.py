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

from .._forksafe import imported
from ..requests import ArrayMeta, Spec, TopKSpec
from ..rules.types import check_narrowed_index
from .base import Adapter, each
from .dlpack import export, import_array, producer
from .numpy import as_ndarray

__all__ = ["ADAPTER", "JaxAdapter"]

#: The words of the narrowed-index error (JAX without 64-bit types).
_NARROWED_BY = "JAX (jax_enable_x64 is off)"
_INT64 = np.dtype(np.int64)


def _is_jax_array(x: Any) -> bool:
    imported("jax")
    import jax

    return isinstance(x, jax.Array)


def _on_one_cpu(x: Any) -> bool:
    """A concrete array on one CPU device (the NumPy engines' inputs)."""
    imported("jax")
    import jax

    if isinstance(x, jax.core.Tracer):
        return False
    devices = x.devices()
    return len(devices) == 1 and next(iter(devices)).platform == "cpu"


class JaxAdapter(Adapter):
    """JAX arrays and tracers: CPU arrays as NumPy views for the NumPy engines, all as
    themselves for the ``"jax"`` engine."""

    name = "jax"
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
        imported("jax.numpy")
        import jax.numpy as jnp

        return jnp.broadcast_to(a, shape)

    def to_engine(self, a: Any, engine: Any, name: str = "x") -> Any:
        if engine.array_type != "numpy" or not _is_jax_array(a):
            return a
        return import_array(a, name, via_torch=False).array

    def from_engine(self, result: Any, like: Any, spec: Spec) -> Any:
        """NumPy results exported to ``like``'s device; int64 indices that JAX narrows
        (without ``jax_enable_x64``) must still hold the axis's last index."""
        if not any(isinstance(r, np.ndarray) for r in _arrays(result)):
            return result  # the "jax" engine's own arrays
        back = producer(like)
        result = each(result, lambda r: export(r, back))
        if isinstance(result, tuple) and result[1] is not None:
            wanted = spec.index_dtype if isinstance(spec, TopKSpec) else _INT64
            check_narrowed_index(wanted, np.dtype(str(result[1].dtype)), spec.n, spec.axis,
                                 _NARROWED_BY)
        return result


def _arrays(result: Any) -> tuple[Any, ...]:
    return result if isinstance(result, tuple) else (result,)


ADAPTER = JaxAdapter()
