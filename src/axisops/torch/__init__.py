"""Drop-ins for ``torch.topk``, ``torch.gather``, ``torch.take_along_dim``, the sorting
family (``torch.sort``, ``argsort``, ``msort``, ``kthvalue`` and ``median``) and the
quantile family (``torch.quantile``, ``nanquantile`` and ``nanmedian``).

Code written against torch can swap the import and keep its calls::

    from axisops import torch as ax
    values, indices = ax.topk(logits, 2, dim=-1)
    picked = ax.gather(table, 1, indices)

Each takes every argument torch's function takes (``out=`` with torch's
resize and dtype rules, ``sparse_grad=``) and returns what torch's returns
(``torch.return_types.topk``, or ``topk_out`` with ``out=``; ``sort``,
``kthvalue`` and ``median`` likewise).  An ``out=`` tensor that shares memory
with an input (or with the other ``out=`` tensor) is refused: inputs are never
written.  Errors are the library's, raised as their ``Torch`` variants
(:class:`~axisops.errors.TorchInvalidArgumentError`...), which are also
``RuntimeError`` as torch's own errors are.  They are the
public functions with torch's signatures (``gather(sparse_grad=True)`` runs the
``axisops::gather`` operator, see :mod:`axisops.torch.library`), so
autograd, ``torch.func`` and ``torch.compile`` work as with
:func:`axisops.topk`.  What changes is the answer: ties go to the lower index,
NaN is greater than +inf, -0.0 equals +0.0 and integers compare exactly, the
same on every device; ``gather`` also takes negative indices and checks every
index; ``sort`` is always stable (in both directions), and ``kthvalue`` and
``median`` pick the element the stable sort puts at that position.  Importing
this module imports torch (``import axisops`` does not) and registers the
operators, so ``torch.ops.axisops.topk`` and the others can be called directly
from then on.

>>> import torch
>>> from axisops import torch as ax
>>> ax.topk(torch.tensor([1.0, 3.0, 3.0, 2.0]), 2)
torch.return_types.topk(
values=tensor([3., 3.]),
indices=tensor([1, 2]))
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import torch

from ..api import argsort as _argsort
from ..api import gather as _gather
from ..api import kthvalue as _kthvalue
from ..api import median as _median
from ..api import nanmedian as _nanmedian
from ..api import take_along_axis as _take_along_axis
from ..api import topk as _topk
from ..errors import boundary
from ..kernels.torch.dtypes import keep_bytes, reshape_bits
from ..rules.arguments import as_bool, as_int
from ..rules.operations import gather_spec, sort_spec
from ..rules.quantile import check_torch_q, quantile_spec
from ..rules.torch_out import (
    check_out_pair,
    check_out_tensor,
    need_type,
    refuse_out_with_grad,
    refuse_shared_out,
)
from ..runner import Call
from . import library  # noqa: F401  (registers the axisops:: operators)

__all__ = ["argsort", "gather", "kthvalue", "median", "msort", "nanmedian", "nanquantile",
           "quantile", "sort", "take_along_dim", "topk"]


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


def _write(outs: dict[str, tuple[torch.Tensor, torch.Tensor]], inputs: dict[str, Any]
           ) -> None:
    """Write each ``(out, result)`` of ``outs`` (by argument name), as torch writes ``out=``
    tensors, once none shares memory with an input or with another: out= is written,
    an input never is.  ``inputs``: the call's arguments by name (tensors are checked).
    """
    placed = {name: (t, tuple(t.shape)) for name, t in inputs.items()
              if isinstance(t, torch.Tensor)}
    for name, (out, result) in outs.items():
        shape = tuple(result.shape)
        for other, (tensor, other_shape) in placed.items():
            refuse_shared_out(name, tuple(out.shape), shape, other,
                              _shares(out, shape, tensor, other_shape))
        placed[name] = (out, shape)
    for out, result in outs.values():
        _resize(out, result.shape)
    for out, result in outs.values():
        keep_bytes(out).copy_(keep_bytes(result))


def _resize(out: torch.Tensor, shape: torch.Size) -> None:
    """Resize ``out`` as torch resizes an ``out=`` tensor: one of the right shape keeps its
    strides (a strided view is written in place); one of another shape is resized, with
    torch's warning unless it was empty."""
    if out.shape == shape:
        return
    if out.numel() != 0:
        warnings.warn(
            f"An output with one or more elements was resized since it had shape "
            f"{list(out.shape)}, which does not match the required output shape "
            f"{list(shape)}. This behavior is deprecated, and in a future PyTorch "
            f"release outputs will not be resized unless they have zero elements. You "
            f"can explicitly reuse an out tensor t by resizing it, inplace, to zero "
            f"elements with t.resize_(0).",
            UserWarning,
            stacklevel=6,  # the user's call: drop-in, boundary, _one_out or _pair_out
        )
    out.resize_(shape)


