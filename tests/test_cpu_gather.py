"""The compiled core's gather (csrc/gather): the oracle's bits on every path, element
width, index type, layout, task split and thread count, and no read outside ``x`` for any
index value, even one another thread rewrites during the call.

Two kernel paths: *rows* (``inner == 1`` with prefetching: a look-ahead ring of positions
clamped into their row) and *blocks* (positions a block at a time, checked, then copied).
Tests force the prefetch distance (``ahead``) and the task size (``task``) that the driver
otherwise chooses, so small arrays reach block edges, ring edges and task edges.
"""

from __future__ import annotations

import re
import threading
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import axisops
from axisops import _core
from axisops.engines import cpu
from axisops.validation import ArrayMeta, gather_spec
from gather_race_script import _torn
from subprocess_helpers import run_python
from test_gather_by_blocks import _save, reads  # noqa: F401 (``reads`` is a fixture)

from oracle import assert_same_bits, first_bad_index, ref_gather
from strategies import GATHER_DTYPES, INT_DTYPES, special_values

BLOCK, AHEAD = _core.kernels._tuning()["gather_block"], cpu.PREFETCH_DISTANCE


def _kernel(x, idx, out, ahead, *, dim=0, threads=1, task=0):
    """The core's gather of raw ``x`` at ``idx`` into ``out``: its return value."""
    return _core.kernels.gather(x, idx, dim, out, threads, ahead, task)


def _spec(x, dim, idx):
    return gather_spec(ArrayMeta(x.shape, x.dtype), dim, ArrayMeta(idx.shape, idx.dtype))


def _gather(x, dim, idx, *, ahead=None, task=None):
    """:func:`cpu.gather` with the prefetch distance forced (``None``: the driver's)."""
    if ahead is None:
        return cpu.gather(x, idx, _spec(x, dim, idx), task=task)
    with mock.patch.object(cpu, "gather_prefetch_distance", lambda _: ahead):
        return cpu.gather(x, idx, _spec(x, dim, idx), task=task)


BAD_VALUES = [
    ("int64", 100), ("int64", -101), ("int64", -(2**63)), ("int32", 2**31 - 1),
    ("int16", -32768), ("int8", -128), ("uint64", 2**63 + 5), ("uint64", 2**64 - 1),
    ("uint64", 100), ("uint32", 2**32 - 1), ("uint16", 100), ("uint8", 255),
]
# First lead positions, the lead's edge, block edges, the prefetch distance past a block.
PLACES = [0, 7, AHEAD - 1, AHEAD, BLOCK - 1, BLOCK, BLOCK + AHEAD - 1, BLOCK + AHEAD,
          3 * BLOCK - 1]


