"""Hypothesis strategies and layouts: tie-heavy data with every special value.

Values are drawn from a small pool per dtype, so ties are the rule, mixed with
the values that break naive implementations: NaN (with payloads and sign), ±inf,
±0.0, subnormals, INT_MIN/INT_MAX, UINT64_MAX, 2^53+1 and friends, bools whose
byte is 2 or 255, NaT (INT64_MIN, the greatest time) beside the least time
(INT64_MIN + 1).
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
from hypothesis import strategies as st

BF16 = np.dtype(ml_dtypes.bfloat16)
INT_DTYPES = [np.dtype(n) for n in ("int8", "int16", "int32", "int64",
                                    "uint8", "uint16", "uint32", "uint64")]
FLOAT_DTYPES = [np.dtype("float16"), np.dtype("float32"), np.dtype("float64"), BF16]
TOPK_DTYPES = [np.dtype(bool), *INT_DTYPES, *FLOAT_DTYPES]
GATHER_DTYPES = [*TOPK_DTYPES, np.dtype("complex64"), np.dtype("complex128")]
#: NumPy's time types (top-k, gather and the selection family take every unit); torch and
#: JAX have none.
TIME_DTYPES = [np.dtype("datetime64[ns]"), np.dtype("timedelta64[s]"), np.dtype("datetime64[D]")]

# Float specials as bit patterns, so payloads and signs are exact.
_FLOAT_BITS = {
    2: [0x7E00, 0xFE00, 0x7C01, 0x7C00, 0xFC00, 0x0000, 0x8000, 0x0001, 0x8001,
        0x3C00, 0xBC00, 0x4000, 0x7BFF, 0xFBFF],
    4: [0x7FC00000, 0xFFC00000, 0x7F800001, 0x7F800000, 0xFF800000, 0x0, 0x80000000,
        0x1, 0x80000001, 0x3F800000, 0xBF800000, 0x40000000, 0x7F7FFFFF, 0xFF7FFFFF],
    8: [0x7FF8000000000000, 0xFFF8000000000000, 0x7FF0000000000001, 0x7FF0000000000000,
        0xFFF0000000000000, 0x0, 0x8000000000000000, 0x1, 0x8000000000000001,
        0x3FF0000000000000, 0xBFF0000000000000, 0x4000000000000000,
        0x7FEFFFFFFFFFFFFF, 0xFFEFFFFFFFFFFFFF],
}
_BF16_BITS = [0x7FC0, 0xFFC0, 0x7F81, 0x7F80, 0xFF80, 0x0000, 0x8000, 0x0001, 0x8001,
              0x3F80, 0xBF80, 0x4000, 0x7F7F, 0xFF7F]


def special_values(dtype: np.dtype) -> np.ndarray:
    """The pool of values data of ``dtype`` is drawn from (an array of that dtype)."""
    dtype = np.dtype(dtype)
    if dtype == BF16:
        return np.array(_BF16_BITS, np.uint16).view(BF16)
    if dtype.kind == "f":
        return np.array(_FLOAT_BITS[dtype.itemsize], f"u{dtype.itemsize}").view(dtype)
    if dtype.kind == "c":
        part = special_values(np.dtype(f"f{dtype.itemsize // 2}"))
        out = np.empty((len(part), 3), dtype)
        out.real = part[:, None]
        out.imag = part[None, :3]
        return out.ravel()
    if dtype.kind in "mM":  # int64's pool: INT64_MIN is NaT, INT64_MIN + 1 the least time
        return special_values(np.dtype(np.int64)).view(dtype)
    if dtype == np.bool_:  # any non-zero byte is True (a view of uint8 data)
        return np.array([0, 1, 2, 255], np.uint8).view(np.bool_)
    info = np.iinfo(dtype)
    pool = {info.min, info.max, 0, 1, 2, info.max - 1, info.min + 1}
    if dtype.kind == "i":
        pool |= {-1, -2}
    if dtype.itemsize == 8:
        pool |= {2**53, 2**53 + 1, 2**63 - 1 if dtype.kind == "i" else 2**64 - 1}
        pool |= {-(2**53) - 1} if dtype.kind == "i" else {2**63, 2**63 + 1}
    return np.array(sorted(pool), dtype=dtype)


def tie_heavy(dtype, shape, seed=0, width=4):
    """A seeded array of ``shape`` drawn from the first ``width`` values of the pool.

    ``width=None`` draws from the whole pool (every special value of the dtype).
    """
    pool = special_values(np.dtype(dtype))
    rng = np.random.default_rng(seed)
    return pool[rng.integers(0, len(pool) if width is None else min(len(pool), width),
                             size=shape)]


@st.composite
def arrays(draw, dtypes=TOPK_DTYPES, min_dims=1, max_dims=3, max_side=6, min_side=0):
    """A tie-heavy array: shape, dtype and values from the pools above."""
    dtype = draw(st.sampled_from(dtypes))
    ndim = draw(st.integers(min_dims, max_dims))
    shape = tuple(draw(st.lists(st.integers(min_side, max_side), min_size=ndim, max_size=ndim)))
    pool = special_values(dtype)
    size = int(np.prod(shape))
    # Mostly a few distinct values (ties), sometimes the whole pool.
    width = draw(st.integers(1, len(pool)))
    picks = draw(st.lists(st.integers(0, width - 1), min_size=size, max_size=size))
    return pool[np.array(picks, dtype=np.intp)].reshape(shape) if size else np.empty(shape, dtype)


LAYOUTS = ("C", "F", "transposed", "negative", "step", "readonly")


def with_layout(a: np.ndarray, layout: str) -> np.ndarray:
    """The same values as ``a`` in another memory layout."""
    if layout == "C":
        return np.ascontiguousarray(a)
    if layout == "F":
        return np.asfortranarray(a)
    if layout == "transposed":
        return np.ascontiguousarray(a.T).T
    if layout == "negative":
        return np.flip(np.ascontiguousarray(np.flip(a)))
    if layout == "step":
        buf = np.zeros(a.shape[:-1] + (2 * a.shape[-1],), a.dtype)
        buf[..., ::2] = a
        return buf[..., ::2]
    if layout == "readonly":
        b = a.copy()
        b.setflags(write=False)
        return b
    raise ValueError(layout)


@st.composite
def chunking(draw, size: int) -> tuple[int, ...]:
    """Dask chunks for one axis of ``size``: one chunk, 1-element chunks, or uneven ones."""
    if size == 0:
        return (0,)
    kind = draw(st.sampled_from(["one", "ones", "uneven"]))
    if kind == "one":
        return (size,)
    if kind == "ones":
        return (1,) * size
    cuts = sorted(draw(st.sets(st.integers(0, size), max_size=size)))
    bounds = [0, *cuts, size]  # repeated cuts make empty chunks, which dask allows
    return tuple(np.diff(bounds).tolist())


def chunkings(shape: tuple[int, ...]):
    """Dask chunks for every axis of ``shape`` (see :func:`chunking`)."""
    return st.tuples(*(chunking(s) for s in shape))


#: Adversarial orders of the values of ``pool`` in a sequence of ``n``: sorted both ways,
#: constant, alternating, one outlier at the end; rising to the middle, then falling;
#: rising by blocks of 16, shuffled inside each; a sawtooth.
PATTERNS = {
    "ascending": lambda n, pool: np.sort(pool[np.arange(n) % len(pool)]),
    "descending": lambda n, pool: np.sort(pool[np.arange(n) % len(pool)])[::-1].copy(),
    "constant": lambda n, pool: np.full(n, pool[len(pool) // 2]),
    "alternating": lambda n, pool: pool[np.arange(n) % 2],
    "one-hot-end": lambda n, pool: np.concatenate([np.full(n - 1, pool[0]), pool[-1:]]),
    "organ-pipe": lambda n, pool: np.sort(pool[np.arange(n) % len(pool)])[
        np.minimum(np.arange(n), n - 1 - np.arange(n)) * 2],
    "interleaved": lambda n, pool: np.sort(pool[np.arange(n) % len(pool)])[
        np.minimum(np.arange(n) // 16 * 16 + np.arange(n) * 7 % 16, n - 1)],
    "sawtooth": lambda n, pool: np.sort(pool)[np.arange(n) % len(pool)],
}
