"""Every strategy and path of the compiled core, reached by inputs of a few hundred elements.

The core's size switches (csrc/common/tuning.hpp) are shrunk with ``_core.tuned`` so that
small inputs take the split, parted, radix, column, segment and fallback paths that the
defaults keep for inputs of millions of elements; the core reports which paths each call
took (``_core.paths_taken``). Each test runs its family over every key width, both
directions and 1, 2 and 3 threads, checks every result against the NumPy oracle bit for
bit, checks that each forced strategy ran as asked, and finally that every path of the
family was reached at least once.
"""

from __future__ import annotations

import numpy as np
import pytest

import axisops
from axisops import _core
from axisops.engines import cpu
from axisops.validation import ArrayMeta, topk_spec

from oracle import assert_same_bits
from strategies import BF16, special_values

K = _core.kernels
ALL_PATHS = set(K.PATHS)

#: Size switches small enough that inputs of a few hundred elements reach every path.
SMALL = dict(
    parallel_min=64, task_min=8, tasks_per_thread=2,
    insert_chunk=256, topk_split_min=256, topk_select_min=256,
    unit_segment=64, segment_bytes=128, scan_min_buffer=4, scan_fuse_bytes=32,
    sample_min_segments=4,
    sample_k=4, sample_max=8, band_rows=2, band_min_k=4, band_share=2, hope_min_samples=2,
    column_rows=8, column_panel=32, columns_min_inner=4, column_split_min=32,
    column_split_max_k=8, column_min_buffer=4, column_sample_factor=2, column_spread_share=2,
    select_split_min=256, tile_max=4096, select_part=128, select_chunk=64, kth_final=32,
    kth_sample_min=8, kth_sample_max=64, kth_count_max=16, kth_pivot_min=8,
    row_cap_share=4, row_cap_min=32, parted_cap_share=8, parted_cap_min=16, parted_block=96,
    sort_bucket_max=64, sort_map_bits=3, sort_msd_bits=2, sort_lsd_bits=3,
    sort_part_shift_min=4, sort_parts_per_thread=2, sort_parts_max=16,
    sort_network_max=32, sort_network_max64=32, sort_network_keys64_max=32,
    filter_min_work=64, filter_n_per_k=4,
    gather_task_min=64, gather_block=32,
)

#: One dtype per key width and kind (bool, 8, 16, 32 and 64 bits; floats and integers).
DTYPES = [np.dtype(d) for d in ("bool", "uint8", "int8", "float16", "int16", "float32",
                                "uint32", "int64", "float64", "uint64")] + [BF16]
THREADS = (1, 2, 3)


@pytest.fixture
def small():
    with _core.tuned(**SMALL) as tuning:
        yield tuning


@pytest.fixture(params=THREADS)
def threads(request):
    before = axisops.get_num_threads()
    axisops.set_num_threads(request.param)
    yield request.param
    axisops.set_num_threads(before)


def _data(dtype: np.dtype, shape, kind: str, seed: int = 0) -> np.ndarray:
    """Values of ``dtype``: random (``"random"``), a few distinct ones (``"few"``), rising
    (``"rising"``), rows far apart from each other (``"unlike"``), or the pool's specials
    (``"special"``)."""
    rng = np.random.default_rng(seed)
    n = int(np.prod(shape))
    if kind == "special":
        pool = special_values(dtype)
        return pool[rng.integers(0, len(pool), n)].reshape(shape)
    if dtype == np.bool_:
        return (rng.integers(0, 2, n) > 0).reshape(shape)
    if kind == "few":
        raw = rng.integers(0, 3, n)
    elif kind == "rising":
        raw = np.arange(n) % 100
    elif kind == "unlike":
        rows = np.arange(n) // shape[-1]
        raw = rng.integers(0, 16, n) + (rows % 2) * 64 + (rows % 3) * 8
    else:
        raw = rng.integers(0, 1 << 12, n)
    if dtype.kind in "iu":
        return raw.astype(dtype).reshape(shape)
    return raw.astype(np.float32).astype(dtype).reshape(shape)


def _run(paths: set[str], call, *args, **kwargs):
    """``call(*args, **kwargs)`` with the paths it took added to ``paths``; returns its
    result and them."""
    with _core.paths_taken() as taken:
        result = call(*args, **kwargs)
    paths |= taken
    return result, taken


