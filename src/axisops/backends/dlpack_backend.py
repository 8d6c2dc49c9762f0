"""The ``"dlpack"`` backend: JAX and CuPy arrays in, the same type out.

Arrays are imported through DLPack without a copy where the producer allows:

- **CPU producers** (JAX on the CPU) become NumPy views (``np.from_dlpack``;
  bfloat16, which NumPy's DLPack import refuses, goes through
  ``np.asarray``) and run on the default NumPy-family backend;
- **GPU producers** (CuPy, JAX on CUDA) become torch tensors
  (``torch.from_dlpack``, needs the ``torch`` extra) and run on the default
  torch-family backend (``"triton"`` on CUDA when installed).

Results go back through the producer's own array namespace (``jax.numpy``,
``cupy``): ``xp.asarray(result, device=x.device)`` for CPU
producers, ``xp.from_dlpack(result)`` (zero-copy) for GPU ones.  JAX without
``jax_enable_x64`` has no 64-bit integers: like ``jax.lax.top_k``, indices then
come back in JAX's 32-bit type, and a sequence too long for it is an error.
Other types with ``__array_namespace__`` are not claimed here; the registry
serves them through NumPy and returns NumPy arrays.

For JAX the default is the ``"jax"`` backend (:mod:`axisops.backends.jax_backend`),
which keeps this route for concrete arrays on the CPU and traces the rest
(``jax.jit``, ``jax.vmap``, ``jax.grad``); this one serves JAX arrays when named
(``backend="dlpack"``) and refuses tracers.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..errors import InvalidArgumentError
from ..validation import ArrayMeta, GatherSpec, TopKSpec
from .base import Backend
from .numpy_family import as_ndarray

__all__ = ["BACKEND", "DLPackBackend", "Imported", "export", "import_array"]

_CPU_DEVICES = (1, 3)  # kDLCPU, kDLCUDAHost: memory the CPU can read
_NAMESPACES = {"jax": "jax.numpy", "jaxlib": "jax.numpy", "cupy": "cupy"}


@dataclass(frozen=True)
class Imported:
    """A producer's array as axisops works on it, with what it takes to return results."""

    array: Any  #: a NumPy array (CPU producers) or a torch tensor (GPU producers)
    namespace: Any  #: the producer's array namespace, e.g. ``jax.numpy``
    device: Any  #: the producer's device object, where results go
    kind: str  #: the producer's type name, for messages


def _type_name(x: Any) -> str:
    t = type(x)
    return f"{t.__module__}.{t.__qualname__}"


def _namespace(x: Any) -> Any:
    # Known producers by module: CuPy's __array_namespace__ (where present) is a
    # strict array-API wrapper whose arrays are not cupy.ndarray.
    root = type(x).__module__.partition(".")[0]
    if root in _NAMESPACES:
        return importlib.import_module(_NAMESPACES[root])
    return x.__array_namespace__()


def _device_of(x: Any) -> Any:
    device = getattr(x, "device", None)
    return None if callable(device) else device


def _numpy_import(x: Any, name: str) -> np.ndarray:
    try:
        return np.from_dlpack(x)
    except (BufferError, RuntimeError, TypeError, ValueError):
        return as_ndarray(x, name)  # e.g. bfloat16, which NumPy's importer refuses


def _torch_import(x: Any, name: str) -> Any:
    try:
        import torch
    except ImportError:
        raise InvalidArgumentError(
            f"{name} is a {_type_name(x)} on an accelerator; axisops reads "
            f"accelerator arrays through torch, which is not installed "
            f"(pip install 'axisops[torch]')"
        ) from None
    return torch.from_dlpack(x)


