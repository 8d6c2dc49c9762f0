"""ndarray subclasses: masked arrays are refused, every other subclass is a plain array.

See "Array subclasses" in docs/contract.md.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

import axisops

from oracle import assert_same_bits

MASKED = ("is a masked array (numpy.ma.MaskedArray), which axisops does not take (its mask "
          "would be ignored); pass {name}.filled(v) to give masked elements the value v, "
          "np.ma.getdata({name}) to ignore the mask, or {name}.compressed() for the unmasked "
          "elements as a 1-D array")


def _masked_message(func, name):
    return f"{func}(): {name} " + MASKED.format(name=name)


def test_the_issue_example_is_refused_not_answered_with_the_masked_value(backend):
    x = np.ma.array([1, 9, 3], mask=[0, 1, 0])
    with pytest.raises(axisops.InvalidArgumentError) as info:
        axisops.topk(x, 1, backend=backend)
    assert str(info.value) == _masked_message("topk", "x")


@pytest.mark.parametrize("call, func, name", [
    (lambda m, b: axisops.topk(m, 1, backend=b), "topk", "x"),
    (lambda m, b: axisops.top_k(m, 1), "top_k", "x"),
    (lambda m, b: axisops.gather(m, 1, [[0]], backend=b), "gather", "x"),
    (lambda m, b: axisops.gather(np.ones((2, 3)), 1, m.astype(np.int64), backend=b),
     "gather", "index"),
    (lambda m, b: axisops.take_along_axis(m, np.array([[0]]), axis=1), "take_along_axis", "x"),
    (lambda m, b: axisops.take_along_axis(np.ones((2, 3)), m.astype(np.int64), axis=1),
     "take_along_axis", "indices"),
])
@pytest.mark.parametrize("mask", ["some", "none", "nomask"])
def test_masked_arrays_are_refused_everywhere(backend, call, func, name, mask):
    data = np.array([[0, 2, 1], [1, 0, 2]])
    m = {"some": np.ma.array(data, mask=[[0, 1, 0], [0, 0, 0]]),
         "none": np.ma.array(data, mask=np.zeros_like(data, bool)),
         "nomask": np.ma.array(data)}[mask]
    before = (m.data.copy(), np.ma.getmaskarray(m).copy())
    with pytest.raises(axisops.InvalidArgumentError, match=re.escape(_masked_message(func, name))):
        call(m, backend)
    assert np.array_equal(m.data, before[0]) and np.array_equal(np.ma.getmaskarray(m), before[1])


def test_masked_subclasses_and_the_masked_constant_are_refused():
    class Mine(np.ma.MaskedArray):
        pass

    with pytest.raises(axisops.InvalidArgumentError, match=r"topk\(\): x is a masked array"):
        axisops.topk(Mine([3, 1, 2]), 1)
    with pytest.raises(axisops.InvalidArgumentError, match=r"topk\(\): x is a masked array"):
        axisops.topk(np.ma.masked, 1)


def test_a_masked_index_is_refused_beside_a_torch_tensor():
    torch = pytest.importorskip("torch")
    with pytest.raises(axisops.InvalidArgumentError,
                       match=re.escape(_masked_message("gather", "index"))):
        axisops.gather(torch.ones(2, 3), 1, np.ma.array([[0], [1]], mask=[[0], [1]]))


@pytest.mark.filterwarnings("ignore:the matrix subclass:PendingDeprecationWarning")
def test_matrix_is_a_two_dimensional_array(backend):
    m = np.matrix([[1, 5, 3, 5], [4, 2, 6, 0], [7, 7, 1, 2]], dtype=np.int32)
    plain = np.asarray(m)
    for axis in (0, 1, -1):
        got, want = axisops.topk(m, 2, axis, backend=backend), axisops.topk(plain, 2, axis)
        assert type(got.values) is np.ndarray and type(got.indices) is np.ndarray
        assert got.values.ndim == 2
        assert_same_bits(got.values, want.values)
        np.testing.assert_array_equal(got.indices, want.indices)
    index = np.matrix([[0, 3], [2, -1], [1, 1]])
    out = axisops.gather(m, 1, index, backend=backend)
    assert type(out) is np.ndarray
    np.testing.assert_array_equal(out, [[1, 5], [6, 0], [7, 7]])
    out = axisops.take_along_axis(m, index, axis=1)
    assert type(out) is np.ndarray
    np.testing.assert_array_equal(out, [[1, 5], [6, 0], [7, 7]])


def test_memmap_is_read_in_place_and_gives_plain_arrays(backend, tmp_path):
    path = tmp_path / "x.bin"
    x = np.memmap(path, np.float32, "w+", shape=(5, 40))
    x[:] = np.random.default_rng(2).standard_normal((5, 40))
    x.flush()
    x = np.memmap(path, np.float32, "r", shape=(5, 40))
    idx = np.memmap(tmp_path / "i.bin", np.int64, "w+", shape=(5, 3))
    idx[:] = [[0, -1, 39]] * 5
    top = axisops.topk(x, 3, backend=backend)
    gathered = axisops.gather(x, 1, idx, backend=backend)
    for result in (top.values, top.indices, gathered):
        assert type(result) is np.ndarray and not np.shares_memory(result, x)
    want = axisops.topk(np.array(x), 3, backend="numpy")
    assert_same_bits(top.values, want.values)
    assert_same_bits(gathered, np.array(x)[:, [0, -1, 39]])


def test_recarray_follows_its_dtype(backend):
    structured = np.rec.array([(1, 2.0), (3, 4.0)], dtype=[("a", "i4"), ("b", "f8")])
    with pytest.raises(axisops.UnsupportedDTypeError, match=r"^topk\(\): x has dtype"):
        axisops.topk(structured, 1, backend=backend)
    plain = np.array([3.0, -1.0, 7.0, 7.0]).view(np.recarray)
    got = axisops.topk(plain, 2, backend=backend)
    assert type(got.values) is np.ndarray
    assert got.values.tolist() == [7.0, 7.0] and got.indices.tolist() == [2, 3]


class Hostile(np.ndarray):
    """A subclass whose every hook and override fails: axisops must call none of them."""

    def __array_finalize__(self, obj):
        if obj is not None and getattr(obj, "_armed", False):
            raise AssertionError("__array_finalize__ called")

    def __array_function__(self, *args, **kwargs):
        raise AssertionError("__array_function__ called")

    def __array_ufunc__(self, *args, **kwargs):
        raise AssertionError("__array_ufunc__ called")

    def __array__(self, *args, **kwargs):
        raise AssertionError("__array__ called")

    def __getitem__(self, key):
        raise AssertionError("__getitem__ called")

    def view(self, *args, **kwargs):
        raise AssertionError("view called")

    def astype(self, *args, **kwargs):
        raise AssertionError("astype called")


def _hostile(a):
    h = np.ndarray.view(np.array(a), Hostile)
    h._armed = True
    return h


def test_a_user_subclass_is_read_as_a_plain_array_without_its_hooks(backend):
    data = np.array([[4.0, -0.0, np.nan, 0.0], [1.0, 1.0, -np.inf, 2.0]])
    index = np.array([[3, 0], [-1, 1]])
    got = axisops.topk(_hostile(data), 2, backend=backend)
    want = axisops.topk(data, 2, backend="numpy")
    assert type(got.values) is np.ndarray and type(got.indices) is np.ndarray
    assert_same_bits(got.values, want.values)
    np.testing.assert_array_equal(got.indices, want.indices)
    out = axisops.gather(_hostile(data), 1, _hostile(index), backend=backend)
    assert type(out) is np.ndarray
    assert_same_bits(out, axisops.gather(data, 1, index, backend="numpy"))
    out = axisops.take_along_axis(_hostile(data), _hostile(index), axis=1)
    assert type(out) is np.ndarray


def test_plain_arrays_pass_while_another_thread_is_still_importing_numpy_ma():
    """numpy.ma.core half-imported (in sys.modules, MaskedArray not yet defined)."""
    import sys
    import types
    from unittest import mock

    # The numpy backend: Numba's dispatch itself looks at np.ma, which the fake breaks.
    half = {name: types.ModuleType(name) for name in ("numpy.ma", "numpy.ma.core")}
    with mock.patch.dict(sys.modules, half):
        assert axisops.topk(np.array([1, 3, 2]), 1, backend="numpy").indices.tolist() == [1]
