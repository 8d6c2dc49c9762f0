"""The quantile family's torch and JAX fronts: the drop-ins against torch's own functions, the
``axisops::quantile`` operator (autograd, forward AD, torch.func, vmap, compile, export),
inputs torch refuses, and the ``"jax"`` engine under jit, vmap and grad on both its CPU host
path and its ``lax`` path.  The contract's samples on every pair are in test_contract.py.
"""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from torch.autograd import gradcheck

import axisops
from axisops import torch as ax
from axisops.reference.quantile import quantile as ref_quantile

from oracle import assert_same_bits
from torch_helpers import to_numpy, to_torch

F64 = torch.float64
INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _same(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype and torch.equal(
        a.nan_to_num(0.25), b.nan_to_num(0.25))


# ---- the drop-ins: torch's answers --------------------------------------------------------------


@pytest.mark.parametrize("interpolation", INTERPOLATIONS)
@pytest.mark.parametrize("dtype", [torch.float32, F64])
def test_drop_ins_are_torchs_bit_for_bit_without_nan(interpolation, dtype):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(5, 37, generator=g, dtype=dtype)
    x[:, ::5] = x[:, 1:2]  # ties
    for q in (0.0, 0.3, 1.0, torch.tensor([0.0, 1e-30, 0.5, 0.9999, 1.0], dtype=dtype),
              torch.tensor(0.7, dtype=dtype)):
        for kw in ({"dim": 1}, {"dim": 0, "keepdim": True}, {}, {"keepdim": True}):
            for ours, theirs in ((ax.quantile, torch.quantile),
                                 (ax.nanquantile, torch.nanquantile)):
                got = ours(x, q, interpolation=interpolation, **kw)
                want = theirs(x, q, interpolation=interpolation, **kw)
                assert got.shape == want.shape and torch.equal(
                    got.view(torch.int64 if dtype == F64 else torch.int32),
                    want.view(torch.int64 if dtype == F64 else torch.int32)), (q, kw)


def test_nanquantile_and_nanmedian_skip_nan_as_torchs_do():
    g = torch.Generator().manual_seed(1)
    x = torch.randn(6, 40, generator=g)
    x[x > 0.8] = float("nan")
    x[3] = float("nan")
    q = torch.tensor([0.05, 0.5, 0.95])
    for interpolation in INTERPOLATIONS:
        assert _same(ax.nanquantile(x, q, 1, interpolation=interpolation),
                     torch.nanquantile(x, q, 1, interpolation=interpolation))
    got, want = ax.nanmedian(x, 1), torch.nanmedian(x, 1)
    assert type(got) is type(want)
    assert _same(got.values, want.values)
    rows = [0, 1, 2, 4, 5]  # the all-NaN row: NaN, at the stable order's lower median
    assert torch.equal(got.indices[rows], want.indices[rows]) and got.indices[3] == 19
    assert _same(ax.nanmedian(x), torch.nanmedian(x))


def test_nan_follows_the_contract_in_quantile():
    x = torch.tensor([[1.0, float("nan"), 2.0, 3.0]])
    assert torch.isnan(torch.quantile(x, 0.25, 1)).all()
    assert ax.quantile(x, 0.25, 1).tolist() == [1.75]  # of [1, 2, 3, nan]


def test_any_size_torch_refuses():
    x = torch.arange(2**24 + 3, dtype=torch.float32).flip(0)
    with pytest.raises(RuntimeError, match="too large"):
        torch.quantile(x, 0.5)
    got = ax.quantile(x, torch.tensor([0.0, 0.5, 1.0]))
    assert got.tolist() == [0.0, float((2**24 + 2) * 0.5), float(2**24 + 2)]
    assert axisops.quantile(x, [0.0, 1.0]).tolist() == [0.0, 2**24 + 2]


def test_drop_in_arguments_and_out():
    x = torch.randn(3, 4)
    with pytest.raises(axisops.UnsupportedDTypeError, match="float32, float64"):
        ax.quantile(x.half(), 0.5)
    with pytest.raises(axisops.UnsupportedDTypeError, match=r"q has dtype torch\.float64"):
        ax.quantile(x, torch.tensor([0.5], dtype=F64))
    with pytest.raises(axisops.InvalidArgumentError, match="2 dimensions"):
        ax.quantile(x, torch.tensor([[0.5]]))
    with pytest.raises(axisops.InvalidArgumentError, match="interpolation"):
        ax.quantile(x, 0.5, interpolation="hazen")
    with pytest.raises(RuntimeError, match=r"nanquantile\(\): q=1.5 is out of range"):
        ax.nanquantile(x, 1.5)
    out = torch.empty(0)
    assert ax.quantile(x, 0.5, 1, out=out) is out
    assert torch.equal(out, torch.quantile(x, 0.5, 1))


# ---- autograd, torch.func, compile, export ---------------------------------------------------


def _tie_free(*shape, seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randperm(int(np.prod(shape)), generator=g).reshape(shape).to(F64) / 7)


CALLS = {
    "drop-in linear": (lambda t: ax.quantile(t, torch.tensor([0.2, 0.9], dtype=F64), 1),
                       lambda t: torch.quantile(t, torch.tensor([0.2, 0.9], dtype=F64), 1)),
    "drop-in midpoint": (lambda t: ax.quantile(t, 0.4, 0, interpolation="midpoint"),
                         lambda t: torch.quantile(t, 0.4, 0, interpolation="midpoint")),
    "drop-in nearest": (lambda t: ax.nanquantile(t, 0.4, 1, True, interpolation="nearest"),
                        lambda t: torch.nanquantile(t, 0.4, 1, True, interpolation="nearest")),
    "drop-in global": (lambda t: ax.quantile(t, 0.35), lambda t: torch.quantile(t, 0.35)),
    "nanmedian": (lambda t: ax.nanmedian(t, 1).values, lambda t: torch.nanmedian(t, 1).values),
}


@pytest.mark.parametrize("name", list(CALLS))
def test_gradients_and_tangents_equal_torchs(name):
    ours, theirs = CALLS[name]
    x, tangent = _tie_free(4, 6, seed=1), _tie_free(4, 6, seed=2)
    w = _tie_free(*theirs(x).shape, seed=3)
    assert torch.allclose(torch.func.grad(lambda t: (ours(t) * w).sum())(x),
                          torch.func.grad(lambda t: (theirs(t) * w).sum())(x))
    assert torch.allclose(torch.func.jvp(ours, (x,), (tangent,))[1],
                          torch.func.jvp(theirs, (x,), (tangent,))[1])
    a, b = x.clone().requires_grad_(), x.clone().requires_grad_()
    (ours(a) * w).sum().backward()
    (theirs(b) * w).sum().backward()
    assert torch.allclose(a.grad, b.grad)
    assert gradcheck(ours, (x.clone().requires_grad_(),), check_forward_ad=True)


def test_public_quantile_gradient_goes_to_the_order_statistics_it_reads():
    x = torch.tensor([[4.0, 1.0, 3.0, 2.0, 3.0]], dtype=F64, requires_grad=True)
    axisops.quantile(x, [0.3, 0.5], method="hazen").sum().backward()
    # hazen: n*q - 0.5 - ... -> virtual 1.0 and 2.0 of [1, 2, 3(2), 3(4), 4]
    plain = axisops.quantile(x.detach().numpy(), [0.3, 0.5], method="hazen")
    assert plain.tolist() == [[2.0], [3.0]]
    assert x.grad.tolist() == [[0.0, 0.0, 1.0, 1.0, 0.0]]
    y = _tie_free(3, 5).requires_grad_()
    assert gradcheck(lambda t: axisops.quantile(t, [0.1, 0.77], 1, method="median_unbiased"),
                     (y,), check_forward_ad=True)
    assert gradcheck(lambda t: axisops.nanquantile(t, 0.6, 0, keepdims=True), (y,),
                     check_forward_ad=True)


def test_vmap_equals_a_loop():
    batch = _tie_free(3, 4, 7)
    for call in (lambda t: axisops.quantile(t, [0.2, 0.7], 0),
                 lambda t: ax.nanquantile(t, torch.tensor([0.5, 0.6], dtype=F64), 1),
                 lambda t: tuple(axisops.nanmedian(t, 1))):
        got = torch.func.vmap(call)(batch)
        want = [call(row) for row in batch]
        for g, w in zip(got if isinstance(got, tuple) else (got,),
                        zip(*want) if isinstance(want[0], tuple) else (want,)):
            assert torch.equal(g, torch.stack(list(w)))


def test_compiled_results_and_gradients_equal_eager():
    x = _tie_free(3, 8, seed=4).float()

    def fn(t):
        a = ax.quantile(t, torch.tensor([0.1, 0.5]), 1)
        b = axisops.nanquantile(t, 0.25, 0, method="weibull")
        m = ax.nanmedian(t, 1)
        return a.sum() + b.sum() * 2 + m.values.sum(), m.indices

    a, b = x.clone().requires_grad_(), x.clone().requires_grad_()
    want = fn(a)
    want[0].backward()
    got = torch.compile(fn, backend="aot_eager", fullgraph=True)(b)
    got[0].backward()
    for g, w in zip(got, want):
        assert torch.equal(g, w)
    assert torch.equal(a.grad, b.grad)


def test_torch_export_with_a_dynamic_axis_runs_the_exported_program():
    class Quantiles(torch.nn.Module):
        def forward(self, x):
            return (ax.quantile(x, torch.tensor([0.25, 0.75]), 1),
                    axisops.nanquantile(x, [0.5, 0.9], 1, method="hazen"),
                    *ax.nanmedian(x, 1))

    dims = {"x": {1: torch.export.Dim("n", min=2)}}
    program = torch.export.export(Quantiles(), (torch.randn(3, 6),), dynamic_shapes=dims)
    y = torch.randn(3, 11)
    y[1, 3] = float("nan")
    for got, want in zip(program.module()(y), Quantiles()(y)):
        assert_same_bits(to_numpy(got), to_numpy(want))


def test_observed_and_plain_calls_give_the_same_bits():
    x = to_torch(np.random.default_rng(5).standard_normal((4, 9)).astype(np.float32))
    x[0, 2] = float("nan")
    for method in ("linear", "hazen", "nearest", "averaged_inverted_cdf"):
        for fn in (axisops.quantile, axisops.nanquantile):
            plain = fn(x, [0.0, 0.3, 1.0], 1, method=method)
            observed = fn(x.clone().requires_grad_(), [0.0, 0.3, 1.0], 1, method=method)
            assert_same_bits(to_numpy(observed.detach()), to_numpy(plain))
            torch_engine = fn(x, [0.0, 0.3, 1.0], 1, method=method, backend="torch")
            assert_same_bits(to_numpy(torch_engine), to_numpy(plain))


# ---- JAX ----------------------------------------------------------------------------------------


@pytest.fixture
def jax_x64():
    jax = pytest.importorskip("jax")
    with jax.enable_x64(True):
        yield jax


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "uint16", "float16"])
def test_jitted_jax_host_and_lax_paths_match_the_oracle(jax_x64, dtype):
    import jax.numpy as jnp

    from axisops.kernels.jax.quantile import lax_quantile
    from axisops.rules.quantile import quantile_spec
    from axisops.validation import ArrayMeta

    from strategies import tie_heavy

    base = tie_heavy(np.dtype(dtype), (4, 13), 3, width=None)
    if base.dtype.kind == "f":
        base[base != base] = 1.5  # NaN-free: the lax path's interpolation is compared by value
    for method in ("linear", "hazen", "lower", "inverted_cdf", "midpoint"):
        for skipnan in (False, True):
            q = [0.0, 0.1, 0.5, 1.0]
            want = ref_quantile(base, q, 1, method, skipnan=skipnan)
            fn = axisops.nanquantile if skipnan else axisops.quantile
            host = jax_x64.jit(lambda t, fn=fn, m=method, q=q: fn(t, q, 1, method=m))(
                jnp.asarray(base))
            assert_same_bits(np.asarray(host), want)
            spec = quantile_spec(ArrayMeta(base.shape, base.dtype), q, 1, method, False, skipnan)
            lax_path = jax_x64.jit(lambda t, s=spec: lax_quantile(t, s))(jnp.asarray(base))
            if method in ("lower", "inverted_cdf") or base.dtype.kind != "f":
                assert_same_bits(np.asarray(lax_path), want)
            else:  # XLA may fuse the multiply and the add, and flushes subnormals
                tiny = np.finfo(base.dtype).tiny
                np.testing.assert_allclose(np.asarray(lax_path), want, rtol=1e-6, atol=tiny)


