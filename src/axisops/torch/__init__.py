"""Drop-ins for ``torch.topk``, ``torch.gather`` and ``torch.take_along_dim``.

Code written against torch can swap the import and keep its calls::

    from axisops import torch as ax
    values, indices = ax.topk(logits, 2, dim=-1)
    picked = ax.gather(table, 1, indices)

Each takes every argument torch's function takes (``out=`` with torch's
resize and dtype rules, ``sparse_grad=``) and returns what torch's returns
(``torch.return_types.topk``, or ``topk_out`` with ``out=``).  They are the
public functions with torch's signatures (``gather(sparse_grad=True)`` calls the
``axisops::gather`` operator itself, see :mod:`axisops.torch.library`), so
autograd, ``torch.func`` and ``torch.compile`` work as with
:func:`axisops.topk`.  What changes is the answer: ties go to the lower index,
NaN is greater than +inf, -0.0 equals +0.0 and integers compare exactly, the
same on every device; ``gather`` also takes negative indices and checks every
index.  Importing this module imports torch (``import axisops`` does not) and
registers the operators, so ``torch.ops.axisops.topk`` and the others can be
called directly from then on.

>>> import torch
>>> from axisops import torch as ax
>>> ax.topk(torch.tensor([1.0, 3.0, 3.0, 2.0]), 2)
torch.return_types.topk(
values=tensor([3., 3.]),
indices=tensor([1, 2]))
"""

from __future__ import annotations

import warnings
from typing import Any

import torch

from .. import adapters, registry
from ..api import gather as _gather
from ..api import take_along_axis as _take_along_axis
from ..api import topk as _topk
from ..errors import boundary
from ..validation import (
    as_bool,
    check_out_pair,
    check_out_tensor,
    gather_spec,
    need_type,
    refuse_out_with_grad,
)
from . import library as _library

__all__ = ["gather", "take_along_dim", "topk"]


def _need_tensor(name: str, value: object, any_array: str) -> None:
    need_type(name, value, isinstance(value, torch.Tensor), "torch.Tensor",
              f"axisops.torch takes tensors; {any_array} takes any array")


def _check_out(name: str, out: Any, like: torch.Tensor, function: str,
               input: torch.Tensor) -> torch.Tensor:
    """``out`` checked as torch checks an ``out=`` tensor before it writes."""
    need_type(name, out, isinstance(out, torch.Tensor), "torch.Tensor")
    check_out_tensor(name, out.dtype, like.dtype, out.device, input.device, function)
    return out


def _refuse_autograd(function: str, *tensors: torch.Tensor) -> None:
    refuse_out_with_grad(torch.is_grad_enabled() and any(t.requires_grad for t in tensors),
                         function)


