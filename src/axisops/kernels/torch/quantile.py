"""The quantile family in stock torch operations, on any device (the ``"torch"`` engine), and
NumPy's interpolation in torch operations (the ``axisops::quantile`` operator's callers).

The order is the selection family's (:func:`axisops.kernels.torch.select.stable_order`:
a stable sort of exact order keys); the plan of ranks and weights is NumPy's arithmetic on
the host (:func:`axisops.kernels.quantile.plans`: one plan for every sequence, or one per
count of non-NaN elements, which come to the host for it), so the same ranks and weights
as the NumPy engines'.  :func:`lerp` is NumPy's ``_lerp`` operation by operation, each a
torch operation of its own in the result dtype (the same rounding as NumPy's; unsigned
types through int64, as torch lacks their arithmetic).
"""

from __future__ import annotations

from math import prod

import numpy as np
import torch

from ..._forksafe import imported
from ...requests import QuantileSpec
from ..quantile import no_weights, plans
from .dtypes import contiguous_bits, reshape_bits, signed_view, torch_dtype
from .ops import gather_bits
from .select import stable_order

__all__ = ["finish", "lerp", "quantile"]

_UNSIGNED = {torch.uint16: 16, torch.uint32: 32, torch.uint64: 64}


def _as(t: torch.Tensor, dtype: torch.dtype) -> torch.Tensor:
    """``t``'s values in ``dtype``, as NumPy casts them (unsigned 16-64-bit values too)."""
    width = _UNSIGNED.get(t.dtype)
    if width is None:
        return t.to(dtype)
    wide = signed_view(t).to(torch.int64)
    if width < 64:
        return (wide & ((1 << width) - 1)).to(dtype)
    high = ((wide >> 32) & 0xFFFFFFFF).to(dtype)  # exact in float64, one rounding below
    return high * 4294967296.0 + (wide & 0xFFFFFFFF).to(dtype)


def _difference(above: torch.Tensor, below: torch.Tensor) -> torch.Tensor:
    """``above - below`` in their dtype, integers wrapping as NumPy's do (as int64 bits of the
    unsigned types, which torch cannot subtract)."""
    width = _UNSIGNED.get(above.dtype)
    if width is None:
        return above - below
    diff = signed_view(above).to(torch.int64) - signed_view(below).to(torch.int64)
    if width < 64:
        diff = diff & ((1 << width) - 1)
    return diff.to(torch.int32 if width == 32 else torch.int16 if width == 16 else
                   torch.int64).view(above.dtype)


def lerp(below: torch.Tensor, above: torch.Tensor, gamma: torch.Tensor, spec: QuantileSpec
         ) -> torch.Tensor:
    """NumPy's ``_lerp(below, above, gamma)`` in ``spec.out_dtype``, as
    :func:`axisops.kernels.quantile.lerp` computes it: ``below + (above - below) * gamma``,
    or where ``gamma >= 0.5``, ``above - (above - below) * (1 - gamma)``; ``gamma`` of the
    weights' dtype (float64 for a weak ``q``), ``1 - gamma`` in it, both cast; a NaN made
    is NumPy's ``np.nan``.

    >>> from axisops.requests import ArrayMeta
    >>> from axisops.rules.quantile import quantile_spec
    >>> spec = quantile_spec(ArrayMeta((2,), np.dtype("float32")), 0.5, 0, "linear", False,
    ...                      False)
    >>> lerp(torch.tensor([1.0]), torch.tensor([2.0]), torch.tensor([0.75], dtype=torch.float64),
    ...      spec)
    tensor([1.7500])
    """
    out = torch_dtype(spec.out_dtype)
    diff = _as(_difference(above, below), out)
    low = _as(below, out) + diff * gamma.to(out)
    high = _as(above, out) - diff * (1 - gamma).to(out)
    values = torch.where(gamma >= 0.5, high, low)
    if values.dtype.is_floating_point:
        values = torch.where(torch.isnan(values), _nan(values), values)
    return values


