"""axisops.StreamingTopK: the top-k of blocks is axisops.topk of their concatenation, to the bit,
in order or with explicit offsets in any order; bounded memory; every error path."""

import gc
import itertools
import threading
import tracemalloc
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import axisops
from axisops import InvalidArgumentError, StreamingTopK, UnsupportedDTypeError

from oracle import assert_same_bits
from strategies import INT_DTYPES, arrays, tie_heavy

MODES = ("in order", "offsets in order", "offsets shuffled")


@st.composite
def streams(draw):
    """An array, a request on it, its cut into blocks along the axis, and an arrival order."""
    x = draw(arrays(max_dims=3, max_side=7))
    axis = draw(st.integers(-x.ndim, x.ndim - 1))
    n = x.shape[axis]
    k = draw(st.one_of(st.sampled_from(sorted({0, min(1, n), n})), st.integers(0, n)))
    cuts = sorted(draw(st.lists(st.integers(0, n), max_size=6)))  # repeats: empty blocks
    bounds = [0, *cuts, n]
    ax = axis % x.ndim
    blocks = [(int(a), x[(slice(None),) * ax + (slice(a, b),)])
              for a, b in itertools.pairwise(bounds)]
    mode = draw(st.sampled_from(MODES))
    if mode == "offsets shuffled":
        blocks = draw(st.permutations(blocks))
    return x, axis, k, draw(st.booleans()), blocks, mode


def feed(s, blocks, mode):
    for offset, block in blocks:
        if mode == "in order":
            s.update(block)
        else:
            s.update(block, offset=offset)


@given(streams(), st.sampled_from([None, np.int32, np.uint16]))
def test_equals_topk_of_the_concatenation_for_every_cut_and_order(backend, request, idt):
    x, axis, k, largest, blocks, mode = request
    s = StreamingTopK(k, axis, largest=largest, index_dtype=idt, backend=backend)
    feed(s, blocks, mode)
    got = s.result()
    want = axisops.topk(x, k, axis, largest=largest, index_dtype=idt, backend="numpy")
    assert_same_bits(got.values, want.values)
    assert_same_bits(got.indices, want.indices)
    assert s.seen == x.shape[axis]


def test_ties_across_blocks_go_to_the_lower_global_index_in_any_order():
    x = np.array([[2.0, np.nan, -0.0, 5.0, 0.0, np.nan, 5.0, -0.0, 2.0]])
    for largest in (True, False):
        want = axisops.topk(x, 9, largest=largest, backend="numpy")
        for order in ([0, 1, 2], [2, 1, 0], [1, 2, 0]):
            s = StreamingTopK(9, largest=largest)
            for j in order:
                s.update(x[:, 3 * j : 3 * j + 3], offset=3 * j)
            got = s.result()
            assert_same_bits(got.values, want.values)
            assert_same_bits(got.indices, want.indices)


@pytest.mark.parametrize("dtype", INT_DTYPES)
def test_integer_extremes_compare_exactly(dtype):
    x = tie_heavy(dtype, (3, 40), 5, width=12)
    s = StreamingTopK(7, axis=1, largest=False)
    for start in (30, 0, 20, 10):
        s.update(x[:, start : start + 10], offset=start)
    want = axisops.topk(x, 7, 1, largest=False, backend="numpy")
    assert_same_bits(s.result().values, want.values)
    assert_same_bits(s.result().indices, want.indices)


def test_knn_over_database_chunks_matches_one_distance_matrix():
    """The documented use: k nearest database rows per query, database read in chunks."""
    rng = np.random.default_rng(0)
    queries = rng.integers(0, 4, size=(5, 3)).astype(np.float32)
    database = np.repeat(rng.integers(0, 4, size=(40, 3)).astype(np.float32), 3, axis=0)
    d2 = ((queries[:, None] - database[None]) ** 2).sum(-1)  # many equal distances
    want = axisops.topk(d2, 10, largest=False, backend="numpy")
    starts = list(range(0, len(database), 16))
    for order in (starts, starts[::-1]):
        knn = StreamingTopK(10, axis=1, largest=False)
        for start in order:
            chunk = database[start : start + 16]
            knn.update(((queries[:, None] - chunk[None]) ** 2).sum(-1), offset=start)
        assert_same_bits(knn.result().indices, want.indices)
        assert_same_bits(knn.result().values, want.values)


