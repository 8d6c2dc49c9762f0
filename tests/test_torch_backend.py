"""torch tensors through the public API: same type, device and dtype out; CPU zero-copy.

The contract's values (every dtype, integer extremes, k in {0, 1, n}, layouts) are
checked for the torch adapter with each engine by tests/test_contract.py; here is what
is the torch adapter's own: engine choice, views, index forms, errors.
"""

from importlib.util import find_spec

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

torch = pytest.importorskip("torch")

import axisops
from axisops import engines, registry
from axisops.adapters.torch import from_numpy, numpy_view
from axisops.engines import triton as triton_engine

from oracle import assert_same_bits, ref_gather, ref_topk
from strategies import LAYOUTS, arrays, special_values, with_layout
from torch_helpers import BF16, to_numpy, to_torch

INDEX_NAMES = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]


def test_cpu_tensors_default_to_the_cpu_engine_and_take_every_engine_of_theirs():
    assert registry.choose(torch.zeros(3)).name == "cpu"
    assert registry.choose(torch.zeros(3, dtype=torch.bfloat16)).name == "cpu"
    for name in ("cpu", "numpy", "torch"):
        assert registry.choose(torch.zeros(3), name).name == name
    assert {"cpu", "torch"} <= set(axisops.backends())


def test_the_cpu_path_runs_the_numpy_engine_on_a_view(monkeypatch):
    seen = []
    cpu = engines.get("cpu")
    real_topk, real_gather = type(cpu).topk, type(cpu).gather
    monkeypatch.setattr(type(cpu), "topk",
                        lambda self, x, spec: seen.append(type(x)) or real_topk(self, x, spec))
    monkeypatch.setattr(type(cpu), "gather", lambda self, x, i, spec: seen.append(type(i))
                        or real_gather(self, x, i, spec))
    axisops.topk(torch.tensor([3.0, 1.0]), 1)
    axisops.gather(torch.tensor([3.0, 1.0]), 0, [1])
    assert seen == [np.ndarray, np.ndarray]


@settings(max_examples=40)
@given(x=arrays(), data=st.data())
def test_topk_matches_the_numpy_backend(x, data):
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
    k = data.draw(st.integers(0, x.shape[axis]))
    largest = data.draw(st.booleans())
    r = axisops.topk(to_torch(x), k, axis=axis, largest=largest)
    want = axisops.topk(x, k, axis=axis, largest=largest, backend="numpy")
    assert_same_bits(to_numpy(r.values), want.values)
    np.testing.assert_array_equal(r.indices.numpy(), want.indices)


@pytest.mark.parametrize("index_dtype", [*INDEX_NAMES, torch.int32, torch.uint8, np.uint16])
def test_index_dtype_as_torch_or_numpy(index_dtype):
    t = torch.arange(50.0).flip(0)
    r = axisops.topk(t, 3, index_dtype=index_dtype)
    name = str(index_dtype).rpartition(".")[2].split("'")[0]
    assert r.indices.dtype == getattr(torch, name) and to_numpy(r.indices).tolist() == [0, 1, 2]


def _views(base: torch.Tensor) -> dict:
    return {
        "transposed": base.t().contiguous().t(),
        "step": torch.zeros(base.shape[0], 2 * base.shape[1], dtype=base.dtype)[:, ::2],
        "offset": torch.cat([torch.zeros(1, base.shape[1], dtype=base.dtype), base])[1:],
        "expanded": base[:1].expand(base.shape),
    }


@pytest.mark.parametrize("layout", ["transposed", "step", "offset", "expanded"])
def test_strided_tensors_and_input_unchanged(layout):
    rng = np.random.default_rng(3)
    pool = special_values(np.dtype("float32"))
    base = to_torch(pool[rng.integers(0, len(pool), size=(6, 9))])
    x = _views(base)[layout]
    if layout == "step":
        x.copy_(base)
    before = x.clone()
    want = x.numpy().copy()
    for axis in (0, 1):
        r = axisops.topk(x, 4, axis=axis)
        wv, wi = ref_topk(want, 4, axis, True)
        assert_same_bits(r.values.numpy(), wv)
        np.testing.assert_array_equal(r.indices.numpy(), wi)
    idx = torch.tensor([[0, -1, 3], [2, 2, -9]])
    assert_same_bits(axisops.gather(x, 1, idx).numpy(), ref_gather(want, 1, idx.numpy()))
    assert torch.equal(x.view(torch.int32), before.view(torch.int32))