@pytest.mark.parametrize("dtype, value", BAD_VALUES)
@pytest.mark.parametrize("at", PLACES)
@pytest.mark.parametrize("ahead", [AHEAD, 1, BLOCK + 5])
def test_the_row_kernel_reads_only_inside_x_and_stops_at_a_bad_value(dtype, value, at, ahead):
    """Along rows, prefetching, the kernel checks the first ``lead`` positions before any
    copy, then turns each value into a position ``lead`` elements before copying it,
    clamping it into the row (an out-of-range value reads the row's last element), and
    stops at the end of the block in which it met the value."""
    x = np.arange(100, dtype=np.uint64) + 1000
    size = 3 * BLOCK
    idx = (np.arange(size) % 100).astype(dtype)
    idx[at] = value
    out = np.zeros(size, np.uint64)
    assert _kernel(x, idx, out, ahead) == at
    lead = min(ahead, size)
    copied = 0 if at < lead else min(size, ((at - lead) // BLOCK + 1) * BLOCK)
    want = x[np.clip(idx[:copied].astype(np.int64), 0, 99)]
    want[at:at + 1] = x[99]  # the bad value itself, clamped
    assert (out[:copied] == want).all()
    assert (out[copied:] == 0).all()


@pytest.mark.parametrize("dtype, value", BAD_VALUES)
@pytest.mark.parametrize("at", PLACES)
@pytest.mark.parametrize("path, ahead", [("columns", AHEAD), ("columns", 0), ("columns", 1),
                                         ("columns", BLOCK + 5), ("rows without prefetch", 0)])
def test_the_block_kernel_stops_at_a_bad_value_before_copying_its_block(dtype, value, at, ahead,
                                                                         path):
    """Along columns, and along rows when x is small enough to read without hints,
    positions are computed a block at a time, checked, then copied."""
    size = 3 * BLOCK
    out = np.zeros(size, np.uint64)
    if path == "columns":
        x = (np.arange(200, dtype=np.uint64) + 1000).reshape(100, 2)
        idx = (np.arange(size) % 100).astype(dtype).reshape(-1, 2)
        idx.reshape(-1)[at] = value
        stop = _kernel(x, idx, out.reshape(-1, 2), ahead)
        columns = np.arange(size) % 2
    else:
        x = np.arange(100, dtype=np.uint64) + 1000
        idx = (np.arange(size) % 100).astype(dtype)
        idx[at] = value
        stop = _kernel(x, idx, out, ahead)
        columns = np.zeros(size, np.int64)
    assert stop == at
    # A block is checked whole, its prefetch window (the next ``ahead`` positions)
    # included, before any read of x: the first block whose window holds the value is
    # never copied, nor any after it.
    first_unsafe = max(0, ((at - BLOCK - ahead) // BLOCK + 1) * BLOCK)
    assert (out[first_unsafe:] == 0).all()
    flat = idx.reshape(-1)[:first_unsafe].astype(np.int64) * (x.size // 100)
    assert (out[:first_unsafe] == x.reshape(-1)[flat + columns[:first_unsafe]]).all()


@pytest.mark.parametrize("ahead", [AHEAD, 0])
def test_the_kernel_wraps_only_signed_values(ahead):
    x = np.arange(10, dtype=np.uint64)
    out = np.zeros(3, np.uint64)
    assert _kernel(x, np.array([-1, -10, 9], np.int64), out, ahead) == -1
    assert out.tolist() == [9, 0, 9]
    # 2**64 - 1 is -1 when cast to int64; an unsigned value never wraps.
    assert _kernel(x, np.array([0, 2**64 - 1, 1], np.uint64), out, ahead) == 1
    assert _kernel(x, np.array([0, 1, 255], np.uint8), out, ahead) == 2
    assert _kernel(x, np.array([-11, 1, 2], np.int8), out, ahead) == 0


@pytest.mark.parametrize("ahead", [AHEAD, 0])
@pytest.mark.parametrize("task", [1, 7, 1000])
@pytest.mark.parametrize("nthreads", [1, 2, 3])
def test_the_first_bad_value_is_returned_whatever_the_tasks(ahead, task, nthreads):
    """Each task stops at the first bad value of its range and tasks after a stop are
    skipped, so the call returns the first bad value in C order, for any split."""
    x = np.arange(50, dtype=np.uint32)
    rng = np.random.default_rng(task)
    idx = rng.integers(-50, 50, size=(30, 400))
    bad = [(29, 399), (17, 3), (17, 2), (4, 100)]
    for where in bad:
        idx[where] = 50 if where[1] % 2 else -51
        out = np.zeros(idx.shape, np.uint32)
        want = where[0] * 400 + where[1]
        assert _kernel(np.tile(x, (30, 1)), idx, out, ahead, dim=1, threads=nthreads,
                       task=task) == want


@pytest.mark.parametrize("layout", ["C", "F"])
def test_the_error_names_the_first_offender_in_c_order_across_threads(layout, threads):
    x = np.arange(40 * 300, dtype=np.float32).reshape(40, 300)
    idx = np.random.default_rng(3).integers(-300, 300, size=(40, 5000))
    idx[39, 4999] = 300  # in the last task
    idx[17, 2] = -301    # in a middle one: first in C order
    idx = np.asfortranarray(idx) if layout == "F" else idx
    threads(4)
    want = ("index[17, 2]=-301 is out of range for dim 1 of size 300 "
            "(need -300 <= index <= 299)")
    with pytest.raises(axisops.IndexOutOfRangeError, match=re.escape("gather(): " + want)):
        axisops.gather(x, 1, idx, backend="cpu")
    for ahead in (0, AHEAD):
        with pytest.raises(axisops.IndexOutOfRangeError, match=re.escape(want)):
            _gather(x, 1, idx, ahead=ahead, task=777)


class _Repairing:
    """The core's module, whose gather puts valid values back into the index right after
    the kernel read (and refused) a bad one."""

    def __init__(self, index, good):
        self.index, self.good = index, good

    def gather(self, *args):
        try:
            return _core.kernels.gather(*args)
        finally:
            np.copyto(self.index, self.good)


@pytest.mark.parametrize("ahead", [AHEAD, 0])
def test_an_index_repaired_during_the_call_still_raises(ahead):
    x = np.arange(12.0).reshape(3, 4)
    good = np.array([[0, 1], [2, 3], [-1, -4]])
    index = good.copy()
    index[1, 1] = 99
    with mock.patch.object(cpu, "_kernels", lambda: _Repairing(index, good)), \
            mock.patch.object(cpu, "gather_prefetch_distance", lambda _: ahead), \
            pytest.raises(axisops.IndexOutOfRangeError) as info:
        axisops.gather(x, 1, index, backend="cpu")
    assert str(info.value) == (
        "gather(): index held an out-of-range value at or after index[1, 1] when it was read, "
        "for dim 1 of size 4, but holds none now (was it changed during the call?); "
        "need -4 <= index <= 3")


def test_gather_survives_an_index_rewritten_by_another_thread():
    """Another thread flips stretches of the index between valid and out-of-range values
    (by one, and by up to 2**63) while the core gathers, through both kernel paths, every
    index width, small tasks, one and several threads; in a subprocess, so a crash fails
    here."""
    done = run_python(["cpu_gather_race_script.py", "30", "1", "2", "3"], timeout=300)
    assert done.returncode == 0, done.explain()
    assert done.stdout.count("rows=") == 3, done.explain()


@pytest.mark.parametrize("bad", ["n", "-n-1", "2**62", "-2**62"])
@pytest.mark.parametrize("layout", ["C", "transposed", "negative"])
def test_gather_edges_never_touch_memory_outside_x(bad, layout):
    x = np.arange(12.0).reshape(3, 4)
    n = 4
    ok = np.array([[-n, n - 1, 0], [-1, 2, -n]], np.int64)
    assert_same_bits(axisops.gather(x, 1, ok, backend="cpu"), ref_gather(x, 1, ok))
    value = {"n": n, "-n-1": -n - 1, "2**62": 2**62, "-2**62": -(2**62)}[bad]
    idx = ok.copy()
    idx[1, 2] = value
    idx = {"C": idx, "transposed": np.ascontiguousarray(idx.T).T,
           "negative": np.ascontiguousarray(idx[::-1, ::-1])[::-1, ::-1]}[layout]
    with pytest.raises(axisops.IndexOutOfRangeError,
                       match=rf"index\[1, 2\]={re.escape(str(value))} is out of range"):
        axisops.gather(x, 1, idx, backend="cpu")


def test_gather_zero_size_batch_dimensions():
    x = np.zeros((0, 5), np.float32)
    out = axisops.gather(x, 1, np.zeros((0, 3), np.int64), backend="cpu")
    assert out.shape == (0, 3)
    with pytest.raises(axisops.InvalidArgumentError, match="non-empty but dim 1"):
        axisops.gather(np.zeros((2, 0)), 1, np.zeros((2, 1), np.int32), backend="cpu")


def test_gather_spec_path_keeps_the_index_type():
    x = np.arange(20).reshape(4, 5)
    for dtype in INT_DTYPES:
        idx = np.array([[4, 0], [1, 2]], dtype)
        np.testing.assert_array_equal(cpu.gather(x, idx, _spec(x, 1, idx)), [[4, 0], [6, 7]])


def _index_layout(idx, layout, dim):
    if layout == "F":
        return np.asfortranarray(idx)
    if layout == "negative":
        return np.ascontiguousarray(idx[::-1, ::-1])[::-1, ::-1]
    if layout == "broadcast":  # every row (dim 1) or column (dim 0) the same
        return np.broadcast_to(idx[:1] if dim == 1 else idx[:, :1], idx.shape)
    if layout == "broadcast_dim":  # one value along the whole dim
        return np.broadcast_to(idx[:, :1] if dim == 1 else idx[:1], idx.shape)
    return idx


@pytest.mark.parametrize("nthreads", [1, 2, 3])
@pytest.mark.parametrize("layout", ["C", "F", "negative", "broadcast", "broadcast_dim"])
@pytest.mark.parametrize("prefetch", [True, False])
def test_gather_at_prefetch_block_and_task_boundaries(nthreads, layout, prefetch, threads):
    """Output sizes on both sides of the prefetch distance and the position block, with
    and without negative indices, split into tasks at odd places, with and without
    prefetching (which the driver otherwise chooses by the size of x)."""
    rng = np.random.default_rng(11)
    d, b = AHEAD, BLOCK
    threads(nthreads)
    for total in (1, d - 1, d, d + 1, b - 1, b, b + d + 1, 2 * b + 3):
        x = rng.standard_normal((3, 50)).astype(np.float32)
        for dim, shape in ((1, (3, total)), (0, (total, 50))):
            n = x.shape[dim]
            for low in (0, -n):
                idx = _index_layout(rng.integers(low, n, size=shape), layout, dim)
                want = axisops.gather(x, dim, idx, backend="numpy")
                for task in (None, 1, 255, 2049):
                    assert_same_bits(_gather(x, dim, idx, ahead=d * prefetch, task=task), want)


@pytest.mark.parametrize("nthreads", [1, 2, 3, 5])
def test_thread_count_never_changes_the_bits(nthreads, threads):
    rng = np.random.default_rng(8)
    pool = special_values(np.float32)
    cases = [pool[rng.integers(0, len(pool), size=(1, 50_000))],
             pool[rng.integers(0, 4, size=(37, 2000))],
             pool[rng.integers(0, 4, size=(3000, 40))]]
    threads(nthreads)
    for x in cases:
        for dim in (0, 1):
            n = x.shape[dim]
            shape = (n * 2, x.shape[1]) if dim == 0 else (x.shape[0], 3 * n)
            idx = rng.integers(-n, n, size=shape)
            want = axisops.gather(x, dim, idx, backend="numpy")
            for ahead in (0, AHEAD):
                for task in (None, 4093):
                    assert_same_bits(_gather(x, dim, idx, ahead=ahead, task=task), want)


def test_python_threads_gathering_at_once_get_the_oracle_bits(threads):
    """Several Python threads call the core at once (each call's tasks are its own)."""
    threads(2)
    rng = np.random.default_rng(4)
    x = rng.standard_normal((300, 400))
    cases = [(1, rng.integers(-400, 400, size=(300, 700))),
             (0, rng.integers(-300, 300, size=(900, 400)).astype(np.int32))]
    wants = [axisops.gather(x, dim, idx, backend="numpy") for dim, idx in cases]
    start, failures = threading.Barrier(4), []

    def work(seed):
        start.wait()
        for r in range(20):
            dim, idx = cases[(seed + r) % 2]
            got = _gather(x, dim, idx, task=None if r % 2 else 997)
            if got.tobytes() != wants[(seed + r) % 2].tobytes():
                failures.append((seed, r))

    workers = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert failures == []


# Every element width (complex128: 16 bytes) and every index type, in every layout.
LAYOUTS = ["C", "F", "negative", "transposed", "broadcast", "broadcast_dim"]


def _x_layout(x, layout):
    if layout == "F":
        return np.asfortranarray(x)
    if layout == "negative":
        return np.ascontiguousarray(x[::-1, ::-1])[::-1, ::-1]
    if layout == "transposed":
        return np.ascontiguousarray(x.T).T
    return x


@pytest.mark.parametrize("dtype", GATHER_DTYPES, ids=str)
@pytest.mark.parametrize("index_dtype", INT_DTYPES, ids=str)
def test_every_element_width_and_index_type_in_every_layout(dtype, index_dtype):
    """Both kernel paths, with the prefetch forced on and off, one task and odd tasks, x
    and the index each in every layout (the index also broadcast with stride 0)."""
    rng = np.random.default_rng(5)
    pool = special_values(dtype)
    info = np.iinfo(index_dtype)
    base = pool[rng.integers(0, len(pool), size=(9, 100))]
    for dim, shape in ((1, (7, BLOCK + AHEAD + 3)), (0, (2 * AHEAD + 1, 100))):
        n = base.shape[dim]
        idx = rng.integers(max(info.min, -n), n, size=shape).astype(index_dtype)
        for il in LAYOUTS:
            index = (_index_layout(idx, il, dim) if il.startswith("broadcast")
                     else _x_layout(idx, il))
            want = axisops.gather(base, dim, index, backend="numpy")
            for xl in ("C", "F", "negative", "transposed"):
                x = _x_layout(base, xl)
                for ahead, task in ((0, None), (AHEAD, None), (AHEAD, 1001), (3, 5)):
                    assert_same_bits(_gather(x, dim, index, ahead=ahead, task=task), want)


@st.composite
def gather_cases(draw):
    """x of any element type and rank 1-3, an index of any integer type that fits in
    x's extent, each in its own layout, and maybe one out-of-range value."""
    dtype = draw(st.sampled_from(GATHER_DTYPES))
    index_dtype = draw(st.sampled_from(INT_DTYPES))
    ndim = draw(st.integers(1, 3))
    shape = tuple(draw(st.lists(st.integers(1, 7), min_size=ndim, max_size=ndim)))
    dim = draw(st.integers(0, ndim - 1))
    ishape = tuple(draw(st.integers(1, s)) if d != dim else draw(st.integers(0, 40))
                   for d, s in enumerate(shape))
    pool = special_values(dtype)
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    x = pool[rng.integers(0, len(pool), size=shape)]
    n, info = shape[dim], np.iinfo(index_dtype)
    idx = rng.integers(max(info.min, -n), n, size=ishape).astype(index_dtype)
    if idx.size and draw(st.booleans()):
        wrong = [n, info.max] + ([-n - 1, info.min] if info.min < 0 else [])
        idx.reshape(-1)[draw(st.integers(0, idx.size - 1))] = draw(
            st.sampled_from([w for w in wrong if info.min <= w <= info.max]))
    layouts = ("C", "F", "negative", "transposed", "broadcast")
    xl, il = draw(st.sampled_from(layouts)), draw(st.sampled_from(layouts))
    return dim, _nd_layout(x, xl, rng), _nd_layout(idx, il, rng, dim)


def _nd_layout(a, layout, rng, dim=None):
    """``a`` in ``layout``; "broadcast" repeats one slice of a dimension (not ``dim``)
    with stride 0."""
    if layout == "F":
        return np.asfortranarray(a)
    if layout == "negative":
        flip = tuple(slice(None, None, -1) for _ in a.shape)
        return np.ascontiguousarray(a[flip])[flip]
    if layout == "transposed":
        return np.ascontiguousarray(a.T).T
    if layout == "broadcast":
        dims = [d for d in range(a.ndim) if d != dim and a.shape[d] > 1]
        if dims:
            d = dims[int(rng.integers(0, len(dims)))]
            one = tuple(slice(0, 1) if e == d else slice(None) for e in range(a.ndim))
            return np.broadcast_to(a[one], a.shape)
    return a


@settings(max_examples=300, deadline=None)
@given(gather_cases(), st.sampled_from([0, 1, 3, AHEAD]), st.sampled_from([None, 1, 2, 5, 64]),
       st.integers(1, 3))
def test_hypothesis_gather_matches_the_oracle(case, ahead, task, nthreads):
    dim, x, idx = case
    old = axisops.get_num_threads()
    try:
        axisops.set_num_threads(nthreads)
        bad = first_bad_index(idx, x.shape[dim])
        if bad is None:
            assert_same_bits(_gather(x, dim, idx, ahead=ahead, task=task),
                             ref_gather(x, dim, idx))
        else:
            where = ", ".join(map(str, bad[0]))
            with pytest.raises(axisops.IndexOutOfRangeError,
                               match=re.escape(f"index[{where}]={bad[1]} is out of range")):
                _gather(x, dim, idx, ahead=ahead, task=task)
    finally:
        axisops.set_num_threads(old)


@pytest.mark.parametrize("dim", [0, 1])
@pytest.mark.parametrize("ahead", [0, AHEAD])
@pytest.mark.parametrize("nthreads", [1, 2, 3])
def test_a_bad_value_at_every_position_class_is_named(dim, ahead, nthreads, threads):
    """A bad value among the first lead positions, at the lead's edge, at block edges, at
    the prefetch distance past a block, at task edges and last, with valid values before
    and after it: the error names it, whatever the task split."""
    threads(nthreads)
    x = np.arange(60 * 50, dtype=np.int16).reshape(60, 50)
    n = x.shape[dim]
    task = 1500
    total = 3 * BLOCK + 11
    shape = (total // 50 + 1, 50) if dim == 0 else (60, total // 60 + 1)
    size = shape[0] * shape[1]
    places = [0, 5, AHEAD - 1, AHEAD, BLOCK - 1, BLOCK, BLOCK + 1, BLOCK + AHEAD - 1,
              BLOCK + AHEAD, task - 1, task, 2 * task + 1, size - 1]
    rng = np.random.default_rng(dim)
    for at in places:
        idx = rng.integers(-n, n, size=shape)
        idx.reshape(-1)[at] = -n - 1 if at % 2 else n
        where = ", ".join(map(str, np.unravel_index(at, shape)))
        for t in (None, task):
            with pytest.raises(axisops.IndexOutOfRangeError, match=re.escape(f"index[{where}]")):
                _gather(x, dim, idx, ahead=ahead, task=t)


@pytest.mark.parametrize("l2", [256 << 10, 2 << 20])
def test_gather_prefetches_only_from_an_x_larger_than_half_the_l2(l2):
    with mock.patch.object(cpu, "data_cache_bytes", return_value=l2):
        assert cpu.gather_prefetch_distance(0) == 0
        assert cpu.gather_prefetch_distance(l2 // 2) == 0
        assert cpu.gather_prefetch_distance(l2 // 2 + 1) == AHEAD
        assert cpu.gather_prefetch_distance(1 << 40) == AHEAD


class _Spy:
    """The core's module, noting the prefetch distance of every gather call."""

    def __init__(self):
        self.seen = []

    def gather(self, *args):
        self.seen.append(args[5])
        return _core.kernels.gather(*args)


@pytest.mark.parametrize("layout", ["C", "F", "reversed", "broadcast"])
@pytest.mark.parametrize("dim", [0, 1])
@pytest.mark.parametrize("nthreads", [1, 3])
def test_the_driver_passes_the_distance_for_the_x_it_reads(layout, dim, nthreads, threads):
    """The distance follows the bytes of ``x`` the kernel can read (x restricted to the
    index's extent), in every layout, with every index dtype and negative indices, and
    the result is the same either way."""
    full = np.arange(64 * 50, dtype=np.float64).reshape(64, 50)
    x = {"C": full, "F": np.asfortranarray(full), "reversed": full[::-1, ::-1],
         "broadcast": np.broadcast_to(full[:1], full.shape)}[layout]
    # The index spans 30 of x's 50 columns (dim 0) or 40 of its 64 rows (dim 1): the
    # elements from the lowest to the highest x can read there.
    shape = (40, 30)
    elements = {(0, "C"): 63 * 50 + 30, (0, "F"): 29 * 64 + 64, (0, "reversed"): 63 * 50 + 30,
                (0, "broadcast"): 30, (1, "C"): 40 * 50, (1, "F"): 49 * 64 + 40,
                (1, "reversed"): 40 * 50, (1, "broadcast"): 50}[dim, layout]
    span = 8 * elements
    threads(nthreads)
    for index_dtype in ("int8", "int32", "uint32", "int64", "uint64"):
        low = 0 if np.dtype(index_dtype).kind == "u" else -x.shape[dim]
        idx = np.random.default_rng(5).integers(low, x.shape[dim], size=shape)
        idx = idx.astype(index_dtype)
        want = axisops.gather(x, dim, idx, backend="numpy")
        for l2, ahead in ((2 * span, 0), (2 * span - 1, AHEAD)):
            spy = _Spy()
            with mock.patch.object(cpu, "data_cache_bytes", return_value=l2), \
                    mock.patch.object(cpu, "_kernels", lambda spy=spy: spy):
                got = axisops.gather(x, dim, idx, backend="cpu")
            assert_same_bits(got, want)
            assert spy.seen == [ahead]


def test_every_isa_level_gives_the_same_bits():
    """Each level built and runnable here gathers the same bits, on both paths."""
    rng = np.random.default_rng(9)
    x = rng.integers(0, 2**63, size=(40, 300), dtype=np.uint64)
    cases = [(1, rng.integers(-300, 300, size=(40, 5000)).astype(np.int32)),
             (0, rng.integers(0, 40, size=(700, 300)).astype(np.uint16))]
    for dim, idx in cases:
        results = {}
        for level in _core.available_levels():
            for ahead in (0, AHEAD):
                out = np.zeros(idx.shape, np.uint64)
                with _core.level(level):
                    assert _kernel(x, idx, out, ahead, dim=dim, threads=2, task=999) == -1
                results[(level, ahead)] = out.tobytes()
        assert len(set(results.values())) == 1, sorted(results)
        assert results[(_core.LEVEL, 0)] == np.take_along_axis(
            x, np.where(idx < 0, idx.astype(np.int64) + x.shape[dim], idx), dim).tobytes()


def test_a_jumping_index_gathered_by_blocks_on_the_core(tmp_path, reads):  # noqa: F811
    """The streamed gather's boxes and its gather by blocks run on the core too."""
    rng = np.random.default_rng(0)
    x = (rng.random((40_000, 3)) * 1000).astype(np.float32)
    index = rng.integers(-40_000, 40_000, size=(30_000, 3))
    _save(tmp_path, x, index, "C")
    got = axisops.gather_file(tmp_path / "x.npy", 0, tmp_path / "i.npy", chunk_bytes=32 * 1024,
                              backend="cpu")
    assert_same_bits(got, axisops.gather(x, 0, index, backend="numpy"))
    assert reads["by_blocks"], "no column was gathered by blocks"


def test_a_bad_value_in_a_late_box_is_named_by_the_core(tmp_path, reads):  # noqa: F811
    rng = np.random.default_rng(3)
    x = rng.random((40_000, 2), np.float32)
    index = rng.integers(0, 40_000, size=(20_000, 2))
    index[-1, 1] = 40_000
    _save(tmp_path, x, index, "C")
    with pytest.raises(axisops.IndexOutOfRangeError, match=re.escape("index[19999, 1]=40000")):
        axisops.gather_file(tmp_path / "x.npy", 0, tmp_path / "i.npy",
                            out=tmp_path / "out.npy", chunk_bytes=32 * 1024, backend="cpu")



X_RACE = np.arange(64 * 1000, dtype=np.int64).reshape(64, 1000)


@pytest.mark.parametrize("dtype, states, at, got, torn", [
    # seen in CI: int64 994 (A) and -320 (B) read as -286 = 994's low byte, -320's others
    ("int64", (994, -320, -1002), (61, 701), 61714, True),
    # seen in CI: int32 -649 (A) and 856 (B) read as 887 = -649's low byte, 856's others
    ("int32", (-649, 856, 2**31 - 1), (47, 831), 47887, True),
    ("uint64", (5, 700, 2**63 + 5), (3, 9), 3000 + 700, True),
    ("uint64", (5, 700, 2**63 + 5), (3, 9), 3000 + 701, False),  # byte 0 is 0xbd: no state's
    ("int64", (994, -320, -1002), (61, 701), 62714, False),  # the next row of x
    ("int64", (994, -320, -1002), (61, 701), 61715, False),  # a neighbour's value, not torn
    ("int64", (994, -320, -1002), (61, 701), 64000, False),  # outside x
    ("int64", (994, -320, -1002), (61, 701), -1, False),
])
def test_the_race_script_accepts_a_torn_index_value_and_nothing_else(dtype, states, at, got,
                                                                       torn):
    """A value whose bytes mix the states written at that element is a read the kernel
    must honour; a value from another row, outside x, or with a byte no state holds is
    a wrong read, and the race script still fails on it."""
    arrays = [np.full((64, 4096), v, dtype) for v in states]
    assert _torn(X_RACE, 1, at, got, arrays) is torn


def test_the_public_api_and_directml_survive_an_index_rewritten_by_another_thread():
    """The same race through ``axisops.gather`` and DirectML's execute (whose buffers the
    caller owns), one and several threads; in a subprocess, so a crash fails here."""
    done = run_python(["gather_race_script.py", "40", "api:1", "api:3", "directml:2"],
                      timeout=300)
    assert done.returncode == 0, done.explain()
    assert done.stdout.count("rows=") == 3, done.explain()
