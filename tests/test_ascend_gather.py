"""aclnnGather through axisops.ascend: the seed examples, every check and code, executors, streams.

Error paths are table rows: the arguments that break one rule, the code, and a
pattern the recorded message must match (rule, argument, value).  Each row also
checks that no byte of device or host memory changed.
"""

import re

import ml_dtypes
import numpy as np
import pytest

from axisops.ascend import acl, aclnn
from axisops.ascend._executors import Executor  # white-box: executors with a crafted task

from ascend_helpers import (
    GATHER_TYPES,
    H2D,
    ND,
    SENTINEL,
    filled,
    get,
    host_tensor,
    memory,
    pending,
    put,
    read,
    tensor,
)
from oracle import ref_gather

TYPES = GATHER_TYPES


def run(self, dim, index, out, stream):
    ws, executor, ret = aclnn.aclnnGatherGetWorkspaceSize(self, dim, index, out)
    assert (ws, ret) == (0, 0), aclnn.aclGetRecentErrMsg()
    assert aclnn.aclnnGather(None, ws, executor, stream) == 0
    return acl.rt.synchronize_stream(stream)


# --- the seed page and the official sample ------------------------------------------------

SEED_X = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
SEED_INDEX = np.array([[0, 2], [1, 0]])


@pytest.mark.parametrize("dim, want", [(0, [[1, 8], [4, 2]]), (1, [[1, 3], [5, 4]])])
@pytest.mark.parametrize("index_type", [acl.ACL_INT32, acl.ACL_INT64])
def test_seed_examples(stream, dim, want, index_type):
    x = host_tensor(SEED_X.astype(np.float32), acl.ACL_FLOAT)
    index = host_tensor(SEED_INDEX.astype(TYPES[index_type]), index_type)
    out = host_tensor(np.zeros((2, 2), np.float32), acl.ACL_FLOAT)
    assert run(x, dim, index, out, stream) == 0
    assert read(out).tolist() == want


def test_official_sample_steps(stream):
    x = host_tensor(np.arange(8, dtype=np.float32).reshape(4, 2), acl.ACL_FLOAT)
    index = host_tensor(np.array([0, 1, 2, 3, 3, 2, 1, 0]).reshape(4, 2), acl.ACL_INT64)
    out = host_tensor(np.zeros((4, 2), np.float32), acl.ACL_FLOAT)
    assert run(x, 0, index, out, stream) == 0
    assert read(out).ravel().tolist() == [0, 3, 4, 7, 6, 5, 2, 1]


@pytest.mark.parametrize("data_type", list(TYPES), ids=lambda t: str(TYPES[t].__name__))
def test_every_self_type_matches_the_oracle(stream, data_type):
    rng = np.random.default_rng(data_type)
    x = rng.integers(-100, 100, (3, 5)).astype(TYPES[data_type])
    idx = rng.integers(-3, 3, (4, 5)).astype(np.int32)
    out = host_tensor(np.zeros((4, 5), TYPES[data_type]), data_type)
    assert run(host_tensor(x, data_type), 0, host_tensor(idx, acl.ACL_INT32), out, stream) == 0
    want = ref_gather(x, 0, idx)
    assert read(out).tobytes() == want.tobytes()


def test_formats_nchw_and_nhwc_are_treated_as_nd(stream):
    x = np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4)
    idx = np.zeros((1, 2, 3, 2), np.int64)
    idx[..., 1] = 3
    for fmt in (acl.ACL_FORMAT_NCHW, acl.ACL_FORMAT_NHWC):
        xt = aclnn.aclCreateTensor(x.shape, acl.ACL_FLOAT, None, 0, fmt, x.shape, put(x))
        it = aclnn.aclCreateTensor(idx.shape, acl.ACL_INT64, None, 0, fmt, idx.shape, put(idx))
        out = aclnn.aclCreateTensor(idx.shape, acl.ACL_FLOAT, None, 0, fmt, idx.shape,
                                    filled(idx.size * 4))
        assert run(xt, -1, it, out, stream) == 0
        assert read(out).tolist() == ref_gather(x, 3, idx).tolist()


# --- phase 1: every rule, in order -----------------------------------------------------------

@pytest.fixture
def kit(stream):
    """Valid arguments (self (3, 4) FLOAT, index (2, 4) INT64, out (2, 4) FLOAT, dim 0), and
    a way to make variants of the tensors."""
    x = np.arange(12, dtype=np.float32).reshape(3, 4)
    idx = np.array([[0, 1, 2, 0], [2, 1, 0, 2]])
    k = {"x_ptr": put(x), "i_ptr": put(idx), "o_ptr": filled(32), "host": np.zeros(12, np.float32)}
    k["self"] = tensor(k["x_ptr"], (3, 4), acl.ACL_FLOAT)
    k["index"] = tensor(k["i_ptr"], (2, 4), acl.ACL_INT64)
    k["out"] = tensor(k["o_ptr"], (2, 4), acl.ACL_FLOAT)
    return k


