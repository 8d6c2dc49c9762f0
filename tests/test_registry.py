"""The registry: the (adapter, engine) pair per call, defaults, overrides, third-party engines."""

import importlib.util
import subprocess
import sys

import numpy as np
import pytest

import axisops
from axisops import adapters, engines, registry
from axisops.engines.base import Engine
from axisops.engines.numpy import NumpyEngine

pytestmark = pytest.mark.usefixtures("restore_registry")  # engines registered here go after


def test_backends_lists_the_oracle():
    names = axisops.backends()
    assert "numpy" in names
    assert all(isinstance(n, str) for n in names)


def test_backends_stays_a_function_after_importing_the_fronts():
    pytest.importorskip("torch")
    import axisops.torch  # a subpackage, unlike "backends": no name to shadow

    assert callable(axisops.backends) and importlib.util.find_spec("axisops.backends") is None


def test_default_for_numpy_is_the_highest_priority_available():
    adapter, chosen = adapters.of(np.zeros(3)), registry.choose(np.zeros(3))
    candidates = [e for e in engines.all_engines() if e.array_type == "numpy" and e.available()]
    assert adapter.name == "numpy"
    assert chosen.priority == max(e.priority for e in candidates)


def test_lists_and_unknown_types_belong_to_the_numpy_adapter():
    assert registry.choose([1, 2, 3]) == registry.choose(np.zeros(1))
    assert adapters.of([1, 2, 3]) == adapters.of(np.zeros(1))
    assert adapters.of(np.float32(1)).name == "numpy"


def test_override_selects_the_named_engine():
    assert registry.choose(np.zeros(3), "numpy").name == "numpy"


def test_dlpack_is_not_a_backend_name_any_more():
    with pytest.raises(axisops.InvalidArgumentError, match=r"backend='dlpack' is not a backend"):
        axisops.topk(np.zeros(3), 1, backend="dlpack")


class _Counting(NumpyEngine):
    name = "counting-test"
    priority = -100
    calls = 0

    def topk(self, x, spec):
        type(self).calls += 1
        return super().topk(x, spec)


def test_register_a_third_party_backend():
    axisops.register_backend(_Counting(), replace=True)
    assert "counting-test" in axisops.backends()
    r = axisops.topk([1, 3, 2], 1, backend="counting-test")
    assert r.indices.tolist() == [1] and _Counting.calls == 1
    with pytest.raises(axisops.InvalidArgumentError, match="exists"):
        axisops.register_backend(_Counting())
    with pytest.raises(axisops.InvalidArgumentError,
                       match=r"^register_backend\(\): .* is not a named axisops Engine"):
        axisops.register_backend(object())


class _Missing(NumpyEngine):
    name = "missing-test"
    requires = ("a_module_that_is_not_installed_anywhere",)
    extra = "nothing"


def test_unavailable_backend_is_refused_with_the_install_hint():
    axisops.register_backend(_Missing(), replace=True)
    assert "missing-test" not in axisops.backends()
    with pytest.raises(axisops.InvalidArgumentError,
                       match=r"backend='missing-test' is not available here: "
                             r"a_module_that_is_not_installed_anywhere is not installed "
                             r"\(pip install 'axisops\[nothing\]'\)"):
        axisops.topk([1], 1, backend="missing-test")


class _OtherFamily(Engine):
    name = "other-family-test"
    array_type = "somewhere_else"

    def topk(self, x, spec):
        raise AssertionError

    def gather(self, x, index, spec):
        raise AssertionError


def test_backend_of_another_family_is_refused():
    axisops.register_backend(_OtherFamily(), replace=True)
    with pytest.raises(axisops.InvalidArgumentError,
                       match=r"backend='other-family-test' does not take numpy\.ndarray inputs "
                             r"\(backends for them: .*numpy"):
        axisops.topk(np.zeros(2), 1, backend="other-family-test")


