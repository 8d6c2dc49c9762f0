"""The exact contract from stock torch operations: correct on every device.

This is the path CUDA tensors take when no custom kernel applies, and the
reference the Triton kernels are held to.  It runs on any torch device, CPU
included, so the tests call it directly on CPU tensors.

Top-k.  Every element gets an int64 *order key* whose ``>`` is the contract's
order: integers exactly (unsigned 64-bit through a flip of the sign bit, never
through float64), floats through their bits with -0.0 mapped onto +0.0 and
every NaN onto one key above +inf; ``largest=False`` takes the bitwise NOT of
the key (order-reversing, and unlike negation it cannot overflow).  Then

- for ``4 * k >= n``: a stable descending sort of the keys (equal keys keep
  index order), first ``k``;
- otherwise ``torch.topk`` of the keys gives the k-th key ``t`` exactly (torch
  agrees on *values*, only its order among ties is unspecified); the answer is
  every element with key > t plus the lowest-index elements with key == t, up
  to k in all, ordered by a stable sort of those k keys.

Values are gathered from the input's own bits, so NaN payloads and the sign
of zero survive.

Gather checks every index value first (two reductions; the first offender in
row-major order is located only when there is one), wraps negatives and
calls ``torch.gather`` on a same-width integer view of the input.
"""

from __future__ import annotations

import numpy as np
import torch

from ...requests import GatherSpec, TopKSpec
from ...rules.operations import raise_index_error
from .dtypes import SIGNED_BY_WIDTH, contiguous_bits, signed_view, torch_dtype

__all__ = [
    "as_index_dtype",
    "check_index",
    "gather",
    "gather_bits",
    "index_as_int64",
    "order_key",
    "topk",
]

_INT64_MIN = -(2**63)
_INT64_MAX = 2**63 - 1
#: Bits of +inf (magnitude) per float type: any larger magnitude is a NaN.
_INF_BITS = {
    torch.float16: 0x7C00,
    torch.bfloat16: 0x7F80,
    torch.float32: 0x7F800000,
    torch.float64: 0x7FF0000000000000,
}


def _unsigned_as_int64(t: torch.Tensor) -> torch.Tensor:
    """Unsigned 8/16/32-bit values, exactly, as int64."""
    width = t.element_size() * 8
    return signed_view(t).to(torch.int64) & ((1 << width) - 1)


def _float_key(x: torch.Tensor) -> torch.Tensor:
    width = x.element_size() * 8
    bits = signed_view(x).to(torch.int64)
    if width < 64:
        bits = bits & ((1 << width) - 1)
    sign = 1 << (width - 1)
    mag = bits & (sign - 1)
    negative = (bits & sign) != 0 if width < 64 else bits < 0
    key = torch.where(negative, -mag, mag)  # -0.0 and +0.0 both become 0
    return torch.where(mag > _INF_BITS[x.dtype], _INT64_MAX, key)


def order_key(x: torch.Tensor, largest: bool) -> torch.Tensor:
    """int64 keys ordered as the contract orders ``x`` (greatest first if ``largest``).

    Equal elements (ties, both zeros, all NaNs) get equal keys.

    >>> order_key(torch.tensor([-0.0, 0.0, float("nan"), float("inf")]), True).tolist()
    [0, 0, 9223372036854775807, 2139095040]
    """
    if x.dtype.is_floating_point:
        key = _float_key(x)
    elif x.dtype == torch.uint64:
        key = signed_view(x) ^ _INT64_MIN
    elif x.dtype == torch.bool:
        key = (signed_view(x) != 0).to(torch.int64)  # any non-zero byte is True
    elif not x.dtype.is_signed and x.element_size() < 8:
        key = _unsigned_as_int64(x)
    else:
        key = x.to(torch.int64)
    return key if largest else torch.bitwise_not(key)


def _stable_order(key: torch.Tensor, k: int) -> torch.Tensor:
    return torch.sort(key, dim=-1, descending=True, stable=True).indices[..., :k]


def _repaired_order(key: torch.Tensor, k: int) -> torch.Tensor:
    kth = torch.topk(key, k, dim=-1, largest=True, sorted=True).values[..., k - 1 :]
    greater = key > kth
    need = k - greater.sum(dim=-1, keepdim=True)
    equal = key == kth
    rank_dtype = torch.int32 if key.shape[-1] < 2**31 else torch.int64
    take = greater | (equal & (torch.cumsum(equal, dim=-1, dtype=rank_dtype) <= need))
    # Exactly k per sequence; nonzero lists them in row-major, so in index order.
    chosen = take.nonzero()[:, -1].reshape(*key.shape[:-1], k)
    by_key = torch.sort(torch.gather(key, -1, chosen), dim=-1, descending=True, stable=True)
    return torch.gather(chosen, -1, by_key.indices)


