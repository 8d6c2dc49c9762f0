"""Derivatives of the axisops:: operators as torch users take them.

torch.func (grad, jacrev, jacfwd, vjp, jvp, vmap, functional_call and their
compositions), forward-mode AD (``torch.autograd.forward_ad``), and
gradcheck / gradgradcheck with forward AD and batched gradients.  On tie-free
data every derivative equals the one of torch's own ``torch.topk`` /
``torch.gather`` exactly; on tie-heavy data tangents and gradients go to the
elements the tie rule chose (the plain-Python oracle's indices).  Every
entry point is covered: the generic ``axisops.*`` functions, the
``axisops.torch`` drop-ins and the ``torch.ops.axisops`` operators.
"""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

# torch loads its forward-AD decompositions with torch.jit.script on the first forward-mode
# call of a process, and torch 2.13 deprecates torch.jit.script: torch's warning, not ours.
pytestmark = pytest.mark.filterwarnings("ignore:`torch.jit.script` is deprecated")

import torch.autograd.forward_ad as fwAD
from torch.autograd import gradcheck, gradgradcheck
from torch.func import functional_call, grad, jacfwd, jacrev, jvp, vjp, vmap

import axisops
from axisops import torch as ax

from oracle import ref_topk
from strategies import tie_heavy
from torch_helpers import to_torch

F64 = torch.float64

#: top-k values through each entry point, and torch's own, as f(x, k, dim).
TOPK = {
    "generic": lambda x, k, dim: axisops.topk(x, k, dim).values,
    "drop-in": lambda x, k, dim: ax.topk(x, k, dim).values,
    "torch.ops": lambda x, k, dim: torch.ops.axisops.topk(x, k, dim, True, True)[0],
}
GATHER = {
    "generic": lambda x, dim, i: axisops.gather(x, dim, i),
    "drop-in": lambda x, dim, i: ax.gather(x, dim, i),
    "torch.ops": lambda x, dim, i: torch.ops.axisops.gather(x, dim, i),
    "take_along_axis": lambda x, dim, i: axisops.take_along_axis(x, i, axis=dim),
}


def tie_free(*shape, seed=0):
    return torch.randn(*shape, generator=torch.Generator().manual_seed(seed), dtype=F64)


@pytest.mark.parametrize("front", TOPK)
def test_every_torch_func_transform_of_topk_equals_torch_topks(front):
    ours = lambda t: TOPK[front](t, 3, 1)  # noqa: E731
    theirs = lambda t: torch.topk(t, 3, 1).values  # noqa: E731
    x, v = tie_free(4, 7), tie_free(4, 7, seed=1)
    summed = lambda f: lambda t: (f(t) ** 2).sum()  # noqa: E731
    pairs = {
        "grad": lambda f: grad(summed(f))(x),
        "jacrev": lambda f: jacrev(f)(x),
        "jacfwd": lambda f: jacfwd(f)(x),
        "jvp": lambda f: jvp(f, (x,), (v,)),
        "vjp": lambda f: vjp(f, x)[1](torch.ones(4, 3, dtype=F64)),
        "vmap(grad)": lambda f: vmap(grad(lambda r: (f(r[None]) ** 2).sum()))(x),
        "vmap": lambda f: vmap(lambda r: f(r[None]))(x),
        "hessian": lambda f: jacfwd(jacrev(summed(f)))(x),
        "grad(grad)": lambda f: grad(lambda t: grad(summed(f))(t).sum())(x),
    }
    for name, transform in pairs.items():
        got, want = transform(ours), transform(theirs)
        for g, w in zip(torch.utils._pytree.tree_leaves(got),
                        torch.utils._pytree.tree_leaves(want)):
            assert torch.equal(g, w), name


@pytest.mark.parametrize("front", GATHER)
def test_every_torch_func_transform_of_gather_equals_torch_gathers(front):
    index = torch.tensor([[0, 4, 4, -1], [2, 2, 0, 1], [-5, 3, 3, 3]])  # repeats, negatives
    wrapped = index % 5
    ours = lambda t: GATHER[front](t, 1, index)  # noqa: E731
    theirs = lambda t: torch.gather(t, 1, wrapped)  # noqa: E731
    x, v = tie_free(3, 5), tie_free(3, 5, seed=1)
    summed = lambda f: lambda t: (f(t) ** 3).sum()  # noqa: E731
    for name, transform in {
        "grad": lambda f: grad(summed(f))(x),
        "jacrev": lambda f: jacrev(f)(x),
        "jacfwd": lambda f: jacfwd(f)(x),
        "jvp": lambda f: jvp(f, (x,), (v,)),
        "vjp": lambda f: vjp(f, x)[1](tie_free(3, 4, seed=2)),
        "vmap(grad)": lambda f: vmap(grad(summed(f)))(torch.stack([x, v])),
        "hessian": lambda f: jacfwd(jacrev(summed(f)))(x),
    }.items():
        got, want = transform(ours), transform(theirs)
        for g, w in zip(torch.utils._pytree.tree_leaves(got),
                        torch.utils._pytree.tree_leaves(want)):
            assert torch.equal(g, w), name


