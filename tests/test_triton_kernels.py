"""The Triton kernels against the NumPy backend: in Triton's interpreter, or on a GPU.

By default ``TRITON_INTERPRET=1`` is set before the kernel modules are first
imported, so ``backend="triton"`` runs the very kernels a GPU runs, on CPU
tensors.  With ``AXISOPS_TEST_DEVICE=cuda`` the same tests run the compiled
kernels on CUDA tensors instead (``benchmarks/gpu_check.sh`` does that on a GPU
machine).  The interpreter is slow: sizes stay small, and the ``small_tiles``
fixture shrinks the tile constants so that the long-row design (block-max
filter, candidates, packed torch.topk) runs on rows of a few hundred elements.
"""

import importlib
import os
import sys

DEVICE = os.environ.get("AXISOPS_TEST_DEVICE", "cpu")
if DEVICE == "cpu":
    os.environ["TRITON_INTERPRET"] = "1"

from importlib.util import find_spec

import numpy as np
import pytest

if find_spec("triton") is None:
    pytest.skip("Triton ships Linux wheels only", allow_module_level=True)

import torch
from hypothesis import given, settings
from hypothesis import strategies as st

import axisops
from axisops import engines, registry
from axisops.kernels.triton.layout import coalesce


def _interpreted_kernels():
    """The kernel modules, rebuilt for the interpreter if they were built without it."""
    modules = []
    for name in ("axisops.kernels.triton.topk", "axisops.kernels.triton.gather"):
        module = importlib.import_module(name)
        if DEVICE == "cpu" and not getattr(module, "INTERPRETED", True):
            module = importlib.reload(module)
        modules.append(module)
    return modules


triton_topk, triton_gather = _interpreted_kernels()

from oracle import assert_same_bits, first_bad_index, ref_gather
from strategies import INT_DTYPES, arrays, tie_heavy
from torch_helpers import BF16
from torch_helpers import to_numpy as _host_numpy
from torch_helpers import to_torch as _host_torch

if DEVICE != "cpu" and not torch.cuda.is_available():
    pytest.fail(f"AXISOPS_TEST_DEVICE={DEVICE!r} but torch sees no CUDA device",
                pytrace=False)


def to_torch(a: np.ndarray) -> torch.Tensor:
    """A tensor copy of ``a`` on the device under test."""
    return _host_torch(a).to(DEVICE)


def to_numpy(t: torch.Tensor) -> np.ndarray:
    """A NumPy copy of a tensor from any device."""
    return _host_numpy(t.cpu())


def on(t: torch.Tensor) -> torch.Tensor:
    """``t`` (built on the host) moved to the device under test."""
    return t.to(DEVICE)


def x_device() -> torch.device:
    """The device the tensors under test live on (``cuda`` means ``cuda:0``)."""
    return on(torch.zeros(0)).device


NARROW = [np.dtype(bool), *(d for d in INT_DTYPES if d.itemsize <= 4),
          np.dtype("float16"), np.dtype("float32"), BF16]
WIDE = [np.dtype("int64"), np.dtype("uint64"), np.dtype("float64")]


def check_topk(x: np.ndarray, k: int, axis=-1, largest=True, index_dtype=None, t=None):
    r = axisops.topk(to_torch(x) if t is None else t, k, axis=axis, largest=largest,
                     index_dtype=index_dtype, backend="triton")
    want = axisops.topk(x, k, axis=axis, largest=largest, index_dtype=index_dtype,
                        backend="numpy")
    assert isinstance(r.values, torch.Tensor)
    assert r.values.device == r.indices.device == x_device()
    assert_same_bits(to_numpy(r.values), want.values)
    assert_same_bits(to_numpy(r.indices), want.indices)


@pytest.fixture
def small_tiles(monkeypatch):
    """Tile constants small enough that rows of ~100 elements take the long-row design."""
    monkeypatch.setattr(triton_topk, "ROW_TILE", 16)
    monkeypatch.setattr(triton_topk, "SCAN_TILE", 16)
    monkeypatch.setattr(triton_topk, "MIN_BLOCK", 2)
    monkeypatch.setattr(triton_topk, "MAX_BLOCK", 8)
    monkeypatch.setattr(triton_topk, "ITERATE_MAX_K", 2)


def test_kernels_are_built_for_the_device_under_test_and_backend_is_reachable():
    assert triton_topk.INTERPRETED == (DEVICE == "cpu") == triton_topk.interpreting()
    x = on(torch.zeros(3))
    assert registry.choose(x, "triton").name == "triton"
    # CPU tensors default to the cpu engine (NumPy views), CUDA tensors to Triton.
    assert registry.choose(x).name == ("cpu" if DEVICE == "cpu" else "triton")


