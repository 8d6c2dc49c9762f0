"""The selection family (sort, kthvalue, partition) from stock torch operations, on any device.

Every element gets the int64 *order key* of :func:`axisops.kernels.torch.ops.order_key`
(integers exactly, floats through their bits with -0.0 onto +0.0 and every NaN onto
one key above +inf; as int32 keys of the same order for types of 32 bits or fewer,
:func:`key32`), and ``torch.sort(stable=True)`` of the keys gives the stable order:
equal keys keep their index order, ascending or descending.  Sorting keys rather
than values keeps the answer independent of how a device's sort compares
floats (zeros of either sign, NaNs with payloads) and of which dtypes it sorts.

- **sort**: the stable order; values are gathered from the input's own bits, so
  NaN payloads and the sign of zero survive;
- **kthvalue** (and median): position ``k - 1`` of the stable ascending order;
- **partition**: each element's stable rank ``r`` gives it a group, ``2 * (kths
  below r) + (1 if r is a kth)``; a stable sort of the groups lists the groups in
  position order and every group in index order, which is the contract's
  deterministic partition (the oracle, :mod:`axisops.reference.partition`, states
  it the same way).
"""

from __future__ import annotations

import torch

from ...requests import KthSpec, PartitionSpec, SortSpec
from .dtypes import contiguous_bits, signed_view
from .ops import _INF_BITS, gather_bits, order_key

__all__ = ["key32", "kthvalue", "partition", "sort", "stable_order"]

_INT32_MAX = 2**31 - 1
_INT32_MIN = -(2**31)


def stable_order(moved: torch.Tensor, descending: bool) -> torch.Tensor:
    """int64 indices of the stable sort of ``moved`` along its last dimension.

    >>> stable_order(torch.tensor([0.0, float("nan"), -0.0, 1.0]), False).tolist()
    [0, 2, 3, 1]
    >>> stable_order(torch.tensor([5, 7, 5, 7]), True).tolist()
    [1, 3, 0, 2]
    """
    key = key32(moved) if moved.element_size() <= 4 else order_key(moved, True)
    return torch.sort(key, dim=-1, descending=descending, stable=True).indices


def key32(x: torch.Tensor) -> torch.Tensor:
    """int32 order keys of a type of 32 bits or fewer: the order of
    :func:`~axisops.kernels.torch.ops.order_key`, in half its bytes (fewer bytes to
    build and to sort; a radix sort makes half the passes).

    Floats: the magnitude's bits, negated for negatives (-0.0 and +0.0 both 0), and
    every NaN the int32 maximum, above +inf's bits; uint32 through a flip of the sign
    bit; bool 1 for any non-zero byte; the other integer types as they are.

    >>> key32(torch.tensor([-0.0, 0.0, float("nan"), -1.0])).tolist()
    [0, 0, 2147483647, -1065353216]
    """
    if x.dtype.is_floating_point:
        bits = signed_view(x).to(torch.int32)
        width = x.element_size() * 8
        sign = 1 << (width - 1)
        magnitude = bits & (sign - 1)
        key = torch.where(bits < 0, -magnitude, magnitude)
        return key.masked_fill_(magnitude > _INF_BITS[x.dtype], _INT32_MAX)
    if x.dtype == torch.uint32:
        return signed_view(x) ^ _INT32_MIN
    if x.dtype == torch.bool:
        return (signed_view(x) != 0).to(torch.int32)
    if x.dtype == torch.uint16:
        return signed_view(x).to(torch.int32) & 0xFFFF
    return x.to(torch.int32)


def _empty_like(x: torch.Tensor, dtype: torch.dtype | None = None) -> torch.Tensor:
    return torch.empty(x.shape, dtype=dtype or x.dtype, device=x.device)


