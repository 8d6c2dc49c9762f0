"""The compiled core's columns strategies ("columns" and "column-split") give the oracle's bits.

Every key type with its special values, tie-heavy columns, rising, falling and organ-pipe
columns, columns whose k best are all the largest key, k around the sorted-insertion limit,
panels narrower and wider than COLUMN_PANEL, several outer sequences, every layout (those the
columns cannot read fall back to the scan), thread counts 1-3, and every instruction-set level
this machine runs.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import axisops
from axisops import _core
from axisops.engines import cpu
from axisops.validation import ArrayMeta, topk_spec

from oracle import assert_same_bits
from strategies import BF16, LAYOUTS, PATTERNS, TOPK_DTYPES, special_values, with_layout

COLUMNS = ("columns", "column-split")
_DEFAULTS = _core.kernels._tuning_defaults()  # the core's thresholds, as it defines them

SORTED_K = dict(_core.kernels._SCAN_CONSTANTS)["SORTED_K"]
COLUMN_PANEL = _DEFAULTS["column_panel"]
SPREAD_SHARE = _DEFAULTS["column_spread_share"]
COLUMN_SPLIT_MIN = _DEFAULTS["column_split_min"]
COLUMN_SPLIT_MAX_K = _DEFAULTS["column_split_max_k"]
COLUMNS_MAX_K = SORTED_K


def _spec(x, k, axis, largest, sorted_=True):
    return topk_spec(ArrayMeta(x.shape, x.dtype), k, axis, largest, sorted_, None)


def _check(x, k, axis, largest, strategy, sorted_=True):
    """The core's result under ``strategy`` against the NumPy oracle, bit for bit."""
    values, indices = cpu.topk(x, _spec(x, k, axis, largest, sorted_), strategy=strategy)
    want = axisops.topk(np.asarray(x), k, axis, largest=largest, backend="numpy")
    if sorted_:
        assert_same_bits(values, want.values)
        np.testing.assert_array_equal(indices, want.indices)
    else:
        np.testing.assert_array_equal(np.sort(indices, axis), np.sort(want.indices, axis))
        assert_same_bits(values, np.take_along_axis(np.asarray(x), indices, axis))
    return values, indices


@pytest.fixture
def threads():
    """Sets the thread count for a test; restores it after."""
    old = axisops.get_num_threads()
    yield axisops.set_num_threads
    axisops.set_num_threads(old)


def _columns_read(x, axis) -> bool:
    """Whether the columns strategies can read ``x`` along ``axis`` (neighbouring sequences
    one element apart, the axis not): the layouts they serve rather than the scan."""
    inner = x.shape[axis + 1:]
    size = int(np.prod(inner))
    if size <= 1 or x.strides[axis] == x.itemsize:
        return False
    strides = [s for d, s in zip(inner, x.strides[axis + 1:]) if d > 1]
    dims = [d for d in inner if d > 1]
    step = x.itemsize
    for d, s in zip(reversed(dims), reversed(strides)):
        if s != step:
            return False
        step *= d
    return True


def test_the_test_layouts_reach_the_columns():
    x = np.zeros((50, 6, 7), np.float32)
    assert _columns_read(x, 0) and _columns_read(x, 1) and not _columns_read(x, 2)
    assert _columns_read(x[::-1], 0) and _columns_read(x[::3, :, 2:], 1)
    assert _columns_read(np.broadcast_to(x[:1], x.shape), 0)
    assert not _columns_read(np.asfortranarray(x), 0) and not _columns_read(x[:, :, ::2], 1)


@pytest.mark.parametrize("dtype", TOPK_DTYPES, ids=str)
@pytest.mark.parametrize("strategy", COLUMNS)
def test_every_key_type_with_its_special_values(dtype, strategy):
    """The whole pool of special values (NaN payloads, +-0.0, +-inf, subnormals, integer
    extremes, 2**53 + 1) and a tie-heavy draw of a few of them, k on both sides of the
    sorted-insertion limit; the axis is long enough for every first bound."""
    rng = np.random.default_rng(1)
    pool = special_values(dtype)
    wide = pool[rng.integers(0, len(pool), size=(1200, 40))]
    few = pool[rng.integers(0, min(3, len(pool)), size=(1200, 40))]
    for x in (wide, few):
        for k in (1, 16, SORTED_K, SORTED_K + 1):
            for largest in (True, False):
                _check(x, k, 0, largest, strategy)


#: The scan's adversarial orders but the sawtooth (what the scan's sampled bounds are for).
COLUMN_PATTERNS = {name: make for name, make in PATTERNS.items() if name != "sawtooth"}