def _shares(a: torch.Tensor, a_shape: tuple[int, ...], b: torch.Tensor,
            b_shape: tuple[int, ...]) -> bool:
    """Whether ``a`` and ``b``, once of the shapes given (an out= tensor takes its result's
    by ``resize_``), may share a byte: their address ranges meet (a tensor interleaved
    with another counts), or a resize moves a storage they share."""
    if a.device != b.device or a.device.type == "meta" or 0 in (math.prod(a_shape),
                                                                   math.prod(b_shape)):
        return False
    if _reallocates(a, a_shape) or _reallocates(b, b_shape):
        base = a.untyped_storage().data_ptr()  # 0: an empty storage, memory of no one's
        return base != 0 and base == b.untyped_storage().data_ptr()
    (a_low, a_high), (b_low, b_high) = _span(a, a_shape), _span(b, b_shape)
    return a_low < b_high and b_low < a_high


def _reallocates(t: torch.Tensor, shape: tuple[int, ...]) -> bool:
    """Whether ``t.resize_(shape)`` moves ``t``'s storage (with every view of it)."""
    needed = (t.storage_offset() + math.prod(shape)) * t.element_size()
    return shape != tuple(t.shape) and needed > t.untyped_storage().nbytes()


def _span(t: torch.Tensor, shape: tuple[int, ...]) -> tuple[int, int]:
    """The addresses ``[low, high)`` of ``t``'s bytes once of ``shape`` without moving:
    its own strides, or contiguous from its first element once resized (from its storage,
    since an empty tensor's ``data_ptr()`` is 0)."""
    if shape == tuple(t.shape):
        last = sum(stride * (n - 1) for stride, n in zip(t.stride(), shape))
    else:
        last = math.prod(shape) - 1
    low = t.untyped_storage().data_ptr() + t.storage_offset() * t.element_size()
    return low, low + (last + 1) * t.element_size()


@boundary("topk", torch=True)
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
        not two tensors on ``input``'s device, shares memory with ``input`` or each
        other, or comes with autograd.
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
    if out is not None:
        _check_pair("topk", input, out)
    values, indices = _topk(input, k, _int_dim(dim), largest=largest, sorted=sorted)
    return _pair_out("topk", input, out, values, indices)


@boundary("gather", torch=True)
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
    return _one_out("gather", out, result, {"input": input, "index": index})


def _sparse_gather(input: torch.Tensor, dim: int, index: Any) -> torch.Tensor:
    """``gather`` whose gradient in ``input`` is sparse: the operator's own argument, which
    the runner passes to it."""
    call = Call(input)
    idx = call.index(index)
    return call.run(gather_spec(call.meta(), dim, call.meta(idx, "index")), idx,
                    sparse_grad=True)


@boundary("take_along_dim", torch=True)
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
        result = _take_along_axis(reshape_bits(input, (-1,)), indices.reshape(-1), axis=0)
    else:
        result = _take_along_axis(input, indices, axis=dim)
    if out is None:
        return result
    return _one_out("take_along_dim", out, result, {"input": input, "indices": indices})


# ---- the sorting family -----------------------------------------------------------------------


