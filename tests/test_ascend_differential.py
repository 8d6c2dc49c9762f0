"""Random shapes, layouts and tie-heavy data: aclnnGather / aclnnTopk against axisops.

Every example draws sizes, a dim, a layout for each tensor (inputs: any
non-negative strides, zero and overlapping ones included, and an offset into
padded storage; outputs: any non-overlapping order with padding), fills the
input storage with the special values of ``tests/strategies.py``, runs both
phases and the stream, and checks the outputs bit for bit against
``axisops.gather`` / ``axisops.topk`` on the same views, and that every byte
an output view does not address keeps its sentinel.
"""

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import axisops
from axisops.ascend import acl, aclnn

from ascend_helpers import D2H, GATHER_TYPES, H2D, SENTINEL, TOPK_TYPES
from strategies import special_values


class Storage:
    """One tensor: its layout, its device allocation and the host bytes it started with."""

    def __init__(self, draw, dims, data_type, dtype, *, output, fill=None):
        self.dims, self.data_type, self.dtype = dims, data_type, np.dtype(dtype)
        self.strides = draw(output_strides(dims) if output else input_strides(dims))
        self.offset = draw(st.integers(0, 4))
        extent = 0 if 0 in dims else 1 + sum((n - 1) * s for n, s in zip(dims, self.strides))
        self.count = self.offset + extent + draw(st.integers(0, 3))
        if fill is None:
            raw = np.full(self.count * self.dtype.itemsize, SENTINEL, np.uint8)
        else:
            raw = np.ascontiguousarray(fill(self.count)).view(np.uint8)
        self.initial = raw.copy()
        self.ptr, ret = acl.rt.malloc(max(raw.size, 1), acl.ACL_MEM_MALLOC_HUGE_FIRST)
        assert ret == 0
        assert acl.rt.memcpy(self.ptr, raw.size, acl.util.numpy_to_ptr(raw), raw.size, H2D) == 0
        self.tensor = aclnn.aclCreateTensor(dims, data_type, self.strides, self.offset,
                                            acl.ACL_FORMAT_ND, (self.count,), self.ptr)

    def view(self, raw):
        size = self.dtype.itemsize
        return np.ndarray(self.dims, self.dtype, buffer=raw, offset=self.offset * size,
                          strides=[s * size for s in self.strides])

    def logical(self):
        """The view, over a copy of the bytes it started with."""
        return self.view(self.initial.copy())

    def now(self):
        raw = np.zeros(self.initial.size, np.uint8)
        n = raw.size
        assert acl.rt.memcpy(acl.util.numpy_to_ptr(raw), n, self.ptr, n, D2H) == 0
        return raw

    def untouched_outside_view(self, raw):
        mask = np.ones(raw.size, bool)
        if 0 not in self.dims:
            grid = np.indices(self.dims).reshape(len(self.dims), -1)
            first = (self.offset + (np.array(self.strides)[:, None] * grid).sum(0)) \
                * self.dtype.itemsize
            for b in range(self.dtype.itemsize):
                mask[first + b] = False
        return bool((raw[mask] == SENTINEL).all())

    def free(self):
        assert aclnn.aclDestroyTensor(self.tensor) == 0
        assert acl.rt.free(self.ptr) == 0


@st.composite
def input_strides(draw, dims):
    if draw(st.booleans()):
        out, step = [], 1
        for n in reversed(dims):
            out.append(step)
            step *= max(n, 1)
        return tuple(reversed(out))
    return tuple(draw(st.integers(0, 7)) for _ in dims)


@st.composite
def output_strides(draw, dims):
    """Strides in a random dimension order, with padding: never two elements in one place."""
    order = draw(st.permutations(range(len(dims))))
    strides, step = [0] * len(dims), 1
    for d in reversed(order):
        strides[d] = step
        step = step * max(dims[d], 1) + draw(st.integers(0, 2))
    return tuple(strides)


def pool_fill(draw, dtype):
    pool = special_values(np.dtype(dtype))
    width = draw(st.integers(1, len(pool)))
    seed = draw(st.integers(0, 2**32 - 1))

    def fill(count):
        picks = np.random.default_rng(seed).integers(0, width, count)
        return pool[picks]

    return fill


def sizes(rank, lo=0, hi=4):
    return st.lists(st.integers(lo, hi), min_size=rank, max_size=rank).map(tuple)


# One runtime and stream per test, shared by its examples (each frees what it allocates).
SHARED_STREAM = settings(suppress_health_check=[*settings().suppress_health_check,
                                                HealthCheck.function_scoped_fixture])