def test_cpu_views_are_zero_copy():
    t = torch.arange(24, dtype=torch.float32).reshape(4, 6).t()
    view = numpy_view(t)
    assert view.ctypes.data == t.data_ptr() and view.strides == (4, 24)
    b = torch.ones(5, dtype=torch.bfloat16)
    assert numpy_view(b).ctypes.data == b.data_ptr() and numpy_view(b).dtype == BF16
    a = np.arange(4, dtype=np.uint32)
    assert from_numpy(a).data_ptr() == a.ctypes.data


def test_results_wrap_the_kernel_output_without_a_copy(monkeypatch):
    made = {}
    impl = engines.get("cpu")
    real = type(impl).topk

    def keep(self, x, spec):
        made["out"] = real(self, x, spec)
        return made["out"]

    monkeypatch.setattr(type(impl), "topk", keep)
    r = axisops.topk(torch.tensor([1.0, 5.0, 3.0]), 2)
    assert r.values.data_ptr() == made["out"][0].ctypes.data
    assert r.indices.data_ptr() == made["out"][1].ctypes.data


def test_read_only_kernel_output_is_copied_not_shared():
    a = np.arange(3.0)
    a.setflags(write=False)
    t = from_numpy(a)
    assert torch.equal(t, torch.tensor([0.0, 1.0, 2.0])) and t.data_ptr() != a.ctypes.data


def test_autograd_inputs_record_history_and_indices_never_do():
    p = torch.nn.Parameter(torch.tensor([1.0, 4.0, 2.0]))
    r = axisops.topk(p, 2)
    assert r.values.requires_grad and r.indices.tolist() == [1, 2]
    assert not r.indices.requires_grad and r.indices.grad_fn is None
    assert axisops.gather(p, 0, [2]).tolist() == [2.0]  # tests/test_torch_library.py: gradients


def test_conjugate_and_negative_views_are_resolved():
    z = torch.tensor([1 + 2j, 3 - 1j], dtype=torch.complex64)
    assert axisops.gather(z.conj(), 0, [1, 0]).tolist() == [3 + 1j, 1 - 2j]
    neg = z.conj().imag
    assert neg.is_neg()
    r = axisops.topk(neg, 2)
    assert r.values.tolist() == [1.0, -2.0] and r.indices.tolist() == [1, 0]


@pytest.mark.parametrize("kind", [*INDEX_NAMES, "list", "numpy-reversed", "big-endian"])
def test_gather_index_forms(kind):
    x = torch.arange(12, dtype=torch.int16).reshape(3, 4)
    values = np.array([[3, 0], [1, 2], [0, 0]])
    if kind == "list":
        index = values.tolist()
    elif kind == "numpy-reversed":
        index = values[::-1].copy()[::-1]
    elif kind == "big-endian":
        index = values.astype(">i8")
    else:
        index = torch.from_numpy(values.astype(kind))
    out = axisops.gather(x, 1, index)
    assert out.dtype == torch.int16
    np.testing.assert_array_equal(out.numpy(), ref_gather(x.numpy(), 1, values))


def test_take_along_axis_broadcasts_tensors():
    x = torch.tensor([[10, 30, 20]])
    out = axisops.take_along_axis(x, torch.tensor([[1], [2]]), axis=1)
    assert isinstance(out, torch.Tensor) and out.tolist() == [[30], [20]]
    out = axisops.take_along_axis(x, np.array([[2, 0]]))
    assert out.tolist() == [[20, 10]]


@pytest.mark.parametrize("layout", LAYOUTS)
def test_gather_any_numpy_index_layout(layout):
    x = torch.arange(20.0).reshape(4, 5)
    idx = with_layout(np.array([[4, 0, -5], [1, 1, 2], [0, 3, -1]]), layout)
    np.testing.assert_array_equal(axisops.gather(x, 1, idx).numpy(), ref_gather(x.numpy(), 1, idx))