def _destroyed(t):
    assert aclnn.aclDestroyTensor(t) == 0
    return t


def _freed(k):
    ptr = put(np.zeros(12, np.float32))
    t = tensor(ptr, (3, 4), acl.ACL_FLOAT)
    assert acl.rt.free(ptr) == 0
    return t


F, I64 = acl.ACL_FLOAT, acl.ACL_INT64
NULL, INVALID = 161001, 161002

# (id, (self, dim, index, out) from the kit, code, pattern)
PHASE1_ERRORS = [
    ("self None", lambda k: (None, 0, k["index"], k["out"]), NULL, r"self is None"),
    ("index None", lambda k: (k["self"], 0, None, k["out"]), NULL, r"index is None"),
    ("out None", lambda k: (k["self"], 0, k["index"], None), NULL, r"out is None"),
    ("None before dtype", lambda k: (k["self"], 0, None, tensor(k["o_ptr"], (2, 4), I64)),
     NULL, r"index is None"),
    ("self not a tensor", lambda k: (np.zeros((3, 4)), 0, k["index"], k["out"]), INVALID,
     r"self=array\(\[\[0\., 0\., 0\., 0\.\], \[0\., .*\.\.\. \(ndarray\) is not an aclTensor"),
    ("index destroyed", lambda k: (k["self"], 0, _destroyed(k["index"]), k["out"]), INVALID,
     r"index was destroyed by aclDestroyTensor"),
    ("self complex64", lambda k: (tensor(k["x_ptr"], (3, 2), acl.ACL_COMPLEX64), 0, k["index"],
                                  tensor(k["o_ptr"], (2, 4), acl.ACL_COMPLEX64)), INVALID,
     r"self\.dataType=ACL_COMPLEX64 is not supported by aclnnGather"),
    ("self complex128", lambda k: (tensor(k["x_ptr"], (3, 1), acl.ACL_COMPLEX128), 0,
                                   k["index"], k["out"]), INVALID,
     r"self\.dataType=ACL_COMPLEX128 is not supported"),
    ("index float", lambda k: (k["self"], 0, tensor(k["i_ptr"], (2, 4), F), k["out"]), INVALID,
     r"index\.dataType=ACL_FLOAT is not supported \(supported: ACL_INT32, ACL_INT64\)"),
    ("index int16", lambda k: (k["self"], 0, tensor(k["i_ptr"], (2, 4), acl.ACL_INT16),
                               k["out"]), INVALID, r"index\.dataType=ACL_INT16"),
    ("index uint64", lambda k: (k["self"], 0, tensor(k["i_ptr"], (2, 4), acl.ACL_UINT64),
                                k["out"]), INVALID, r"index\.dataType=ACL_UINT64"),
    ("index bool", lambda k: (k["self"], 0, tensor(k["i_ptr"], (2, 4), acl.ACL_BOOL),
                              k["out"]), INVALID, r"index\.dataType=ACL_BOOL"),
    ("out type", lambda k: (k["self"], 0, k["index"], tensor(k["o_ptr"], (2, 4), acl.ACL_FLOAT16)),
     INVALID, r"out\.dataType=ACL_FLOAT16 differs from self\.dataType=ACL_FLOAT"),
    ("dtype before rank", lambda k: (k["self"], 0, tensor(k["i_ptr"], (8,), F), k["out"]),
     INVALID, r"index\.dataType=ACL_FLOAT"),
    ("rank mismatch", lambda k: (k["self"], 0, tensor(k["i_ptr"], (8,), I64),
                                 tensor(k["o_ptr"], (8,), F)), INVALID,
     r"index has 1 dimensions \(8,\) but self has 2 \(3, 4\)"),
    ("rank 9", lambda k: (tensor(k["x_ptr"], (1,) * 9, F), 0, tensor(k["i_ptr"], (1,) * 9, I64),
                          tensor(k["o_ptr"], (1,) * 9, F)), INVALID,
     r"self has 9 dimensions \(1, 1, 1, 1, 1, 1, 1, 1, 1\) \(need at most 8\)"),
    ("rank before out shape", lambda k: (tensor(k["x_ptr"], (1,) * 9, F), 0,
                                         tensor(k["i_ptr"], (1,) * 9, I64), k["out"]),
     INVALID, r"self has 9 dimensions"),
    ("out shape", lambda k: (k["self"], 0, k["index"], tensor(k["o_ptr"], (4, 2), F)), INVALID,
     r"out\.shape=\(4, 2\) differs from index\.shape=\(2, 4\)"),
    ("out shape before dim", lambda k: (k["self"], 7, k["index"], tensor(k["o_ptr"], (8,), F)),
     INVALID, r"out\.shape"),
    ("dim 2", lambda k: (k["self"], 2, k["index"], k["out"]), INVALID,
     r"dim=2 is out of range for a tensor of 2 dimensions \(need -2 <= dim <= 1\)"),
    ("dim -3", lambda k: (k["self"], -3, k["index"], k["out"]), INVALID, r"dim=-3 is out of range"),
    ("dim bool", lambda k: (k["self"], True, k["index"], k["out"]), INVALID,
     r"dim=True \(bool\) is invalid \(need an integer\)"),
    ("dim float", lambda k: (k["self"], 0.0, k["index"], k["out"]), INVALID, r"dim=0\.0 \(float\)"),
    ("index too wide", lambda k: (k["self"], 0, tensor(k["i_ptr"], (1, 5), I64, storage=(8,)),
                                  tensor(k["o_ptr"], (1, 5), F)), INVALID,
     r"index\.size\(1\)=5 exceeds self\.size\(1\)=4 \(need index\.size\(d\) <= self\.size\(d\) "
     r"for every d != dim=0\)"),
    ("dim before sizes", lambda k: (k["self"], 5, tensor(k["i_ptr"], (1, 5), I64, storage=(8,)),
                                    tensor(k["o_ptr"], (1, 5), F)), INVALID, r"dim=5"),
    ("empty self dim", lambda k: (tensor(k["x_ptr"], (0, 4), F), 0, k["index"], k["out"]),
     INVALID, r"index is non-empty \(2, 4\) but self\.size\(0\)=0"),
    # Beyond CANN: where the views live.
    ("self NULL", lambda k: (tensor(0, (3, 4), F), 0, k["index"], k["out"]), INVALID,
     r"self\.tensor_data is NULL \(0\)"),
    ("self unowned", lambda k: (tensor(0x1234, (3, 4), F), 0, k["index"], k["out"]), INVALID,
     r"self\.tensor_data=0x1234 is not owned by any device allocation"),
    ("self freed", lambda k: (_freed(k), 0, k["index"], k["out"]), INVALID,
     r"self\.tensor_data=0x[0-9a-f]+ points into the 48-byte device allocation .* was freed"),
    ("self on host", lambda k: (tensor(acl.util.numpy_to_ptr(k["host"]), (3, 4), F), 0,
                                k["index"], k["out"]), INVALID,
     r"self\.tensor_data=0x[0-9a-f]+ is host memory, in the 48-byte registered host buffer"),
    ("self past allocation", lambda k: (tensor(k["x_ptr"], (3, 4), F, offset=4, storage=(16,)),
                                        0, k["index"], k["out"]), INVALID,
     r"self's view addresses bytes \[16, 64\) of the 48-byte device allocation"),
    ("index past allocation", lambda k: (k["self"], 0, tensor(k["i_ptr"] + 8, (2, 4), I64),
                                         k["out"]), INVALID,
     r"index's view addresses bytes \[8, 72\) of the 64-byte device allocation"),
    ("self past storage", lambda k: (tensor(k["x_ptr"], (3, 4), F, storage=(2, 4)), 0,
                                     k["index"], k["out"]), INVALID,
     r"self's view reaches storage element 11 but storage_dims=\(2, 4\) hold 8 elements"),
    ("strided past storage", lambda k: (tensor(k["x_ptr"], (3, 4), F, strides=(1, 4),
                                               storage=(12,)), 0, k["index"], k["out"]),
     INVALID, r"self's view reaches storage element 14 but storage_dims=\(12,\) hold 12"),
    ("misaligned", lambda k: (tensor(k["x_ptr"] + 2, (2, 4), F, storage=(8,)), 0, k["index"],
                              k["out"]), INVALID,
     r"self's first element is at 0x[0-9a-f]+2, which is not aligned for ACL_FLOAT "
     r"\(need a multiple of 4\)"),
    ("out broadcast", lambda k: (k["self"], 0, k["index"], tensor(k["o_ptr"], (2, 4), F,
                                                                   strides=(0, 1))), INVALID,
     r"out's strides \(0, 1\) with view_dims \(2, 4\) address an element twice"),
    ("out interleaved", lambda k: (k["self"], 0, k["index"], tensor(k["o_ptr"], (2, 4), F,
                                                                     strides=(1, 1))), INVALID,
     r"out's strides \(1, 1\) .* address an element twice"),
]


