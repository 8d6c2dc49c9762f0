"""axisops as torch operators: ``axisops::topk``, ``axisops::gather``, ``axisops::take_along_axis``.

Defined with :mod:`torch.library` the first time this module is imported (the
torch backend imports it on the first call with a tensor)::

    axisops::topk(Tensor x, int k, int dim, bool largest, bool sorted, str? backend=None)
        -> (Tensor values, Tensor indices)
    axisops::gather(Tensor x, int dim, Tensor index, str? backend=None) -> Tensor
    axisops::take_along_axis(Tensor x, int axis, Tensor indices, str? backend=None) -> Tensor

- **eager** calls run the same kernels as the backends always did (CPU
  tensors: zero-copy NumPy views on the fastest CPU kernels; CUDA: Triton
  where installed; every other device: the exact torch-ops path), those of the
  torch-family backend named by ``backend`` (``None``: the default for the
  tensor);
- ``torch.compile`` sees opaque operators with **fake** implementations: it
  captures them without a graph break, with static or dynamic shapes, and
  never traces into the kernels or their thread pool;
- **autograd**: the gradient of the top-k values scatters into the selected
  positions (the tie rule already decided which of equal elements was
  selected); the gradient of a gather scatter-adds over repeated indices.
  Both backward formulas are differentiable torch operations (``scatter_add``),
  so double backward works.  Indices are int64 and never differentiable.
  Under ``torch.no_grad()``, or for inputs that do not require grad, nothing
  is recorded.

Each operator validates its arguments again (shape-level, microseconds), so
direct callers of ``torch.ops.axisops.*`` get the library's errors too, named
after the operator (each is an :func:`~axisops.errors.boundary`); called from
a public function, which validated first, the public function's name wins.

A public call that nothing could observe (see :func:`unobserved`: no autograd
to record, no ``torch.compile``, ``torch.jit`` trace, ``torch.func``
transform, forward-mode AD, dispatch or function mode, profiler, or tensor
subclass) skips the dispatcher and the second validation and runs the
operator's kernels directly: the same kernels and results, less host time per
call (on a GPU the host time is most of a mid-sized call).  Kernels a user
registers for the operators themselves therefore run only for observed calls
and direct ``torch.ops.axisops`` calls.

>>> import torch
>>> v, i = torch.ops.axisops.topk(torch.tensor([1.0, 3.0, 3.0]), 2, -1, True, True)
>>> i.tolist()
[1, 2]
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from torch import Tensor

from ... import registry
from ...errors import boundary
from ...validation import ArrayMeta, GatherSpec, TopKSpec, gather_spec, topk_spec
from .ops import index_as_int64

__all__ = ["gather", "topk"]

_INT64 = np.dtype(np.int64)
_LIB = torch.library.Library("axisops", "DEF")
_LIB.define(
    "topk(Tensor x, int k, int dim, bool largest, bool sorted, str? backend=None) "
    "-> (Tensor, Tensor)"
)
_LIB.define("gather(Tensor x, int dim, Tensor index, str? backend=None) -> Tensor")
_LIB.define("take_along_axis(Tensor x, int axis, Tensor indices, str? backend=None) -> Tensor")


def _hidden_from_dynamo(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn``, kept out of Dynamo's frame hook once Dynamo is loaded.

    ``torch.library.custom_op`` does this by importing ``torch._dynamo`` on
    the first call, which costs seconds in programs that never compile;
    without Dynamo loaded nothing can trace, so the import waits until then.
    """
    hidden: list[Callable[..., Any]] = []

    @functools.wraps(fn)
    def run(*args: Any) -> Any:
        if not hidden:
            dynamo = sys.modules.get("torch._dynamo")
            if dynamo is None:
                return fn(*args)
            hidden.append(dynamo.disable(fn, recursive=True))
        return hidden[0](*args)

    return run


def _meta(t: Tensor, name: str) -> ArrayMeta:
    from ...backends.torch_backend import BACKEND

    return BACKEND.meta(t, name)


def _runner(x: Tensor, backend: str | None) -> Any:
    """The torch-family backend whose kernels run the operator on ``x``."""
    return registry.select(x, backend)


# ---- top-k ------------------------------------------------------------------------------------


def _topk_spec(x: Tensor, k: int, dim: int, largest: bool, sorted: bool) -> TopKSpec:
    return topk_spec(_meta(x, "x"), k, dim, largest, sorted, None)


@boundary("topk")
def _topk_impl(x, k, dim, largest, sorted, backend=None):
    spec = _topk_spec(x, k, dim, largest, sorted)
    values, indices = _runner(x, backend).run_topk(x, spec)
    # The fake outputs are contiguous and compiled code relies on real ones
    # matching them; the kernels' outputs are (so this copies nothing).
    return values.contiguous(), indices.contiguous()


@boundary("topk")
def _topk_fake(x, k, dim, largest, sorted, backend=None):
    spec = _topk_spec(x, k, dim, largest, sorted)
    shape = list(x.shape)
    shape[spec.axis] = k
    return x.new_empty(shape), x.new_empty(shape, dtype=torch.int64)


