"""The compiled core never reads or writes outside an array, whatever its inputs do.

- Long rows of a few distinct values (class labels) take every selection path safely
  (the heap corruption of kthvalue/median/partition on a (1, 300000) label row).
- An input that changes between two passes of a kernel (another thread writing to it)
  gets a meaningless result or ``InputChanged`` (a RuntimeError), never a write past an
  output: made deterministic here by letting the kernel's own output overwrite the input
  it is still reading (the binding takes them aliased; the Python API never does), with
  canaries after the output that must stay untouched.
- Outputs the kernels cannot write in place are refused, not converted into temporaries
  that are written and dropped.
"""

from __future__ import annotations

import numpy as np
import pytest

import axisops
from axisops import _core
from axisops.engines import cpu
from subprocess_helpers import run_python
from test_core_paths import SMALL

K = _core.kernels
CANARY = 0x5A5A5A5A
#: what the core raises when two reads of its input disagree (its InputChanged)
CHANGED = "the input changed while it was read"


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("op", ["median", "kthvalue", "partition", "argpartition"])
def test_a_long_row_of_class_labels(op, threads):
    """The reported crash: median of a (1, 300000) int32 row of 6 labels on 2 threads."""
    x = np.random.default_rng(0).integers(0, 6, (1, 300_000)).astype(np.int32)
    before = axisops.get_num_threads()
    axisops.set_num_threads(threads)
    try:
        for _ in range(3):  # the arena's reuse of an earlier buffer too
            got = {"median": lambda: axisops.median(x).indices,
                   "kthvalue": lambda: axisops.kthvalue(x, 123_457).indices,
                   "partition": lambda: axisops.partition(x, 150_000),
                   "argpartition": lambda: axisops.argpartition(x, 150_000)}[op]()
            backend = {"median": lambda: axisops.median(x, backend="numpy").indices,
                       "kthvalue": lambda: axisops.kthvalue(x, 123_457, backend="numpy").indices,
                       "partition": lambda: axisops.partition(x, 150_000, backend="numpy"),
                       "argpartition": lambda: axisops.argpartition(x, 150_000,
                                                                    backend="numpy")}[op]()
            np.testing.assert_array_equal(got, backend)
    finally:
        axisops.set_num_threads(before)


def _guarded(shape, dtype, extra=64):
    """An array of ``shape`` followed, in the same buffer, by ``extra`` canary elements."""
    size = int(np.prod(shape))
    buf = np.empty(size + extra, dtype)
    buf[size:] = np.array(CANARY).astype(dtype)
    return buf[:size].reshape(shape), buf[size:]


def _descending(shape, dtype):
    n = shape[-1]
    return np.broadcast_to(np.arange(n, 0, -1), shape).astype(dtype)


def _shuffled(shape, dtype, offset=0):
    """Distinct values in a seeded random order, from ``offset`` on."""
    row = np.random.default_rng(5).permutation(shape[-1]) + offset
    return np.broadcast_to(row, shape).astype(dtype)


#: (kths, whether the placing pass must find the counts broken): a pivot at either end
#: sends every element to one side, which the aliased writes cannot unbalance.
ALIASED = [([60], True), ([20, 100, 150], True), ([0], False), ([199], False)]


@pytest.mark.parametrize("strategy", ["rows", "split"])
@pytest.mark.parametrize("dtype", ["int32", "uint64", "float32", "int16", "float64"])
@pytest.mark.parametrize(("kths", "breaks"), ALIASED)
def test_partition_whose_input_changes_between_passes(strategy, dtype, kths, breaks):
    """The placing pass reads the input again: when it has changed since the selection
    (here: the values output is the input itself, so each element placed ahead of the read
    overwrites one still to be read), the segments' counts no longer hold, and the kernel
    raises InputChanged instead of writing past a segment; nothing past the output
    changes."""
    for threads in (1, 2, 3):
        with _core.tuned(**SMALL):
            x, canary = _guarded((1, 200), np.dtype(dtype))
            x[...] = _descending((1, 200), dtype)
            raw = cpu._raw(x)
            try:
                K.partition(raw, cpu._kind(x.dtype), 1, kths, raw, None, threads, strategy, 0,
                            0.0)
            except RuntimeError as e:
                assert CHANGED in str(e)
            else:
                assert not breaks, "the changed input went unnoticed"
            assert (canary == np.array(CANARY).astype(dtype)).all()


def test_partition_whose_input_changes_between_passes_at_default_sizes():
    """The same at the default tuning (a row longer than one chunk of keys, so the placing
    pass reads the input after writing some of the output): before the segments were
    bounded, this wrote past the output and corrupted the heap."""
    n = 6000
    x, canary = _guarded((1, n), np.dtype(np.int32))
    x[...] = _descending((1, n), np.int32)
    raw = cpu._raw(x)
    with pytest.raises(RuntimeError, match=CHANGED):
        K.partition(raw, cpu._kind(x.dtype), 1, [1800], raw, None, 1, "rows", 0, 0.0)
    assert (canary == CANARY).all()


@pytest.mark.parametrize("strategy", ["rows", "split"])
def test_argpartition_whose_indices_overwrite_its_input(strategy):
    """The same with the indices output aliasing an int64 input: the indices written ahead
    of the read are smaller than every value, so they join the lower side."""
    for threads in (1, 2, 3):
        with _core.tuned(**SMALL):
            x, canary = _guarded((1, 300), np.dtype(np.int64))
            x[...] = _shuffled((1, 300), np.int64, offset=1000)
            with pytest.raises(RuntimeError, match=CHANGED):
                K.partition(cpu._raw(x), cpu._kind(x.dtype), 1, [150], None, x, threads,
                            strategy, 0, 0.0)
            assert (canary == CANARY).all()


