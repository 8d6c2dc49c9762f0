"""axisops inside torch programs: the axisops:: operators, autograd, torch.compile, drop-ins.

References are independent of axisops: torch.topk/torch.gather (on tie-free
data), explicit scatters computed with NumPy from the plain-Python oracle's
indices, torch.autograd.gradcheck, and eager results for compiled ones.
torch.compile runs with the "aot_eager" backend (fast; it runs the autograd
graph AOT-traced through the fake implementations).  Inductor was checked by
hand; its cold compile takes far longer than a test may here.
"""

import re
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from torch.autograd import gradcheck, gradgradcheck
from torch.utils._python_dispatch import TorchDispatchMode

import axisops
from axisops import engines
from axisops import torch as ax

from oracle import assert_same_bits, ref_topk
from strategies import tie_heavy
from torch_helpers import to_numpy, to_torch

F64 = torch.float64


def scatter_of(shape, axis, indices, grad) -> np.ndarray:
    """The explicit scatter: ``grad`` added at ``indices`` along ``axis`` of zeros."""
    out = np.zeros(shape, np.float64)
    moved, idx, g = np.moveaxis(out, axis, -1), np.moveaxis(indices, axis, -1), np.moveaxis(grad, axis, -1)
    for pos in np.ndindex(*idx.shape[:-1]):
        for j in range(idx.shape[-1]):
            moved[pos + (idx[pos + (j,)],)] += g[pos + (j,)]
    return out


# ---- the operators ----------------------------------------------------------------------------


class Recorder(TorchDispatchMode):
    """Names every operator dispatched while active."""

    def __init__(self):
        super().__init__()
        self.names = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.names.append(str(func))
        return func(*args, **(kwargs or {}))


def test_public_calls_go_through_the_axisops_operators():
    x = torch.randn(3, 5)
    with Recorder() as seen:
        axisops.topk(x, 2)
        axisops.gather(x, 1, torch.tensor([[0]]))
        axisops.take_along_axis(x, torch.tensor([[1]]), axis=1)
    assert {"axisops.topk.default", "axisops.gather.default",
            "axisops.take_along_axis.default"} <= set(seen.names)


