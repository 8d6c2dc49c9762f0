"""PyTorch's own topk and gather tests, ported to the ``axisops.torch`` drop-ins.

Our own port (not PyTorch's code) of:

- ``test/test_sort_and_select.py``: ``test_topk``, ``test_topk_1d_output_discontiguous``,
  ``test_topk_quantized_scalar_input``, ``test_topk_arguments``,
  ``test_topk_noncontiguous_gpu`` (on the CPU), ``test_topk_integral``,
  ``test_topk_lower_precision``, ``test_topk_nonfinite``, ``test_topk_4d``,
  ``test_topk_zero``;
- ``test/test_scatter_gather_ops.py``: ``test_gather``, ``test_gather_large``,
  ``test_gather_bool``, ``test_gather_backward_with_empty_index_tensor``;
- ``test/test_torch.py``: ``test_gather_backward_one_dim`` and
  ``test_gather_backward_deterministic_path``;
- ``test/test_indexing.py``: ``test_take_along_dim``, ``test_take_along_dim_invalid``;
- the OpInfo sample inputs of ``topk`` and ``gather``
  (``common_methods_invocations.sample_inputs_topk`` / ``sample_inputs_gather``)
  through the drop-ins, contiguous and not, with gradcheck.

What had to be adapted:

- references: where torch compares against ``sort`` and accepts any index
  among equal values, the port compares against a *stable* sort and demands
  the indices too (axisops' tie rule is the stable order);
- errors are the library's: a bool ``dim`` (``q.topk(4, True)``) is an
  ``InvalidArgumentError`` (a ``ValueError``) where torch raises ``TypeError``;
  a quantized tensor, which torch's topk takes, is an ``UnsupportedDTypeError``;
  ``take_along_dim``'s bad ranks and dims are ``InvalidArgumentError`` where
  torch raises ``RuntimeError``/``IndexError``, and a float or bool index an
  ``UnsupportedDTypeError`` (each also a ``RuntimeError``, as every drop-in's error); an int32 index, which torch refuses for
  ``take_along_dim``, is accepted (every integer type is);
- 0-d inputs of the OpInfo samples are refused (axisops needs rank >= 1);
- sizes: ``test_gather_large`` runs (64, 48)/(8, 8, 4096)-sized versions of
  its (4096, 3072)/(4, 4, 2**27) cases, the same layouts (strided,
  misaligned, expanded and strided indices); ``_test_gather_backward_one_dim``
  builds its expected gradient with ``np.add.at`` instead of a Python loop;
- CUDA-only tests run on the CPU (the CPU kernels take every layout).
"""

import random

import numpy as np
import pytest

torch = pytest.importorskip("torch")

# torch loads its forward-AD decompositions with torch.jit.script on the first forward-mode
# call of a process, and torch 2.13 deprecates torch.jit.script: torch's warning, not ours.
pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated")

from torch.autograd import gradcheck
from torch.testing import make_tensor

import axisops
from axisops import torch as ax

INTEGRAL = [torch.int8, torch.uint8, torch.int16, torch.int32, torch.int64]
ALL = [*INTEGRAL, torch.float16, torch.bfloat16, torch.float32, torch.float64]
PASSTHRU = [*ALL, torch.bool, torch.complex64, torch.complex128, torch.uint16, torch.uint32,
            torch.uint64]


def stable_topk(t, k, dim, largest):
    values, indices = torch.sort(t, dim=dim, descending=largest, stable=True)
    return values.narrow(dim, 0, k), indices.narrow(dim, 0, k)


def assert_topk_is_the_stable_sorts(t, k, dim, largest):
    got = ax.topk(t, k, dim, largest, True)
    values, indices = stable_topk(t, k, dim, largest)
    assert torch.equal(got.values, values) and torch.equal(got.indices, indices)
    assert torch.equal(t.gather(dim, got.indices), got.values)


# ---- test_sort_and_select.py ----------------------------------------------------------------