X = torch.arange(15, dtype=torch.float32).reshape(3, 5)
ERRORS = [
    ("sparse x", lambda: axisops.topk(X.to_sparse(), 1), axisops.InvalidArgumentError,
     r"^topk\(\): x is a torch tensor with layout torch\.sparse_coo \(need a dense tensor"),
    ("meta x", lambda: axisops.gather(torch.empty(3, device="meta"), 0, [0]),
     axisops.InvalidArgumentError, r"^gather\(\): x is on the 'meta' device, which holds no data"),
    ("complex32 x", lambda: axisops.topk(X.to(torch.complex32), 1), axisops.UnsupportedDTypeError,
     r"^topk\(\): x has torch dtype torch\.complex32, which axisops does not support "
     r"\(supported: bool, int8,"),
    ("float8 x", lambda: axisops.gather(X.to(torch.float8_e4m3fn), 0, [[0]]),
     axisops.UnsupportedDTypeError, r"^gather\(\): x has torch dtype torch\.float8_e4m3fn"),
    ("complex top-k", lambda: axisops.topk(X.to(torch.complex64), 1), axisops.UnsupportedDTypeError,
     r"^topk\(\): x has dtype complex64, which top-k does not support"),
    ("float8 index", lambda: axisops.gather(X, 0, torch.zeros(1, 1).to(torch.float8_e5m2)),
     axisops.UnsupportedDTypeError, r"^gather\(\): index has torch dtype torch\.float8_e5m2"),
    ("float index", lambda: axisops.gather(X, 0, torch.zeros(1, 1)), axisops.UnsupportedDTypeError,
     r"^gather\(\): index has dtype float32, need an integer dtype"),
    ("bool index", lambda: axisops.gather(X, 0, torch.zeros(1, 1, dtype=torch.bool)),
     axisops.UnsupportedDTypeError, r"^gather\(\): index has dtype bool, need an integer dtype"),
    ("object index", lambda: axisops.gather(X, 0, np.array([[None]])),
     axisops.UnsupportedDTypeError, r"^gather\(\): index has dtype object"),
    ("index rank", lambda: axisops.gather(X, 0, torch.zeros(2, dtype=torch.int64)),
     axisops.InvalidArgumentError, r"index must have the same number of dimensions as x"),
    ("index out of range", lambda: axisops.gather(X, 1, torch.tensor([[0, 5]])),
     axisops.IndexOutOfRangeError,
     r"^gather\(\): index\[0, 1\]=5 is out of range for dim 1 of size 5 \(need -5 <= index <= 4\)$"),
    ("k too big", lambda: axisops.topk(X, 6), axisops.InvalidArgumentError,
     r"^topk\(\): k=6 is out of range for axis 1 of size 5 \(need 0 <= k <= 5\)$"),
    ("axis", lambda: axisops.topk(X, 1, axis=2), axisops.InvalidArgumentError, r"axis=2"),
    ("0-d x", lambda: axisops.topk(torch.tensor(1.0), 1), axisops.InvalidArgumentError,
     r"x must have at least one dimension"),
    ("index_dtype too small", lambda: axisops.topk(torch.zeros(300), 1, index_dtype=torch.int8),
     axisops.InvalidArgumentError, r"index_dtype=int8 cannot hold index 299"),
    ("index_dtype float", lambda: axisops.topk(X, 1, index_dtype=torch.float32),
     axisops.UnsupportedDTypeError, r"index_dtype=torch\.float32 is not a dtype"),
]


@pytest.mark.filterwarnings("ignore:ComplexHalf support is experimental")
@pytest.mark.parametrize("call, cls, pattern", [e[1:] for e in ERRORS], ids=[e[0] for e in ERRORS])
def test_errors(call, cls, pattern):
    before = X.clone()
    with pytest.raises(cls, match=pattern):
        call()
    assert torch.equal(X, before)


@pytest.mark.skipif(find_spec("triton") is None, reason="Triton ships Linux wheels only")
def test_triton_on_cpu_tensors_needs_the_interpreter(monkeypatch):
    monkeypatch.setattr(triton_engine, "interpreter_on", lambda: False)
    with pytest.raises(axisops.InvalidArgumentError,
                       match=r"^topk\(\): backend='triton' cannot take this torch\.Tensor"):
        axisops.topk(X, 1, backend="triton")
    monkeypatch.setattr(triton_engine, "interpreter_on", lambda: True)
    assert registry.choose(X, "triton").name == "triton"
    assert registry.choose(X).name == "cpu"  # never the default on the CPU


def test_engines_of_other_array_types_refuse_tensors_by_name():
    with pytest.raises(axisops.InvalidArgumentError,
                       match=r"backend='dask' does not take torch\.Tensor inputs "
                             r"\(backends for them: .*cpu.*torch"):
        axisops.topk(X, 1, backend="dask")