def test_triton_is_the_default_for_cuda_tensors():
    class FakeCuda(torch.Tensor):
        @property
        def device(self):
            return torch.device("cuda", 0)

    FakeCuda.__module__ = "torch.fake"  # the registry's family is the type's root module
    t = torch.zeros(2).as_subclass(FakeCuda)
    assert registry.choose(t).name == "triton"


@pytest.mark.parametrize("dtype", NARROW, ids=str)
def test_short_rows_every_narrow_dtype(dtype):
    x = tie_heavy(dtype, (5, 13), 1, width=None)
    for largest in (True, False):
        for k in (0, 1, 4, 13):  # rounds of max (k <= 16)
            check_topk(x, k, largest=largest)


@pytest.mark.usefixtures("small_tiles")
@pytest.mark.parametrize("dtype", NARROW, ids=str)
def test_short_rows_bitonic_branch(dtype):
    x = tie_heavy(dtype, (3, 13), 2, width=None)
    for largest in (True, False):
        for k in (3, 13):  # more than ITERATE_MAX_K = 2: tl.topk
            check_topk(x, k, largest=largest)


@pytest.mark.parametrize("dtype", WIDE, ids=str)
def test_wide_dtypes_are_given_to_the_torch_engine(dtype):
    x = tie_heavy(dtype, (3, 11), 2, width=None)
    t, spec = to_torch(x), _spec(x, 3)
    assert engines.get("triton").supports(t) and not engines.get("triton").supports(t, spec)
    assert registry.choose(t, "triton", spec).name == "torch"  # the registry's choice
    for largest in (True, False):
        check_topk(x, 3, largest=largest)


def _spec(x, k):
    from axisops.validation import ArrayMeta, topk_spec

    return topk_spec(ArrayMeta(x.shape, x.dtype), k, -1, True, True, None)


@pytest.mark.parametrize("k", [1, 3, 8, 100])
def test_long_rows_with_the_real_tiles(k):
    # n = 6000 > ROW_TILE: k <= 18 runs the block-max filter, k = 100 packs every key.
    x = tie_heavy(np.dtype("float32"), (2, 6000), k, width=6)
    check_topk(x, k)
    check_topk(x, k, largest=False)


@pytest.mark.usefixtures("small_tiles")
@pytest.mark.parametrize("dtype", [np.dtype("float32"), np.dtype("int8"), BF16], ids=str)
@pytest.mark.parametrize("k", [1, 2, 3, 7, 40, 150])
def test_long_row_design_on_small_tiles(dtype, k):
    # n = 150: blocks of 2..8, candidates through the row kernel or torch.topk, k = n packs all.
    x = tie_heavy(dtype, (3, 150), k, width=5)
    for largest in (True, False):
        check_topk(x, k, largest=largest)


def _refuse(*args, **kwargs):
    raise AssertionError("this path must not run here")


@pytest.mark.parametrize("k", [3, 4])
def test_block_maxima_selected_by_the_bitonic_row_kernel(monkeypatch, k):
    # n = 512, B = 16: 32 block maxima fit one row tile of 32 and k > 2 rounds: tl.topk on
    # packed keys in the row kernel; the 16k candidates do not fit, so the fused kernel
    # cannot take the call (B = 8 would leave 64 maxima).
    for name, value in (("ROW_TILE", 32), ("SCAN_TILE", 32), ("MIN_BLOCK", 2),
                        ("MAX_BLOCK", 16), ("ITERATE_MAX_K", 2)):
        monkeypatch.setattr(triton_topk, name, value)
    monkeypatch.setattr(triton_topk, "_fused_select_kernel", None)
    x = tie_heavy(np.dtype("uint16"), (2, 512), k, width=4)
    assert triton_topk._Job(to_torch(x), k, True, torch.int64).block_size() == 16
    for largest in (True, False):
        check_topk(x, k, largest=largest)


