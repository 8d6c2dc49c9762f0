"""Gather never reads outside x, whatever happens to the index meanwhile.

The Numba kernel checks each index value as it turns it into a position, and
copies (and prefetches) only from checked positions; there is no separate
bounds pass whose verdict another thread could invalidate.
"""

from __future__ import annotations

import re
from unittest import mock

import numpy as np
import pytest

import axisops
from axisops import directml as dml
from axisops.directml import operators
from axisops.kernels.numba import driver as drv
from axisops.kernels.numba import gather as kg
from gather_race_script import _torn
from subprocess_helpers import run_python

BLOCK, AHEAD = kg.BLOCK, kg.PREFETCH_DISTANCE


def _flat_gather(x, idx, out, ahead=AHEAD):
    """The kernel over a 1-D ``x`` and ``idx`` in one task, prefetching ``ahead`` reads
    ahead: its return value."""
    n = np.int64(x.size)
    offs = np.zeros(1, np.int64)
    return kg.gather_flat(x, offs, 1, n, idx, offs, 1, idx.size, 0, idx.size, 1, False, ahead,
                          out)


def _column_gather(x, idx, out, ahead=AHEAD):
    """The kernel along dim 0 of a C-ordered ``x`` of shape (n, 2) at an ``idx`` of shape
    (m, 2) (the block path: ``inner`` is 2), in one task: its return value."""
    offs = np.arange(2, dtype=np.int64)
    return kg.gather_flat(x.reshape(-1), offs, 2, np.int64(x.shape[0]), idx.reshape(-1), offs,
                          2, idx.shape[0], 0, idx.size, 2, True, ahead, out)


BAD_VALUES = [
    ("int64", 100), ("int64", -101), ("int64", -(2**63)), ("int32", 2**31 - 1),
    ("int8", -128), ("uint64", 2**63 + 5), ("uint64", 2**64 - 1), ("uint64", 100),
    ("uint8", 255),
]
PLACES = [0, 7, BLOCK - 1, BLOCK, BLOCK + AHEAD - 1, BLOCK + AHEAD, 3 * BLOCK - 1]