def test_jax_vmap_and_grad_on_both_paths(jax_x64):
    jax = jax_x64
    import jax.numpy as jnp

    from axisops.kernels.jax.quantile import lax_quantile
    from axisops.rules.quantile import quantile_spec
    from axisops.validation import ArrayMeta

    x = jnp.asarray(np.random.default_rng(0).permutation(24).reshape(2, 3, 4) / 7.0)
    x = x.at[1, 1, 2].set(jnp.nan)
    batched = jax.jit(jax.vmap(lambda r: axisops.nanquantile(r, [0.2, 0.6], 1)))(x)
    for b in range(2):
        want = axisops.nanquantile(np.asarray(x[b]), [0.2, 0.6], 1)
        np.testing.assert_array_equal(batched[b], want)
    spec = quantile_spec(ArrayMeta((2, 3, 4), np.dtype(np.float64)), [0.2, 0.6], 2, "linear",
                         False, True)
    lax_batched = jax.jit(jax.vmap(lambda r: lax_quantile(
        r, spec.replace(shape=(3, 4), axis=1))))(x)
    np.testing.assert_allclose(lax_batched, batched)
    t = torch.tensor(np.asarray(x), requires_grad=True)
    axisops.nanquantile(t, [0.2, 0.6], 2).sum().backward()
    for fn in (lambda r: axisops.nanquantile(r, [0.2, 0.6], 2),
               lambda r: lax_quantile(r, spec)):
        grad = jax.jit(jax.grad(lambda r, fn=fn: jnp.sum(fn(r))))(x)
        np.testing.assert_allclose(np.asarray(grad), t.grad.numpy(), atol=1e-12)


def test_jax_without_x64_narrows_64_bit_results():
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    x = jnp.asarray([3.0, 1.0, 2.0, 1.5], jnp.float32)
    assert axisops.quantile(x, 0.3).dtype == jnp.float32  # NumPy's float32 too
    for got in (axisops.quantile(x, [0.3, 0.6]), jax.jit(lambda t: axisops.quantile(t, [0.3]))(x)):
        assert got.dtype == jnp.float32  # NumPy's float64, rounded
    want = np.quantile(np.asarray(x), [0.3]).astype(np.float32)
    assert np.asarray(jax.jit(lambda t: axisops.quantile(t, [0.3]))(x)).tolist() == want.tolist()
    assert int(jax.jit(lambda t: axisops.nanmedian(t).indices)(x)) == 3