def _pair_out(function: str, input: torch.Tensor, out: Any, values: torch.Tensor,
              indices: torch.Tensor) -> Any:
    """``(values, indices)`` as torch's ``function`` returns them (0-d for a 0-d ``input``),
    written into the ``out`` pair when there is one (checked as torch checks it)."""
    if input.dim() == 0:
        values, indices = values.reshape(()), indices.reshape(())
    if out is None:
        return getattr(torch.return_types, function)((values, indices))
    out_values = _check_out("out[0]", out[0], values, function, input)
    out_indices = _check_out("out[1]", out[1], indices, function, input)
    _write({"out[0]": (out_values, values), "out[1]": (out_indices, indices)},
           {"input": input})
    return getattr(torch.return_types, f"{function}_out")((out_values, out_indices))


def _one_out(function: str, out: Any, result: torch.Tensor, inputs: dict[str, Any]
             ) -> torch.Tensor:
    """``result`` written into ``out`` (checked as torch checks it); ``inputs``: the tensor
    arguments by name, ``input`` among them."""
    checked = _check_out("out", out, result, function, inputs["input"])
    _write({"out": (checked, result)}, inputs)
    return checked


def _check_pair(function: str, input: torch.Tensor, out: Any) -> None:
    check_out_pair(out, isinstance(out, (tuple, list)) and len(out) == 2)
    _refuse_autograd(function, input)


def _int_dim(dim: Any) -> Any:
    """``dim`` of the drop-ins whose torch function takes an int only (topk, argsort,
    kthvalue): ``None`` is refused, as torch refuses it (the public functions flatten for
    ``axis=None``); any other value is checked as the public function's ``axis``."""
    if dim is None:
        as_int("dim", dim)  # raises: None is not an integer
    return dim


def _as_1d(input: torch.Tensor) -> torch.Tensor:
    """A 0-d tensor as one element along dim 0 (torch takes dim 0 or -1 of a 0-d tensor)."""
    return input.reshape(1) if input.dim() == 0 else input


def _sorted_pair(input: torch.Tensor, dim: Any, descending: Any) -> tuple[Any, Any]:
    """Values and indices of one stable sort (one call of the runner, as the public
    functions make)."""
    call = Call(_as_1d(input))
    values, indices = call.run(sort_spec(call.meta(), dim, descending))
    if input.dim() == 0:
        return values.reshape(()), indices.reshape(())
    return values, indices


@boundary("sort", torch=True)
def sort(
    input: torch.Tensor,
    dim: int = -1,
    descending: bool = False,
    stable: bool = True,
    *,
    out: tuple[torch.Tensor, torch.Tensor] | None = None,
) -> Any:
    """``torch.sort`` with the axisops contract: always stable.

    Parameters
    ----------
    input : torch.Tensor
        Any device, any dtype axisops sorts (bool, integers, float16, bfloat16,
        float32, float64); a 0-d tensor is one element (``dim`` 0 or -1).
    dim : int, optional
        The dimension to sort along (the last by default).
    descending : bool, optional
        Greatest first.  Equal elements keep their index order in both directions.
    stable : bool, optional
        Accepted for torch's signature; ``False`` is just as stable (the sort is
        always stable, which ``stable=False`` allows).
    out : tuple of two torch.Tensor, optional
        ``(values, indices)`` to write into, with torch's dtype, device and resize
        rules (as :func:`topk`'s).  Not with autograd.

    Returns
    -------
    torch.return_types.sort
        ``(values, indices)``: ``values`` differentiable (the gradient goes to each
        element's own position), ``indices`` int64.  With ``out``,
        ``torch.return_types.sort_out``.

    Raises
    ------
    InvalidArgumentError
        ``input`` is not a tensor, a bad ``dim``, ``descending`` or ``stable``, or a
        bad ``out``.
    UnsupportedDTypeError
        A dtype sort does not take (complex), or an ``out`` tensor of another dtype.

    Examples
    --------
    >>> import torch
    >>> from axisops import torch as ax
    >>> ax.sort(torch.tensor([2.0, float("nan"), -0.0, 0.0, 2.0]), descending=True)
    torch.return_types.sort(
    values=tensor([nan, 2., 2., -0., 0.]),
    indices=tensor([1, 0, 4, 2, 3]))
    """
    _need_tensor("input", input, "axisops.sort")
    as_bool("stable", stable)
    if out is not None:
        _check_pair("sort", input, out)
    return _pair_out("sort", input, out, *_sorted_pair(input, dim, descending))


