"""axisops as torch operators: ``axisops::topk``, ``axisops::gather``, ``axisops::take_along_axis``
and the selection family's ``axisops::sort``, ``argsort``, ``kthvalue``, ``partition``,
``argpartition``.

Defined with :mod:`torch.library` the first time this module is imported (by
``import axisops.torch``, or by the runner on the first call torch could
observe, whether or not the program imported :mod:`axisops.torch`)::

    axisops::topk(Tensor x, SymInt k, int dim, bool largest, bool sorted, str? backend=None)
        -> (Tensor values, Tensor indices)
    axisops::gather(Tensor x, int dim, Tensor index, str? backend=None, *,
                    bool sparse_grad=False) -> Tensor
    axisops::take_along_axis(Tensor x, int axis, Tensor indices, str? backend=None, *,
                             bool sparse_grad=False) -> Tensor
    axisops::sort(Tensor x, int dim, bool descending, str? backend=None)
        -> (Tensor values, Tensor indices)
    axisops::argsort(Tensor x, int dim, bool descending, str? backend=None) -> Tensor
    axisops::kthvalue(Tensor x, SymInt k, int dim, bool keepdim, str? backend=None)
        -> (Tensor values, Tensor indices)
    axisops::partition(Tensor x, int[] kth, int dim, str? backend=None)
        -> (Tensor values, Tensor indices)
    axisops::argpartition(Tensor x, int[] kth, int dim, str? backend=None) -> Tensor
    axisops::quantile(Tensor x, Tensor q, str q_dtype, bool weak, int dim, bool keepdim,
                      str method, bool skipnan, str flavour, str? backend=None)
        -> (Tensor below, Tensor below_indices, Tensor above, Tensor above_indices,
            Tensor weights)

(``kthvalue`` serves median too: ``k = (n - 1) // 2 + 1``, a ``SymInt`` under
dynamic shapes; the ``arg`` forms compute no values.  ``quantile`` serves quantile,
nanquantile, nanmedian and the drop-ins: it gives the order statistics each quantile
reads and their weights, its ``q`` a tensor of the probabilities (read by its kernel,
so that a drop-in's tensor ``q`` can be compiled), with the dtype NumPy held them in; the
interpolation is torch operations after it, NumPy's
(:func:`axisops.kernels.torch.quantile.finish`) or, for the drop-ins, ``torch.lerp``, so
that autograd, compile and export see it.)

- **eager** calls run the engine ``backend`` names, found in the engine table
  (:func:`axisops.engines.get`): the runner (:mod:`axisops.runner`) passes the
  engine the registry chose for the call, which is not chosen again.  A direct
  call without ``backend`` is a call of a front of its own: the registry chooses
  once (CPU tensors: ``"cpu"``, on zero-copy NumPy views; CUDA: ``"triton"``
  where installed; every other device: ``"torch"``), and so it does for a name
  that cannot run the tensor (given directly, or recorded in a graph exported
  for another device), raising the library's error for a bad one.  The engine
  runs on what the torch adapter hands it (:mod:`axisops.adapters.torch`);
- ``torch.compile`` sees opaque operators with **fake** implementations: it
  captures them without a graph break, with static or dynamic shapes, and
  never traces into the kernels or their thread pool;
- **autograd**: the gradient of the top-k values (and of sort, kthvalue and
  partition values) scatters into the selected positions (the tie rule already
  decided which of equal elements was selected); the gradient of a gather
  scatter-adds over repeated indices (``sparse_grad=True``: a sparse COO
  gradient, as ``torch.gather`` gives). Forward mode takes the tangent at the
  same indices.  A ``setup_context`` style ``autograd.Function`` per operator,
  registered as its autograd kernel, serves autograd, forward-mode AD
  (``torch.autograd.forward_ad``) and ``torch.compile``; its formulas are
  differentiable torch operations, so double backward and forward-over-reverse
  work.  Indices are int64 and never differentiable.  Under
  ``torch.no_grad()``, or for inputs that do not require grad, nothing is
  recorded.
- **torch.func** (grad, jacrev, jacfwd, vjp, jvp, vmap, functional_call and
  their nestings): a transform takes the call before the autograd kernel
  runs, and a Python ``autograd.Function`` cannot be handed back to it from
  there.  So under a transform each operator is composed of its own kernels
  below autograd (the indices; the index check) and ``torch.gather`` of
  ``x``, whose rules every transform and nesting knows.  The values are the
  same bits either way: copies of the elements of ``x`` at those indices.
  ``torch.vmap`` batches the kernels through each operator's vmap rule (the
  batch is one more leading dimension; errors name the caller's dims).
- ``k`` is a ``SymInt``: under ``torch.compile(dynamic=True)`` or
  ``torch.export`` a ``k`` computed from sizes stays symbolic (no recompile
  per value).

Each operator validates its arguments again (shape-level, microseconds), so
direct callers of ``torch.ops.axisops.*`` get the library's errors too, named
after the operator (each is an :func:`~axisops.errors.boundary`); called from
a public function, which validated first, the public function's name wins.

The runner comes here only for calls torch could observe (see
:func:`axisops.adapters.torch.unobserved`: autograd to record,
``torch.compile``, a ``torch.jit`` trace, a ``torch.func`` transform,
forward-mode AD, a dispatch or function mode, a profiler, a tensor subclass);
every other call runs the engine directly, without the dispatcher and the
second validation: the same engine and results, less host time per call (on a
GPU the host time is most of a mid-sized call).  Kernels a user registers for
the operators themselves therefore run only for observed calls and direct
``torch.ops.axisops`` calls.

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

from .. import engines, registry
from .._forksafe import imported
from ..adapters.torch import ADAPTER
from ..engines.base import Engine
from ..errors import boundary
from ..kernels.torch.ops import index_as_int64
from ..requests import (
    BOTH,
    ArrayMeta,
    GatherSpec,
    KthSpec,
    PartitionSpec,
    QuantileSpec,
    SortSpec,
    Spec,
    TopKSpec,
)
from ..rules.operations import (
    gather_spec,
    kthvalue_spec,
    median_spec,
    partition_spec,
    sort_spec,
    topk_spec,
)

__all__ = ["run"]

_INT64 = np.dtype(np.int64)
_LIB = torch.library.Library("axisops", "DEF")
_LIB.define(
    "gather(Tensor x, int dim, Tensor index, str? backend=None, *, bool sparse_grad=False) "
    "-> Tensor"
)
_LIB.define(
    "take_along_axis(Tensor x, int axis, Tensor indices, str? backend=None, *, "
    "bool sparse_grad=False) -> Tensor"
)
_BELOW_AUTOGRAD = torch._C._after_autograd_keyset


def _hidden_from_dynamo(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn``, kept out of Dynamo's frame hook once Dynamo is loaded.

    ``torch.library.custom_op`` does this by importing ``torch._dynamo`` on
    the first call, which costs seconds in programs that never compile;
    without Dynamo loaded nothing can trace, so the import waits until then.
    """
    hidden: list[Callable[..., Any]] = []

    @functools.wraps(fn)
    def run(*args: Any, **kwargs: Any) -> Any:
        if not hidden:
            dynamo = sys.modules.get("torch._dynamo")
            if dynamo is None:
                return fn(*args, **kwargs)
            hidden.append(dynamo.disable(fn, recursive=True))
        return hidden[0](*args, **kwargs)

    return run