# ---- top-k ------------------------------------------------------------------------

#: (strategy, shape, axis, k): a forced strategy and an input where it is its own choice
#: or needs forcing; together they reach every top-k path under SMALL.
TOPK_CASES = [
    ("insert", (50, 40), 1, 2),
    ("insert", (50, 40), 1, 3),
    ("insert", (50, 40), 1, 6),
    ("insert", (20, 300), 1, 40),
    ("insert", (10, 300), 1, 70),
    ("radix", (10, 200), 1, 150),
    ("select", (10, 300), 1, 100),
    ("select", (1, 3000), 1, 300),
    ("select", (3000, 2), 0, 1),
    ("scan", (4, 2000), 1, 5),
    ("scan", (3, 2000), 1, 40),
    ("scan", (2000, 3), 0, 5),
    ("scan", (2, 8000), 1, 40),
    ("split", (1, 3000), 1, 6),
    ("split", (1, 3000), 1, 50),
    ("split", (3000, 1), 0, 6),
    ("columns", (400, 40), 0, 5),
    ("columns", (400, 40), 0, 40),
    ("column-split", (300, 6), 0, 3),
]


def _topk_check(x, k, axis, largest, strategy, sorted_=True):
    spec = topk_spec(ArrayMeta(x.shape, x.dtype), k, axis, largest, sorted_, None)
    values, indices = cpu.topk(x, spec, strategy=strategy)
    want = axisops.topk(x, k, axis, largest=largest, sorted=sorted_, backend="numpy")
    if sorted_:
        assert_same_bits(values, want.values)
        np.testing.assert_array_equal(indices, want.indices)
    else:
        np.testing.assert_array_equal(np.sort(indices, axis), np.sort(want.indices, axis))


def test_topk_reaches_every_path(small, threads):
    paths: set[str] = set()
    for strategy, shape, axis, k in TOPK_CASES:
        for dtype in DTYPES:
            for largest in (True, False):
                for kind in ("random", "few", "rising", "special"):
                    x = _data(dtype, shape, kind)
                    _, taken = _run(paths, _topk_check, x, k, axis, largest, strategy)
                    assert _main_topk_path(strategy) & taken, (strategy, dtype, taken)
    # Column-split with too many candidates per sequence falls back to the columns.
    with _core.tuned(column_split_max_candidates=4):
        _run(paths, _topk_check, _data(np.dtype("float32"), (300, 6), "random"), 3, 0, True,
             "column-split")
    # Sequences whose indices do not fit a word beside a 32-bit key (emulated: words_max_n).
    with _core.tuned(words_max_n=10, column_words_max_rows=10):
        for strategy, shape, axis, k in TOPK_CASES:
            x = _data(np.dtype("float32"), shape, "random", seed=1)
            _run(paths, _topk_check, x, k, axis, True, strategy)
    # Unsorted results take the same paths.
    _run(paths, _topk_check, _data(np.dtype("int32"), (3, 2000), "random"), 40, 1, True, "scan",
         sorted_=False)
    topk_paths = {p for p in ALL_PATHS if p.startswith("topk_")} - HOPE_PATHS
    if threads == 1:  # one thread never splits the columns
        topk_paths -= {"topk_column_split", "topk_column_split_fallback"}
    if not K.topk_filter():  # a level without AVX-512
        topk_paths -= {"topk_filter", "topk_filter_many"}
    if not K.topk_lanes():
        topk_paths -= {"topk_lanes"}
    assert topk_paths <= paths, sorted(topk_paths - paths)


def _main_topk_path(strategy: str) -> set[str]:
    return {
        "insert": {"topk_insert_words", "topk_insert_pairs", "topk_extract", "topk_lanes",
                   "topk_filter"},
        "radix": {"topk_radix_words", "topk_radix_pairs"},
        "select": {"topk_select"},
        "scan": {"topk_scan"},
        "split": {"topk_scan_split"},
        "columns": {"topk_columns_words", "topk_columns_pairs", "topk_columns_buffered"},
        "column-split": {"topk_column_split", "topk_columns_words", "topk_columns_pairs"},
    }[strategy]


HOPE_PATHS = {"topk_scan_hoped", "topk_scan_rescan"}


