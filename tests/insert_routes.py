"""What the tests of the insert strategy's AVX-512 routes (test_cpu_filter.py,
test_cpu_lanes.py) share: their data, their check against the oracle, and the filter
route's rule (csrc/topk/insert.hpp's ``filters``), read from the tuning in force."""

from __future__ import annotations

import numpy as np

import axisops
from axisops import _core
from axisops.engines import cpu
from axisops.validation import ArrayMeta, topk_spec

from oracle import assert_same_bits
from strategies import BF16, special_values


def route_data(dtype: np.dtype, shape, kind: str, seed: int) -> np.ndarray:
    """Values of ``dtype``: the pool's specials (``"special"``), three values (``"ties"``:
    the k best share their key, and more than 16 keys pass a filter's bound), or random."""
    rng = np.random.default_rng(seed)
    if kind == "special":
        pool = special_values(dtype)
        return pool[rng.integers(0, len(pool), shape)]
    if kind == "ties":
        return rng.integers(0, 3, shape).astype(np.float32).astype(dtype)
    if dtype.kind == "b":
        return rng.integers(0, 2, shape) > 0
    if dtype.kind == "f" or dtype == BF16:
        return rng.standard_normal(shape).astype(np.float32).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)


def check_insert(x, k, largest, **tuning) -> set[str]:
    """Top-k of ``x`` along axis 1 by the insert strategy under ``tuning``: the oracle's
    bits; returns the paths the core took."""
    spec = topk_spec(ArrayMeta(x.shape, x.dtype), k, 1, largest, True, None)
    with _core.tuned(**tuning), _core.paths_taken() as taken:
        values, indices = cpu.topk(x, spec, strategy="insert")
    want = axisops.topk(x, k, 1, largest=largest, backend="numpy")
    assert_same_bits(values, want.values)
    np.testing.assert_array_equal(indices, want.indices)
    return taken


def filters(n: int, k: int, itemsize: int = 4) -> bool:
    """Whether the level in use sends sequences of n keys of ``itemsize`` bytes, for this
    k, to the filter route."""
    t = _core.kernels._tuning()
    return (_core.kernels.topk_filter() and itemsize == 4
            and t["filter_min_k"] <= k <= t["filter_max_k"]
            and k * n >= t["filter_min_work"] and n >= t["filter_n_per_k"] * k)