@boundary("argsort", torch=True)
def argsort(
    input: torch.Tensor,
    dim: int = -1,
    descending: bool = False,
    stable: bool = True,
    *,
    out: torch.Tensor | None = None,
) -> torch.Tensor:
    """``torch.argsort`` with the axisops contract: the indices of the stable sort.

    Parameters
    ----------
    input : torch.Tensor
        As for :func:`sort`.
    dim : int, optional
        The dimension to sort along (the last by default).
    descending : bool, optional
        Greatest first; equal elements still in increasing index order.
    stable : bool, optional
        Accepted for torch's signature; ``False`` is just as stable.
    out : torch.Tensor, optional
        An int64 tensor on ``input``'s device to write into (resized as torch resizes
        it), sharing no memory with ``input``.  Not with autograd.

    Returns
    -------
    torch.Tensor
        int64 indices of ``input``'s shape.  With ``out``, ``out``.

    Raises
    ------
    InvalidArgumentError, UnsupportedDTypeError
        As for :func:`sort`.

    Examples
    --------
    >>> import torch
    >>> from axisops import torch as ax
    >>> ax.argsort(torch.tensor([5, 7, 5, 7]), descending=True)
    tensor([1, 3, 0, 2])
    """
    _need_tensor("input", input, "axisops.argsort")
    as_bool("stable", stable)
    if out is not None:
        _refuse_autograd("argsort", input)
    indices = _argsort(_as_1d(input), _int_dim(dim), descending=descending)
    if input.dim() == 0:
        indices = indices.reshape(())
    return indices if out is None else _one_out("argsort", out, indices, {"input": input})


@boundary("msort", torch=True)
def msort(input: torch.Tensor, *, out: torch.Tensor | None = None) -> torch.Tensor:
    """``torch.msort`` with the axisops contract: the values of the stable sort along dim 0.

    Parameters
    ----------
    input : torch.Tensor
        As for :func:`sort`.
    out : torch.Tensor, optional
        A tensor of ``input``'s dtype and device to write into (resized as torch
        resizes it).  Not with autograd.

    Returns
    -------
    torch.Tensor
        ``sort(input, dim=0).values``.  With ``out``, ``out``.

    Examples
    --------
    >>> import torch
    >>> from axisops import torch as ax
    >>> ax.msort(torch.tensor([[3, 1], [2, 4]]))
    tensor([[2, 1],
            [3, 4]])
    """
    _need_tensor("input", input, "axisops.sort")
    if out is not None:
        _refuse_autograd("msort", input)
    values = _sorted_pair(input, 0, False)[0]
    if out is None:
        return values
    return _one_out("msort", out, values, {"input": input})


