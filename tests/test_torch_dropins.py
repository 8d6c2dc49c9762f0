"""``axisops.torch``: torch's signatures, argument for argument, and torch's result types.

The references are torch's own functions, called with the same arguments:
what they accept, resize, refuse and return is what the drop-ins must do
(torch's ``RuntimeError`` becomes the library's error), with the axisops
answer on ties (so the data here is tie-free where torch's answer is
compared, and tie-heavy against the oracle).
"""

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import axisops
from axisops import torch as ax

from oracle import assert_same_bits, ref_gather, ref_topk
from strategies import GATHER_DTYPES, TOPK_DTYPES, tie_heavy
from torch_helpers import to_numpy, to_torch


def test_topk_returns_torchs_result_types():
    x = torch.randn(3, 6)
    r = ax.topk(x, 2)
    assert type(r) is type(torch.topk(x, 2)) is torch.return_types.topk
    values, indices = r
    assert values is r.values and indices is r.indices
    out = (torch.empty(0), torch.empty(0, dtype=torch.int64))
    r = ax.topk(x, 2, out=out)
    assert type(r) is type(torch.topk(x, 2, out=(torch.empty(0),
                                                  torch.empty(0, dtype=torch.int64))))
    assert r.values is out[0] and r.indices is out[1]


def test_topk_and_gather_take_every_argument_by_keyword():
    x = torch.randn(3, 6)
    i = torch.tensor([[5, 0]]).expand(3, 2)
    kw = dict(input=x, k=2, dim=1, largest=False, sorted=True)
    assert torch.equal(ax.topk(**kw).indices, torch.topk(**kw).indices)
    vals, idx = torch.empty(0), torch.empty(0, dtype=torch.int64)
    ax.topk(**kw, out=(vals, idx))
    assert torch.equal(idx, torch.topk(**kw).indices)
    kw = dict(input=x, dim=1, index=i, sparse_grad=False)
    assert torch.equal(ax.gather(**kw), torch.gather(**kw))
    out = torch.empty(0)
    assert ax.gather(**kw, out=out) is out and torch.equal(out, torch.gather(**kw))
    kw = dict(input=x, indices=i, dim=1)
    assert torch.equal(ax.take_along_dim(**kw), torch.take_along_dim(**kw))


@pytest.mark.parametrize("fill", ["empty", "same shape", "other shape"])
def test_out_is_resized_as_torch_resizes_it(fill):
    x = torch.randn(4, 7)
    index = torch.tensor([[6, 0, 2]]).expand(4, 3)
    shapes = {"empty": (0,), "same shape": (4, 3), "other shape": (5, 5)}
    ours = (torch.full(shapes[fill], 9.0), torch.full(shapes[fill], 9, dtype=torch.int64),
            torch.full(shapes[fill], 9.0))
    theirs = tuple(t.clone() for t in ours)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        ax.topk(x, 3, out=ours[:2])
        ax.gather(x, 1, index, out=ours[2])
    with warnings.catch_warnings(record=True) as torch_seen:
        warnings.simplefilter("always")
        torch.topk(x, 3, out=theirs[:2])
        torch.gather(x, 1, index, out=theirs[2])
    assert [str(w.message)[:40] for w in seen] == [str(w.message)[:40] for w in torch_seen]
    assert len(seen) == (3 if fill == "other shape" else 0)
    for o, t in zip(ours, theirs):
        assert o.shape == t.shape and o.stride() == t.stride() and torch.equal(o, t)


def test_out_keeps_a_strided_view_of_the_right_shape():
    # torch's test_topk_1d_output_discontiguous, for both drop-ins
    x = torch.randn(12)
    values, indices = torch.empty(12)[::2], torch.empty(18, dtype=torch.int64)[::3]
    ax.topk(x, 6, out=(values, indices))
    assert values.stride() == (2,) and indices.stride() == (3,)
    want = torch.topk(x, 6)
    assert torch.equal(values, want.values) and torch.equal(indices, want.indices)
    table = torch.randn(3, 5)
    out = torch.empty(4, 3).t()  # (3, 4), column-major
    ax.gather(table, 1, torch.tensor([[0, 1, 4, 4]]).expand(3, 4), out=out)
    assert out.stride() == (1, 3)
    assert torch.equal(out, torch.gather(table, 1, torch.tensor([[0, 1, 4, 4]]).expand(3, 4)))


