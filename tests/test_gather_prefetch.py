"""How gather adapts its prefetching to the caches of the CPU it runs on."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest

import axisops
from axisops.kernels import cpu_caches
from axisops.kernels.numba import driver as drv
from axisops.kernels.numba import gather as kg


@pytest.mark.parametrize("text, size", [
    ("32K", 32 << 10), ("1024K\n", 1 << 20), ("32M", 32 << 20), ("2G", 2 << 30),
    ("48KB", 48 << 10), ("512", 512), ("", None), ("K", None), ("0K", None), ("-1K", None),
    ("1.5M", None), ("unknown", None),
])
def test_sysfs_cache_sizes_are_parsed(text, size):
    assert cpu_caches.parse_size(text) == size


def _fake_cache(root, index, level, kind, size):
    entry = root / f"index{index}"
    entry.mkdir(parents=True)
    for name, value in (("level", level), ("type", kind), ("size", size)):
        (entry / name).write_text(f"{value}\n")


def test_the_data_or_unified_cache_of_each_level_is_read(tmp_path):
    _fake_cache(tmp_path, 0, 1, "Data", "48K")
    _fake_cache(tmp_path, 1, 1, "Instruction", "32K")
    _fake_cache(tmp_path, 2, 2, "Unified", "2048K")
    _fake_cache(tmp_path, 3, 3, "Unified", "garbage")
    assert cpu_caches._read(1, tmp_path) == 48 << 10
    assert cpu_caches._read(2, tmp_path) == 2 << 20
    assert cpu_caches._read(3, tmp_path) is None
    assert cpu_caches._read(4, tmp_path) is None


def test_an_unknown_machine_gets_the_defaults():
    cpu_caches.data_cache_bytes.cache_clear()
    try:
        with mock.patch.object(cpu_caches, "_first_cpu", return_value=10**9):
            assert [cpu_caches.data_cache_bytes(level) for level in (1, 2, 3)] == [
                cpu_caches.DEFAULT_BYTES[level] for level in (1, 2, 3)]
    finally:
        cpu_caches.data_cache_bytes.cache_clear()


def test_this_machine_reports_plausible_sizes():
    l1, l2 = cpu_caches.data_cache_bytes(1), cpu_caches.data_cache_bytes(2)
    assert 4 << 10 <= l1 <= l2 <= 1 << 30


@pytest.mark.parametrize("l2", [256 << 10, 2 << 20])
def test_gather_prefetches_only_from_an_x_larger_than_half_the_l2(l2):
    with mock.patch.object(drv, "data_cache_bytes", return_value=l2):
        assert drv.gather_prefetch_distance(0) == 0
        assert drv.gather_prefetch_distance(l2 // 2) == 0
        assert drv.gather_prefetch_distance(l2 // 2 + 1) == kg.PREFETCH_DISTANCE
        assert drv.gather_prefetch_distance(1 << 40) == kg.PREFETCH_DISTANCE


@pytest.mark.parametrize("layout", ["C", "F", "reversed"])
@pytest.mark.parametrize("dim", [0, 1])
@pytest.mark.parametrize("threads", [1, 3])
def test_the_driver_passes_the_distance_for_the_x_it_reads(layout, dim, threads):
    """The distance follows the bytes of ``x`` the kernel reads, in every layout, with
    every index dtype and negative indices, and the result is the same either way."""
    x = np.arange(64 * 50, dtype=np.float64).reshape(64, 50)
    x = {"C": x, "F": np.asfortranarray(x), "reversed": x[::-1, ::-1]}[layout]
    real, seen = kg.gather_flat, []

    def spy(*args):
        seen.append(args[12])
        return real(*args)

    old = axisops.get_num_threads()
    try:
        axisops.set_num_threads(threads)
        for index_dtype in ("int8", "int32", "uint32", "int64", "uint64"):
            low = 0 if np.dtype(index_dtype).kind == "u" else -x.shape[dim]
            shape = (40, 50) if dim == 0 else (64, 30)  # spans all of x's other dim
            idx = np.random.default_rng(5).integers(low, x.shape[dim], size=shape)
            idx = idx.astype(index_dtype)
            want = axisops.gather(x, dim, idx, backend="numpy")
            for l2, ahead in ((2 * x.nbytes, 0), (2 * x.nbytes - 1, kg.PREFETCH_DISTANCE)):
                seen.clear()
                with mock.patch.object(drv, "data_cache_bytes", return_value=l2), \
                        mock.patch.object(drv, "PARALLEL_MIN", 0), \
                        mock.patch.object(kg, "gather_flat", spy):
                    got = axisops.gather(x, dim, idx, backend="numba")
                np.testing.assert_array_equal(got, want)
                assert seen == [ahead] * min(threads, idx.size)
    finally:
        axisops.set_num_threads(old)
