"""The selection family's public functions (sort, argsort, kthvalue, median, partition,
argpartition) against the plain-Python oracle: hypothesis on tie-heavy data with every
special value and integer extreme, k in {1, n}, kth lists with negatives and repeats, every
layout, Dask chunkings; every error path (nothing modified); the registry passing over
engines that do not compute an operation."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import axisops
from axisops.engines.base import Engine

from oracle import assert_same_bits, bits, ref_kthvalue, ref_partition, ref_sort, ref_topk
from strategies import LAYOUTS, TOPK_DTYPES, arrays, chunking, special_values, with_layout

#: tests/strategies.py's layouts, and the ones the core copies first.
ALL_LAYOUTS = (*LAYOUTS, "byteswapped", "unaligned")
#: the profile's examples, fewer where each one builds and computes a Dask graph.
DASK_EXAMPLES = max(10, settings().max_examples // 4)


def _layout(a: np.ndarray, layout: str) -> np.ndarray:
    if layout == "byteswapped":
        return a.astype(a.dtype.newbyteorder())
    if layout == "unaligned":
        raw = np.zeros(a.nbytes + 1, np.uint8)[1:]
        b = raw.view(a.dtype).reshape(a.shape)
        b[...] = a
        return b
    return with_layout(a, layout)


def _same(got_values, got_indices, want_values, want_indices):
    assert_same_bits(got_values, want_values)
    assert np.asarray(got_indices).dtype == np.int64
    np.testing.assert_array_equal(got_indices, want_indices)


@st.composite
def cases(draw, min_side=0):
    """A tie-heavy array (at least one dimension), an axis and a layout."""
    x = draw(arrays(min_side=min_side))
    axis = draw(st.integers(-x.ndim, x.ndim - 1))
    return x, axis, draw(st.sampled_from(ALL_LAYOUTS))


@given(case=cases(), descending=st.booleans())
def test_sort_and_argsort_match_the_oracle(backend, case, descending):
    x, axis, layout = case
    arr = _layout(x, layout)
    before = bits(arr).copy()
    values = axisops.sort(arr, axis, descending=descending, backend=backend)
    indices = axisops.argsort(arr, axis, descending=descending, backend=backend)
    _same(values, indices, *ref_sort(x, axis, descending))
    assert np.array_equal(bits(arr), before)


@st.composite
def kth_cases(draw):
    x, axis, layout = draw(cases(min_side=1))
    n = x.shape[axis]
    k = draw(st.sampled_from(sorted({1, n, draw(st.integers(1, n))})))
    return x, axis, layout, k, draw(st.booleans())


@given(case=kth_cases())
def test_kthvalue_and_median_match_the_oracle(backend, case):
    x, axis, layout, k, keepdims = case
    arr = _layout(x, layout)
    before = bits(arr).copy()
    got = axisops.kthvalue(arr, k, axis, keepdims=keepdims, backend=backend)
    assert isinstance(got, axisops.KthValue)
    _same(*got, *ref_kthvalue(x, k, axis, keepdims))
    n = x.shape[axis]
    got = axisops.median(arr, axis, keepdims=keepdims, backend=backend)
    assert isinstance(got, axisops.Median)
    _same(*got, *ref_kthvalue(x, (n - 1) // 2 + 1, axis, keepdims))
    assert np.array_equal(bits(arr), before)


@st.composite
def partition_cases(draw):
    x, axis, layout = draw(cases(min_side=1))
    n = x.shape[axis]
    position = st.integers(-n, n - 1)
    kth = draw(st.one_of(position, st.lists(position, max_size=5),
                         st.lists(position, max_size=4).map(tuple),
                         st.lists(position, max_size=4).map(lambda v: np.array(v, np.int32))))
    return x, axis, layout, kth


@given(case=partition_cases())
def test_partition_and_argpartition_match_the_oracle(backend, case):
    x, axis, layout, kth = case
    arr = _layout(x, layout)
    before = bits(arr).copy()
    values = axisops.partition(arr, kth, axis, backend=backend)
    indices = axisops.argpartition(arr, kth, axis, backend=backend)
    _same(values, indices, *ref_partition(x, kth, axis))
    assert np.array_equal(bits(arr), before)


@given(case=kth_cases())
def test_kthvalue_is_the_last_of_topk_smallest(case):
    x, axis, _, k, _ = case
    values, indices = axisops.kthvalue(x, k, axis, keepdims=True)
    top_values, top_indices = ref_topk(x, k, axis, False)
    last = [slice(None)] * x.ndim
    last[axis % x.ndim] = slice(k - 1, k)
    _same(values, indices, top_values[tuple(last)], top_indices[tuple(last)])


# ---- integer extremes and the order's special values, every dtype ---------------------------


@pytest.mark.parametrize("dtype", TOPK_DTYPES, ids=str)
def test_every_special_value_in_every_position(dtype):
    """Each sequence a rotation of the dtype's whole pool (INT_MIN, UINT64_MAX, 2**53 + 1,
    NaN payloads, -0.0, +-inf...) with repeats, every k and kth."""
    pool = special_values(dtype)
    seq = np.concatenate([pool, pool[::2]])
    x = np.stack([np.roll(seq, r) for r in range(len(seq))])
    n = x.shape[1]
    for descending in (False, True):
        _same(axisops.sort(x, descending=descending), axisops.argsort(x, descending=descending),
              *ref_sort(x, -1, descending))
    for k in range(1, n + 1):
        _same(*axisops.kthvalue(x, k), *ref_kthvalue(x, k))
    _same(axisops.partition(x, [0, n // 2, -1]), axisops.argpartition(x, [0, n // 2, -1]),
          *ref_partition(x, [0, n // 2, -1]))


def test_bools_of_any_non_zero_byte_are_equal_trues_on_every_engine():
    """A bool's byte may be any value (a view of uint8 data): every non-zero byte is True,
    equal to the others (ties by lower index), and the values keep their bytes.  The
    oracle (the "numpy" engine) and the core agree with tests/oracle.py, bit for bit."""
    rows = np.array([[0, 2, 1, 255, 0, 1, 3, 0, 128], [255, 0, 0, 1, 2, 0, 1, 1, 0]],
                    np.uint8).view(np.bool_)
    for x, axis in ((rows, 0), (rows, 1), (rows[0], 0)):
        n = x.shape[axis]
        calls = [("topk", (x, k, axis), {"largest": largest}, ref_topk(x, k, axis, largest))
                 for k in range(n + 1) for largest in (True, False)]
        calls += [("kthvalue", (x, k, axis), {}, ref_kthvalue(x, k, axis))
                  for k in range(1, n + 1)]
        calls += [("median", (x, axis), {}, ref_kthvalue(x, (n - 1) // 2 + 1, axis))]
        for descending in (False, True):
            want = ref_sort(x, axis, descending)
            calls += [("sort", (x, axis), {"descending": descending}, want[0]),
                      ("argsort", (x, axis), {"descending": descending}, want[1])]
        for kth in ([0], [1, -2], list(range(n))):
            want = ref_partition(x, kth, axis)
            calls += [("partition", (x, kth, axis), {}, want[0]),
                      ("argpartition", (x, kth, axis), {}, want[1])]
        for op, args, kwargs, want in calls:
            for backend in ("cpu", "numpy"):
                got = getattr(axisops, op)(*args, **kwargs, backend=backend)
                for g, w in zip(*(r if isinstance(r, tuple) else (r,) for r in (got, want)),
                                strict=True):
                    assert np.array_equal(bits(g), bits(w)), (backend, op, args[1:], kwargs)


def test_median_is_the_lower_median_not_numpy_s():
    x = np.array([4.0, np.nan, 1.0, 2.0])
    assert np.isnan(np.median(x))
    assert axisops.median(x) == (2.0, 3)
    assert float(axisops.median(np.array([1.0, 2.0, 3.0, 4.0])).values) == 2.0


# ---- Dask: any chunking ----------------------------------------------------------------------


@st.composite
def dask_kth_cases(draw):
    x, axis, _, k, keepdims = draw(kth_cases())
    chunks = tuple(draw(chunking(s)) for s in x.shape)
    return x, axis, k, keepdims, chunks, draw(st.integers(2, 5))


@settings(max_examples=DASK_EXAMPLES)
@given(case=dask_kth_cases())
def test_dask_kthvalue_and_median_in_any_chunks(case):
    da = pytest.importorskip("dask.array")
    import dask

    x, axis, k, keepdims, chunks, fan_in = case
    d = da.from_array(x, chunks=chunks)
    with dask.config.set(split_every=fan_in, scheduler="synchronous"):
        values, indices = axisops.kthvalue(d, k, axis, keepdims=keepdims)
        _same(values.compute(), indices.compute(), *ref_kthvalue(x, k, axis, keepdims))
        n = x.shape[axis]
        values, indices = axisops.median(d, axis, keepdims=keepdims)
        _same(values.compute(), indices.compute(),
              *ref_kthvalue(x, (n - 1) // 2 + 1, axis, keepdims))


def test_dask_kthvalue_of_a_long_chunked_axis_with_many_ties():
    da = pytest.importorskip("dask.array")
    rng = np.random.default_rng(5)
    x = rng.integers(-3, 3, size=(3, 2000)).astype(np.int64) * (2**62)
    x[1, ::7] = np.iinfo(np.int64).min
    d = da.from_array(x, chunks=(2, 150))
    for k in (1, 700, 1001, 2000):
        values, indices = axisops.kthvalue(d, k)
        _same(values.compute(scheduler="synchronous"), indices.compute(scheduler="synchronous"),
              *ref_kthvalue(x, k))


@pytest.mark.parametrize("op", ["sort", "argsort", "partition", "argpartition"])
def test_dask_sort_and_partition_along_a_chunked_axis_say_rechunk(op):
    da = pytest.importorskip("dask.array")
    d = da.from_array(np.arange(12).reshape(3, 4), chunks=(3, 2))
    args = (1,) if "partition" in op else ()
    with pytest.raises(axisops.InvalidArgumentError, match=r"x\.rechunk\(\{1: -1\}\)") as err:
        getattr(axisops, op)(d, *args)
    assert (err.value.name, err.value.axis, err.value.value) == ("x", 1, (2, 2))
    assert str(err.value).startswith(f"{op}(): x has 2 chunks along axis 1")
    got = getattr(axisops, op)(d, *args, axis=0).compute(scheduler="synchronous")
    want = ref_sort(np.arange(12).reshape(3, 4), 0)[op == "argsort"] if "sort" in op else \
        ref_partition(np.arange(12).reshape(3, 4), 1, 0)[op == "argpartition"]
    np.testing.assert_array_equal(got, want)


# ---- errors: named, with fields, nothing modified ---------------------------------------------


def _calls(x):
    """(function, args, kwargs) of every operation of the family on ``x``."""
    return [(axisops.sort, (), {}), (axisops.argsort, (), {}), (axisops.kthvalue, (1,), {}),
            (axisops.median, (), {}), (axisops.partition, (0,), {}),
            (axisops.argpartition, (0,), {})]


BAD_ARGUMENTS = [
    # (function, args, kwargs, error, name, message pattern)
    ("sort", (), {"axis": 2}, axisops.InvalidArgumentError, "axis",
     r"^sort\(\): axis=2 is out of range for an array of 2 dimensions \(need -2 <= axis <= 1\)$"),
    ("argsort", (), {"axis": 1.0}, axisops.InvalidArgumentError, "axis", r"axis=1.0 \(float\)"),
    ("sort", (), {"descending": 1}, axisops.InvalidArgumentError, "descending",
     r"^sort\(\): descending=1 \(int\) is not a bool"),
    ("kthvalue", (0,), {}, axisops.InvalidArgumentError, "k",
     r"^kthvalue\(\): k=0 is out of range for axis 1 of size 5 \(need 1 <= k <= 5\)$"),
    ("kthvalue", (6,), {}, axisops.InvalidArgumentError, "k", r"need 1 <= k <= 5"),
    ("kthvalue", (True,), {}, axisops.InvalidArgumentError, "k", r"k=True is a bool"),
    ("kthvalue", (2.0,), {}, axisops.InvalidArgumentError, "k", r"k=2.0 \(float\) is not"),
    ("kthvalue", (1,), {"keepdims": "yes"}, axisops.InvalidArgumentError, "keepdims",
     r"keepdims='yes' \(str\) is not a bool"),
    ("median", (), {"axis": -3}, axisops.InvalidArgumentError, "axis", r"axis=-3 is out"),
    ("partition", (5,), {}, axisops.InvalidArgumentError, "kth",
     r"^partition\(\): kth=5 is out of range for axis 1 of size 5 \(need -5 <= kth <= 4\)$"),
    ("argpartition", ([0, -6],), {}, axisops.InvalidArgumentError, "kth", r"kth=-6 is out"),
    ("partition", ([[0]],), {}, axisops.InvalidArgumentError, "kth", r"kth=\[0\] \(list\)"),
    ("partition", (np.array([[0]]),), {}, axisops.InvalidArgumentError, "kth",
     r"kth has 2 dimensions"),
    ("partition", (np.array([0.0]),), {}, axisops.InvalidArgumentError, "kth",
     r"kth has dtype float64"),
    ("partition", (True,), {}, axisops.InvalidArgumentError, "kth", r"kth=True is a bool"),
    ("sort", (), {"backend": "nope"}, axisops.InvalidArgumentError, "backend",
     r"backend='nope' is not a backend"),
    ("median", (), {"backend": 3}, axisops.InvalidArgumentError, "backend",
     r"backend=3 is not a backend name"),
]


@pytest.mark.parametrize("op, args, kwargs, error, name, pattern", BAD_ARGUMENTS,
                         ids=[f"{c[0]}-{c[4]}-{i}" for i, c in enumerate(BAD_ARGUMENTS)])
def test_bad_arguments_are_refused_by_name(op, args, kwargs, error, name, pattern):
    x = np.array([[3.0, np.nan, -0.0, 1.0, 3.0]] * 2)
    before = bits(x).copy()
    with pytest.raises(error, match=pattern) as err:
        getattr(axisops, op)(x, *args, **kwargs)
    assert err.value.name == name
    assert err.value.allowed
    assert np.array_equal(bits(x), before)


@pytest.mark.parametrize("dtype", ["complex64", "object", "U3", "S2", "V8"])
def test_unsupported_dtypes_are_refused(dtype):
    x = np.zeros((2, 3), dtype)
    for function, args, kwargs in _calls(x):
        with pytest.raises(axisops.UnsupportedDTypeError,
                           match=rf"^{function.__name__}\(\): x has dtype .*which "
                                 rf"{function.__name__.removeprefix('arg')} does not "
                                 rf"support") as err:
            function(x, *args, **kwargs)
        assert (err.value.name, err.value.dtype) == ("x", np.dtype(dtype))


def test_0d_and_masked_inputs_are_refused():
    for x in (np.float32(1.0), np.ma.masked_array([1, 2], [0, 1])):
        for function, args, kwargs in _calls(x):
            with pytest.raises(axisops.InvalidArgumentError, match=r"x "):
                function(x, *args, **kwargs)


def test_an_empty_axis_has_no_median_but_sorts():
    x = np.zeros((3, 0), np.float32)
    with pytest.raises(axisops.InvalidArgumentError,
                       match=r"^median\(\): x has size 0 along axis 1 .*no median") as err:
        axisops.median(x)
    assert (err.value.name, err.value.axis) == ("x", 1)
    with pytest.raises(axisops.InvalidArgumentError, match=r"need 1 <= k <= 0"):
        axisops.kthvalue(x, 1)
    with pytest.raises(axisops.InvalidArgumentError, match=r"kth=0 is out of range"):
        axisops.partition(x, 0)
    assert axisops.sort(x).shape == axisops.argsort(x).shape == (3, 0)
    assert axisops.partition(x, []).shape == (3, 0)


def test_kth_may_be_any_integer_sequence_or_scalar(backend):
    x = np.array([3, 1, 4, 1, 5, 9, 2])
    want = ref_partition(x, [0, 1, 2])[1]
    for kth in (range(3), [2, 0, 1, 1], (np.int64(-7), 1, 2), np.array([0, 1, 2], np.uint8)):
        np.testing.assert_array_equal(axisops.argpartition(x, kth, backend=backend), want)
    for kth in (np.int16(-2), np.array(5), 5):
        np.testing.assert_array_equal(axisops.argpartition(x, kth, backend=backend),
                                      ref_partition(x, 5)[1])
    with pytest.raises(axisops.InvalidArgumentError, match=r"kth='ab' \(str\) is not an int"):
        axisops.partition(x, "ab", backend=backend)


def test_an_empty_kth_leaves_the_index_order(backend):
    x = np.array([[3, 1, 2], [0, 0, -1]], np.int8)
    np.testing.assert_array_equal(axisops.argpartition(x, [], backend=backend),
                                  [[0, 1, 2], [0, 1, 2]])
    assert_same_bits(axisops.partition(x, np.array([], np.int64), backend=backend), x)


# ---- the registry passes over engines that do not compute an operation -----------------------


class _TopkOnly(Engine):
    """A third party's engine that computes top-k and gather only."""

    name = "topk-only"
    array_type = "numpy"
    priority = 99

    def topk(self, x, spec):
        return axisops.engines.get("numpy").topk(x, spec)

    def gather(self, x, index, spec):
        return axisops.engines.get("numpy").gather(x, index, spec)


