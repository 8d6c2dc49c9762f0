"""Drop-ins for ``torch.topk`` and ``torch.gather``: torch's signatures, axisops' contract.

Code written against torch can swap the import and keep its calls::

    from axisops import torch as ax
    values, indices = ax.topk(logits, 2, dim=-1)
    picked = ax.gather(table, 1, indices)

Both run the ``axisops::`` torch operators (see
:mod:`axisops.kernels.torch.library`), so autograd and ``torch.compile`` work
as with :func:`axisops.topk`.  What changes is the answer: ties go to the
lower index, NaN is greater than +inf, -0.0 equals +0.0 and integers compare
exactly, the same on every device; ``gather`` also takes negative indices and
checks every index.  Importing this module imports torch (``import axisops``
does not) and registers the operators, so ``torch.ops.axisops.topk`` and the
others can be called directly from then on.

>>> import torch
>>> from axisops import torch as ax
>>> ax.topk(torch.tensor([1.0, 3.0, 3.0, 2.0]), 2)
TopK(values=tensor([3., 3.]), indices=tensor([1, 2]))
"""

from __future__ import annotations

import torch

from .api import TopK
from .api import gather as _gather
from .api import topk as _topk
from .errors import InvalidArgumentError, boundary
from .kernels.torch import library as _library  # noqa: F401  (registers the axisops:: operators)

__all__ = ["TopK", "gather", "topk"]


def _need_tensor(name: str, value: object, any_array: str) -> None:
    if not isinstance(value, torch.Tensor):
        raise InvalidArgumentError(
            f"{name} is a {type(value).__name__}, not a torch.Tensor "
            f"(axisops.torch takes tensors; {any_array} takes any array)"
        )


@boundary("topk")
def topk(
    input: torch.Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True
) -> TopK:
    """``torch.topk`` with the axisops contract.

    Parameters
    ----------
    input : torch.Tensor
        Any device, any dtype axisops supports.
    k : int
        How many elements to keep along ``dim``.
    dim : int, optional
        The dimension to select along (the last by default).
    largest : bool, optional
        The greatest (default) or the least elements.
    sorted : bool, optional
        ``False`` allows the k elements in any order.

    Returns
    -------
    TopK
        ``(values, indices)``: ``values`` carries autograd history when ``input``
        requires grad; ``indices`` are int64 and never do.

    Raises
    ------
    InvalidArgumentError
        ``input`` is not a tensor, or a bad ``k`` or ``dim`` (raised while tracing
        under ``torch.compile``, where the shapes are known).

    Examples
    --------
    >>> import torch
    >>> from axisops import torch as ax
    >>> ax.topk(torch.tensor([[0.0, -0.0, 5.0]]), k=2, dim=1, largest=False).indices
    tensor([[0, 1]])
    """
    _need_tensor("input", input, "axisops.topk")
    return _topk(input, k, dim, largest=largest, sorted=sorted)


@boundary("gather")
def gather(input: torch.Tensor, dim: int, index: torch.Tensor) -> torch.Tensor:
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

    Returns
    -------
    torch.Tensor
        ``index``'s shape, ``input``'s dtype and device; differentiable in ``input``
        (repeated indices add up in the gradient).

    Raises
    ------
    IndexOutOfRangeError
        An index value outside ``[-n, n-1]``.
    InvalidArgumentError
        ``input`` is not a tensor, or a bad ``dim`` or shape.

    Examples
    --------
    >>> import torch
    >>> from axisops import torch as ax
    >>> ax.gather(torch.tensor([[1, 2], [3, 4]]), dim=1, index=torch.tensor([[1], [-2]]))
    tensor([[2],
            [3]])
    """
    _need_tensor("input", input, "axisops.gather")
    return _gather(input, dim, index)
