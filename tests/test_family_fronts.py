"""The selection family's torch and JAX fronts: drop-ins, operators, autograd, jit/vmap/grad.

The torch x {cpu, torch, triton} and jax x cpu pairs run the contract's tables in
test_contract.py (samples.SELECTING); this file holds what those tables do not:
``axisops.torch``'s signatures, result types and ``out=`` rules against torch's own
functions (on tie-free data, where torch's answer is the contract's), the
``axisops::`` family operators, gradients (gradcheck with forward AD, torch.func,
jax.grad), and the jitted ``"jax"`` engine on every dtype, both its CPU host path and
its ``lax`` path (the one other devices run), against the plain-Python oracle.
"""

import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from torch.autograd import gradcheck, gradgradcheck
from torch.utils._python_dispatch import TorchDispatchMode

import axisops
from axisops import engines
from axisops import torch as ax
from axisops.validation import ArrayMeta, kthvalue_spec, partition_spec, sort_spec

from oracle import assert_same_bits, ref_kthvalue, ref_partition, ref_sort
from strategies import TOPK_DTYPES, tie_heavy
from torch_helpers import to_numpy, to_torch

F64 = torch.float64


def tie_free(*shape, dtype=F64, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randperm(int(np.prod(shape)), generator=g).reshape(shape).to(dtype) / 7


# ---- torch drop-ins: signatures, result types, out= --------------------------------------------


def test_drop_ins_return_torchs_result_types_and_answers_on_tie_free_data():
    x = tie_free(4, 7)
    for got, want in [
        (ax.sort(x), torch.sort(x)),
        (ax.sort(x, 0, True), torch.sort(x, 0, True)),
        (ax.sort(input=x, dim=0, descending=True, stable=False),
         torch.sort(input=x, dim=0, descending=True, stable=False)),
        (ax.kthvalue(x, 3), torch.kthvalue(x, 3)),
        (ax.kthvalue(input=x, k=2, dim=0, keepdim=True),
         torch.kthvalue(input=x, k=2, dim=0, keepdim=True)),
        (ax.median(x, 1), torch.median(x, 1)),
        (ax.median(input=x, dim=0, keepdim=True), torch.median(input=x, dim=0, keepdim=True)),
    ]:
        assert type(got) is type(want)
        assert torch.equal(got.values, want.values) and torch.equal(got.indices, want.indices)
    assert torch.equal(ax.argsort(x, 0, True), torch.argsort(x, 0, True))
    assert torch.equal(ax.argsort(input=x, dim=1, stable=True),
                       torch.argsort(input=x, dim=1, stable=True))
    assert torch.equal(ax.msort(x), torch.msort(x))
    assert type(ax.median(x)) is torch.Tensor and torch.equal(ax.median(x), torch.median(x))
    scalar = torch.tensor(2.5)  # torch takes dim 0 or -1 of a 0-d tensor
    assert torch.equal(ax.sort(scalar, 0).values, torch.sort(scalar, 0).values)
    assert tuple(ax.kthvalue(scalar, 1, -1)) == tuple(torch.kthvalue(scalar, 1, -1))


def test_stable_false_is_still_stable_and_descending_keeps_index_order():
    x = torch.tensor([5, 7, 5, 7, -0.0, 0.0, float("nan")])
    for stable in (True, False):
        assert ax.sort(x, descending=True, stable=stable).indices.tolist() == [6, 1, 3, 0, 2, 4, 5]
        assert ax.argsort(x, stable=stable).tolist() == [4, 5, 0, 2, 1, 3, 6]
    assert [t.item() for t in ax.kthvalue(x, 2)] == [0.0, 5]
    assert ax.median(torch.tensor([1.0, float("nan"), 3.0])).item() == 3.0  # NaN sorts last


@pytest.mark.parametrize("dtype", TOPK_DTYPES, ids=str)
def test_drop_ins_on_tie_heavy_data_of_every_dtype_match_the_oracle(dtype):
    x = tie_heavy(dtype, (3, 11), 5, width=None)
    t = to_torch(x)
    values, indices = ax.sort(t, 1, descending=True)
    want = ref_sort(x, 1, True)
    assert_same_bits(to_numpy(values), want[0])
    np.testing.assert_array_equal(indices.numpy(), want[1])
    values, indices = ax.kthvalue(t, 2, 0, keepdim=True)
    want = ref_kthvalue(x, 2, 0, True)
    assert_same_bits(to_numpy(values), want[0])
    np.testing.assert_array_equal(indices.numpy(), want[1])
    values, indices = ax.median(t, -1)
    want = ref_kthvalue(x, 6, -1)
    assert_same_bits(to_numpy(values), want[0])
    np.testing.assert_array_equal(indices.numpy(), want[1])
    assert_same_bits(to_numpy(ax.median(t)), ref_kthvalue(x.reshape(-1), 17)[0])


@pytest.mark.parametrize("fill", ["empty", "same shape", "other shape"])
def test_out_is_resized_as_torch_resizes_it(fill):
    x = tie_free(4, 7, dtype=torch.float32)
    shapes = {"empty": (0,), "same shape": (4, 7), "other shape": (5, 5)}
    small = {"empty": (0,), "same shape": (4,), "other shape": (5, 5)}

    def outs():
        return [(torch.full(shapes[fill], 9.0), torch.full(shapes[fill], 9, dtype=torch.int64)),
                (torch.full(small[fill], 9.0), torch.full(small[fill], 9, dtype=torch.int64)),
                (torch.full(small[fill], 9.0), torch.full(small[fill], 9, dtype=torch.int64)),
                torch.full(shapes[fill], 9.0)]

    def run(lib, out):
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            results = [lib.sort(x, out=out[0]), lib.kthvalue(x, 2, out=out[1]),
                       lib.median(x, 1, out=out[2]), lib.msort(x, out=out[3])]
        return results, [str(w.message)[:40] for w in seen]

    ours, theirs = outs(), outs()
    got, got_warnings = run(ax, ours)
    want, want_warnings = run(torch, theirs)
    assert got_warnings == want_warnings
    assert len(got_warnings) == (7 if fill == "other shape" else 0)
    for g, w in zip(got, want):
        assert type(g) is type(w)
    assert got[0].values is ours[0][0] and got[3] is ours[3]
    for o, t in zip([*ours[0], *ours[1], *ours[2], ours[3]],
                    [*theirs[0], *theirs[1], *theirs[2], theirs[3]]):
        assert o.shape == t.shape and o.stride() == t.stride() and torch.equal(o, t)


def test_out_keeps_a_strided_view_of_the_right_shape():
    x = tie_free(12, dtype=torch.float32)
    values, indices = torch.empty(24)[::2], torch.empty(36, dtype=torch.int64)[::3]
    ax.sort(x, out=(values, indices))
    assert values.stride() == (2,) and indices.stride() == (3,)
    want = torch.sort(x)
    assert torch.equal(values, want.values) and torch.equal(indices, want.indices)


def test_out_errors_name_the_argument_and_change_nothing():
    x = torch.randn(3, 4)
    f64 = torch.zeros(2, dtype=F64)
    i64 = torch.empty(0, dtype=torch.int64)
    with pytest.raises(axisops.UnsupportedDTypeError,
                       match=r"^sort\(\): out\[0\] has dtype torch.float64, need torch.float32"):
        ax.sort(x, out=(f64, i64))
    with pytest.raises(axisops.UnsupportedDTypeError, match=r"^kthvalue\(\): out\[1\] has dtype"):
        ax.kthvalue(x, 1, out=(torch.empty(0), torch.zeros(2, dtype=torch.int32)))
    with pytest.raises(axisops.InvalidArgumentError,
                       match=r"^median\(\): out is a Tensor, need a tuple of two tensors"):
        ax.median(x, 1, out=torch.empty(0))
    with pytest.raises(axisops.UnsupportedDTypeError, match=r"^msort\(\): out has dtype"):
        ax.msort(x, out=f64)
    assert f64.tolist() == [0, 0]
    grad = x.clone().requires_grad_()
    for call in (lambda: ax.sort(grad, out=(torch.empty(0), i64)),
                 lambda: ax.kthvalue(grad, 1, out=(torch.empty(0), i64)),
                 lambda: ax.median(grad, out=torch.empty(0)),
                 lambda: ax.msort(grad, out=torch.empty(0))):
        with pytest.raises(axisops.InvalidArgumentError, match=r"out= cannot record autograd"):
            call()
    with torch.no_grad():
        out = (torch.empty(0), torch.empty(0, dtype=torch.int64))
        ax.sort(grad, out=out)
        assert torch.equal(out[0], torch.sort(x).values)


def test_bad_arguments_raise_the_librarys_errors_named_after_the_drop_in():
    x = torch.randn(3, 4)
    cases = [
        (lambda: ax.sort(x, 2), axisops.InvalidArgumentError, r"^sort\(\): axis=2"),
        (lambda: ax.sort(x, stable=1), axisops.InvalidArgumentError, r"^sort\(\): stable=1"),
        (lambda: ax.argsort([1, 2]), axisops.InvalidArgumentError, r"^argsort\(\): input is a"),
        (lambda: ax.kthvalue(x, 0), axisops.InvalidArgumentError, r"^kthvalue\(\): k=0"),
        (lambda: ax.kthvalue(x, 5), axisops.InvalidArgumentError, r"^kthvalue\(\): k=5"),
        (lambda: ax.median(torch.empty(2, 0), 1), axisops.InvalidArgumentError,
         r"^median\(\): x has size 0"),
        (lambda: ax.median(torch.empty(0)), axisops.InvalidArgumentError, r"^median\(\)"),
        (lambda: ax.sort(torch.zeros(3, dtype=torch.complex64)), axisops.UnsupportedDTypeError,
         r"^sort\(\): x has dtype complex64"),
    ]
    for call, error, message in cases:
        with pytest.raises(error, match=message):
            call()


# ---- the operators ----------------------------------------------------------------------------


class Recorder(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.names = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.names.append(str(func))
        return func(*args, **(kwargs or {}))


def test_observed_calls_go_through_the_family_operators_and_plain_ones_do_not(monkeypatch):
    from axisops.torch import library

    used = []
    for name in ("_SORT", "_ARGSORT", "_KTHVALUE", "_PARTITION", "_ARGPARTITION"):
        real = getattr(library, name)
        monkeypatch.setattr(library, name, lambda *a, real=real: used.append(1) or real(*a))
    x = to_torch(tie_heavy(np.float32, (3, 9), 1, width=None))
    calls = {"sort": lambda: axisops.sort(x), "argsort": lambda: axisops.argsort(x),
             "kthvalue": lambda: axisops.kthvalue(x, 2), "median": lambda: axisops.median(x),
             "partition": lambda: axisops.partition(x, 3),
             "argpartition": lambda: axisops.argpartition(x, [1, 4])}
    operator = {"median": "kthvalue"}
    for name, call in calls.items():
        plain = call()
        assert used == []  # plain eager: the engine directly
        with Recorder() as seen:
            observed = call()
        assert f"axisops.{operator.get(name, name)}.default" in seen.names
        for p, o in zip(plain if isinstance(plain, tuple) else (plain,),
                        observed if isinstance(observed, tuple) else (observed,)):
            assert_same_bits(to_numpy(p), to_numpy(o))
        assert used == [1]
        used.clear()


def test_direct_operator_calls_validate_and_real_outputs_match_the_fake_ones():
    x = torch.randn(3, 5)
    with pytest.raises(axisops.InvalidArgumentError, match=r"^kthvalue\(\): k=6"):
        torch.ops.axisops.kthvalue(x, 6, 1, False)
    with pytest.raises(axisops.InvalidArgumentError, match=r"^partition\(\): kth=5"):
        torch.ops.axisops.partition(x, [5], 1)
    from torch._subclasses.fake_tensor import FakeTensorMode

    calls = [lambda t: torch.ops.axisops.sort(t, 0, True),
             lambda t: (torch.ops.axisops.argsort(t, 1, False),),
             lambda t: torch.ops.axisops.kthvalue(t, 2, 0, False),
             lambda t: torch.ops.axisops.kthvalue(t, 2, 1, True),
             lambda t: torch.ops.axisops.partition(t, [1, 3], 1),
             lambda t: (torch.ops.axisops.argpartition(t, [0], 0),)]
    with FakeTensorMode() as mode:
        fake_x = mode.from_tensor(x)
        fakes = [call(fake_x) for call in calls]
    for call, fake in zip(calls, fakes):
        for real, f in zip(call(x), fake):
            assert real.shape == f.shape and real.dtype == f.dtype
            assert real.stride() == f.stride()


def test_the_triton_engine_leaves_the_family_to_torch():
    x = torch.randn(2, 3)
    meta = ArrayMeta((2, 3), np.dtype(np.float32))
    for spec in (sort_spec(meta, 1, False), kthvalue_spec(meta, 1, 1, False),
                 partition_spec(meta, 1, 1)):
        assert not engines.get("triton").supports(x, spec)
        assert engines.get("torch").supports(x, spec)


# ---- autograd, forward AD, torch.func ---------------------------------------------------------


FAMILY_CALLS = {
    "sort": lambda t: ax.sort(t, 1, descending=True).values,
    "sort dim 0": lambda t: ax.sort(t, 0).values,
    "kthvalue": lambda t: ax.kthvalue(t, 3, 1).values,
    "kthvalue keepdim": lambda t: ax.kthvalue(t, 2, 0, keepdim=True).values,
    "median": lambda t: ax.median(t, 1).values,
    "median global": lambda t: ax.median(t),
    "partition": lambda t: axisops.partition(t, [1, -2], axis=1),
}
TORCH_CALLS = {
    "sort": lambda t: torch.sort(t, 1, descending=True).values,
    "sort dim 0": lambda t: torch.sort(t, 0).values,
    "kthvalue": lambda t: torch.kthvalue(t, 3, 1).values,
    "kthvalue keepdim": lambda t: torch.kthvalue(t, 2, 0, keepdim=True).values,
    "median": lambda t: torch.median(t, 1).values,
    "median global": lambda t: torch.median(t),
}


@pytest.mark.parametrize("name", list(FAMILY_CALLS))
def test_gradcheck_with_forward_ad_on_tie_free_data(name):
    x = tie_free(4, 6).requires_grad_()
    fn = FAMILY_CALLS[name]
    assert gradcheck(fn, (x,), check_forward_ad=True)
    if name in ("sort", "kthvalue"):
        assert gradgradcheck(fn, (x,))


@pytest.mark.parametrize("name", list(TORCH_CALLS))
def test_gradients_and_tangents_equal_torchs_own_on_tie_free_data(name):
    x, tangent = tie_free(4, 6, seed=1), tie_free(4, 6, seed=2)
    ours, theirs = FAMILY_CALLS[name], TORCH_CALLS[name]
    w = tie_free(*theirs(x).shape, seed=3)
    assert torch.equal(torch.func.grad(lambda t: (ours(t) * w).sum())(x),
                       torch.func.grad(lambda t: (theirs(t) * w).sum())(x))
    assert torch.equal(torch.func.jvp(ours, (x,), (tangent,))[1],
                       torch.func.jvp(theirs, (x,), (tangent,))[1])
    a = x.clone().requires_grad_()
    (ours(a) * w).sum().backward()
    b = x.clone().requires_grad_()
    (theirs(b) * w).sum().backward()
    assert torch.equal(a.grad, b.grad)
    batch = torch.stack([x, x.flip(0)])
    assert torch.equal(torch.func.vmap(ours)(batch), torch.func.vmap(theirs)(batch))


def test_gradient_on_ties_goes_to_the_tie_rules_choice():
    x = torch.tensor([[2.0, 1.0, 2.0, 1.0, 2.0], [0.0, -0.0, 0.0, 3.0, 0.0]], requires_grad=True)
    ax.kthvalue(x, 3, 1).values.sum().backward()  # the 3rd of the stable order
    want = ref_kthvalue(x.detach().numpy(), 3, 1)[1]
    expected = np.zeros((2, 5))
    expected[[0, 1], want] = 1
    np.testing.assert_array_equal(x.grad.numpy(), expected)
    x.grad = None
    weights = torch.arange(5.0).expand(2, 5)
    (ax.sort(x, 1, descending=True).values * weights).sum().backward()
    order = ref_sort(x.detach().numpy(), 1, True)[1]
    expected = np.zeros((2, 5))
    np.put_along_axis(expected, order, weights.numpy(), 1)
    np.testing.assert_array_equal(x.grad.numpy(), expected)


def test_index_only_operators_under_autograd_forward_ad_and_torch_func():
    x = tie_free(3, 5)
    want, parted = axisops.argsort(x, descending=True), axisops.argpartition(x, [1, 3])
    grad = x.clone().requires_grad_()
    assert not axisops.argsort(grad).requires_grad
    assert not axisops.argpartition(grad, 2).requires_grad
    with torch.autograd.forward_ad.dual_level():
        dual = torch.autograd.forward_ad.make_dual(x, torch.ones_like(x))
        assert torch.equal(axisops.argsort(dual, descending=True), want)
        assert torch.equal(axisops.argpartition(dual, [1, 3]), parted)
    top = torch.func.grad(lambda t: torch.gather(t, 1, axisops.argsort(t, 1, descending=True))
                          [:, 0].sum())(x)
    assert torch.equal(top, torch.nn.functional.one_hot(x.argmax(1), 5).to(F64))


def test_vmap_of_the_operators_equals_a_loop_and_names_the_callers_dim():
    batch = to_torch(tie_heavy(np.float32, (3, 4, 7), 2, width=None))
    calls = [lambda t: tuple(axisops.kthvalue(t, 2, axis=-1)), lambda t: axisops.argsort(t, 0),
             lambda t: tuple(ax.sort(t, 1, descending=True)),
             lambda t: axisops.argpartition(t, [0, 3], axis=1)]
    for call in calls:
        got = torch.func.vmap(call)(batch)
        want = [call(row) for row in batch]
        for g, w in zip(got if isinstance(got, tuple) else (got,),
                        zip(*want) if isinstance(want[0], tuple) else (want,)):
            assert_same_bits(to_numpy(g), to_numpy(torch.stack(list(w))))
    with pytest.raises(axisops.InvalidArgumentError, match=r"axis=2"):
        torch.func.vmap(lambda t: axisops.sort(t, 2))(batch)


def test_compiled_family_results_and_gradients_equal_eager():
    x = tie_free(3, 6, seed=4, dtype=torch.float32)

    def fn(t):
        v, i = ax.sort(t, 1, descending=True)
        m = ax.median(t, 0)
        return v.sum() + m.values.sum() * 2 + ax.kthvalue(t, 4).values.sum(), i, m.indices

    a, b = x.clone().requires_grad_(), x.clone().requires_grad_()
    want = fn(a)
    want[0].backward()
    got = torch.compile(fn, backend="aot_eager", fullgraph=True)(b)
    got[0].backward()
    for g, w in zip(got, want):
        assert torch.equal(g, w)
    assert torch.equal(a.grad, b.grad)


def test_torch_export_with_a_dynamic_axis_runs_the_exported_program():
    class Family(torch.nn.Module):
        def forward(self, x):
            values, indices = ax.sort(x, 1, descending=True)
            # median's k is (n - 1) // 2 + 1 of a symbolic n: no condition on n but n > 0
            return (values, indices, *ax.median(x, 1), ax.median(x),
                    axisops.argpartition(x, [1, 2], axis=1))

    dims = {"x": {1: torch.export.Dim("n", min=3)}}  # kth 2 needs n >= 3
    program = torch.export.export(Family(), (torch.randn(3, 6),), dynamic_shapes=dims)
    y = to_torch(tie_heavy(np.float32, (3, 9), 6, width=None))
    for got, want in zip(program.module()(y), Family()(y)):
        assert_same_bits(to_numpy(got), to_numpy(want))


# ---- JAX --------------------------------------------------------------------------------------


@pytest.fixture
def jax_x64():
    jax = pytest.importorskip("jax")
    with jax.enable_x64(True):
        yield jax


def _family_of(x, lax_path: bool):
    """Every family result of a (3, 11) array, through the public functions (the jax engine
    for tracers: the host path on the CPU) or the lax path, in one program."""
    from axisops.kernels.jax import select

    if not lax_path:
        return (*[axisops.sort(x, 1, descending=d) for d in (False, True)],
                *[axisops.argsort(x, 1, descending=d) for d in (False, True)],
                *axisops.kthvalue(x, 4, 1, keepdims=True), *axisops.median(x, 0),
                axisops.partition(x, [2, -3], 1), axisops.argpartition(x, [2, -3], 1))
    meta = ArrayMeta(x.shape, np.dtype(x.dtype))
    up, down = sort_spec(meta, 1, False), sort_spec(meta, 1, True)
    part = partition_spec(meta, [2, -3], 1)
    return (select.lax_sort(x, up)[0], select.lax_sort(x, down)[0],
            select.lax_sort(x, up)[1], select.lax_sort(x, down)[1],
            *select.lax_kthvalue(x, kthvalue_spec(meta, 4, 1, True)),
            *select.lax_kthvalue(x, kthvalue_spec(meta, 2, 0, False)),
            *select.lax_partition(x, part))


@pytest.mark.parametrize("dtype", TOPK_DTYPES, ids=str)
def test_jitted_jax_engine_host_and_lax_paths_match_the_oracle(jax_x64, dtype):
    import jax.numpy as jnp

    base = tie_heavy(dtype, (11, 11), 9, width=None)[:3]
    up, down = ref_sort(base, 1), ref_sort(base, 1, True)
    want = (up[0], down[0], up[1], down[1], *ref_kthvalue(base, 4, 1, True),
            *ref_kthvalue(base, 2, 0), *ref_partition(base, [2, -3], 1))
    got = jax_x64.jit(lambda x: (*_family_of(x, False), *_family_of(x, True)))(jnp.asarray(base))
    for g, w in zip(got, want + want):
        g = np.asarray(g)
        if w.dtype == np.int64:
            np.testing.assert_array_equal(g, w)
            assert g.dtype == np.int64
        else:
            assert_same_bits(g, w)


def test_jax_vmap_and_grad_on_both_paths(jax_x64):
    jax = jax_x64
    import jax.numpy as jnp

    from axisops.kernels.jax import select

    x = jnp.asarray(np.random.default_rng(0).permutation(24).reshape(2, 3, 4) / 7.0)
    batched = jax.jit(jax.vmap(lambda r: tuple(axisops.kthvalue(r, 2, axis=0))))(x)
    for b in range(2):
        want = axisops.kthvalue(np.asarray(x[b]), 2, axis=0)
        np.testing.assert_array_equal(batched[0][b], want.values)
        np.testing.assert_array_equal(batched[1][b], want.indices)
    w = jnp.arange(24.0).reshape(2, 3, 4)
    meta = ArrayMeta((2, 3, 4), np.dtype(np.float64))
    spec = sort_spec(meta, 2, True)
    for sort in (lambda t: axisops.sort(t, 2, descending=True),
                 lambda t: select.lax_sort(t, spec)[0]):
        grad = jax.jit(jax.grad(lambda t, sort=sort: jnp.sum(sort(t) * w)))(x)
        np.testing.assert_array_equal(grad, jax.grad(lambda t: jnp.sum(-jnp.sort(-t) * w))(x))
    kspec = kthvalue_spec(meta, 2, 1, False)
    for kth in (lambda t: axisops.median(t, 1).values,
                lambda t: select.lax_kthvalue(t, kspec)[0]):
        tangent = jnp.ones_like(x).at[0, 1, 2].set(5.0)
        _, got = jax.jit(lambda t, d, kth=kth: jax.jvp(kth, (t,), (d,)))(x, tangent)
        index = np.asarray(axisops.median(np.asarray(x), 1).indices)
        want = np.take_along_axis(np.asarray(tangent), index[:, None, :], 1)[:, 0, :]
        np.testing.assert_array_equal(got, want)


def test_jax_without_x64_gives_int32_indices():
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    x = jnp.asarray([3.0, 1.0, 2.0, 1.0], jnp.float32)
    for got in (axisops.argsort(x), jax.jit(axisops.argsort)(x),
                axisops.kthvalue(x, 2).indices, jax.jit(lambda t: axisops.median(t).indices)(x)):
        assert got.dtype == jnp.int32
    assert axisops.argsort(x).tolist() == [1, 3, 2, 0]
    assert int(jax.jit(lambda t: axisops.median(t).indices)(x)) == 3
