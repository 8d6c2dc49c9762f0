"""The insert strategy's filter route (csrc/topk/filter.hpp) against the oracle.

Short sequences of 32-bit keys take it at the avx512 level where the tuning's filter_*
fields say: only the keys at or above the k-th largest of the sequence's 16 lane maxima
are ranked, and when more than 16 pass (keys with many ties) they are extracted instead.
Every k it serves, lengths around the 16 lanes, random, tie-heavy and special data, both
directions, every level this machine runs: the oracle's bits, and the route taken exactly
where the level has it and the rule says.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from axisops import _core
from insert_routes import check_insert, filters, route_data

K = _core.kernels
DTYPES = [np.dtype(d) for d in ("float32", "int32", "uint32")]
LENGTHS = (1, 2, 15, 16, 17, 31, 32, 33, 48, 64, 100, 127, 128, 129, 250)


@pytest.mark.parametrize("dtype", DTYPES, ids=str)
def test_filter_route_at_every_level(dtype):
    for level in _core.available_levels():
        with _core.level(level):
            for n in LENGTHS:
                for k in sorted({1, 2, 3, 4, 5, 8, 10, 15, 16, n} & set(range(1, n + 1))):
                    for kind in ("random", "ties", "special"):
                        x = route_data(dtype, (9, n), kind, seed=n * 31 + k)
                        for largest in (True, False):
                            taken = check_insert(x, k, largest)
                            assert ("topk_filter" in taken) == filters(n, k), \
                                (level, n, k, taken)


def test_filter_route_with_every_k_it_can_serve():
    """Widened to k = 1 and rows of any length, the route still gives the oracle's bits at
    every level, and where a level has it both of its ends (ranked and extracted
    candidates) are taken."""
    for level in _core.available_levels():
        with _core.level(level):
            seen: set[str] = set()
            for n in LENGTHS:
                for k in range(1, min(n, 16) + 1):
                    for kind in ("random", "ties"):
                        x = route_data(np.dtype("float32"), (5, n), kind, seed=k)
                        seen |= check_insert(x, k, True, filter_min_k=1, filter_min_work=0, filter_n_per_k=0)
            routes = {"topk_filter", "topk_filter_many"}
            assert seen & routes == (routes if K.topk_filter() else set()), level


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 300), k=st.integers(1, 16), rows=st.integers(1, 20),
       width=st.integers(1, 1 << 12), largest=st.booleans(), seed=st.integers(0, 2**32 - 1))
def test_filter_route_matches_the_oracle(n, k, rows, width, largest, seed):
    """Random widths of values: from all ties to nearly all distinct."""
    k = min(k, n)
    x = np.random.default_rng(seed).integers(0, width, (rows, n)).astype(np.float32)
    x[x == 0] = np.nan
    check_insert(x, k, largest, filter_min_k=1, filter_min_work=0, filter_n_per_k=0)


def test_filter_route_in_layouts_and_threads(threads):
    """Rows that are not back to back (every other column, a Fortran-order copy, rows in
    reverse) and several threads give the same bits."""
    x = route_data(np.dtype("float32"), (300, 200), "random", seed=5)
    for view in (x[:, ::2], np.asfortranarray(x), x[::-1]):
        for count in (1, 2, 3):
            threads(count)
            assert "topk_filter" in check_insert(view, 10, True) or not K.topk_filter()