def sort(x: torch.Tensor, spec: SortSpec, values: bool = True, indices: bool = True
         ) -> tuple[torch.Tensor | None, torch.Tensor | None]:
    """``(values, indices)`` of the stable sort for a validated spec (``None`` for the one
    not asked for), contiguous, on ``x``'s device.

    >>> from axisops.requests import ArrayMeta
    >>> from axisops.rules.operations import sort_spec
    >>> import numpy as np
    >>> spec = sort_spec(ArrayMeta((4,), np.dtype("float32")), 0, True)
    >>> v, i = sort(torch.tensor([1.0, float("nan"), 3.0, 1.0]), spec)
    >>> v.tolist()[1:], i.tolist()
    ([3.0, 1.0, 1.0], [1, 2, 0, 3])
    """
    if x.numel() == 0:
        return (_empty_like(x) if values else None,
                _empty_like(x, torch.int64) if indices else None)
    moved = x.movedim(spec.axis, -1)
    order = stable_order(moved, spec.descending)
    got_values = contiguous_bits(gather_bits(moved, -1, order).movedim(-1, spec.axis)) \
        if values else None
    got_indices = order.movedim(-1, spec.axis).contiguous() if indices else None
    return got_values, got_indices


def kthvalue(x: torch.Tensor, spec: KthSpec) -> tuple[torch.Tensor, torch.Tensor]:
    """``(values, indices)`` at position ``spec.k - 1`` of the stable ascending order, of
    ``spec.out_shape``.

    >>> from axisops.requests import ArrayMeta
    >>> from axisops.rules.operations import kthvalue_spec
    >>> import numpy as np
    >>> spec = kthvalue_spec(ArrayMeta((5,), np.dtype("int64")), 4, 0, False)
    >>> [t.item() for t in kthvalue(torch.tensor([4, 1, 4, 1, 3]), spec)]
    [4, 0]
    """
    shape = spec.out_shape
    if x.numel() == 0:
        return (torch.empty(shape, dtype=x.dtype, device=x.device),
                torch.empty(shape, dtype=torch.int64, device=x.device))
    moved = x.movedim(spec.axis, -1)
    order = stable_order(moved, False)[..., spec.k - 1:spec.k]
    values = gather_bits(moved, -1, order)
    return contiguous_bits(values.reshape(shape)), order.reshape(shape).contiguous()


def partition(x: torch.Tensor, spec: PartitionSpec, values: bool = True,
              indices: bool = True) -> tuple[torch.Tensor | None, torch.Tensor | None]:
    """``(values, indices)`` of the deterministic partition at ``spec.kth`` (``None`` for the
    one not asked for), contiguous, on ``x``'s device.

    >>> from axisops.requests import ArrayMeta
    >>> from axisops.rules.operations import partition_spec
    >>> import numpy as np
    >>> spec = partition_spec(ArrayMeta((7,), np.dtype("float64")), 3, 0)
    >>> partition(torch.tensor([3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0]), spec)[1].tolist()
    [1, 3, 6, 0, 2, 4, 5]
    """
    if x.numel() == 0:
        return (_empty_like(x) if values else None,
                _empty_like(x, torch.int64) if indices else None)
    moved = x.movedim(spec.axis, -1)
    n = moved.shape[-1]
    if spec.kth:
        order = stable_order(moved, False)
        positions = torch.arange(n, device=x.device).expand(order.shape)
        rank = torch.empty(order.shape, dtype=torch.int64, device=x.device)
        rank.scatter_(-1, order, positions)
        kths = torch.tensor(spec.kth, dtype=torch.int64, device=x.device)
        group = (torch.searchsorted(kths, rank, right=False)
                 + torch.searchsorted(kths, rank, right=True))
        result = torch.sort(group, dim=-1, stable=True).indices
    else:  # one group: index order
        result = torch.arange(n, device=x.device).expand(moved.shape)
    got_values = contiguous_bits(gather_bits(moved, -1, result).movedim(-1, spec.axis)) \
        if values else None
    got_indices = result.movedim(-1, spec.axis).contiguous() if indices else None
    return got_values, got_indices
