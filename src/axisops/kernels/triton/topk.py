"""Triton top-k kernels: the contract's order in one 64-bit comparison.

Every element becomes one int64, the *packed key*::

    packed = (key - 2**31) << 32  |  (2**32 - 1 - index)

where ``key`` is a 32-bit unsigned order key (integers shifted or masked,
floats through their bits with -0.0 == +0.0 and every NaN above +inf,
``largest=False`` complemented).  Packed keys are unique within a sequence
and one signed ``>`` orders them by key, then by lower index: the contract's
order.  So any exact max/top-k of packed keys is the contract's answer,
ties included, and the index is decoded from the low 32 bits; values are then
loaded from the input itself (fused into the last kernel), so NaN payloads and
the sign of zero survive.  Masked lanes hold ``-2**63``, below every packed key
(whose low half is at least ``2**31`` because indices stay below ``2**31``).

Two designs:

- **per row** (n <= 4096): one program takes one or more whole rows, packs
  them and runs ``tl.topk`` (a bitonic top-k in registers), then writes values
  and indices;
- **long rows**: the *block-max filter*.  Pass 1 reads the input once and
  writes the max packed key of every block of ``B`` elements.  The answer lies
  in the k blocks whose maxima are the k largest (an element outside them is
  beaten by k distinct block maxima), so pass 2 selects those k maxima, pass 3
  re-reads just those k blocks (``k * B <= n / 8`` elements), and pass 4 takes
  the top k of the candidates and emits values and indices.  Where the block
  maxima and the candidates each fit a row tile, passes 2-4 are one fused
  kernel per row; otherwise the selections on packed keys run per row, or
  through ``torch.topk`` when longer than a row tile (exact too: packed keys
  have no ties).

Element types up to 32 bits and sequences shorter than 2**31 qualify; the
``"triton"`` engine takes nothing else (see :mod:`axisops.engines.triton`), and
the registry gives the rest to the exact ``"torch"`` engine.
"""

from __future__ import annotations

import functools
import os
from typing import Any

import torch
import triton
import triton.language as tl

from ...requests import TopKSpec
from ..torch.dtypes import signed_view, torch_dtype

__all__ = ["INTERPRETED", "interpreting", "topk"]


def interpreting() -> bool:
    """True when ``TRITON_INTERPRET`` asks Triton to run kernels on the CPU."""
    return os.environ.get("TRITON_INTERPRET", "0").strip().lower() in ("1", "true", "on")


#: Whether the kernels below were built for Triton's CPU interpreter.
INTERPRETED: bool = interpreting()

#: Longest sequence handled by the per-row kernel (one register tile).
ROW_TILE = 4096
#: Largest k the per-row kernel selects by rounds of max (beyond it: ``tl.topk``).
ITERATE_MAX_K = 16
#: ``tl.topk`` (a bitonic top-k) is recent; without it every k takes rounds of max.
HAS_TL_TOPK = hasattr(tl, "topk")
#: Elements pass 1 reads per program.
SCAN_TILE = 4096
#: Block sizes the block-max filter may use.
MIN_BLOCK, MAX_BLOCK = 32, 1024

SENTINEL = tl.constexpr(-(2**63))

# (kind, width in bits, magnitude bits of +inf): kind 0 signed, 1 unsigned, 2 float, 3 bool.
_FORMATS: dict[torch.dtype, tuple[int, int, int]] = {
    torch.bool: (3, 8, 0),
    torch.uint8: (1, 8, 0),
    torch.int8: (0, 8, 0),
    torch.int16: (0, 16, 0),
    torch.int32: (0, 32, 0),
    torch.float16: (2, 16, 0x7C00),
    torch.bfloat16: (2, 16, 0x7F80),
    torch.float32: (2, 32, 0x7F800000),
}
for _name in ("uint16", "uint32"):
    if hasattr(torch, _name):
        _FORMATS[getattr(torch, _name)] = (1, int(_name[4:]), 0)