@pytest.mark.parametrize("shape, k, want", [
    ((256, 131072), 10, 256),   # both selections fit a row tile: 512 maxima, 2560 candidates
    ((256, 131072), 16, 256),
    ((256, 131072), 17, 128),   # k > ITERATE_MAX_K: 1024 maxima, 2176 candidates (tl.topk)
    ((256, 131072), 100, 32),   # 4096 maxima, 3200 candidates
    ((256, 131072), 128, 32),   # K_P * B = 4096: the largest k the fused kernel takes here
    ((256, 131072), 129, 64),   # 16 would fit but is below MIN_BLOCK: the largest block
    ((1, 2**28), 10, 1024),     # 2**20 maxima would not fit a tile anyway
    ((1, 200000), 10, 256),     # one row: 782 maxima, 2560 candidates
    ((4, 2**20 + 256), 10, 1024),  # 4097 maxima of 256: one too many
    ((4, 2**20), 4, 1024),      # k <= 4: 4 * 1024 candidates fit already
    ((32, 128256), 50, 64),     # 2004 maxima, 3200 candidates
    ((32, 300000), 50, 512),    # 4688 maxima of 64 would not fit: the largest block
    ((8, 40000), 3, 1024),      # 3 * 1024 candidates fit already
    ((8, 5000), 80, None),      # 5000 // 640 < MIN_BLOCK: pack every key
])
def test_block_size_lets_both_selections_fit_a_row_tile_when_it_can(shape, k, want):
    job = triton_topk._Job(torch.zeros(shape[0], 1).expand(shape[0], shape[1]), k, True,
                           torch.int64)
    assert job.block_size() == want


@pytest.mark.parametrize("n, blocks", [
    (512, {1: 32, 2: 16}),  # k <= ITERATE_MAX_K: rounds of max in the fused kernel
    (256, {3: 8, 4: 8}),    # larger k: tl.topk over the maxima, then over the candidate tile
])
def test_long_rows_select_in_row_tiles_without_torch_topk(monkeypatch, n, blocks):
    # ROW_TILE 32: the block maxima and the k * B candidates each fit one tile, so the
    # fused kernel selects both in one launch (neither torch.topk nor the separate
    # candidates and row kernels may run). For n = 512, k = 2, B 32 would leave 64
    # candidates; B 16 gives 32 maxima and 32 candidates.
    for name, value in (("ROW_TILE", 32), ("SCAN_TILE", 32), ("MIN_BLOCK", 2),
                        ("MAX_BLOCK", 32), ("ITERATE_MAX_K", 2)):
        monkeypatch.setattr(triton_topk, name, value)
    monkeypatch.setattr(triton_topk.torch, "topk", _refuse)
    monkeypatch.setattr(triton_topk, "_candidates_kernel", None)
    monkeypatch.setattr(triton_topk, "_rows_kernel", None)
    tied = tie_heavy(np.dtype("float32"), (3, n), 4, width=4)
    # Distinct values: the top k mostly lie in k different blocks, so every chosen block counts.
    distinct = np.random.default_rng(n).permutation(3 * n).reshape(3, n).astype(np.float32)
    for k, block in blocks.items():
        assert triton_topk._Job(to_torch(tied), k, True, torch.int64).block_size() == block
        for x in (tied, distinct):
            for largest in (True, False):
                check_topk(x, k, largest=largest)


@settings(max_examples=40)
@given(x=arrays(dtypes=NARROW, max_side=40, max_dims=2), data=st.data())
def test_matches_the_numpy_backend_on_small_tiles(x, data):
    saved = {n: getattr(triton_topk, n) for n in ("ROW_TILE", "SCAN_TILE", "MIN_BLOCK",
                                                   "MAX_BLOCK", "ITERATE_MAX_K")}
    small = data.draw(st.booleans())
    try:
        if small:
            triton_topk.ROW_TILE, triton_topk.SCAN_TILE = 8, 8
            triton_topk.MIN_BLOCK, triton_topk.MAX_BLOCK, triton_topk.ITERATE_MAX_K = 1, 4, 1
        axis = data.draw(st.integers(-x.ndim, x.ndim - 1))
        k = data.draw(st.integers(0, x.shape[axis]))
        check_topk(x, k, axis=axis, largest=data.draw(st.booleans()))
    finally:
        for name, value in saved.items():
            setattr(triton_topk, name, value)


def test_nan_payloads_zero_signs_and_integer_extremes():
    f = np.array([0x7FC00001, 0xFFC00002, 0x80000000, 0, 0x7F800000, 0xFF800000],
                 np.uint32).view(np.float32)
    check_topk(f, 6)
    check_topk(f, 3, largest=False)
    for name in ("int32", "uint32", "int16", "uint16", "int8", "uint8"):
        info = np.iinfo(name)
        x = np.array([info.min, info.max, 0, info.max, info.min, 1], name)
        check_topk(x, 6)
        check_topk(x, 2, largest=False)