def import_array(x: Any, name: str, via_torch: bool | None = None) -> Imported:
    """Import ``x`` through DLPack: a NumPy view for CPU producers, else a torch tensor.

    ``via_torch`` forces the route (None: by the producer's device).

    >>> import jax.numpy as jnp
    >>> type(import_array(jnp.arange(3), "x").array).__name__
    'ndarray'
    """
    try:
        device_type = int(x.__dlpack_device__()[0])
        namespace = _namespace(x)
    except Exception as exc:
        raise InvalidArgumentError(
            f"{name} of type {_type_name(x)} cannot be exported through DLPack "
            f"({exc}); pass a concrete array (for JAX, not a tracer inside jit/vmap)"
        ) from None
    if via_torch is None:
        via_torch = device_type not in _CPU_DEVICES
    try:
        array = _torch_import(x, name) if via_torch else _numpy_import(x, name)
    except (BufferError, RuntimeError, TypeError) as exc:
        raise InvalidArgumentError(
            f"{name} of type {_type_name(x)} cannot be imported through DLPack "
            f"({exc}); need a dense array on one device"
        ) from None
    return Imported(array, namespace, _device_of(x), _type_name(x))


def _is_torch(a: Any) -> bool:
    return type(a).__module__.partition(".")[0] == "torch"


def export(result: Any, like: Imported) -> Any:
    """``result`` (NumPy or torch) as an array of ``like``'s producer, on its device.

    >>> import jax.numpy as jnp
    >>> imp = import_array(jnp.arange(3.0), "x")
    >>> export(np.array([2.0]), imp)
    Array([2.], dtype=float32)
    """
    xp = like.namespace
    if _is_torch(result):
        return xp.from_dlpack(result)
    if like.device is not None:
        try:
            return xp.asarray(result, device=like.device)
        except TypeError:
            pass  # a namespace without the device argument
    return xp.asarray(result)


def _check_narrowed(out: Any, spec: TopKSpec, like: Imported) -> None:
    got = np.dtype(str(out.dtype))
    if got == spec.index_dtype or spec.n - 1 <= np.iinfo(got).max:
        return
    raise InvalidArgumentError(
        f"index_dtype={spec.index_dtype.name} is narrowed to {got.name} by "
        f"{like.kind} (for JAX, jax_enable_x64 is off), which cannot hold index {spec.n - 1} "
        f"of axis {spec.axis} of size {spec.n} (enable 64-bit types in the producer)"
    )


class DLPackBackend(Backend):
    """JAX and CuPy arrays, imported through DLPack and returned in their own type."""

    name = "dlpack"
    array_modules = ("jax", "jaxlib", "cupy")
    priority = 0
    requires = ()
    description = "JAX/CuPy arrays via DLPack (CPU: NumPy views; GPU: torch), same type out"

    def asarray(self, x: Any, name: str) -> Imported:
        return import_array(x, name)

    def as_index(self, index: Any, x: Imported, name: str) -> Imported:
        on_torch = _is_torch(x.array)
        foreign = hasattr(index, "__dlpack_device__") and not _is_torch(index)
        if foreign and self.serves(index):
            index = import_array(index, name).array
        if on_torch:
            from .torch_backend import BACKEND as TORCH

            array = TORCH.as_index(index, x.array, name)
        elif _is_torch(index):
            from .torch_backend import numpy_view

            array = numpy_view(index.cpu())
        else:
            array = as_ndarray(index, name)
        return replace(x, array=array)

    def meta(self, x: Imported, name: str) -> ArrayMeta:
        if _is_torch(x.array):
            from .torch_backend import BACKEND as TORCH

            return TORCH.meta(x.array, name)
        return ArrayMeta(x.array.shape, x.array.dtype)

    def broadcast_to(self, x: Imported, shape: tuple[int, ...]) -> Imported:
        if tuple(x.array.shape) == shape:
            return x
        if _is_torch(x.array):
            return replace(x, array=x.array.expand(shape))
        return replace(x, array=np.broadcast_to(x.array, shape))

    def topk(self, x: Imported, spec: TopKSpec) -> tuple[Any, Any]:
        values, indices = self.delegate(x.array).topk(x.array, spec)
        out_indices = export(indices, x)
        _check_narrowed(out_indices, spec, x)
        return export(values, x), out_indices

    def gather(self, x: Imported, index: Imported, spec: GatherSpec) -> Any:
        out = self.delegate(x.array).gather(x.array, index.array, spec)
        return export(out, x)


BACKEND = DLPackBackend()
