"""Order keys: every dtype mapped to an unsigned integer of its width.

The key of an element is an unsigned integer whose *unsigned* order is the
contract's order, so one kernel per key width (8, 16, 32, 64 bits) serves
every dtype:

- unsigned integers: the bits as they are;
- signed integers: the bits with the sign bit flipped (no negation, so
  INT_MIN is just the smallest key);
- bool: 0 for False, the top bit for True (any non-zero byte is True);
- floats (float16, bfloat16, float32, float64): negative values have every
  bit flipped, positive values the sign bit set; −0.0 gets +0.0's key and
  every NaN the largest key.

"Smallest first" is "largest first" on the bitwise complement of the key
(XOR with ``flip``), so kernels only ever look for the largest keys.

Numba promotes integer arithmetic on narrow types to 64 bits, which halves (or
worse) the SIMD width; :func:`cast_like` casts each intermediate back to the
key type so loops vectorise at the data's own width.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np
from numba import njit
from numba.extending import overload

from ...dtypes import is_bfloat16

__all__ = ["KeyPlan", "cast_like", "fill_keys", "key_plan", "max_keys_into", "order_key"]

KIND_UNSIGNED = 0
KIND_SIGNED = 1
KIND_FLOAT = 2
KIND_BOOL = 3


class KeyPlan(NamedTuple):
    """How to turn elements of one dtype into keys (constants of the key type)."""

    utype: np.dtype  # the unsigned type of the same width
    kind: int
    sign: np.unsignedinteger
    absmask: np.unsignedinteger
    nanbound: np.unsignedinteger  # |bits| above this is NaN (floats only)
    ones: np.unsignedinteger
    flip: np.unsignedinteger  # all ones for "smallest", zero for "largest"
    name: str  # the key type's name, for job names (str() of a dtype is slow)

    def consts(self) -> tuple:
        return (self.kind, self.sign, self.absmask, self.nanbound, self.ones, self.flip)


_EXPONENT_ALL_ONES = {2: 0x7C00, 4: 0x7F800000, 8: 0x7FF0000000000000}
_BFLOAT16_INF = 0x7F80


@lru_cache(maxsize=64)
def key_plan(dtype: np.dtype, largest: bool) -> KeyPlan:
    """The key recipe for ``dtype`` (native byte order) and direction (memoised)."""
    width = dtype.itemsize
    utype = np.dtype(f"u{width}")
    u = utype.type
    sign = 1 << (8 * width - 1)
    ones = (1 << (8 * width)) - 1
    nanbound = ones
    if dtype.kind == "f":
        kind, nanbound = KIND_FLOAT, _EXPONENT_ALL_ONES[width]
    elif is_bfloat16(dtype):
        kind, nanbound = KIND_FLOAT, _BFLOAT16_INF
    elif dtype.kind == "i":
        kind = KIND_SIGNED
    elif dtype.kind == "b":
        kind = KIND_BOOL
    else:
        kind = KIND_UNSIGNED
    return KeyPlan(utype, kind, u(sign), u(sign - 1), u(nanbound), u(ones),
                   u(0 if largest else ones), str(utype))


def cast_like(value, like):  # pragma: no cover - replaced by the overload in jitted code
    """``value`` cast to the Numba type of ``like`` (only inside jitted code)."""
    return type(like)(value)


@overload(cast_like)
def _cast_like(value, like):
    target = like

    def impl(value, like):
        return target(value)

    return impl


@njit(inline="always")
def _float_key(u, sign, absmask, nanbound, ones, zero):
    a = cast_like(u & absmask, sign)
    neg = cast_like(u & sign, sign) != zero
    k = cast_like(~u, sign) if neg else cast_like(u | sign, sign)
    k = sign if a == zero else k
    return ones if a > nanbound else k


@njit(inline="always")
def order_key(u, kind, sign, absmask, nanbound, ones, flip):
    """The key of raw bits ``u``, XORed with ``flip`` (the complement for "smallest")."""
    zero = cast_like(0, sign)
    if kind == KIND_FLOAT:
        k = _float_key(u, sign, absmask, nanbound, ones, zero)
    elif kind == KIND_SIGNED:
        k = cast_like(u ^ sign, sign)
    elif kind == KIND_BOOL:
        k = sign if u != zero else zero
    else:
        k = u
    return cast_like(k ^ flip, sign)


@njit
def _fill_float(src, count, out, sign, absmask, nanbound, ones, flip):
    zero = cast_like(0, sign)
    for i in range(count):
        k = _float_key(src[i], sign, absmask, nanbound, ones, zero)
        out[i] = cast_like(k ^ flip, sign)


@njit
def _fill_xor(src, count, out, mask):
    for i in range(count):
        out[i] = cast_like(src[i] ^ mask, mask)


@njit
def _fill_bool(src, count, out, sign, flip):
    zero = cast_like(0, sign)
    for i in range(count):
        k = sign if src[i] != zero else zero
        out[i] = cast_like(k ^ flip, sign)


@njit
def _fill_from(src, count, out, kind, sign, absmask, nanbound, ones, flip):
    if kind == KIND_FLOAT:
        _fill_float(src, count, out, sign, absmask, nanbound, ones, flip)
    elif kind == KIND_SIGNED:
        _fill_xor(src, count, out, cast_like(sign ^ flip, sign))
    elif kind == KIND_BOOL:
        _fill_bool(src, count, out, sign, flip)
    else:
        _fill_xor(src, count, out, flip)


@njit
def fill_keys(flat, base, stride, start, count, out, kind, sign, absmask, nanbound, ones, flip):
    """``out[i] = key(flat[base + (start + i) * stride])`` for ``i < count``.

    The elements are first taken as a slice of ``flat`` (so indices are provably
    in range and unit strides are known), then one loop per kind vectorises.
    Inlined into every kernel: a call per row would cost more than the row
    (array views passed between compiled functions are reference counted).
    """
    if count <= 0:
        return
    pos = base + start * stride
    if stride == 1:
        _fill_from(flat[pos:pos + count], count, out, kind, sign, absmask, nanbound, ones, flip)
    elif stride > 0:
        src = flat[pos:pos + (count - 1) * stride + 1:stride]
        _fill_from(src, count, out, kind, sign, absmask, nanbound, ones, flip)
    elif stride < 0:
        src = flat[pos + (count - 1) * stride:pos + 1:-stride][::-1]
        _fill_from(src, count, out, kind, sign, absmask, nanbound, ones, flip)
    else:
        _fill_from(flat[pos:pos + 1], 1, out, kind, sign, absmask, nanbound, ones, flip)
        out[1:count] = out[0]


@njit(inline="always")
def _max_float(src, count, acc, sign, absmask, nanbound, ones, flip):
    zero = cast_like(0, sign)
    for i in range(count):
        k = cast_like(_float_key(src[i], sign, absmask, nanbound, ones, zero) ^ flip, sign)
        acc[i] = max(acc[i], k)


@njit(inline="always")
def _max_xor(src, count, acc, mask):
    for i in range(count):
        acc[i] = max(acc[i], cast_like(src[i] ^ mask, mask))


@njit(inline="always")
def _max_bool(src, count, acc, sign, flip):
    zero = cast_like(0, sign)
    for i in range(count):
        k = sign if src[i] != zero else zero
        acc[i] = max(acc[i], cast_like(k ^ flip, sign))


@njit(inline="always")
def max_keys_into(src, count, acc, kind, sign, absmask, nanbound, ones, flip):
    """``acc[i] = max(acc[i], key(src[i]))`` for ``i < count``: keys are never stored.

    The scan's block maxima come straight from the input this way, in one
    vectorised pass; only the few elements of qualifying blocks get their key
    computed again (with :func:`order_key`).
    """
    if kind == KIND_FLOAT:
        _max_float(src, count, acc, sign, absmask, nanbound, ones, flip)
    elif kind == KIND_SIGNED:
        _max_xor(src, count, acc, cast_like(sign ^ flip, sign))
    elif kind == KIND_BOOL:
        _max_bool(src, count, acc, sign, flip)
    else:
        _max_xor(src, count, acc, flip)