@boundary("kthvalue", torch=True)
def kthvalue(
    input: torch.Tensor,
    k: int,
    dim: int = -1,
    keepdim: bool = False,
    *,
    out: tuple[torch.Tensor, torch.Tensor] | None = None,
) -> Any:
    """``torch.kthvalue`` with the axisops contract.

    The ``k``-th smallest element (1-based) of every sequence along ``dim`` and its
    index, as the stable sort orders them: among equal elements the one of lower
    index comes first, NaN is greater than +inf, -0.0 equals +0.0.

    Parameters
    ----------
    input : torch.Tensor
        As for :func:`sort`.
    k : int
        ``1 <= k <= input.shape[dim]`` (a ``torch.SymInt`` under ``torch.compile``
        stays symbolic).
    dim : int, optional
        The dimension to select along (the last by default).
    keepdim : bool, optional
        Keep ``dim`` in the results, with size 1.
    out : tuple of two torch.Tensor, optional
        ``(values, indices)`` to write into, as for :func:`sort`.

    Returns
    -------
    torch.return_types.kthvalue
        ``(values, indices)``; ``values`` differentiable (the gradient goes to the
        chosen element), ``indices`` int64.  With ``out``,
        ``torch.return_types.kthvalue_out``.

    Raises
    ------
    InvalidArgumentError
        ``input`` is not a tensor, a bad ``k``, ``dim`` or ``keepdim``, or a bad
        ``out``.
    UnsupportedDTypeError
        As for :func:`sort`.

    Examples
    --------
    >>> import torch
    >>> from axisops import torch as ax
    >>> ax.kthvalue(torch.tensor([4, 1, 4, 1, 3]), 4)
    torch.return_types.kthvalue(
    values=tensor(4),
    indices=tensor(0))
    """
    _need_tensor("input", input, "axisops.kthvalue")
    if out is not None:
        _check_pair("kthvalue", input, out)
    return _pair_out("kthvalue", input, out,
                     *_kthvalue(_as_1d(input), k, _int_dim(dim), keepdims=keepdim))


@boundary("median", torch=True)
def median(
    input: torch.Tensor,
    dim: int | None = None,
    keepdim: bool = False,
    *,
    out: Any = None,
) -> Any:
    """``torch.median`` with the axisops contract: the lower median, an element of ``input``.

    ``median(input)`` is the lower median of all elements (a 0-d tensor, value only);
    ``median(input, dim)`` that of every sequence along ``dim`` and its index:
    ``kthvalue(input, (n - 1) // 2 + 1, dim)``, so among equal elements the one of
    lower index.  NaN is greater than +inf here as everywhere in axisops, so a NaN
    is the median only when it sits in the middle of the stable order (more than
    half of the sequence, counting the middle, is NaN); ``torch.median`` returns
    NaN as soon as one element is NaN (``torch.nanmedian`` skips them).

    Parameters
    ----------
    input : torch.Tensor
        As for :func:`sort`, with at least one element (along ``dim``).
    dim : int, optional
        The dimension to reduce; without it, every element.
    keepdim : bool, optional
        Keep ``dim`` in the results, with size 1 (without ``dim``: every dimension,
        with size 1).
    out : torch.Tensor or tuple of two torch.Tensor, optional
        With ``dim``, ``(values, indices)`` as for :func:`kthvalue`; without, one
        tensor for the value.  Not with autograd.

    Returns
    -------
    torch.Tensor or torch.return_types.median
        Without ``dim``, the median (differentiable: its gradient goes to that
        element).  With ``dim``, ``(values, indices)``; with ``out``,
        ``torch.return_types.median_out``.

    Raises
    ------
    InvalidArgumentError
        ``input`` is not a tensor or has no element (along ``dim``), a bad ``dim``
        or ``keepdim``, or a bad ``out``.
    UnsupportedDTypeError
        As for :func:`sort`.

    Examples
    --------
    >>> import torch
    >>> from axisops import torch as ax
    >>> ax.median(torch.tensor([[4.0, 1.0], [3.0, 2.0]]))
    tensor(2.)
    >>> ax.median(torch.tensor([[4.0, 1.0, 1.0], [3.0, 2.0, 9.0]]), dim=1).indices
    tensor([2, 0])
    """
    _need_tensor("input", input, "axisops.median")
    if dim is None:
        if out is not None:
            _refuse_autograd("median", input)
        value = _median(reshape_bits(input, (-1,)), 0).values
        if as_bool("keepdim", keepdim):
            value = value.reshape((1,) * input.dim())
        if out is None:
            return value
        return _one_out("median", out, value, {"input": input})
    if out is not None:
        _check_pair("median", input, out)
    return _pair_out("median", input, out, *_median(_as_1d(input), dim, keepdims=keepdim))