def _meta(t: Tensor, name: str) -> ArrayMeta:
    return ADAPTER.meta(t, name)


def _engine(x: Tensor, backend: str | None, spec: Spec) -> Engine:
    """The engine the operator's kernel runs on ``x``: the one ``backend`` names, found
    in the engine table (the runner passes the engine the registry chose); without a
    name, or with one that cannot run ``x``, the operator was called as a front of its
    own, and asks the registry (which chooses, or raises the library's error for the
    name)."""
    if backend in engines.names():
        engine = engines.get(backend)
        if engine.available() and ADAPTER.accepts(x, engine.array_type) \
                and engine.supports(x, spec):
            return engine
    return registry.choose(x, backend, spec, adapter=ADAPTER)


def _compute(x: Tensor, spec: Spec, backend: str | None, index: Tensor | None = None,
             want: tuple[bool, bool] = BOTH) -> Any:
    """The operators' kernel: ``spec`` on the engine :func:`_engine` finds, as tensors."""
    return ADAPTER.compute(_engine(x, backend, spec), spec, x, x, index, want)


def _records(x: Tensor) -> bool:
    """True when a call on ``x`` may need a derivative: its ``autograd.Function`` runs.

    That is a differentiable dtype and one of: a gradient to record, forward-mode
    AD (a dual level is open) or a ``torch.func`` transform.  Everything else
    goes straight to the kernels below autograd.
    """
    if not (x.dtype.is_floating_point or x.dtype.is_complex):
        return False
    return (
        (x.requires_grad and torch.is_grad_enabled())
        or torch.autograd.forward_ad._current_level >= 0
        or torch._C._are_functorch_transforms_active()
    )


