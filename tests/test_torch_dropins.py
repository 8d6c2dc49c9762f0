"""``axisops.torch``: torch's signatures, argument for argument, and torch's result types.

The references are torch's own functions, called with the same arguments:
what they accept, resize, refuse and return is what the drop-ins must do
(torch's ``RuntimeError`` becomes the library's error, which is also a
``RuntimeError``; an out= that shares memory with an input is always
refused), with the axisops answer on ties (so the data here is tie-free where
torch's answer is compared, and tie-heavy against the oracle).
"""

import re
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


# ---- out= against torch's own functions: aliasing, dtype, shape, device -----------------------

#: Every drop-in with out=, called as torch's function is: (call, how many out= tensors,
#: the result's shape) on the inputs of _run_out_case.
OUT_DROP_INS = {
    "topk": (lambda lib, x, i, out: lib.topk(x, 2, 1, out=out), 2, (2, 2)),
    "sort": (lambda lib, x, i, out: lib.sort(x, 1, out=out), 2, (2, 4)),
    "kthvalue": (lambda lib, x, i, out: lib.kthvalue(x, 2, 1, out=out), 2, (2,)),
    "median": (lambda lib, x, i, out: lib.median(x, 1, out=out), 2, (2,)),
    "argsort": (lambda lib, x, i, out: lib.argsort(x, stable=True, out=out), 1, (2, 4)),
    "msort": (lambda lib, x, i, out: lib.msort(x, out=out), 1, (2, 4)),
    "gather": (lambda lib, x, i, out: lib.gather(x, 1, i, out=out), 1, (2, 4)),
    "take_along_dim": (lambda lib, x, i, out: lib.take_along_dim(x, i, 1, out=out), 1, (2, 4)),
}
#: The drop-ins that take an index tensor too.
INDEXED = {"gather", "take_along_dim"}


def _empty(dtype=torch.int64, size=0):
    return torch.zeros(size, dtype=dtype)


def _outs(name, first, second=None):
    """The out= of drop-in ``name``: ``first``, with ``second`` (default: an empty int64
    tensor) for the drop-ins that take a pair."""
    if OUT_DROP_INS[name][1] == 1:
        return first
    return first, _empty() if second is None else second


def _pair_only(name, make):
    return make() if OUT_DROP_INS[name][1] == 2 else None


def _indexed_only(name, make):
    return make() if name in INDEXED else None


#: out= cases that write memory of an input (or of the other out= tensor): ours refuses
#: each with an error ``except RuntimeError`` catches (torch refuses some, writes others).
#: Each builds the out= of a drop-in from its fresh inputs (None: not a case for it).
ALIASING = {
    "out is input": lambda x, i, name: _outs(name, x),
    "indices out is input": lambda x, i, name: _pair_only(name, lambda: (_empty(), x)),
    "out is a row of input": lambda x, i, name: _outs(name, x[1]),
    "out is an empty view of input": lambda x, i, name: _outs(name, x.view(-1)[:0]),
    "out is index": lambda x, i, name: _indexed_only(name, lambda: i),
    "out is a row of index": lambda x, i, name: _indexed_only(name, lambda: i[0]),
    "outs overlap each other": lambda x, i, name: _pair_only(
        name, lambda: (lambda b: (b[:0], b[1:1]))(_empty(size=32))),
}
#: out= cases compared with torch: the same success or an error of torch's class.
OTHERS = {
    "out of another dtype": lambda x, i, name: _outs(name, _empty(torch.float64)),
    "indices out of another dtype": lambda x, i, name: _pair_only(
        name, lambda: (_empty(), _empty(torch.int32))),
    "out of another shape": lambda x, i, name: _outs(name, _empty(size=7), _empty(size=7)),
    "out not resizable": lambda x, i, name: _outs(name, torch.from_numpy(np.zeros(3, np.int64))),
    "out on another device": lambda x, i, name: _outs(
        name, torch.empty(0, dtype=torch.int64, device="meta")),
    "out overlapping itself": lambda x, i, name: _outs(
        name, _empty(size=1).expand(OUT_DROP_INS[name][2])),
}


def _run_out_case(lib, name, case):
    """Call ``lib``'s drop-in ``name`` with the out= of ``case`` on fresh tie-free int64
    inputs: (the error or None, inputs, their copies from before, the out= tensors, warnings)."""
    x = torch.tensor([[3, 1, 2, 7], [0, 5, 4, 6]])
    i = torch.tensor([[0, 3, 1, 2], [1, 0, 0, 3]])
    before = (x.clone(), i.clone())
    out = case(x, i, name)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        try:
            OUT_DROP_INS[name][0](lib, x, i, out)
            error = None
        except Exception as exc:
            error = exc
    return error, (x, i), before, out, [str(w.message)[:40] for w in seen]