@boundary("nanmedian", torch=True)
def nanmedian(
    input: torch.Tensor,
    dim: int | None = None,
    keepdim: bool = False,
    *,
    out: Any = None,
) -> Any:
    """``torch.nanmedian`` with the axisops contract: the lower median of the non-NaN elements.

    ``nanmedian(input, dim)`` is, for every sequence along ``dim`` with ``v`` non-NaN
    elements, the one of stable rank ``(v - 1) // 2`` and its index (among equal elements
    the one of lower index); a sequence of NaN only gives its own lower median, a NaN, as
    torch does.  Without ``dim``, the lower median of every non-NaN element (a 0-d tensor,
    value only).

    Parameters
    ----------
    input : torch.Tensor
        As for :func:`sort`, with at least one element (along ``dim``).
    dim : int, optional
        The dimension to reduce; without it, every element.
    keepdim : bool, optional
        Keep ``dim`` in the results, with size 1 (without ``dim``: every dimension).
    out : torch.Tensor or tuple of two torch.Tensor, optional
        As for :func:`median`.

    Returns
    -------
    torch.Tensor or torch.return_types.nanmedian
        As for :func:`median` (differentiable: the gradient goes to the median element).

    Raises
    ------
    InvalidArgumentError, UnsupportedDTypeError
        As for :func:`median`.

    Examples
    --------
    >>> import torch
    >>> from axisops import torch as ax
    >>> t = torch.tensor([[4.0, float("nan"), 1.0, 3.0], [float("nan")] * 4])
    >>> ax.nanmedian(t, dim=1)
    torch.return_types.nanmedian(
    values=tensor([3., nan]),
    indices=tensor([3, 1]))
    >>> ax.nanmedian(t)
    tensor(3.)
    """
    _need_tensor("input", input, "axisops.nanmedian")
    if dim is None:
        if out is not None:
            _refuse_autograd("nanmedian", input)
        value = _nanmedian(reshape_bits(input, (-1,)), 0).values
        if as_bool("keepdim", keepdim):
            value = value.reshape((1,) * input.dim())
        if out is None:
            return value
        return _one_out("nanmedian", out, value, {"input": input})
    if out is not None:
        _check_pair("nanmedian", input, out)
    return _pair_out("nanmedian", input, out,
                     *_nanmedian(_as_1d(input), dim, keepdims=keepdim))


def _torch_q(input: torch.Tensor, q: Any) -> Any:
    """``q`` as torch takes it: a number, or a tensor of ``input``'s dtype and device with at
    most one dimension (checked here; its values by the rules).  Under ``torch.compile`` a
    tensor's values are not known until it runs: the spec is made of zeros of its shape,
    and the operator's kernel checks and reads the tensor itself."""
    if isinstance(q, torch.Tensor):
        check_torch_q(q.dtype, input.dtype, q.dim(), q.device, input.device)
        if torch.compiler.is_compiling():  # zeros of its shape, held in input's dtype
            return [0.0] * q.shape[0] if q.dim() else 0.0
    return q


def _quantile(function: str, input: torch.Tensor, q: Any, dim: Any, keepdim: Any,
              interpolation: Any, out: Any, skipnan: bool) -> torch.Tensor:
    _need_tensor("input", input, f"axisops.{function}")
    if out is not None:
        _refuse_autograd(function, input)
    keep = as_bool("keepdim", keepdim)
    call = Call(reshape_bits(input, (-1,)) if dim is None else _as_1d(input))
    traced = isinstance(q, torch.Tensor) and torch.compiler.is_compiling()
    spec = quantile_spec(call.meta(), _torch_q(input, q), 0 if dim is None else dim,
                         interpolation, keep and dim is not None, skipnan, flavour="torch")
    below, _, above, _, weights = call.run(spec, q if traced else None, want=(False, True))
    interpolates = spec.method in ("linear", "midpoint")
    values = torch.lerp(below, above, weights) if interpolates else below
    if dim is None and keep:
        values = values.reshape(spec.q_shape + (1,) * input.dim())
    elif input.dim() == 0:
        values = values.reshape(spec.q_shape)
    if out is None:
        return values
    return _one_out(function, out, values, {"input": input})