@pytest.mark.parametrize("batched", ["x", "index", "both"])
def test_vmap_batches_gather_over_x_the_index_or_both(batched):
    xs, index = tie_free(6, 3, 5), torch.tensor([[[0, -1], [2, 2], [4, 0]]]).repeat(6, 1, 1)
    index[1::2] = index[1::2].flip(-1)
    x_in, i_in = {"x": (0, None), "index": (None, 0), "both": (0, 0)}[batched]
    x_arg = xs if x_in == 0 else xs[0]
    i_arg = index if i_in == 0 else index[0]
    got = vmap(lambda t, i: ax.gather(t, 1, i), in_dims=(x_in, i_in))(x_arg, i_arg)
    want = torch.stack([torch.gather(x_arg[b] if x_in == 0 else x_arg, 1,
                                     (i_arg[b] if i_in == 0 else i_arg) % 5) for b in range(6)])
    assert torch.equal(got, want)


def test_vmap_of_topk_over_any_batch_dim_and_a_negative_dim():
    x = tie_free(3, 4, 5)
    for in_dim in (0, 1, 2):
        for dim in (0, 1, -1):
            got = vmap(lambda t, d=dim: ax.topk(t, 2, dim=d), in_dims=in_dim)(x)
            moved = x.movedim(in_dim, 0)
            want = torch.topk(moved, 2, dim=dim + 1 if dim >= 0 else dim)
            assert torch.equal(got.values, want.values) and torch.equal(got.indices, want.indices)
    with pytest.raises(axisops.InvalidArgumentError, match=r"axis=2 is out of range for an "
                                                           r"array of 2 dimensions"):
        vmap(lambda t: ax.topk(t, 2, dim=2))(x)  # the caller's dim, not the batched one


def test_functional_call_of_a_module_equals_the_torch_topk_module():
    class Router(torch.nn.Module):
        def __init__(self, topk):
            super().__init__()
            self.proj = torch.nn.Linear(6, 8, dtype=F64)
            self.topk = topk

        def forward(self, tokens):
            values, indices = self.topk(self.proj(tokens), 2)
            return torch.softmax(values, -1), indices

    torch.manual_seed(3)
    ours, theirs = Router(ax.topk), Router(torch.topk)
    theirs.load_state_dict(ours.state_dict())
    params = {k: v.detach() for k, v in ours.named_parameters()}
    tokens = tie_free(16, 6)
    loss = lambda m: lambda p: (functional_call(m, p, (tokens,))[0][:, 0] ** 2).sum()  # noqa: E731
    got, want = grad(loss(ours))(params), grad(loss(theirs))(params)
    assert got.keys() == want.keys()
    assert all(torch.equal(got[k], want[k]) for k in got)


@pytest.mark.parametrize("front", ["generic", "drop-in", "torch.ops"])
def test_forward_ad_through_values_and_gather_equals_torch(front):
    x, tangent = tie_free(5, 9), tie_free(5, 9, seed=1)
    index = torch.tensor([[8, -9, 3]]).expand(5, 3)
    with fwAD.dual_level():
        dual = fwAD.make_dual(x, tangent)
        values = TOPK[front](dual, 4, 1)
        picked = GATHER[front](dual, 1, index)
        got = fwAD.unpack_dual(values).tangent, fwAD.unpack_dual(picked).tangent
        want_dual = fwAD.make_dual(x, tangent)
        want = (fwAD.unpack_dual(torch.topk(want_dual, 4, 1).values).tangent,
                fwAD.unpack_dual(torch.gather(want_dual, 1, index % 9)).tangent)
    assert got[0] is not None and got[1] is not None
    assert torch.equal(got[0], want[0]) and torch.equal(got[1], want[1])


def test_jvp_gives_what_torch_topk_gives_on_the_issues_example():
    x = torch.arange(10.0)
    f = lambda t: (axisops.topk(t, 5).values * 10).sum()  # noqa: E731
    g = lambda t: (torch.topk(t, 5).values * 10).sum()  # noqa: E731
    assert jvp(f, (x,), (torch.ones(10),))[1].item() == jvp(g, (x,), (torch.ones(10),))[1].item()
    assert jvp(f, (x,), (torch.ones(10),))[1].item() == 50.0


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64], ids=str)
@pytest.mark.parametrize("largest", [True, False])
def test_tangents_and_gradients_follow_the_tie_rule_on_ties(dtype, largest):
    x = tie_heavy(dtype, (4, 11), 5, width=None)  # ties, NaN, +-0.0, +-inf
    want_i = ref_topk(x, 5, 1, largest)[1]
    t = to_torch(x).to(F64)  # NaN and zeros survive the widening; ties stay ties
    tangent = torch.arange(44, dtype=F64).reshape(4, 11)
    f = lambda u: axisops.topk(u, 5, 1, largest=largest).values  # noqa: E731
    _, got = jvp(f, (t,), (tangent,))
    assert torch.equal(got, torch.gather(tangent, 1, torch.from_numpy(want_i)))
    weights = torch.arange(1.0, 21.0, dtype=F64).reshape(4, 5)
    (g,) = vjp(f, t)[1](weights)  # NaN values do not matter: their gradients are weights
    assert torch.equal(g, torch.zeros_like(t).scatter(1, torch.from_numpy(want_i), weights))
    t.requires_grad_()
    f(t).backward(weights)
    assert torch.equal(t.grad, g)


