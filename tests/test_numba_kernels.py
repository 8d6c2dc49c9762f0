"""The Numba kernels: every strategy, segment size and thread split gives the oracle's bits."""

from unittest import mock

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import axisops
from axisops.kernels.layout import sequences
from axisops.kernels.numba import driver as drv
from axisops.validation import ArrayMeta, gather_spec, topk_spec

from oracle import assert_same_bits
from strategies import LAYOUTS, TOPK_DTYPES, special_values, with_layout


def _spec(x, k, axis, largest, sorted=True):
    return topk_spec(ArrayMeta(x.shape, x.dtype), k, axis, largest, sorted, None)


def _reference(x, k, axis, largest):
    return axisops.topk(x, k, axis, largest=largest, backend="numpy")


@st.composite
def long_cases(draw):
    """Arrays long enough along the axis for blocks, bounds and several segments."""
    dtype = draw(st.sampled_from(TOPK_DTYPES))
    pool = special_values(dtype)
    shape = draw(st.lists(st.integers(1, 3), min_size=0, max_size=2))
    n = draw(st.integers(1, 400))
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
    k = draw(st.sampled_from(sorted({1, min(2, n), min(7, n), n, draw(st.integers(1, n))})))
    return data, k, axis, draw(st.booleans()), draw(st.sampled_from(LAYOUTS))


@given(case=long_cases(), strategy=st.sampled_from(drv.STRATEGIES),
       segment=st.sampled_from([16, 48, 64, 100, None]), sorted_=st.booleans())
def test_every_strategy_matches_the_oracle(case, strategy, segment, sorted_):
    x, k, axis, largest, layout = case
    arr = with_layout(x, layout)
    values, indices = drv.topk(arr, _spec(arr, k, axis, largest, sorted_), strategy=strategy,
                               segment=segment)
    want = _reference(x, k, axis, largest)
    if sorted_:
        assert_same_bits(values, want.values)
        np.testing.assert_array_equal(indices, want.indices)
    else:
        np.testing.assert_array_equal(np.sort(indices, axis), np.sort(want.indices, axis))
        assert_same_bits(values, np.take_along_axis(x, indices, axis))