def _scatter_into(grad: Tensor, shape: Any, dim: int, index: Tensor, add: bool) -> Tensor:
    """Zeros of ``shape`` with ``grad`` put (or added) at ``index`` along ``dim``.

    Out of place, so that ``torch.func.vmap`` can batch it and double backward
    and forward-over-reverse differentiate it.
    """
    zeros = grad.new_zeros(shape)
    return zeros.scatter_add(dim, index, grad) if add else zeros.scatter(dim, index, grad)


def _logical_meta(batched: Tensor) -> ArrayMeta:
    meta = _meta(batched, "x")
    return ArrayMeta(meta.shape[1:], meta.dtype)


# ---- gather and take_along_axis ---------------------------------------------------------------

#: (index argument, axis argument) names per operator, for the messages.
_GATHER_NAMES = {"gather": ("index", "dim"), "take_along_axis": ("indices", "axis")}


def _gather_spec(op: str, meta: ArrayMeta, dim: int, index: ArrayMeta) -> GatherSpec:
    index_name, dim_name = _GATHER_NAMES[op]
    return gather_spec(meta, dim, index, index_name=index_name, dim_name=dim_name)


def _wrapped_index(index: Tensor, n: int) -> Tensor:
    """int64 index values with negatives counted from the end (values already checked)."""
    wide = index_as_int64(index)[0]
    return torch.where(wide < 0, wide + n, wide)


def _register_gather(op: str) -> None:
    index_name = _GATHER_NAMES[op][0]

    @boundary(op)
    def impl(x, dim, index, backend=None, *, sparse_grad=False):
        spec = _gather_spec(op, _meta(x, "x"), dim, _meta(index, index_name))
        return _compute(x, spec, backend, index).contiguous()

    @boundary(op)
    def fake(x, dim, index, backend=None, *, sparse_grad=False):
        _gather_spec(op, _meta(x, "x"), dim, _meta(index, index_name))
        return x.new_empty(index.shape)

    class GatherFunction(torch.autograd.Function):
        """The derivatives of a gather in ``x``: a scatter-add back, a gather forward."""

        @staticmethod
        def forward(x, dim, index, backend, sparse_grad):
            with torch._C._AutoDispatchBelowAutograd():
                return op_overload(x, dim, index, backend, sparse_grad=sparse_grad)

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, dim, index, _, sparse_grad = inputs
            ctx.save_for_backward(index)
            ctx.save_for_forward(index)
            ctx.shape = x.shape
            ctx.dim = dim % x.dim()
            ctx.sparse_grad = sparse_grad

        @staticmethod
        def backward(ctx, grad):
            (index,) = ctx.saved_tensors
            wide = _wrapped_index(index, ctx.shape[ctx.dim])
            if ctx.sparse_grad:
                # torch.gather(sparse_grad=True)'s formula; it reads only the shape of
                # its first argument, which an expanded scalar gives without memory.
                shape_only = grad.new_zeros(()).expand(ctx.shape)
                out = torch.ops.aten._gather_sparse_backward(shape_only, ctx.dim, wide, grad)
            else:
                out = _scatter_into(grad, ctx.shape, ctx.dim, wide, add=True)
            return out, None, None, None, None

        @staticmethod
        def jvp(ctx, tangent, *_):
            (index,) = ctx.saved_tensors
            return torch.gather(tangent, ctx.dim, _wrapped_index(index, ctx.shape[ctx.dim]))

    def autograd(keyset, x, dim, index, backend=None, *, sparse_grad=False):
        if not _records(x):
            return op_overload.redispatch(keyset & _BELOW_AUTOGRAD, x, dim, index, backend,
                                          sparse_grad=sparse_grad)
        if torch._C._are_functorch_transforms_active():
            # torch.func: see the module docstring.  The operator checks the index
            # values; its result, the same bits, is not needed.
            with torch._C._AutoDispatchBelowAutograd():
                op_overload(x, dim, index, backend)
            wide = _wrapped_index(index, x.shape[dim])
            return torch.gather(x, dim, wide, sparse_grad=sparse_grad)
        return GatherFunction.apply(x, dim, index, backend, sparse_grad)

    def vmap(info, in_dims, x, dim, index, backend=None, *, sparse_grad=False):
        x_dim, _, index_dim = in_dims[:3]
        if x_dim is None and index_dim is None:
            return op_overload(x, dim, index, backend, sparse_grad=sparse_grad), None
        size = info.batch_size
        x = x.movedim(x_dim, 0) if x_dim is not None else x.expand(size, *x.shape)
        index = (index.movedim(index_dim, 0) if index_dim is not None
                 else index.expand(size, *index.shape))
        index_meta = _meta(index, index_name)
        spec = _gather_spec(op, _logical_meta(x), dim,
                            ArrayMeta(index_meta.shape[1:], index_meta.dtype))
        return op_overload(x, spec.dim + 1, index, backend, sparse_grad=sparse_grad), 0

    _LIB.impl(op, _hidden_from_dynamo(impl), "CompositeExplicitAutograd")
    _LIB.impl(op, autograd, "Autograd", with_keyset=True)
    torch.library.register_fake(f"axisops::{op}", fake, lib=_LIB)
    torch.library.register_vmap(f"axisops::{op}", vmap, lib=_LIB)
    op_overload = getattr(torch.ops.axisops, op).default