@triton.jit
def _order_key(raw, KIND: tl.constexpr, WIDTH: tl.constexpr, INF: tl.constexpr,
               LARGEST: tl.constexpr):
    """Unsigned WIDTH-bit order key (as int64) of elements read as signed ints."""
    v = raw.to(tl.int64)
    if KIND == 0:
        key = v + (1 << (WIDTH - 1))
    elif KIND == 1:
        key = v & ((1 << WIDTH) - 1)
    elif KIND == 3:
        key = (v != 0).to(tl.int64)  # any non-zero byte is True
    else:
        bits = v & ((1 << WIDTH) - 1)
        mag = bits & ((1 << (WIDTH - 1)) - 1)
        key = tl.where(bits > mag, (1 << (WIDTH - 1)) - mag, (1 << (WIDTH - 1)) + mag)
        key = tl.where(mag > INF, (1 << WIDTH) - 1, key)
    if not LARGEST:
        key = ((1 << WIDTH) - 1) - key
    return key


@triton.jit
def _pack(raw, col, KIND: tl.constexpr, WIDTH: tl.constexpr, INF: tl.constexpr,
          LARGEST: tl.constexpr):
    key = _order_key(raw, KIND, WIDTH, INF, LARGEST)
    return ((key - 2147483648) << 32) | (4294967295 - col.to(tl.int64))


@triton.jit
def _unpack_index(packed):
    return 4294967295 - (packed & 4294967295)


@triton.jit
def _write(top, r, j, k, x, x_r, x_n, vals, idx, top_out, EMIT: tl.constexpr):
    """Store packed keys ``top[r, j]`` (or their values and indices) at row r, column j."""
    keep = (r[:, None] >= 0) & (j < k)[None, :]
    dst = r[:, None] * k + j[None, :]
    if EMIT:
        pos = _unpack_index(top)
        v = tl.load(x + r[:, None] * x_r + pos * x_n, mask=keep, other=0)
        tl.store(vals + dst, v, mask=keep)
        tl.store(idx + dst, pos.to(idx.dtype.element_ty), mask=keep)
    else:
        tl.store(top_out + dst, top, mask=keep)


@triton.jit
def _rows_kernel(src, rows, n, s_r, s_n, x, x_r, x_n, k, vals, idx, top_out,
                 PACKED_IN: tl.constexpr, EMIT: tl.constexpr, KIND: tl.constexpr,
                 WIDTH: tl.constexpr, INF: tl.constexpr, LARGEST: tl.constexpr,
                 ROWS: tl.constexpr, BLOCK_N: tl.constexpr, K_P: tl.constexpr,
                 ITERATE: tl.constexpr):
    """Top-k of ROWS whole rows in registers; writes k packed keys or values+indices.

    Small k: k rounds of (max, then retire it); packed keys are unique, so each
    round retires exactly one element.  Larger k: ``tl.topk`` (bitonic).
    """
    r = tl.program_id(0).to(tl.int64) * ROWS + tl.arange(0, ROWS)
    c = tl.arange(0, BLOCK_N).to(tl.int64)
    live = (r < rows)[:, None] & (c < n)[None, :]
    raw = tl.load(src + r[:, None] * s_r + c[None, :] * s_n, mask=live, other=0)
    if PACKED_IN:  # noqa: SIM108 (a compile-time branch; kept as a statement for Triton)
        packed = raw
    else:
        packed = _pack(raw, c[None, :], KIND, WIDTH, INF, LARGEST)
    packed = tl.where(live, packed, SENTINEL)
    r = tl.where(r < rows, r, -1)
    if ITERATE:
        for j in range(0, k):
            best = tl.max(packed, axis=1)
            col = j + tl.arange(0, 1).to(tl.int64)
            _write(best[:, None], r, col, k, x, x_r, x_n, vals, idx, top_out, EMIT)
            packed = tl.where(packed == best[:, None], SENTINEL, packed)
    else:
        top = tl.topk(packed, K_P)
        col = tl.arange(0, K_P).to(tl.int64)
        _write(top, r, col, k, x, x_r, x_n, vals, idx, top_out, EMIT)


@triton.jit
def _block_max_kernel(x, n, s_r, s_n, tiles, bmax, nb, KIND: tl.constexpr,
                      WIDTH: tl.constexpr, INF: tl.constexpr, LARGEST: tl.constexpr,
                      B: tl.constexpr, PER: tl.constexpr):
    """Pass 1: the max packed key of each block of B elements (PER blocks a program)."""
    pid = tl.program_id(0).to(tl.int64)
    row = pid // tiles
    t = pid % tiles
    c = t * (PER * B) + tl.arange(0, PER * B)
    live = c < n
    raw = tl.load(x + row * s_r + c * s_n, mask=live, other=0)
    packed = tl.where(live, _pack(raw, c, KIND, WIDTH, INF, LARGEST), SENTINEL)
    best = tl.max(tl.reshape(packed, (PER, B)), axis=1)
    b = t * PER + tl.arange(0, PER)
    tl.store(bmax + row * nb + b, best, mask=b < nb)