@pytest.mark.parametrize("name, args, code, pattern", PHASE1_ERRORS,
                         ids=[p[0] for p in PHASE1_ERRORS])
def test_phase1_errors(kit, name, args, code, pattern):
    arguments = args(kit)
    before = memory()
    assert aclnn.aclnnGatherGetWorkspaceSize(*arguments) == (0, None, code)
    message = aclnn.aclGetRecentErrMsg()
    assert message.startswith("aclnnGatherGetWorkspaceSize(): ")
    assert re.search(pattern, message), message
    assert memory() == before
    assert aclnn.aclGetRecentErrMsg() is None  # reading cleared it


def test_empty_index_succeeds_with_an_executor_that_does_nothing(stream):
    out_ptr = filled(16)
    x = tensor(0, (3, 4), F)  # never read: the index is empty
    index = tensor(0, (0, 4), I64)
    out = tensor(out_ptr, (0, 4), F)
    before = memory()
    ws, executor, ret = aclnn.aclnnGatherGetWorkspaceSize(x, 1, index, out)
    assert (ws, ret) == (0, 0) and executor is not None
    assert aclnn.aclnnGather(None, 0, executor, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    assert memory() == before


def test_empty_self_with_empty_index(stream):
    x, index, out = tensor(0, (0, 3), F), tensor(0, (0, 2), I64), tensor(0, (0, 2), F)
    ws, executor, ret = aclnn.aclnnGatherGetWorkspaceSize(x, 1, index, out)
    assert (ws, ret) == (0, 0)
    assert aclnn.aclnnGather(None, 0, executor, None) == 0
    assert acl.rt.synchronize_stream(None) == 0


# --- semantics ------------------------------------------------------------------------------

def test_negative_index_values_count_from_the_end(stream):
    x = np.array([[10, 20, 30], [40, 50, 60]], np.int32)
    idx = np.array([[-1, -3, 2], [0, -2, -1]], np.int64)
    out = host_tensor(np.zeros((2, 3), np.int32), acl.ACL_INT32)
    assert run(host_tensor(x, acl.ACL_INT32), 1, host_tensor(idx, I64), out, stream) == 0
    assert read(out).tolist() == [[30, 10, 30], [40, 50, 60]]


def test_index_dim_may_be_larger_than_self_and_other_dims_smaller(stream):
    x = np.arange(12, dtype=np.float64).reshape(3, 4)
    idx = np.array([[2, 0, 1, 2, 0, 1]]).T[:, :1].repeat(1, 1)  # (6, 1)
    out = host_tensor(np.zeros((6, 1)), acl.ACL_DOUBLE)
    assert run(host_tensor(x, acl.ACL_DOUBLE), 0, host_tensor(idx, I64), out, stream) == 0
    assert read(out).ravel().tolist() == [8, 0, 4, 8, 0, 4]


@pytest.mark.parametrize("bad, where", [(3, r"index\[1, 0\]=3"), (-4, r"index\[1, 0\]=-4")])
def test_out_of_range_index_is_507015_at_synchronize_and_out_is_untouched(stream, bad, where):
    x = host_tensor(np.arange(6, dtype=np.float32).reshape(3, 2), F)
    idx = host_tensor(np.array([[0, 1], [bad, 2]]), I64)
    out_ptr = filled(16)
    out = tensor(out_ptr, (2, 2), F)
    later_ptr = filled(16)
    later = tensor(later_ptr, (2, 2), F)
    ok = host_tensor(np.zeros((2, 2), np.int64), I64)
    ws, executor, ret = aclnn.aclnnGatherGetWorkspaceSize(x, 0, idx, out)
    assert ret == 0
    assert aclnn.aclnnGather(None, ws, executor, stream) == 0  # only queued
    ws2, executor2, _ = aclnn.aclnnGatherGetWorkspaceSize(x, 0, ok, later)
    assert aclnn.aclnnGather(None, ws2, executor2, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 507015
    message = aclnn.aclGetRecentErrMsg()
    assert re.search(rf"acl\.rt\.synchronize_stream\(\): aclnnGather \(launch 1 of executor "
                     rf"#\d+ \(aclnnGather\)\) on stream 0x[0-9a-f]+ failed: the AI Core hit an "
                     rf"out-of-range index: {where} is out of range for dim 0 of size 3 "
                     rf"\(need -3 <= index <= 2\) \(dim=0\); out was left untouched; the 1 task "
                     rf"queued after it was discarded", message), message
    assert get(out_ptr, 16).tolist() == [SENTINEL] * 16
    assert get(later_ptr, 16).tolist() == [SENTINEL] * 16
    # The stream keeps working.
    ws3, executor3, _ = aclnn.aclnnGatherGetWorkspaceSize(x, 0, ok, later)
    assert aclnn.aclnnGather(None, ws3, executor3, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    assert read(later).tolist() == [[0, 1], [0, 1]]


def test_non_contiguous_views_with_offsets(stream):
    # self: the transpose of a (4, 3) block that starts 5 elements into a shared buffer.
    base = np.arange(40, dtype=np.int16)
    shared = put(base)
    logical_x = base[5:17].reshape(4, 3).T  # (3, 4), strides (1, 3)
    x = tensor(shared, (3, 4), acl.ACL_INT16, strides=(1, 3), offset=5, storage=(40,))
    # index: every other element of a row, 20 elements into the same allocation as int32.
    idx_host = np.zeros(64, np.int32)
    idx_host[20:36:2] = [2, 0, 1, 2, 1, 1, 0, 2]
    index = tensor(put(idx_host), (2, 4), acl.ACL_INT32, strides=(8, 2), offset=20, storage=(64,))
    logical_idx = idx_host[20:36:2].reshape(2, 4)
    # out: column-major with padding, inside a sentinel-filled buffer.
    out_ptr = filled(64)
    out = tensor(out_ptr, (2, 4), acl.ACL_INT16, strides=(1, 3), offset=7, storage=(32,))
    assert run(x, 0, index, out, stream) == 0
    want = ref_gather(logical_x, 0, logical_idx)
    assert read(out).tolist() == want.tolist()
    raw = get(out_ptr, 64)
    addressed = {2 * (7 + i + 3 * j) + b for i in range(2) for j in range(4) for b in range(2)}
    assert all(raw[p] == SENTINEL for p in range(64) if p not in addressed)


def test_out_may_alias_self_and_sees_the_input_before_any_write(stream):
    ptr = put(np.array([[0, 1], [2, 3]], np.float32))
    x = tensor(ptr, (2, 2), F)
    out = tensor(ptr, (2, 2), F)
    idx = host_tensor(np.array([[1, 1], [0, 0]]), I64)
    assert run(x, 0, idx, out, stream) == 0
    assert read(out).tolist() == [[2, 3], [0, 1]]


def test_zero_dim_tensors_count_as_rank_one(stream):
    x = host_tensor(np.array(7.5, np.float32), F)
    out = host_tensor(np.array(0, np.float32), F)
    assert run(x, 0, host_tensor(np.array(0), I64), out, stream) == 0
    assert read(out).tolist() == 7.5
    out3 = host_tensor(np.zeros(3, np.float32), F)
    assert run(x, -1, host_tensor(np.array([0, -1, 0]), I64), out3, stream) == 0
    assert read(out3).tolist() == [7.5, 7.5, 7.5]
    assert aclnn.aclnnGatherGetWorkspaceSize(x, 1, host_tensor(np.array(0), I64), out)[2] == INVALID
    assert "dim=1 is out of range for a tensor of 0 dimensions (need -1 <= dim <= 0)" in \
        aclnn.aclGetRecentErrMsg()


def test_work_runs_only_at_synchronize_so_unsynchronised_reads_are_stale(stream):
    x = host_tensor(np.array([1.0, 2.0, 3.0], np.float32), F)
    idx = host_tensor(np.array([2, 1, 0]), I64)
    out_ptr = filled(12)
    out = tensor(out_ptr, (3,), F)
    ws, executor, _ = aclnn.aclnnGatherGetWorkspaceSize(x, 0, idx, out)
    assert aclnn.aclnnGather(None, ws, executor, stream) == 0
    assert get(out_ptr, 12).tolist() == [SENTINEL] * 12  # the forgotten synchronisation
    assert acl.rt.synchronize_stream(stream) == 0
    assert read(out).tolist() == [3.0, 2.0, 1.0]


def test_stream_runs_work_in_order(stream):
    x = host_tensor(np.array([5, 6, 7], np.int64), I64)
    mid = host_tensor(np.zeros(3, np.int64), I64)
    end = host_tensor(np.zeros(3, np.int64), I64)
    rev = host_tensor(np.array([2, 1, 0]), I64)
    for a, b in ((x, mid), (mid, end)):
        ws, executor, _ = aclnn.aclnnGatherGetWorkspaceSize(a, 0, rev, b)
        assert aclnn.aclnnGather(None, ws, executor, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    assert read(end).tolist() == [5, 6, 7]  # reversed twice: the second saw the first's output


def test_default_stream_and_destroy_stream_run_pending_work(stream):
    x = host_tensor(np.array([1, 2], np.int32), acl.ACL_INT32)
    idx = host_tensor(np.array([1, 0]), I64)
    out = host_tensor(np.zeros(2, np.int32), acl.ACL_INT32)
    ws, executor, _ = aclnn.aclnnGatherGetWorkspaceSize(x, 0, idx, out)
    assert aclnn.aclnnGather(None, ws, executor, None) == 0
    assert acl.rt.synchronize_stream(0) == 0
    assert read(out).tolist() == [2, 1]
    other, _ = acl.rt.create_stream()
    out2 = host_tensor(np.zeros(2, np.int32), acl.ACL_INT32)
    ws, executor, _ = aclnn.aclnnGatherGetWorkspaceSize(x, 0, idx, out2)
    assert aclnn.aclnnGather(None, ws, executor, other) == 0
    assert acl.rt.destroy_stream(other) == 0
    assert read(out2).tolist() == [2, 1]


@pytest.mark.parametrize("which", ["self", "index", "out"])
def test_memory_freed_before_synchronize_is_507015_and_nothing_is_written(stream, which):
    ptrs = {"self": put(np.arange(4, dtype=np.float32)), "index": put(np.array([3, 2, 1, 0])),
            "out": filled(16)}
    keep = filled(16)
    x, idx = tensor(ptrs["self"], (4,), F), tensor(ptrs["index"], (4,), I64)
    out = tensor(ptrs["out"], (4,), F)
    ws, executor, _ = aclnn.aclnnGatherGetWorkspaceSize(x, 0, idx, out)
    assert aclnn.aclnnGather(None, ws, executor, stream) == 0
    assert acl.rt.free(ptrs[which]) == 0
    assert acl.rt.synchronize_stream(stream) == 507015
    message = aclnn.aclGetRecentErrMsg()
    assert re.search(rf"the AI Core could not access {which}: {which}\.tensor_data=0x[0-9a-f]+ "
                     rf"points into the \d+-byte device allocation at 0x[0-9a-f]+, which was freed",
                     message), message
    if which != "out":
        assert get(ptrs["out"], 16).tolist() == [SENTINEL] * 16
    assert get(keep, 16).tolist() == [SENTINEL] * 16


def test_tensors_destroyed_after_phase_1_do_not_affect_the_executor(stream):
    x = host_tensor(np.array([4, 5], np.uint8), acl.ACL_UINT8)
    idx = host_tensor(np.array([1, 1]), I64)
    out = host_tensor(np.zeros(2, np.uint8), acl.ACL_UINT8)
    ws, executor, _ = aclnn.aclnnGatherGetWorkspaceSize(x, 0, idx, out)
    for t in (x, idx, out):
        assert aclnn.aclDestroyTensor(t) == 0
    assert aclnn.aclnnGather(None, ws, executor, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    assert get(out.data, 2).tolist() == [5, 5]


# --- aclCreateTensor and aclDestroyTensor --------------------------------------------------

@pytest.mark.parametrize("args, pattern", [
    (((2, -1), F, None, 0, ND, (2,), 0), r"view_dims\[1\]=-1 is invalid"),
    (((2, 1.0), F, None, 0, ND, (2,), 0), r"view_dims\[1\]=1\.0 is invalid"),
    (("23", F, None, 0, ND, (2,), 0), r"view_dims='23' \(str\) is not a sequence"),
    (((2,), 5, None, 0, ND, (2,), 0), r"data_type=5 is not a data type the emulator knows"),
    (((2,), 99, None, 0, ND, (2,), 0), r"data_type=99"),
    (((2,), None, None, 0, ND, (2,), 0), r"data_type=None"),
    (((2, 3), F, (3,), 0, ND, (6,), 0), r"stride=\(3,\) has 1 entries but view_dims=\(2, 3\) has 2"),
    (((2, 3), F, (3, -1), 0, ND, (6,), 0), r"stride\[1\]=-1 is invalid"),
    (((2,), F, None, -1, ND, (2,), 0), r"offset=-1 is invalid"),
    (((2,), F, None, 0, 3, (2,), 0), r"format=3 is not emulated \(allowed: ACL_FORMAT_NCHW 0"),
    (((2,), F, None, 0, ND, (-2,), 0), r"storage_dims\[0\]=-2 is invalid"),
    (((2,), F, None, 0, ND, (2,), -8), r"tensor_data=-8 is invalid"),
    (((2,), F, None, 0, ND, (2,), "p"), r"tensor_data='p' is invalid"),
    (((1 << 63,), F, None, 0, ND, (2,), 0), r"view_dims\[0\]=9223372036854775808 is invalid"),
])
def test_create_tensor_returns_none_with_a_message(args, pattern):
    assert aclnn.aclCreateTensor(*args) is None
    message = aclnn.aclGetRecentErrMsg()
    assert message.startswith("aclCreateTensor(): ") and re.search(pattern, message), message


def test_create_tensor_accepts_c_style_arguments():
    t = aclnn.aclCreateTensor(np.array([2, 3]), acl.ACL_BF16, [3, 1], np.int64(2), ND, [8], None)
    assert (t.view_dims, t.strides, t.offset, t.storage_dims, t.data) == ((2, 3), (3, 1), 2, (8,), 0)
    assert t.dtype == np.dtype(ml_dtypes.bfloat16)
    scalar = aclnn.aclCreateTensor(None, acl.ACL_COMPLEX128, None, 0, ND, None, 0)
    assert (scalar.view_dims, scalar.strides, scalar.numel) == ((), (), 1)
    assert aclnn.aclCreateTensor((0, 3), F, None, 0, ND, (0,), 0).strides == (3, 1)


def test_destroy_tensor_rules():
    t = aclnn.aclCreateTensor((2,), F, None, 0, ND, (2,), 0)
    assert aclnn.aclDestroyTensor(None) == 0
    assert aclnn.aclDestroyTensor(t) == 0
    assert aclnn.aclDestroyTensor(t) == INVALID
    assert "tensor was already destroyed" in aclnn.aclGetRecentErrMsg()
    assert aclnn.aclDestroyTensor("t") == INVALID
    assert "tensor='t' (str) is not an aclTensor" in aclnn.aclGetRecentErrMsg()


# --- phase 2, executors, workspaces ----------------------------------------------------------

@pytest.fixture
def ready(kit):
    ws, executor, ret = aclnn.aclnnGatherGetWorkspaceSize(kit["self"], 0, kit["index"], kit["out"])
    assert (ws, ret) == (0, 0)
    return kit, executor


def _topk_executor(k):
    v = tensor(put(np.zeros(6, np.float32)), (3, 2), F)
    i = tensor(put(np.zeros(6, np.int64)), (3, 2), I64)
    return aclnn.aclnnTopkGetWorkspaceSize(k["self"], 2, 1, True, True, v, i)[1]


def _host_workspace(k):
    return acl.util.numpy_to_ptr(np.zeros(8, np.uint8))


PHASE2_ERRORS = [
    # (id, (workspace, workspace_size, executor, stream) from (kit, executor, stream), code, pattern)
    ("executor None", lambda k, e, s: (None, 0, None, s), NULL, r"executor is None"),
    ("not an executor", lambda k, e, s: (None, 0, "exec", s), INVALID,
     r"executor='exec' is not an aclOpExecutor"),
    ("topk executor", lambda k, e, s: (None, 0, _topk_executor(k), s), INVALID,
     r"executor #\d+ \(aclnnTopk\) was made by aclnnTopkGetWorkspaceSize, not "
     r"aclnnGatherGetWorkspaceSize"),
    ("size without workspace", lambda k, e, s: (None, 16, e, s), NULL,
     r"workspace is NULL but workspace_size=16 > 0"),
    ("size without workspace 0", lambda k, e, s: (0, 16, e, s), NULL, r"workspace is NULL"),
    ("negative size", lambda k, e, s: (None, -1, e, s), INVALID,
     r"workspace_size=-1 is invalid \(need an integer >= 0\)"),
    ("float size", lambda k, e, s: (None, 0.0, e, s), INVALID, r"workspace_size=0\.0"),
    ("host workspace", lambda k, e, s: (_host_workspace(k), 8, e, s), INVALID,
     r"workspace=0x[0-9a-f]+ is host memory"),
    ("unknown workspace", lambda k, e, s: (0x42, 8, e, s), INVALID,
     r"workspace=0x42 is not owned"),
    ("short workspace", lambda k, e, s: (filled(8), 16, e, s), INVALID,
     r"workspace=0x[0-9a-f]+ with count=16 runs past the end of the 8-byte device allocation"),
    ("below phase 1", lambda k, e, s: (filled(64), 32, Executor("aclnnGather", None, 64), s),
     INVALID, r"workspace_size=32 is smaller than the 64 bytes phase 1 asked for"),
    ("unknown stream", lambda k, e, s: (None, 0, e, 0xBAD), INVALID,
     r"stream=2989 is not a live stream"),
    ("stream object", lambda k, e, s: (None, 0, e, object()), INVALID,
     r"stream=<object object at .*> is not a live stream"),
]


@pytest.mark.parametrize("name, args, code, pattern", PHASE2_ERRORS,
                         ids=[p[0] for p in PHASE2_ERRORS])
def test_phase2_errors_queue_nothing(ready, stream, name, args, code, pattern):
    kit, executor = ready
    arguments = args(kit, executor, stream)
    before = memory()
    assert aclnn.aclnnGather(*arguments) == code
    message = aclnn.aclGetRecentErrMsg()
    assert message.startswith("aclnnGather(): ") and re.search(pattern, message), message
    assert pending(stream) == 0 and memory() == before
    # The executor was not consumed by the failed launch.
    assert aclnn.aclnnGather(None, 0, executor, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0


def test_larger_workspace_than_needed_is_fine(ready, stream):
    kit, executor = ready
    assert aclnn.aclnnGather(filled(32), 32, executor, stream) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    assert read(kit["out"]).tolist() == [[0, 5, 10, 3], [8, 5, 2, 11]]


def test_destroyed_stream_and_default_stream_without_device(ready, stream):
    _, executor = ready
    other, _ = acl.rt.create_stream()
    assert acl.rt.destroy_stream(other) == 0
    assert aclnn.aclnnGather(None, 0, executor, other) == INVALID
    assert "is not a live stream" in aclnn.aclGetRecentErrMsg()
    assert acl.rt.reset_device(0) == 0
    assert aclnn.aclnnGather(None, 0, executor, None) == 361001
    assert "stream=None is the default stream, but no device is set" in aclnn.aclGetRecentErrMsg()
    assert acl.finalize() == 0
    assert aclnn.aclnnGather(None, 0, executor, 0) == 361001
    assert "acl.init() has not been called" in aclnn.aclGetRecentErrMsg()


def test_executor_is_single_use(ready, stream):
    _, executor = ready
    assert aclnn.aclnnGather(None, 0, executor, stream) == 0
    assert aclnn.aclnnGather(None, 0, executor, stream) == INVALID
    assert re.search(r"aclnnGather\(\): executor #\d+ \(aclnnGather\) is single use and was "
                     r"already launched", aclnn.aclGetRecentErrMsg())
    assert pending(stream) == 1
    assert aclnn.aclSetAclOpExecutorRepeatable(executor) == INVALID  # too late
    assert "already launched" in aclnn.aclGetRecentErrMsg()
    assert aclnn.aclDestroyAclOpExecutor(executor) == INVALID
    assert acl.rt.synchronize_stream(stream) == 0


def test_repeatable_executor_reruns_on_current_memory_until_destroyed(ready, stream):
    kit, executor = ready
    assert aclnn.aclSetAclOpExecutorRepeatable(executor) == 0
    assert aclnn.aclSetAclOpExecutorRepeatable(executor) == 0  # idempotent
    for step in range(3):
        x = (np.arange(12, dtype=np.float32) * (step + 1)).reshape(3, 4)
        assert acl.rt.memcpy(kit["x_ptr"], 48, acl.util.numpy_to_ptr(x), 48, H2D) == 0
        assert aclnn.aclnnGather(None, 0, executor, stream) == 0
        assert acl.rt.synchronize_stream(stream) == 0
        want = ref_gather(x, 0, np.array([[0, 1, 2, 0], [2, 1, 0, 2]]))
        assert read(kit["out"]).tolist() == want.tolist()
    # Queued work of a destroyed executor still runs.
    assert aclnn.aclnnGather(None, 0, executor, stream) == 0
    assert aclnn.aclDestroyAclOpExecutor(executor) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    assert aclnn.aclnnGather(None, 0, executor, stream) == INVALID
    assert "was destroyed by aclDestroyAclOpExecutor" in aclnn.aclGetRecentErrMsg()
    assert aclnn.aclDestroyAclOpExecutor(executor) == INVALID
    assert aclnn.aclSetAclOpExecutorRepeatable(executor) == INVALID


def test_executor_api_null_and_foreign_arguments(ready):
    kit, executor = ready
    assert aclnn.aclSetAclOpExecutorRepeatable(None) == 561103
    assert "executor is None" in aclnn.aclGetRecentErrMsg()
    assert aclnn.aclDestroyAclOpExecutor(None) == 561103
    assert aclnn.aclSetAclOpExecutorRepeatable(kit["self"]) == 561000
    assert "is not an aclOpExecutor" in aclnn.aclGetRecentErrMsg()
    assert aclnn.aclDestroyAclOpExecutor(42) == 561000
    # A never-launched single-use executor can be destroyed, and then not launched.
    assert aclnn.aclDestroyAclOpExecutor(executor) == 0
    assert aclnn.aclnnGather(None, 0, executor, None) == INVALID


def test_internal_failures_are_status_codes_not_exceptions(kit, stream, monkeypatch):
    import axisops.ascend.aclnn as aclnn_module

    def broken(*args):
        raise RuntimeError("boom")

    monkeypatch.setattr(aclnn_module, "plan_gather", broken)
    assert aclnn.aclnnGatherGetWorkspaceSize(kit["self"], 0, kit["index"], kit["out"]) == \
        (0, None, 561000)
    assert aclnn.aclGetRecentErrMsg() == \
        "aclnnGatherGetWorkspaceSize(): internal error RuntimeError: boom"
    assert aclnn.aclnnGather(None, 0, Executor("aclnnGather", broken), stream) == 0
    assert acl.rt.synchronize_stream(stream) == 561000
    assert "failed: internal error RuntimeError: boom" in aclnn.aclGetRecentErrMsg()