def test_a_partition_of_unchanged_input_is_not_refused():
    """The same calls on an input nobody changes give the oracle's answer."""
    with _core.tuned(**SMALL):
        for strategy in ("rows", "split"):
            x = _descending((1, 200), np.int32)
            out, canary = _guarded((1, 200), np.dtype(np.int32))
            K.partition(cpu._raw(x), cpu._kind(x.dtype), 1, [60], cpu._raw(out), None, 2,
                        strategy, 0, 0.0)
            np.testing.assert_array_equal(out, axisops.partition(x, 60, backend="numpy"))
            assert (canary == CANARY).all()


# ---- outputs the kernels cannot write in place ---------------------------------------

def _topk_call(values, indices):
    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    K.topk(cpu._raw(x), cpu._kind(x.dtype), 1, 3, True, True, values, indices, 1)


def _fresh():
    return np.zeros((4, 3), np.uint32), np.zeros((4, 3), np.int64)


@pytest.mark.parametrize("bad", ["values-F", "values-strided", "indices-int16",
                                 "indices-F", "indices-float", "values-readonly"])
def test_outputs_are_written_in_place_or_refused(bad):
    values, indices = _fresh()
    if bad == "values-F":
        values = np.asfortranarray(values)
    elif bad == "values-strided":
        values = np.zeros((4, 6), np.uint32)[:, ::2]
    elif bad == "values-readonly":
        values.setflags(write=False)
    elif bad == "indices-int16":
        indices = indices.astype(np.int16)
    elif bad == "indices-F":
        indices = np.asfortranarray(indices)
    elif bad == "indices-float":
        indices = indices.astype(np.float64)
    with pytest.raises((ValueError, TypeError)):
        _topk_call(values, indices)
    assert not values.any() and not indices.any()  # nothing written anywhere


@pytest.mark.parametrize("index_dtype", [np.int64, np.int32])
def test_in_place_outputs_are_written(index_dtype):
    """Top-k writes int64 indices, or int32 ones in place of a conversion after the call."""
    values, indices = _fresh()
    indices = indices.astype(index_dtype)
    _topk_call(values, indices)
    np.testing.assert_array_equal(indices, np.tile([5, 4, 3], (4, 1)))


@pytest.mark.parametrize("call", ["sort", "kthvalue", "partition", "gather"])
def test_every_binding_refuses_outputs_it_would_copy(call):
    x = np.arange(24, dtype=np.int32).reshape(4, 6)
    raw, kind = cpu._raw(x), cpu._kind(x.dtype)
    f_values = np.asfortranarray(np.zeros((4, 6), np.uint32))
    i32 = np.zeros((4, 6), np.int32)
    with pytest.raises((ValueError, TypeError)):
        if call == "sort":
            K.sort(raw, kind, 1, False, f_values, None, 1)
        elif call == "kthvalue":
            K.kthvalue(raw, kind, 1, 2, np.zeros(4, np.uint32), np.zeros(4, np.int32), 1)
        elif call == "partition":
            K.partition(raw, kind, 1, [2], None, i32, 1)
        else:
            K.gather(raw, np.zeros((4, 6), np.int64), 1, f_values, 1, 0)
    assert not f_values.any() and not i32.any()


def test_kernels_racing_a_writer_stay_inside_their_arrays():
    """Selection, partition, sort and top-k while another thread flips the input between
    states (tests/core_race_script.py, in a child process so that a crash fails the test):
    every call returns well-formed results (indices inside the row, each row of a
    partition's or sort's indices a permutation) or raises InputChanged. Before the
    kthvalue fallback was bounded, nearly every such radix select returned index -1 (and
    read the element before the row)."""
    done = run_python(["core_race_script.py", "40", "1", "2", "3"], timeout=300)
    assert done.returncode == 0, done.explain()
    assert done.stdout.count("threads=") == 3, done.stdout


#: Row lengths around the default size switches: a selection is cut across threads from
#: 2^17 (select_split_min, topk_split_min) and always beyond 2^22 (tile_max); 300000 is the
#: reported label row.
STRESS_LENGTHS = [(1 << 17) - 3, 1 << 17, (1 << 17) + 3, 300_000, (1 << 22) - 3, (1 << 22) + 3]


@pytest.mark.slow
@pytest.mark.parametrize("n", STRESS_LENGTHS)
def test_long_rows_of_few_values_at_the_default_thresholds(n):
    """tests/core_stress_script.py in a fresh process: 1, 2, 3, 6 and 255 distinct values,
    every key width, 1 and 2 threads, every operation against the stable order."""
    done = run_python(["core_stress_script.py", str(n)], timeout=600)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.explain()


@pytest.mark.parametrize("ranks", [[-1], [200], [[0], [1], [2]], [[0, 1]] * 3])
def test_order_statistics_refuse_ranks_outside_a_sequence(ranks):
    """kth_many's ranks are positions the kernel reads at: every one is checked, and a table
    of ranks must have one row or one per sequence."""
    x = np.arange(400, dtype=np.float32).reshape(2, 200)
    values = np.zeros((2, np.array(ranks).shape[-1]), np.uint32)
    with pytest.raises(ValueError, match="rank"):
        K.kth_many(cpu._raw(x), cpu._kind(x.dtype), 1, np.array(ranks, np.int64).reshape(
            -1, np.array(ranks).shape[-1]), values, 1)
    assert not values.any()