def test_blocks_in_either_byte_order_and_as_lists():
    x = np.arange(12, dtype=np.float32) % 5
    s = StreamingTopK(4)
    s.update(x[:4].astype(">f4"))
    s.update(x[4:8])
    s.update(x[8:].astype(">f4"))
    want = axisops.topk(x, 4, backend="numpy")
    assert_same_bits(s.result().values, want.values)
    assert_same_bits(s.result().indices, want.indices)
    t = StreamingTopK(2)
    t.update([3, 1])
    t.update([3])
    assert t.result().indices.tolist() == [0, 2]


def test_result_changes_nothing_and_more_blocks_may_follow():
    s = StreamingTopK(2)
    s.update(np.array([1, 5, 3]))
    first = s.result()
    first.values[:] = 0  # the caller's copy
    s.update(np.array([4, 9]))
    assert s.result().values.tolist() == [9, 5]
    assert s.result().indices.tolist() == [4, 1]
    assert repr(s) == "StreamingTopK(k=2, axis=-1, largest=True, seen=5)" and s.k == 2


def _held_by_axisops(snapshot):
    """Bytes still allocated whose traceback passes through axisops' own code.

    Left out: NumPy's cache behind ``view.flags.writeable = False`` (in ``as_strided``),
    which fills up to a fixed size over the first thousands of calls.
    """
    where = str(Path(axisops.__file__).parent / "*")
    held = snapshot.filter_traces([tracemalloc.Filter(True, where, all_frames=True),
                                   tracemalloc.Filter(False, "*_stride_tricks*",
                                                      all_frames=True)])
    return sum(stat.size for stat in held.statistics("filename"))


def test_memory_stays_at_the_running_top_k(monkeypatch):
    """Blocks go through and nothing of them stays: memory does not grow with the stream.

    The object holds k values and indices per row and one range; and allocations made
    under axisops' code and still held do not grow over 1500 blocks (4.8 MB passed).
    Tracing starts after 200 blocks (kernels compiled for the merge's shapes before),
    the first mark is 300 blocks later (one-off allocations before it), and other
    threads' allocations and cyclic garbage (collected first) are left out.
    """
    monkeypatch.setattr(axisops.config, "_num_threads", 1)  # no pool threads' bookkeeping
    s = StreamingTopK(5, axis=1)
    rng = np.random.default_rng(1)

    def feed(count):
        for _ in range(count):
            s.update(rng.random((4, 100)))
        gc.collect()
        return _held_by_axisops(tracemalloc.take_snapshot()) if tracemalloc.is_tracing() else 0

    feed(200)
    tracemalloc.start(6)
    try:
        mark = feed(300)
        grown = feed(1500) - mark
    finally:
        tracemalloc.stop()
    assert s.seen == 200_000
    assert [a.shape for a in s._best] == [(4, 5), (4, 5)] and s._ranges == [(0, 200_000)]
    # Keeping any block (3.2 KB each) would grow 4.8 MB; memos and caches filling up
    # elsewhere in a long test session stay far below this bound.
    assert grown < 64_000, grown


def test_ranges_given_out_of_order_join_up():
    s = StreamingTopK(3)
    for offset in (6, 0, 9, 3):
        s.update(np.arange(3) + offset, offset=offset)
    assert s._ranges == [(0, 12)] and s.seen == 12
    assert s.result().indices.tolist() == [11, 10, 9]


# -- errors ------------------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, error, needle", [
    ({"k": -1}, InvalidArgumentError, "StreamingTopK(): k=-1 is negative"),
    ({"k": 2.0}, InvalidArgumentError, "StreamingTopK(): k=2.0 (float) is not an integer"),
    ({"k": True}, InvalidArgumentError, "StreamingTopK(): k=True is a bool"),
    ({"k": 1, "axis": 0.5}, InvalidArgumentError, "axis=0.5 (float) is not an integer"),
    ({"k": 1, "largest": "yes"}, InvalidArgumentError, "largest='yes' (str) is not a bool"),
    ({"k": 1, "index_dtype": np.float32}, UnsupportedDTypeError,
     "index_dtype=float32 is not an integer type"),
    ({"k": 1, "backend": "nope"}, InvalidArgumentError,
     "StreamingTopK(): backend='nope' is not a backend"),
    ({"k": 1, "backend": "dask"}, InvalidArgumentError,
     "backend='dask' does not take numpy.ndarray inputs"),
])
def test_bad_construction_names_the_argument(kwargs, error, needle):
    with pytest.raises(error) as info:
        StreamingTopK(**kwargs)
    assert needle in str(info.value)


def _started():
    s = StreamingTopK(2, axis=0)
    s.update(np.array([[1.0, 2.0], [3.0, 4.0]]))
    return s


