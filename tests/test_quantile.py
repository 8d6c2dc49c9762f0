"""The quantile family (issue 43): the oracle is NumPy 2.4's quantile and nanquantile bit for
bit, the result dtypes are NumPy's, the engines are the oracle's, and the arguments are
checked.  The contract's samples on every adapter x engine pair are in test_contract.py.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import axisops
from axisops.reference.quantile import nanmedian as ref_nanmedian
from axisops.reference.quantile import quantile as ref_quantile
from axisops.reference.quantile import quantile_parts as ref_parts
from axisops.rules.quantile import METHODS, PICKING, result_dtype

from oracle import assert_same_bits, bits
from strategies import BF16, INT_DTYPES, arrays, special_values, tie_heavy

#: q at and next to the ends, and the middle.
EDGES = [0.0, 5e-324, 2.0**-53, 0.5, 1 - 2.0**-53, 1.0]
#: Every kind of q NumPy promotes its own way: (label, q).
Q_KINDS = [
    ("python float", 0.3),
    ("python int", 1),
    ("list", [0.1, 0.5, 0.9]),
    ("edges", EDGES),
    ("float32 array", np.array([0.25, 0.7], np.float32)),
    ("float16 array", np.array([0.25, 0.7], np.float16)),
    ("float32 scalar", np.float32(0.7)),
    ("float64 0-d", np.array(0.4)),
    ("int list", [0, 1]),
    ("2-D", np.array([[0.1, 0.2], [0.3, 1.0]])),
]
NUMERIC = [np.dtype(d) for d in ("int8", "uint8", "int16", "uint16", "int32", "uint32",
                                 "int64", "uint64", "float16", "float32", "float64")]


def _quiet(fn, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return fn(*args, **kwargs)


def _floating(dtype) -> bool:
    return np.dtype(dtype).kind == "f" or np.dtype(dtype) == BF16


def _zero(a: np.ndarray) -> np.ndarray:
    """``a`` with every zero +0.0 (NumPy's partition picks either of -0.0 and +0.0) and every
    NaN ``np.nan`` (the NaN NumPy's arithmetic makes has the processor's sign and payload)."""
    if not _floating(a.dtype):
        return a
    a = np.where(a == 0, np.zeros((), a.dtype), a)
    return np.where(np.isnan(a), np.array(np.nan, a.dtype), a)


def _finite_ties(dtype, shape, seed):
    """Tie-heavy data with no NaN (where NumPy's quantile and the contract agree)."""
    pool = special_values(dtype)
    if _floating(pool.dtype):
        pool = pool[~np.isnan(pool)]
    rng = np.random.default_rng(seed)
    return pool[rng.integers(0, len(pool), size=shape)]


# ---- the result dtype is NumPy's ----------------------------------------------------------------


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("label,q", Q_KINDS, ids=[k for k, _ in Q_KINDS])
def test_result_dtype_is_numpys(method, label, q):
    for dtype in [*NUMERIC, BF16]:
        x = np.arange(1, 6).astype(dtype)
        want = _quiet(np.quantile, x, q, method=method).dtype
        spec_q = np.asarray(q)
        q_dtype = np.dtype(np.int64) if spec_q.dtype.kind in "iu" else spec_q.dtype
        got = result_dtype(dtype, q_dtype, type(q) in (int, float), method)
        assert got == want, (dtype, method, label)
        assert axisops.quantile(x, q, method=method).dtype == want


def test_bool_takes_the_element_picking_methods_only():
    x = np.array([True, False, True])
    for method in sorted(PICKING):
        assert_same_bits(axisops.quantile(x, 0.5, method=method),
                         np.asarray(np.quantile(x, 0.5, method=method)))
    with pytest.raises(axisops.UnsupportedDTypeError, match="cannot interpolate"):
        axisops.quantile(x, 0.5)


# ---- the oracle is NumPy's quantile where NumPy's is defined ------------------------------------


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("dtype", [*NUMERIC, BF16], ids=str)
def test_oracle_is_numpys_quantile_bit_for_bit(method, dtype):
    for n in (1, 2, 3, 7, 64):
        x = _finite_ties(dtype, (3, n), n)
        for _, q in Q_KINDS:
            want = np.asarray(_quiet(np.quantile, x, q, axis=1, method=method))
            got = _quiet(ref_quantile, x, q, 1, method)
            assert_same_bits(_zero(got), _zero(want))


@pytest.mark.parametrize("method", METHODS)
def test_oracle_is_numpys_nanquantile_bit_for_bit(method):
    rng = np.random.default_rng(3)
    for dtype in (np.float16, np.float32, np.float64):
        x = rng.standard_normal((6, 11)).astype(dtype)
        x[rng.random(x.shape) < 0.3] = np.nan
        x[1] = np.nan
        for _, q in Q_KINDS:
            want = np.asarray(_quiet(np.nanquantile, x, q, axis=1, method=method))
            got = ref_quantile(x, q, 1, method, skipnan=True, dtype=want.dtype)
            assert_same_bits(got, _zero(want))


def test_numpy_quantile_is_nan_where_the_contract_reads_the_order():
    x = np.array([1.0, np.nan, 2.0, 3.0])
    assert np.isnan(np.quantile(x, 0.25))
    assert ref_quantile(x, 0.25, 0).tolist() == 1.75  # of [1, 2, 3, nan]
    assert np.isnan(ref_quantile(x, 0.75, 0))  # lerp(3, nan, 0.25)


def test_integers_beyond_2_53_are_exact_for_the_element_picking_methods():
    x = np.array([[2**53 + 1, 2**63 - 1, -(2**63), 2**53 + 3, 2**53 + 1]], np.int64)
    for method in (*sorted(PICKING), "linear"):
        q = [0, 1] if method == "linear" else EDGES
        got = axisops.quantile(x, q, method=method)
        assert got.dtype == np.int64
        assert_same_bits(got, np.quantile(x, q, axis=1, method=method))
    u = np.array([2**64 - 1, 0, 2**63 + 1, 2**64 - 2], np.uint64)
    assert axisops.quantile(u, 1.0, method="higher") == 2**64 - 1


# ---- the engines ----------------------------------------------------------------------------------


@pytest.mark.parametrize("backend", ["cpu", "numpy"])
@pytest.mark.parametrize("method", METHODS)
def test_engines_are_numpys_and_the_oracles(backend, method):
    for seed, dtype in enumerate([np.float32, np.float64, np.int16, np.uint64, np.float16]):
        x = _finite_ties(np.dtype(dtype), (4, 9, 5), seed)
        for axis in (0, 1, -1):
            for _, q in Q_KINDS:
                got = axisops.quantile(x, q, axis, method=method, backend=backend)
                want = ref_quantile(x, q, axis, method)
                assert_same_bits(got, want)
                numpy = np.asarray(_quiet(np.quantile, x, q, axis=axis, method=method))
                np.testing.assert_array_equal(got, numpy)  # -0.0 and +0.0: equal


@pytest.mark.parametrize("backend", ["cpu", "numpy"])
def test_nanquantile_engines(backend):
    x = tie_heavy(np.float32, (5, 12), 4, width=None)
    x[2] = np.nan
    for method in METHODS:
        for _, q in Q_KINDS:
            got = axisops.nanquantile(x, q, 1, method=method, backend=backend)
            want = ref_quantile(x, q, 1, method, skipnan=True, dtype=got.dtype)
            assert_same_bits(got, want)
    values, indices = axisops.nanmedian(x, 0, backend=backend)
    want = ref_nanmedian(x, 0)
    assert_same_bits(values, want[0])
    assert indices.tolist() == want[1].tolist()


def test_nanmedian_is_the_lower_median_of_the_non_nan():
    x = np.array([[3.0, np.nan, 1.0, 2.0, 9.0], [np.nan] * 5, [4.0, 4.0, np.nan, -0.0, 0.0]])
    values, indices = axisops.nanmedian(x)
    assert indices.tolist() == [3, 2, 4]  # [1, 2 | 3, 9], all NaN: (5 - 1) // 2, [-0., 0. | 4, 4]
    assert_same_bits(values, np.array([2.0, np.nan, 0.0]))
    parts = ref_parts(x, 0.5, 1, "lower", skipnan=True)
    assert_same_bits(values, parts[0])
    assert indices.tolist() == parts[1].tolist()


def test_several_q_one_call_equal_one_q_at_a_time():
    x = np.random.default_rng(0).standard_normal((30, 200)).astype(np.float32)
    qs = [0.01, 0.5, 0.99]
    together = axisops.quantile(x, qs)
    for i, q in enumerate(qs):
        assert_same_bits(together[i], axisops.quantile(x, np.array([q]))[0])


def test_axis_none_flattens_and_keepdims_keeps_every_axis():
    x = np.arange(24.0).reshape(2, 3, 4)
    assert_same_bits(axisops.quantile(x, 0.3, None), np.asarray(np.quantile(x, 0.3)))
    got = axisops.quantile(x, [0.3, 0.6], None, keepdims=True)
    assert_same_bits(got, np.quantile(x, [0.3, 0.6], keepdims=True))
    got = axisops.nanquantile(x, 0.5, 1, keepdims=True)
    assert_same_bits(got, np.nanquantile(x, 0.5, axis=1, keepdims=True))
    assert axisops.nanmedian(x, None).indices.shape == ()


def test_no_warning_for_all_nan_or_infinities():
    x = np.array([[np.nan, np.nan], [np.inf, np.inf]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = axisops.nanquantile(x, 0.5)
        axisops.quantile(x, 1.0)
    assert np.isnan(got[0]) and np.isnan(got[1])  # inf - inf, as NumPy's lerp gives


def test_the_input_is_never_modified():
    x = tie_heavy(np.float64, (7, 8), 1, width=None)
    before = bits(x).copy()
    axisops.quantile(x, EDGES, 0)
    axisops.nanquantile(x, EDGES, 1, method="hazen")
    axisops.nanmedian(x)
    assert np.array_equal(bits(x), before)


# ---- arguments --------------------------------------------------------------------------------


@pytest.mark.parametrize("q,match", [
    (1.5, r"q=1.5 is out of range \(need 0 <= q <= 1\)"),
    (-0.0 - 1e-300, "out of range"),
    (float("nan"), "out of range"),
    ([0.5, 2], "q=2.0 is out of range"),
    (True, "is a bool"),
    (np.zeros((1, 1, 1)), "3 dimensions"),
    ("0.5", "dtype"),
    (np.array([0.5], np.complex64), "dtype"),
])
def test_bad_q(q, match):
    with pytest.raises(axisops.InvalidArgumentError, match=match) as err:
        axisops.quantile(np.arange(3.0), q)
    assert str(err.value).startswith("quantile(): ")


def test_bad_method_axis_and_empty_axis():
    with pytest.raises(axisops.InvalidArgumentError, match="method='median'"):
        axisops.quantile(np.arange(3.0), 0.5, method="median")
    with pytest.raises(axisops.InvalidArgumentError, match="axis=2"):
        axisops.nanquantile(np.zeros((2, 2)), 0.5, 2)
    with pytest.raises(axisops.InvalidArgumentError, match="no quantile"):
        axisops.quantile(np.zeros((2, 0)), 0.5)
    with pytest.raises(axisops.InvalidArgumentError, match="no median"):
        axisops.nanmedian(np.zeros((0,)))
    with pytest.raises(axisops.UnsupportedDTypeError):
        axisops.quantile(np.zeros(3, np.complex64), 0.5)
    with pytest.raises(axisops.InvalidArgumentError, match="keepdims"):
        axisops.quantile(np.zeros(3), 0.5, None, keepdims=1)


def test_empty_batch_and_empty_q():
    assert axisops.quantile(np.zeros((0, 4)), [0.5, 0.2]).shape == (2, 0)
    assert axisops.quantile(np.zeros((3, 4)), []).shape == (0, 3)
    assert axisops.nanmedian(np.zeros((0, 4), np.float32)).values.shape == (0,)


# ---- hypothesis: any data, any q, any method, against the oracle ------------------------------


@settings(max_examples=150, deadline=None)
@given(arrays(min_side=1, dtypes=[*INT_DTYPES, np.dtype("float16"), np.dtype("float32"),
                                  np.dtype("float64"), BF16]),
       st.lists(st.sampled_from(EDGES + [0.1, 0.25, 1 / 3, 0.75]), min_size=0, max_size=4),
       st.sampled_from(METHODS), st.booleans(), st.data())
def test_hypothesis_against_the_oracle(x, qs, method, skipnan, data):
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    q = qs if data.draw(st.booleans()) or not qs else qs[0]
    fn = axisops.nanquantile if skipnan else axisops.quantile
    got = fn(x, q, axis, method=method)
    assert_same_bits(got, ref_quantile(x, q, axis, method, skipnan=skipnan, dtype=got.dtype))
    assert_same_bits(fn(x, q, axis, method=method, backend="numpy"), got)