_register_gather("gather")
_register_gather("take_along_axis")

_GATHER = {
    "gather": torch.ops.axisops.gather.default,
    "take_along_axis": torch.ops.axisops.take_along_axis.default,
}



# ---- along an axis: top-k and the selection family ----------------------------------------

_LIB.define("topk(Tensor x, SymInt k, int dim, bool largest, bool sorted, str? backend=None) "
            "-> (Tensor, Tensor)")
_LIB.define("sort(Tensor x, int dim, bool descending, str? backend=None) -> (Tensor, Tensor)")
_LIB.define("argsort(Tensor x, int dim, bool descending, str? backend=None) -> Tensor")
_LIB.define("kthvalue(Tensor x, SymInt k, int dim, bool keepdim, str? backend=None) "
            "-> (Tensor, Tensor)")
_LIB.define("partition(Tensor x, int[] kth, int dim, str? backend=None) -> (Tensor, Tensor)")
_LIB.define("argpartition(Tensor x, int[] kth, int dim, str? backend=None) -> Tensor")


def _kth_spec(meta: ArrayMeta, k: Any, dim: int, keepdim: bool) -> KthSpec:
    if _is_lower_median(k, meta, dim):
        return median_spec(meta, dim, keepdim)
    return kthvalue_spec(meta, k, dim, keepdim)