def test_out_errors_name_the_argument_and_change_nothing():
    x = torch.randn(3, 4)
    index = torch.tensor([[1]])
    f64, i32 = torch.zeros(2, dtype=torch.float64), torch.zeros(2, dtype=torch.int32)
    with pytest.raises(axisops.UnsupportedDTypeError,
                       match=r"^topk\(\): out\[0\] has dtype torch.float64, need torch.float32"):
        ax.topk(x, 2, out=(f64, torch.empty(0, dtype=torch.int64)))
    with pytest.raises(axisops.UnsupportedDTypeError,
                       match=r"^topk\(\): out\[1\] has dtype torch.int32, need torch.int64"):
        ax.topk(x, 2, out=(torch.empty(0), i32))
    with pytest.raises(axisops.UnsupportedDTypeError, match=r"^gather\(\): out has dtype"):
        ax.gather(x, 1, index, out=f64)
    with pytest.raises(axisops.InvalidArgumentError, match=r"^topk\(\): out is a Tensor, need a "
                                                           r"tuple of two tensors"):
        ax.topk(x, 2, out=torch.empty(0))
    assert f64.tolist() == [0, 0] and i32.tolist() == [0, 0]
    grad = x.clone().requires_grad_()
    for call in (lambda: ax.topk(grad, 2, out=(torch.empty(0), torch.empty(0, dtype=torch.int64))),
                 lambda: ax.gather(grad, 1, index, out=torch.empty(0)),
                 lambda: ax.take_along_dim(grad, index, 1, out=torch.empty(0))):
        with pytest.raises(axisops.InvalidArgumentError, match=r"out= cannot record autograd"):
            call()
    with torch.no_grad():  # as torch: allowed where nothing is recorded
        out = torch.empty(0)
        ax.gather(grad, 1, index, out=out)
        assert torch.equal(out, torch.gather(x, 1, index))


@pytest.mark.parametrize("dtype", TOPK_DTYPES, ids=str)
def test_topk_out_every_dtype_matches_the_oracle(dtype):
    x = tie_heavy(dtype, (4, 9), 3, width=None)
    t = to_torch(x)
    values, indices = torch.empty(0, dtype=t.dtype), torch.empty(0, dtype=torch.int64)
    ax.topk(t, 4, 1, largest=False, out=(values, indices))
    want_v, want_i = ref_topk(x, 4, 1, largest=False)
    assert_same_bits(to_numpy(values), want_v)
    np.testing.assert_array_equal(indices.numpy(), want_i)


@pytest.mark.parametrize("dtype", GATHER_DTYPES, ids=str)
def test_gather_and_take_along_dim_out_every_dtype_match_the_oracle(dtype):
    x = tie_heavy(dtype, (3, 6), 4, width=None)
    index = np.array([[5, -6, 0], [1, 1, -1], [2, 3, 4]])
    t = to_torch(x)
    out = torch.empty(0, dtype=t.dtype)
    ax.gather(t, 1, torch.from_numpy(index), out=out)
    assert_same_bits(to_numpy(out), ref_gather(x, 1, index))
    out = torch.empty(0, dtype=t.dtype)
    ax.take_along_dim(t, torch.from_numpy(index[:1]), dim=1, out=out)
    assert_same_bits(to_numpy(out), ref_gather(x, 1, np.broadcast_to(index[:1], (3, 3))))


def test_take_along_dim_flattens_without_dim_and_broadcasts_with_it():
    t = torch.arange(24.0).reshape(2, 3, 4)
    idx = torch.tensor([23, 0, -1, 7])
    assert torch.equal(ax.take_along_dim(t, idx), torch.take_along_dim(t, idx % 24))
    ones, picks = torch.ones(3, 4, 1), torch.ones(1, 2, 5, dtype=torch.int64)
    assert torch.equal(ax.take_along_dim(ones, picks, dim=1),
                       torch.take_along_dim(ones, picks, dim=1))
    with pytest.raises(axisops.IndexOutOfRangeError, match=r"^take_along_dim\(\): indices\[0\]=24"):
        ax.take_along_dim(t, torch.tensor([24]))


def test_sparse_grad_is_validated_like_every_flag():
    with pytest.raises(axisops.InvalidArgumentError, match=r"^gather\(\): sparse_grad=1 .*not a bool"):
        ax.gather(torch.randn(2, 2), 1, torch.tensor([[0]]), sparse_grad=1)
    x = torch.randn(2, 3, requires_grad=True)
    ax.gather(x, 1, [[2], [0]], sparse_grad=True).sum().backward()  # a list index works too
    assert x.grad.layout == torch.sparse_coo
    assert x.grad.to_dense().tolist() == [[0, 0, 1], [1, 0, 0]]