def test_import_is_light():
    code = ("import sys, axisops; heavy = {'numba', 'torch', 'dask', 'triton', 'jax', "
            "'ml_dtypes', 'distributed', 'zarr', 'tqdm', 'matplotlib'}; "
            "print(sorted(heavy & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_first_call_imports_only_what_the_chosen_backend_needs():
    code = ("import sys, numpy as np, axisops; axisops.topk(np.arange(5), 2); "
            "print(sorted({'torch', 'dask', 'triton', 'jax', 'distributed'} & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_a_registered_engine_is_the_one_the_pieces_of_a_call_run_on():
    """StreamingTopK picks once, then every block and merge runs the engine it was given."""
    calls = []

    class Mine(NumpyEngine):
        name = "mine-pieces"
        priority = -5

        def topk(self, x, spec):
            calls.append(x.shape)
            return super().topk(x, spec)

    axisops.register_backend(Mine())
    stream = axisops.StreamingTopK(2, backend="mine-pieces")
    for block in ([5, 1, 7], [2, 9, 4], [8]):
        stream.update(block)
    assert stream.result().indices.tolist() == [4, 6] and len(calls) >= 3


def _counting_picks(monkeypatch):
    """Every adapter lookup and every choice of an engine, from here on: ``("of", type)``
    and ``("choose", type)`` of the array each was made for."""
    calls = []
    real_of, real_choose = adapters.of, registry.choose

    def of(x):
        calls.append(("of", type(x).__name__))
        return real_of(x)

    def choose(x, *args, **kwargs):
        calls.append(("choose", type(x).__name__))
        return real_choose(x, *args, **kwargs)

    monkeypatch.setattr(adapters, "of", of)
    monkeypatch.setattr(registry, "choose", choose)
    return calls


def _once(name):
    """One adapter lookup and one choice, for arrays of type ``name``."""
    return [("of", name), ("choose", name)]


def test_each_call_picks_its_adapter_and_engine_once(monkeypatch, tmp_path):
    """One adapter lookup and one choice per call; nothing below the runner asks again:
    not the merges of a stream, not the boxes of a file job, not the tasks of a Dask
    graph."""
    calls = _counting_picks(monkeypatch)
    x = np.random.default_rng(0).random((6, 40))
    for call in (lambda: axisops.topk(x, 3),
                 lambda: axisops.gather(x, 1, [[0], [1], [2], [3], [4], [5]]),
                 lambda: axisops.take_along_axis(x, np.zeros((1, 2), np.int64), axis=1),
                 lambda: axisops.sort(x), lambda: axisops.argsort(x, backend="numpy"),
                 lambda: axisops.kthvalue(x, 2), lambda: axisops.median(x, 0),
                 lambda: axisops.partition(x, [1, 3]), lambda: axisops.argpartition(x, 2),
                 lambda: axisops.top_k(x, 2, mode="smallest")):
        calls.clear()
        call()
        assert calls == _once("ndarray")
    calls.clear()
    stream = axisops.StreamingTopK(3)
    for start in range(0, 40, 7):
        stream.update(x[:, start:start + 7])
    stream.result()
    assert calls == _once("ndarray")  # once, when made
    calls.clear()
    np.save(tmp_path / "x.npy", x)
    axisops.topk_file(tmp_path / "x.npy", 3, chunk_bytes=64)
    assert calls == _once("ndarray")
    da = pytest.importorskip("dask.array")
    calls.clear()
    import dask

    with dask.config.set(scheduler="synchronous"):
        values = axisops.topk(da.from_array(x, chunks=(3, 9)), 3).values.compute()
    assert calls == _once("Array") and values.shape == (6, 3)


class _Kernels:
    """The compiled core's kernels, recording the ``k`` each top-k reaches them with."""

    def __init__(self, real):
        self.real, self.k = real, []

    def topk(self, *args):
        self.k.append(args[3])
        return self.real.topk(*args)

    def __getattr__(self, name):
        return getattr(self.real, name)


def test_k_of_a_torch_cpu_tensor_reaches_the_kernel_passing_the_registry_once(monkeypatch):
    """``axisops.topk`` on a CPU tensor: the registry chooses "cpu" once; the kernel gets k.
    A call torch observes (autograd) goes through the ``axisops::topk`` operator, which
    runs the engine the runner chose, by its name: no second lookup, no second choice."""
    torch = pytest.importorskip("torch")
    from axisops.engines import cpu

    calls = _counting_picks(monkeypatch)
    kernels = _Kernels(cpu._kernels())
    monkeypatch.setattr(cpu, "_kernels", lambda: kernels)
    x = torch.randn(4, 30)
    for t in (x, x.clone().requires_grad_()):  # the engine directly; the operator
        calls.clear()
        indices = axisops.topk(t, 7).indices
        assert calls == _once("Tensor") and kernels.k[-1] == 7
        assert torch.equal(indices, torch.topk(x, 7).indices)
    calls.clear()
    torch.ops.axisops.topk(x, 5, 1, True, True)  # the operator as a front: it chooses
    assert calls == [("choose", "Tensor")] and kernels.k[-1] == 5
    calls.clear()
    axisops.topk(x.clone().requires_grad_(), 3, backend="cpu")
    assert calls == _once("Tensor") and kernels.k[-1] == 3
    from axisops import torch as ax

    for drop_in in (lambda t: ax.topk(t, 2), lambda t: ax.sort(t),
                    lambda t: ax.gather(t, 1, torch.zeros(4, 1, dtype=torch.int64),
                                        sparse_grad=True)):
        for t in (x, x.clone().requires_grad_()):
            calls.clear()
            drop_in(t)
            assert calls == _once("Tensor")


def test_jax_arrays_and_traced_calls_pass_the_registry_once(monkeypatch):
    """Concrete CPU arrays: "cpu" on a DLPack view.  Traced: the "jax" engine, whose
    CPU program calls back the NumPy engine the registry gave it (the "cpu" engine)."""
    jax = pytest.importorskip("jax")
    from axisops.engines import cpu

    calls = _counting_picks(monkeypatch)
    kernels = _Kernels(cpu._kernels())
    monkeypatch.setattr(cpu, "_kernels", lambda: kernels)
    x = jax.numpy.arange(40.0).reshape(2, 20)
    assert axisops.topk(x, 4).indices.tolist() == [[19, 18, 17, 16]] * 2
    assert calls == _once("ArrayImpl") and kernels.k == [4]
    calls.clear()
    got = jax.jit(lambda a: axisops.topk(a, 6).indices)(x)
    assert got.tolist() == [list(range(19, 13, -1))] * 2
    assert [c for c, _ in calls] == ["of", "choose"] and kernels.k == [4, 6]


def _counting(monkeypatch, module, name, counts):
    real = getattr(module, name)

    def counted(*args, **kwargs):
        counts[name] = counts.get(name, 0) + 1
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)


@pytest.mark.parametrize("kind", ["numpy", "torch"])
def test_every_call_looks_its_adapter_up_once_and_chooses_its_engine_once(monkeypatch, kind):
    """The runner's pipeline is the only one: one ``adapters.of`` and one
    ``registry.choose`` per public call, whatever the operation."""
    from axisops import adapters, registry

    x = np.arange(24, dtype=np.float32).reshape(4, 6)
    index = np.zeros((4, 2), dtype=np.int64)
    if kind == "torch":
        torch = pytest.importorskip("torch")
        x, index = torch.from_numpy(x), torch.from_numpy(index)
    calls = {
        "topk": lambda: axisops.topk(x, 2), "top_k": lambda: axisops.top_k(x, 2),
        "gather": lambda: axisops.gather(x, 1, index),
        "take_along_axis": lambda: axisops.take_along_axis(x, index, axis=1),
        "sort": lambda: axisops.sort(x), "argsort": lambda: axisops.argsort(x),
        "kthvalue": lambda: axisops.kthvalue(x, 2), "median": lambda: axisops.median(x),
        "partition": lambda: axisops.partition(x, 2),
        "argpartition": lambda: axisops.argpartition(x, 2),
        "quantile": lambda: axisops.quantile(x, 0.5),
        "nanquantile": lambda: axisops.nanquantile(x, 0.5),
        "nanmedian": lambda: axisops.nanmedian(x),
    }
    for name, call in calls.items():
        call()  # imports and tables done
        counts: dict[str, int] = {}
        with monkeypatch.context() as m:
            _counting(m, adapters, "of", counts)
            _counting(m, registry, "choose", counts)
            call()
        assert counts == {"of": 1, "choose": 1}, (name, counts)
