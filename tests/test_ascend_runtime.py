"""axisops.ascend.acl: init/finalize, devices, streams, emulated memory and host pointers.

Every error path is a row of a table: the call, the code it must return, and
a pattern the recorded message must match (naming the argument and value);
each row also checks that no byte of any device or host buffer changed.
"""

import gc
import re
import threading
import weakref

import numpy as np
import pytest

from axisops import InvalidArgumentError
from axisops.ascend import acl, aclnn
from axisops.ascend.memory import DEVICE_MEMORY_BYTES
from axisops.ascend.runtime import CONTEXT

from ascend_helpers import snapshot

H2H, H2D, D2H, D2D = 0, 1, 2, 3


@pytest.fixture
def bare():
    """No runtime at all (and none left behind)."""
    if CONTEXT.initialized:
        acl.finalize()
    acl.get_recent_err_msg()
    yield
    if CONTEXT.initialized:
        acl.finalize()


def malloc(size):
    ptr, ret = acl.rt.malloc(size, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    assert ret == 0
    return ptr


def assert_fails(call, code, pattern):
    before = snapshot()
    ret = call()
    ret = ret[-1] if isinstance(ret, tuple) else ret
    assert ret == code
    message = acl.get_recent_err_msg()
    assert message is not None and re.search(pattern, message), message
    assert snapshot() == before
    return message


# --- constants -------------------------------------------------------------------------

def test_constants_have_the_header_values():
    expected = dict(
        ACL_FLOAT=0, ACL_FLOAT16=1, ACL_INT8=2, ACL_INT32=3, ACL_UINT8=4, ACL_INT16=6,
        ACL_UINT16=7, ACL_UINT32=8, ACL_INT64=9, ACL_UINT64=10, ACL_DOUBLE=11, ACL_BOOL=12,
        ACL_COMPLEX64=16, ACL_COMPLEX128=17, ACL_BF16=27, ACL_FORMAT_NCHW=0, ACL_FORMAT_NHWC=1,
        ACL_FORMAT_ND=2, ACL_MEMCPY_HOST_TO_HOST=0, ACL_MEMCPY_HOST_TO_DEVICE=1,
        ACL_MEMCPY_DEVICE_TO_HOST=2, ACL_MEMCPY_DEVICE_TO_DEVICE=3, ACL_MEM_MALLOC_HUGE_FIRST=0,
        ACL_MEM_MALLOC_HUGE_ONLY=1, ACL_MEM_MALLOC_NORMAL_ONLY=2, ACL_SUCCESS=0,
        ACL_ERROR_INVALID_PARAM=100000, ACL_ERROR_UNINITIALIZE=100001,
        ACL_ERROR_REPEAT_INITIALIZE=100002, ACL_ERROR_INVALID_DEVICE=200002,
        ACL_ERROR_RT_AICORE_EXCEPTION=507015, ACL_ERROR_INTERNAL_ERROR=500000)
    assert {name: getattr(acl, name) for name in expected} == expected
    assert not [name for name in dir(acl) if name.startswith("ACLNN_")]  # those live in aclnn
    assert dict(ACLNN_SUCCESS=aclnn.ACLNN_SUCCESS, ACLNN_ERR_PARAM_NULLPTR=aclnn.ACLNN_ERR_PARAM_NULLPTR,
                ACLNN_ERR_PARAM_INVALID=aclnn.ACLNN_ERR_PARAM_INVALID,
                ACLNN_ERR_RUNTIME_ERROR=aclnn.ACLNN_ERR_RUNTIME_ERROR,
                ACLNN_ERR_INNER=aclnn.ACLNN_ERR_INNER,
                ACLNN_ERR_INNER_NULLPTR=aclnn.ACLNN_ERR_INNER_NULLPTR) == dict(
        ACLNN_SUCCESS=0, ACLNN_ERR_PARAM_NULLPTR=161001, ACLNN_ERR_PARAM_INVALID=161002,
        ACLNN_ERR_RUNTIME_ERROR=361001, ACLNN_ERR_INNER=561000, ACLNN_ERR_INNER_NULLPTR=561103)


# --- init, finalize, devices ---------------------------------------------------------------

BEFORE_INIT = [
    ("set_device", lambda: acl.rt.set_device(0)),
    ("reset_device", lambda: acl.rt.reset_device(0)),
    ("create_stream", lambda: acl.rt.create_stream()),
    ("synchronize_stream", lambda: acl.rt.synchronize_stream(None)),
    ("destroy_stream", lambda: acl.rt.destroy_stream(0x5000_0100)),
    ("malloc", lambda: acl.rt.malloc(8, 0)),
    ("free", lambda: acl.rt.free(0x1000_0000_0000)),
    ("memcpy", lambda: acl.rt.memcpy(1, 8, 2, 8, H2D)),
    ("finalize", lambda: acl.finalize()),
]


@pytest.mark.parametrize("name, call", BEFORE_INIT, ids=[b[0] for b in BEFORE_INIT])
def test_every_runtime_call_before_init_is_100001(bare, name, call):
    assert_fails(call, 100001, r"acl\.init\(\) has not been called")


def test_create_stream_and_malloc_return_null_handles_on_failure(bare):
    assert acl.rt.create_stream() == (0, 100001)
    assert acl.rt.malloc(8, 0) == (0, 100001)


def test_init_twice_and_config_path(bare):
    assert acl.init("") == 0
    assert_fails(lambda: acl.init(), 100002, r"already called")
    assert acl.finalize() == 0
    assert_fails(lambda: acl.init("/no/such/acl.json"), 100000,
                 r"config_path='/no/such/acl\.json' is not an existing file")
    assert_fails(lambda: acl.init(42), 100000, r"config_path=42")
    assert not CONTEXT.initialized
    assert acl.init(__file__) == 0 and acl.finalize() == 0


NEED_DEVICE = [
    ("create_stream", lambda: acl.rt.create_stream()),
    ("synchronize_stream", lambda: acl.rt.synchronize_stream(None)),
    ("destroy_stream", lambda: acl.rt.destroy_stream(0x5000_0100)),
    ("malloc", lambda: acl.rt.malloc(8, 0)),
    ("free", lambda: acl.rt.free(0x1000_0000_0000)),
    ("memcpy", lambda: acl.rt.memcpy(1, 8, 2, 8, H2H)),
]


@pytest.mark.parametrize("name, call", NEED_DEVICE, ids=[n[0] for n in NEED_DEVICE])
def test_calls_that_need_a_device_return_107002_without_one(bare, name, call):
    assert acl.init() == 0
    assert_fails(call, 107002, r"no device is set")


@pytest.mark.parametrize("device_id, code, pattern", [
    (1, 200002, r"device_id=1 does not exist"),
    (-1, 200002, r"device_id=-1 does not exist"),
    ("0", 100000, r"device_id='0' \(str\)"),
    (True, 100000, r"device_id=True \(bool\)"),
    (0.0, 100000, r"device_id=0\.0 \(float\)"),
])
def test_set_and_reset_device_reject_other_devices(bare, device_id, code, pattern):
    assert acl.init() == 0
    assert_fails(lambda: acl.rt.set_device(device_id), code, pattern)
    assert_fails(lambda: acl.rt.reset_device(device_id), code, pattern)
    assert CONTEXT.device_refs == 0


def test_set_device_is_reference_counted_and_reset_releases_everything(runtime):
    assert acl.rt.set_device(0) == 0  # a second reference
    ptr = malloc(16)
    stream, _ = acl.rt.create_stream()
    assert acl.rt.reset_device(0) == 0  # one reference left: nothing released
    assert acl.rt.memcpy(ptr, 16, ptr, 16, D2D) == 0
    assert acl.rt.synchronize_stream(stream) == 0
    assert acl.rt.reset_device(0) == 0  # the last one releases memory and streams
    assert acl.rt.reset_device(0) == 0  # resetting an unset device does nothing
    assert acl.rt.set_device(0) == 0
    assert_fails(lambda: acl.rt.free(ptr), 100000, r"which was freed")
    assert_fails(lambda: acl.rt.synchronize_stream(stream), 100000, r"not a live stream")


def test_finalize_forgets_host_registrations_and_device_memory(runtime):
    host = np.arange(4, dtype=np.int32)
    host_ptr, ptr = acl.util.numpy_to_ptr(host), malloc(16)
    assert acl.finalize() == 0
    assert CONTEXT.space.regions() == []
    assert acl.init() == 0 and acl.rt.set_device(0) == 0
    fresh = malloc(16)
    assert fresh != ptr  # addresses are never reused
    assert_fails(lambda: acl.rt.memcpy(fresh, 16, host_ptr, 16, H2D), 100000,
                 rf"src={host_ptr:#x} points into the 16-byte host registration .* was freed")


# --- malloc and free ---------------------------------------------------------------------

@pytest.mark.parametrize("size, policy, code, pattern", [
    (0, 0, 100000, r"size=0 \(int\) is invalid \(need an integer > 0\)"),
    (-8, 0, 100000, r"size=-8"),
    (8.0, 0, 100000, r"size=8\.0 \(float\)"),
    (True, 0, 100000, r"size=True \(bool\)"),
    (8, 3, 100000, r"policy=3 .*HUGE_FIRST 0"),
    (8, -1, 100000, r"policy=-1"),
    (8, None, 100000, r"policy=None"),
    (DEVICE_MEMORY_BYTES + 1, 0, 207001, rf"size={DEVICE_MEMORY_BYTES + 1} cannot be allocated"),
    (1 << 80, 0, 207001, r"cannot be allocated"),
])
def test_malloc_rejects_bad_sizes_and_policies(runtime, size, policy, code, pattern):
    malloc(8)
    before = CONTEXT.space.device_bytes
    message = assert_fails(lambda: acl.rt.malloc(size, policy), code, pattern)
    assert message.startswith("acl.rt.malloc(): ")
    assert acl.rt.malloc(size, policy)[0] == 0
    assert CONTEXT.space.device_bytes == before


def test_malloc_gives_zeroed_separate_memory(runtime):
    a, b = malloc(10), malloc(10)
    assert a % 4096 == 0 and b % 4096 == 0 and b > a + 10
    out = np.full(10, 7, np.uint8)
    assert acl.rt.memcpy(acl.util.numpy_to_ptr(out), 10, a, 10, D2H) == 0
    assert out.tolist() == [0] * 10
    # One past the end of a is a valid pointer for an empty copy, but not for one byte.
    assert acl.rt.memcpy(a + 10, 0, b, 0, D2D) == 0
    assert_fails(lambda: acl.rt.memcpy(a + 10, 1, b, 1, D2D), 100000,
                 rf"dst={a + 10:#x} with count=1 runs past the end of the 10-byte device "
                 rf"allocation at {a:#x}")
    assert_fails(lambda: acl.rt.memcpy(a + 11, 0, b, 0, D2D), 100000,
                 rf"dst={a + 11:#x} is not owned by any device allocation")


def test_free_rules(runtime):
    ptr = malloc(32)
    host_ptr = acl.util.numpy_to_ptr(np.zeros(4))
    assert_fails(lambda: acl.rt.free(0), 100000, r"ptr is NULL \(0\)")
    assert_fails(lambda: acl.rt.free(ptr + 8), 100000,
                 rf"ptr={ptr + 8:#x} is offset 8 into the 32-byte device allocation at {ptr:#x}")
    assert_fails(lambda: acl.rt.free(host_ptr), 100000, r"is in the 32-byte registered host buffer at 0x[0-9a-f]+, not device memory")
    assert_fails(lambda: acl.rt.free("ptr"), 100000, r"ptr='ptr' \(str\) is not a pointer")
    assert acl.rt.free(ptr) == 0
    assert_fails(lambda: acl.rt.free(ptr), 100000, rf"ptr={ptr:#x} points into the 32-byte "
                                                    rf"device allocation .* which was freed")


# --- memcpy ---------------------------------------------------------------------------------

@pytest.fixture
def buffers(runtime):
    """Two 16-byte device buffers with known bytes, and host arrays of each kind."""
    dev = [malloc(16), malloc(16)]
    host = {
        "array": np.arange(16, dtype=np.uint8),
        "readonly": np.arange(100, 116, dtype=np.uint8),
        "bytes": bytes(range(200, 216)),
        "bytearray": bytearray(range(50, 66)),
    }
    host["readonly"].flags.writeable = False
    ptrs = {"array": acl.util.numpy_to_ptr(host["array"]),
            "readonly": acl.util.numpy_to_ptr(host["readonly"]),
            "bytes": acl.util.bytes_to_ptr(host["bytes"]),
            "bytearray": acl.util.bytes_to_ptr(host["bytearray"])}
    for i, d in enumerate(dev):
        src = np.full(16, 0xA0 + i, np.uint8)
        assert acl.rt.memcpy(d, 16, acl.util.numpy_to_ptr(src), 16, H2D) == 0
    return dev, host, ptrs


MEMCPY_ERRORS = [
    # (name, (dst, dest_max, src, count, kind) as a function of (dev, ptrs), pattern)
    ("kind 4", lambda d, p: (d[0], 16, d[1], 16, 4), r"kind=4 .*ACL_MEMCPY_HOST_TO_HOST 0"),
    ("kind -1", lambda d, p: (d[0], 16, d[1], 16, -1), r"kind=-1"),
    ("kind float", lambda d, p: (d[0], 16, d[1], 16, 3.0), r"kind=3\.0 \(float\)"),
    ("count > dest_max", lambda d, p: (d[0], 8, d[1], 9, D2D),
     r"count=9 exceeds dest_max=8"),
    ("negative count", lambda d, p: (d[0], 16, d[1], -1, D2D), r"count=-1"),
    ("negative dest_max", lambda d, p: (d[0], -1, d[1], 0, D2D), r"dest_max=-1"),
    ("bool count", lambda d, p: (d[0], 16, d[1], True, D2D), r"count=True \(bool\)"),
    ("NULL dst", lambda d, p: (0, 16, d[1], 16, D2D), r"dst is NULL"),
    ("NULL src", lambda d, p: (d[0], 16, 0, 16, D2D), r"src is NULL"),
    ("None src", lambda d, p: (d[0], 16, None, 16, D2D), r"src=None \(NoneType\) is not a pointer"),
    ("unknown dst", lambda d, p: (0x1234, 16, d[1], 16, D2D), r"dst=0x1234 is not owned"),
    ("guard gap", lambda d, p: (d[0] + 17, 16, d[1], 1, D2D), r"dst=0x[0-9a-f]+ is not owned"),
    ("dst past end", lambda d, p: (d[0] + 8, 16, d[1], 9, D2D),
     r"dst=0x[0-9a-f]+8 with count=9 runs past the end of the 16-byte device allocation"),
    ("src past end", lambda d, p: (d[0], 16, d[1] + 15, 2, D2D),
     r"src=0x[0-9a-f]+f with count=2 runs past the end"),
    ("host src as device", lambda d, p: (d[0], 16, p["array"], 16, D2D),
     r"src=0x[0-9a-f]+ is host memory, in the 16-byte registered host buffer .* but device "
     r"memory is needed here \(kind=ACL_MEMCPY_DEVICE_TO_DEVICE\)"),
    ("device dst as host", lambda d, p: (d[0], 16, d[1], 16, D2H),
     r"dst=0x[0-9a-f]+ is device memory, .* but host memory is needed here"),
    ("device src H2D", lambda d, p: (d[0], 16, d[1], 16, H2D), r"src=0x[0-9a-f]+ is device memory"),
    ("host dst D2D", lambda d, p: (p["array"], 16, d[1], 16, D2D), r"dst=0x[0-9a-f]+ is host memory"),
    ("into bytes", lambda d, p: (p["bytes"], 16, d[1], 16, D2H),
     r"dst=0x[0-9a-f]+ is in the 16-byte registered host buffer .* which is read-only"),
    ("into read-only array", lambda d, p: (p["readonly"], 16, p["array"], 16, H2H),
     r"which is read-only"),
    ("host past end", lambda d, p: (d[0], 16, p["bytearray"] + 4, 16, H2D),
     r"src=0x[0-9a-f]+4 with count=16 runs past the end of the 16-byte registered host buffer"),
]


@pytest.mark.parametrize("name, args, pattern", MEMCPY_ERRORS, ids=[m[0] for m in MEMCPY_ERRORS])
def test_memcpy_errors_copy_nothing(buffers, name, args, pattern):
    dev, host, ptrs = buffers
    kept = {k: bytes(v) for k, v in host.items()}
    message = assert_fails(lambda: acl.rt.memcpy(*args(dev, ptrs)), 100000, pattern)
    assert message.startswith("acl.rt.memcpy(): ")
    assert {k: bytes(v) for k, v in host.items()} == kept


def test_memcpy_all_four_kinds_and_pointer_arithmetic(buffers):
    dev, host, ptrs = buffers
    # HOST_TO_DEVICE from bytes, at an offset in both buffers.
    assert acl.rt.memcpy(dev[0] + 4, 12, ptrs["bytes"] + 2, 8, H2D) == 0
    # DEVICE_TO_DEVICE, DEVICE_TO_HOST into a bytearray, HOST_TO_HOST into the array.
    assert acl.rt.memcpy(dev[1], 16, dev[0], 16, D2D) == 0
    assert acl.rt.memcpy(ptrs["bytearray"] + 1, 15, dev[1] + 3, 6, D2H) == 0
    assert acl.rt.memcpy(ptrs["array"], 16, ptrs["bytearray"], 16, H2H) == 0
    want_dev = [0xA0] * 4 + list(range(202, 210)) + [0xA0] * 4
    assert list(host["bytearray"]) == [50] + want_dev[3:9] + list(range(57, 66))
    assert host["array"].tolist() == list(host["bytearray"])
    back = np.zeros(16, np.uint8)
    assert acl.rt.memcpy(acl.util.numpy_to_ptr(back), 16, dev[1], 16, D2H) == 0
    assert back.tolist() == want_dev


def test_memcpy_within_one_buffer_behaves_like_memmove(buffers):
    _, host, ptrs = buffers
    assert acl.rt.memcpy(ptrs["array"] + 2, 14, ptrs["array"], 8, H2H) == 0
    assert host["array"].tolist() == [0, 1, 0, 1, 2, 3, 4, 5, 6, 7, 10, 11, 12, 13, 14, 15]


def test_memcpy_writes_through_to_fortran_and_bfloat16_arrays(runtime):
    import ml_dtypes

    f = np.asfortranarray(np.zeros((2, 3), np.int16))
    b = np.zeros(3, ml_dtypes.bfloat16)
    src = np.arange(6, dtype=np.int16)
    ptr = malloc(12)
    assert acl.rt.memcpy(ptr, 12, acl.util.numpy_to_ptr(src), 12, H2D) == 0
    assert acl.rt.memcpy(acl.util.numpy_to_ptr(f), 12, ptr, 12, D2H) == 0
    assert f.tolist() == [[0, 2, 4], [1, 3, 5]]  # bytes in memory (column) order
    ones = np.array([1.0, 2.0, 3.0], ml_dtypes.bfloat16)
    assert acl.rt.memcpy(ptr, 6, acl.util.numpy_to_ptr(ones), 6, H2D) == 0
    assert acl.rt.memcpy(acl.util.numpy_to_ptr(b), 6, ptr, 6, D2H) == 0
    assert b.astype(np.float32).tolist() == [1.0, 2.0, 3.0]


# --- acl.util -------------------------------------------------------------------------------

def test_numpy_to_ptr_registers_once_per_object(bare):
    a = np.arange(4.0)
    p = acl.util.numpy_to_ptr(a)
    assert p == acl.util.numpy_to_ptr(a) and p != acl.util.numpy_to_ptr(a.view())
    data = bytearray(b"xy")
    assert acl.util.bytes_to_ptr(data) == acl.util.bytes_to_ptr(data)
    assert acl.util.bytes_to_ptr(data) != acl.util.bytes_to_ptr(bytearray(b"xy"))


def host_bases():
    return {r.base for r in CONTEXT.space.regions("host")}


def test_host_unregister_frees_the_registered_array(bare):
    array = np.arange(1 << 16, dtype=np.float64)  # 512 KiB
    alive = weakref.ref(array)
    ptr = acl.util.numpy_to_ptr(array)
    del array
    gc.collect()
    assert alive() is not None  # the registration holds it
    assert acl.rt.host_unregister(ptr) == 0  # before acl.init, like the helpers
    assert alive() is None
    assert ptr not in host_bases()
    assert_fails(lambda: acl.rt.host_unregister(ptr), 100000,
                 rf"ptr={ptr:#x} points into the 524288-byte host registration .* was freed")


def test_host_unregister_ends_one_registration_and_the_pointer_with_it(runtime):
    earlier = host_bases()
    kept, dropped = np.arange(4, dtype=np.int32), np.arange(4, dtype=np.int32)
    kept_ptr, dropped_ptr = acl.util.numpy_to_ptr(kept), acl.util.numpy_to_ptr(dropped)
    data = bytearray(b"abcd")
    data_ptr = acl.util.bytes_to_ptr(data)
    view = acl.util.ptr_to_numpy(dropped_ptr, (4,), np.int32)
    assert acl.rt.host_unregister(dropped_ptr) == 0
    assert acl.rt.host_unregister(data_ptr) == 0
    assert host_bases() - earlier == {kept_ptr}
    assert view.tolist() == [0, 1, 2, 3]  # a view made before holds the memory itself
    dev = malloc(16)
    assert_fails(lambda: acl.rt.memcpy(dev, 16, dropped_ptr, 16, H2D), 100000,
                 rf"src={dropped_ptr:#x} points into the 16-byte host registration .* freed")
    assert acl.rt.memcpy(dev, 16, kept_ptr, 16, H2D) == 0
    again = acl.util.numpy_to_ptr(dropped)  # registering again gives a new pointer
    assert again != dropped_ptr and acl.rt.memcpy(dev, 16, again, 16, H2D) == 0


@pytest.mark.parametrize("ptr, pattern", [
    (lambda host, dev: 0, r"ptr is NULL \(0\)"),
    (lambda host, dev: host + 8, r"ptr=0x[0-9a-f]+ is offset 8 into the 16-byte registered host "
                                 r"buffer .* \(host_unregister needs the pointer numpy_to_ptr or "
                                 r"bytes_to_ptr returned\)"),
    (lambda host, dev: dev, r"is in the 16-byte device allocation at 0x[0-9a-f]+, not host memory"),
    (lambda host, dev: float(host), r"ptr=\d+\.0 \(float\) is not a pointer \(need an int\)"),
    (lambda host, dev: 0x7777_0000_0000, r"ptr=0x777700000000 is not owned by any"),
])
def test_host_unregister_refuses(runtime, ptr, pattern):
    host, dev = acl.util.numpy_to_ptr(np.zeros(2)), malloc(16)
    assert_fails(lambda: acl.rt.host_unregister(ptr(host, dev)), 100000, pattern)
    assert host in host_bases()


@pytest.mark.parametrize("value, pattern", [
    ([1, 2], r"array=\[1, 2\] \(list\) is invalid \(need a NumPy array\)"),
    (np.zeros((4, 4))[:, ::2], r"need a contiguous array"),
    (np.array([object()]), r"need plain data, not dtype object"),
])
def test_numpy_to_ptr_refuses(bare, value, pattern):
    with pytest.raises(InvalidArgumentError, match=pattern):
        acl.util.numpy_to_ptr(value)


@pytest.mark.parametrize("value, pattern", [
    ("text", r"data='text' \(str\) is invalid \(need bytes, bytearray or memoryview\)"),
    (memoryview(bytearray(8))[::2], r"need a contiguous buffer"),
])
def test_bytes_to_ptr_refuses(bare, value, pattern):
    with pytest.raises(InvalidArgumentError, match=pattern):
        acl.util.bytes_to_ptr(value)


def test_ptr_to_numpy_views_host_memory(bare):
    a = np.arange(12, dtype=np.int32)
    p = acl.util.numpy_to_ptr(a)
    v = acl.util.ptr_to_numpy(p + 8, (2, 3), np.dtype(np.int32).num)
    assert v.tolist() == [[2, 3, 4], [5, 6, 7]]
    v[0, 0] = 99
    assert a[2] == 99  # a view, not a copy
    assert acl.util.ptr_to_numpy(p, 3, "int32").tolist() == [0, 1, 99]
    assert acl.util.ptr_to_numpy(p + 48, (0,), np.int64).shape == (0,)
    ro = acl.util.ptr_to_numpy(acl.util.bytes_to_ptr(b"\x01\x00\x02\x00"), (2,), np.uint16)
    assert ro.tolist() == [1, 2] and not ro.flags.writeable


@pytest.mark.parametrize("args, pattern", [
    (lambda p, d: (p + 4, (3,), np.int32), r"ptr=0x[0-9a-f]+4 with count=12 runs past the end"),
    (lambda p, d: (d, (1,), np.int32), r"ptr=0x[0-9a-f]+ is device memory"),
    (lambda p, d: (0, (1,), np.int32), r"ptr is NULL"),
    (lambda p, d: (p, (-1,), np.int32), r"shape=\(-1,\) .* is invalid"),
    (lambda p, d: (p, "3", np.int32), r"shape='3'"),
    (lambda p, d: (p, (1,), "no-such-type"), r"dtype='no-such-type'"),
    (lambda p, d: (p, (1,), 9999), r"dtype=9999 \(int\)"),
    (lambda p, d: (p, (1,), object), r"need a fixed-size plain data type"),
    (lambda p, d: (p, (1,), True), r"dtype=True"),
])
def test_ptr_to_numpy_refuses(runtime, args, pattern):
    p, d = acl.util.numpy_to_ptr(np.zeros(3, np.int32)), malloc(8)
    with pytest.raises(InvalidArgumentError, match=pattern):
        acl.util.ptr_to_numpy(*args(p, d))


# --- streams -------------------------------------------------------------------------------

def test_stream_lifecycle_and_errors(runtime):
    stream, ret = acl.rt.create_stream()
    other, _ = acl.rt.create_stream()
    assert ret == 0 and stream not in (0, other)
    assert acl.rt.synchronize_stream(stream) == 0
    assert acl.rt.synchronize_stream(None) == 0 and acl.rt.synchronize_stream(0) == 0
    assert_fails(lambda: acl.rt.destroy_stream(None), 100000, r"default stream, .* cannot be destroyed")
    assert_fails(lambda: acl.rt.destroy_stream(0), 100000, r"stream=0 is the default stream")
    assert_fails(lambda: acl.rt.destroy_stream(12345), 100000, r"stream=12345 is not a live stream")
    assert_fails(lambda: acl.rt.synchronize_stream("s"), 100000, r"stream='s' is not a live stream")
    assert acl.rt.destroy_stream(stream) == 0
    assert_fails(lambda: acl.rt.destroy_stream(stream), 100000, rf"stream={stream} is not a live")
    assert_fails(lambda: acl.rt.synchronize_stream(stream), 100000, r"not a live stream")
    assert acl.rt.synchronize_stream(other) == 0


# --- error messages --------------------------------------------------------------------------

def test_recent_error_message_is_per_thread_and_cleared_by_reading(runtime):
    assert acl.rt.malloc(0, 0)[1] == 100000
    seen = []
    thread = threading.Thread(target=lambda: seen.append(aclnn.aclGetRecentErrMsg()))
    thread.start()
    thread.join()
    assert seen == [None]
    assert "size=0" in aclnn.aclGetRecentErrMsg()
    assert acl.get_recent_err_msg() is None
    assert acl.rt.malloc(8, 0)[1] == 0 and acl.get_recent_err_msg() is None


def test_runtime_is_safe_from_several_threads(runtime):
    errors = []

    def work():
        for _ in range(50):
            ptr, ret = acl.rt.malloc(64, 0)
            host = np.arange(64, dtype=np.uint8)
            ok = ret == 0 and acl.rt.memcpy(ptr, 64, acl.util.numpy_to_ptr(host), 64, H2D) == 0
            back = np.zeros(64, np.uint8)
            ok = ok and acl.rt.memcpy(acl.util.numpy_to_ptr(back), 64, ptr, 64, D2H) == 0
            if not (ok and back.tolist() == host.tolist() and acl.rt.free(ptr) == 0):
                errors.append(acl.get_recent_err_msg())

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert CONTEXT.space.regions("device") == []