def _sampled_segments(n: int, k: int) -> list[int]:
    """The first elements of the segments a scan samples for its first bound under SMALL
    (csrc/topk/scan.hpp: `samples` and `Scanner::steps`)."""
    seg = SMALL["unit_segment"]
    parts = -(-n // seg)
    step = -(-n // parts)
    ns = max(2, min(k // SMALL["sample_k"], SMALL["sample_max"], parts // 8))
    return [(parts - 1 - ((it + ns) * parts) // ns) * step for it in range(-ns, 0)]


def test_topk_hoped_bound_rescans(small):
    """A scan may start from a hoped-for first bound (from the sampled segments' block
    maxima); one that lets in fewer than k is scanned again from the sure bound. Here the
    sampled segments hold the only large values, so the hope is too high."""
    paths: set[str] = set()
    n, k, seg = 8000, 40, SMALL["unit_segment"]
    for dtype in (np.dtype("float32"), np.dtype("int16"), np.dtype("float64"),
                  np.dtype("uint8")):
        for largest in (True, False):
            x = _data(dtype, (2, n), "few", seed=3)
            high = _data(dtype, (2, seg), "random", seed=4)
            for start in _sampled_segments(n, k):
                x[:, start:start + seg] = high if largest else ~high if dtype.kind in "iu" \
                    else -high
            _run(paths, _topk_check, x, k, 1, largest, "scan")
            _run(paths, _topk_check, _data(dtype, (2, n), "random"), k, 1, largest, "scan")
    assert paths >= HOPE_PATHS, sorted(HOPE_PATHS - paths)


# ---- sort -------------------------------------------------------------------------


def test_sort_reaches_every_path(small, threads):
    paths: set[str] = set()
    for dtype in DTYPES:
        for shape, axis in (((40, 50), 1), ((1, 700), 1), ((700, 3), 0), ((30, 21), 1),
                            ((21, 4), 0)):
            for kind in ("random", "few", "special"):
                x = _data(dtype, shape, kind)
                for descending in (False, True):
                    for strategy in ("rows", "split"):
                        for values, indices in ((True, True), (True, False), (False, True)):
                            (v, i), taken = _run(paths, cpu.sort, x, axis, descending, values,
                                                 indices, strategy=strategy)
                            assert f"sort_{strategy}_" in " ".join(taken)
                            want_v = axisops.sort(x, axis, descending=descending,
                                                  backend="numpy")
                            want_i = axisops.argsort(x, axis, descending=descending,
                                                     backend="numpy")
                            if values:
                                assert_same_bits(v, want_v)
                            if indices:
                                np.testing.assert_array_equal(i, want_i)
    with _core.tuned(words_max_n=10):
        x = _data(np.dtype("float32"), (1, 700), "random")
        for strategy in ("rows", "split"):
            (_, i), _ = _run(paths, cpu.sort, x, 1, strategy=strategy)
            np.testing.assert_array_equal(i, axisops.argsort(x, backend="numpy"))
    want = {p for p in ALL_PATHS if p.startswith("sort_")}
    if not _core.kernels.sort_networks():  # a level without networks (the baseline)
        want.discard("sort_rows_network")
    assert want <= paths, sorted(want - paths)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_values_sort_puts_zeros_and_nan_back_in_index_order(small, dtype):
    """A sort of the values alone sorts keys only; -0.0/+0.0 and NaN payloads, which share a
    key, come back from the input in index order: a run of one bit pattern by a fill, a
    mixed run by a search, along a strided axis too, in both directions."""
    dt = np.dtype(dtype)
    raw = dt.str[1:].replace("f", "u")
    quiet = np.array(np.nan, dt).view(raw)
    payloads = np.array([quiet, quiet | 1, quiet ^ np.array(1, raw) << (8 * dt.itemsize - 1)],
                        raw).view(dt)
    rng = np.random.default_rng(5)
    pools = {"one pattern": np.array([0.0, 1.5, -2.0, np.nan], dt),
             "mixed": np.concatenate([np.array([0.0, -0.0, 1.5, -2.0], dt), payloads])}
    networked = 8 * dt.itemsize in _core.kernels.sort_networks()
    for name, pool in pools.items():
        for n in (700, 24):  # radix passes; the sorting network under SMALL (rows <= 32)
            x = pool[rng.integers(0, len(pool), (n, 3))]
            for axis, shape in ((0, (n, 3)), (1, (3, n))):
                data = x if axis == 0 else np.ascontiguousarray(x.T)
                assert data.shape == shape
                for descending in (False, True):
                    for strategy in ("rows", "split"):
                        paths: set[str] = set()
                        (v, _), taken = _run(paths, cpu.sort, data, axis, descending, True, False,
                                             strategy=strategy)
                        path = ("sort_rows_network" if strategy == "rows" and n == 24 and networked
                                else f"sort_{strategy}_bare")
                        assert path in taken, (name, taken)
                        want = axisops.sort(data, axis, descending=descending, backend="numpy")
                        assert_same_bits(v, want)


# ---- kthvalue and partition ---------------------------------------------------------

#: (shape, kind, sigmas): inputs that take the selection's paths under SMALL. A tiny
#: sigmas makes the sampled band miss; few distinct values overflow the candidates.
SELECT_INPUTS = [
    ((30, 20), "random", 0.0),     # small rows: searched whole
    ((12, 200), "random", 0.0),    # rows alike: hints
    ((12, 200), "rising", 0.0),
    ((12, 200), "unlike", 0.0),    # rows unlike: hints missed
    ((6, 400), "few", 0.0),        # a band of one repeated value
    ((6, 400), "random", 0.01),    # bands that miss: the radix select
    ((1, 1500), "random", 0.0),    # one long row: parted
    ((1, 1500), "few", 0.0),       # parted, a repeated value
    ((1, 1500), "random", 0.01),   # parted, missed
    ((1, 1500), "rising", 0.0),
    ((2, 5000), "random", 0.0),    # longer than a tile: parted
]


def _kth_check(x, k, strategy, sigmas):
    v, i = cpu.kthvalue(x, 1, k, strategy=strategy, sigmas=sigmas)
    want = axisops.kthvalue(x, k, 1, backend="numpy")
    assert_same_bits(v, want.values)
    np.testing.assert_array_equal(i, want.indices)


def test_kthvalue_reaches_every_path(small, threads):
    paths: set[str] = set()
    for dtype in DTYPES:
        for shape, kind, sigmas in SELECT_INPUTS:
            x = _data(dtype, shape, kind)
            n = shape[1]
            for k in (1, n // 3 + 1, n // 2 + 1, n):
                for strategy in ("rows", "split", "radix"):
                    if strategy == "rows" and n > SMALL["tile_max"]:
                        continue  # always split
                    _, taken = _run(paths, _kth_check, x, k, strategy, sigmas)
                    want = {"rows": "select_", "split": "select_parted", "radix": "radix"}
                    assert any(want[strategy] in p for p in taken), (strategy, taken)
    with _core.tuned(parted_max_n=100):  # indices beyond 32 bits (emulated): radix
        _run(paths, _kth_check, _data(np.dtype("float32"), (1, 1500), "random"), 700, "split",
             0.0)
    with _core.tuned(kth_pivot_rounds=0, kth_count_max=0):
        _run(paths, _kth_check, _data(np.dtype("int32"), (12, 200), "random"), 77, "rows", 0.0)
    assert {p for p in ALL_PATHS if p.startswith("select_")} <= paths, \
        sorted({p for p in ALL_PATHS if p.startswith("select_")} - paths)


def _partition_check(x, kths, strategy, values=True, indices=True):
    v, i = cpu.partition(x, 1, kths, values, indices, strategy=strategy)
    if values:
        assert_same_bits(v, axisops.partition(x, kths, 1, backend="numpy"))
    if indices:
        np.testing.assert_array_equal(i, axisops.argpartition(x, kths, 1, backend="numpy"))


def test_partition_reaches_every_path(small, threads):
    paths: set[str] = set()
    for dtype in DTYPES:
        for shape, kind, _ in SELECT_INPUTS:
            x = _data(dtype, shape, kind)
            n = shape[1]
            for kths in ([n // 2], [0], [n - 1], [1, n // 3, n - 2]):
                for strategy in ("rows", "split"):
                    if strategy == "rows" and n > SMALL["tile_max"]:
                        continue
                    for values, indices in ((True, True), (False, True), (True, False)):
                        _, taken = _run(paths, _partition_check, x, kths, strategy, values,
                                        indices)
                        want = "partition_rows" if strategy == "rows" else "partition_split"
                        assert any(p.startswith(want) for p in taken), (strategy, taken)
    assert {p for p in ALL_PATHS if p.startswith("partition_")} <= paths


# ---- gather and the arena -----------------------------------------------------------


def test_gather_reaches_every_path(small, threads):
    paths: set[str] = set()
    rng = np.random.default_rng(0)
    for dtype in (np.dtype("uint8"), np.dtype("int16"), np.dtype("float32"),
                  np.dtype("float64"), np.dtype("complex128")):
        x = rng.integers(0, 100, (40, 300)).astype(dtype)
        for index_dtype in (np.int8, np.uint16, np.int32, np.int64):
            for dim, shape in ((1, (40, 200)), (0, (30, 300))):
                idx = rng.integers(0, x.shape[dim] if index_dtype == np.int8 else 30,
                                   shape).astype(index_dtype)
                for ahead in (0, 16):
                    out = np.empty(shape, dtype)
                    stop, _ = _run(paths, K.gather, cpu._raw(x), idx, dim, cpu._raw(out),
                                   axisops.get_num_threads(), ahead)
                    assert stop == -1
                    np.testing.assert_array_equal(out, np.take_along_axis(x, idx, dim))
    assert {"gather_blocks", "gather_rows"} <= paths


def test_arena_is_reused(small):
    x = _data(np.dtype("float32"), (1, 1500), "random")
    paths: set[str] = set()
    for _ in range(2):
        _run(paths, _kth_check, x, 700, "split", 0.0)
    assert "arena_reused" in paths


def test_every_path_is_named_once():
    assert len(ALL_PATHS) == len(K.PATHS) <= 64
    assert set(SMALL) <= set(K._tuning())


@pytest.mark.parametrize("n", [100, 2000, 5000])
@pytest.mark.parametrize("k", [1, 2, 10])
def test_a_scan_samples_each_segment_once(n, k):
    """Found by the top-k fuzzer: with sample_min_segments=1, a sequence of fewer segments
    than samples had one segment sampled twice, its block maxima counted twice, and a
    first bound above the k-th best (the scan then reported a changed input)."""
    x = np.random.default_rng(n + k).integers(0, 1000, n).astype(np.int32)
    with _core.tuned(sample_min_segments=1, unit_segment=max(64, n // 3)):
        for largest in (True, False):
            _topk_check(x[None], k, 1, largest, "scan")


@pytest.mark.parametrize("strategy", ["rows", "split"])
def test_several_order_statistics_of_every_sequence(small, threads, strategy):
    """kth_many (the quantile family's kernel): the elements of given stable ranks, the
    same ranks for every sequence or a row of ranks per sequence, by selection; split, the
    ranks of one sequence share its passes (several bands in one, select_bands_max at a
    time) and a rank right after another is its successor among the candidates."""
    rng = np.random.default_rng(7)
    paths: set[str] = set()
    for dtype in DTYPES:
        for shape, kind in (((12, 300), "random"), ((3, 1500), "few"), ((4, 700), "special"),
                            ((2, 3000), "random")):
            x = _data(dtype, shape, kind)
            n = shape[1]
            order = axisops.argsort(x, backend="numpy")
            pairs = np.array([0, 1, n // 3, n // 3 + 1, n // 2, n - 2, n - 1])
            for ranks in (np.array([0, n // 2, n - 1]), pairs, rng.integers(0, n, (shape[0], 4))):
                for bands, share in ((1, 8), (2, 8), (4, 8), (4, 1)):  # share 1: bands merge
                    with _core.tuned(select_bands_max=bands, parted_cap_share=share):
                        got, _ = _run(paths, cpu.kth_many, x, 1, ranks, strategy=strategy)
                    where = np.broadcast_to(ranks, (shape[0], ranks.shape[-1]))
                    want = np.take_along_axis(x, np.take_along_axis(order, where, 1), 1)
                    assert_same_bits(got, want)
    if strategy == "split":
        assert {"ranks_bands", "ranks_next", "select_parted"} <= paths, paths