def test_topk():
    rnd = random.Random(0)
    t = torch.rand(rnd.randint(1, 100), rnd.randint(1, 100), rnd.randint(1, 100))
    for _ in range(3):
        for _ in range(3):
            for transpose in (True, False):
                for largest in (True, False):
                    test = t
                    if transpose:
                        d1, d2 = rnd.sample(range(3), 2)
                        test = t.transpose(d1, d2)
                    dim = rnd.randrange(3)
                    assert_topk_is_the_stable_sorts(test, rnd.randint(1, test.size(dim)), dim,
                                                    largest)
    # torch's sort-based and multiblock CUDA paths: here long rows, a large k
    for n in (100000, 10000):
        t = torch.randn(2, n)
        for largest in (True, False):
            assert_topk_is_the_stable_sorts(t, 2000, 1, largest)


def test_topk_1d_output_discontiguous():
    tensor = torch.randn(12)
    values = torch.empty_like(tensor)[::2]
    indices = torch.empty(18, dtype=torch.long)[::3]
    for sorted in (True, False):
        ax.topk(tensor, 6, sorted=sorted, out=(values, indices))
        want_v, want_i = tensor.topk(6, sorted=True)  # tie-free: any order is this set
        assert torch.equal(values.sort(descending=True).values, want_v)
        assert torch.equal(indices.sort().values, want_i.sort().values)


@pytest.mark.filterwarnings("ignore:torch.quantize_per_tensor")  # deprecated by torch 2.13
def test_topk_quantized_scalar_input_is_refused_cleanly():
    x = torch.quantize_per_tensor(torch.randn(()), 0.1, 10, torch.qint8)
    with pytest.raises(axisops.UnsupportedDTypeError, match=r"^topk\(\): x has torch dtype "
                                                            r"torch.qint8"):
        ax.topk(x, 1)


def test_topk_arguments():
    q = torch.randn(10, 2, 10)
    # Make sure True isn't taken as the 2nd dimension (torch: TypeError).
    with pytest.raises(axisops.InvalidArgumentError, match=r"axis=True is a bool"):
        ax.topk(q, 4, True)


def test_topk_noncontiguous():
    for t in (torch.randn(20)[::2], torch.randn(20000)[::2], torch.randn(200000)[::2]):
        for k in (5, 2000, 10000):
            if k >= t.shape[0]:
                continue
            a, b = ax.topk(t, k), ax.topk(t.contiguous(), k)
            assert torch.equal(a.values, b.values) and torch.equal(a.indices, b.indices)


