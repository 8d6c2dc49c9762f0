"""The ``"jax"`` backend: JAX arrays and tracers, inside and outside ``jit``/``vmap``/``grad``.

The default for JAX (the ``"dlpack"`` backend, priority 0, stays available by
name and serves CuPy):

- **tracers** (inside ``jax.jit``, ``jax.vmap``, ``jax.grad`` and their
  compositions) run :mod:`axisops.kernels.jax.ops`: a top-k compiled for the
  CPU calls the CPU kernels on the input buffer in place (a
  ``jax.experimental.buffer_callback`` with a ``custom_jvp``), for any other
  device the exact contract written in ``lax`` operations; gathers run in
  ``lax`` operations on every device.  Errors that depend on shapes are
  raised while tracing;
- **concrete arrays on one CPU device** keep the DLPack route to the CPU
  kernels (zero-copy NumPy views);
- **other concrete arrays** (GPU/TPU, sharded) run the JAX path, jitted once
  per request shape.

Gather index values that are concrete (NumPy arrays, lists, concrete JAX
arrays) are checked whatever the route, with the library's error; traced
index values cannot be, and out-of-range ones give ``take_along_axis``'s fill
value.  JAX without ``jax_enable_x64`` has no 64-bit integers: like
``jax.lax.top_k``, indices then come back as int32.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from ..adapters.numpy import as_ndarray
from ..validation import ArrayMeta, GatherSpec, TopKSpec, check_index_values
from .base import Backend

__all__ = ["BACKEND", "JaxBackend"]


def _is_tracer(x: Any) -> bool:
    import jax

    return isinstance(x, jax.core.Tracer)


def _on_one_cpu(x: Any) -> bool:
    """A concrete array on one CPU device (the DLPack route's inputs)."""
    if _is_tracer(x):
        return False
    devices = x.devices()
    return len(devices) == 1 and next(iter(devices)).platform == "cpu"


@cache
def _jit(op: str) -> Any:
    """``jax_ops.<op>`` jitted, its spec (the last argument) static."""
    import jax

    from ..kernels.jax import ops as jax_ops

    fn = getattr(jax_ops, op)
    return jax.jit(fn, static_argnums=fn.__code__.co_argcount - 1)


class JaxBackend(Backend):
    """JAX arrays and tracers: traced JAX operations, or the CPU kernels for CPU arrays."""

    name = "jax"
    array_modules = ("jax", "jaxlib")
    priority = 10
    requires = ("jax",)
    extra = "jax"
    description = "JAX arrays and tracers (jit/vmap/grad: exact JAX ops; CPU arrays: CPU kernels)"

    def accepts(self, x: Any) -> bool:
        import jax

        return isinstance(x, jax.Array)

    def as_index(self, index: Any, x: Any, name: str) -> Any:
        if self.accepts(index):
            return index
        return as_ndarray(index, name)

    def meta(self, x: Any, name: str) -> ArrayMeta:
        return ArrayMeta(tuple(x.shape), np.dtype(x.dtype))

    def broadcast_to(self, x: Any, shape: tuple[int, ...]) -> Any:
        if tuple(x.shape) == shape:
            return x
        if isinstance(x, np.ndarray):
            return np.broadcast_to(x, shape)
        import jax.numpy as jnp

        return jnp.broadcast_to(x, shape)

    def topk(self, x: Any, spec: TopKSpec) -> tuple[Any, Any]:
        if _on_one_cpu(x):
            from .dlpack_route import DLPACK

            return DLPACK.topk(DLPACK.asarray(x, "x"), spec)
        if _is_tracer(x):
            from ..kernels.jax import ops as jax_ops

            return jax_ops.topk(x, spec)
        return _jit("topk")(x, spec)

    def gather(self, x: Any, index: Any, spec: GatherSpec) -> Any:
        if _is_tracer(index):
            from ..kernels.jax import ops as jax_ops

            return jax_ops.gather(x, index, spec)
        if _on_one_cpu(x):  # the CPU kernels check the index values themselves
            from .dlpack_route import DLPACK

            imported = DLPACK.asarray(x, "x")
            index = DLPACK.as_index(index, imported, spec.index_name)
            return DLPACK.gather(imported, index, spec)
        check_index_values(np.asarray(index), spec)
        if _is_tracer(x):
            from ..kernels.jax import ops as jax_ops

            return jax_ops.gather(x, index, spec)
        return _jit("gather")(x, index, spec)


BACKEND = JaxBackend()