@pytest.mark.parametrize("index_dtype", ["int8", "uint8", "int16", "uint16", "int32", "uint32",
                                         "int64", "uint64"])
def test_index_dtypes(index_dtype):
    x = tie_heavy(np.dtype("int32"), (2, 100), 4, width=3)
    check_topk(x, 5, index_dtype=index_dtype)


def test_any_axis_and_strided_input():
    x = tie_heavy(np.dtype("float16"), (3, 4, 5), 5, width=4)
    for axis in (0, 1, 2):
        check_topk(x, 2, axis=axis)
    base = to_torch(tie_heavy(np.dtype("float32"), (9, 6), 6, width=4))
    view = base.t()[:, ::2]  # non-contiguous, strides (1, 12)
    before = base.clone()
    check_topk(to_numpy(view).copy(), 3, t=view)
    assert torch.equal(base.view(torch.int32), before.view(torch.int32))


def test_empty_inputs():
    r = axisops.topk(on(torch.zeros(0, 5)), 2, backend="triton")
    assert r.values.shape == (0, 2) and r.indices.dtype == torch.int64
    r = axisops.topk(on(torch.zeros(4, 0, dtype=torch.int8)), 0, backend="triton")
    assert r.values.shape == (4, 0) and r.values.dtype == torch.int8


@st.composite
def gather_case(draw):
    from strategies import GATHER_DTYPES

    x = draw(arrays(dtypes=GATHER_DTYPES, min_side=1, max_dims=3, max_side=5))
    dim = draw(st.integers(0, x.ndim - 1))
    shape = [draw(st.integers(0, s)) for s in x.shape]
    shape[dim] = draw(st.integers(0, 6))
    dtype = draw(st.sampled_from(["int8", "int32", "int64", "uint8", "uint16", "uint64"]))
    n = x.shape[dim]
    low = 0 if dtype.startswith("u") else -n
    size = int(np.prod(shape))
    vals = draw(st.lists(st.integers(low, n - 1), min_size=size, max_size=size))
    return x, dim, np.array(vals, dtype).reshape(shape)


@settings(max_examples=40)
@given(gather_case())
def test_gather_matches_the_oracle(case):
    x, dim, index = case
    out = axisops.gather(to_torch(x), dim, to_torch(index), backend="triton")
    assert_same_bits(to_numpy(out), ref_gather(x, dim, index))


def test_gather_strided_expanded_and_high_rank_inputs():
    x = on(torch.arange(60, dtype=torch.float32).reshape(3, 4, 5))
    idx = on(torch.tensor([[[4, -1, 0]], [[-5, 2, 2]]]))
    for view in (x, x.transpose(0, 2).contiguous().transpose(0, 2), x[:1].expand(3, 4, 5)):
        want = ref_gather(to_numpy(view), 2, to_numpy(idx))
        assert_same_bits(to_numpy(axisops.gather(view, 2, idx, backend="triton")), want)
    wide = on(torch.arange(2 * 3 * 2 * 3 * 2, dtype=torch.int16).reshape(2, 3, 2, 3, 2))
    odd = wide.permute(4, 2, 0, 3, 1)  # five dimensions that cannot be merged
    i5 = to_torch(np.random.default_rng(0).integers(-2, 2, size=(2, 2, 2, 2, 2)))
    spec = _gspec(odd, 2, i5)
    assert not engines.get("triton").supports(odd, spec)
    assert registry.choose(odd, "triton", spec).name == "torch"  # the registry's choice
    want = ref_gather(to_numpy(odd), 2, to_numpy(i5))
    assert_same_bits(to_numpy(axisops.gather(odd, 2, i5, backend="triton")), want)


def _gspec(x, dim, index):
    from axisops.validation import ArrayMeta, gather_spec

    m = lambda t: ArrayMeta(tuple(t.shape), to_numpy(t).dtype)  # noqa: E731
    return gather_spec(m(x), dim, m(index))


def test_gather_complex_and_bf16():
    for dtype in (np.dtype("complex64"), np.dtype("complex128"), BF16, np.dtype(bool)):
        x = tie_heavy(dtype, (3, 7), 7, width=None)
        idx = np.array([[6, -7, 3], [0, 0, -1]])
        out = axisops.gather(to_torch(x), 1, to_torch(idx), backend="triton")
        assert_same_bits(to_numpy(out), ref_gather(x, 1, idx))