def _test_topk_dtype(dtype, integral, size):
    if integral:
        info = torch.iinfo(dtype)
        a = torch.randint(info.min, info.max, size=(size,), dtype=dtype)
    else:
        a = torch.randn(size=(size,), dtype=dtype)
    sort_topk = a.sort(stable=True)[0][-(size // 2):].flip(0)
    topk = ax.topk(a, size // 2)
    assert torch.equal(sort_topk, topk[0])  # values
    assert torch.equal(sort_topk, a[topk[1]])  # indices
    assert_topk_is_the_stable_sorts(a, size // 2, 0, True)


@pytest.mark.parametrize("dtype", INTEGRAL, ids=str)
def test_topk_integral(dtype):
    for size in (10, 4096, 8192):
        _test_topk_dtype(dtype, True, size)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.half], ids=str)
def test_topk_lower_precision(dtype):
    for size in (10, 4096, 8192):
        _test_topk_dtype(dtype, False, size)


@pytest.mark.parametrize("dtype", [torch.float, torch.double, torch.bfloat16, torch.half],
                         ids=str)
def test_topk_nonfinite(dtype):
    x = torch.tensor([float("nan"), float("inf"), 1e4, 0, -1e4, -float("inf")], dtype=dtype)
    val, idx = ax.topk(x, 4)
    expect = torch.tensor([float("nan"), float("inf"), 1e4, 0], dtype=dtype)
    assert torch.equal(val.isnan(), expect.isnan()) and torch.equal(val[1:], expect[1:])
    assert idx.tolist() == [0, 1, 2, 3]
    val, idx = ax.topk(x, 4, largest=False)
    expect = torch.tensor([-float("inf"), -1e4, 0, 1e4], dtype=dtype)
    assert torch.equal(val, expect)
    assert idx.tolist() == [5, 4, 3, 2]


def test_topk_4d():
    for size in (128, 8192):
        x = torch.ones(2, size, 2, 2)
        x[:, 1, :, :] *= 2.0
        x[:, 10, :, :] *= 1.5
        val, ind = ax.topk(x, k=2, dim=1)
        expected_ind = torch.ones(2, 2, 2, 2, dtype=torch.long)
        expected_ind[:, 1, :, :] = 10
        expected_val = torch.ones(2, 2, 2, 2)
        expected_val[:, 0, :, :] *= 2.0
        expected_val[:, 1, :, :] *= 1.5
        assert torch.equal(val, expected_val) and torch.equal(ind, expected_ind)


@pytest.mark.parametrize("dtype", ALL, ids=str)
def test_topk_zero(dtype):
    t = torch.rand(2, 2).to(dtype=dtype)
    val, idx = ax.topk(t, k=0, largest=False)
    assert val.size() == idx.size() == torch.Size([2, 0])
    assert val.dtype == dtype and idx.dtype == torch.int64


# ---- test_scatter_gather_ops.py, test_torch.py ----------------------------------------------


def _fill_indices(idx, dim, dim_size, elems_per_row, m, n, o, gen):
    for i in range(1 if dim == 0 else m):
        for j in range(1 if dim == 1 else n):
            for k in range(1 if dim == 2 else o):
                ii = [i, j, k]
                ii[dim] = slice(0, idx.size(dim) + 1)
                idx[tuple(ii)] = torch.randperm(dim_size, generator=gen)[0:elems_per_row]


@pytest.mark.parametrize("dtype", PASSTHRU, ids=str)
def test_gather(dtype):
    rnd, gen = random.Random(str(dtype)), torch.Generator().manual_seed(1)
    m, n, o = rnd.randint(10, 20), rnd.randint(10, 20), rnd.randint(10, 20)
    elems_per_row = rnd.randint(1, 10)
    dim = rnd.randrange(3)
    src = make_tensor((m, n, o), device="cpu", dtype=dtype)
    idx_size = [m, n, o]
    idx_size[dim] = elems_per_row
    idx = torch.zeros(idx_size, dtype=torch.long)
    _fill_indices(idx, dim, src.size(dim), elems_per_row, m, n, o, gen)
    actual = ax.gather(src, dim, idx)
    expected = torch.zeros(idx_size, dtype=dtype)
    for i in range(idx_size[0]):
        for j in range(idx_size[1]):
            for k in range(idx_size[2]):
                ii = [i, j, k]
                ii[dim] = idx[i, j, k]
                expected[i, j, k] = src[tuple(ii)]
    assert torch.equal(actual, expected)
    if not dtype.is_complex and dtype not in (torch.uint16, torch.uint32, torch.uint64,
                                              torch.bool):
        src = make_tensor((3, 4, 5), device="cpu", dtype=dtype)
        expected, idx = src.max(2, True)
        assert torch.equal(ax.gather(src, 2, idx), expected)


@pytest.mark.parametrize("dtype", [torch.int8, torch.bfloat16], ids=str)
def test_gather_large(dtype):
    for m, n, k in ((64, 48, 64), (64, 48, 68), (8, 8, 4096)):
        src = make_tensor((m, k), device="cpu", dtype=dtype)
        discontig = torch.empty(src.nelement() * 2, dtype=dtype).view(m, 2 * k)[:, ::2].copy_(src)
        misaligned = torch.empty(src.nelement() + 1, dtype=dtype)[1:].view(m, k).copy_(src)
        misaligned1 = torch.empty(m, k + 4, dtype=dtype)[:, :-4].copy_(src)
        for dim in (0, 1):
            ind0 = torch.randint(src.shape[dim], (n,))
            ind_discontig0 = torch.empty(n * 2, dtype=torch.int64)[::2].copy_(ind0)
            shape_ind = [1] * src.ndim
            shape_ind[dim] = n
            shape_out = list(src.shape)
            shape_out[dim] = n
            ind = ind0.view(shape_ind).expand(shape_out)
            ind_discontig = ind_discontig0.view(shape_ind).expand(shape_out)
            ref = src[ind0] if dim == 0 else src[:, ind0]
            for source in (src, discontig, misaligned, misaligned1):
                for index in (ind, ind_discontig, ind - src.shape[dim]):  # negatives too
                    assert torch.equal(ax.gather(source, dim=dim, index=index), ref)
    # gathering along a dimension of index size 1, which torch's iterator once squashed
    src = make_tensor((16, 2, 16), device="cpu", dtype=dtype)
    ind = torch.randint(2, (16, 1)).view(16, 1, 1).expand(16, 1, 16)
    assert torch.equal(ax.gather(src, dim=1, index=ind), torch.gather(src, 1, ind))


def test_gather_bool():
    src = torch.tensor(((False, True), (True, True)))
    idx = torch.tensor(((0, 0), (1, 0)))
    assert torch.equal(ax.gather(src, 1, idx), torch.tensor(((False, False), (True, True))))


@pytest.mark.parametrize("sparse_grad", [False, True])
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64], ids=str)
def test_gather_backward_with_empty_index_tensor(dtype, sparse_grad):
    input = torch.rand([10, 5], dtype=dtype, requires_grad=True)
    index = torch.randint(0, 2, [3, 0], dtype=torch.int64)
    ax.gather(input, -1, index, sparse_grad=sparse_grad).sum().backward()
    grad = input.grad.to_dense() if sparse_grad else input.grad
    assert torch.equal(grad, torch.zeros_like(input))


