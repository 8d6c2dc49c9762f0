"""The insert strategy's lanes route (csrc/topk/lanes.hpp) against the oracle.

Short sequences of keys of 32 bits or fewer take it at the avx512 level for k of at most
the tuning's lanes_max_k where the filter route (32-bit keys) does not: every key packed
with its index into a 64-bit word and offered to the k best words of each of 8 lanes,
the sequence's k best then taken from those. Every width, every k it serves, lengths
around the 16 keys a step reads, random, tie-heavy and special data, both directions,
every level this machine runs: the oracle's bits, and the route taken exactly where the
level has it and the rule says.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import axisops
from axisops import _core
from insert_routes import check_insert, filters, route_data

from strategies import BF16

K = _core.kernels
DTYPES = [np.dtype(d) for d in ("float32", "int32", "uint32", "float16", "int16", "uint16",
                                "int8", "uint8", "bool")] + [BF16]
LENGTHS = (1, 2, 3, 4, 5, 15, 16, 17, 31, 32, 33, 64, 65, 100, 129)
#: The filter route off, so that every k of 1-4 is the lanes route's.
NO_FILTER = dict(filter_max_k=0)


def _laned(n: int, k: int, dtype: np.dtype = DTYPES[0]) -> bool:
    """Whether the rule of csrc/topk/insert.hpp sends (n, k) to the lanes route (bool keys
    run at the lowest level built: csrc/topk/driver.cpp)."""
    return (_has_lanes(dtype) and not filters(n, k, dtype.itemsize)
            and 1 <= k <= K._tuning()["lanes_max_k"])


def _has_lanes(dtype: np.dtype) -> bool:
    if dtype != np.bool_:
        return K.topk_lanes()
    with _core.level(_core.available_levels()[0]):
        return K.topk_lanes()


#: Values whose key is 0 (the packed word's high half; csrc/common/keys.hpp), with the
#: direction that orders them last.
KEY_ZERO = [(np.int32(np.iinfo(np.int32).min), True), (np.uint32(0), True),
            (np.float32(np.nan), False), (np.int32(np.iinfo(np.int32).max), False),
            (np.uint32(np.iinfo(np.uint32).max), False), (np.float16(np.nan), False),
            (np.int16(np.iinfo(np.int16).min), True), (np.uint8(255), False),
            (np.bool_(False), True), (np.bool_(True), False)]


@pytest.mark.parametrize("value, largest", KEY_ZERO, ids=repr)
def test_the_last_key_is_not_an_empty_lane(value, largest):
    """Lanes past a sequence's end hold word 0, below every packed word; sequences of the
    key 0 alone, or with one other key, still give their own indices, lowest first."""
    for level in _core.available_levels():
        with _core.level(level), _core.tuned(**NO_FILTER):
            for n in (1, 3, 5, 16, 17, 40):
                x = np.full((4, n), value)
                x[1, n // 2] = not value if x.dtype == np.bool_ else 7  # one key not 0
                x[2, -1] = x[1, n // 2]
                for k in range(1, min(n, 4) + 1):
                    taken = check_insert(x, k, largest)
                    assert ("topk_lanes" in taken) == _laned(n, k, x.dtype), (level, n, k)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_lanes_route_at_every_level(dtype):
    for level in _core.available_levels():
        with _core.level(level):
            for n in LENGTHS:
                for k in sorted({1, 2, 3, 4, 5, n} & set(range(1, n + 1))):
                    for kind in ("random", "ties", "special"):
                        x = route_data(dtype, (7, n), kind, seed=n * 31 + k)
                        for largest in (True, False):
                            taken = check_insert(x, k, largest)
                            assert ("topk_lanes" in taken) == _laned(n, k, dtype), \
                                (level, n, k, taken)


@pytest.mark.parametrize("lanes_max_k", [1, 2, 3, 4])
def test_lanes_route_for_each_k_it_serves(lanes_max_k):
    """With the filter off, every k up to lanes_max_k is the lanes route's, and k past it
    the extraction's."""
    for n in LENGTHS:
        for k in range(1, min(n, lanes_max_k + 1) + 1):
            x = route_data(np.dtype("float32"), (5, n), "ties", seed=k)
            taken = check_insert(x, k, True, lanes_max_k=lanes_max_k, **NO_FILTER)
            assert ("topk_lanes" in taken) == (K.topk_lanes() and k <= lanes_max_k), (n, k)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 300), k=st.integers(1, 4), rows=st.integers(1, 20),
       width=st.integers(1, 1 << 12), largest=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_lanes_route_matches_the_oracle(n, k, rows, width, largest, seed):
    """Random widths of values: from all ties to nearly all distinct, NaN among them."""
    k = min(k, n)
    x = np.random.default_rng(seed).integers(0, width, (rows, n)).astype(np.float32)
    x[x == 0] = np.nan
    check_insert(x, k, largest, **NO_FILTER)


@settings(max_examples=60, deadline=None)
@given(dtype=st.sampled_from(DTYPES), kind=st.sampled_from(["random", "ties", "special"]),
       n=st.integers(1, 300), k=st.integers(1, 4), rows=st.integers(1, 20),
       largest=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_lanes_route_matches_the_oracle_for_every_width(dtype, kind, n, k, rows, largest,
                                                         seed):
    check_insert(route_data(dtype, (rows, n), kind, seed), min(k, n), largest, **NO_FILTER)


def test_lanes_route_in_layouts_and_threads(threads):
    """Rows that are not back to back (every other column, a Fortran-order copy, rows in
    reverse, a slice of columns whose rows lie apart), int32 indices and several threads
    give the same bits."""
    x = route_data(np.dtype("float32"), (300, 64), "random", seed=5)
    want = axisops.topk(x, 2, 1, backend="numpy")
    for view in (x[:, ::2], np.asfortranarray(x), x[::-1], x[:, 5:50]):
        for count in (1, 2, 3):
            threads(count)
            assert "topk_lanes" in check_insert(view, 2, True) or not K.topk_lanes()
    got = axisops.topk(x, 2, 1, index_dtype=np.int32)
    assert got.indices.dtype == np.int32
    np.testing.assert_array_equal(got.indices, want.indices)
