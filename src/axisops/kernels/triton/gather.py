"""Triton gather: check, wrap and gather in one pass over the index.

One program handles ``BLOCK`` consecutive output positions (the output and
the index are contiguous and share a shape).  It reads the index values,
flags those outside ``[-n, n-1]`` (unsigned 64-bit values >= 2**63 included),
records the first flagged position of its block, wraps negatives, and loads
``x`` only where the value is valid, so nothing outside ``x`` is ever read.
The host reads the per-block first offenders once (one reduction) and, if there
is any, raises the contract's error for the first in row-major order; the
output is then discarded.

``x`` keeps its own strides (views are not copied).  Dimensions are coalesced
on the host first (:mod:`.layout`); a layout that still needs more than four
dimensions, and complex128 (no 128-bit integer to move its bits as), are not
asked of this kernel (see ``axisops.engines.triton``).
"""

from __future__ import annotations

import numpy as np
import torch
import triton
import triton.language as tl

from ...requests import GatherSpec
from ...rules.operations import raise_index_error
from ..torch.dtypes import signed_view
from .layout import MAX_RANK, coalesce

__all__ = ["gather"]

BLOCK = 1024


@triton.jit
def _gather_kernel(x, index, out, first_bad, total, n, S1, S2, S3, X0, X1, X2, X3,
                   DIM: tl.constexpr, UNSIGNED: tl.constexpr, WIDTH: tl.constexpr,
                   BLOCK: tl.constexpr):
    pid = tl.program_id(0)
    p = pid.to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    live = p < total
    v = tl.load(index + p, mask=live, other=0).to(tl.int64)
    if UNSIGNED:
        if WIDTH < 64:
            v = v & ((1 << WIDTH) - 1)
            bad = v > n - 1
        else:
            bad = (v < 0) | (v > n - 1)
    else:
        bad = (v < -n) | (v > n - 1)
    bad = bad & live
    tl.store(first_bad + pid, tl.min(tl.where(bad, p, total), axis=0))
    v = tl.where(v < 0, v + n, v)
    c3 = p % S3
    rest = p // S3
    c2 = rest % S2
    rest = rest // S2
    c1 = rest % S1
    c0 = rest // S1
    if DIM == 0:
        c0 = v
    elif DIM == 1:
        c1 = v
    elif DIM == 2:
        c2 = v
    else:
        c3 = v
    ok = live & (bad == 0)
    val = tl.load(x + c0 * X0 + c1 * X1 + c2 * X2 + c3 * X3, mask=ok, other=0)
    tl.store(out + p, val, mask=live)


def _raise_first(index: torch.Tensor, first: int, spec: GatherSpec) -> None:
    position = tuple(int(p) for p in np.unravel_index(first, spec.index_shape))
    value = int(signed_view(index).flatten()[first].item())
    if value < 0 and not index.dtype.is_signed:
        value += 1 << (8 * index.element_size())
    raise_index_error(spec, position, value)


def gather(x: torch.Tensor, index: torch.Tensor, spec: GatherSpec) -> torch.Tensor:
    """torch.gather semantics for a validated spec the engine takes (see
    :meth:`axisops.engines.triton.TritonEngine.supports`).

    Run by the ``"triton"`` engine; through the public API::

        x = torch.arange(6.0, device="cuda").reshape(2, 3)
        axisops.gather(x, 1, torch.tensor([[2], [-3]], device="cuda"))  # [[2.], [3.]]
    """
    out = torch.empty(spec.index_shape, dtype=x.dtype, device=x.device)
    total = out.numel()
    if total == 0:
        return out
    index = index.contiguous()
    xb = signed_view(x)
    sizes, steps, dim = coalesce(spec.index_shape, tuple(xb.stride()), spec.dim)
    pad = MAX_RANK - len(sizes)
    sizes, steps, dim = [1] * pad + sizes, [0] * pad + steps, dim + pad
    blocks = triton.cdiv(total, BLOCK)
    first_bad = torch.empty(blocks, dtype=torch.int64, device=x.device)
    unsigned = not index.dtype.is_signed
    _gather_kernel[(blocks,)](
        xb, signed_view(index), signed_view(out), first_bad, total, spec.n,
        sizes[1], sizes[2], sizes[3], *steps,
        DIM=dim, UNSIGNED=unsigned, WIDTH=8 * index.element_size(), BLOCK=BLOCK,
        num_warps=4,
    )
    first = int(first_bad.min().item())
    if first < total:
        _raise_first(index, first, spec)
    return out
