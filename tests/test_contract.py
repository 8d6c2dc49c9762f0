"""Every sample of the contract (tests/samples.py) on every adapter x engine pair, bit for bit.

The selection family (sort, argsort, kthvalue, median, partition, argpartition) and the
quantile family (quantile, nanquantile, nanmedian) run on the pairs of
``samples.SELECT_INSTALLED``.

The expected answer is tests/oracle.py's, in plain Python (the quantile family's is the
NumPy oracle of ``axisops.reference.quantile``, which tests/test_quantile.py holds to
``np.quantile`` and ``np.nanquantile`` bit for bit); the input must come out unchanged.  The rules that are not about values (argument checks, index dtypes,
array-likes, the unsorted set) are in test_topk_contract.py and test_gather_contract.py.
"""

import numpy as np
import pytest

from samples import (
    GATHER_SAMPLES,
    INSTALLED,
    KTH_SAMPLES,
    PARTITION_SAMPLES,
    QUANTILE_INSTALLED,
    QUANTILE_SAMPLES,
    SELECT_INSTALLED,
    SORT_SAMPLES,
    TOPK_SAMPLES,
)

from oracle import (
    assert_same_bits,
    bits,
    ref_gather,
    ref_kthvalue,
    ref_partition,
    ref_sort,
    ref_topk,
)

PAIRS = [pytest.param(p, id=p.id) for p in INSTALLED]
SELECT_PAIRS = [pytest.param(p, id=p.id) for p in SELECT_INSTALLED]
QUANTILE_PAIRS = [pytest.param(p, id=p.id) for p in QUANTILE_INSTALLED]


def _native(a: np.ndarray) -> np.ndarray:
    return np.asarray(a).astype(a.dtype.newbyteorder("="), copy=False)


@pytest.mark.parametrize("sample", TOPK_SAMPLES, ids=lambda s: s.name)
@pytest.mark.parametrize("pair", PAIRS)
def test_topk(pair, sample, tmp_path):
    base = sample.make(tmp_path)
    before = bits(_native(base)).copy()
    with pair.context():
        x = pair.to_user(base)
        for largest in (True, False):
            values, indices = pair.topk(x, sample.k, sample.axis, largest)
            want_values, want_indices = ref_topk(_native(base), sample.k, sample.axis, largest)
            assert_same_bits(values, want_values)
            assert indices.dtype == np.int64
            np.testing.assert_array_equal(indices, want_indices)
    assert np.array_equal(bits(_native(base)), before)


@pytest.mark.parametrize("sample", GATHER_SAMPLES, ids=lambda s: s.name)
@pytest.mark.parametrize("pair", PAIRS)
def test_gather(pair, sample, tmp_path):
    base = sample.make(tmp_path)
    before, index_before = bits(_native(base)).copy(), sample.index.copy()
    with pair.context():
        x = pair.to_user(base)
        got = pair.gather(x, sample.dim, sample.index)
    assert_same_bits(got, ref_gather(_native(base), sample.dim, sample.index))
    assert np.array_equal(bits(_native(base)), before)
    assert np.array_equal(sample.index, index_before)


def _same(got_values, got_indices, want_values, want_indices):
    assert_same_bits(got_values, want_values)
    assert got_indices.dtype == np.int64
    np.testing.assert_array_equal(got_indices, want_indices)


@pytest.mark.parametrize("sample", SORT_SAMPLES, ids=lambda s: s.name)
@pytest.mark.parametrize("pair", SELECT_PAIRS)
def test_sort(pair, sample, tmp_path):
    base = sample.make(tmp_path)
    before = bits(_native(base)).copy()
    with pair.context():
        x = pair.to_user(base)
        for descending in (False, True):
            kw = dict(axis=sample.axis, descending=descending)
            (values,) = pair.select("sort", x, **kw)
            (indices,) = pair.select("argsort", x, **kw)
            _same(values, indices, *ref_sort(_native(base), sample.axis, descending))
    assert np.array_equal(bits(_native(base)), before)


@pytest.mark.parametrize("sample", KTH_SAMPLES, ids=lambda s: s.name)
@pytest.mark.parametrize("pair", SELECT_PAIRS)
def test_kthvalue_and_median(pair, sample, tmp_path):
    base = sample.make(tmp_path)
    before = bits(_native(base)).copy()
    kw = dict(axis=sample.axis, keepdims=sample.keepdims)
    n = base.shape[sample.axis]
    with pair.context():
        x = pair.to_user(base)
        got = pair.select("kthvalue", x, sample.k, **kw)
        _same(*got, *ref_kthvalue(_native(base), sample.k, sample.axis, sample.keepdims))
        got = pair.select("median", x, **kw)
        want = ref_kthvalue(_native(base), (n - 1) // 2 + 1, sample.axis, sample.keepdims)
        _same(*got, *want)
    assert np.array_equal(bits(_native(base)), before)


@pytest.mark.parametrize("sample", PARTITION_SAMPLES, ids=lambda s: s.name)
@pytest.mark.parametrize("pair", SELECT_PAIRS)
def test_partition(pair, sample, tmp_path):
    base = sample.make(tmp_path)
    before = bits(_native(base)).copy()
    with pair.context():
        x = pair.to_user(base)
        (values,) = pair.select("partition", x, sample.kth, axis=sample.axis)
        (indices,) = pair.select("argpartition", x, sample.kth, axis=sample.axis)
        _same(values, indices, *ref_partition(_native(base), sample.kth, sample.axis))
    assert np.array_equal(bits(_native(base)), before)


@pytest.mark.parametrize("sample", QUANTILE_SAMPLES, ids=lambda s: s.name)
@pytest.mark.parametrize("pair", QUANTILE_PAIRS)
def test_quantile_family(pair, sample, tmp_path):
    from axisops.reference.quantile import nanmedian, quantile

    base = sample.make(tmp_path)
    before = bits(_native(base)).copy()
    native = _native(base)
    flat = native.reshape(-1) if sample.axis is None else native
    axis = 0 if sample.axis is None else sample.axis
    lead = np.ndim(sample.q)
    with pair.context():
        x = pair.to_user(base)
        for op, skipnan in (("quantile", False), ("nanquantile", True)):
            if skipnan and base.dtype == np.bool_:
                continue
            (got,) = pair.select(op, x, sample.q, method=sample.method, axis=sample.axis,
                                 keepdims=sample.keepdims)
            want = quantile(flat, sample.q, axis, sample.method, sample.keepdims and
                            sample.axis is not None, skipnan, got.dtype)
            if sample.axis is None and sample.keepdims:
                want = want.reshape(np.shape(want)[:lead] + (1,) * base.ndim)
            assert_same_bits(got, want)
        values, indices = pair.select("nanmedian", x, axis=sample.axis, keepdims=sample.keepdims)
        want_values, want_indices = nanmedian(flat, axis, sample.keepdims and
                                              sample.axis is not None)
        if sample.axis is None and sample.keepdims:
            want_values = want_values.reshape((1,) * base.ndim)
            want_indices = want_indices.reshape((1,) * base.ndim)
        _same(values, indices, want_values, want_indices)
    assert np.array_equal(bits(_native(base)), before)
