"""The torch, Triton and JAX backends as the registry sees them: adapters and engines.

These three paths are being rewritten as an adapter and engines of their own
(a torch front in ``axisops/torch/``, engines in ``axisops/engines/``); until
then each old backend (:mod:`~axisops.backends.torch_backend`,
:mod:`~axisops.backends.triton_backend`, :mod:`~axisops.backends.jax_backend`),
which both adapts arrays and computes, is seen through two wrappers:
:class:`LegacyAdapter` (its ``asarray``/``as_index``/``meta``/``broadcast_to``) and
:class:`LegacyEngine` (its ``topk``/``gather``).  They still convert CPU tensors
and CPU JAX arrays to NumPy inside and hand them to the default NumPy engine
(their ``delegate``, answered here from :mod:`axisops.engines`), and the torch
operators still look their runner up (:func:`axisops.registry.select`).  This
module goes when they are rewritten.
"""

from __future__ import annotations

import sys
from typing import Any

from .. import engines
from ..adapters.base import Adapter
from ..adapters.dlpack import is_torch
from ..engines.base import Engine
from ..validation import ArrayMeta, GatherSpec, TopKSpec
from . import jax_backend, torch_backend, triton_backend
from .base import Backend

__all__ = ["JAX", "JAX_ADAPTER", "TORCH", "TORCH_ADAPTER", "TRITON", "LegacyAdapter",
           "LegacyEngine", "while_compiling"]


def _default_numpy_engine(x: Any) -> Engine:
    """What an old backend hands the NumPy view of a CPU array to: the default NumPy engine."""
    return engines.default("numpy")


def _dlpack_on_cuda(x: Any) -> bool:
    try:
        return int(x.__dlpack_device__()[0]) == 2  # kDLCUDA
    except Exception:
        return False


# Every old backend hands the NumPy views of CPU arrays to the default NumPy engine (set
# once, on the class: one made while torch.compile traces must change no state).
Backend.resolver = staticmethod(_default_numpy_engine)


class LegacyEngine(Engine):
    """An old backend's computation, as an engine."""

    def __init__(self, backend: Backend, array_type: str) -> None:
        self.backend = backend
        self.name, self.array_type = backend.name, array_type
        self.priority, self.requires = backend.priority, backend.requires
        self.extra, self.description = backend.extra, backend.description

    def _foreign(self, x: Any) -> bool:
        """A DLPack producer's array on its way to a torch engine (see adapters.dlpack)."""
        return self.array_type == "torch" and not is_torch(x)

    def supports(self, x: Any) -> bool:
        if self._foreign(x):
            return self.name == "torch" or _dlpack_on_cuda(x)
        return self.backend.accepts(x)

    def default_for(self, x: Any) -> bool:
        if self._foreign(x):
            return self.name == "torch" or _dlpack_on_cuda(x)
        return self.backend.default_for(x)

    def topk(self, x: Any, spec: TopKSpec) -> tuple[Any, Any]:
        return self.backend.topk(x, spec)

    def gather(self, x: Any, index: Any, spec: GatherSpec) -> Any:
        return self.backend.gather(x, index, spec)


class LegacyAdapter(Adapter):
    """An old backend's array handling, as an adapter."""

    def __init__(self, backend: Backend, array_type: str) -> None:
        self.backend = backend
        self.name, self.families, self.engine_types = array_type, backend.array_modules, (
            array_type,)

    def to_engine(self, x: Any, engine: Any, name: str) -> Any:
        return self.backend.asarray(x, name)

    def index(self, index: Any, x: Any, engine: Any, name: str) -> Any:
        return self.backend.as_index(index, x, name)

    def meta(self, a: Any, name: str) -> ArrayMeta:
        return self.backend.meta(a, name)

    def broadcast_to(self, a: Any, shape: tuple[int, ...]) -> Any:
        return self.backend.broadcast_to(a, shape)


TORCH = LegacyEngine(torch_backend.BACKEND, "torch")
TRITON = LegacyEngine(triton_backend.BACKEND, "torch")
JAX = LegacyEngine(jax_backend.BACKEND, "jax")
TORCH_ADAPTER = LegacyAdapter(torch_backend.BACKEND, "torch")
JAX_ADAPTER = LegacyAdapter(jax_backend.BACKEND, "jax")


def while_compiling(x: Any, backend: str | None) -> tuple[Adapter, Engine] | None:
    """The pair for a torch tensor while ``torch.compile`` traces, else None.

    Dynamo cannot trace the registry's first-use work (imports, its lock), so
    tensors under tracing go straight to the torch operators, which resolve
    ``backend`` when they run.
    """
    torch = sys.modules.get("torch")
    if torch is None or not torch.compiler.is_compiling():
        return None
    return TORCH_ADAPTER, LegacyEngine(torch_backend.for_op(backend), "torch")
