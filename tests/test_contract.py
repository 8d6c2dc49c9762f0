"""Every sample of the contract (tests/samples.py) on every adapter x engine pair, bit for bit.

The selection family (sort, argsort, kthvalue, median, partition, argpartition) and the
quantile family (quantile, nanquantile, nanmedian) run on the pairs of
``samples.SELECT_INSTALLED``.

Samples of NumPy's time types run on the pairs whose arrays can hold them (NumPy, Dask);
the others check that their framework refuses to make one (``samples.Pair.holds``).
``axis=None`` samples are held to the oracle on the flattened array.

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


def _made(pair, base):
    """``base`` as the pair's array, or None where its arrays cannot hold ``base``'s dtype
    (NumPy's time types in torch and JAX): their framework refuses to make one."""
    if pair.holds(base.dtype):
        return pair.to_user(base)
    with pytest.raises(TypeError):
        pair.to_user(base)
    return None


def _along(a: np.ndarray, axis):
    """``(a, axis)`` for the oracle: ``axis=None`` is ``a`` flattened in C order, axis 0."""
    return (a.reshape(-1), 0) if axis is None else (a, axis)


def _kept(pair, ndim: int, sample):
    """The oracle's kthvalue ``pair`` for ``sample``: every dimension of ``x`` kept as 1 for
    ``axis=None`` with ``keepdims``."""
    if sample.axis is None and sample.keepdims:
        return tuple(a.reshape((1,) * ndim) for a in pair)
    return pair


@pytest.mark.parametrize("sample", TOPK_SAMPLES, ids=lambda s: s.name)
@pytest.mark.parametrize("pair", PAIRS)
def test_topk(pair, sample, tmp_path):
    base = sample.make(tmp_path)
    before = bits(_native(base)).copy()
    native, axis = _along(_native(base), sample.axis)
    with pair.context():
        x = _made(pair, base)
        if x is None:
            return
        for largest in (True, False):
            values, indices = pair.topk(x, sample.k, sample.axis, largest)
            want_values, want_indices = ref_topk(native, sample.k, axis, largest)
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
        x = _made(pair, base)
        if x is None:
            return
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
        x = _made(pair, base)
        if x is None:
            return
        for descending in (False, True):
            kw = dict(axis=sample.axis, descending=descending)
            (values,) = pair.select("sort", x, **kw)
            (indices,) = pair.select("argsort", x, **kw)
            _same(values, indices, *ref_sort(*_along(_native(base), sample.axis), descending))
    assert np.array_equal(bits(_native(base)), before)


@pytest.mark.parametrize("sample", KTH_SAMPLES, ids=lambda s: s.name)
@pytest.mark.parametrize("pair", SELECT_PAIRS)
def test_kthvalue_and_median(pair, sample, tmp_path):
    base = sample.make(tmp_path)
    before = bits(_native(base)).copy()
    kw = dict(axis=sample.axis, keepdims=sample.keepdims)
    native, axis = _along(_native(base), sample.axis)
    keep = sample.keepdims and sample.axis is not None
    n = native.shape[axis]
    with pair.context():
        x = _made(pair, base)
        if x is None:
            return
        got = pair.select("kthvalue", x, sample.k, **kw)
        _same(*got, *_kept(ref_kthvalue(native, sample.k, axis, keep), base.ndim, sample))
        got = pair.select("median", x, **kw)
        want = _kept(ref_kthvalue(native, (n - 1) // 2 + 1, axis, keep), base.ndim, sample)
        _same(*got, *want)
    assert np.array_equal(bits(_native(base)), before)


@pytest.mark.parametrize("sample", PARTITION_SAMPLES, ids=lambda s: s.name)
@pytest.mark.parametrize("pair", SELECT_PAIRS)
def test_partition(pair, sample, tmp_path):
    base = sample.make(tmp_path)
    before = bits(_native(base)).copy()
    with pair.context():
        x = _made(pair, base)
        if x is None:
            return
        (values,) = pair.select("partition", x, sample.kth, axis=sample.axis)
        (indices,) = pair.select("argpartition", x, sample.kth, axis=sample.axis)
        native, axis = _along(_native(base), sample.axis)
        _same(values, indices, *ref_partition(native, sample.kth, axis))
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