@pytest.mark.parametrize("dtype, value", BAD_VALUES)
@pytest.mark.parametrize("at", PLACES)
@pytest.mark.parametrize("ahead", [AHEAD, 1, BLOCK + 5])
def test_the_row_kernel_reads_only_inside_x_and_stops_at_a_bad_value(dtype, value, at, ahead):
    """Along rows, prefetching, the kernel checks the first ``lead`` positions before
    any copy, then turns each value into a position ``lead`` elements before copying
    it, clamping it into the row (an out-of-range value reads the row's last
    element), and stops at the end of the block in which it met the value."""
    x = np.arange(100, dtype=np.uint64) + 1000
    size = 3 * BLOCK
    idx = (np.arange(size) % 100).astype(dtype)
    idx[at] = value
    out = np.zeros(size, np.uint64)
    stop = _flat_gather(x, idx, out, ahead)
    assert stop == at
    lead = min(ahead, size)
    copied = 0 if at < lead else min(size, ((at - lead) // BLOCK + 1) * BLOCK)
    want = x[np.clip(idx[:copied].astype(np.int64), 0, 99)]
    want[at:at + 1] = x[99]   # the bad value itself, clamped
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
        stop = _column_gather(x, idx, out, ahead)
        columns = np.arange(size) % 2
    else:
        x = (np.arange(100, dtype=np.uint64) + 1000).reshape(100, 1)
        idx = (np.arange(size) % 100).astype(dtype).reshape(-1, 1)
        idx[at] = value
        stop = _flat_gather(x.reshape(-1), idx.reshape(-1), out, ahead)
        columns = np.zeros(size, np.int64)
    assert stop == at
    # A block is checked whole, its prefetch window (the next ``ahead`` positions)
    # included, before any read of x: the first block whose window holds the
    # value is never copied, nor any after it.
    first_unsafe = max(0, ((at - BLOCK - ahead) // BLOCK + 1) * BLOCK)
    assert (out[first_unsafe:] == 0).all()
    flat = idx.reshape(-1)[:first_unsafe].astype(np.int64) * x.shape[1]
    assert (out[:first_unsafe] == x.reshape(-1)[flat + columns[:first_unsafe]]).all()


@pytest.mark.parametrize("ahead", [AHEAD, 0])
def test_the_kernel_wraps_only_signed_values(ahead):
    x = np.arange(10, dtype=np.uint64)
    out = np.zeros(3, np.uint64)
    assert _flat_gather(x, np.array([-1, -10, 9], np.int64), out, ahead) == -1
    assert out.tolist() == [9, 0, 9]
    # 2**64 - 1 is -1 when cast to int64; an unsigned value never wraps.
    assert _flat_gather(x, np.array([0, 2**64 - 1, 1], np.uint64), out, ahead) == 1


@pytest.mark.parametrize("layout", ["C", "F"])
def test_the_error_names_the_first_offender_in_c_order_across_threads(layout):
    x = np.arange(40 * 300, dtype=np.float32).reshape(40, 300)
    idx = np.random.default_rng(3).integers(-300, 300, size=(40, 5000))
    idx[39, 4999] = 300          # in the last thread's range
    idx[17, 2] = -301            # in a middle one: first in C order
    idx = np.asfortranarray(idx) if layout == "F" else idx
    old = axisops.get_num_threads()
    try:
        axisops.set_num_threads(4)
        want = ("gather(): index[17, 2]=-301 is out of range for dim 1 of size 300 "
                "(need -300 <= index <= 299)")
        with mock.patch.object(drv, "PARALLEL_MIN", 0), \
                pytest.raises(axisops.IndexOutOfRangeError, match=re.escape(want)):
            axisops.gather(x, 1, idx, backend="numba")
    finally:
        axisops.set_num_threads(old)


def test_an_index_repaired_during_the_call_still_raises():
    """Another thread puts valid values back right after the kernel read a bad one."""
    x = np.arange(12.0).reshape(3, 4)
    good = np.array([[0, 1], [2, 3], [-1, -4]])
    index = good.copy()
    index[1, 1] = 99
    real = kg.gather_flat

    def kernel_then_repair(*args):
        try:
            return real(*args)
        finally:
            np.copyto(index, good)

    with mock.patch.object(kg, "gather_flat", kernel_then_repair), \
            pytest.raises(axisops.IndexOutOfRangeError) as info:
        axisops.gather(x, 1, index, backend="numba")
    assert str(info.value) == (
        "gather(): index held an out-of-range value at or after index[1, 1] when it was read, "
        "for dim 1 of size 4, but holds none now (was it changed during the call?); "
        "need -4 <= index <= 3")


def test_directml_execute_raises_and_writes_nothing_when_the_index_is_repaired():
    T = dml.TensorDataType
    device = dml.create_device()
    xd, idd = dml.BufferTensorDesc(T.INT64, (2, 4)), dml.BufferTensorDesc(T.INT32, (2, 3))
    op = device.compile_operator(device.create_operator(
        dml.GatherElementsOperatorDesc(xd, idd, dml.BufferTensorDesc(T.INT64, (2, 3)), 1)))
    x = np.arange(8, dtype="<i8").reshape(2, 4)
    good = np.array([[0, 1, 2], [3, -1, -4]], "<i4")
    index = good.copy()
    index[0, 2] = -5
    out = bytearray(b"\xa5") * 48
    real = operators.gather

    def gather_then_repair(*args):
        try:
            return real(*args)
        finally:
            np.copyto(index, good)

    with mock.patch.object(operators, "gather", gather_then_repair), \
            pytest.raises(dml.DMLError) as info:
        op.execute([x, index], [out])
    assert info.value.hresult == dml.E_INVALIDARG
    assert info.value.message == (
        "execute(GATHER_ELEMENTS): indices_tensor held an out-of-range value for "
        "input_tensor.sizes[1]=4 when it was read, but holds none now (was it changed during "
        "the call?); need -4 <= index <= 3")
    assert out == bytearray(b"\xa5") * 48
    assert device.get_device_removed_reason() is None


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


def test_gather_survives_an_index_rewritten_by_another_thread():
    """Another thread flips stretches of the index between valid and out-of-range values
    (by one, and by up to 2**63) while gather runs, through every kernel path, one and
    several threads, and DirectML's execute; in a subprocess, so a crash fails here."""
    done = run_python(["gather_race_script.py", "40", "api:1", "api:3", "directml:2"],
                      timeout=300)
    assert done.returncode == 0, done.explain()
    assert done.stdout.count("rows=") == 3, done.explain()
