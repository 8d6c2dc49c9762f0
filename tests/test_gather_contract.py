"""The gather rules that are not about values (torch.gather / aclnnGather semantics); the
values (every dtype, index dtype, negative and short indices, layout, on every adapter and
engine) are tests/samples.py's, run by tests/test_contract.py."""

import numpy as np

import axisops


def test_broadcast_views_are_read_in_place(backend):
    x = np.broadcast_to(np.arange(4.0), (3, 4))
    idx = np.broadcast_to(np.array([[3, 0]]), (3, 2))
    np.testing.assert_array_equal(axisops.gather(x, 1, idx, backend=backend), [[3, 0]] * 3)


def test_take_along_axis_broadcasts():
    x = np.array([[10, 30, 20]])                      # (1, 3)
    idx = np.array([[1], [2], [0]])                   # (3, 1)
    np.testing.assert_array_equal(axisops.take_along_axis(x, idx, axis=1), [[30], [20], [10]])
    x2 = np.arange(12).reshape(3, 4)
    idx2 = np.array([[3, 0]])                         # broadcasts over rows
    np.testing.assert_array_equal(axisops.take_along_axis(x2, idx2), [[3, 0], [7, 4], [11, 8]])
    np.testing.assert_array_equal(axisops.take_along_axis(x2, np.array([[2, 0, 1, 2]]), axis=0),
                                  [[8, 1, 6, 11]])


def test_take_along_axis_matches_numpy():
    rng = np.random.default_rng(9)
    x = rng.standard_normal((4, 1, 5))
    idx = rng.integers(0, 4, size=(2, 3, 5))
    want = np.take_along_axis(np.broadcast_to(x, (4, 3, 5)), idx, axis=0)
    np.testing.assert_array_equal(axisops.take_along_axis(x, idx, axis=0), want)


def test_take_along_axis_of_topk_indices():
    x = np.array([[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]])
    r = axisops.topk(x, 2)
    np.testing.assert_array_equal(axisops.take_along_axis(x, r.indices, axis=-1), r.values)
