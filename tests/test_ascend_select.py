"""aclnnSort, aclnnArgsort, aclnnKthvalue, aclnnMedian, aclnnMedianDim and aclnnNanMedian through
axisops.ascend: every type against the oracle, the contract's order, the rules of phase 1
in order with their codes and messages (nothing changed), and phase 2's checks."""

import re

import numpy as np
import pytest

from axisops.ascend import acl, aclnn

from ascend_helpers import TOPK_TYPES, filled, get, host_tensor, memory, put, tensor
from oracle import ref_kthvalue, ref_sort

F, I64 = acl.ACL_FLOAT, acl.ACL_INT64
NULL, INVALID = 161001, 161002
TYPES = TOPK_TYPES


def out_tensor(dims, data_type):
    itemsize = np.dtype(TYPES[data_type]).itemsize
    return tensor(filled(max(int(np.prod(dims)), 1) * itemsize), dims, data_type)


def read(t):
    dtype = np.dtype(TYPES[t.data_type])
    raw = get(t.data, max(int(np.prod(t.storage_dims)), 1) * dtype.itemsize)
    return np.ndarray(t.view_dims, dtype, buffer=raw, offset=t.offset * dtype.itemsize,
                      strides=[s * dtype.itemsize for s in t.strides])


def run(op, stream, *args):
    """Phase 1 of ``aclnn<op>`` with ``args``, phase 2, synchronize."""
    ws, executor, ret = getattr(aclnn, f"aclnn{op}GetWorkspaceSize")(*args)
    assert (ws, ret) == (0, 0), aclnn.aclGetRecentErrMsg()
    assert getattr(aclnn, f"aclnn{op}")(None, ws, executor, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0


def sort(x, dim, descending, stream, data_type=F, stable=True):
    self = host_tensor(x, data_type)
    values, indices = out_tensor(x.shape, data_type), out_tensor(x.shape, I64)
    run("Sort", stream, self, stable, dim, descending, values, indices)
    return read(values), read(indices)


def argsort(x, dim, descending, stream, data_type=F):
    self, out = host_tensor(x, data_type), out_tensor(x.shape, I64)
    run("Argsort", stream, self, dim, descending, out)
    return read(out)


def _reduced(x, dim, keepdim):
    if x.ndim == 0:
        return ()
    shape = list(x.shape)
    shape[dim] = 1
    return tuple(shape) if keepdim else tuple(np.delete(np.array(x.shape), dim % x.ndim))


def kthvalue(x, k, dim, keepdim, stream, data_type=F):
    self = host_tensor(x, data_type)
    shape = _reduced(x, dim, keepdim)
    values, indices = out_tensor(shape, data_type), out_tensor(shape, I64)
    run("Kthvalue", stream, self, k, dim, keepdim, values, indices)
    return read(values), read(indices)


def median_dim(x, dim, keepdim, stream, data_type=F):
    self = host_tensor(x, data_type)
    shape = _reduced(x, dim, keepdim)
    values, indices = out_tensor(shape, data_type), out_tensor(shape, I64)
    run("MedianDim", stream, self, dim, keepdim, values, indices)
    return read(values), read(indices)


def median(x, stream, data_type=F, out_dims=()):
    self, values = host_tensor(x, data_type), out_tensor(out_dims, data_type)
    run("Median", stream, self, values)
    return read(values)


def same_bits(got, want):
    return np.ascontiguousarray(got).tobytes() == np.ascontiguousarray(want).tobytes()


@pytest.mark.parametrize("data_type", list(TYPES), ids=lambda t: np.dtype(TYPES[t]).name)
def test_every_type_matches_the_oracle(stream, data_type):
    rng = np.random.default_rng(data_type)
    x = rng.integers(0, 4, (3, 7)).astype(TYPES[data_type])  # tie-heavy
    for dim, descending in ((1, False), (0, True), (-1, True)):
        values, indices = sort(x, dim, descending, stream, data_type)
        want_values, want_indices = ref_sort(x, dim, descending)
        assert same_bits(values, want_values) and indices.tolist() == want_indices.tolist()
        assert argsort(x, dim, descending, stream, data_type).tolist() == want_indices.tolist()
    for k, dim, keepdim in ((1, 1, False), (3, 0, True), (7, -1, True)):
        values, indices = kthvalue(x, k, dim, keepdim, stream, data_type)
        want_values, want_indices = ref_kthvalue(x, k, dim, keepdim)
        assert same_bits(values, want_values) and indices.tolist() == want_indices.tolist()
    values, indices = median_dim(x, 1, False, stream, data_type)
    want_values, want_indices = ref_kthvalue(x, 4, 1)
    assert same_bits(values, want_values) and indices.tolist() == want_indices.tolist()
    want = ref_sort(x.reshape(-1), 0)[0][(x.size - 1) // 2]
    assert same_bits(median(x, stream, data_type), want)


def test_the_order_nan_zeros_and_ties_in_both_directions(stream):
    x = np.array([2.0, np.nan, -0.0, 0.0, 2.0, -np.inf], np.float64)
    d = acl.ACL_DOUBLE
    values, indices = sort(x, 0, False, stream, d)
    assert indices.tolist() == [5, 2, 3, 0, 4, 1]
    assert np.signbit(values[1]) and not np.signbit(values[2])
    assert argsort(x, 0, True, stream, d).tolist() == [1, 0, 4, 2, 3, 5]
    assert sort(x, 0, True, stream, d, stable=False)[1].tolist() == [1, 0, 4, 2, 3, 5]
    assert kthvalue(x, 4, 0, False, stream, d)[1].tolist() == 0
    values, indices = median_dim(x, 0, True, stream, d)  # (6 - 1) // 2 + 1 = 3rd: +0.0
    assert values.tolist() == [0.0] and not np.signbit(values[0]) and indices.tolist() == [3]
    assert median(x, stream, d).tolist() == 0.0


def test_median_of_all_elements_is_the_lower_one_and_takes_a_1_element_output(stream):
    x = np.array([[4, 1], [3, 2]], np.int32)
    assert median(x, stream, acl.ACL_INT32).tolist() == 2
    assert median(x, stream, acl.ACL_INT32, out_dims=(1,)).tolist() == [2]


def nan_median(x, stream, data_type=F, out_dims=()):
    self, out = host_tensor(x, data_type), out_tensor(out_dims, data_type)
    run("NanMedian", stream, self, out)
    return read(out)


@pytest.mark.parametrize("data_type", sorted(TYPES))
def test_nan_median_is_the_lower_median_of_the_non_nan_elements(stream, data_type):
    """torch.nanmedian() of all elements, every type: NaN skipped, NaN when all are."""
    dtype = np.dtype(TYPES[data_type])
    x = np.array([[4, 1, 7], [3, 2, 9]]).astype(dtype)
    if dtype.kind == "f" or dtype.name == "bfloat16":
        x[0, 2] = x[1, 2] = np.nan  # four numbers left: 1 2 3 4 -> the lower median, 2
        assert nan_median(x, stream, data_type).tolist() == 2
        assert np.isnan(nan_median(np.full((2, 2), np.nan, dtype), stream, data_type))
        assert median(x, stream, data_type).tolist() == 3  # aclnnMedian: NaN sorts last
    else:
        assert nan_median(x, stream, data_type).tolist() == median(x, stream, data_type) == 3
    assert nan_median(x, stream, data_type, out_dims=(1,)).shape == (1,)


def test_nan_median_refuses_as_median_does_naming_out(stream):
    self = host_tensor(np.zeros((2, 3), np.float32), F)
    for out, needle in [(None, "out"), (out_tensor((), I64), "out"),
                        (out_tensor((2,), F), "out.shape=(2,) is not 0-d or (1,)")]:
        ws, executor, ret = aclnn.aclnnNanMedianGetWorkspaceSize(self, out)
        assert (ws, executor) == (0, None) and ret == (NULL if out is None else INVALID)
        assert "aclnnNanMedianGetWorkspaceSize(): " in (msg := aclnn.aclGetRecentErrMsg())
        assert needle in msg, msg
    empty = tensor(0, (0, 3), F)
    assert aclnn.aclnnNanMedianGetWorkspaceSize(empty, out_tensor((), F))[2] == INVALID
    assert "self is empty" in aclnn.aclGetRecentErrMsg()


def test_zero_dim_self(stream):
    x = np.array(2.5, np.float32)
    values, indices = sort(x, -1, False, stream)
    assert values.tolist() == 2.5 and indices.tolist() == 0
    values, indices = kthvalue(x, 1, 0, True, stream)
    assert values.shape == () and values.tolist() == 2.5 and indices.tolist() == 0
    assert median(x, stream).tolist() == 2.5
    self, v, i = host_tensor(x, F), out_tensor((), F), out_tensor((), I64)
    assert aclnn.aclnnKthvalueGetWorkspaceSize(self, 2, 0, False, v, i)[2] == INVALID
    assert "k=2 is out of range for a 0-d self (one element) (need 1 <= k <= 1)" in \
        aclnn.aclGetRecentErrMsg()


def test_empty_self_succeeds_and_writes_nothing(stream):
    self = tensor(0, (3, 0), F)
    values, indices = tensor(0, (3, 0), F), tensor(0, (3, 0), I64)
    before = memory()
    run("Sort", stream, self, True, 1, False, values, indices)
    run("Argsort", stream, self, 0, False, indices)
    values, indices = tensor(0, (0,), F), tensor(0, (0,), I64)
    run("MedianDim", stream, self, 0, False, values, indices)
    assert memory() == before


def test_outputs_may_alias_the_input(stream):
    ptr = put(np.array([[1, 9, 5, 7]], np.int32))
    self = tensor(ptr, (1, 4), acl.ACL_INT32)
    values = tensor(ptr, (1, 4), acl.ACL_INT32)  # sorted in place
    indices = out_tensor((1, 4), I64)
    run("Sort", stream, self, False, 1, True, values, indices)
    assert read(values).tolist() == [[9, 7, 5, 1]] and read(indices).tolist() == [[1, 3, 2, 0]]


def test_non_contiguous_views_with_offsets(stream):
    base = np.random.default_rng(3).integers(-5, 5, 64).astype(np.int64)
    logical = base[9:24].reshape(5, 3).T  # a transposed block starting 9 elements in
    self = tensor(put(base), (3, 5), I64, strides=(1, 3), offset=9, storage=(64,))
    values = tensor(filled(256), (3,), I64, strides=(4,), offset=3, storage=(32,))
    indices = tensor(filled(256), (3,), I64, strides=(2,), offset=1, storage=(32,))
    run("Kthvalue", stream, self, 3, 1, False, values, indices)
    want_values, want_indices = ref_kthvalue(logical, 3, 1)
    assert read(values).tolist() == want_values.tolist()
    assert read(indices).tolist() == want_indices.tolist()


# --- phase 1: the rules, in order --------------------------------------------------------------


@pytest.fixture
def kit(stream):
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    k = {"x_ptr": put(x), "v_ptr": filled(64), "i_ptr": filled(64)}
    k["self"] = tensor(k["x_ptr"], (2, 4), F)
    k["values"] = tensor(k["v_ptr"], (2, 4), F)
    k["indices"] = tensor(k["i_ptr"], (2, 4), I64)
    k["reduced_values"] = tensor(k["v_ptr"], (2,), F)
    k["reduced_indices"] = tensor(k["i_ptr"], (2,), I64)
    k["scalar"] = tensor(k["v_ptr"], (), F)
    return k


def sort_args(kit, **changes):
    a = dict(self=kit["self"], stable=True, dim=1, descending=False, values_out=kit["values"],
             indices_out=kit["indices"])
    return "Sort", {**a, **changes}


def argsort_args(kit, **changes):
    return "Argsort", {**dict(self=kit["self"], dim=1, descending=False, out=kit["indices"]),
                       **changes}


def kth_args(kit, **changes):
    a = dict(self=kit["self"], k=2, dim=1, keepdim=False, values_out=kit["reduced_values"],
             indices_out=kit["reduced_indices"])
    return "Kthvalue", {**a, **changes}


def median_dim_args(kit, **changes):
    a = dict(self=kit["self"], dim=1, keepdim=False, values_out=kit["reduced_values"],
             indices_out=kit["reduced_indices"])
    return "MedianDim", {**a, **changes}


def median_args(kit, **changes):
    return "Median", {**dict(self=kit["self"], values_out=kit["scalar"]), **changes}


PHASE1_ERRORS = [
    ("sort self None", lambda k: sort_args(k, self=None), NULL, r"self is None"),
    ("sort None first", lambda k: sort_args(k, indices_out=None, dim=7), NULL,
     r"indices_out is None"),
    ("sort stable", lambda k: sort_args(k, stable=2), INVALID,
     r"stable=2 \(int\) is invalid \(need True or False\)"),
    ("sort stable before dim", lambda k: sort_args(k, stable="no", dim=7), INVALID, r"stable="),
    ("sort dim", lambda k: sort_args(k, dim=2), INVALID,
     r"dim=2 is out of range for a tensor of 2 dimensions \(need -2 <= dim <= 1\)"),
    ("sort descending", lambda k: sort_args(k, descending=None), INVALID, r"descending=None"),
    ("sort self bool", lambda k: sort_args(k, self=tensor(k["x_ptr"], (2, 4), acl.ACL_BOOL),
                                           values_out=tensor(k["v_ptr"], (2, 4), acl.ACL_BOOL)),
     INVALID, r"self\.dataType=ACL_BOOL is not supported"),
    ("sort values type", lambda k: sort_args(k, values_out=tensor(k["v_ptr"], (2, 4),
                                                                  acl.ACL_INT32)),
     INVALID, r"values_out\.dataType=ACL_INT32 differs from self\.dataType=ACL_FLOAT"),
    ("sort indices type", lambda k: sort_args(k, indices_out=tensor(k["i_ptr"], (2, 4),
                                                                    acl.ACL_INT32)),
     INVALID, r"indices_out\.dataType=ACL_INT32 is not supported \(supported: ACL_INT64\)"),
    ("sort rank 9", lambda k: sort_args(k, self=tensor(k["x_ptr"], (1,) * 9, F), dim=0),
     INVALID, r"self has 9 dimensions"),
    ("sort values shape", lambda k: sort_args(k, values_out=k["reduced_values"]), INVALID,
     r"values_out\.shape=\(2,\) is not self\.shape=\(2, 4\) \(need \(2, 4\)\)"),
    ("sort outputs overlap", lambda k: sort_args(k, indices_out=tensor(k["v_ptr"], (2, 4), I64,
                                                                       storage=(8,))),
     INVALID, r"values_out and indices_out share device memory"),
    ("argsort out type", lambda k: argsort_args(k, out=k["values"]), INVALID,
     r"out\.dataType=ACL_FLOAT is not supported \(supported: ACL_INT64\)"),
    ("argsort out shape", lambda k: argsort_args(k, out=k["reduced_indices"]), INVALID,
     r"out\.shape=\(2,\) is not self\.shape=\(2, 4\)"),
    ("argsort self NULL", lambda k: argsort_args(k, self=tensor(0, (2, 4), F)), INVALID,
     r"self\.tensor_data is NULL"),
    ("kth k 0", lambda k: kth_args(k, k=0), INVALID,
     r"k=0 is out of range for self\.size\(1\)=4 \(need 1 <= k <= 4\)"),
    ("kth k 5", lambda k: kth_args(k, k=5), INVALID, r"k=5 is out of range"),
    ("kth k bool", lambda k: kth_args(k, k=True), INVALID, r"k=True \(bool\) is invalid"),
    ("kth dim before k", lambda k: kth_args(k, dim=3, k=9), INVALID, r"dim=3"),
    ("kth k before keepdim", lambda k: kth_args(k, k=9, keepdim=3), INVALID, r"k=9"),
    ("kth keepdim", lambda k: kth_args(k, keepdim=3), INVALID, r"keepdim=3 \(int\)"),
    ("kth shape", lambda k: kth_args(k, keepdim=True), INVALID,
     r"values_out\.shape=\(2,\) is not self\.shape=\(2, 4\) reduced at dim=1 \(kept as 1\) "
     r"\(need \(2, 1\)\)"),
    ("kth indices twice", lambda k: kth_args(k, indices_out=tensor(k["i_ptr"], (2,), I64,
                                                                   strides=(0,))),
     INVALID, r"indices_out's strides \(0,\) with view_dims \(2,\) address an element twice"),
    ("median dim empty", lambda k: median_dim_args(k, self=tensor(0, (2, 0), F)), INVALID,
     r"self\.size\(1\)=0 has no median"),
    ("median dim shape", lambda k: median_dim_args(k, dim=0), INVALID,
     r"values_out\.shape=\(2,\) is not self\.shape=\(2, 4\) reduced at dim=0 \(need \(4,\)\)"),
    ("median empty", lambda k: median_args(k, self=tensor(0, (0, 3), F)), INVALID,
     r"self is empty \(shape \(0, 3\)\), which has no median"),
    ("median out shape", lambda k: median_args(k, values_out=k["reduced_values"]), INVALID,
     r"values_out\.shape=\(2,\) is not 0-d or \(1,\)"),
    ("median out type", lambda k: median_args(k, values_out=tensor(k["v_ptr"], (), I64)),
     INVALID, r"values_out\.dataType=ACL_INT64 differs"),
    ("median None", lambda k: median_args(k, values_out=None), NULL, r"values_out is None"),
]


@pytest.mark.parametrize("name, make, code, pattern", PHASE1_ERRORS,
                         ids=[p[0] for p in PHASE1_ERRORS])
def test_phase1_errors(kit, name, make, code, pattern):
    op, a = make(kit)
    before = memory()
    assert getattr(aclnn, f"aclnn{op}GetWorkspaceSize")(**a) == (0, None, code)
    message = aclnn.aclGetRecentErrMsg()
    assert message.startswith(f"aclnn{op}GetWorkspaceSize(): ")
    assert re.search(pattern, message), message
    assert memory() == before


def test_phase2_checks(kit, stream):
    _, a = kth_args(kit)
    ws, executor, _ = aclnn.aclnnKthvalueGetWorkspaceSize(**a)
    assert aclnn.aclnnKthvalue(None, ws, None, stream) == NULL
    assert aclnn.aclnnSort(None, 0, executor, stream) == INVALID
    assert "was made by aclnnKthvalueGetWorkspaceSize, not aclnnSortGetWorkspaceSize" in \
        aclnn.aclGetRecentErrMsg()
    assert aclnn.aclnnKthvalue(None, ws, executor, stream) == 0
    assert aclnn.aclnnKthvalue(None, ws, executor, stream) == INVALID
    assert get(kit["i_ptr"], 16).tolist() == [0x5A] * 16  # queued, not run
    assert acl.rt.synchronize_stream(stream) == 0
    assert read(kit["reduced_indices"]).tolist() == [1, 1]
    assert read(kit["reduced_values"]).tolist() == [1.0, 5.0]