@pytest.mark.parametrize("block, offset, error, needle", [
    (np.float32(1), None, InvalidArgumentError, "block has 0 dimensions, the first block had 2"),
    (np.ones(3), None, InvalidArgumentError, "block has 1 dimensions, the first block had 2"),
    (np.ones((1, 2), np.float32), None, InvalidArgumentError,
     "block has dtype float32, the first block had float64"),
    (np.ones((1, 3)), None, InvalidArgumentError,
     "block.shape=(1, 3) differs from the first block's (2, 2) off axis 0"),
    (np.ones((1, 2)), -1, InvalidArgumentError, "offset=-1 is negative"),
    (np.ones((1, 2)), 1.0, InvalidArgumentError, "offset=1.0 (float) is not an integer"),
    (np.ones((1, 2)), True, InvalidArgumentError, "offset=True is a bool"),
    (np.ones((1, 2)), 1, InvalidArgumentError,
     "offset=1 with 1 elements along axis 0 covers [1, 2), which overlaps [0, 2) given before"),
    (np.ones((3, 2)), 0, InvalidArgumentError, "covers [0, 3), which overlaps [0, 2)"),
    (np.ones((1, 2)), 2**63 - 1 + 1, InvalidArgumentError, "beyond int64"),
    (np.array([["a", "b"]]), None, InvalidArgumentError,
     "block has dtype <U1, the first block had float64"),
])
def test_bad_blocks_are_refused_and_change_nothing(block, offset, error, needle):
    s = _started()
    with pytest.raises(error) as info:
        s.update(block, offset)
    assert needle in str(info.value) and str(info.value).startswith("StreamingTopK.update(): ")
    assert s.seen == 2 and s._ranges == [(0, 2)]
    assert s.result().values.tolist() == [[3.0, 4.0], [1.0, 2.0]]


@pytest.mark.parametrize("block, axis, error, needle", [
    (np.float64(1.0), -1, InvalidArgumentError, "block must have at least one dimension"),
    (np.array(["a", "b"]), -1, UnsupportedDTypeError, "block has dtype <U1, which top-k does"),
    (np.array([None, 1]), -1, UnsupportedDTypeError, "block has dtype object"),
    (np.ones((2, 2)), 5, InvalidArgumentError, "axis=5 is out of range for an array of 2"),
])
def test_a_bad_first_block_is_refused(block, axis, error, needle):
    s = StreamingTopK(1, axis=axis)
    with pytest.raises(error) as info:
        s.update(block)
    assert needle in str(info.value)
    with pytest.raises(InvalidArgumentError, match=r"no block has been given"):
        s.result()


def test_a_block_that_cannot_be_read_as_an_array_is_refused():
    with pytest.raises(InvalidArgumentError, match=r"block of type list cannot be read"):
        StreamingTopK(1).update([[1, 2], [3]])


def test_an_index_the_index_dtype_cannot_hold_is_refused():
    s = StreamingTopK(1, index_dtype=np.int8)
    s.update(np.ones(100))
    with pytest.raises(InvalidArgumentError, match=r"index_dtype=int8 cannot hold index 128 "
                                                    r"\(offset=100 plus 29 elements"):
        s.update(np.ones(29))
    s.update(np.ones(28))
    assert s.seen == 128 and s.result().indices.dtype == np.int8


@pytest.mark.parametrize("blocks, needle", [
    ([], "no block has been given (call update() first)"),
    ([(0, 2)], "k=3 but only 2 elements have been given along axis 0 (need at least k)"),
    ([(2, 4)], "elements [0, 2) along axis 0 were never given (the blocks cover [2, 6)"),
    ([(0, 2), (5, 2)], "elements [2, 5) along axis 0 were never given (the blocks cover "
                       "[0, 2), [5, 7)"),
])
def test_result_needs_k_elements_and_no_gap(blocks, needle):
    s = StreamingTopK(3)
    for offset, n in blocks:
        s.update(np.ones(n), offset=offset)
    with pytest.raises(InvalidArgumentError) as info:
        s.result()
    assert str(info.value).startswith("StreamingTopK.result(): ") and needle in str(info.value)


def test_k_zero_and_empty_blocks():
    s = StreamingTopK(0, axis=1)
    s.update(np.empty((3, 0)))
    got = s.result()
    assert got.values.shape == (3, 0) and got.indices.dtype == np.int64
    s.update(np.ones((3, 4)))
    assert s.result().values.shape == (3, 0) and s.seen == 4


# ---- several threads ---------------------------------------------------------------------


class WatchedLock:
    """The object's lock, with an event set when a thread starts waiting for it."""

    def __init__(self, lock):
        self.lock, self.waiting = lock, threading.Event()

    def __enter__(self):
        if self.lock.locked():
            self.waiting.set()
        return self.lock.__enter__()

    def __exit__(self, *exc):
        return self.lock.__exit__(*exc)