@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("largest", [True, False])
def test_topk_gradcheck_with_forward_ad_and_batched_gradients(dim, largest):
    x = tie_free(4, 6).requires_grad_()
    fn = lambda t: ax.topk(t, 3, dim, largest=largest).values  # noqa: E731
    assert gradcheck(fn, (x,), check_forward_ad=True, check_batched_grad=True,
                     check_batched_forward_grad=True)
    assert gradgradcheck(fn, (x,), check_fwd_over_rev=True, check_batched_grad=True)


@pytest.mark.parametrize("front", GATHER)
def test_gather_gradcheck_with_forward_ad_and_batched_gradients(front):
    x = tie_free(3, 5).requires_grad_()
    index = torch.tensor([[0, 0, -1, 4], [2, 2, 2, 1], [3, -2, 1, 0]], dtype=torch.int16)
    fn = lambda t: GATHER[front](t, 1, index)  # noqa: E731
    assert gradcheck(fn, (x,), check_forward_ad=True, check_batched_grad=True,
                     check_batched_forward_grad=True)
    assert gradgradcheck(fn, (x,), check_fwd_over_rev=True, check_batched_grad=True)


def test_complex_values_have_derivatives_too():
    x = torch.randn(3, 4, dtype=torch.complex128, requires_grad=True)
    index = torch.tensor([[3, 0], [1, 1], [-1, 2]])
    assert gradcheck(lambda t: ax.gather(t, 1, index), (x,), check_forward_ad=True)


def test_integer_inputs_record_nothing_and_indices_never_differentiate():
    r = ax.topk(torch.tensor([[3, 1, 2]]), 2)
    assert r.values.grad_fn is None and not r.indices.requires_grad
    x = tie_free(2, 5).requires_grad_()
    r = axisops.topk(x, 2)
    assert r.values.requires_grad and not r.indices.requires_grad
    with fwAD.dual_level():
        d = axisops.topk(fwAD.make_dual(x.detach(), torch.ones(2, 5, dtype=F64)), 2)
        assert fwAD.unpack_dual(d.indices).tangent is None


@pytest.mark.parametrize("empty", [False, True])
def test_sparse_grad_gives_torchs_sparse_gradient(empty):
    x = tie_free(4, 5)
    index = torch.zeros(4, 0, dtype=torch.int64) if empty else torch.tensor(
        [[0, -1, 4], [2, 2, 2], [1, 0, 3], [-5, 4, 4]])
    ours, theirs = x.clone().requires_grad_(), x.clone().requires_grad_()
    weight = tie_free(*index.shape, seed=2)
    (ax.gather(ours, 1, index, sparse_grad=True) * weight).sum().backward()
    (torch.gather(theirs, 1, index % 5, sparse_grad=True) * weight).sum().backward()
    assert ours.grad.layout == torch.sparse_coo == theirs.grad.layout
    assert torch.equal(ours.grad.to_dense(), theirs.grad.to_dense())
    dense = x.clone().requires_grad_()
    (ax.gather(dense, 1, index, sparse_grad=False) * weight).sum().backward()
    assert dense.grad.layout == torch.strided and torch.equal(dense.grad, ours.grad.to_dense())


def test_values_under_transforms_are_the_same_bits_as_eager():
    # Under torch.func the values come from torch.gather of x at the kernel's indices.
    x = to_torch(tie_heavy(np.float32, (3, 14), 9, width=None))  # NaN payloads, +-0.0, +-inf
    index = torch.tensor([[13, -14, 3, 3]]).expand(3, 4)
    eager = ax.topk(x, 5), ax.gather(x, 1, index)
    batched = vmap(lambda r: ax.topk(r, 5))(x), vmap(lambda r, i: ax.gather(r, 0, i))(x, index)
    primal = jvp(lambda t: ax.topk(t, 5).values, (x,), (torch.ones_like(x),))[0]
    for got in (batched[0].values, primal):
        assert torch.equal(got.view(torch.int32), eager[0].values.view(torch.int32))
    assert torch.equal(batched[0].indices, eager[0].indices)
    assert torch.equal(batched[1].view(torch.int32), eager[1].view(torch.int32))
