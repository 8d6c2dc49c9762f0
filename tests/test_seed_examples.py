"""The six examples of the two seed pages, exactly as printed there."""

import numpy as np
import pytest

import axisops

X = np.array([[[[0, 1, 10, 11], [3, 2, 9, 8], [4, 5, 6, 7]]]], np.float32)
Y = np.array([[[[1, 2, 2, 3], [3, 4, 5, 5], [6, 6, 6, 6]]]], np.float32)
G = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
GI = np.array([[0, 2], [1, 0]])

TOPK_CASES = [
    (X, 2, 3, True, [[[[11, 10], [9, 8], [7, 6]]]], [[[[3, 2], [2, 3], [3, 2]]]]),
    (X, 2, 2, True, [[[[4, 5, 10, 11], [3, 2, 9, 8]]]], [[[[2, 2, 0, 0], [1, 1, 1, 1]]]]),
    (Y, 3, 3, True, [[[[3, 2, 2], [5, 5, 4], [6, 6, 6]]]], [[[[3, 1, 2], [2, 3, 1], [0, 1, 2]]]]),
    (Y, 3, 3, False, [[[[1, 2, 2], [3, 4, 5], [6, 6, 6]]]], [[[[0, 1, 2], [0, 1, 2], [0, 1, 2]]]]),
]


@pytest.mark.parametrize("x, k, axis, largest, values, indices", TOPK_CASES)
def test_directml_top_k1_examples(backend, x, k, axis, largest, values, indices):
    got = axisops.topk(x, k, axis=axis, largest=largest, backend=backend)
    assert got.values.dtype == np.float32 and got.indices.dtype == np.int64
    np.testing.assert_array_equal(got.values, values)
    np.testing.assert_array_equal(got.indices, indices)


@pytest.mark.parametrize("dim, want", [(0, [[1, 8], [4, 2]]), (1, [[1, 3], [5, 4]])])
def test_aclnn_gather_examples(backend, dim, want):
    np.testing.assert_array_equal(axisops.gather(G, dim, GI, backend=backend), want)