@pytest.mark.parametrize("dtype, values", [
    ("int64", [[0, 2], [5, -9]]), ("int8", [[-4, 0], [1, -128]]),
    ("uint8", [[1, 255], [0, 0]]), ("uint16", [[65535, 0], [0, 9]]),
    ("uint64", [[0, 0], [2**64 - 1, 2**63]]), ("int32", [[3, 4], [4, 3]]),
])
def test_gather_errors_name_the_first_offender(dtype, values):
    x = on(torch.arange(8.0).reshape(2, 4))
    idx = np.array(values, dtype)
    pos, value = first_bad_index(idx, 4)
    with pytest.raises(axisops.IndexOutOfRangeError) as want:
        axisops.gather(to_numpy(x), 1, idx, backend="numpy")
    before = x.clone()
    with pytest.raises(axisops.IndexOutOfRangeError,
                       match=rf"^gather\(\): index\[{pos[0]}, {pos[1]}\]={value} ") as got:
        axisops.gather(x, 1, to_torch(idx), backend="triton")
    assert str(got.value) == str(want.value) and torch.equal(x, before)


def test_gather_first_offender_across_blocks(monkeypatch):
    monkeypatch.setattr(triton_gather, "BLOCK", 8)
    x = on(torch.arange(10, dtype=torch.int32))
    idx = torch.zeros(40, dtype=torch.int64)
    idx[[37, 13, 29]] = torch.tensor([10, -11, 99])
    idx = on(idx)
    with pytest.raises(axisops.IndexOutOfRangeError, match=r"^gather\(\): index\[13\]=-11 "):
        axisops.gather(x, 0, idx, backend="triton")


def test_gather_empty_index_and_take_along_axis():
    out = axisops.gather(on(torch.arange(5.0)), 0, on(torch.zeros(0, dtype=torch.int64)),
                         backend="triton")
    assert out.shape == (0,) and out.dtype == torch.float32 and out.device == x_device()
    x = on(torch.tensor([[10, 30, 20]]))
    assert axisops.gather(x.expand(2, 3), 1, on(torch.tensor([[1], [2]])),
                          backend="triton").tolist() == [[30], [20]]


@pytest.mark.parametrize("shape, strides, dim, want", [
    ((2, 3, 4, 5), (60, 20, 5, 1), 1, ([2, 3, 20], [60, 20, 1], 1)),
    ((2, 3, 4), (12, 4, 1), 0, ([2, 12], [12, 1], 0)),
    ((2, 1, 3), (3, 3, 1), 2, ([2, 3], [3, 1], 1)),
    ((1, 5), (5, 1), 0, ([1, 5], [5, 1], 0)),
    ((4, 3), (1, 4), 1, ([4, 3], [1, 4], 1)),
    ((2, 2, 2), (0, 0, 1), 2, ([4, 2], [0, 1], 1)),
])
def test_coalesce(shape, strides, dim, want):
    assert coalesce(shape, strides, dim) == want


def test_compiled_and_differentiated_calls_equal_eager_ones():
    # On CPU tensors this runs the default (torch) backend; on CUDA tensors, the Triton kernels.
    x = to_torch(tie_heavy(np.dtype("float32"), (6, 300), 3, width=None))
    index = on(torch.tensor([[299, -300, 5, 5]])).expand(6, 4)

    def step(t):
        top = axisops.topk(t, 5)
        loss = (top.values.nan_to_num() ** 2).sum() + axisops.gather(t, 1, index).nan_to_num().sum()
        return loss, top.indices

    compiled = torch.compile(step, backend="aot_eager", fullgraph=True)
    xe, xc = x.clone().requires_grad_(), x.clone().requires_grad_()
    (loss_e, idx_e), (loss_c, idx_c) = step(xe), compiled(xc)
    loss_e.backward()
    loss_c.backward()
    want = axisops.topk(to_numpy(x), 5, backend="numpy").indices
    assert_same_bits(to_numpy(idx_e), want)
    assert_same_bits(to_numpy(idx_c), want)
    assert_same_bits(to_numpy(loss_c.detach()), to_numpy(loss_e.detach()))
    assert xc.grad.device == x_device()
    assert_same_bits(to_numpy(xc.grad), to_numpy(xe.grad))


def test_kernel_modules_are_not_imported_by_discovery():
    # torch._dynamo imports triton: the axisops:: operators load it only when
    # something else did (an eager program never pays for it).
    code = ("import sys, torch, axisops; axisops.topk(torch.zeros(3), 1); "
            "print(sorted(m for m in ('triton', 'axisops.kernels.triton.topk', 'torch._dynamo') "
            "if m in sys.modules))")
    import subprocess

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