def _out_cases():
    return [pytest.param(name, label, id=f"{name}-{label}")
            for name in OUT_DROP_INS for label, case in {**ALIASING, **OTHERS}.items()
            if case(_empty(size=8).view(2, 4), _empty(size=8).view(2, 4), name) is not None]


@pytest.mark.parametrize("name, label", _out_cases())
def test_out_errors_are_torchs_class_and_no_input_is_ever_written(name, label):
    """Each drop-in with out= against torch's own function, on every aliasing, dtype, shape
    and device case: ours raises what ``except RuntimeError`` catches wherever torch's raises
    a RuntimeError (and refuses every out= that would write an input), succeeds with torch's
    results and warnings where torch succeeds, and never changes an input."""
    case = {**ALIASING, **OTHERS}[label]
    theirs, _, _, their_out, their_warnings = _run_out_case(torch, name, case)
    ours, inputs, before, our_out, our_warnings = _run_out_case(ax, name, case)
    for tensor, copy in zip(inputs, before):
        torch.testing.assert_close(tensor, copy, rtol=0, atol=0)
    if label in ALIASING:
        assert isinstance(ours, RuntimeError), (ours, theirs)
        assert re.search(r"shares memory with|overlap", str(ours)), str(ours)
    elif theirs is not None:
        for kind in (RuntimeError, TypeError, IndexError, ValueError):
            assert not isinstance(theirs, kind) or isinstance(ours, kind), (ours, theirs)
    else:
        assert ours is None, ours
        assert our_warnings == their_warnings
        for o, t in zip(*(v if isinstance(v, tuple) else (v,) for v in (our_out, their_out)),
                        strict=True):
            assert o.shape == t.shape and torch.equal(o, t)


def test_median_of_every_element_refuses_an_out_that_is_its_input():
    """``median(input, out=...)`` (no dim; torch has no out= there): out= is written, never
    the input."""
    for out in (lambda x: x, lambda x: x.view(-1)[:0], lambda x: x[0, :1]):
        x = torch.tensor([[3.0, 1.0], [2.0, 0.0]])
        before = x.clone()
        with pytest.raises(RuntimeError, match=r"^median\(\): out \(shape .*\) shares memory "
                                               r"with input"):
            ax.median(x, out=out(x))
        assert torch.equal(x, before)


#: Bad calls that torch's own functions refuse with a RuntimeError (not about out=).
RUNTIME_ERRORS = {
    "topk k > n": lambda lib, x: lib.topk(x, 5),
    "topk complex": lambda lib, x: lib.topk(x.to(torch.complex64), 1),
    "sort complex": lambda lib, x: lib.sort(x.to(torch.complex64)),
    "kthvalue k = 0": lambda lib, x: lib.kthvalue(x, 0),
    "gather index out of range": lambda lib, x: lib.gather(x, 1, torch.tensor([[4], [0]])),
    "gather float index": lambda lib, x: lib.gather(x, 1, torch.tensor([[0.0], [1.0]])),
    "gather index of another rank": lambda lib, x: lib.gather(x, 1, torch.tensor([0])),
    "take_along_dim flat index out of range": lambda lib, x: lib.take_along_dim(
        x, torch.tensor([8])),
    "out= with autograd": lambda lib, x: lib.gather(x.float().requires_grad_(), 1,
                                                    torch.tensor([[0]]), out=torch.empty(0)),
}


@pytest.mark.parametrize("label", RUNTIME_ERRORS)
def test_what_torch_refuses_with_a_runtime_error_is_a_runtime_error_here(label):
    """``except RuntimeError`` written for torch's function catches the drop-in's error (the
    library's, as its Torch variant); the Python API's errors stay what they were."""
    x = torch.tensor([[3, 1, 2, 7], [0, 5, 4, 6]])
    with pytest.raises(RuntimeError):
        RUNTIME_ERRORS[label](torch, x)
    with pytest.raises(RuntimeError) as ours:
        RUNTIME_ERRORS[label](ax, x)
    assert isinstance(ours.value, axisops.AxisOpsError)
    assert type(ours.value).__name__.startswith("Torch"), type(ours.value)
    assert torch.equal(x, torch.tensor([[3, 1, 2, 7], [0, 5, 4, 6]]))


def test_the_python_api_on_tensors_raises_no_runtime_error():
    x = torch.tensor([[3, 1, 2, 7], [0, 5, 4, 6]])
    for call in (lambda: axisops.topk(x, 5), lambda: axisops.gather(x, 1, torch.tensor([[4]])),
                 lambda: axisops.sort(x.numpy(), axis=3)):
        with pytest.raises(axisops.AxisOpsError) as info:
            call()
        assert not isinstance(info.value, RuntimeError), type(info.value)
