"""The DLPack adapter: CuPy arrays (and other DLPack producers) in, the same type out.

Arrays are imported through DLPack without a copy where the producer allows:

- **CPU producers** become NumPy views (``np.from_dlpack``; bfloat16, which
  NumPy's DLPack import refuses, goes through ``np.asarray``) for the NumPy
  engines (``"cpu"`` by default);
- **accelerator producers** (CuPy, JAX on CUDA) become torch tensors
  (``torch.from_dlpack``, needs the ``torch`` extra) for the torch engines
  (``"triton"`` on CUDA when installed, else ``"torch"``).

Results go back through the producer's own array namespace (``jax.numpy``,
``cupy``): ``xp.asarray(result, device=x.device)`` for CPU producers,
``xp.from_dlpack(result)`` (zero-copy) for accelerator ones.  Other types with
``__array_namespace__`` are not claimed here; they are read through NumPy and
give NumPy arrays.  JAX arrays have their own adapter (:mod:`axisops.adapters.jax`),
which imports CPU arrays with :func:`import_array` and exports with :func:`export`.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._forksafe import imported
from ..requests import ArrayMeta, Spec
from ..rules.inputs import refuse_array, unreadable
from .base import Adapter, each
from .numpy import as_ndarray

__all__ = ["ADAPTER", "DLPackAdapter", "Imported", "export", "import_array"]

_CPU_DEVICES = (1, 3)  # kDLCPU, kDLCUDAHost: memory the CPU can read
_NAMESPACES = {"jax": "jax.numpy", "jaxlib": "jax.numpy", "cupy": "cupy"}


@dataclass(frozen=True)
class Imported:
    """A producer's array as axisops works on it, with what it takes to return results."""

    array: Any  #: a NumPy array (CPU producers) or a torch tensor (accelerator producers)
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
        imported(_NAMESPACES[root])
        return importlib.import_module(_NAMESPACES[root])
    return x.__array_namespace__()


def _device_of(x: Any) -> Any:
    device = getattr(x, "device", None)
    return None if callable(device) else device


def _device_type(x: Any, name: str) -> int:
    try:
        return int(x.__dlpack_device__()[0])
    except Exception as exc:
        unreadable(name, x, f"cannot be exported through DLPack ({exc})",
                   "; pass a concrete array (for JAX, not a tracer inside jit/vmap)")


def _numpy_import(x: Any, name: str) -> np.ndarray:
    try:
        return np.from_dlpack(x)
    except (BufferError, RuntimeError, TypeError, ValueError):
        return as_ndarray(x, name)  # e.g. bfloat16, which NumPy's importer refuses


def _torch_import(x: Any, name: str) -> Any:
    try:
        imported("torch")
        import torch
    except ImportError:
        refuse_array(name, x, f"is a {_type_name(x)} on an accelerator; axisops reads "
                     f"accelerator arrays through torch, which is not installed "
                     f"(pip install 'axisops[torch]')")
    return torch.from_dlpack(x)


def producer(x: Any, name: str = "x") -> Imported:
    """What it takes to return results to ``x``'s producer (no data imported)."""
    try:
        namespace = _namespace(x)
    except Exception as exc:
        unreadable(name, x, f"cannot be exported through DLPack ({exc})",
                   "; pass a concrete array (for JAX, not a tracer inside jit/vmap)")
    return Imported(None, namespace, _device_of(x), _type_name(x))


def import_array(x: Any, name: str, via_torch: bool | None = None) -> Imported:
    """Import ``x`` through DLPack: a NumPy view for CPU producers, else a torch tensor.

    ``via_torch`` forces the route (None: by the producer's device).

    >>> import jax.numpy as jnp
    >>> type(import_array(jnp.arange(3), "x").array).__name__
    'ndarray'
    """
    device_type = _device_type(x, name)
    like = producer(x, name)
    if via_torch is None:
        via_torch = device_type not in _CPU_DEVICES
    try:
        array = _torch_import(x, name) if via_torch else _numpy_import(x, name)
    except (BufferError, RuntimeError, TypeError) as exc:
        unreadable(name, x, f"cannot be imported through DLPack ({exc})",
                   "; need a dense array on one device")
    return Imported(array, like.namespace, like.device, like.kind)


def is_torch(a: Any) -> bool:
    """Whether ``a`` is a torch tensor (by its type's module: torch is not imported)."""
    return type(a).__module__.partition(".")[0] == "torch"


def export(result: Any, like: Imported) -> Any:
    """``result`` (NumPy or torch) as an array of ``like``'s producer, on its device.

    >>> import jax.numpy as jnp
    >>> imp = import_array(jnp.arange(3.0), "x")
    >>> export(np.array([2.0]), imp)
    Array([2.], dtype=float32)
    """
    xp = like.namespace
    if is_torch(result):
        return xp.from_dlpack(result)
    if like.device is not None:
        try:
            return xp.asarray(result, device=like.device)
        except TypeError:
            pass  # a namespace without the device argument
    return xp.asarray(result)


def _torch() -> Adapter:
    # Accelerator arrays become torch tensors, read as the torch adapter reads them.
    imported("axisops.adapters.torch")
    from .torch import ADAPTER

    return ADAPTER


class DLPackAdapter(Adapter):
    """CuPy (and other DLPack) arrays, imported for a NumPy or torch engine."""

    name = "dlpack"
    engine_types = ("numpy", "torch")

    def engine_type(self, x: Any) -> str:
        return "numpy" if _device_type(x, "x") in _CPU_DEVICES else "torch"

    def take(self, x: Any, name: str) -> Any:
        return import_array(x, name).array

    def index(self, index: Any, x: Any, name: str) -> Any:
        family = type(index).__module__.partition(".")[0]
        if hasattr(index, "__dlpack_device__") and family == "cupy":
            index = import_array(index, name, via_torch=is_torch(x)).array
        if is_torch(x):
            return _torch().index(index, x, name)
        if is_torch(index):
            imported("axisops.adapters.torch")
            from .torch import numpy_view

            return numpy_view(index.cpu())
        return as_ndarray(index, name)

    def meta(self, a: Any, name: str) -> ArrayMeta:
        if is_torch(a):
            return _torch().meta(a, name)
        return ArrayMeta(a.shape, a.dtype)

    def broadcast_to(self, a: Any, shape: tuple[int, ...]) -> Any:
        if tuple(a.shape) == shape:
            return a
        return a.expand(shape) if is_torch(a) else np.broadcast_to(a, shape)

    def reshape(self, a: Any, shape: tuple[int, ...]) -> Any:
        return _torch().reshape(a, shape) if is_torch(a) else a.reshape(shape)

    def from_engine(self, result: Any, like: Any, spec: Spec) -> Any:
        back = producer(like)
        return each(result, lambda r: export(r, back))


ADAPTER = DLPackAdapter()