def gather_bits(x: torch.Tensor, dim: int, index: torch.Tensor) -> torch.Tensor:
    """``torch.gather`` on the bits of ``x`` (works for every dtype, unsigned ones too)."""
    bits = signed_view(x)
    return torch.gather(bits, dim, index).view(x.dtype)


def as_index_dtype(order: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """int64 indices as ``dtype`` (uint16/32/64 through the signed type of their width)."""
    if dtype.is_signed or dtype == torch.uint8:
        return order.to(dtype)
    # torch lacks most kernels for uint16/32/64: cast to the signed type of the
    # same width (a modular truncation, so the bits are right) and view.
    return order.to(SIGNED_BY_WIDTH[dtype.itemsize]).view(dtype)


def topk(x: torch.Tensor, spec: TopKSpec) -> tuple[torch.Tensor, torch.Tensor]:
    """``(values, indices)`` of the contract for a validated spec, on ``x``'s device.

    >>> from axisops.requests import ArrayMeta
    >>> from axisops.rules.operations import topk_spec
    >>> import numpy as np
    >>> t = torch.tensor([1.0, 3.0, 3.0, float("nan")])
    >>> spec = topk_spec(ArrayMeta((4,), np.dtype("float32")), 3, -1, True, True, None)
    >>> topk(t, spec)[1].tolist()
    [3, 1, 2]
    """
    moved = x.movedim(spec.axis, -1)
    index_dtype = torch_dtype(spec.index_dtype)
    k = spec.k
    out_shape = (*moved.shape[:-1], k)
    if k == 0 or moved.numel() == 0:
        values = torch.empty(out_shape, dtype=x.dtype, device=x.device)
        indices = torch.empty(out_shape, dtype=index_dtype, device=x.device)
    else:
        key = order_key(moved, spec.largest)
        n = moved.shape[-1]
        order = _stable_order(key, k) if 4 * k >= n else _repaired_order(key, k)
        values = gather_bits(moved, -1, order)
        indices = as_index_dtype(order, index_dtype)
    return (
        contiguous_bits(values.movedim(-1, spec.axis)),
        indices.movedim(-1, spec.axis).contiguous(),
    )


def index_as_int64(index: torch.Tensor) -> tuple[torch.Tensor, bool]:
    """``(wide, wrapped)``: index values as int64, exactly unless ``wrapped``.

    ``wrapped`` is True for uint64, whose values >= 2**63 appear negative in
    ``wide`` (they are out of range for any axis, and are reported as such).
    """
    if index.dtype == torch.uint64:
        return signed_view(index), True
    if not index.dtype.is_signed and index.dtype != torch.uint8:
        return _unsigned_as_int64(index), False
    return index.to(torch.int64), False


def _report_first_bad(wide: torch.Tensor, bad: torch.Tensor, wrapped: bool, spec: GatherSpec):
    first = bad.flatten().nonzero()[0].item()
    value = int(wide.flatten()[first].item())
    if wrapped and value < 0:
        value += 2**64
    position = tuple(int(p) for p in np.unravel_index(first, tuple(wide.shape)))
    raise_index_error(spec, position, value)


def check_index(index: torch.Tensor, spec: GatherSpec) -> torch.Tensor:
    """int64 index values in ``[0, n)``, or the contract's error for the first bad one."""
    wide, wrapped = index_as_int64(index)
    n = spec.n
    if wide.numel() == 0:
        return wide
    low = 0 if wrapped else -n
    least, most = torch.stack((wide.min(), wide.max())).tolist()  # one read-back, not two
    if least < low or most > n - 1:
        _report_first_bad(wide, (wide < low) | (wide > n - 1), wrapped, spec)
    return torch.where(wide < 0, wide + n, wide)


def gather(x: torch.Tensor, index: torch.Tensor, spec: GatherSpec) -> torch.Tensor:
    """torch.gather semantics for a validated spec, index values checked first.

    >>> from axisops.requests import ArrayMeta
    >>> from axisops.rules.operations import gather_spec
    >>> import numpy as np
    >>> x = torch.tensor([[1, 2, 3], [4, 5, 6]])
    >>> i = torch.tensor([[2, -3], [0, 1]])
    >>> m = lambda a: ArrayMeta(tuple(a.shape), np.dtype("int64"))
    >>> gather(x, i, gather_spec(m(x), 1, m(i))).tolist()
    [[3, 1], [4, 5]]
    """
    wide = check_index(index, spec)
    extent = tuple(
        slice(None) if d == spec.dim else slice(0, s) for d, s in enumerate(spec.index_shape)
    )
    return gather_bits(x[extent], spec.dim, wide).contiguous()