def _write(result: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
    """Copy ``result`` into ``out``, resized first as torch resizes an ``out=`` tensor.

    A tensor of the right shape keeps its strides (a strided view is written
    in place); one of another shape is resized, with torch's warning unless it
    was empty.
    """
    if out.shape != result.shape:
        if out.numel() != 0:
            warnings.warn(
                f"An output with one or more elements was resized since it had shape "
                f"{list(out.shape)}, which does not match the required output shape "
                f"{list(result.shape)}. This behavior is deprecated, and in a future PyTorch "
                f"release outputs will not be resized unless they have zero elements. You "
                f"can explicitly reuse an out tensor t by resizing it, inplace, to zero "
                f"elements with t.resize_(0).",
                UserWarning,
                stacklevel=4,
            )
        out.resize_(result.shape)
    return out.copy_(result)


@boundary("topk")
def topk(
    input: torch.Tensor,
    k: int,
    dim: int = -1,
    largest: bool = True,
    sorted: bool = True,
    *,
    out: tuple[torch.Tensor, torch.Tensor] | None = None,
) -> Any:
    """``torch.topk`` with the axisops contract.

    Parameters
    ----------
    input : torch.Tensor
        Any device, any dtype axisops supports.
    k : int
        How many elements to keep along ``dim`` (a ``torch.SymInt`` under
        ``torch.compile`` stays symbolic).
    dim : int, optional
        The dimension to select along (the last by default).
    largest : bool, optional
        The greatest (default) or the least elements.
    sorted : bool, optional
        ``False`` allows the k elements in any order.
    out : tuple of two torch.Tensor, optional
        ``(values, indices)`` to write the result into, as ``torch.topk``
        does: ``values`` of ``input``'s dtype, ``indices`` int64, both on
        ``input``'s device; resized when their shape differs (with torch's
        warning unless empty).  Not with autograd.

    Returns
    -------
    torch.return_types.topk
        ``(values, indices)``: ``values`` carries autograd history when ``input``
        requires grad; ``indices`` are int64 and never do.  With ``out``, a
        ``torch.return_types.topk_out`` of the ``out`` tensors.

    Raises
    ------
    InvalidArgumentError
        ``input`` is not a tensor, a bad ``k`` or ``dim`` (raised while tracing
        under ``torch.compile``, where the shapes are known), or ``out`` that is
        not two tensors on ``input``'s device, or with autograd.
    UnsupportedDTypeError
        An ``out`` tensor of another dtype than the result's.

    Examples
    --------
    >>> import torch
    >>> from axisops import torch as ax
    >>> ax.topk(torch.tensor([[0.0, -0.0, 5.0]]), k=2, dim=1, largest=False).indices
    tensor([[0, 1]])
    >>> values, indices = torch.empty(0), torch.empty(0, dtype=torch.int64)
    >>> r = ax.topk(torch.tensor([4, 9, 9]).float(), 2, out=(values, indices))
    >>> r.values is values, indices.tolist()
    (True, [1, 2])
    """
    _need_tensor("input", input, "axisops.topk")
    if out is None:
        values, indices = _topk(input, k, dim, largest=largest, sorted=sorted)
        return torch.return_types.topk((values, indices))
    check_out_pair(out, isinstance(out, (tuple, list)) and len(out) == 2)
    _refuse_autograd("topk", input)
    values, indices = _topk(input, k, dim, largest=largest, sorted=sorted)
    out_values = _check_out("out[0]", out[0], values, "topk", input)
    out_indices = _check_out("out[1]", out[1], indices, "topk", input)
    _write(values, out_values)
    _write(indices, out_indices)
    return torch.return_types.topk_out((out_values, out_indices))


@boundary("gather")
def gather(
    input: torch.Tensor,
    dim: int,
    index: torch.Tensor,
    *,
    sparse_grad: bool = False,
    out: torch.Tensor | None = None,
) -> torch.Tensor:
    """``torch.gather`` with the axisops contract.

    Parameters
    ----------
    input : torch.Tensor
        The tensor to gather from.
    dim : int
        The dimension to gather along.
    index : torch.Tensor
        Integer tensor of ``input``'s rank; negative values count from the end,
        and every value is checked.
    sparse_grad : bool, optional
        Make the gradient in ``input`` a sparse COO tensor (as torch's does).
    out : torch.Tensor, optional
        A tensor of ``input``'s dtype and device to write the result into
        (resized as torch resizes it).  Not with autograd.

    Returns
    -------
    torch.Tensor
        ``index``'s shape, ``input``'s dtype and device; differentiable in ``input``
        (repeated indices add up in the gradient).  With ``out``, ``out``.

    Raises
    ------
    IndexOutOfRangeError
        An index value outside ``[-n, n-1]``.
    InvalidArgumentError
        ``input`` is not a tensor, a bad ``dim``, shape or ``sparse_grad``, or a
        bad ``out``.
    UnsupportedDTypeError
        An ``out`` of another dtype than ``input``'s.

    Examples
    --------
    >>> import torch
    >>> from axisops import torch as ax
    >>> ax.gather(torch.tensor([[1, 2], [3, 4]]), dim=1, index=torch.tensor([[1], [-2]]))
    tensor([[2],
            [3]])
    """
    _need_tensor("input", input, "axisops.gather")
    sparse = as_bool("sparse_grad", sparse_grad)
    if out is not None:
        _refuse_autograd("gather", input)
    result = _sparse_gather(input, dim, index) if sparse else _gather(input, dim, index)
    if out is None:
        return result
    return _write(result, _check_out("out", out, result, "gather", input))


def _sparse_gather(input: torch.Tensor, dim: int, index: Any) -> torch.Tensor:
    """``gather`` whose gradient in ``input`` is sparse: the operator's own argument, so
    this front calls the operator itself, with the engine the registry picks (once)."""
    adapter = adapters.of(input)
    x = adapter.take(input, "x")
    idx = adapter.index(index, x, "index")
    spec = gather_spec(adapter.meta(x, "x"), dim, adapter.meta(idx, "index"))
    engine = registry.pick(input, None, spec, x)[1]
    return _library.gather(x, idx, spec, engine.name, sparse_grad=True)


@boundary("take_along_dim")
def take_along_dim(
    input: torch.Tensor,
    indices: torch.Tensor,
    dim: int | None = None,
    *,
    out: torch.Tensor | None = None,
) -> torch.Tensor:
    """``torch.take_along_dim`` with the axisops contract.

    Parameters
    ----------
    input : torch.Tensor
        The tensor to take from.
    indices : torch.Tensor
        Integer tensor of ``input``'s rank; ``input`` and ``indices`` broadcast
        against each other in every dimension but ``dim``.  Negative values
        count from the end; every value is checked.
    dim : int, optional
        The dimension to take along; ``None`` (the default) takes from the
        flattened ``input`` at the flattened ``indices``, as torch does.
    out : torch.Tensor, optional
        A tensor of ``input``'s dtype and device to write the result into
        (resized as torch resizes it).  Not with autograd.

    Returns
    -------
    torch.Tensor
        The broadcast shape with ``indices``' size along ``dim``;
        differentiable in ``input``.  With ``out``, ``out``.

    Raises
    ------
    IndexOutOfRangeError, InvalidArgumentError, UnsupportedDTypeError
        As for :func:`gather` (the messages say ``indices`` and ``axis``).

    Examples
    --------
    >>> import torch
    >>> from axisops import torch as ax
    >>> t = torch.tensor([[10, 30, 20], [60, 40, 50]])
    >>> ax.take_along_dim(t, torch.argmax(t, dim=1, keepdim=True), dim=1)
    tensor([[30],
            [60]])
    >>> ax.take_along_dim(t, torch.tensor([5, -6]))
    tensor([50, 10])
    """
    _need_tensor("input", input, "axisops.take_along_axis")
    if out is not None:
        _refuse_autograd("take_along_dim", input)
    if dim is None:
        _need_tensor("indices", indices, "axisops.take_along_axis")
        result = _take_along_axis(input.reshape(-1), indices.reshape(-1), axis=0)
    else:
        result = _take_along_axis(input, indices, axis=dim)
    if out is None:
        return result
    return _write(result, _check_out("out", out, result, "take_along_dim", input))
