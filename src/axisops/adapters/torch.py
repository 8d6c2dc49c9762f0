"""The torch adapter: torch tensors in, torch tensors out, same device and dtype.

- **CPU tensors** are read by the NumPy engines (``"cpu"`` by default, the
  ``"numpy"`` oracle by name) as NumPy views, without a copy (bfloat16 through an
  int16 view, conjugate and negative views resolved first), and their results
  are wrapped back with ``torch.from_numpy`` (no copy);
- **tensors on any device** are read as they are by the torch engines:
  ``"triton"`` (the default on CUDA where installed), ``"torch"`` (stock torch
  operations: the default elsewhere, and on CPU tensors by name).

A call that torch could observe (a gradient to record, ``torch.compile`` or
``torch.export`` tracing, a ``torch.func`` transform, forward-mode AD, a
dispatch or function mode, a profiler, a tensor subclass: see
:func:`unobserved`) goes through the ``axisops::`` torch operators
(:mod:`axisops.torch.library`), which carry autograd and are opaque to
``torch.compile``: :meth:`TorchAdapter.observed` tells the runner
(:mod:`axisops.runner`), which routes them there with the name of the engine it
chose; the operators' kernels run that engine through this adapter's
:meth:`~TorchAdapter.to_engine` and :meth:`~TorchAdapter.from_engine`, as the
runner runs any other call directly.

Gather indices may be tensors (moved to x's device), NumPy arrays or nested
lists.  torch is imported by the methods only, so listing adapters costs nothing.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._forksafe import imported
from ..dtypes import is_bfloat16, is_index_dtype, native
from ..requests import ArrayMeta, Spec
from ..rules.inputs import refuse_array
from ..rules.types import refuse_dtype
from .base import Adapter, each
from .numpy import as_ndarray

__all__ = ["ADAPTER", "TorchAdapter", "from_numpy", "numpy_view", "unobserved"]


def numpy_view(t: Any) -> np.ndarray:
    """A NumPy view of a CPU tensor's data (no copy; bfloat16 as ml_dtypes').

    >>> import torch
    >>> numpy_view(torch.tensor([1.5], dtype=torch.bfloat16)).dtype
    dtype(bfloat16)
    """
    imported("torch")
    import torch

    t = t.detach()
    if t.is_conj():
        t = t.resolve_conj()
    if t.is_neg():
        t = t.resolve_neg()
    if t.dtype == torch.bfloat16:
        imported("axisops.dtypes")
        from ..dtypes import bfloat16

        return t.view(torch.int16).numpy().view(bfloat16())
    return t.numpy()


def from_numpy(a: np.ndarray) -> Any:
    """A CPU tensor sharing ``a``'s memory (bfloat16 included; read-only input is copied).

    >>> import torch
    >>> from_numpy(np.array([1, 2], np.uint32)).dtype
    torch.uint32
    """
    imported("torch")
    import torch

    if not a.flags.writeable:
        a = a.copy()
    if is_bfloat16(a.dtype):
        return torch.from_numpy(a.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(a)


def unobserved(x: Any, grad_possible: bool = True) -> bool:
    """True when running an engine directly is indistinguishable from the operator.

    That is: plain tensors, no gradient to record for ``x`` (when
    ``grad_possible``), and nothing that watches or rewrites operator calls:
    ``torch.compile`` or ``torch.export`` tracing, a ``torch.jit`` trace, a
    ``torch.func`` transform (vmap, grad), forward-mode AD, a
    ``TorchDispatchMode`` or ``TorchFunctionMode`` (``torch.device`` as a context
    manager is one), or any profiler (whose traces then name the operator).
    Kernels a user registers for ``axisops::*`` run only through the operators.
    """
    imported("torch")
    import torch

    if torch.compiler.is_compiling() or type(x) is not torch.Tensor:
        return False
    if grad_possible and x.requires_grad and torch.is_grad_enabled():
        return False
    c = torch._C
    return (
        c._len_torch_dispatch_stack() == 0
        and c._len_torch_function_stack() == 0
        and not c._are_functorch_transforms_active()
        and c._get_tracing_state() is None
        and not c._autograd._profiler_enabled()
        and torch.autograd.forward_ad._current_level < 0
    )


class TorchAdapter(Adapter):
    """torch tensors: CPU ones as NumPy views for the NumPy engines, any as tensors."""

    name = "torch"
    engine_types = ("numpy", "torch")

    def engine_type(self, x: Any) -> str:
        return "numpy" if x.device.type == "cpu" else "torch"

    def accepts(self, x: Any, array_type: str) -> bool:
        return array_type == "torch" or (array_type == "numpy" and x.device.type == "cpu")

    def take(self, x: Any, name: str) -> Any:
        imported("torch")
        import torch

        if x.layout != torch.strided:
            refuse_array(name, x, f"is a torch tensor with layout {x.layout} (need a dense "
                                  f"tensor, layout torch.strided; call .to_dense() first)")
        if x.device.type == "meta":
            refuse_array(name, x, "is on the 'meta' device, which holds no data (need a "
                                  "tensor on a real device such as 'cpu' or 'cuda')")
        return x

    def index(self, index: Any, x: Any, name: str) -> Any:
        imported("torch")
        import torch

        if isinstance(index, torch.Tensor):
            index = self.take(index, name)
        else:
            arr = as_ndarray(index, name)
            if not is_index_dtype(arr.dtype):
                return arr  # validation refuses its dtype with the usual message
            index = from_numpy(np.ascontiguousarray(arr, dtype=native(arr.dtype)))
        if is_index_dtype(self.meta(index, name).dtype) and index.device != x.device:
            index = index.to(x.device)
        return index

    def meta(self, a: Any, name: str) -> ArrayMeta:
        if isinstance(a, np.ndarray):
            return ArrayMeta(a.shape, a.dtype)
        imported("axisops.kernels.torch.dtypes")
        from ..kernels.torch.dtypes import numpy_dtype

        dtype = numpy_dtype(a.dtype)
        if dtype is None:
            refuse_dtype(name, a.dtype, "torch")
        return ArrayMeta(tuple(a.shape), dtype)

    def broadcast_to(self, a: Any, shape: tuple[int, ...]) -> Any:
        if isinstance(a, np.ndarray):
            return a if a.shape == shape else np.broadcast_to(a, shape)
        return a if tuple(a.shape) == shape else a.expand(shape)

    def reshape(self, a: Any, shape: tuple[int, ...]) -> Any:
        """``a`` in ``shape`` (C order); a bool tensor's bytes kept where it is copied
        (``axis=None`` flattens a strided view)."""
        if isinstance(a, np.ndarray):
            return a.reshape(shape)
        imported("axisops.kernels.torch.dtypes")
        from ..kernels.torch.dtypes import reshape_bits

        return reshape_bits(a, shape)

    def observed(self, a: Any, index: Any = None) -> bool:
        return not unobserved(a) or (index is not None and type(index) is not type(a))

    def to_engine(self, a: Any, engine: Any, name: str = "x") -> Any:
        return numpy_view(a) if engine.array_type == "numpy" else a

    def from_engine(self, result: Any, like: Any, spec: Spec) -> Any:
        return each(result, lambda r: from_numpy(r) if isinstance(r, np.ndarray) else r)


ADAPTER = TorchAdapter()