@SHARED_STREAM
@given(st.data())
def test_gather_matches_axisops_gather(stream, data):
    draw = data.draw
    data_type = draw(st.sampled_from(sorted(GATHER_TYPES)))
    index_type = draw(st.sampled_from([acl.ACL_INT32, acl.ACL_INT64]))
    self_dims = draw(st.integers(1, 3).flatmap(sizes))
    dim = draw(st.integers(-len(self_dims), len(self_dims) - 1))
    d = dim % len(self_dims)
    index_dims = tuple(draw(st.integers(0, 6)) if a == d else draw(st.integers(0, n))
                       for a, n in enumerate(self_dims))
    n = self_dims[d]
    bad = draw(st.sampled_from([None, None, None, n, -n - 1]))
    seed = draw(st.integers(0, 2**32 - 1))

    def index_fill(count):
        values = np.random.default_rng(seed).integers(-n, max(n, 1), count)
        if bad is not None and count:
            values[np.random.default_rng(seed).integers(0, count)] = bad
        return values.astype(GATHER_TYPES[index_type])

    x = Storage(draw, self_dims, data_type, GATHER_TYPES[data_type], output=False,
                fill=pool_fill(draw, GATHER_TYPES[data_type]))
    idx = Storage(draw, index_dims, index_type, GATHER_TYPES[index_type], output=False,
                  fill=index_fill)
    out = Storage(draw, index_dims, data_type, GATHER_TYPES[data_type], output=True)
    try:
        ws, executor, ret = aclnn.aclnnGatherGetWorkspaceSize(x.tensor, dim, idx.tensor,
                                                              out.tensor)
        if 0 not in index_dims and n == 0:
            assert ret == 161002 and "nothing to gather from" in aclnn.aclGetRecentErrMsg()
            return
        assert (ws, ret) == (0, 0), aclnn.aclGetRecentErrMsg()
        assert aclnn.aclnnGather(None, ws, executor, stream) == 0
        ret = acl.rt.synchronize_stream(stream)
        try:
            want = axisops.gather(x.logical(), dim, idx.logical())
        except axisops.IndexOutOfRangeError as exc:
            assert ret == 507015
            detail = str(exc).removeprefix("gather(): ")
            assert detail in aclnn.aclGetRecentErrMsg()
            assert (out.now() == SENTINEL).all()
            return
        assert ret == 0, aclnn.aclGetRecentErrMsg()
        raw = out.now()
        assert out.view(raw).tobytes() == want.tobytes()
        assert out.untouched_outside_view(raw)
        assert (x.now() == x.initial).all() and (idx.now() == idx.initial).all()
    finally:
        for s in (x, idx, out):
            s.free()


@SHARED_STREAM
@given(st.data())
def test_topk_matches_axisops_topk(stream, data):
    draw = data.draw
    data_type = draw(st.sampled_from(sorted(TOPK_TYPES)))
    dims = draw(st.integers(1, 3).flatmap(lambda r: sizes(r, 0, 5)))
    dim = draw(st.integers(-len(dims), len(dims) - 1))
    d = dim % len(dims)
    k = draw(st.integers(0, dims[d]))
    largest, srt = draw(st.booleans()), draw(st.booleans())
    out_dims = dims[:d] + (k,) + dims[d + 1:]
    dtype = TOPK_TYPES[data_type]
    x = Storage(draw, dims, data_type, dtype, output=False, fill=pool_fill(draw, dtype))
    values = Storage(draw, out_dims, data_type, dtype, output=True)
    indices = Storage(draw, out_dims, acl.ACL_INT64, np.int64, output=True)
    try:
        ws, executor, ret = aclnn.aclnnTopkGetWorkspaceSize(x.tensor, k, dim, largest, srt,
                                                            values.tensor, indices.tensor)
        assert (ws, ret) == (0, 0), aclnn.aclGetRecentErrMsg()
        assert aclnn.aclnnTopk(None, ws, executor, stream) == 0
        assert acl.rt.synchronize_stream(stream) == 0, aclnn.aclGetRecentErrMsg()
        raw_v, raw_i = values.now(), indices.now()
        assert values.untouched_outside_view(raw_v) and indices.untouched_outside_view(raw_i)
        if 0 in dims or k == 0:
            return
        want = axisops.topk(x.logical(), k, dim, largest=largest, sorted=srt)
        got_v, got_i = values.view(raw_v), indices.view(raw_i)
        if not srt:  # the same elements, in any order: compare in index order
            order, ref = np.argsort(got_i, axis=d), np.argsort(want.indices, axis=d)
            got_v, got_i = (np.take_along_axis(a, order, d) for a in (got_v, got_i))
            want = axisops.TopK(*(np.take_along_axis(a, ref, d) for a in want))
        assert got_v.tobytes() == np.ascontiguousarray(want.values).tobytes()
        assert got_i.tolist() == want.indices.tolist()
        assert (x.now() == x.initial).all()
    finally:
        for s in (x, values, indices):
            s.free()