def _nan(like: torch.Tensor) -> torch.Tensor:
    """NumPy's ``np.nan`` in ``like``'s dtype (made on the host: CUDA's own NaN has other
    bits)."""
    return torch.full((), float("nan"), dtype=like.dtype, device=like.device)


def _tensor(a: np.ndarray, device: torch.device) -> torch.Tensor:
    """A host array on ``device`` (bfloat16 through its bits)."""
    a = np.ascontiguousarray(a)
    if a.dtype.name == "bfloat16":
        return torch.from_numpy(a.view(np.int16)).view(torch.bfloat16).to(device)
    return torch.from_numpy(a).to(device)


def finish(parts: tuple[torch.Tensor, ...], spec: QuantileSpec) -> torch.Tensor:
    """The quantiles from their parts ``(below, below_indices, above, above_indices, weights)``
    (differentiable in ``below`` and ``above``): ``below`` for a method that picks it, else
    :func:`lerp`; NaN (NumPy's) where nanquantile found no number (``below`` is then NaN)."""
    below, _, above, _, weights = parts
    imported("axisops.rules.quantile")
    from ...rules.quantile import picks

    if picks(spec.method, spec.q_dtype, spec.flavour):
        return below
    values = lerp(below, above, weights, spec)
    if spec.skipnan:  # NaN where there was no number: lerp made np.nan of it already
        values = torch.where(torch.isnan(below), _nan(values), values)
    return values


def _counts(flat: torch.Tensor, spec: QuantileSpec) -> np.ndarray | None:
    """The non-NaN elements of every row, on the host, or None when every row is whole."""
    if not (spec.skipnan and flat.dtype.is_floating_point) or flat.numel() == 0:
        return None
    counts = spec.n - torch.isnan(flat).sum(dim=-1)
    if bool((counts == spec.n).all()):
        return None
    return counts.cpu().numpy().astype(np.int64)


def _shaped(a: torch.Tensor, spec: QuantileSpec) -> torch.Tensor:
    """``(sequences, t)`` to ``spec.out_shape``, contiguous (a bool's bytes kept)."""
    return contiguous_bits(reshape_bits(a.transpose(0, 1), spec.out_shape))


def quantile(x: torch.Tensor, spec: QuantileSpec, parts: bool = False):
    """The quantiles of ``x`` for a validated spec (or their parts, see
    :meth:`axisops.engines.base.Engine.quantile`), on ``x``'s device.

    >>> from axisops.requests import ArrayMeta
    >>> from axisops.rules.quantile import quantile_spec
    >>> spec = quantile_spec(ArrayMeta((4,), np.dtype("float32")), [0.5, 1.0], 0,
    ...                      "linear", False, False)
    >>> quantile(torch.tensor([4.0, 1.0, 3.0, 2.0]), spec)
    tensor([2.5000, 4.0000], dtype=torch.float64)
    """
    n, device = spec.n, x.device
    moved = x.movedim(spec.axis, -1)
    sequences = prod(moved.shape[:-1])
    flat = reshape_bits(moved, (sequences, n))
    p, empty = plans(spec, _counts(flat, spec))
    t = p.below.shape[-1]

    def ranks(r: np.ndarray) -> torch.Tensor:
        return torch.as_tensor(r, device=device).expand(sequences, t)

    order = stable_order(flat, False)
    below_at = torch.gather(order, -1, ranks(p.below))
    below = gather_bits(flat, -1, below_at)
    if p.gamma is None:
        above_at, above = below_at, below
    else:
        above_at = torch.gather(order, -1, ranks(p.above))
        above = gather_bits(flat, -1, above_at)
    gamma = _tensor(no_weights(spec, (1, t)) if p.gamma is None else p.gamma, device)
    gamma = gamma.expand(sequences, t)
    if parts:
        return tuple(_shaped(a, spec) for a in (below, below_at, above, above_at, gamma))
    values = below if p.gamma is None else lerp(below, above, gamma, spec)
    if empty is not None:
        values = torch.where(torch.as_tensor(empty, device=device)[:, None], _nan(values), values)
    return _shaped(values, spec)
