"""Every sample of the contract (tests/samples.py) on every adapter x engine pair, bit for bit.

The expected answer is tests/oracle.py's, in plain Python; the input must come out
unchanged.  The rules that are not about values (argument checks, index dtypes,
array-likes, the unsorted set) are in test_topk_contract.py and test_gather_contract.py.
"""

import numpy as np
import pytest

from samples import GATHER_SAMPLES, INSTALLED, TOPK_SAMPLES

from oracle import assert_same_bits, bits, ref_gather, ref_topk

PAIRS = [pytest.param(p, id=p.id) for p in INSTALLED]


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