def test_a_second_threads_update_waits_for_the_first_to_finish(monkeypatch):
    from axisops.streaming import topk_stream

    inside, release, entered = threading.Event(), threading.Event(), []
    real = topk_stream.block_candidates

    def held(x, spec, start, impl):
        entered.append(start)
        if start == 0:  # thread A stops inside its merge until the main thread lets it go
            inside.set()
            assert release.wait(60)
        return real(x, spec, start, impl)

    monkeypatch.setattr(topk_stream, "block_candidates", held)
    x = tie_heavy(np.float32, (3, 40), 1, width=None)
    s = StreamingTopK(5, axis=1)
    s._lock = WatchedLock(s._lock)
    a = threading.Thread(target=s.update, args=(x[:, :20],), kwargs={"offset": 0})
    b = threading.Thread(target=s.update, args=(x[:, 20:],), kwargs={"offset": 20})
    a.start()
    assert inside.wait(60)
    b.start()
    assert s._lock.waiting.wait(60)  # B is at the lock while A is inside: B waits there
    assert entered == [0]
    release.set()
    a.join(60)
    b.join(60)
    assert entered == [0, 20] and not a.is_alive() and not b.is_alive()
    want = axisops.topk(x, 5, 1, backend="numpy")
    got = s.result()
    assert_same_bits(got.values, want.values)
    assert_same_bits(got.indices, want.indices)


def test_result_waits_for_an_update_in_progress(monkeypatch):
    from axisops.streaming import topk_stream

    inside, release = threading.Event(), threading.Event()
    real = topk_stream.merge_candidates

    def held(*args, **kwargs):
        inside.set()
        assert release.wait(60)
        return real(*args, **kwargs)

    x = np.arange(30.0)
    s = StreamingTopK(3)
    s.update(x[:10])
    monkeypatch.setattr(topk_stream, "merge_candidates", held)
    s._lock = WatchedLock(s._lock)
    writer = threading.Thread(target=s.update, args=(x[10:],))
    writer.start()
    assert inside.wait(60)
    results = []
    reader = threading.Thread(target=lambda: results.append(s.result()))
    reader.start()
    assert s._lock.waiting.wait(60)  # the reader waits at the lock, not seeing half a merge
    assert results == []
    release.set()
    writer.join(60)
    reader.join(60)
    assert results[0].indices.tolist() == [29, 28, 27]


@pytest.mark.parametrize("largest", [True, False])
def test_many_threads_with_offsets_give_one_threads_result(largest):
    x = tie_heavy(np.float64, (4, 4000), 2, width=None)
    chunks = [(start, x[:, start:start + 250]) for start in range(0, 4000, 250)]
    one = StreamingTopK(12, axis=1, largest=largest)
    for start, chunk in chunks:
        one.update(chunk, offset=start)
    shared = StreamingTopK(12, axis=1, largest=largest)
    barrier = threading.Barrier(8)
    errors = []

    def reader(mine):
        try:
            barrier.wait(60)  # all eight start together
            for start, chunk in mine:
                shared.update(chunk, offset=start)
        except BaseException as exc:  # reported below, in the main thread
            errors.append(exc)

    threads = [threading.Thread(target=reader, args=(chunks[i::8],)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert errors == [] and not any(t.is_alive() for t in threads)
    got, want = shared.result(), one.result()
    assert_same_bits(got.values, want.values)
    assert_same_bits(got.indices, want.indices)
    assert shared.seen == one.seen == 4000


def test_without_offsets_each_block_continues_where_its_call_took_effect(monkeypatch):
    from axisops.streaming import topk_stream

    placed = {}
    real = topk_stream.StreamingTopK._merged

    def record(self, x, start, slot):
        placed[start] = x  # called under the lock, once per block, where it took effect
        return real(self, x, start, slot)

    monkeypatch.setattr(topk_stream.StreamingTopK, "_merged", record)
    blocks = [np.full((2, 7), float(n)) for n in range(6)]  # each block its own value
    s = StreamingTopK(10, axis=1, largest=False)
    barrier = threading.Barrier(6)
    threads = [threading.Thread(target=lambda b=b: (barrier.wait(60), s.update(b)))
               for b in blocks]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(placed) == [0, 7, 14, 21, 28, 35]
    stream = np.concatenate([placed[start] for start in sorted(placed)], axis=1)
    want = axisops.topk(stream, 10, 1, largest=False, backend="numpy")
    got = s.result()
    assert_same_bits(got.values, want.values)
    assert_same_bits(got.indices, want.indices)