@pytest.mark.parametrize("dtype", ["float32", "int64", "uint8", "float16", "bfloat16", "bool"])
@pytest.mark.parametrize("pattern", sorted(COLUMN_PATTERNS))
@pytest.mark.parametrize("strategy", COLUMNS)
def test_ordered_and_tie_heavy_columns(dtype, pattern, strategy):
    """Columns that rise, fall, rise then fall, or hold one value: the sampled first bounds
    are for them, and ties decide most places."""
    dt = BF16 if dtype == "bfloat16" else np.dtype(dtype)
    pool = special_values(dt)
    if dt.kind == "f" or dt == BF16:
        pool = pool[~np.isnan(pool.astype(np.float32))]
    row = COLUMN_PATTERNS[pattern](3000, pool).astype(dt)
    x = np.stack([np.roll(row, 37 * c) if c % 4 else (row if c % 8 else row[::-1])
                  for c in range(24)], axis=1)
    for k in (1, 5, 16, SORTED_K, SORTED_K + 1, 64):
        for largest in (True, False):
            _check(x, k, 0, largest, strategy)


RISING = {
    "ascending": lambda i, n: i,
    "organ-pipe": lambda i, n: np.minimum(i, n - 1 - i) * 2 + (i > n // 2),
    "interleaved": lambda i, n: i // 16 * 16 + i * 7 % 16,
    "sawtooth-on-a-ramp": lambda i, n: (i % 97) * n + i,
}


@pytest.mark.parametrize("dtype", ["float32", "int64", "float64", "int32"])
@pytest.mark.parametrize("pattern", sorted(RISING))
@pytest.mark.parametrize("strategy", COLUMNS)
def test_rising_columns_of_distinct_values(dtype, pattern, strategy):
    """With distinct values, a first bound one element too high loses an element (tie-heavy
    data cannot tell): rising columns put their k best where the samples are."""
    n = 5000
    row = RISING[pattern](np.arange(n), n).astype(dtype)
    x = np.stack([row, -row] * 9, axis=1)  # largest=False on -row is the same rise
    for k in (1, 5, SORTED_K, SORTED_K + 1, 300):
        for largest in (True, False):
            _check(x, k, 0, largest, strategy)


@pytest.mark.parametrize("dtype", ["float32", "uint8", "int64", "bfloat16", "bool"])
@pytest.mark.parametrize("k", [1, 3, 10, 16, SORTED_K, SORTED_K + 1])
@pytest.mark.parametrize("strategy", COLUMNS)
def test_columns_whose_k_best_are_all_the_largest_key(dtype, k, strategy):
    """A column whose k-th best key is the largest key there is (NaN, UINT8_MAX, False when
    smallest, ...) keeps a gate that still lets that key in (equal keys later lose the tie,
    and the column must keep its first k), and a column that reaches it late still takes
    it."""
    dt = BF16 if dtype == "bfloat16" else np.dtype(dtype)
    if dt == np.bool_:
        top, base = True, np.random.default_rng(k).integers(0, 2, (400, 48)) > 0
    else:
        top = np.nan if dt.kind == "f" or dt == BF16 else np.iinfo(dt).max
        base = np.random.default_rng(k).integers(0, 5, (400, 48))
    x = base.astype(dt)
    x[3:3 + 2 * k, :16] = top                 # early: the gate reaches the largest key
    x[150::37, 16:32] = top                   # spread: more of it arrives after the gate
    x[-k:, 32:] = top                         # late: every earlier candidate is displaced
    for arr in (x, np.logical_not(x)) if dt == np.bool_ else (x,):
        for largest in (True, False):
            _check(arr, k, 0, largest, strategy)


@pytest.mark.parametrize("k", [1, 3, 16, SORTED_K + 1])
@pytest.mark.parametrize("dtype", ["float32", "int64", "uint16"])
def test_spread_bound_is_never_above_the_kth_best(dtype, k):
    """The spread bound is the least of the maxima of k runs of rows. Each column here puts
    its k best in those runs, one a run, so the bound is exactly its k-th best; an earlier
    element equal to it (a lower index) must still win the tie, and one key less must still
    be refused. Random columns ride along."""
    n, width = 32 * SPREAD_SHARE * k, 40
    span = n // (SPREAD_SHARE * k)
    start = (n - k * span) // 2
    rng = np.random.default_rng(k)
    x = rng.integers(0, 1000, (n, width)).astype(dtype)
    best = 5000 + np.arange(k)[::-1] * 3
    for c in range(width // 2):
        at = start + np.arange(k) * span + rng.integers(0, span, k)
        x[at, c] = best
        x[rng.integers(0, start), c] = best[-1]          # the tie, earlier
        x[rng.integers(0, start), c] = best[-1] - 1      # one less: never enters
    x[:, width // 2:] = (rng.permutation(n * (width - width // 2)).reshape(n, -1) % 60_000)
    for largest in (True, False):
        for strategy in COLUMNS:
            _check(x, k, 0, largest, strategy)


@pytest.mark.parametrize("shape, axis", [
    ((300, 17), 0), ((300, COLUMN_PANEL), 0), ((300, COLUMN_PANEL + 1), 0),
    ((200, 2 * COLUMN_PANEL + 60), 0),                     # panels wider and narrower
    ((3, 500, 70), 1), ((4, 300, COLUMN_PANEL + 76), 1),   # outer sequences, two panels each
    ((500, 6, 7), 0), ((2, 400, 3, 5), 1),                 # inner dimensions merged
])
@pytest.mark.parametrize("n_threads", [1, 2, 3])
def test_panel_widths_outer_sequences_and_threads(shape, axis, n_threads, threads):
    threads(n_threads)
    rng = np.random.default_rng(len(shape) + shape[axis])
    x = rng.integers(-4, 5, size=shape).astype(np.float32)
    x[rng.random(shape) < 0.01] = np.nan
    assert _columns_read(x, axis)
    for strategy in COLUMNS:
        for k in (1, 16, SORTED_K + 1):
            for sorted_ in (True, False):
                _check(x, k, axis, True, strategy, sorted_)
        _check(x, 7, axis, False, strategy)


def _layouts(x, axis):
    along = (slice(None),) * axis
    yield from (with_layout(x, name) for name in LAYOUTS)
    yield np.flip(np.ascontiguousarray(np.flip(x, axis)), axis)  # a negative axis stride
    yield np.ascontiguousarray(np.repeat(x, 3, axis))[(*along, slice(None, None, 3))]
    yield np.ascontiguousarray(np.pad(x, [(0, 0)] * (x.ndim - 1) + [(2, 3)]))[..., 2:-3]
    yield np.broadcast_to(np.take(x, [0], axis), x.shape)  # a zero axis stride


@pytest.mark.parametrize("dtype", ["float32", "int16", "uint64", "float16", "bool"])
@pytest.mark.parametrize("strategy", COLUMNS)
def test_every_layout(dtype, strategy):
    """C, Fortran, transposed, negative strides, steps, read-only, a reversed axis, a
    sliced inner dimension, a broadcast axis: those the columns cannot read fall back to
    the scan, and every one gives the oracle's bits."""
    rng = np.random.default_rng(3)
    pool = special_values(np.dtype(dtype))
    read = 0
    for x in (pool[rng.integers(0, len(pool), (700, 40))],
              pool[rng.integers(0, len(pool), (3, 400, 20))]):
        axis = x.ndim - 2
        for arr in _layouts(x, axis):
            read += _columns_read(arr, axis)
            for k in (1, 9, SORTED_K + 1):
                for largest in (True, False):
                    _check(arr, k, axis, largest, strategy)
    assert read >= 8  # C, read-only, reversed axis, axis step, inner slice, broadcast


def test_the_driver_cuts_the_axis_only_for_few_panels_and_small_k(threads):
    """With fewer full panels than threads, the columns become "column-split" (each part of
    the axis walks every column) for k up to COLUMN_SPLIT_MAX_K and an axis of at least
    COLUMN_SPLIT_MIN; the columns serve k up to COLUMNS_MAX_K, 16 sequences or more, and an
    axis longer than 8k."""
    def strategy(x, k, axis=0):
        return cpu.strategy(x, _spec(x, k, axis, True))

    threads(2)
    x = np.zeros((10_000, 1_000), np.float32)
    assert strategy(x, COLUMN_SPLIT_MAX_K) == "column-split"
    assert strategy(x, COLUMN_SPLIT_MAX_K + 1) == "columns"
    assert strategy(x, COLUMNS_MAX_K) == "columns"
    assert strategy(x, COLUMNS_MAX_K + 1) not in COLUMNS
    assert strategy(np.zeros((10_000, 3_000), np.float32), 5) == "columns"  # three panels
    assert strategy(x[:COLUMN_SPLIT_MIN - 1], 5) == "columns"
    assert strategy(x[:COLUMN_SPLIT_MIN], 5) == "column-split"
    assert strategy(x[:80], 10) not in COLUMNS and strategy(x[:81], 10) == "columns"
    assert strategy(x[:, :15], 5) not in COLUMNS and strategy(x[:, :16], 5) == "column-split"
    assert strategy(np.zeros((4, 500, 300), np.float32), 5, 1) == "columns"  # four panels
    assert strategy(np.zeros((500, 8, 2), np.float32), 5) == "columns"  # a small call
    assert strategy(np.asfortranarray(x), 5) not in COLUMNS
    threads(1)
    assert strategy(x, 5) == "columns"
    threads(3)
    assert strategy(np.zeros((10_000, 2_000), np.float32), 5) == "column-split"


@pytest.mark.parametrize("n_threads", [1, 2, 3])
def test_column_split_with_ties_across_the_cut(n_threads, threads):
    threads(n_threads)
    rng = np.random.default_rng(5)
    x = rng.integers(0, 3, (999, 40)).astype(np.float32)
    x[::7, 3] = np.nan
    x[:, 5] = 1.0
    for k in (1, 4, 10, SORTED_K + 1, 999):
        for sorted_ in (True, False):
            for largest in (True, False):
                _check(x, k, 0, largest, "column-split", sorted_)


def test_thread_count_never_changes_the_bits(threads):
    """1, 2 and 3 threads against one oracle result per (array, k): the same bits."""
    rng = np.random.default_rng(8)
    pool = special_values(np.float32)
    x = pool[rng.integers(0, 4, size=(3000, 40))]
    y = rng.standard_normal((5000, 1100)).astype(np.float32)  # two panels
    for arr in (x, y):
        for k in (1, 9, SORTED_K, SORTED_K + 1, 300):
            want = axisops.topk(arr, k, 0, backend="numpy")
            for strategy in COLUMNS:
                for n_threads in (1, 2, 3):
                    threads(n_threads)
                    values, indices = cpu.topk(arr, _spec(arr, k, 0, True), strategy=strategy)
                    assert_same_bits(values, want.values)
                    np.testing.assert_array_equal(indices, want.indices)


def test_every_instruction_set_level_gives_the_same_bits():
    """The levels this machine runs (baseline, AVX2, AVX-512 where built) give one answer."""
    rng = np.random.default_rng(9)
    cases = [rng.standard_normal((3000, 70)).astype(np.float32),
             special_values(np.float16)[rng.integers(0, 14, (2000, 33))],
             special_values(np.int64)[rng.integers(0, 10, (1500, 3, 20))],
             rng.integers(0, 2, (900, 50)).astype(bool),
             special_values(BF16)[rng.integers(0, 14, (1200, 64))]]
    levels = _core.available_levels()
    for x in cases:
        for strategy in COLUMNS:
            for k in (1, 10, SORTED_K + 1):
                for largest in (True, False):
                    spec = _spec(x, k, 0, largest)
                    results = []
                    for level in levels:
                        with _core.level(level):
                            results.append(cpu.topk(x, spec, strategy=strategy))
                    want = axisops.topk(x, k, 0, largest=largest, backend="numpy")
                    for values, indices in results:
                        assert_same_bits(values, want.values)
                        np.testing.assert_array_equal(indices, want.indices)


@st.composite
def column_cases(draw):
    """Arrays with neighbouring sequences along the axis: tie-heavy values, random or
    ordered columns, any k, any layout."""
    dtype = draw(st.sampled_from(TOPK_DTYPES))
    pool = special_values(dtype)
    n = draw(st.integers(1, 400))
    inner = draw(st.lists(st.integers(1, 24), min_size=1, max_size=2))
    outer = draw(st.lists(st.integers(1, 3), min_size=0, max_size=1))
    shape = [*outer, n, *inner]
    axis = len(outer)
    picks = np.array(draw(st.lists(st.integers(0, len(pool) - 1), min_size=1, max_size=8)))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    data = pool[picks[rng.integers(0, len(picks), size=int(np.prod(shape)))]].reshape(shape)
    order = draw(st.sampled_from(["random", "ascending", "descending"]))
    if order != "random":
        keys = axisops.topk(data, n, axis, largest=False, backend="numpy").indices
        data = np.take_along_axis(data, keys, axis)
        data = np.flip(data, axis=axis) if order == "descending" else data
    k = draw(st.sampled_from(sorted({1, min(2, n), min(SORTED_K + 1, n), n,
                                     draw(st.integers(1, n))})))
    return data, k, axis, draw(st.booleans()), draw(st.sampled_from(LAYOUTS))


@given(case=column_cases(), strategy=st.sampled_from(COLUMNS), sorted_=st.booleans(),
       n_threads=st.integers(1, 3))
def test_hypothesis_columns_match_the_oracle(case, strategy, sorted_, n_threads):
    x, k, axis, largest, layout = case
    old = axisops.get_num_threads()
    try:
        axisops.set_num_threads(n_threads)
        _check(with_layout(x, layout), k, axis, largest, strategy, sorted_)
    finally:
        axisops.set_num_threads(old)