class PassThrough(torch.overrides.TorchFunctionMode):
    """A torch function mode that changes nothing."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        return func(*args, **(kwargs or {}))


def test_unobserved_calls_skip_the_dispatcher_and_observed_ones_do_not(monkeypatch):
    from axisops.torch import library

    calls = []
    for name in ("_TOPK",):
        real = getattr(library, name)
        monkeypatch.setattr(library, name, lambda *a, real=real: calls.append(1) or real(*a))
    real_gather = dict(library._GATHER)
    monkeypatch.setattr(library, "_GATHER", {
        op: (lambda *a, f=f: calls.append(1) or f(*a)) for op, f in real_gather.items()})
    x, index = to_torch(tie_heavy(np.float32, (5, 40), 2, width=None)), torch.tensor([[3, -1]])
    want_top = axisops.topk(to_numpy(x), 3, backend="numpy")
    want_gather = axisops.gather(to_numpy(x), 1, index.numpy(), backend="numpy")
    want_taken = np.take_along_axis(to_numpy(x), np.broadcast_to(index.numpy() % 40, (5, 2)), 1)

    def run():
        calls.clear()
        top = axisops.topk(x, 3)
        picked = axisops.gather(x, 1, index)
        taken = axisops.take_along_axis(x, index, axis=1)
        assert_same_bits(to_numpy(top.values.detach()), want_top.values)
        assert_same_bits(to_numpy(top.indices), want_top.indices)
        assert_same_bits(to_numpy(picked.detach()), want_gather)
        assert_same_bits(to_numpy(taken.detach()), want_taken)
        return len(calls)

    assert run() == 0  # plain eager: the kernels directly, the same bits
    with torch.no_grad():
        x.requires_grad_(True)
        assert run() == 0  # nothing to record
    assert run() == 3  # autograd records the operators
    x.requires_grad_(False)
    with Recorder():
        assert run() == 3
    with torch.profiler.profile():
        assert run() == 3  # profiles name the operators
    with PassThrough():
        assert run() == 3


@pytest.mark.parametrize("index_dtype", [torch.int32, torch.uint8, torch.uint16, torch.uint32,
                                         torch.uint64])
def test_index_dtypes_are_the_same_with_and_without_the_operator(index_dtype):
    x = to_torch(tie_heavy(np.float32, (3, 200), 5, width=None))
    direct = axisops.topk(x, 4, index_dtype=index_dtype)
    through = axisops.topk(x.clone().requires_grad_(), 4, index_dtype=index_dtype)
    assert direct.indices.dtype == through.indices.dtype == index_dtype
    assert torch.equal(direct.indices.to(torch.int64), through.indices.to(torch.int64))
    want = axisops.topk(to_numpy(x), 4, backend="numpy").indices
    assert_same_bits(to_numpy(direct.indices).astype(np.int64), want)


def test_unobserved_sees_every_observer():
    from axisops.adapters.torch import unobserved

    x = torch.zeros(3)
    assert unobserved(x)
    assert not unobserved(torch.nn.Parameter(torch.zeros(3), requires_grad=False))  # a subclass
    with torch.enable_grad():
        assert not unobserved(torch.zeros(3, requires_grad=True))
        assert unobserved(torch.zeros(3, requires_grad=True), grad_possible=False)
    with torch.autograd.forward_ad.dual_level():
        assert not unobserved(x)
    with torch.autograd.profiler_legacy.profile():
        assert not unobserved(x)
    with torch.device("cpu"):  # a torch function mode
        assert not unobserved(x)
    seen = []
    torch.func.vmap(lambda t: seen.append(unobserved(t)) or t)(torch.zeros(2, 3))
    with warnings.catch_warnings():  # torch 2.13 deprecates jit.trace; it still exists
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.jit.trace(lambda t: seen.append(unobserved(t)) or t * 1, (x,), check_trace=False)
    torch.compile(lambda t: seen.append(unobserved(t)) or t + 1, backend="eager")(x)
    assert seen == [False, False, False]


def test_direct_operator_calls_validate_with_the_librarys_errors():
    x = torch.randn(4, 6)
    with pytest.raises(axisops.InvalidArgumentError, match=r"^topk\(\): k=9 is out of range"):
        torch.ops.axisops.topk(x, 9, 1, True, True)
    with pytest.raises(axisops.IndexOutOfRangeError, match=r"^gather\(\): index\[0, 1\]=9"):
        torch.ops.axisops.gather(x, 1, torch.tensor([[0, 9]]))
    with pytest.raises(axisops.IndexOutOfRangeError,
                       match=r"^take_along_axis\(\): indices\[0, 0\]=-7 is out of range for axis 1"):
        torch.ops.axisops.take_along_axis(x, 1, torch.tensor([[-7]]))
    with pytest.raises(axisops.InvalidArgumentError, match=r"backend='dask' does not take torch"):
        torch.ops.axisops.topk(x, 1, 1, True, True, "dask")
    with pytest.raises(axisops.InvalidArgumentError, match=r"backend='nope' is not a backend"):
        torch.ops.axisops.gather(x, 1, torch.tensor([[0]]), "nope")


def test_the_operators_run_the_named_engine(monkeypatch):
    calls = []
    for name in ("cpu", "numpy", "torch"):
        cls = type(engines.get(name))
        real = cls.topk
        monkeypatch.setattr(cls, "topk", lambda self, x, spec, real=real:
                            calls.append(self.name) or real(self, x, spec))
    x = torch.randn(5)
    torch.ops.axisops.topk(x, 2, 0, True, True)  # the default for a CPU tensor
    torch.ops.axisops.topk(x, 2, 0, True, True, "numpy")
    axisops.topk(x.clone().requires_grad_(), 2, backend="torch")  # through the operator
    assert calls == ["cpu", "numpy", "torch"]


def test_cpu_forward_wraps_the_kernel_output_without_a_copy(monkeypatch):
    made = {}
    impl = engines.get("cpu")
    real = type(impl).topk

    def keep(self, x, spec):
        made["out"] = real(self, x, spec)
        return made["out"]

    monkeypatch.setattr(type(impl), "topk", keep)
    r = axisops.topk(torch.randn(50, 40, requires_grad=True), 3)
    assert r.values.data_ptr() == made["out"][0].ctypes.data
    assert r.indices.data_ptr() == made["out"][1].ctypes.data


@pytest.mark.parametrize("dim", [0, 1, 2])
def test_real_outputs_match_the_fake_ones(dim):
    # Compiled code trusts the fake implementations' shapes, dtypes and strides.
    from torch._subclasses.fake_tensor import FakeTensorMode

    x = torch.randn(6, 5, 4).transpose(0, 2)  # (4, 5, 6), not contiguous
    index = torch.ones(2, 5, 3, dtype=torch.int16).transpose(0, 2)  # (3, 5, 2), neither
    calls = [lambda t, i: torch.ops.axisops.topk(t, 2, dim, True, True),
             lambda t, i: (torch.ops.axisops.gather(t, dim, i),),
             lambda t, i: (torch.ops.axisops.take_along_axis(t, dim, i),)]
    for call in calls:
        real = call(x, index)
        with FakeTensorMode() as mode:
            fake = call(mode.from_tensor(x), mode.from_tensor(index))
        for r, f in zip(real, fake):
            assert (r.shape, r.dtype, r.stride()) == (f.shape, f.dtype, f.stride())


# ---- autograd ---------------------------------------------------------------------------------


@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_topk_gradcheck_and_gradgradcheck(dim, largest):
    x = torch.randn(4, 7, dtype=F64, requires_grad=True)
    fn = lambda t: axisops.topk(t, 3, dim, largest=largest).values  # noqa: E731
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_gather_and_take_along_axis_gradcheck_and_gradgradcheck():
    x = torch.randn(3, 5, dtype=F64, requires_grad=True)
    index = torch.tensor([[0, 0, -1, 4], [2, 2, 2, 1]])  # repeats, a negative, a short row dim
    assert gradcheck(lambda t: axisops.gather(t, 1, index), (x,))
    assert gradgradcheck(lambda t: axisops.gather(t, 1, index), (x,))
    row = torch.randn(1, 5, dtype=F64, requires_grad=True)  # broadcast against 3 index rows
    fn = lambda t: axisops.take_along_axis(t, torch.tensor([[4], [0], [4]]), axis=1)  # noqa: E731
    assert gradcheck(fn, (row,))
    assert gradgradcheck(fn, (row,))


@pytest.mark.parametrize("shape, dim, k", [((6, 50), -1, 5), ((30, 4, 3), 0, 30), ((9,), 0, 1)])
def test_topk_gradients_equal_torch_topks_on_tie_free_data(shape, dim, k):
    x = torch.randn(*shape)
    grad = torch.randn(*torch.topk(x, k, dim).values.shape)
    ours, theirs = x.clone().requires_grad_(), x.clone().requires_grad_()
    r, t = axisops.topk(ours, k, dim), torch.topk(theirs, k, dim)
    assert torch.equal(r.values, t.values) and torch.equal(r.indices, t.indices)
    r.values.backward(grad)
    t.values.backward(grad)
    assert torch.equal(ours.grad, theirs.grad)


@pytest.mark.parametrize("dtype", [np.float32, np.float16, np.float64], ids=str)
@pytest.mark.parametrize("largest", [True, False])
def test_topk_gradients_on_tie_heavy_data_scatter_into_the_tie_rules_choice(dtype, largest):
    x = tie_heavy(dtype, (5, 12), 3, width=None)
    want_v, want_i = ref_topk(x, 6, 1, largest)
    t = to_torch(x).requires_grad_()
    r = axisops.topk(t, 6, 1, largest=largest)
    assert_same_bits(to_numpy(r.values.detach()), want_v)
    grad = np.random.default_rng(4).integers(1, 9, size=want_i.shape).astype(dtype)
    r.values.backward(to_torch(grad))
    np.testing.assert_array_equal(t.grad.numpy(), scatter_of(x.shape, 1, want_i, grad).astype(dtype))


def test_gather_gradient_scatter_adds_over_repeats_and_sums_broadcast_dimensions():
    x = torch.randn(2, 1, 4, requires_grad=True)
    index = torch.tensor([[[3, 3, -1, 0]], [[1, 1, 1, 1]]]).expand(2, 3, 4)
    grad = torch.arange(24.0).reshape(2, 3, 4)
    axisops.take_along_axis(x, index, axis=2).backward(grad)
    want = np.zeros((2, 1, 4))
    idx = index.numpy() % 4
    for a, b, c in np.ndindex(2, 3, 4):  # every broadcast row of x's size-1 dimension adds up
        want[a, 0, idx[a, b, c]] += grad[a, b, c].item()
    np.testing.assert_array_equal(x.grad.numpy(), want)
    y = torch.randn(3, 4, requires_grad=True)
    axisops.gather(y, 0, torch.tensor([[2, 2, 0, -3]], dtype=torch.int16)).sum().backward()
    assert y.grad.tolist() == [[0, 0, 1, 1], [0, 0, 0, 0], [1, 1, 0, 0]]


def test_indices_are_int64_without_gradient_and_index_dtype_still_works():
    x = torch.randn(3, 6, requires_grad=True)
    r = axisops.topk(x, 2)
    assert r.indices.dtype == torch.int64 and not r.indices.requires_grad
    for dtype in (torch.int32, torch.uint16, np.uint8):
        r = axisops.topk(x, 2, index_dtype=dtype)
        assert r.indices.tolist() == torch.topk(x, 2).indices.tolist()
        assert r.values.requires_grad
    r.values.sum().backward()
    assert x.grad.sum().item() == 6.0


def test_nothing_is_recorded_under_no_grad_or_without_requires_grad():
    p = torch.randn(4, 5, requires_grad=True)
    with torch.no_grad():
        r = axisops.topk(p, 2)
        g = axisops.gather(p, 1, torch.tensor([[0]]))
    assert r.values.grad_fn is None and not r.values.requires_grad and g.grad_fn is None
    plain = axisops.topk(p.detach(), 2)
    assert plain.values.grad_fn is None and not plain.values.requires_grad


# ---- a mixture-of-experts router -------------------------------------------------------------


def moe_step(topk, logits_in, experts_in, x):
    logits = logits_in.clone().requires_grad_()
    experts = experts_in.clone().requires_grad_()
    scores, chosen = topk(logits, 2)
    weights = torch.softmax(scores, dim=-1)  # (tokens, 2)
    outputs = torch.einsum("td,edh->teh", x, experts)  # every expert on every token
    picked = torch.gather(outputs, 1, chosen[..., None].expand(-1, -1, outputs.shape[-1]))
    loss = ((weights[..., None] * picked).sum(1) ** 2).mean()
    loss.backward()
    return loss.detach(), logits.grad, experts.grad


def test_moe_router_step_equals_the_torch_topk_version():
    g = torch.Generator().manual_seed(7)
    logits, experts, x = (torch.randn(64, 8, generator=g), torch.randn(8, 5, 3, generator=g),
                          torch.randn(64, 5, generator=g))
    ours = moe_step(lambda t, k: axisops.topk(t, k), logits, experts, x)
    drop_in = moe_step(lambda t, k: ax.topk(t, k, dim=-1), logits, experts, x)
    theirs = moe_step(lambda t, k: torch.topk(t, k), logits, experts, x)
    for a, b, c in zip(ours, drop_in, theirs):
        assert torch.equal(a, c) and torch.equal(b, c)


# ---- torch.compile ----------------------------------------------------------------------------


class Counter:
    """A torch.compile backend that counts graphs and runs them through aot_eager."""

    def __init__(self):
        self.graphs = []

    def __call__(self, gm, inputs):
        self.graphs.append(gm)
        return torch._dynamo.lookup_backend("aot_eager")(gm, inputs)


def model(x, index):
    top = axisops.topk(x, 3, 1)
    low = axisops.topk(x, 2, 0, largest=False, index_dtype=torch.int32)
    picked = axisops.gather(x, 1, index)
    taken = axisops.take_along_axis(x, index[:1], axis=1)
    loss = (top.values.nan_to_num() ** 2).sum() + picked.nan_to_num().sum()
    return top, low, picked, taken, loss


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
def test_compiled_results_and_gradients_are_bit_identical_to_eager(dynamic):
    counter = Counter()
    compiled = torch.compile(model, backend=counter, fullgraph=True, dynamic=dynamic)
    for seed, rows in ((0, 6), (1, 9)):  # the second shape: same graph when dynamic
        x = to_torch(tie_heavy(np.float32, (rows, 10), seed, width=None))
        index = torch.tensor([[9, -10, 3, 3]]).expand(rows, 4)
        xe, xc = x.clone().requires_grad_(), x.clone().requires_grad_()
        eager, got = model(xe, index), compiled(xc, index)
        eager[-1].backward()
        got[-1].backward()
        for e, c in zip(torch.utils._pytree.tree_leaves(eager[:-1]),
                        torch.utils._pytree.tree_leaves(got[:-1])):
            assert e.dtype == c.dtype
            assert_same_bits(to_numpy(c.detach()), to_numpy(e.detach()))
        assert_same_bits(to_numpy(xc.grad), to_numpy(xe.grad))
    assert len(counter.graphs) == (1 if dynamic else 2)
    targets = {str(n.target) for n in counter.graphs[0].graph.nodes if n.op == "call_function"}
    assert {"axisops.topk.default", "axisops.gather.default",
            "axisops.take_along_axis.default"} <= targets


def test_compile_needs_no_warm_registry_and_runs_the_thread_pool(monkeypatch):
    # The first axisops call of a program may be inside torch.compile, where
    # Dynamo cannot trace the registry's discovery (its lock, module imports).
    from axisops import adapters
    from axisops.engines import blocks

    monkeypatch.setattr(adapters, "_by_family", {})
    monkeypatch.setattr(blocks, "loaded", {})
    monkeypatch.setattr(blocks, "_by_type", {})
    monkeypatch.setattr(axisops.config, "_num_threads", 2)
    from axisops import _core

    x = torch.randn(512, 300)
    fn = torch.compile(lambda t: axisops.topk(t, 4).values.sum(1), backend="aot_eager",
                       fullgraph=True)
    before = _core.kernels.pool_jobs()
    assert torch.equal(fn(x), torch.topk(x, 4).values.sum(1))
    assert _core.kernels.pool_jobs() > before  # the kernels ran on the pool, outside tracing


def test_errors_are_raised_while_tracing_with_the_librarys_messages():
    x = torch.randn(4, 6)
    with pytest.raises(axisops.InvalidArgumentError,
                       match=r"^topk\(\): k=7 is out of range for axis 1 of size 6"):
        torch.compile(lambda t: axisops.topk(t, 7), backend="eager")(x)
    # fullgraph=True: Dynamo reports every exception raised while tracing as
    # Unsupported, with the library's message as first raised (before the public
    # function's boundary adds its name) and the user-code traceback, which names it
    # (torch 2.11 quotes the message as "InvalidArgumentError((ConstantVariable(str: '...";
    # torch 2.4 names the error's class and the traceback, not the message).
    with pytest.raises(torch._dynamo.exc.Unsupported,
                       match=r"(?s)InvalidArgumentError.*api\.py\", line \d+, in topk\n") as got:
        torch.compile(lambda t: axisops.topk(t, 1, axis=2), backend="eager", fullgraph=True)(x)
    if torch.__version__ >= "2.11":
        assert re.search(r"InvalidArgumentError\([^']{0,40}'axis=2 is out of range for an "
                         r"array of 2 dimensions", str(got.value))
    with pytest.raises(axisops.IndexOutOfRangeError, match=r"^gather\(\): index\[1, 0\]=6"):
        torch.compile(lambda t, i: axisops.gather(t, 1, i), backend="aot_eager",
                      fullgraph=True)(x, torch.tensor([[0], [6]]))


# ---- axisops.torch ----------------------------------------------------------------------------


def test_drop_ins_take_torchs_signatures_and_keywords():
    x = torch.tensor([[1.0, 3.0, 3.0, float("nan")], [0.0, -0.0, 2.0, 2.0]])
    r = ax.topk(input=x, k=2, dim=1, largest=True, sorted=True)
    assert type(r) is torch.return_types.topk and r.values is r[0] and r.indices is r[1]
    assert r.indices.tolist() == [[3, 1], [2, 3]]
    assert ax.topk(x, 2, largest=False).indices.tolist() == [[0, 1], [0, 1]]
    assert ax.topk(x, 1, 0).indices.tolist() == [[0, 0, 0, 0]]
    index = torch.tensor([[0, 0], [3, 1]])
    assert torch.equal(ax.gather(input=x, dim=1, index=index), torch.gather(x, 1, index))
    with pytest.raises(axisops.InvalidArgumentError,
                       match=r"^topk\(\): input is a list, not a torch\.Tensor"):
        ax.topk([1.0, 2.0], 1)
    with pytest.raises(axisops.InvalidArgumentError, match=r"^gather\(\): input is a ndarray"):
        ax.gather(np.zeros((1, 1)), 0, index)


def test_drop_ins_compile_and_differentiate():
    x = torch.randn(5, 8, requires_grad=True)
    fn = torch.compile(lambda t: ax.gather(t, 1, ax.topk(t, 2, dim=1).indices).sum(),
                       backend="aot_eager", fullgraph=True)
    fn(x).backward()
    assert x.grad.sum().item() == 10.0
    assert torch.equal(x.grad, torch.zeros_like(x).scatter(1, torch.topk(x, 2).indices, 1.0))


# ---- what eager programs do not pay for --------------------------------------------------------


def test_eager_calls_with_autograd_load_neither_dynamo_nor_ml_dtypes():
    # torch._dynamo takes seconds to import (and imports Triton); ml_dtypes half a second.
    code = ("import sys, torch; from axisops import torch as ax; "
            "ax.topk(torch.zeros(3, requires_grad=True), 1).values.sum().backward(); "
            "ax.gather(torch.zeros(2, 2), 1, torch.tensor([[1]])); "
            "print(sorted(m for m in ('torch._dynamo', 'ml_dtypes', 'triton') if m in sys.modules))")
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_tensor_that_requires_grad_keeps_autograd_without_import_axisops_torch():
    # The runner routes the call to the axisops:: operator, importing it on first use.
    code = ("import sys, torch, axisops; assert 'axisops.torch' not in sys.modules; "
            "x = torch.tensor([[3.0, 1.0, 2.0]], requires_grad=True); "
            "axisops.topk(x, 2).values.sum().backward(); "
            "axisops.sort(x).sum().backward(); print(x.grad.tolist())")
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[[2.0, 1.0, 2.0]]"


def test_the_dtype_lookup_carries_the_mark_torch_compiler_assume_constant_result_sets():
    # The mark is set by hand (the function that sets it imports Dynamo); torch.compile
    # relies on it in a fresh process (see test_torch_compile_fresh.py).
    from axisops.kernels.torch.dtypes import numpy_dtype

    probe = torch.compiler.assume_constant_result(lambda: 0)
    marks = {name for name in vars(probe) if name.startswith("_dynamo")}
    assert marks and all(getattr(numpy_dtype, name) == getattr(probe, name) for name in marks)