def _is_lower_median(k: Any, meta: ArrayMeta, dim: int) -> bool:
    """Whether a symbolic ``k`` is the lower median's, ``(n - 1) // 2 + 1``, by its formula.

    Such a ``k`` is in range whenever the axis is not empty, but the symbolic
    reasoning of ``torch.export`` cannot prove ``(n - 1) // 2 + 1 <= n`` for every
    ``n``; validated as a median, its only condition is ``n > 0``.  No guard is added.
    """
    if not isinstance(k, torch.SymInt) or not -meta.ndim <= dim < meta.ndim:
        return False
    imported("torch.fx.experimental.symbolic_shapes")
    from torch.fx.experimental.symbolic_shapes import statically_known_true

    n = meta.shape[dim]
    return bool(statically_known_true(k == (n - 1) // 2 + 1))


def _topk_spec(meta: ArrayMeta, k: Any, dim: int, largest: bool, sorted: bool) -> TopKSpec:
    return topk_spec(meta, k, dim, largest, sorted, None)


def _partition_spec(meta: ArrayMeta, kth: Any, dim: int) -> PartitionSpec:
    return partition_spec(meta, list(kth), dim)


_INDICES = (False, True)
#: Each operator along an axis: its spec from ``x``'s meta and the arguments after ``x``
#: (``backend`` aside), the outputs it returns (the ``arg`` forms: the indices alone), and
#: the place of its ``dim`` argument (``x`` is 0).
_ALONG = {
    "topk": (_topk_spec, BOTH, 2),
    "sort": (sort_spec, BOTH, 1),
    "argsort": (sort_spec, _INDICES, 1),
    "kthvalue": (_kth_spec, BOTH, 2),
    "partition": (_partition_spec, BOTH, 2),
    "argpartition": (_partition_spec, _INDICES, 2),
}


def _spec_of(op: str, meta: ArrayMeta, args: tuple[Any, ...]) -> tuple[Any, str | None]:
    """``op``'s spec for an ``x`` of ``meta`` and the arguments after it, and the engine they
    name (``backend``, None where the caller left it out)."""
    spec_of = _ALONG[op][0]
    n = spec_of.__code__.co_argcount - 1
    return spec_of(meta, *args[:n]), (args[n] if len(args) > n else None)


def _register_kernels(op: str) -> None:
    """``op``'s kernel and fake kernel, whose outputs are contiguous alike (compiled code
    relies on real outputs matching the fake ones; the kernels' already are)."""
    want = _ALONG[op][1]

    @boundary(op)
    def kernel(x, *args):
        spec, backend = _spec_of(op, _meta(x, "x"), args)
        values, indices = _compute(x, spec, backend, want=want)
        return (values.contiguous(), indices.contiguous()) if want[0] else indices.contiguous()

    @boundary(op)
    def fake(x, *args):
        shape = _spec_of(op, _meta(x, "x"), args)[0].out_shape
        indices = x.new_empty(shape, dtype=torch.int64)
        return (x.new_empty(shape), indices) if want[0] else indices

    _LIB.impl(op, _hidden_from_dynamo(kernel), "CompositeExplicitAutograd")
    torch.library.register_fake(f"axisops::{op}", fake, lib=_LIB)


def _full_index(indices: Tensor, dim: int, keepdim: bool) -> Tensor:
    """The indices with ``dim`` present (kthvalue without ``keepdim`` removed it)."""
    return indices if keepdim else indices.unsqueeze(dim)


def _selected(x: Tensor, dim: int, indices: Tensor, keepdim: bool) -> Tensor:
    """``x``'s elements at ``indices`` along ``dim`` by ``torch.gather`` (torch.func's route):
    copies of those elements, so the same bits as the kernels' values."""
    values = torch.gather(x, dim, _full_index(indices, dim, keepdim))
    return values if keepdim else values.squeeze(dim)


def _register_selection(op: str, dim_at: int, keepdim_at: int | None) -> None:
    """Autograd for an operator whose outputs are ``(values, indices)`` with the values
    ``x``'s elements at the indices along its ``dim`` argument (``args[dim_at]``): top-k's
    selection, the sort and partition permutations, and kthvalue's one element per
    sequence (its ``keepdim`` argument at ``keepdim_at``).  Reverse mode puts each value's
    gradient at its index (the tie rule already chose which of equal elements that is);
    forward mode takes the tangent at the same indices, as ``torch.topk``'s formulas do.
    Under ``torch.func`` see the module docstring."""
    op_overload = getattr(torch.ops.axisops, op).default

    def keepdim_of(args: tuple[Any, ...]) -> bool:
        return True if keepdim_at is None else bool(args[keepdim_at])

    class SelectionFunction(torch.autograd.Function):
        """Reverse mode puts each value's gradient at its index; forward mode takes the
        tangent at the same indices (torch operations, so they differentiate again)."""

        @staticmethod
        def forward(x, *args):
            with torch._C._AutoDispatchBelowAutograd():
                return op_overload(x, *args)

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, args = inputs[0], inputs[1:]
            indices = output[1]
            ctx.mark_non_differentiable(indices)
            ctx.save_for_backward(indices)
            ctx.save_for_forward(indices)
            ctx.shape = x.shape
            ctx.dim = args[dim_at - 1] % x.dim()
            ctx.keepdim = keepdim_of(inputs)
            ctx.nargs = len(args)

        @staticmethod
        def backward(ctx, grad_values, _grad_indices):
            (indices,) = ctx.saved_tensors
            index = _full_index(indices, ctx.dim, ctx.keepdim)
            grad = _scatter_into(_full_index(grad_values, ctx.dim, ctx.keepdim), ctx.shape,
                                 ctx.dim, index, add=False)
            return (grad, *([None] * ctx.nargs))

        @staticmethod
        def jvp(ctx, tangent, *_):
            (indices,) = ctx.saved_tensors
            return _selected(tangent, ctx.dim, indices, ctx.keepdim), None

    def autograd(keyset, x, *args):
        if not _records(x):
            return op_overload.redispatch(keyset & _BELOW_AUTOGRAD, x, *args)
        if torch._C._are_functorch_transforms_active():
            # torch.func: see the module docstring (the same bits, from torch.gather).
            with torch._C._AutoDispatchBelowAutograd():
                indices = op_overload(x, *args)[1]
            dim = args[dim_at - 1] % x.dim()
            return _selected(x, dim, indices, keepdim_of((x, *args))), indices
        return SelectionFunction.apply(x, *args)

    _LIB.impl(op, autograd, "Autograd", with_keyset=True)


def _register_index_only(op: str) -> None:
    """Autograd for an operator whose one output is int64 indices: nothing to record, so
    its kernels below autograd run (also under forward-mode AD and torch.func, which
    would otherwise look for a decomposition of the operator)."""
    op_overload = getattr(torch.ops.axisops, op).default

    def autograd(keyset, x, *args):
        if torch._C._are_functorch_transforms_active():
            with torch._C._AutoDispatchBelowAutograd():
                return op_overload(x, *args)
        return op_overload.redispatch(keyset & _BELOW_AUTOGRAD, x, *args)

    _LIB.impl(op, autograd, "Autograd", with_keyset=True)


def _register_vmap(op: str) -> None:
    """A vmap rule: the batch becomes the leading dimension, ``dim`` is validated on the
    unbatched shape (errors name the caller's dim) and moved past it."""
    op_overload = getattr(torch.ops.axisops, op).default
    _, want, dim_at = _ALONG[op]
    outputs = (0, 0) if want[0] else 0

    def rule(info, in_dims, x, *args):
        if in_dims[0] is None:
            return op_overload(x, *args), (None, None) if want[0] else None
        x = x.movedim(in_dims[0], 0)
        spec = _spec_of(op, _logical_meta(x), args)[0]
        moved = list(args)
        moved[dim_at - 1] = spec.axis + 1
        return op_overload(x, *moved), outputs

    torch.library.register_vmap(f"axisops::{op}", rule, lib=_LIB)


for _op, (_, _want, _dim_at) in _ALONG.items():
    _register_kernels(_op)
    _register_vmap(_op)
    if _want[0]:
        _register_selection(_op, _dim_at, 3 if _op == "kthvalue" else None)
    else:
        _register_index_only(_op)

_TOPK = torch.ops.axisops.topk.default
_SORT = torch.ops.axisops.sort.default
_ARGSORT = torch.ops.axisops.argsort.default
_KTHVALUE = torch.ops.axisops.kthvalue.default
_PARTITION = torch.ops.axisops.partition.default
_ARGPARTITION = torch.ops.axisops.argpartition.default

# ---- the quantile family ----------------------------------------------------------------------

_LIB.define(
    "quantile(Tensor x, Tensor q, str q_dtype, bool weak, int dim, bool keepdim, str method, "
    "bool skipnan, str flavour, str? backend=None) -> (Tensor, Tensor, Tensor, Tensor, Tensor)"
)
#: The arguments of ``axisops::quantile`` after ``x`` that make its spec (``backend`` aside).
_QUANTILE_ARGS = 8


def _quantile_spec(meta: ArrayMeta, q: Tensor, q_dtype: str, weak: bool, dim: int,
                   keepdim: bool, method: str, skipnan: bool, flavour: str, *,
                   values: bool = True) -> QuantileSpec:
    """The operator's spec, from its arguments: ``q`` a tensor of the probabilities, rebuilt
    as the caller gave them (a Python scalar where ``weak``, else an array of ``q_dtype``).
    ``values=False`` (fake tensors, which hold none) reads its shape alone: the spec's
    ``q`` are zeros, and ``q`` is checked when the kernel runs."""
    imported("axisops.rules.quantile")
    from ..rules.quantile import quantile_spec

    dtype = np.dtype(q_dtype)
    got = (np.asarray(q.detach().cpu().tolist(), np.float64) if values
           else np.zeros(tuple(q.shape)))
    user_q = got.astype(dtype)
    if weak:
        user_q = user_q.item()
    return quantile_spec(meta, user_q, dim, method, keepdim, skipnan, flavour)


def _quantile_args(spec: QuantileSpec, q: Tensor | None = None) -> tuple[Any, ...]:
    """The operator's arguments after ``x`` for ``spec``; ``q``: the caller's tensor of
    probabilities (the drop-ins under ``torch.compile``, whose spec could not read it)."""
    if q is None:
        q = torch.tensor(spec.q, dtype=torch.float64).reshape(spec.q_shape)
    return (q, spec.q_dtype.name, spec.weak, spec.axis, spec.keepdims, spec.method,
            spec.skipnan, spec.flavour)


@boundary("quantile")
def _quantile_kernel(x, *args):
    spec = _quantile_spec(_meta(x, "x"), *args[:_QUANTILE_ARGS])
    backend = args[_QUANTILE_ARGS] if len(args) > _QUANTILE_ARGS else None
    parts = _compute(x, spec, backend, want=(False, True))
    return tuple(p.contiguous() for p in parts)


@boundary("quantile")
def _quantile_fake(x, *args):
    imported("axisops.kernels.torch.dtypes", "axisops.rules.quantile")
    from ..kernels.torch.dtypes import torch_dtype
    from ..rules.quantile import weights_dtype

    spec = _quantile_spec(_meta(x, "x"), *args[:_QUANTILE_ARGS], values=False)
    shape = spec.out_shape
    index = x.new_empty(shape, dtype=torch.int64)
    weights = x.new_empty(shape, dtype=torch_dtype(weights_dtype(spec)))
    return x.new_empty(shape), index, x.new_empty(shape), x.new_empty(shape, dtype=torch.int64), \
        weights


_LIB.impl("quantile", _hidden_from_dynamo(_quantile_kernel), "CompositeExplicitAutograd")
torch.library.register_fake("axisops::quantile", _quantile_fake, lib=_LIB)
_QUANTILE = torch.ops.axisops.quantile.default


def _along(part: Tensor, x_shape: Any, dim: int, q_dims: int, keepdim: bool) -> Tensor:
    """A part (``q``'s dims, then ``x``'s without ``dim``, or with it as 1) with ``q``'s dims
    flattened into ``dim``: the shape of ``x`` with ``t`` (how many q) in place of ``n``."""
    lead = part.shape[:q_dims]
    t = 1
    for size in lead:
        t *= size
    rest = part.shape[q_dims:]
    if not keepdim:
        rest = (*rest[:dim], 1, *rest[dim:])
    return part.reshape((t, *rest)).squeeze(dim + 1).movedim(0, dim)


def _from_along(a: Tensor, like: Tensor, dim: int, q_dims: int, keepdim: bool) -> Tensor:
    """:func:`_along` undone: ``a`` (``x``'s shape with ``t`` at ``dim``) in ``like``'s shape."""
    moved = a.movedim(dim, 0)
    if keepdim:
        moved = moved.unsqueeze(dim + 1)
    return moved.reshape(like.shape)


class _QuantileFunction(torch.autograd.Function):
    """The order statistics ``below`` and ``above`` are elements of ``x``: each one's gradient
    goes back to its index (added where the two are one element, or several q read one);
    forward mode takes the tangent at the same indices."""

    @staticmethod
    def forward(x, *args):
        with torch._C._AutoDispatchBelowAutograd():
            return _QUANTILE(x, *args)

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, args = inputs[0], inputs[1:]
        _, below_at, _, above_at, weights = output
        ctx.mark_non_differentiable(below_at, above_at, weights)
        ctx.save_for_backward(below_at, above_at)
        ctx.save_for_forward(below_at, above_at)
        ctx.shape = x.shape
        ctx.dim = args[3] % x.dim()
        ctx.q_dims = args[0].dim()
        ctx.keepdim = bool(args[4])
        ctx.nargs = len(args)

    @staticmethod
    def backward(ctx, grad_below, _gi, grad_above, _ga, _gw):
        below_at, above_at = ctx.saved_tensors
        grad = None
        for g, at in ((grad_below, below_at), (grad_above, above_at)):
            if g is None:
                continue
            index = _along(at, ctx.shape, ctx.dim, ctx.q_dims, ctx.keepdim)
            add = _scatter_into(_along(g, ctx.shape, ctx.dim, ctx.q_dims, ctx.keepdim),
                                ctx.shape, ctx.dim, index, add=True)
            grad = add if grad is None else grad + add
        return (grad, *([None] * ctx.nargs))

    @staticmethod
    def jvp(ctx, tangent, *_):
        below_at, above_at = ctx.saved_tensors
        taken = []
        for at in (below_at, above_at):
            index = _along(at, ctx.shape, ctx.dim, ctx.q_dims, ctx.keepdim)
            taken.append(_from_along(torch.gather(tangent, ctx.dim, index), at, ctx.dim,
                                     ctx.q_dims, ctx.keepdim))
        return taken[0], None, taken[1], None, None


def _quantile_autograd(keyset, x, *args):
    if not _records(x):
        return _QUANTILE.redispatch(keyset & _BELOW_AUTOGRAD, x, *args)
    if torch._C._are_functorch_transforms_active():
        # torch.func: the indices from the kernels, the elements by torch.gather.
        with torch._C._AutoDispatchBelowAutograd():
            _, below_at, _, above_at, weights = _QUANTILE(x, *args)
        dim, q_dims, keepdim = args[3] % x.dim(), args[0].dim(), bool(args[4])
        taken = [_from_along(torch.gather(x, dim, _along(at, x.shape, dim, q_dims, keepdim)),
                             at, dim, q_dims, keepdim) for at in (below_at, above_at)]
        return taken[0], below_at, taken[1], above_at, weights
    return _QuantileFunction.apply(x, *args)


def _quantile_vmap(info, in_dims, x, *args):
    imported("axisops.rules.quantile")
    from ..rules.quantile import check_unbatched_q

    check_unbatched_q(in_dims[1] is None)
    if in_dims[0] is None:
        return _QUANTILE(x, *args), (None,) * 5
    x = x.movedim(in_dims[0], 0)
    spec = _quantile_spec(_logical_meta(x), *args[:_QUANTILE_ARGS], values=False)
    moved = list(args)
    moved[3] = spec.axis + 1
    out = len(spec.q_shape)
    return _QUANTILE(x, *moved), (out,) * 5


_LIB.impl("quantile", _quantile_autograd, "Autograd", with_keyset=True)
torch.library.register_vmap("axisops::quantile", _quantile_vmap, lib=_LIB)


def _quantile(x: Tensor, spec: QuantileSpec, backend: str, want: tuple[bool, bool],
              q: Tensor | None) -> Any:
    """A quantile request through the operator: its parts, or (``want == (True, False)``) the
    quantiles made of them by NumPy's interpolation in torch operations, differentiable.
    ``q``: the caller's tensor of probabilities, when the spec could not read it."""
    parts = _QUANTILE(x, *_quantile_args(spec, q), backend)
    if want[0] and not want[1]:
        imported("axisops.kernels.torch.quantile")
        from ..kernels.torch.quantile import finish

        return finish(parts, spec)
    return parts


# ---- what the runner calls ------------------------------------------------------------------


def run(spec: Spec, backend: str, x: Tensor, index: Tensor | None = None,
        want: tuple[bool, bool] = BOTH, function: str = "gather",
        sparse_grad: bool = False) -> Any:
    """The result of a validated ``spec`` through its operator, on the engine ``backend``
    names: a call torch could observe, as the runner (:mod:`axisops.runner`) hands it over.

    ``want`` picks a sort's or partition's outputs (``None`` for the other: the ``arg``
    operators compute no values); ``function`` is a gather's operator (``"gather"``, or
    ``"take_along_axis"``, whose errors and graphs name it); ``sparse_grad`` makes the
    gradient in ``x`` a sparse COO tensor, as ``torch.gather(sparse_grad=True)`` does.
    Top-k indices come out of the operator as int64 and are cast to the spec's index
    dtype afterwards (a pass over the ``k``-sized result only).
    """
    if isinstance(spec, GatherSpec):
        op = _GATHER[function]
        if sparse_grad:
            return op(x, spec.dim, index, backend, sparse_grad=True)
        return op(x, spec.dim, index, backend)
    if isinstance(spec, TopKSpec):
        return _topk(x, spec, backend)
    if isinstance(spec, KthSpec):
        return _KTHVALUE(x, spec.k, spec.axis, spec.keepdims, backend)
    if isinstance(spec, QuantileSpec):
        return _quantile(x, spec, backend, want, index)
    if isinstance(spec, SortSpec):
        pair, only_indices, args = _SORT, _ARGSORT, (spec.axis, spec.descending)
    else:
        pair, only_indices, args = _PARTITION, _ARGPARTITION, (list(spec.kth), spec.axis)
    if not want[0]:
        return None, only_indices(x, *args, backend)
    values, indices = pair(x, *args, backend)
    return values, indices if want[1] else None


def _topk(x: Tensor, spec: TopKSpec, backend: str) -> tuple[Tensor, Tensor]:
    values, indices = _TOPK(x, spec.k, spec.axis, spec.largest, spec.sorted, backend)
    if spec.index_dtype != _INT64:
        imported("axisops.kernels.torch.dtypes", "axisops.kernels.torch.ops")
        from ..kernels.torch.dtypes import torch_dtype
        from ..kernels.torch.ops import as_index_dtype

        target = torch_dtype(spec.index_dtype)
        if indices.dtype != target:
            indices = as_index_dtype(indices, target)
    return values, indices