@boundary("quantile", torch=True)
def quantile(
    input: torch.Tensor,
    q: Any,
    dim: int | None = None,
    keepdim: bool = False,
    *,
    interpolation: str = "linear",
    out: torch.Tensor | None = None,
) -> torch.Tensor:
    """``torch.quantile`` with the axisops contract, of any size.

    torch's ranks and interpolation: ``q`` in ``input``'s dtype, the rank ``q * (n - 1)``
    in it, rounded down, up or to the nearest even (``lower``, ``higher``, ``nearest``) or
    interpolated by ``torch.lerp`` (``linear``; ``midpoint`` with weight 0.5).  What
    changes is the order the ranks are read from: the contract's stable order, NaN greater
    than +inf (so a NaN comes out where the ranks read one; ``torch.quantile`` gives NaN
    for a sequence as soon as it holds one), and the element of each rank found by
    selection; inputs of more than 2**24 elements along ``dim``, which ``torch.quantile``
    refuses, work (their ranks are computed in ``input``'s dtype, as torch computes them).

    Parameters
    ----------
    input : torch.Tensor
        float32 or float64 (as torch's), any device.
    q : float or torch.Tensor
        Probabilities in ``[0, 1]``: a number, or a tensor of ``input``'s dtype and device
        with at most one dimension, which leads the result's shape.
    dim : int, optional
        The dimension to reduce; without it, every element.
    keepdim : bool, optional
        Keep ``dim`` (every dimension without ``dim``) with size 1.
    interpolation : str, optional
        ``"linear"`` (default), ``"lower"``, ``"higher"``, ``"midpoint"`` or ``"nearest"``.
    out : torch.Tensor, optional
        A tensor of ``input``'s dtype and device to write into.  Not with autograd.

    Returns
    -------
    torch.Tensor
        ``q``'s shape, then ``input``'s without ``dim``; differentiable (the gradient goes
        to the one or two elements each quantile reads, as torch's).

    Raises
    ------
    InvalidArgumentError
        A ``q`` out of range or of more than one dimension, a bad ``dim``,
        ``interpolation`` or ``keepdim``, an empty ``input``, or a bad ``out``.
    UnsupportedDTypeError
        An ``input`` that is not float32 or float64, or a ``q`` tensor of another dtype.

    Examples
    --------
    >>> import torch
    >>> from axisops import torch as ax
    >>> t = torch.tensor([[0.0, 1.0, 2.0, 3.0], [4.0, 8.0, float("nan"), 6.0]])
    >>> ax.quantile(t, 0.5, dim=1)
    tensor([1.5000, 7.0000])
    >>> ax.quantile(t, torch.tensor([0.25, 1.0]), dim=1, interpolation="lower")
    tensor([[0., 4.],
            [3., nan]])
    """
    return _quantile("quantile", input, q, dim, keepdim, interpolation, out, False)


@boundary("nanquantile", torch=True)
def nanquantile(
    input: torch.Tensor,
    q: Any,
    dim: int | None = None,
    keepdim: bool = False,
    *,
    interpolation: str = "linear",
    out: torch.Tensor | None = None,
) -> torch.Tensor:
    """``torch.nanquantile`` with the axisops contract, of any size: :func:`quantile` of the
    non-NaN elements of every sequence (its ``v`` of them, the stable ranks ``0 .. v - 1``),
    NaN for a sequence of NaN only, as torch gives.

    Parameters
    ----------
    input, q, dim, keepdim, interpolation, out
        As for :func:`quantile`.

    Returns
    -------
    torch.Tensor
        As for :func:`quantile`.

    Raises
    ------
    InvalidArgumentError, UnsupportedDTypeError
        As for :func:`quantile`.

    Examples
    --------
    >>> import torch
    >>> from axisops import torch as ax
    >>> t = torch.tensor([[0.0, 1.0, float("nan"), 3.0], [float("nan")] * 4])
    >>> ax.nanquantile(t, 0.5, dim=1)
    tensor([1., nan])
    """
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, out, True)