@pytest.mark.parametrize("deterministic", [False, True])
def test_gather_backward_one_dim(deterministic):
    torch.use_deterministic_algorithms(deterministic)
    try:
        rnd = random.Random(int(deterministic))
        m = rnd.randint(2000, 3000)
        elems = rnd.randint(10 * m, 20 * m)
        src = torch.randn(m, requires_grad=True)
        idx = torch.randint(m, (elems,))
        res = ax.gather(src, 0, idx)
        weight = torch.rand_like(res) * 10**6
        res.backward(weight)
        grad = src.grad.detach().clone()
        for _ in range(2):  # the same bits every time
            src.grad.zero_()
            ax.gather(src, 0, idx).backward(weight)
            assert torch.equal(src.grad, grad)
        expected = np.zeros(m, np.float32)
        np.add.at(expected, idx.numpy(), weight.numpy())  # torch's test: a Python loop
        assert torch.equal(grad, torch.from_numpy(expected))
    finally:
        torch.use_deterministic_algorithms(False)


# ---- test_indexing.py -----------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [torch.long, torch.float32], ids=str)
def test_take_along_dim(dtype):
    def against_numpy(t, indices, dim):
        actual = ax.take_along_dim(t, indices, dim=dim)
        expected = np.take_along_axis(t.numpy(), indices.numpy(), axis=dim)
        assert np.array_equal(actual.numpy(), expected)

    for shape in [(3, 2), (2, 3, 5), (2, 4, 0), (2, 3, 1, 4)]:
        for noncontiguous in (True, False):
            t = make_tensor(shape, device="cpu", dtype=dtype, noncontiguous=noncontiguous)
            for dim in [*range(t.ndim), None]:
                indices = torch.argsort(t.reshape(-1) if dim is None else t, dim=dim or 0)
                against_numpy(t, indices, dim)
    against_numpy(torch.ones((3, 4, 1)), torch.ones((1, 2, 5), dtype=torch.long), 1)
    against_numpy(torch.ones((3, 4, 5)), torch.ones((3, 0, 5), dtype=torch.long), 1)


@pytest.mark.parametrize("dtype", [torch.long, torch.float], ids=str)
def test_take_along_dim_invalid(dtype):
    t = make_tensor((2, 3, 1, 4), device="cpu", dtype=dtype)
    indices = torch.argsort(t, dim=0)
    with pytest.raises(axisops.InvalidArgumentError, match="same number of dimensions"):
        ax.take_along_dim(t, indices[0], dim=0)
    for bad in (torch.bool, torch.float):
        with pytest.raises(axisops.UnsupportedDTypeError, match="need an integer dtype"):
            ax.take_along_dim(t, indices.to(bad), dim=0)
    assert torch.equal(ax.take_along_dim(t, indices.to(torch.int32), dim=0),  # torch: refused
                       torch.take_along_dim(t, indices, dim=0))
    for dim in (-7, 7):
        with pytest.raises(axisops.InvalidArgumentError, match=f"axis={dim} is out of range"):
            ax.take_along_dim(t, indices, dim=dim)