def _topk_setup(ctx, inputs, output) -> None:
    x, _, dim = inputs[:3]
    ctx.shape = x.shape
    ctx.dim = dim
    ctx.save_for_backward(output[1])


def _topk_backward(ctx, grad_values, _grad_indices):
    (indices,) = ctx.saved_tensors
    grad = grad_values.new_zeros(ctx.shape).scatter_add_(ctx.dim, indices, grad_values)
    return grad, None, None, None, None, None


_LIB.impl("topk", _hidden_from_dynamo(_topk_impl), "CompositeExplicitAutograd")
torch.library.register_fake("axisops::topk", _topk_fake, lib=_LIB)
torch.library.register_autograd(
    "axisops::topk", _topk_backward, setup_context=_topk_setup, lib=_LIB
)


# ---- gather and take_along_axis ---------------------------------------------------------------

#: (index argument, axis argument) names per operator, for the messages.
_GATHER_NAMES = {"gather": ("index", "dim"), "take_along_axis": ("indices", "axis")}
#: The operator whose arguments a validated spec's messages name.
_GATHER_BY_NAMES = {names: op for op, names in _GATHER_NAMES.items()}


def _gather_spec(op: str, x: Tensor, dim: int, index: Tensor) -> GatherSpec:
    index_name, dim_name = _GATHER_NAMES[op]
    return gather_spec(
        _meta(x, "x"), dim, _meta(index, index_name), index_name=index_name, dim_name=dim_name
    )


def _register_gather(op: str) -> None:
    @boundary(op)
    def impl(x, dim, index, backend=None):
        spec = _gather_spec(op, x, dim, index)
        return _runner(x, backend).run_gather(x, index, spec).contiguous()

    @boundary(op)
    def fake(x, dim, index, backend=None):
        _gather_spec(op, x, dim, index)
        return x.new_empty(index.shape)

    def setup(ctx, inputs, output) -> None:
        x, dim, index = inputs[:3]
        ctx.shape = x.shape
        ctx.dim = dim % x.dim()
        ctx.save_for_backward(index)

    def backward(ctx, grad):
        (index,) = ctx.saved_tensors
        wide = index_as_int64(index)[0]
        wide = torch.where(wide < 0, wide + ctx.shape[ctx.dim], wide)
        return grad.new_zeros(ctx.shape).scatter_add_(ctx.dim, wide, grad), None, None, None

    _LIB.impl(op, _hidden_from_dynamo(impl), "CompositeExplicitAutograd")
    torch.library.register_fake(f"axisops::{op}", fake, lib=_LIB)
    torch.library.register_autograd(f"axisops::{op}", backward, setup_context=setup, lib=_LIB)


_register_gather("gather")
_register_gather("take_along_axis")

_TOPK = torch.ops.axisops.topk.default
_GATHER = {
    "gather": torch.ops.axisops.gather.default,
    "take_along_axis": torch.ops.axisops.take_along_axis.default,
}


# ---- what the torch backend calls ------------------------------------------------------------


def unobserved(x: Tensor, grad_possible: bool = True) -> bool:
    """True when running the operator's kernels directly is indistinguishable from the operator.

    That is: plain tensors, no gradient to record for ``x`` (when
    ``grad_possible``), and nothing that watches or rewrites operator calls:
    ``torch.compile`` or ``torch.export`` tracing, a ``torch.jit`` trace, a
    ``torch.func`` transform (vmap, grad), forward-mode AD, a
    ``TorchDispatchMode`` or ``TorchFunctionMode`` (``torch.device`` as a context
    manager is one), or any profiler (whose traces then name the operator).
    Kernels a user registers for ``axisops::*`` run only through the operators.
    """
    if torch.compiler.is_compiling() or type(x) is not Tensor:
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


def topk(x: Tensor, spec: TopKSpec, backend: str | None = None) -> tuple[Tensor, Tensor]:
    """``(values, indices)`` for a validated spec, through ``axisops::topk``.

    Indices come out of the operator as int64 and are cast to the spec's
    index dtype afterwards (a pass over the ``k``-sized result only); an
    unobserved call's kernels give the spec's index dtype directly.
    """
    if unobserved(x):
        values, indices = _runner(x, backend).run_topk(x, spec)
        values, indices = values.contiguous(), indices.contiguous()
    else:
        values, indices = _TOPK(x, spec.k, spec.axis, spec.largest, spec.sorted, backend)
    if spec.index_dtype != _INT64:
        from .dtypes import torch_dtype
        from .ops import as_index_dtype

        target = torch_dtype(spec.index_dtype)
        if indices.dtype != target:
            indices = as_index_dtype(indices, target)
    return values, indices


def gather(x: Tensor, index: Tensor, spec: GatherSpec, backend: str | None = None) -> Tensor:
    """The gathered tensor for a validated spec, through ``axisops::gather``/``take_along_axis``.

    The operator is the one whose argument names the spec's messages use.
    """
    if unobserved(x) and type(index) is Tensor:
        return _runner(x, backend).run_gather(x, index, spec).contiguous()
    op = _GATHER[_GATHER_BY_NAMES.get((spec.index_name, spec.dim_name), "gather")]
    return op(x, spec.dim, index, backend)
