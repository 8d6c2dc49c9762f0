"""The compiled core's scan and split strategies (csrc/topk/scan.hpp) against the oracle.

Every path of the scan runs here on purpose: sampled first bounds, hoped-for bounds and
their re-scan, bands, candidate buffers compacted (and the bound raised inside a segment),
the early stop when the k best are all the largest key, the radix select and the grouped
bound of block maxima; and the split's parts and merge. Segments are forced short so that
small arrays have many of them. Results are compared with the NumPy oracle bit for bit.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import axisops
from axisops import _core
from axisops.dtypes import as_dtype
from axisops.engines import cpu
from axisops.validation import ArrayMeta, topk_spec

from oracle import assert_same_bits
from strategies import BF16, LAYOUTS, PATTERNS, TOPK_DTYPES, special_values, with_layout

K = _core.kernels
C = dict(K._SCAN_CONSTANTS)
C.update({name.upper(): value for name, value in K._tuning_defaults().items()})
C["MIN_BUFFER"] = C["SCAN_MIN_BUFFER"]
SORTED_K = C["SORTED_K"]
ONE_BAND = 1 << 30  # a band height that makes one band of any segment
STRATEGIES = ("scan", "split")


def _spec(x, k, axis, largest, sorted_=True):
    return topk_spec(ArrayMeta(x.shape, x.dtype), k, axis, largest, sorted_, None)


def _reference(x, k, axis, largest):
    return axisops.topk(np.asarray(x), k, axis, largest=largest, backend="numpy")


def _check(x, k, axis, largest, strategy, segment=None, sorted_=True):
    values, indices = cpu.topk(x, _spec(x, k, axis, largest, sorted_), strategy=strategy,
                               segment=segment)
    want = _reference(x, k, axis, largest)
    if sorted_:
        assert_same_bits(values, want.values)
        np.testing.assert_array_equal(indices, want.indices)
    else:
        np.testing.assert_array_equal(np.sort(indices, axis), np.sort(want.indices, axis))
        assert_same_bits(values, np.take_along_axis(np.asarray(x), indices, axis))


@pytest.fixture(params=[1, 2, 3])
def threads(request):
    old = axisops.get_num_threads()
    axisops.set_num_threads(request.param)
    yield request.param
    axisops.set_num_threads(old)


def _raw_kind(x):
    return cpu._raw(x), cpu._kind(x.dtype)


def _scan(row, k, largest=True, segment=0, band_rows=0):
    """(candidate indices, their keys, stats) of one scan of the 1-D ``row``."""
    raw, kind = _raw_kind(row)
    idx, keys, stats = K._scan_sequence(raw, kind, k, largest, segment, band_rows)
    return np.array(idx, np.int64), np.array(keys, np.uint64), stats


def _best(idx, keys, k):
    """The k best of scan candidates by the tie rule (larger key, then lower index)."""
    order = sorted(range(len(idx)), key=lambda t: (-int(keys[t]), int(idx[t])))[:k]
    return idx[order]


def _oracle_order(row, k, largest=True):
    return _reference(row.reshape(1, -1), k, 1, largest).indices[0]


@st.composite
def long_cases(draw):
    """Arrays long enough along the axis for blocks, bounds and several segments."""
    dtype = draw(st.sampled_from(TOPK_DTYPES))
    pool = special_values(dtype)
    shape = draw(st.lists(st.integers(1, 3), min_size=0, max_size=2))
    n = draw(st.integers(1, 600))
    axis = draw(st.integers(0, len(shape)))
    shape.insert(axis, n)
    picks = np.array(draw(st.lists(st.integers(0, len(pool) - 1), min_size=1, max_size=8)))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    data = pool[picks[rng.integers(0, len(picks), size=int(np.prod(shape)))]].reshape(shape)
    order = draw(st.sampled_from(["random", "ascending", "descending"]))
    if order != "random":
        keys = axisops.topk(data, n, axis, largest=False, backend="numpy").indices
        data = np.take_along_axis(data, keys, axis)
        data = np.flip(data, axis=axis) if order == "descending" else data
    k = draw(st.sampled_from(sorted({1, min(2, n), min(SORTED_K, n), min(SORTED_K + 1, n), n,
                                     draw(st.integers(1, n))})))
    return data, k, axis, draw(st.booleans()), draw(st.sampled_from(LAYOUTS))


@given(case=long_cases(), strategy=st.sampled_from(STRATEGIES),
       segment=st.sampled_from([16, 48, 64, 100, None]), sorted_=st.booleans(),
       threads=st.integers(1, 3))
def test_every_path_matches_the_oracle(case, strategy, segment, sorted_, threads):
    x, k, axis, largest, layout = case
    old = axisops.get_num_threads()
    try:
        axisops.set_num_threads(threads)
        _check(with_layout(x, layout), k, axis, largest, strategy, segment, sorted_)
    finally:
        axisops.set_num_threads(old)


@pytest.mark.parametrize("dtype", [np.dtype("float32"), np.dtype("int64"), np.dtype("uint8"),
                                   np.dtype("float16"), BF16, np.dtype(bool)], ids=str)
@pytest.mark.parametrize("pattern", sorted(PATTERNS))
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_adversarial_orders(dtype, pattern, strategy, threads):
    pool = special_values(dtype)
    if dtype.kind == "f" or dtype == BF16:
        pool = pool[~np.isnan(pool.astype(np.float32))]
    row = PATTERNS[pattern](3000, pool).astype(dtype)
    x = np.stack([row, row[::-1]], axis=1)  # (3000, 2): axis 0 is not contiguous
    for axis in (0, 1) if strategy == "scan" else (0,):
        n = x.shape[axis]
        for k in sorted({1, 5, SORTED_K, SORTED_K + 1, 64, n} & set(range(1, n + 1))):
            for largest in (True, False):
                _check(x, k, axis, largest, strategy, segment=128)  # 24 segments: sampled


RISING = {
    "ascending": lambda i, n: i,
    "organ-pipe": lambda i, n: np.minimum(i, n - 1 - i) * 2 + (i > n // 2),
    "interleaved": lambda i, n: i // 16 * 16 + i * 7 % 16,
    "sawtooth-on-a-ramp": lambda i, n: (i % 97) * n + i,
}


@pytest.mark.parametrize("dtype", [np.dtype("float32"), np.dtype("int64")], ids=str)
@pytest.mark.parametrize("pattern", sorted(RISING))
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_rising_sequences_of_distinct_values(dtype, pattern, strategy):
    """The sampled first bounds: with distinct values a bound one element too high loses an
    element (tie-heavy data cannot tell)."""
    n = 5000
    row = RISING[pattern](np.arange(n), n).astype(dtype)
    x = np.stack([row, -row], axis=1)  # largest=False on -row is the same rise
    for axis in (0,) if strategy == "split" else (0, 1):
        for k in sorted({1, 5, SORTED_K, SORTED_K + 1, 300} & set(range(1, x.shape[axis] + 1))):
            for largest in (True, False):
                _check(x, k, axis, largest, strategy, segment=128)  # 40 segments


@pytest.mark.parametrize("pattern", sorted(RISING))
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_a_large_k_samples_more_segments_for_its_first_bound(pattern, strategy):
    """k = 1100 over 313 segments samples SAMPLE_MAX of them (one per SAMPLE_K of k) for
    the first bound: still a lower bound of the k-th best on rising input, where the last
    segments hold all of it."""
    n, k, segment = 40_000, 1100, 128
    row = RISING[pattern](np.arange(n), n).astype(np.int64)
    assert k // C["SAMPLE_K"] >= C["SAMPLE_MAX"]
    assert _scan(row, k, segment=segment)[2]["sampled"] == C["SAMPLE_MAX"]
    x = np.stack([row, -row], axis=1)
    for largest in (True, False):
        _check(x, k, 0, largest, strategy, segment=segment)


@pytest.mark.parametrize("dtype", [np.dtype("float32"), np.dtype("int64"), np.dtype("uint16")],
                         ids=str)
@pytest.mark.parametrize("pattern", ["random", "ties", "outlier", *sorted(RISING)])
def test_scan_bound_from_a_radix_select_of_block_maxima(dtype, pattern):
    """k > SORTED_K: the bound comes from a radix select of the block maxima (a bound above
    the k-th largest maximum loses elements; distinct values make every such error visible).
    "outlier" puts the extreme value once in a row, so one level of buckets is too coarse
    and the select goes a level deeper."""
    n = 40_000  # two segments of 20 000 at unit stride: 1216 blocks each
    rng = np.random.default_rng(len(pattern))
    if pattern == "random":
        row = rng.permutation(n)
    elif pattern in ("ties", "outlier"):
        row = rng.integers(0, 50, n)
    else:
        row = RISING[pattern](np.arange(n), n)
    row = (row % 60_000 if dtype == np.uint16 else row).astype(dtype)
    if pattern == "outlier":
        row[n // 3] = np.iinfo(dtype).max if dtype.kind in "iu" else np.inf
    x = row.reshape(1, n)
    for k in (SORTED_K + 1, 50, 76, 300):
        for largest in (True, False):
            _check(x, k, 1, largest, "scan")
            _check(x.T, k, 0, largest, "scan")  # a strided sequence: through the key tile


def _radix_bound_inputs():
    rng = np.random.default_rng(11)
    for dtype in (np.uint8, np.uint16, np.uint32, np.uint64):
        top = np.iinfo(dtype).max
        yield rng.integers(0, top, 576, dtype=dtype, endpoint=True)            # full range
        yield rng.integers(0, 3, 700, dtype=dtype)                             # ties
        yield np.full(100, top, dtype)                                         # all one value
        clustered = (top // 2 + rng.integers(0, 40, 1200)).astype(dtype)
        clustered[7] = top                                                     # an outlier
        clustered[8] = 0
        yield clustered
        yield np.sort(rng.integers(0, top, 2000, dtype=dtype, endpoint=True))  # rising
        # the least value has low bits set and many sit at the very top: the top bucket's
        # last value, least + (top bucket + 1) * width - 1, lies past the type
        near_top = dtype(top) - rng.integers(0, min(1000, top), 600, dtype=dtype)
        near_top[3] = 5
        yield near_top


@pytest.mark.parametrize("case", range(24))
def test_radix_bound_is_reached_by_k_values_and_tight(case):
    """radix_bound(vals, k): at least k values reach it, it is at most the k-th largest,
    and at most BOUND_SLACK - 1 more values reach it than reach the k-th largest (each
    extra value is one more block for the scan to read)."""
    vals = list(_radix_bound_inputs())[case]
    m = vals.shape[0]
    ordered = np.sort(vals)[::-1]
    for k in sorted({1, 2, 33, m // 7 + 1, m // 2, m - 1, m} - {0}):
        bound = K._scan_radix_bound(vals, k)
        kth = int(ordered[k - 1])
        reach = int(np.count_nonzero(vals >= vals.dtype.type(bound)))
        assert bound <= kth and reach >= k
        assert reach <= max(k - 1 + C["BOUND_SLACK"], int(np.count_nonzero(vals >= kth)))


@pytest.mark.parametrize("case", range(24))
def test_kth_bound_up_to_sorted_k(case):
    """kth_bound(vals, m, k) for k <= SORTED_K: the k-th largest itself when it inserts
    every value (m < 4 * GROUP * k), else the k-th largest of the group maxima (group g is
    vals[r * groups + g]); either way at most the k-th largest, and reached by k values."""
    vals = list(_radix_bound_inputs())[case]
    group = C["GROUP"]
    for m in {vals.shape[0], vals.shape[0] - 3}:
        ordered = np.sort(vals[:m])[::-1]
        groups = m // group
        gmax = vals[:groups * group].reshape(group, groups).max(axis=0)
        for k in sorted({1, 2, 3, 10, 17, SORTED_K} & set(range(1, m + 1))):
            bound = K._scan_kth_bound(vals, m, k)
            if m >= 4 * group * k:
                assert bound == np.sort(gmax)[::-1][k - 1], (m, k)
            else:
                assert bound == ordered[k - 1], (m, k)
            assert bound <= ordered[k - 1]
            assert np.count_nonzero(vals[:m] >= vals.dtype.type(bound)) >= k


@pytest.mark.parametrize("stride", [1, 3, -1, 0])
@pytest.mark.parametrize("m", [10_000, 10_000 - 7, 700, 96, 31, 5])
def test_segment_maxima_keep_each_bands_maxima(stride, m):
    """With bands, the maxima pass leaves each band's block maxima (rows g*B .. g*B+B-1 of
    the interleaved layout, the last row partial) and their maximum in bmax: the same bmax
    as without bands, at unit stride (keys straight from the input) and through the tile."""
    rng = np.random.default_rng(m)
    flat = rng.integers(0, 2**32, m * max(1, abs(stride)) + 5, dtype=np.uint64).astype(np.uint32)
    if stride > 0:
        x = flat[2:2 + m * stride:stride]
    elif stride < 0:
        x = flat[2:2 + m][::-1]
    else:
        x = np.broadcast_to(flat[2:3], (m,))
    keys = np.asarray(x)  # unsigned keys are the values themselves
    band_rows = C["BAND_ROWS"]
    blocks, rows, plain, none = K._scan_maxima(x, cpu._kind(x.dtype), m, ONE_BAND)
    got_blocks, got_rows, banded, bands = K._scan_maxima(x, cpu._kind(x.dtype), m, band_rows)
    assert none == [] and (blocks, rows) == (got_blocks, got_rows)
    want_blocks = max(1, m // C["BLOCK"])
    want_blocks -= want_blocks % 64 if want_blocks >= 128 else 0  # no scalar tail in a row
    assert (blocks, rows) == (want_blocks, -(-m // want_blocks))
    padded = np.zeros(blocks * rows, np.uint32)
    padded[:m] = keys
    grid = padded.reshape(rows, blocks)  # block j holds elements r * blocks + j
    np.testing.assert_array_equal(plain, grid.max(axis=0))
    np.testing.assert_array_equal(banded, grid.max(axis=0))
    nb = -(-rows // band_rows)
    assert len(bands) == (blocks * nb if nb > 1 else 0)
    for g in range(nb if nb > 1 else 0):
        want = grid[g * band_rows:(g + 1) * band_rows].max(axis=0)
        np.testing.assert_array_equal(bands[g * blocks:(g + 1) * blocks], want)


@pytest.mark.parametrize("pattern", ["random", "ties", "constant", "ascending"])
@pytest.mark.parametrize("k", [1, 24, 100, 250])
@pytest.mark.parametrize("stride", [1, -2])
def test_scan_candidates_are_the_same_with_and_without_bands(pattern, k, stride):
    """A scan with bands (each band's qualifying blocks its own), with bands of one row,
    and with none keeps the same k best, on random rows and on ties that fill and compact
    the candidate buffer (the bound then rises inside a band)."""
    n = 10_000
    rng = np.random.default_rng(k)
    row = {"random": rng.permutation(n), "ties": rng.integers(0, 5, n),
           "constant": np.full(n, 7), "ascending": np.arange(n)}[pattern].astype(np.uint32)
    x = row
    if stride == -2:
        buf = np.zeros(2 * n, row.dtype)
        buf[::2] = row[::-1]
        x = buf[2 * n - 2::-2]
        assert x.strides == (-2 * row.itemsize,)
    assert np.array_equal(x, row)
    want = _oracle_order(row, k)
    banded = 0
    for band_rows in (ONE_BAND, C["BAND_ROWS"], 1):
        idx, keys, stats = _scan(x, k, band_rows=band_rows, segment=n)
        assert len(idx) >= k
        np.testing.assert_array_equal(_best(idx, keys, k), want)
        banded += stats["banded"]
    # one segment of 576 blocks, in which k are expected to qualify: bands from 1 in 16 on
    assert (banded > 0) == (C["BAND_SHARE"] * k >= 576)


@pytest.mark.parametrize("pattern", ["random", "ties", "rising", "in the sample"])
def test_a_hoped_for_first_bound_is_scanned_again_from_the_sure_one_when_too_high(pattern):
    """k = 300 over 40 segments of 1000: a spread sample (4 segments) holds about 30 of the
    k best, so the scan starts from the bound 55 of its block maxima reach, not 300. Random
    and tie-heavy rows take it and find at least k elements reaching it. A rising row does
    not take it (its last segment holds all 55). A row whose 300 largest all lie in the
    sampled segments takes it, finds only 55, and is scanned again from the sure bound.
    Every result is the oracle's."""
    n, k, seg = 40_000, 300, 1000
    parts = -(-n // seg)
    step, ns = -(-n // parts), 4
    assert min(k // C["SAMPLE_K"], C["SAMPLE_MAX"], parts // 8) == ns
    rng = np.random.default_rng(7)
    row = {"random": rng.permutation(n), "ties": rng.integers(0, 3000, n),
           "rising": np.arange(n), "in the sample": rng.permutation(n)}[pattern]
    if pattern == "in the sample":
        for it in range(-ns, 0):
            s0 = (parts - 1 - ((it + ns) * parts) // ns) * step
            row[s0 + rng.choice(step, k // ns, replace=False)] += n
    row = row.astype(np.float32)
    idx, keys, stats = _scan(row, k, segment=seg)
    assert stats["sampled"] == ns
    assert stats["hoped"] == (pattern != "rising")
    assert stats["rescans"] == (pattern == "in the sample")
    np.testing.assert_array_equal(_best(idx, keys, k), _oracle_order(row, k))
    x = row.reshape(1, n)
    for largest in (True, False):
        for strategy in STRATEGIES:
            _check(x, k, 1, largest, strategy, segment=seg)


@pytest.mark.parametrize("dtype", ["float32", "uint8", "int64", "int8", "float16"])
@pytest.mark.parametrize("k", [1, 3, SORTED_K, SORTED_K + 1, 100])
def test_a_scan_whose_k_best_are_all_the_largest_key_stops_early(dtype, k):
    """Once the compacted k best are all the largest key there is (NaN, UINT8_MAX, True,
    ...), nothing later can enter: the scan stops, and the first k of them are the result."""
    dt = as_dtype(dtype)
    top = np.nan if dt.kind == "f" else np.iinfo(dt).max
    n = 20_000
    x = np.zeros(n, dt)
    x[100::7] = top
    idx, keys, stats = _scan(x, k, segment=1000)
    assert stats["all_largest"] == 1 and stats["compactions"] >= 1
    np.testing.assert_array_equal(_best(idx, keys, k), _oracle_order(x, k))
    for strategy in STRATEGIES:
        for largest in (True, False):
            for segment in (1000, None):
                _check(x.reshape(1, n), k, 1, largest, strategy, segment)


def test_ties_raise_the_bound_inside_a_segment():
    """Tie-heavy rows fill the candidate buffer inside a segment: compacted, the bound rises
    past the tied key and the scan goes on after the block it was in."""
    rng = np.random.default_rng(3)
    row = rng.integers(0, 4, 50_000).astype(np.int32)
    for k in (1, 10, SORTED_K + 1, 200):
        idx, keys, stats = _scan(row, k, segment=25_000)
        assert stats["rises"] >= 1, k
        np.testing.assert_array_equal(_best(idx, keys, k), _oracle_order(row, k))


@pytest.mark.parametrize("dtype", TOPK_DTYPES, ids=str)
@pytest.mark.parametrize("strategy", STRATEGIES)
def test_every_key_type_and_its_extremes(dtype, strategy, threads):
    """Every key type with its whole pool of special values (NaN payloads, +-0.0, +-inf,
    INT_MIN, UINT64_MAX, 2^53 + 1 ...), k from 1 to past SORTED_K and large, the default
    segment and a short one, unit and other strides."""
    rng = np.random.default_rng(len(str(dtype)))
    pool = special_values(dtype)
    x = pool[rng.integers(0, len(pool), size=(2, 6000))]
    x[1, 4000:] = pool[rng.integers(0, 2, 2000)]  # a tie-heavy tail
    for k in (1, SORTED_K, SORTED_K + 1, 375):
        for largest in (True, False):
            for segment in (None, 256):
                _check(x, k, 1, largest, strategy, segment)
                if strategy == "scan":
                    _check(x.T, k, 0, largest, strategy, segment)


@pytest.mark.parametrize("stride", [1, -1, 2, 0])
@pytest.mark.parametrize("strategy", STRATEGIES)
@pytest.mark.parametrize("dtype", ["float32", "int16", "float64"])
def test_strides(stride, strategy, dtype, threads):
    """Sequences read in place at unit, negative, step and zero (broadcast) strides."""
    rng = np.random.default_rng(stride + 5)
    n = 5000
    base = rng.integers(-50, 50, (3, 2 * n)).astype(dtype)
    if stride == 1:
        x = base[:, :n]
    elif stride == -1:
        x = base[:, ::-1][:, :n]
    elif stride == 2:
        x = base[:, ::2]
    else:
        x = np.broadcast_to(base[:, :1], (3, n))
    assert x.strides[1] == stride * x.itemsize
    for k in (1, 7, SORTED_K + 1, 300):
        for largest in (True, False):
            for segment in (None, 100):
                _check(x, k, 1, largest, strategy, segment)


@pytest.mark.parametrize("threads_", [1, 2, 3, 5])
def test_thread_count_never_changes_the_bits(threads_):
    """Calls large enough to run on several threads: one long row (split into one part per
    thread) and rows over threads (the scan), tie-heavy, every bit the oracle's."""
    rng = np.random.default_rng(8)
    pool = special_values(np.float32)
    cases = [pool[rng.integers(0, len(pool), size=(1, 50_000))],
             pool[rng.integers(0, 4, size=(2, 40_000))],
             pool[rng.integers(0, 4, size=(37, 2000))]]
    old = axisops.get_num_threads()
    try:
        axisops.set_num_threads(threads_)
        for x in cases:
            for k in (1, 9, SORTED_K + 1, 300):
                for strategy in STRATEGIES:
                    for segment in (None, 500):
                        _check(x, k, 1, True, strategy, segment)
                        _check(x, k, 1, False, strategy, segment, sorted_=False)
    finally:
        axisops.set_num_threads(old)


def test_the_split_has_one_part_per_thread_and_equal_keys_go_to_the_earlier_part():
    """Every part of a long row holds the same keys: the merge must take the earlier part's
    first whenever keys tie, for every thread count (so every cut)."""
    n = 1 << 17
    x = np.tile(np.array([3, 1, 3, 2], np.int32), n // 4).reshape(1, n)
    old = axisops.get_num_threads()
    try:
        for t in (1, 2, 3, 4, 7):
            axisops.set_num_threads(t)
            if t > 1:
                assert cpu.strategy(x, _spec(x, 10, 1, True)) == "split"
            for k in (1, 10, SORTED_K + 1, 1000):
                _check(x, k, 1, True, None)
                _check(x, k, 1, False, "split")
    finally:
        axisops.set_num_threads(old)


def test_the_default_routes_of_the_benchmark_rows():
    """The shapes the scan serves in the benchmark take the scan (or, with fewer rows than
    threads, the split) by default."""
    old = axisops.get_num_threads()
    try:
        axisops.set_num_threads(2)
        for shape, k, want in (((1, 1 << 20), 10, "split"), ((1, 1 << 20), 1000, "split"),
                               ((1000, 10_000), 10, "scan"), ((1000, 10_000), 100, "scan"),
                               ((32, 128_000), 50, "scan"), ((8, 100_000), 10, "scan")):
            x = np.zeros(shape, np.float32)
            assert cpu.strategy(x, _spec(x, k, 1, True)) == want, (shape, k)
    finally:
        axisops.set_num_threads(old)


def test_every_instruction_set_level_gives_the_same_bits():
    """The kernels of every level this machine runs (baseline, AVX2, AVX-512) return the
    same bits for the scan and the split, forced short segments and the default ones."""
    rng = np.random.default_rng(9)
    inputs = [rng.standard_normal((3, 40_000)).astype(np.float16),
              rng.integers(-3, 3, (2, 30_000)).astype(np.int64),
              special_values(BF16)[rng.integers(0, 14, (2, 20_000))],
              rng.integers(0, 2, (2, 20_000)).astype(bool),
              np.tile(np.arange(20_000, dtype=np.float32), (2, 1))]
    results = {}
    for level in _core.available_levels():
        got = []
        for x in inputs:
            for k in (1, 10, SORTED_K + 1, 700):
                for strategy in STRATEGIES:
                    for segment in (0, 300):
                        shape = list(x.shape)
                        shape[1] = k
                        values = np.empty(shape, x.dtype)
                        indices = np.empty(shape, np.int64)
                        with _core.level(level):
                            _core.kernels.topk(cpu._raw(x), cpu._kind(x.dtype), 1, k, True,
                                               True, cpu._raw(values), indices, 2, strategy,
                                               segment)
                        got.append((cpu._raw(values).tobytes(), indices.tobytes()))
                        if level == "baseline":
                            want = _reference(x, k, 1, True)
                            assert_same_bits(values, want.values)
                            np.testing.assert_array_equal(indices, want.indices)
        results[level] = got
    first = next(iter(results.values()))
    for level, got in results.items():
        assert got == first, level
