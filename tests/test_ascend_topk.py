"""aclnnTopk through axisops.ascend: the sample, the contract's order, every check and code.

Error paths are table rows (arguments that break one rule, the code, a pattern
the recorded message must match); each also checks that no byte changed.
"""

import re

import numpy as np
import pytest

import axisops
from axisops.ascend import acl, aclnn
from axisops.ascend.runtime import CONTEXT

from ascend_helpers import (
    SENTINEL,
    TOPK_TYPES,
    filled,
    get,
    host_tensor,
    put,
    read,
    snapshot,
    tensor,
)

F, I64 = acl.ACL_FLOAT, acl.ACL_INT64
NULL, INVALID = 161001, 161002
TYPES = TOPK_TYPES


def out_tensor(dims, data_type):
    itemsize = np.dtype(TYPES[data_type]).itemsize
    return tensor(filled(max(int(np.prod(dims)), 1) * itemsize), dims, data_type)


def topk(x, k, dim, largest=True, sorted=True, stream=None, data_type=F):
    """Run aclnnTopk on host array ``x``; return (values, indices) read back."""
    want_shape = list(x.shape) or []
    if x.ndim:
        want_shape[dim] = k
    self = host_tensor(x, data_type)
    values, indices = out_tensor(tuple(want_shape), data_type), out_tensor(tuple(want_shape), I64)
    ws, executor, ret = aclnn.aclnnTopkGetWorkspaceSize(self, k, dim, largest, sorted, values,
                                                        indices)
    assert (ws, ret) == (0, 0), aclnn.aclGetRecentErrMsg()
    assert aclnn.aclnnTopk(None, ws, executor, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    return read(values), read(indices)


# --- the sample and the seed pages --------------------------------------------------------

def test_topk_sample(stream):
    x = np.array([[0, 1, 2.5, 3], [4, 5.5, 6, 7]], np.float32)
    values, indices = topk(x, 2, 1, stream=stream)
    assert values.ravel().tolist() == [3, 2.5, 7, 6]
    assert indices.ravel().tolist() == [3, 2, 3, 2]


X = np.array([[[[0, 1, 10, 11], [3, 2, 9, 8], [4, 5, 6, 7]]]], np.float32)
Y = np.array([[[[1, 2, 2, 3], [3, 4, 5, 5], [6, 6, 6, 6]]]], np.float32)


@pytest.mark.parametrize("x, k, dim, largest, values, indices", [
    (X, 2, 3, True, [[[[11, 10], [9, 8], [7, 6]]]], [[[[3, 2], [2, 3], [3, 2]]]]),
    (X, 2, 2, True, [[[[4, 5, 10, 11], [3, 2, 9, 8]]]], [[[[2, 2, 0, 0], [1, 1, 1, 1]]]]),
    (Y, 3, 3, True, [[[[3, 2, 2], [5, 5, 4], [6, 6, 6]]]], [[[[3, 1, 2], [2, 3, 1], [0, 1, 2]]]]),
    (Y, 3, -1, False, [[[[1, 2, 2], [3, 4, 5], [6, 6, 6]]]], [[[[0, 1, 2], [0, 1, 2], [0, 1, 2]]]]),
], ids=["axis3", "axis2", "ties", "smallest"])
def test_contract_examples(stream, x, k, dim, largest, values, indices):
    got_v, got_i = topk(x, k, dim, largest, stream=stream)
    assert got_v.tolist() == values and got_i.tolist() == indices


@pytest.mark.parametrize("data_type", list(TYPES), ids=lambda t: TYPES[t].__name__)
def test_every_type_matches_axisops_topk(stream, data_type):
    rng = np.random.default_rng(data_type)
    x = rng.integers(0, 5, (3, 7)).astype(TYPES[data_type])  # tie-heavy
    for dim, largest in ((1, True), (0, False)):
        values, indices = topk(x, 2, dim, largest, stream=stream, data_type=data_type)
        want = axisops.topk(x, 2, dim, largest=largest)
        assert values.tobytes() == want.values.tobytes()
        assert indices.tolist() == want.indices.tolist()


def test_nan_is_greatest_and_ties_go_to_the_lower_index(stream):
    x = np.array([1.0, np.nan, np.inf, -0.0, 0.0, np.nan], np.float64)
    values, indices = topk(x, 4, 0, stream=stream, data_type=acl.ACL_DOUBLE)
    assert indices.tolist() == [1, 5, 2, 0]
    values, indices = topk(x, 3, 0, False, stream=stream, data_type=acl.ACL_DOUBLE)
    assert indices.tolist() == [3, 4, 0] and np.signbit(values[0]) and not np.signbit(values[1])


def test_unsorted_output_holds_the_same_elements(stream):
    x = np.random.default_rng(1).permutation(50).astype(np.int32)
    values, indices = topk(x, 7, 0, True, False, stream=stream, data_type=acl.ACL_INT32)
    want = axisops.topk(x, 7, 0, sorted=False)
    assert values.tolist() == want.values.tolist() and indices.tolist() == want.indices.tolist()
    assert sorted(values.tolist()) == list(range(43, 50))
    assert (x[indices] == values).all()


def test_zero_dim_self(stream):
    x = np.array(2.5, np.float32)
    values, indices = topk(x, 1, -1, stream=stream)
    assert values.shape == () and values.tolist() == 2.5 and indices.tolist() == 0
    self = host_tensor(x, F)
    v0, i0 = tensor(0, (0,), F), tensor(0, (0,), I64)
    assert aclnn.aclnnTopkGetWorkspaceSize(self, 0, 0, True, True, v0, i0)[2] == 0
    v, i = out_tensor((), F), out_tensor((), I64)
    assert aclnn.aclnnTopkGetWorkspaceSize(self, 2, 0, True, True, v, i)[2] == INVALID
    assert "k=2 is out of range for a 0-d self (one element) (need 0 <= k <= 1)" in \
        aclnn.aclGetRecentErrMsg()
    assert aclnn.aclnnTopkGetWorkspaceSize(self, 1, 1, True, True, v, i)[2] == INVALID
    assert "dim=1 is out of range for a tensor of 0 dimensions (need -1 <= dim <= 0)" in \
        aclnn.aclGetRecentErrMsg()
    assert aclnn.aclnnTopkGetWorkspaceSize(self, 0, 0, True, True, v, i)[2] == INVALID
    assert "values_out.shape=() is not self.shape=() with size k=0" in aclnn.aclGetRecentErrMsg()


@pytest.mark.parametrize("self_dims, k, dim, out_dims", [
    ((2, 4), 0, 1, (2, 0)),      # k = 0: empty outputs
    ((0, 4), 0, 0, (0, 4)),      # empty self
    ((3, 0), 0, 1, (3, 0)),
    ((2, 4), 2, 1, (0,)),        # an empty output skips the shape check, as CANN does
])
def test_empty_tensors_succeed_and_write_nothing(stream, self_dims, k, dim, out_dims):
    self = tensor(put(np.zeros(8, np.float32)) if 0 not in self_dims else 0, self_dims, F)
    values, indices = tensor(0, out_dims, F), tensor(0, out_dims, I64)
    before = snapshot()
    ws, executor, ret = aclnn.aclnnTopkGetWorkspaceSize(self, k, dim, True, True, values, indices)
    assert (ws, ret) == (0, 0)
    assert aclnn.aclnnTopk(None, ws, executor, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    assert snapshot() == before


def test_non_contiguous_views_with_offsets(stream):
    base = np.random.default_rng(3).integers(-50, 50, 64).astype(np.int64)
    ptr = put(base)
    # self: a transposed (5, 3) block starting 9 elements in, viewed as (3, 5).
    logical = base[9:24].reshape(5, 3).T
    self = tensor(ptr, (3, 5), I64, strides=(1, 3), offset=9, storage=(64,))
    v_ptr, i_ptr = filled(256), filled(256)
    values = tensor(v_ptr, (3, 2), I64, strides=(1, 4), offset=3, storage=(32,))
    indices = tensor(i_ptr, (3, 2), I64, strides=(3, 1), offset=11, storage=(32,))
    ws, executor, ret = aclnn.aclnnTopkGetWorkspaceSize(self, 2, 1, True, True, values, indices)
    assert ret == 0
    assert aclnn.aclnnTopk(None, ws, executor, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    want = axisops.topk(logical, 2, 1)
    assert read(values).tolist() == want.values.tolist()
    assert read(indices).tolist() == want.indices.tolist()
    for p, t in ((v_ptr, values), (i_ptr, indices)):
        raw = get(p, 256)
        hit = {8 * (t.offset + a * t.strides[0] + b * t.strides[1]) + byte
               for a in range(3) for b in range(2) for byte in range(8)}
        assert all(raw[j] == SENTINEL for j in range(256) if j not in hit)


def test_output_may_alias_the_input(stream):
    ptr = put(np.array([[1, 9, 5, 7]], np.int32))
    self = tensor(ptr, (1, 4), acl.ACL_INT32)
    values = tensor(ptr, (1, 4), acl.ACL_INT32)  # sort in place
    indices = out_tensor((1, 4), I64)
    ws, executor, _ = aclnn.aclnnTopkGetWorkspaceSize(self, 4, 1, False, True, values, indices)
    assert aclnn.aclnnTopk(None, ws, executor, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    assert read(values).tolist() == [[1, 5, 7, 9]] and read(indices).tolist() == [[0, 2, 3, 1]]


def test_stale_until_synchronize_and_freed_memory_is_507015(stream):
    x = np.array([3, 1, 2], np.float32)
    self = host_tensor(x, F)
    values, indices = out_tensor((2,), F), out_tensor((2,), I64)
    ws, executor, _ = aclnn.aclnnTopkGetWorkspaceSize(self, 2, 0, True, True, values, indices)
    assert aclnn.aclSetAclOpExecutorRepeatable(executor) == 0
    assert aclnn.aclnnTopk(None, ws, executor, stream) == 0
    assert get(values.data, 8).tolist() == [SENTINEL] * 8
    assert acl.rt.synchronize_stream(stream) == 0
    assert read(values).tolist() == [3, 2] and read(indices).tolist() == [0, 2]
    assert aclnn.aclnnTopk(None, ws, executor, stream) == 0
    assert acl.rt.free(self.data) == 0
    assert acl.rt.synchronize_stream(stream) == 507015
    assert re.search(r"aclnnTopk \(launch 2 of executor #\d+ \(aclnnTopk\)\) on stream "
                     r"0x[0-9a-f]+ failed: the AI Core could not access self: self\.tensor_data="
                     r"0x[0-9a-f]+ points into the 12-byte device allocation", aclnn.aclGetRecentErrMsg())
    assert aclnn.aclDestroyAclOpExecutor(executor) == 0


# --- phase 1: every rule, in order -----------------------------------------------------------

@pytest.fixture
def kit(stream):
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    k = {"x_ptr": put(x), "v_ptr": filled(64), "i_ptr": filled(64)}
    k["self"] = tensor(k["x_ptr"], (2, 4), F)
    k["values"] = tensor(k["v_ptr"], (2, 2), F)
    k["indices"] = tensor(k["i_ptr"], (2, 2), I64)
    return k


def args(kit, /, **changes):
    a = dict(self=kit["self"], k=2, dim=1, largest=True, sorted=True, values_out=kit["values"],
             indices_out=kit["indices"])
    a.update(changes)
    return a


def _destroyed(t):
    assert aclnn.aclDestroyTensor(t) == 0
    return t


PHASE1_ERRORS = [
    ("self None", lambda k: args(k, self=None), NULL, r"self is None"),
    ("values None", lambda k: args(k, values_out=None), NULL, r"values_out is None"),
    ("indices None", lambda k: args(k, indices_out=None), NULL, r"indices_out is None"),
    ("None before dim", lambda k: args(k, indices_out=None, dim=5), NULL, r"indices_out is None"),
    ("not a tensor", lambda k: args(k, values_out=[1, 2]), INVALID,
     r"values_out=\[1, 2\] \(list\) is not an aclTensor"),
    ("destroyed", lambda k: args(k, self=_destroyed(k["self"])), INVALID,
     r"self was destroyed by aclDestroyTensor"),
    ("dim 2", lambda k: args(k, dim=2), INVALID,
     r"dim=2 is out of range for a tensor of 2 dimensions \(need -2 <= dim <= 1\)"),
    ("dim -3", lambda k: args(k, dim=-3), INVALID, r"dim=-3 is out of range"),
    ("dim float", lambda k: args(k, dim=1.0), INVALID, r"dim=1\.0 \(float\) is invalid"),
    ("dim before k", lambda k: args(k, dim=9, k=99), INVALID, r"dim=9"),
    ("k 5", lambda k: args(k, k=5), INVALID,
     r"k=5 is out of range for self\.size\(1\)=4 \(need 0 <= k <= 4\)"),
    ("k -1", lambda k: args(k, k=-1), INVALID, r"k=-1 is out of range"),
    ("k bool", lambda k: args(k, k=True), INVALID, r"k=True \(bool\) is invalid \(need an integer\)"),
    ("k float", lambda k: args(k, k=2.0), INVALID, r"k=2\.0 \(float\)"),
    ("k before dtype", lambda k: args(k, k=5, self=tensor(k["x_ptr"], (2, 4), acl.ACL_BOOL)),
     INVALID, r"k=5"),
    ("largest", lambda k: args(k, largest="yes"), INVALID,
     r"largest='yes' \(str\) is invalid \(need True or False\)"),
    ("sorted 2", lambda k: args(k, sorted=2), INVALID, r"sorted=2 \(int\)"),
    ("self bool", lambda k: args(k, self=tensor(k["x_ptr"], (2, 4), acl.ACL_BOOL),
                                 values_out=tensor(k["v_ptr"], (2, 2), acl.ACL_BOOL)), INVALID,
     r"self\.dataType=ACL_BOOL is not supported \(supported: ACL_FLOAT, ACL_FLOAT16, ACL_BF16"),
    ("self complex", lambda k: args(k, self=tensor(k["x_ptr"], (2, 2), acl.ACL_COMPLEX64),
                                    dim=0), INVALID, r"self\.dataType=ACL_COMPLEX64"),
    ("values type", lambda k: args(k, values_out=tensor(k["v_ptr"], (2, 2), acl.ACL_DOUBLE)),
     INVALID, r"values_out\.dataType=ACL_DOUBLE differs from self\.dataType=ACL_FLOAT"),
    ("indices int32", lambda k: args(k, indices_out=tensor(k["i_ptr"], (2, 2), acl.ACL_INT32)),
     INVALID, r"indices_out\.dataType=ACL_INT32 is not supported \(supported: ACL_INT64\)"),
    ("dtype before rank", lambda k: args(k, self=tensor(k["x_ptr"], (1,) * 9, acl.ACL_BOOL),
                                         dim=0, k=1), INVALID, r"self\.dataType=ACL_BOOL"),
    ("rank 9", lambda k: args(k, self=tensor(k["x_ptr"], (1,) * 9, F), dim=0, k=1), INVALID,
     r"self has 9 dimensions \(1, 1, 1, 1, 1, 1, 1, 1, 1\) \(need at most 8\)"),
    ("values shape", lambda k: args(k, values_out=tensor(k["v_ptr"], (2, 3), F)), INVALID,
     r"values_out\.shape=\(2, 3\) is not self\.shape=\(2, 4\) with size k=2 at dim=1 "
     r"\(need \(2, 2\)\)"),
    ("indices shape", lambda k: args(k, indices_out=tensor(k["i_ptr"], (2, 2, 1), I64)),
     INVALID, r"indices_out\.shape=\(2, 2, 1\)"),
    ("shape at dim 0", lambda k: args(k, dim=0), INVALID, r"values_out\.shape=\(2, 2\) is not "
                                                         r"self\.shape=\(2, 4\) with size k=2 at "
                                                         r"dim=0 \(need \(2, 4\)\)"),
    # Beyond CANN: placement and outputs.
    ("self NULL", lambda k: args(k, self=tensor(0, (2, 4), F)), INVALID,
     r"self\.tensor_data is NULL"),
    ("values past end", lambda k: args(k, values_out=tensor(k["v_ptr"] + 56, (2, 2), F)),
     INVALID, r"values_out's view addresses bytes \[56, 72\) of the 64-byte device allocation"),
    ("indices on host", lambda k: args(k, indices_out=tensor(
        acl.util.numpy_to_ptr(np.zeros(4, np.int64)), (2, 2), I64)), INVALID,
     r"indices_out\.tensor_data=0x[0-9a-f]+ is host memory"),
    ("self past storage", lambda k: args(k, self=tensor(k["x_ptr"], (2, 4), F, offset=1,
                                                        storage=(8,))), INVALID,
     r"self's view reaches storage element 8 but storage_dims=\(8,\) hold 8 elements"),
    ("misaligned", lambda k: args(k, indices_out=tensor(k["i_ptr"] + 4, (2, 2), I64)), INVALID,
     r"indices_out's first element is at 0x[0-9a-f]+4, which is not aligned for ACL_INT64"),
    ("values twice", lambda k: args(k, values_out=tensor(k["v_ptr"], (2, 2), F, strides=(1, 0))),
     INVALID, r"values_out's strides \(1, 0\) with view_dims \(2, 2\) address an element twice"),
    ("outputs overlap", lambda k: args(k, indices_out=tensor(k["v_ptr"] + 8, (2, 2), I64,
                                                             storage=(4,))), INVALID,
     r"values_out and indices_out share device memory"),
]


@pytest.mark.parametrize("name, make, code, pattern", PHASE1_ERRORS,
                         ids=[p[0] for p in PHASE1_ERRORS])
def test_phase1_errors(kit, name, make, code, pattern):
    a = make(kit)
    before = snapshot()
    assert aclnn.aclnnTopkGetWorkspaceSize(**a) == (0, None, code)
    message = aclnn.aclGetRecentErrMsg()
    assert message.startswith("aclnnTopkGetWorkspaceSize(): ")
    assert re.search(pattern, message), message
    assert snapshot() == before


def test_outputs_that_do_not_overlap_in_one_allocation_are_fine(kit, stream):
    values = tensor(kit["v_ptr"], (2, 2), F)
    indices = tensor(kit["v_ptr"] + 16, (2, 2), I64, storage=(4,))
    ws, executor, ret = aclnn.aclnnTopkGetWorkspaceSize(kit["self"], 2, 1, True, True, values,
                                                        indices)
    assert ret == 0 and aclnn.aclnnTopk(None, ws, executor, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    raw = get(kit["v_ptr"], 64)
    assert raw[:16].view(np.float32).tolist() == [3, 2, 7, 6]
    assert raw[16:48].view(np.int64).tolist() == [3, 2, 3, 2]
    assert raw[48:].tolist() == [SENTINEL] * 16


def test_phase2_checks(kit, stream):
    ws, executor, _ = aclnn.aclnnTopkGetWorkspaceSize(**args(kit))
    assert aclnn.aclnnTopk(None, ws, None, stream) == NULL
    assert aclnn.aclnnTopk(None, 8, executor, stream) == NULL
    assert "workspace is NULL but workspace_size=8 > 0" in aclnn.aclGetRecentErrMsg()
    gather_executor = aclnn.aclnnGatherGetWorkspaceSize(
        kit["self"], 1, host_tensor(np.zeros((2, 2), np.int64), I64), kit["values"])[1]
    assert aclnn.aclnnTopk(None, 0, gather_executor, stream) == INVALID
    assert "was made by aclnnGatherGetWorkspaceSize, not aclnnTopkGetWorkspaceSize" in \
        aclnn.aclGetRecentErrMsg()
    assert CONTEXT.find_stream(stream).pending == 0
    assert aclnn.aclnnTopk(None, ws, executor, stream) == 0
    assert aclnn.aclnnTopk(None, ws, executor, stream) == INVALID
    assert acl.rt.synchronize_stream(stream) == 0
