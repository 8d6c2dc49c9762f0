"""The compiled core's selection family (sort, argsort, kthvalue, median, partition) against
the NumPy oracles of :mod:`axisops.reference`, bit for bit: every strategy and path, every
dtype, tie-heavy data with NaN, +-0.0, +-inf and integer extremes, every layout, 1-3
threads, every instruction-set level this machine runs."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from axisops import _core
from axisops import reference as ref
from axisops.engines import cpu

from oracle import assert_same_bits
from strategies import LAYOUTS, TOPK_DTYPES, arrays, tie_heavy, with_layout

#: dtypes with a 32- or 64-bit key, whose kernels have vector paths of their own.
WIDE = [np.dtype(t) for t in ("float32", "int32", "uint32", "float64", "int64", "uint64")]


#: every layout of tests/strategies.py, and a broadcast one (stride 0 along the last axis).
ALL_LAYOUTS = (*LAYOUTS, "broadcast")


def _in_layout(a: np.ndarray, layout: str) -> np.ndarray:
    if layout == "broadcast":
        return np.broadcast_to(a[..., :1], a.shape)
    return with_layout(a, layout)


def _data(dtype, shape, seed, width=None):
    """Tie-heavy data from the dtype's special pool (width=None: every special value),
    mixed with spread values so that bands and samples have work to do."""
    dtype = np.dtype(dtype)
    x = tie_heavy(dtype, shape, seed, width)
    if dtype.kind in "iuf" or dtype.name == "bfloat16":
        rng = np.random.default_rng(seed + 1)
        spread = rng.random(shape) < 0.6
        if dtype.kind == "f" or dtype.name == "bfloat16":
            noise = rng.standard_normal(shape).astype(np.float32).astype(dtype)
        else:
            info = np.iinfo(dtype)
            noise = rng.integers(info.min, info.max, size=shape, dtype=dtype, endpoint=True)
        x = np.where(spread, noise, x).astype(dtype)
    return x


# ---- sort ----


def _check_sort(x, axis, descending, **kw):
    want_v, want_i = ref.sort(x, axis, descending)
    v, i = cpu.sort(x, axis, descending, **kw)
    assert_same_bits(v, want_v)
    np.testing.assert_array_equal(i, want_i)
    v, none = cpu.sort(x, axis, descending, True, False, **kw)
    assert none is None
    assert_same_bits(v, want_v)
    none, i = cpu.sort(x, axis, descending, False, True, **kw)
    assert none is None
    np.testing.assert_array_equal(i, want_i)


@pytest.mark.parametrize("dtype", TOPK_DTYPES, ids=str)
@pytest.mark.parametrize("strategy, segment", [("rows", None), ("split", 64), ("split", 1000)])
def test_sort_every_dtype_and_strategy(dtype, strategy, segment):
    for shape, axis in (((5, 700), 1), ((300, 4), 0), ((1, 3000), -1), ((2, 3, 50), 1)):
        x = _data(dtype, shape, seed=shape[0])
        for descending in (False, True):
            _check_sort(x, axis, descending, strategy=strategy, segment=segment)


@pytest.mark.parametrize("layout", ALL_LAYOUTS)
@pytest.mark.parametrize("dtype", [np.dtype("float32"), np.dtype("int64"), np.dtype("uint8")],
                         ids=str)
def test_sort_every_layout(dtype, layout):
    x = _in_layout(_data(dtype, (40, 90), seed=3), layout)
    for axis in (0, 1):
        for strategy in ("rows", "split"):
            _check_sort(x, axis, True, strategy=strategy, segment=32)
            _check_sort(x, axis, False, strategy=strategy, segment=32)


def test_sort_contract_examples():
    x = np.array([2.0, np.nan, -0.0, 0.0, 2.0, -np.inf, np.inf], np.float32)
    v, i = cpu.sort(x, 0)
    assert i.tolist() == [5, 2, 3, 0, 4, 6, 1]
    assert [np.signbit(a) for a in v[1:3]] == [True, False]  # -0.0 kept, before +0.0
    v, i = cpu.sort(x, 0, descending=True)
    assert i.tolist() == [1, 6, 0, 4, 2, 3, 5]  # NaN first, ties still by index
    payload = np.array([0x7FC00001, 0xFFC00002, 0x3F800000], np.uint32).view(np.float32)
    for want_indices in (True, False):
        v, _ = cpu.sort(payload, 0, True, True, want_indices)
        assert v.view(np.uint32).tolist() == [0x7FC00001, 0xFFC00002, 0x3F800000]


def test_sort_integer_extremes():
    x = np.array([2**53 + 1, 2**53, -(2**63), 2**63 - 1, -1, 2**53 + 1], np.int64)
    v, i = cpu.sort(x, 0)
    assert v.tolist() == [-(2**63), -1, 2**53, 2**53 + 1, 2**53 + 1, 2**63 - 1]
    assert i.tolist() == [2, 4, 1, 0, 5, 3]
    u = np.array([2**64 - 1, 0, 2**63, 2**53 + 1], np.uint64)
    assert cpu.sort(u, 0, True)[1].tolist() == [0, 2, 3, 1]


def test_sort_bool_keeps_its_bytes():
    x = np.array([0, 2, 1, 0, 255, 1], np.uint8).view(np.bool_)
    for descending in (False, True):
        for want_indices in (True, False):
            v, _ = cpu.sort(x, 0, descending, True, want_indices)
            want, _ = ref.sort(x, 0, descending)
            assert v.view(np.uint8).tolist() == want.view(np.uint8).tolist()


#: Row lengths around the network's powers of two and its default limits (csrc/select/
#: sort.hpp's network_for: 32-bit records up to 4096, 64-bit up to 2048 filling 5/8 of the
#: padding).
NETWORK_LENGTHS = (*range(2, 40), 63, 64, 65, 127, 128, 129, 160, 161, 255, 256, 257, 1000,
                   1023, 1024, 1025, 1281, 2047, 2048, 2049, 3071, 3072, 4095, 4096, 4097,
                   6143, 6144, 8192, 8193)


def _network_expected(dtype: np.dtype, n: int, values_only: bool) -> bool:
    """Whether the level in use sorts rows of n elements of dtype by the sorting network:
    a values sort of a 32- or 64-bit key sorts keys alone, an argsort of a key of up to
    32 bits sorts key-and-index words (64 bits), wider keys with an index never."""
    if (dtype.itemsize < 4) if values_only else (dtype.itemsize == 8):
        return False
    bits = 8 * dtype.itemsize if values_only else 64
    if bits not in _core.kernels.sort_networks():
        return False
    t = _core.kernels._tuning()
    if bits == 32:
        return n <= t["sort_network_max"]
    padded = max(16, 1 << (n - 1).bit_length())  # network.hpp's MIN_RECORDS, a power of two
    most, fill = ((t["sort_network_keys64_max"], t["sort_network_keys64_fill"]) if values_only
                  else (t["sort_network_max64"], t["sort_network_fill64"]))
    return n <= most and 8 * n >= fill * padded


@pytest.mark.parametrize("dtype", [*WIDE, np.dtype("float16"), np.dtype("uint8")], ids=str)
def test_sort_rows_by_the_network_at_every_level(dtype):
    """Rows short enough for the sorting network (one per level: 16 lanes of 32 bits at
    avx512, 8 at avx2, none at the baseline) give the oracle's bits in both directions,
    values alone and with indices, at every row length around the network's padding, and
    take the network exactly where the rule says."""
    for level in _core.available_levels():
        with _core.level(level):
            for n in NETWORK_LENGTHS:
                x = _data(dtype, (3, n), seed=n)
                for descending in (False, True):
                    want_v, want_i = ref.sort(x, 1, descending)
                    for values, indices in ((True, False), (False, True), (True, True)):
                        with _core.paths_taken() as taken:
                            v, i = cpu.sort(x, 1, descending, values, indices,
                                            strategy="rows")
                        expected = _network_expected(dtype, n, not indices)
                        assert ("sort_rows_network" in taken) == expected, (level, n, taken)
                        if values:
                            assert_same_bits(v, want_v)
                        if indices:
                            np.testing.assert_array_equal(i, want_i)


def test_sort_network_levels():
    """The levels whose vectors hold 8 or more 32-bit keys have the 32-bit network; only
    avx512 the 64-bit one (where each beats the radix passes); the baseline has none."""
    want = {"baseline": [], "avx2": [32], "avx512": [32, 64]}
    for level in _core.available_levels():
        with _core.level(level):
            assert _core.kernels.sort_networks() == want.get(level, []), level


def test_sort_one_long_row_by_parts(threads):
    x = _data("float32", (1, 300_000), seed=9, width=6)
    want_v, want_i = ref.sort(x, -1)
    for t in (1, 2, 3):
        threads(t)
        assert cpu.sort_strategy(x, -1) == ("split" if t > 1 else "rows")
        for strategy in ("rows", "split"):
            v, i = cpu.sort(x, -1, strategy=strategy)
            assert_same_bits(v, want_v)
            np.testing.assert_array_equal(i, want_i)


# ---- kthvalue and median ----


def _check_kth(x, axis, k, **kw):
    want_v, want_i = ref.kthvalue(x, k, axis)
    v, i = cpu.kthvalue(x, axis, k, **kw)
    assert_same_bits(v, want_v)
    np.testing.assert_array_equal(i, want_i)


def _ks(n):
    return sorted({1, 2, n // 3 + 1, (n - 1) // 2 + 1, n - 1, n} & set(range(1, n + 1)))


@pytest.mark.parametrize("dtype", TOPK_DTYPES, ids=str)
@pytest.mark.parametrize("strategy, segment", [("rows", None), ("split", 300), ("radix", None),
                                               ("split", None)])
def test_kthvalue_every_dtype_and_strategy(dtype, strategy, segment):
    # n <= 512 searches by value; longer rows take the sampled band, its narrowing and the
    # final pivot search; rows after the first take their bounds from the one before.
    for shape, width in (((3, 100), 3), ((6, 2000), None), ((2, 6000), 5), ((20, 700), 2)):
        x = _data(dtype, shape, seed=shape[1], width=width)
        for k in _ks(shape[1]):
            _check_kth(x, 1, k, strategy=strategy, segment=segment)


@pytest.mark.parametrize("sigmas", [0.01, 0.5, 8.0])
@pytest.mark.parametrize("dtype", WIDE, ids=str)
def test_kthvalue_bands_that_miss_or_hold_everything(dtype, sigmas):
    # A band of 0.01 deviations misses most of the time (the exact fallback answers); one
    # of 8 holds most of the row (the narrowing and the pivot search do the work).
    x = _data(dtype, (8, 5000), seed=11)
    for k in (1, 77, 2500, 4999, 5000):
        for strategy in ("rows", "split"):
            _check_kth(x, 1, k, strategy=strategy, segment=1200, sigmas=sigmas)


def test_kthvalue_rows_unlike_each_other():
    # Each row shifted far from the one before: the bounds a row leaves miss the next.
    base = np.random.default_rng(5).standard_normal((30, 3000)).astype(np.float32)
    x = base + (np.arange(30, dtype=np.float32)[:, None] * 100) * np.where(
        np.arange(30)[:, None] % 2 == 0, 1, -1)
    for k in (1, 10, 1500, 3000):
        _check_kth(x, 1, k)


@pytest.mark.parametrize("values", [1, 2, 3])
@pytest.mark.parametrize("strategy", ["rows", "split"])
def test_kthvalue_few_values_repeated(values, strategy):
    # Every element ties with a third (or half, or all) of the others: the band is a
    # single key, or holds most of the sequence.
    x = np.random.default_rng(values).integers(0, values, (3, 20_000)).astype(np.float32)
    x[:, ::7] = -0.0
    for k in (1, 6_666, 10_000, 13_334, 20_000):
        _check_kth(x, 1, k, strategy=strategy, segment=4096)


def test_kthvalue_split_candidates_past_their_budget():
    # 2^21 elements of three values: a band holds a third of them, more than the
    # candidates' budget, so the split selection counts past it (and locates the element
    # when the band is one key, or falls back to the radix select).
    n = 1 << 21
    x = np.random.default_rng(2).integers(-1, 2, (1, n)).astype(np.float32)
    x[0, -5:] = [np.nan, -np.inf, 0.5, -0.5, np.inf]
    for k in (1, n // 3, n // 2, n - 7, n):
        _check_kth(x, 1, k, strategy="split")


@pytest.mark.parametrize("layout", ALL_LAYOUTS)
@pytest.mark.parametrize("dtype", [np.dtype("float32"), np.dtype("float64"), np.dtype("int8")],
                         ids=str)
def test_kthvalue_every_layout(dtype, layout):
    x = _in_layout(_data(dtype, (30, 900), seed=4), layout)
    for axis, n in ((0, 30), (1, 900)):
        for k in (1, n // 2, n):
            for strategy in ("rows", "split", "radix"):
                _check_kth(x, axis, k, strategy=strategy, segment=100)


@pytest.mark.parametrize("sigmas", [0.0, 8.0])
def test_kthvalue_rows_past_their_candidate_room(sigmas):
    # Rows of 600k elements of three values: a band holds a third of a row or more, past
    # the candidates' room (an eighth), so the row locates its element among the equal
    # keys (a band of one key), or the radix select answers.
    n = 600_000
    x = np.random.default_rng(7).integers(-1, 2, (2, n)).astype(np.float32)
    for k in (1, n // 3, n // 2, n - 1, n):
        _check_kth(x, 1, k, strategy="rows", sigmas=sigmas)


def test_kthvalue_one_dimension_and_long_rows(threads):
    x = _data("float32", (250_000,), seed=8, width=8)
    for t in (1, 2, 3):
        threads(t)
        for k in (1, 3, 125_000, 249_999, 250_000):
            _check_kth(x, 0, k)


def test_median_is_kthvalue_of_the_lower_middle():
    x = np.array([[4.0, np.nan, 1.0, 2.0], [3.0, 3.0, -0.0, 0.0]], np.float32)
    n = x.shape[1]
    v, i = cpu.kthvalue(x, 1, (n - 1) // 2 + 1)
    want_v, want_i = ref.median(x, 1)
    assert_same_bits(v, want_v)
    assert i.tolist() == want_i.tolist() == [3, 3]
    # the lower median of [3, 3, -0.0, 0.0] is rank 1 of the stable order: the +0.0 at 3
    assert not np.signbit(v[1])
    assert v[0] == 2.0


def test_kthvalue_integer_extremes():
    x = np.array([2**53 + 1, 2**53, -(2**63), 2**63 - 1, 2**53 + 1] * 200, np.int64)
    for k in (1, 200, 201, 400, 401, 600, 601, 1000):
        _check_kth(x, 0, k)
    u = np.array([2**64 - 1, 0, 2**63, 2**53 + 1] * 300, np.uint64)
    for k in (1, 300, 301, 900, 901, 1200):
        _check_kth(u, 0, k)


# ---- partition and argpartition ----


def _check_partition(x, axis, kth, **kw):
    want_i = ref.argpartition(x, kth, axis)
    want_v = ref.partition(x, kth, axis)
    v, i = cpu.partition(x, axis, kth, **kw)
    assert_same_bits(v, want_v)
    np.testing.assert_array_equal(i, want_i)
    v, none = cpu.partition(x, axis, kth, True, False, **kw)
    assert none is None
    assert_same_bits(v, want_v)
    none, i = cpu.partition(x, axis, kth, False, True, **kw)
    assert none is None
    np.testing.assert_array_equal(i, want_i)


def _kths(n):
    return [0, n - 1, n // 2, -1, [0, n - 1], [n // 3, n // 2, n // 2, -1], list(range(0, n, 7))]


@pytest.mark.parametrize("dtype", TOPK_DTYPES, ids=str)
@pytest.mark.parametrize("strategy, segment", [("rows", None), ("split", 500)])
def test_partition_every_dtype_and_strategy(dtype, strategy, segment):
    # Rows longer than a chunk (2048) put the pivot's index in any chunk.
    for shape in ((4, 60), (3, 2500), (2, 5000)):
        x = _data(dtype, shape, seed=shape[1], width=4)
        for kth in _kths(shape[1]):
            _check_partition(x, 1, kth, strategy=strategy, segment=segment)


@pytest.mark.parametrize("sigmas", [0.01, 0.0, 8.0])
@pytest.mark.parametrize("dtype", WIDE, ids=str)
def test_partition_split_whatever_the_selection_took(dtype, sigmas):
    # A split partition counts each part's sides from the selection's candidates, or,
    # after the exact fallback (bands of 0.01 deviations miss), by a counting pass.
    x = _data(dtype, (2, 6000), seed=12)
    for kth in (0, 1, 2999, 5998, 5999, [10, 3000]):
        _check_partition(x, 1, kth, strategy="split", segment=700, sigmas=sigmas)


@pytest.mark.parametrize("layout", ALL_LAYOUTS)
@pytest.mark.parametrize("dtype", [np.dtype("float32"), np.dtype("uint64"), np.dtype("int16")],
                         ids=str)
def test_partition_every_layout(dtype, layout):
    x = _in_layout(_data(dtype, (20, 300), seed=6), layout)
    for axis, n in ((0, 20), (1, 300)):
        for kth in (0, n // 2, [1, n - 2]):
            for strategy in ("rows", "split"):
                _check_partition(x, axis, kth, strategy=strategy, segment=64)


def test_partition_order_is_documented():
    x = np.array([3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0, 5.0, 3.0], np.float32)
    v, i = cpu.partition(x, 0, 4)
    # rank 4 is the second 3.0 (index 9); before it ranks 0-3 in index order, after it
    # ranks 5-9 in index order
    assert i.tolist() == [0, 1, 3, 6, 9, 2, 4, 5, 7, 8]
    assert v.tolist() == [3, 1, 1, 2, 3, 4, 5, 9, 6, 5]
    v, i = cpu.partition(x, 0, [2, 7])
    assert i.tolist() == [1, 3, 6, 0, 2, 4, 9, 8, 5, 7]


# ---- every path at once: threads, levels, hypothesis ----


def _everything() -> bytes:
    out = []
    rng = np.random.default_rng(35)
    ties = rng.integers(-3, 3, (40, 3000)).astype(np.float32)
    ties[rng.random(ties.shape) < 0.02] = np.nan
    ties[rng.random(ties.shape) < 0.05] = -0.0
    wide = rng.integers(-(2**63), 2**63 - 1, (30, 700), dtype=np.int64)
    half = rng.standard_normal((1, 200_000)).astype(np.float16)
    small = rng.integers(0, 5, (200, 9)).astype(np.uint8)
    for x, axis in ((ties, 1), (ties.T, 0), (wide, 1), (half, 1), (small, 0), (small, 1)):
        n = x.shape[axis]
        for strategy in ("rows", "split"):
            for descending in (False, True):
                out += [a.tobytes() for a in cpu.sort(x, axis, descending, strategy=strategy)]
                out.append(cpu.sort(x, axis, descending, True, False, strategy=strategy)[0]
                           .tobytes())
            for k in (1, n // 2 + 1, n):
                out += [a.tobytes() for a in cpu.kthvalue(x, axis, k, strategy=strategy)]
            for kth in (n // 3, [0, n // 2, n - 1]):
                out += [a.tobytes() for a in cpu.partition(x, axis, kth, strategy=strategy)]
    return b"".join(out)


def test_same_bits_for_any_thread_count(threads):
    results = []
    for t in (1, 2, 3):
        threads(t)
        results.append(_everything())
    assert results[0] == results[1] == results[2]


@pytest.mark.skipif(len(_core.available_levels()) < 2,
                    reason="this CPU runs one instruction-set level only")
def test_every_level_gives_the_same_bits():
    results = {}
    for level in _core.available_levels():
        with _core.level(level):
            results[level] = _everything()
    first = next(iter(results.values()))
    assert all(r == first for r in results.values()), list(results)


@st.composite
def select_cases(draw):
    x = draw(arrays(dtypes=TOPK_DTYPES, min_dims=1, max_dims=3, max_side=7, min_side=1))
    axis = draw(st.integers(-x.ndim, x.ndim - 1))
    layout = draw(st.sampled_from(LAYOUTS))
    strategy = draw(st.sampled_from(["rows", "split"]))
    segment = draw(st.integers(1, 9))
    return with_layout(x, layout), axis, strategy, segment


@settings(max_examples=150)
@given(select_cases(), st.data())
def test_hypothesis_every_op_matches_the_oracle(case, data):
    x, axis, strategy, segment = case
    n = x.shape[axis]
    descending = data.draw(st.booleans())
    _check_sort(x, axis, descending, strategy=strategy, segment=segment)
    k = data.draw(st.integers(1, n))
    _check_kth(x, axis, k, strategy=data.draw(st.sampled_from([strategy, "radix"])),
               segment=segment)
    kth = data.draw(st.one_of(st.integers(-n, n - 1),
                              st.lists(st.integers(-n, n - 1), min_size=1, max_size=4)))
    _check_partition(x, axis, kth, strategy=strategy, segment=segment)


@settings(max_examples=40)
@given(st.sampled_from(TOPK_DTYPES), st.integers(513, 4000), st.integers(0, 2**31),
       st.data())
def test_hypothesis_long_rows_with_every_special_value(dtype, n, seed, data):
    # Long enough for the sampled band; drawn from every special value of the dtype.
    x = tie_heavy(dtype, (2, n), seed, width=None)
    k = data.draw(st.integers(1, n))
    _check_kth(x, 1, k)
    _check_kth(x, 1, k, strategy="split", segment=data.draw(st.integers(100, n)))
    _check_partition(x, 1, k - 1)
    _check_sort(x, 1, data.draw(st.booleans()))


# ---- what the bindings refuse ----


def test_bad_calls_are_refused_not_crashed():
    x = np.arange(10, dtype=np.float32)
    with pytest.raises(ValueError, match="k out of range"):
        cpu.kthvalue(x, 0, 11)
    with pytest.raises(ValueError, match="k out of range"):
        cpu.kthvalue(x, 0, 0)
    with pytest.raises(ValueError, match="kths must be"):
        cpu.partition(x, 0, 10)
    with pytest.raises(ValueError, match="unknown sort strategy"):
        cpu.sort(x, 0, strategy="bogus")
    with pytest.raises(ValueError, match="unknown kthvalue strategy"):
        cpu.kthvalue(x, 0, 3, strategy="bogus")
    kernels = _core.kernels
    raw = x.view(np.uint32)
    with pytest.raises(ValueError, match="values must have x's shape"):
        kernels.sort(raw, 2, 0, False, np.empty(9, np.uint32), None, 1)
    with pytest.raises(ValueError, match="needs values or indices"):
        kernels.sort(raw, 2, 0, False, None, None, 1)
    with pytest.raises(ValueError, match="axis out of range"):
        kernels.kthvalue(raw, 2, 1, 1, np.empty((), np.uint32), np.empty((), np.int64), 1)
    with pytest.raises(ValueError, match="sorted, unique"):
        kernels.partition(raw, 2, 0, [3, 3], np.empty(10, np.uint32), None, 1)


def test_empty_arrays():
    x = np.empty((0, 5), np.float32)
    v, i = cpu.sort(x, 1)
    assert v.shape == i.shape == (0, 5)
    v, i = cpu.kthvalue(x, 1, 2)
    assert v.shape == i.shape == (0,)
    v, i = cpu.partition(x, 1, 2)
    assert v.shape == i.shape == (0, 5)