@triton.jit
def _candidates_kernel(x, n, s_r, s_n, sel, k, cand, KIND: tl.constexpr,
                       WIDTH: tl.constexpr, INF: tl.constexpr, LARGEST: tl.constexpr,
                       B: tl.constexpr):
    """Pass 3: the packed keys of the block holding each selected block maximum."""
    pid = tl.program_id(0).to(tl.int64)
    row = pid // k
    start = (_unpack_index(tl.load(sel + pid)) // B) * B
    c = start + tl.arange(0, B)
    live = c < n
    raw = tl.load(x + row * s_r + c * s_n, mask=live, other=0)
    packed = tl.where(live, _pack(raw, c, KIND, WIDTH, INF, LARGEST), SENTINEL)
    tl.store(cand + pid * B + tl.arange(0, B), packed)


@triton.jit
def _fused_select_kernel(bmax, nb, x, n, s_r, s_n, k, vals, idx, KIND: tl.constexpr,
                         WIDTH: tl.constexpr, INF: tl.constexpr, LARGEST: tl.constexpr,
                         B: tl.constexpr, NB_P: tl.constexpr, K_P: tl.constexpr,
                         ITERATE: tl.constexpr):
    """Passes 2-4 for one row in one program (both selections fit a row tile).

    The k largest block maxima (k rounds of max, or ``tl.topk`` for larger k); their
    k blocks loaded as a (K_P, B) tile of packed keys; its top k (rounds of max, or
    ``tl.topk`` on the flattened tile), written as values and indices.
    """
    row = tl.program_id(0).to(tl.int64)
    c = tl.arange(0, NB_P).to(tl.int64)
    maxima = tl.load(bmax + row * nb + c, mask=c < nb, other=SENTINEL)
    slot = tl.arange(0, K_P).to(tl.int64)
    if ITERATE:
        chosen = tl.full([K_P], SENTINEL, tl.int64)
        for j in range(0, k):
            best = tl.max(maxima, axis=0)
            chosen = tl.where(slot == j, best, chosen)
            maxima = tl.where(maxima == best, SENTINEL, maxima)
    else:
        chosen = tl.topk(maxima, K_P)
    start = (_unpack_index(chosen) // B) * B
    col = start[:, None] + tl.arange(0, B).to(tl.int64)[None, :]
    live = (slot < k)[:, None] & (col < n)
    raw = tl.load(x + row * s_r + col * s_n, mask=live, other=0)
    cand = tl.where(live, _pack(raw, col, KIND, WIDTH, INF, LARGEST), SENTINEL)
    if ITERATE:
        for j in range(0, k):
            best = tl.max(tl.max(cand, axis=1), axis=0)
            pos = _unpack_index(best)
            tl.store(vals + row * k + j, tl.load(x + row * s_r + pos * s_n))
            tl.store(idx + row * k + j, pos.to(idx.dtype.element_ty))
            cand = tl.where(cand == best, SENTINEL, cand)
    else:
        top = tl.topk(tl.reshape(cand, (K_P * B,)), K_P)
        r = row + tl.arange(0, 1).to(tl.int64)
        _write(top[None, :], r, slot, k, x, s_r, s_n, vals, idx, vals, EMIT=True)


@triton.jit
def _pack_kernel(x, n, s_r, s_n, tiles, out, KIND: tl.constexpr, WIDTH: tl.constexpr,
                 INF: tl.constexpr, LARGEST: tl.constexpr, TILE: tl.constexpr):
    """Packed keys of every element (long rows with large k, then ``torch.topk``)."""
    pid = tl.program_id(0).to(tl.int64)
    row = pid // tiles
    c = (pid % tiles) * TILE + tl.arange(0, TILE)
    live = c < n
    raw = tl.load(x + row * s_r + c * s_n, mask=live, other=0)
    tl.store(out + row * n + c, _pack(raw, c, KIND, WIDTH, INF, LARGEST), mask=live)


@triton.jit
def _emit_kernel(top, total, k, x, x_r, x_n, vals, idx, BLOCK: tl.constexpr):
    """Values (from the input's bits) and indices of packed keys, in their order."""
    p = tl.program_id(0).to(tl.int64) * BLOCK + tl.arange(0, BLOCK)
    live = p < total
    pos = _unpack_index(tl.load(top + p, mask=live, other=0))
    v = tl.load(x + (p // k) * x_r + pos * x_n, mask=live, other=0)
    tl.store(vals + p, v, mask=live)
    tl.store(idx + p, pos.to(idx.dtype.element_ty), mask=live)


def _pow2_at_least(v: int) -> int:
    return 1 << max(0, (v - 1).bit_length())


def _pow2_at_most(v: int) -> int:
    return 1 << (v.bit_length() - 1)


def _warps(elements: int) -> int:
    return 8 if elements >= 4096 else 4


@functools.cache
def _format(dtype: torch.dtype, largest: bool) -> dict[str, Any]:
    """The kernels' element-format constants for ``dtype`` and direction."""
    kind, width, inf = _FORMATS[dtype]
    return {"KIND": kind, "WIDTH": width, "INF": inf, "LARGEST": largest}


class _Job:
    """One top-k over ``rows`` rows of ``n`` elements: the tensors every pass shares."""

    def __init__(self, flat: torch.Tensor, k: int, largest: bool, index_dtype: torch.dtype):
        self.rows, self.n = flat.shape
        self.k = k
        self.bits = signed_view(flat)
        self.fmt = _format(flat.dtype, largest)
        self.values = torch.empty((self.rows, k), dtype=flat.dtype, device=flat.device)
        self.indices = torch.empty((self.rows, k), dtype=index_dtype, device=flat.device)

    def x_args(self) -> tuple:
        return (self.bits, self.n, self.bits.stride(0), self.bits.stride(1))

    def rows_pass(self, src: torch.Tensor, packed_in: bool, emit: bool) -> torch.Tensor | None:
        """The per-row kernel on ``src``: raw input rows, or rows of packed keys."""
        m = src.shape[1]
        block_n = _pow2_at_least(m)
        rows_per = max(1, min(128, ROW_TILE // block_n, _pow2_at_least(self.rows)))
        top = None if emit else torch.empty((self.rows, self.k), dtype=torch.int64,
                                            device=src.device)
        src_bits = src if packed_in else signed_view(src)
        _rows_kernel[(triton.cdiv(self.rows, rows_per),)](
            src_bits, self.rows, m, src_bits.stride(0), src_bits.stride(1),
            self.bits, self.bits.stride(0), self.bits.stride(1), self.k,
            signed_view(self.values), signed_view(self.indices),
            top if top is not None else src_bits,
            PACKED_IN=packed_in, EMIT=emit, **self.fmt,
            ROWS=rows_per, BLOCK_N=block_n, K_P=_pow2_at_least(self.k),
            ITERATE=self.iterate(), num_warps=_warps(rows_per * block_n),
        )
        return top

    def iterate(self) -> bool:
        """Whether selections take k rounds of max (else ``tl.topk``, a bitonic top-k)."""
        return self.k <= ITERATE_MAX_K or not HAS_TL_TOPK

    def emit(self, top: torch.Tensor) -> None:
        """Values and indices of ``top`` (rows of k packed keys)."""
        total = self.rows * self.k
        block = 1024
        _emit_kernel[(triton.cdiv(total, block),)](
            top, total, self.k, self.bits, self.bits.stride(0), self.bits.stride(1),
            signed_view(self.values), signed_view(self.indices), BLOCK=block,
        )

    def select_packed(self, keys: torch.Tensor, emit: bool) -> torch.Tensor | None:
        """The k greatest of each row of packed keys (sorted), or emit them."""
        if keys.shape[1] <= ROW_TILE:
            return self.rows_pass(keys, packed_in=True, emit=emit)
        top = torch.topk(keys, self.k, dim=1, largest=True, sorted=True).values.contiguous()
        if emit:
            self.emit(top)
            return None
        return top

    def block_size(self) -> int | None:
        """B for the block-max filter (k * B <= n / 8), or None when it cannot shrink.

        The largest power of two up to MAX_BLOCK; but a smaller B when that lets
        both selections fit one row tile each (n / B block maxima, then k * B
        candidates), so that the fused kernel does both in one launch and neither
        goes through ``torch.topk`` on packed keys: a 64-bit radix select of many
        launches, which was 115 of the 189 us of device time of a (256, 131072)
        k=10 call on an H200, where rounds of max over a 4096-element tile take
        ~15 us.
        """
        limit = self.n // (8 * self.k)
        if limit < MIN_BLOCK:
            return None
        b = min(MAX_BLOCK, _pow2_at_most(limit))
        if self.k * b > ROW_TILE:
            fit = _pow2_at_most(ROW_TILE // self.k)
            if fit >= MIN_BLOCK and self.selections_fit(fit):
                b = fit
        return b

    def selections_fit(self, b: int) -> bool:
        """Whether, with blocks of ``b``, the block maxima and the candidates each fit
        one row tile."""
        return triton.cdiv(self.n, b) <= ROW_TILE and self.k * b <= ROW_TILE

    def long_rows(self) -> None:
        b = self.block_size()
        if b is None:
            self.pack_all_then_select()
            return
        tile = max(b, SCAN_TILE)
        tiles = triton.cdiv(self.n, tile)
        nb = triton.cdiv(self.n, b)
        bmax = torch.empty((self.rows, nb), dtype=torch.int64, device=self.bits.device)
        _block_max_kernel[(self.rows * tiles,)](
            *self.x_args(), tiles, bmax, nb, **self.fmt, B=b, PER=tile // b,
            num_warps=_warps(tile),
        )
        if self.selections_fit(b):
            # Two launches in all: each costs the host more than these selections cost
            # the device (about 25 us a launch through Triton 3.6's launcher, on an H200).
            k_p = _pow2_at_least(self.k)
            _fused_select_kernel[(self.rows,)](
                bmax, nb, *self.x_args(), self.k, signed_view(self.values),
                signed_view(self.indices), **self.fmt, B=b, NB_P=_pow2_at_least(nb),
                K_P=k_p, ITERATE=self.iterate(), num_warps=_warps(max(nb, k_p * b)),
            )
            return
        sel = self.select_packed(bmax, emit=False)
        cand = torch.empty((self.rows, self.k * b), dtype=torch.int64, device=self.bits.device)
        _candidates_kernel[(self.rows * self.k,)](
            *self.x_args(), sel, self.k, cand, **self.fmt, B=b, num_warps=_warps(b),
        )
        self.select_packed(cand, emit=True)

    def pack_all_then_select(self) -> None:
        tiles = triton.cdiv(self.n, SCAN_TILE)
        packed = torch.empty((self.rows, self.n), dtype=torch.int64, device=self.bits.device)
        _pack_kernel[(self.rows * tiles,)](
            *self.x_args(), tiles, packed, **self.fmt, TILE=SCAN_TILE, num_warps=8,
        )
        self.select_packed(packed, emit=True)

    def run(self) -> None:
        if self.rows == 0 or self.k == 0:
            return
        if self.n <= ROW_TILE:
            self.rows_pass(self.bits, packed_in=False, emit=True)
        else:
            self.long_rows()


def topk(x: torch.Tensor, spec: TopKSpec) -> tuple[torch.Tensor, torch.Tensor]:
    """``(values, indices)`` of the contract for a validated spec the engine takes.

    Run by the ``"triton"`` engine; through the public API::

        t = torch.tensor([[2.0, 7.0, 7.0, float("nan")]], device="cuda")
        axisops.topk(t, 2).indices          # tensor([[3, 1]], device='cuda:0')
    """
    last = spec.axis == x.dim() - 1
    moved = x if last else x.movedim(spec.axis, -1)
    n, k = spec.n, spec.k
    rows = moved.numel() // n if n else 0
    flat = moved if moved.dim() == 2 else moved.reshape(rows, n)
    job = _Job(flat, k, spec.largest, torch_dtype(spec.index_dtype))
    job.run()
    if last and x.dim() == 2:
        return job.values, job.indices
    shape = (*moved.shape[:-1], k)
    return (
        job.values.reshape(shape).movedim(-1, spec.axis).contiguous(),
        job.indices.reshape(shape).movedim(-1, spec.axis).contiguous(),
    )