@pytest.mark.usefixtures("restore_registry")
def test_engines_without_the_family_are_passed_over():
    axisops.register_backend(_TopkOnly(), replace=True)
    x = np.array([2, 1, 2, 0])
    assert axisops.engines.default("numpy").name == "topk-only"  # the default for top-k
    assert axisops.topk(x, 2).indices.tolist() == [0, 2]
    for backend in (None, "topk-only"):
        assert axisops.argsort(x, backend=backend).tolist() == [3, 1, 0, 2]
        assert axisops.kthvalue(x, 2, backend=backend) == (1, 1)
        assert axisops.argpartition(x, 1, backend=backend).tolist() == [3, 1, 0, 2]
    assert not _TopkOnly().computes(
        axisops.validation.sort_spec(axisops.validation.ArrayMeta((4,), x.dtype), 0, False))
    with pytest.raises(NotImplementedError, match="'topk-only' does not compute sort"):
        _TopkOnly().sort(x, None)


class _SaysYesToEverything(_TopkOnly):
    """An engine whose supports() override forgets the operations it lacks."""

    name = "says-yes"

    def supports(self, x, spec=None):
        return True


@pytest.mark.usefixtures("restore_registry")
def test_an_engine_is_never_given_an_operation_it_lacks():
    axisops.register_backend(_SaysYesToEverything(), replace=True)
    x = np.array([2, 1, 2, 0])
    for backend in (None, "says-yes"):
        assert axisops.argsort(x, backend=backend).tolist() == [3, 1, 0, 2]
        assert axisops.median(x, backend=backend) == (1, 1)