PATTERNS = {
    "ascending": lambda n, pool: np.sort(pool[np.arange(n) % len(pool)]),
    "descending": lambda n, pool: np.sort(pool[np.arange(n) % len(pool)])[::-1].copy(),
    "constant": lambda n, pool: np.full(n, pool[len(pool) // 2]),
    "alternating": lambda n, pool: pool[np.arange(n) % 2],
    "one-hot-end": lambda n, pool: np.concatenate([np.full(n - 1, pool[0]), pool[-1:]]),
    # Rising to the middle, then falling; rising by blocks of 16, shuffled inside each:
    # the patterns the sampled first bounds of the scan and the columns are for.
    "organ-pipe": lambda n, pool: np.sort(pool[np.arange(n) % len(pool)])[
        np.minimum(np.arange(n), n - 1 - np.arange(n)) * 2],
    "interleaved": lambda n, pool: np.sort(pool[np.arange(n) % len(pool)])[
        np.minimum(np.arange(n) // 16 * 16 + np.arange(n) * 7 % 16, n - 1)],
}


@pytest.mark.parametrize("dtype", [np.dtype("float32"), np.dtype("int64"), np.dtype("uint8"),
                                   np.dtype("float16")], ids=str)
@pytest.mark.parametrize("pattern", sorted(PATTERNS))
@pytest.mark.parametrize("strategy", drv.STRATEGIES)
def test_adversarial_orders(dtype, pattern, strategy):
    pool = special_values(dtype)
    if dtype.kind == "f":
        pool = pool[~np.isnan(pool)]
    row = PATTERNS[pattern](3000, pool).astype(dtype)
    x = np.stack([row, row[::-1]], axis=1)  # (3000, 2): axis 0 is not contiguous
    # "split" cuts each sequence across threads, one dispatch per sequence: it is for a
    # few long sequences (the driver never routes short rows to it), so only axis 0.
    for axis in (0,) if strategy == "split" else (0, 1):
        for k in sorted({1, 5, 64, x.shape[axis]} & set(range(1, x.shape[axis] + 1))):
            for largest in (True, False):
                values, indices = drv.topk(x, _spec(x, k, axis, largest), strategy=strategy,
                                           segment=128)  # 24 segments: the scan samples a first bound
                want = _reference(x, k, axis, largest)
                assert_same_bits(values, want.values)
                np.testing.assert_array_equal(indices, want.indices)


RISING = {
    "ascending": lambda i, n: i,
    "organ-pipe": lambda i, n: np.minimum(i, n - 1 - i) * 2 + (i > n // 2),
    "interleaved": lambda i, n: i // 16 * 16 + i * 7 % 16,
    "sawtooth-on-a-ramp": lambda i, n: (i % 97) * n + i,
}


@pytest.mark.parametrize("dtype", [np.dtype("float32"), np.dtype("int64")], ids=str)
@pytest.mark.parametrize("pattern", sorted(RISING))
@pytest.mark.parametrize("strategy", ["scan", "columns", "split"])
def test_rising_sequences_of_distinct_values(dtype, pattern, strategy):
    """The first bounds the scan and the columns take from a sample: with distinct values
    a bound one element too high loses an element (tie-heavy data cannot tell)."""
    n = 5000
    row = RISING[pattern](np.arange(n), n).astype(dtype)
    x = np.stack([row, -row], axis=1)  # largest=False on -row is the same rise
    for axis in (0,) if strategy == "split" else (0, 1):
        for k in sorted({1, 5, 32, 300} & set(range(1, x.shape[axis] + 1))):
            for largest in (True, False):
                values, indices = drv.topk(x, _spec(x, k, axis, largest), strategy=strategy,
                                           segment=128)  # 40 segments: a sampled bound
                want = _reference(x, k, axis, largest)
                assert_same_bits(values, want.values)
                np.testing.assert_array_equal(indices, want.indices)


@pytest.mark.parametrize("pattern", sorted(RISING))
@pytest.mark.parametrize("strategy", ["scan", "split"])
def test_a_large_k_samples_more_segments_for_its_first_bound(pattern, strategy):
    """k = 1100 over 313 segments samples SAMPLE_MAX of them (one per SAMPLE_K of k) for
    the first bound: still a lower bound of the k-th best on rising input, where the
    last segments hold all of it."""
    from axisops.kernels.numba import scan

    n, k, segment = 40_000, 1100, 128
    assert scan._samples(n, segment, k) == scan.SAMPLE_MAX
    row = RISING[pattern](np.arange(n), n).astype(np.int64)
    x = np.stack([row, -row], axis=1)
    for largest in (True, False):
        values, indices = drv.topk(x, _spec(x, k, 0, largest), strategy=strategy,
                                   segment=segment)
        want = _reference(x, k, 0, largest)
        assert_same_bits(values, want.values)
        np.testing.assert_array_equal(indices, want.indices)


@pytest.mark.parametrize("dtype", [np.dtype("float32"), np.dtype("int64"), np.dtype("uint16")],
                         ids=str)
@pytest.mark.parametrize("pattern", ["random", "ties", "outlier", *sorted(RISING)])
def test_scan_bound_from_a_radix_select_of_block_maxima(dtype, pattern):
    """k > SORTED_K: the scan's bound comes from a radix select of the block maxima
    (a bound above the k-th largest maximum loses elements; distinct values make
    every such error visible).  "outlier" puts the extreme value once in a row,
    so one level of buckets is too coarse and the select goes a level deeper."""
    from axisops.kernels.numba import scan

    n = 40_000  # two segments of 20 000: 1216 blocks each
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
    for k in (scan.SORTED_K + 1, 50, 76, 300):
        for largest in (True, False):
            values, indices = drv.topk(x, _spec(x, k, 1, largest), strategy="scan")
            want = _reference(x, k, 1, largest)
            assert_same_bits(values, want.values)
            np.testing.assert_array_equal(indices, want.indices)


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
        # the least value has low bits set and many sit at the very top: the top
        # bucket's last value, least + (top bucket + 1) * width - 1, lies past the type
        near_top = dtype(top) - rng.integers(0, min(1000, top), 600, dtype=dtype)
        near_top[3] = 5
        yield near_top


@pytest.mark.parametrize("case", range(24))
def test_radix_bound_is_reached_by_k_values_and_tight(case):
    """_radix_bound(vals, m, k): at least k values reach it, it is at most the k-th
    largest, and at most BOUND_SLACK - 1 more values reach it than reach the k-th
    largest (each extra value is one more block for the scan to read)."""
    from axisops.kernels.numba import scan

    vals = list(_radix_bound_inputs())[case]
    m = vals.shape[0]
    counts = np.empty((1 << scan.RADIX_BITS) + 2, np.int64)
    ordered = np.sort(vals)[::-1]
    for k in sorted({1, 2, 33, m // 7 + 1, m // 2, m - 1, m} - {0}):
        bound = scan._radix_bound(vals, m, k, counts)
        kth = ordered[k - 1]
        reach = int(np.count_nonzero(vals >= bound))
        assert bound <= kth and reach >= k
        assert reach <= max(k - 1 + scan.BOUND_SLACK, int(np.count_nonzero(vals >= kth)))


@pytest.mark.parametrize("case", range(24))
def test_kth_bound_up_to_sorted_k(case):
    """_kth_bound(vals, m, k) for k <= SORTED_K: the k-th largest itself when it inserts
    every value (m < 4 * GROUP * k), else the k-th largest of the group maxima (group g
    is vals[r * groups + g]); either way at most the k-th largest, and reached by k
    values (ties at the group threshold, and a tail after the last full group that
    holds the largest values)."""
    from axisops.kernels.numba import scan

    vals = list(_radix_bound_inputs())[case]
    counts = np.empty((1 << scan.RADIX_BITS) + 2, np.int64)
    for m in {vals.shape[0], vals.shape[0] - 3}:
        ordered = np.sort(vals[:m])[::-1]
        groups = m // scan.GROUP
        gmax = vals[:groups * scan.GROUP].reshape(scan.GROUP, groups).max(axis=0)
        for k in sorted({1, 2, 3, 10, 17, scan.SORTED_K} & set(range(1, m + 1))):
            scratch = np.empty(k + m // scan.GROUP, vals.dtype)
            bound = scan._kth_bound(vals, m, k, scratch, counts)
            if m >= 4 * scan.GROUP * k:
                assert bound == np.sort(gmax)[::-1][k - 1], (m, k)
            else:
                assert bound == ordered[k - 1], (m, k)
            assert bound <= ordered[k - 1]
            assert np.count_nonzero(vals[:m] >= bound) >= k


@pytest.mark.parametrize("stride", [1, 3])
@pytest.mark.parametrize("m", [10_000, 10_000 - 7, 700, 96])
def test_segment_maxima_keep_each_bands_maxima(stride, m):
    """With bands, _segment_maxima leaves each band's block maxima (rows g*B .. g*B+B-1
    of the interleaved layout, the last row partial) and their maximum in bmax: the
    same bmax as without bands."""
    from axisops.kernels.numba import scan
    from axisops.kernels.numba.keys import key_plan

    rng = np.random.default_rng(m)
    flat = rng.integers(0, 2**32, m * stride + 5, dtype=np.uint64).astype(np.uint32)
    keys = flat[2:2 + m * stride:stride]  # unsigned keys are the values themselves
    blocks = m // scan.BLOCK + 64
    tile = np.empty(m, np.uint32)
    plain = np.empty(2 * blocks, np.uint32)
    banded = np.empty(2 * blocks, np.uint32)
    bands = np.empty(scan._MAX_BANDS * blocks, np.uint32)
    consts = key_plan(np.dtype(np.uint32), True).consts()
    plain_layout = scan._segment_maxima(flat, 2, stride, 0, m, *consts, tile, plain, bands,
                                        scan._ONE_BAND)
    got_blocks, rows = scan._segment_maxima(flat, 2, stride, 0, m, *consts, tile, banded,
                                            bands, scan.BAND_ROWS)
    assert plain_layout == (got_blocks, rows)
    padded = np.zeros(got_blocks * rows, np.uint32)
    padded[:m] = keys
    grid = padded.reshape(rows, got_blocks)  # block j holds elements r * blocks + j
    nb = -(-rows // scan.BAND_ROWS)
    assert nb > 1
    for g in range(nb):
        want = grid[g * scan.BAND_ROWS:(g + 1) * scan.BAND_ROWS].max(axis=0)
        np.testing.assert_array_equal(bands[g * got_blocks:(g + 1) * got_blocks], want)
    np.testing.assert_array_equal(banded[:got_blocks], grid.max(axis=0))
    np.testing.assert_array_equal(plain[:got_blocks], grid.max(axis=0))


@pytest.mark.parametrize("pattern", ["random", "ties", "constant", "ascending"])
@pytest.mark.parametrize("k", [24, 100, 250])
def test_scan_candidates_are_the_same_with_and_without_bands(pattern, k):
    """scan_sequence with bands (each band's qualifying blocks its own) keeps the same
    k best as with one band, on random rows and on ties that fill and compact the
    candidate buffer (the bound then rises inside a band)."""
    from axisops.kernels.numba import scan
    from axisops.kernels.numba.keys import key_plan

    n, seg = 10_000, 32_768
    rng = np.random.default_rng(k)
    row = {"random": rng.permutation(n), "ties": rng.integers(0, 5, n),
           "constant": np.full(n, 7), "ascending": np.arange(n)}[pattern].astype(np.uint32)
    blocks = n // scan.BLOCK + 64
    consts = key_plan(np.dtype(np.uint32), True).consts()
    best = {}
    for band_rows in (scan._ONE_BAND, scan.BAND_ROWS):
        cap = max(2 * k, scan.MIN_BUFFER)
        ckeys, cidx = np.empty(cap, np.uint32), np.empty(cap, np.int64)
        c = scan.scan_sequence(row, 0, 1, n, k, seg, *consts, np.empty(1, np.uint32),
                               np.empty(2 * blocks, np.uint32),
                               np.empty(scan._MAX_BANDS * blocks, np.uint32), band_rows,
                               np.empty(2 * blocks, np.int64), np.empty(2 * blocks, np.uint32),
                               np.empty((1 << scan.RADIX_BITS) + 2, np.int64), ckeys, cidx)
        order = np.lexsort((cidx[:c], -ckeys[:c].astype(np.int64)))[:k]
        best[band_rows] = cidx[:c][order]
    want = np.lexsort((np.arange(n), -row.astype(np.int64)))[:k]
    np.testing.assert_array_equal(best[scan._ONE_BAND], want)
    np.testing.assert_array_equal(best[scan.BAND_ROWS], want)


def test_columns_cut_the_axis_across_threads_only_for_few_panels_and_small_k():
    """With fewer full panels than threads, the columns strategy becomes "column-split"
    (each thread walks every column over part of the axis) for k up to
    COLUMN_SPLIT_MAX_K and an axis of COLUMN_SPLIT_MIN or more; and its result is the
    oracle's, sorted and not, with ties across the cut."""

    old = axisops.get_num_threads()
    try:
        axisops.set_num_threads(2)
        x = np.zeros((10_000, 1_000), np.float32)
        seqs = sequences(x, 0)
        assert drv.choose_strategy(seqs, drv.COLUMN_SPLIT_MAX_K) == "column-split"
        assert drv.choose_strategy(seqs, drv.COLUMN_SPLIT_MAX_K + 1) == "columns"
        assert drv.choose_strategy(sequences(np.zeros((10_000, 3_000), np.float32), 0),
                                   5) == "columns"  # three panels for two threads
        assert drv.choose_strategy(sequences(x[:drv.COLUMN_SPLIT_MIN - 1], 0), 5) == "columns"
        axisops.set_num_threads(1)
        assert drv.choose_strategy(seqs, 5) == "columns"
        axisops.set_num_threads(3)
        rng = np.random.default_rng(5)
        x = rng.integers(0, 3, (999, 40)).astype(np.float32)  # ties across the cut
        x[::7, 3] = np.nan
        for k in (1, 4, 10, 33):
            for sorted_ in (True, False):
                values, indices = drv.topk(x, _spec(x, k, 0, True, sorted_),
                                           strategy="column-split")
                want = _reference(x, k, 0, True)
                if sorted_:
                    assert_same_bits(values, want.values)
                    np.testing.assert_array_equal(indices, want.indices)
                else:
                    np.testing.assert_array_equal(np.sort(indices, 0),
                                                  np.sort(want.indices, 0))
    finally:
        axisops.set_num_threads(old)


@pytest.mark.parametrize("threads", [1, 2, 3, 5])
def test_thread_count_never_changes_the_bits(threads):
    rng = np.random.default_rng(8)
    pool = special_values(np.float32)
    cases = [pool[rng.integers(0, len(pool), size=(1, 50_000))],     # one long row: split
             pool[rng.integers(0, 4, size=(37, 2000))],              # rows over threads
             pool[rng.integers(0, 4, size=(3000, 40))]]              # columns over threads
    old = axisops.get_num_threads()
    try:
        axisops.set_num_threads(threads)
        with mock.patch.object(drv, "PARALLEL_MIN", 0), mock.patch.object(drv, "SPLIT_MIN", 64):
            for x in cases:
                for axis in (0, 1):
                    for k in (1, 9, 300):
                        if k > x.shape[axis]:
                            continue
                        got = axisops.topk(x, k, axis, backend="numba")
                        want = _reference(x, k, axis, True)
                        assert_same_bits(got.values, want.values)
                        np.testing.assert_array_equal(got.indices, want.indices)
                idx = rng.integers(-x.shape[0], x.shape[0], size=(x.shape[0] * 2, x.shape[1]))
                assert_same_bits(axisops.gather(x, 0, idx, backend="numba"),
                                 axisops.gather(x, 0, idx, backend="numpy"))
    finally:
        axisops.set_num_threads(old)


@pytest.mark.parametrize("dtype", TOPK_DTYPES, ids=str)
def test_every_key_width_and_kind_at_scale(dtype):
    rng = np.random.default_rng(3)
    pool = special_values(dtype)
    x = pool[rng.integers(0, len(pool), size=(4, 20_000))]
    for k in (3, 700, 20_000):
        for largest in (True, False):
            got = axisops.topk(x, k, largest=largest, backend="numba")
            want = _reference(x, k, -1, largest)
            assert_same_bits(got.values, want.values)
            np.testing.assert_array_equal(got.indices, want.indices)


def test_non_native_unaligned_and_odd_strides():
    rng = np.random.default_rng(6)
    base = rng.integers(-9, 9, size=(40, 30)).astype(np.int32)
    big_endian = base.astype(">i4")
    raw = np.zeros(base.nbytes + 1, np.uint8)
    unaligned = np.frombuffer(raw.data, dtype=np.int32, count=base.size, offset=1).reshape(40, 30)
    unaligned = unaligned.copy() if unaligned.flags.aligned else unaligned
    np.copyto(unaligned, base) if unaligned.flags.writeable else None
    packed = np.zeros((40, 30), dtype=[("a", "i4"), ("b", "i1")])
    packed["a"] = base
    for arr in (big_endian, unaligned, packed["a"], np.broadcast_to(base[:1], (40, 30))):
        want_base = np.asarray(arr).astype(np.int32)
        for axis in (0, 1):
            got = axisops.topk(arr, 6, axis, backend="numba")
            want = _reference(want_base, 6, axis, True)
            assert got.values.dtype == np.int32
            np.testing.assert_array_equal(got.values, want.values)
            np.testing.assert_array_equal(got.indices, want.indices)


@pytest.mark.parametrize("bad", ["n", "-n-1", "2**62", "-2**62"])
@pytest.mark.parametrize("layout", ["C", "transposed", "negative"])
def test_gather_edges_never_touch_memory_outside_x(bad, layout):
    x = np.arange(12.0).reshape(3, 4)
    n = 4
    ok = np.array([[-n, n - 1, 0], [-1, 2, -n]], np.int64)
    np.testing.assert_array_equal(axisops.gather(x, 1, ok, backend="numba"),
                                  axisops.gather(x, 1, ok, backend="numpy"))
    value = {"n": n, "-n-1": -n - 1, "2**62": 2**62, "-2**62": -(2**62)}[bad]
    idx = ok.copy()
    idx[1, 2] = value
    idx = with_layout(idx, layout)
    pos = tuple(int(p) for p in np.argwhere(idx == value)[0])
    with pytest.raises(axisops.IndexOutOfRangeError,
                       match=rf"index\[{pos[0]}, {pos[1]}\]={value} is out of range"):
        axisops.gather(x, 1, idx, backend="numba")


def test_gather_zero_size_batch_dimensions():
    x = np.zeros((0, 5), np.float32)
    out = axisops.gather(x, 1, np.zeros((0, 3), np.int64), backend="numba")
    assert out.shape == (0, 3)
    with pytest.raises(axisops.InvalidArgumentError, match="non-empty but dim 1"):
        axisops.gather(np.zeros((2, 0)), 1, np.zeros((2, 1), np.int32), backend="numba")


def test_gather_spec_path_keeps_the_index_type():
    x = np.arange(20).reshape(4, 5)
    for dtype in ("int8", "int16", "int32", "uint32", "uint64"):
        idx = np.array([[4, 0], [1, 2]], dtype)
        spec = gather_spec(ArrayMeta(x.shape, x.dtype), 1, ArrayMeta(idx.shape, idx.dtype))
        np.testing.assert_array_equal(drv.gather(x, idx, spec), [[4, 0], [6, 7]])


@pytest.mark.parametrize("threads", [1, 2, 3])
@pytest.mark.parametrize("layout", ["C", "F", "negative", "broadcast", "broadcast_dim"])
@pytest.mark.parametrize("prefetch", [True, False])
def test_gather_at_prefetch_and_block_boundaries(threads, layout, prefetch):
    """Output sizes on both sides of the prefetch distance and the position block, with
    and without negative indices, split over threads at odd places, with and without
    prefetching (which the driver otherwise chooses by the size of x)."""
    from axisops.kernels.numba.gather import BLOCK, PREFETCH_DISTANCE

    rng = np.random.default_rng(11)
    d, b = PREFETCH_DISTANCE, BLOCK
    old = axisops.get_num_threads()
    try:
        axisops.set_num_threads(threads)
        with mock.patch.object(drv, "PARALLEL_MIN", 0), \
                mock.patch.object(drv, "gather_prefetch_distance", lambda _: d * prefetch):
            for total in (1, d - 1, d, d + 1, b - 1, b, b + d + 1, 2 * b + 3):
                x = rng.standard_normal((3, 50)).astype(np.float32)
                for dim, shape in ((1, (3, total)), (0, (total, 50))):
                    n = x.shape[dim]
                    for low in (0, -n):
                        idx = rng.integers(low, n, size=shape)
                        if layout == "F":
                            idx = np.asfortranarray(idx)
                        elif layout == "negative":
                            idx = np.ascontiguousarray(idx[::-1, ::-1])[::-1, ::-1]
                        elif layout == "broadcast":
                            idx = np.broadcast_to(idx[:1] if dim == 1 else idx[:, :1], shape)
                        elif layout == "broadcast_dim":  # one value along the whole dim
                            idx = np.broadcast_to(idx[:, :1] if dim == 1 else idx[:1], shape)
                        got = axisops.gather(x, dim, idx, backend="numba")
                        want = axisops.gather(x, dim, idx, backend="numpy")
                        assert_same_bits(got, want)
    finally:
        axisops.set_num_threads(old)


@pytest.mark.parametrize("dtype", ["float32", "bfloat16", "int8", "uint16", "int64", "float64"])
@pytest.mark.parametrize("k", [1, 2, 8, 16, 17, 40, 64, 65, 100])
@pytest.mark.parametrize("layout", ["C", "F", "reversed"])
def test_short_rows_by_extraction_and_by_insertion(dtype, k, layout):
    """The insert strategy's three routes (packed extraction for k <= EXTRACT_MAX_K,
    packed insertion above, pairs for 64-bit keys), over many rows at once in memory
    and one by one, with heavy ties."""
    from axisops.dtypes import as_dtype

    assert drv.EXTRACT_MAX_K == 64  # k = 65 and 100 are the packed insertion's
    rng = np.random.default_rng(k)
    x = rng.integers(-3, 4, size=(300, 100)).astype(np.float32).astype(as_dtype(dtype))
    arr = {"C": x, "F": np.asfortranarray(x), "reversed": x[::-1, ::-1]}[layout]
    for largest in (True, False):
        with mock.patch.object(drv, "PARALLEL_MIN", 0):
            got = drv.topk(arr, _spec(arr, k, 1, largest), strategy="insert")
        want = _reference(arr, k, 1, largest)
        assert_same_bits(got[0], want.values)
        np.testing.assert_array_equal(got[1], want.indices)


def test_keys_of_32_bits_or_fewer_are_extracted_from_rows_up_to_the_extraction_limits():
    """Packed keys take the insert strategy's extraction while k <= EXTRACT_MAX_K,
    n <= EXTRACT_MAX_N and k * n <= EXTRACT_MAX_WORK; 64-bit keys keep the insertion's
    own limits (their insertion is not branch-free)."""
    def strategy(dtype, n, k, rows=4):
        return drv.choose_strategy(sequences(np.zeros((rows, n), dtype), 1), k)

    assert (drv.EXTRACT_MAX_N, drv.EXTRACT_MAX_WORK) == (1024, 32768)
    for dtype in (np.float32, np.int32, np.float16, np.int8):
        assert strategy(dtype, 512, 8) == "insert"
        assert strategy(dtype, 100, 24) == "insert"
        assert strategy(dtype, 512, 64) == "insert"
        assert strategy(dtype, 1024, 32) == "insert"
        assert strategy(dtype, 1024, 33) == "scan"   # k * n above the limit
        assert strategy(dtype, 1025, 8) == "scan"    # n above the limit
        assert strategy(dtype, 200, 65) == "radix"   # k above EXTRACT_MAX_K
    for dtype in (np.float64, np.int64):
        assert strategy(dtype, 256, 16) == "insert"
        assert strategy(dtype, 512, 8) == "scan"
        assert strategy(dtype, 100, 24) == "radix"
    # a transposed layout with k above the columns' limit takes the extraction too
    t = np.zeros((512, 4000), np.float32)
    assert drv.choose_strategy(sequences(t, 0), 48) == "insert"


def test_extraction_up_to_its_limits_is_exact_on_ties_nan_and_rising_rows():
    """Rows the driver now extracts (n up to 1024, k up to 64) against the oracle:
    heavy ties, NaN and infinities, rising and falling rows, both directions."""
    rng = np.random.default_rng(3)
    for n, k in ((512, 8), (512, 64), (1024, 32), (100, 24), (768, 42)):
        ties = rng.integers(-3, 4, (40, n)).astype(np.float32)
        ties[::3, ::7] = np.nan
        ties[1::3, ::5] = -np.inf
        ties[2::3, 1::9] = np.inf
        rising = np.tile(np.arange(n, dtype=np.float32), (8, 1))
        for x in (ties, rising, rising[:, ::-1], ties.astype(np.float16),
                  rng.integers(-2**31, 2**31, (16, n)).astype(np.int32)):
            assert drv.choose_strategy(sequences(x, 1), k) == "insert"
            for largest in (True, False):
                with mock.patch.object(drv, "PARALLEL_MIN", 0):
                    got = drv.topk(x, _spec(x, k, 1, largest))
                want = _reference(x, k, 1, largest)
                assert_same_bits(got[0], want.values)
                np.testing.assert_array_equal(got[1], want.indices)


@pytest.mark.parametrize("dtype", ["float32", "uint32", "int32", "uint16", "float16", "bool"])
@pytest.mark.parametrize("rows", [1, 2, 3])
@pytest.mark.parametrize("n", [1, 2, 5, 64])
def test_extraction_when_the_first_element_has_the_largest_key(dtype, rows, n):
    """The packed word of the largest key at index 0 is all ones: the extraction's
    first pass must still find it (a pass that takes the largest word *below* an
    all-ones start found nothing and read outside the row), alone or in a pair."""
    from axisops.dtypes import as_dtype

    dt = as_dtype(dtype)
    top = np.array(np.nan if dt.kind == "f" else True if dt.kind == "b" else np.iinfo(dt).max,
                   dt)
    bottom = np.array(-np.inf if dt.kind == "f" else False if dt.kind == "b" else
                      np.iinfo(dt).min, dt)
    x = np.zeros((rows, n), dt)
    x[:, 0] = top
    x[1:, -1] = top  # a tie with the last element, in the rows after the first
    for largest, edge in ((True, top), (False, bottom)):
        arr = x.copy()
        arr[:, 0] = edge
        for k in sorted({1, min(2, n), n}):
            with mock.patch.object(drv, "PARALLEL_MIN", 0):
                got = drv.topk(arr, _spec(arr, k, 1, largest), strategy="insert")
            want = _reference(arr, k, 1, largest)
            assert_same_bits(got[0], want.values)
            np.testing.assert_array_equal(got[1], want.indices)


def test_packed_words_order_like_the_tie_rule():
    """``pack`` (unsigned) and ``pack_signed`` (signed) words compare as ``better`` says:
    a larger key first, then the lower index; extremes included, and no word is 0 or
    the smallest int64 (the "empty" values)."""
    from numba import njit

    from axisops.kernels.numba.select import better, pack, pack_signed, unpack_index

    @njit
    def check(keys, idx):
        bad = 0
        for a in range(keys.size):
            wa, sa = pack(keys[a], idx[a]), pack_signed(keys[a], idx[a])
            if wa == 0 or sa == np.int64(-(2**63)) or unpack_index(sa) != idx[a]:
                bad += 1
            for b in range(keys.size):
                want = better(keys[a], idx[a], keys[b], idx[b])
                wb, sb = pack(keys[b], idx[b]), pack_signed(keys[b], idx[b])
                bad += (wa > wb) != want
                bad += (sa > sb) != want
        return bad

    rng = np.random.default_rng(5)
    keys = np.concatenate([[0, 0, 1, 2**31 - 1, 2**31, 2**32 - 1, 2**32 - 1],
                           rng.integers(0, 2**32, 60)]).astype(np.uint32)
    idx = np.concatenate([[0, 2**32 - 2, 5, 7, 7, 0, 2**32 - 2],  # i < 2**32 - 1 (n < 2**32)
                          rng.integers(0, 4, 60)]).astype(np.int64)
    assert check(keys, idx) == 0


@pytest.mark.parametrize("dtype", ["float32", "uint8", "int64"])
@pytest.mark.parametrize("k", [1, 3, 10])
def test_columns_whose_k_best_are_all_the_largest_key(dtype, k):
    """A column whose k-th best key is the largest key there is (NaN, UINT8_MAX, ...)
    keeps a gate that still lets that key in (equal keys later lose the tie, and the
    column must keep its first k), and a column that reaches it late still takes it."""
    top = np.nan if dtype == "float32" else np.iinfo(dtype).max
    x = np.random.default_rng(k).integers(0, 5, (400, 48)).astype(dtype)
    x[3:3 + 2 * k, :16] = top                 # early: the gate reaches the largest key
    x[150::37, 16:32] = top                   # spread: more of it arrives after the gate
    x[-k:, 32:] = top                         # late: every earlier candidate is displaced
    for largest in (True, False):
        values, indices = drv.topk(x, _spec(x, k, 0, largest), strategy="columns")
        want = _reference(x, k, 0, largest)
        assert_same_bits(values, want.values)
        np.testing.assert_array_equal(indices, want.indices)


@pytest.mark.parametrize("k", [1, 3, 16])
@pytest.mark.parametrize("dtype", ["float32", "int64"])
def test_columns_spread_bound_is_never_above_the_kth_best(dtype, k):
    """The columns' spread bound is the least of the maxima of k runs of rows.  Each
    column here puts its k best in those runs, one a run, so the bound is exactly its
    k-th best; an earlier element equal to it (a lower index) must still win the tie,
    and one key less must still be refused.  Random columns ride along."""
    from axisops.kernels.numba import columns

    n, width = 32 * columns.SPREAD_SHARE * k, 40
    span = n // (columns.SPREAD_SHARE * k)
    start = (n - k * span) // 2
    rng = np.random.default_rng(k)
    x = rng.integers(0, 1000, (n, width)).astype(dtype)
    best = 5000 + np.arange(k)[::-1] * 3
    for c in range(width // 2):
        at = start + np.arange(k) * span + rng.integers(0, span, k)
        x[at, c] = best
        x[rng.integers(0, start), c] = best[-1]          # the tie, earlier
        x[rng.integers(0, start), c] = best[-1] - 1      # one less: never enters
    x[:, width // 2:] = rng.permutation(n * (width - width // 2)).reshape(n, -1)
    for largest in (True, False):
        for strategy in ("columns", "column-split"):
            values, indices = drv.topk(x, _spec(x, k, 0, largest), strategy=strategy)
            want = _reference(x, k, 0, largest)
            assert_same_bits(values, want.values)
            np.testing.assert_array_equal(indices, want.indices)


@pytest.mark.parametrize("pattern", ["random", "ties", "rising", "in the sample"])
def test_a_hoped_for_first_bound_is_scanned_again_from_the_sure_one_when_too_high(pattern):
    """k = 300 over 40 segments of 1000: a spread sample (4 segments) holds about 30 of
    the k best, so the scan starts from the bound 55 of its block maxima reach, not 300.
    Random and tie-heavy rows take it and find at least k elements reaching it.  A
    rising row does not take it (its last segment holds all 55).  A row whose 300
    largest all lie in the sampled segments takes it, finds only 55, and is scanned
    again from the sure bound.  Every result is the oracle's."""
    from axisops.kernels.numba import scan
    from axisops.kernels.numba.keys import key_plan

    n, k, seg = 40_000, 300, 1000
    parts = -(-n // seg)
    step, ns = -(-n // parts), scan._samples(n, seg, k)
    assert (ns, scan._hope_rank(k, ns * step, n)) == (4, 55)
    rng = np.random.default_rng(7)
    row = {"random": rng.permutation(n), "ties": rng.integers(0, 3000, n),
           "rising": np.arange(n), "in the sample": rng.permutation(n)}[pattern]
    if pattern == "in the sample":
        for it in range(-ns, 0):
            s0 = (parts - 1 - ((it + ns) * parts) // ns) * step
            row[s0 + rng.choice(step, k // ns, replace=False)] += n
    row = row.astype(np.float32)
    plan = key_plan(row.dtype, True)
    flat = row.view(np.uint32)
    buffers = scan.scan_buffers(flat, 1, n, k, seg)
    c, sure, done, hoping = scan._scan_steps(flat, 0, 1, n, k, *plan.consts(), *buffers, True,
                                             parts, step, ns, -ns, np.uint32(0))
    assert not done
    assert hoping == (pattern != "rising")
    assert (c < k) == (pattern == "in the sample")
    if hoping:  # every candidate reached the hope, above the sure bound
        assert (buffers[7][:c] > sure).all()
    x = row.reshape(1, n)
    for largest in (True, False):
        values, indices = drv.topk(x, _spec(x, k, 1, largest), strategy="scan", segment=seg)
        want = _reference(x, k, 1, largest)
        assert_same_bits(values, want.values)
        np.testing.assert_array_equal(indices, want.indices)


def test_row_offsets_are_shared_between_calls_up_to_a_size():
    """C-ordered rows reuse one offsets array per (rows, length) up to
    SHARED_OFFSETS_MAX rows; larger ones are built per call.  Either way the offsets
    are the rows' starts, and a kernel run on shared ones leaves them as they were."""
    from axisops.kernels import layout

    rows = layout.SHARED_OFFSETS_MAX
    a, b = np.zeros((rows, 3), np.float32), np.ones((rows, 3), np.int16)
    first, second = sequences(a, 1).offs, sequences(b, 1).offs
    assert first is second
    np.testing.assert_array_equal(first, np.arange(rows) * 3)
    big = np.zeros((rows + 1, 3), np.float32)
    assert sequences(big, 1).offs is not sequences(big, 1).offs
    np.testing.assert_array_equal(sequences(big, 1).offs, np.arange(rows + 1) * 3)
    x = np.random.default_rng(4).standard_normal((rows, 3)).astype(np.float32)
    got = axisops.topk(x, 2, backend="numba")
    assert_same_bits(got.values, _reference(x, 2, -1, True).values)
    np.testing.assert_array_equal(sequences(a, 1).offs, np.arange(rows) * 3)