# ---- the OpInfo samples ---------------------------------------------------------------------

S, M = 5, 10


def gather_variable(shape, index_dim, max_indices, gen):
    """OpInfo's ``gather_variable(..., duplicate=True)``: permutations, one row repeated."""
    batch_dim = 1 - index_dim
    index = torch.zeros(*shape, dtype=torch.long)
    for i in range(shape[index_dim]):
        index.select(index_dim, i).copy_(torch.randperm(max_indices, generator=gen)[:shape[batch_dim]])
    index.select(batch_dim, 0).copy_(index.select(batch_dim, 1))
    return index


def topk_samples(dtype, requires_grad):
    for args in [(3,), (3, 1), (3, -2), (3, 1, True), (3, -2, True), (3, 1, True, True),
                 (3, -2, True, True), (3, 1, False, True)]:
        yield make_tensor((S, M, S), device="cpu", dtype=dtype, requires_grad=requires_grad), args


def gather_samples(dtype, requires_grad):
    gen = torch.Generator().manual_seed(0)
    make = lambda shape: make_tensor(shape, device="cpu", dtype=dtype,  # noqa: E731
                                     requires_grad=requires_grad)
    yield make((M, S)), 0, gather_variable((S, S), 1, M, gen)
    yield make((M, S)), 0, gather_variable((S, S), 1, M, gen).to(torch.int32)
    yield make((M, S)), 1, gather_variable((M, S // 2), 0, S, gen)
    yield make((S,)), 0, torch.tensor([], dtype=torch.uint8)


@pytest.mark.parametrize("dtype", [*ALL, torch.bool], ids=str)
def test_opinfo_topk_samples_contiguous_and_not(dtype):
    for x, args in topk_samples(dtype, False):
        k, dim, largest = (*args, *(None, -1, True)[len(args):])[:3]
        for t in (x, x.transpose(0, 2).contiguous().transpose(0, 2)):  # same values, strided
            got = ax.topk(t, *args)
            values, indices = stable_topk(t, k, dim, largest)
            assert torch.equal(got.indices, indices) and torch.equal(got.values, values)


@pytest.mark.parametrize("dtype", PASSTHRU, ids=str)
def test_opinfo_gather_samples_contiguous_and_not(dtype):
    for x, dim, index in gather_samples(dtype, False):
        # numpy's take_along_axis: torch's CPU gather has no uint16/32/64 kernels
        want = torch.from_numpy(np.take_along_axis(x.view(torch.int16).numpy() if dtype ==
                                                   torch.bfloat16 else x.numpy(),
                                                   index.long().numpy(), dim))
        want = want.view(torch.bfloat16) if dtype == torch.bfloat16 else want
        for t in (x, x.t().contiguous().t() if x.ndim == 2 else x):
            assert torch.equal(ax.gather(t, dim, index), want)


def test_opinfo_gradcheck_of_the_samples():
    for x, args in topk_samples(torch.float64, True):
        assert gradcheck(lambda t, a=args: ax.topk(t, *a).values, (x,), check_forward_ad=True)
    for x, dim, index in gather_samples(torch.float64, True):
        assert gradcheck(lambda t, d=dim, i=index: ax.gather(t, d, i), (x,),
                         check_forward_ad=True)


def test_opinfo_zero_dimensional_samples_are_refused():
    with pytest.raises(axisops.InvalidArgumentError, match="at least one dimension"):
        ax.topk(torch.tensor(1.5), 1)
    with pytest.raises(axisops.InvalidArgumentError, match="at least one dimension"):
        ax.gather(torch.tensor(1.5), 0, torch.tensor([0]))
