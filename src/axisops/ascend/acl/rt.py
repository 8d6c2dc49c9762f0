"""``acl.rt``: devices, streams and emulated device memory, the pyACL way.

Each function returns its status code last (0 on success) and never raises:
a bad argument is a code, with a message for ``acl.get_recent_err_msg()`` /
``aclnn.aclGetRecentErrMsg()``, and changes nothing.

>>> import numpy as np
>>> from axisops.ascend import acl
>>> acl.init(), acl.rt.set_device(0)
(0, 0)
>>> ptr, ret = acl.rt.malloc(8, acl.ACL_MEM_MALLOC_HUGE_FIRST)
>>> host = np.array([1, 2], np.int32)
>>> acl.rt.memcpy(ptr, 8, acl.util.numpy_to_ptr(host), 8, acl.ACL_MEMCPY_HOST_TO_DEVICE)
0
>>> back = np.zeros(2, np.int32)
>>> acl.rt.memcpy(acl.util.numpy_to_ptr(back), 8, ptr + 4, 4, acl.ACL_MEMCPY_DEVICE_TO_HOST)
0
>>> back
array([2, 0], dtype=int32)
>>> acl.rt.memcpy(ptr, 8, ptr + 4, 8, acl.ACL_MEMCPY_DEVICE_TO_DEVICE)
100000
>>> print(acl.get_recent_err_msg())  # doctest: +ELLIPSIS, +NORMALIZE_WHITESPACE
acl.rt.memcpy(): src=0x...4 with count=8 runs past the end of the 8-byte device allocation
at 0x... (offset 4, need offset + count <= 8) (kind=ACL_MEMCPY_DEVICE_TO_DEVICE)
>>> acl.rt.free(ptr), acl.rt.reset_device(0), acl.finalize()
(0, 0, 0)
"""

from __future__ import annotations

from typing import Any

from .._boundary import acl_call, brief, fail, is_int, is_null, show
from .._constants import (
    ACL_ERROR_INVALID_DEVICE,
    ACL_ERROR_INVALID_PARAM,
    ACL_ERROR_RT_MEMORY_ALLOCATION,
    ACL_MEM_MALLOC_HUGE_FIRST,
    ACL_MEM_MALLOC_NORMAL_ONLY,
    ACL_MEMCPY_DEVICE_TO_DEVICE,
    ACL_MEMCPY_DEVICE_TO_HOST,
    ACL_MEMCPY_HOST_TO_DEVICE,
    ACL_MEMCPY_HOST_TO_HOST,
    MEMCPY_KIND_NAMES,
    listing,
)
from .._context import CONTEXT
from .._memory import DEVICE_MEMORY_BYTES, AddressSpace, MemoryFault

__all__ = [
    "create_stream",
    "destroy_stream",
    "free",
    "host_unregister",
    "malloc",
    "memcpy",
    "reset_device",
    "set_device",
    "synchronize_stream",
]

#: (dst space, src space) of each copy kind.
_SPACES = {
    ACL_MEMCPY_HOST_TO_HOST: ("host", "host"),
    ACL_MEMCPY_HOST_TO_DEVICE: ("device", "host"),
    ACL_MEMCPY_DEVICE_TO_HOST: ("host", "device"),
    ACL_MEMCPY_DEVICE_TO_DEVICE: ("device", "device"),
}


def _null_and(code: int) -> tuple[int, int]:
    return 0, code


def _bad_int(func: str, name: str, value: Any, need: str) -> int:
    return fail(ACL_ERROR_INVALID_PARAM, f"{func}: {show(name, value)} is invalid (need {need})")


def _device_id(func: str, device_id: Any) -> int:
    if not is_int(device_id):
        return _bad_int(func, "device_id", device_id, "an integer device id")
    if device_id != 0:
        return fail(ACL_ERROR_INVALID_DEVICE,
                    f"{func}: device_id={int(device_id)} does not exist (the emulator has one "
                    f"device, 0)")
    return 0


# --- devices ---------------------------------------------------------------------------
@acl_call("acl.rt.set_device()")
def set_device(device_id: int) -> int:
    """``aclrtSetDevice``: make device 0 current (reference counted).

    Any other id returns 200002 (ACL_ERROR_INVALID_DEVICE).  The first call
    creates the device's default stream (passed as ``None`` or 0).
    """
    func = "acl.rt.set_device()"
    with CONTEXT.lock:
        ret = CONTEXT.ready(func, device=False) or _device_id(func, device_id)
        if ret == 0:
            CONTEXT.open_device()
        return ret


@acl_call("acl.rt.reset_device()")
def reset_device(device_id: int) -> int:
    """``aclrtResetDevice``: undo one ``set_device``; the last one releases the device.

    Releasing runs every stream's pending work, destroys the streams and frees
    every device allocation.  Resetting a device that is not set does nothing.
    """
    func = "acl.rt.reset_device()"
    with CONTEXT.lock:
        ret = CONTEXT.ready(func, device=False) or _device_id(func, device_id)
        if ret == 0 and CONTEXT.device_refs > 0:
            CONTEXT.device_refs -= 1
            if CONTEXT.device_refs == 0:
                CONTEXT.close_device(func)
        return ret


# --- streams -------------------------------------------------------------------------------
@acl_call("acl.rt.create_stream()", failure=_null_and)
def create_stream() -> tuple[int, int]:
    """``aclrtCreateStream``: ``stream, ret``; the stream is an int handle (0 on failure).

    >>> from axisops.ascend import acl
    >>> acl.rt.create_stream()
    (0, 100001)
    """
    with CONTEXT.lock:
        ret = CONTEXT.ready("acl.rt.create_stream()")
        return (0, ret) if ret else (CONTEXT.new_stream().handle, 0)


@acl_call("acl.rt.synchronize_stream()")
def synchronize_stream(stream: int | None) -> int:
    """``aclrtSynchronizeStream``: run the stream's queued work, in order.

    Returns 0, or the code of the first task that failed (507015 for an
    out-of-range gather index) with its message; tasks after it are discarded.
    ``None`` or 0 is the default stream.
    """
    func = "acl.rt.synchronize_stream()"
    with CONTEXT.lock:
        found = CONTEXT.ready(func) or CONTEXT.live_stream(func, stream, ACL_ERROR_INVALID_PARAM)
        if is_int(found):
            return found
        failure = found.run_all()
        return 0 if failure is None else fail(failure[0], f"{func}: {failure[1]}")


@acl_call("acl.rt.destroy_stream()")
def destroy_stream(stream: int) -> int:
    """``aclrtDestroyStream``: run the stream's pending work, then destroy it.

    The default stream cannot be destroyed (100000).
    """
    func = "acl.rt.destroy_stream()"
    with CONTEXT.lock:
        ret = CONTEXT.ready(func)
        if ret:
            return ret
        if is_null(stream):
            return fail(ACL_ERROR_INVALID_PARAM,
                        f"{func}: stream={brief(stream)} is the default stream, which lives as "
                        f"long as the device and cannot be destroyed")
        found = CONTEXT.live_stream(func, stream, ACL_ERROR_INVALID_PARAM)
        if is_int(found):
            return found
        CONTEXT.drain(found, func)
        del CONTEXT.streams[found.handle]
        return 0


# --- memory --------------------------------------------------------------------------------
@acl_call("acl.rt.malloc()", failure=_null_and)
def malloc(size: int, policy: int) -> tuple[int, int]:
    """``aclrtMalloc``: ``ptr, ret``; ``size`` bytes of emulated device memory (ptr 0 on failure).

    The memory reads as zeros (a real device leaves it uninitialised).  ``size``
    must be > 0 and ``policy`` one of the ``ACL_MEM_MALLOC_*`` values (else 100000);
    more than the emulated device's 64 GiB returns 207001.
    """
    func = "acl.rt.malloc()"
    with CONTEXT.lock:
        ret = CONTEXT.ready(func)
        if ret == 0 and (not is_int(size) or size <= 0):
            ret = _bad_int(func, "size", size, "an integer > 0")
        if ret == 0 and (not is_int(policy) or not
                         ACL_MEM_MALLOC_HUGE_FIRST <= policy <= ACL_MEM_MALLOC_NORMAL_ONLY):
            ret = _bad_int(func, "policy", policy, "ACL_MEM_MALLOC_HUGE_FIRST 0, HUGE_ONLY 1 "
                                                   "or NORMAL_ONLY 2")
        if ret:
            return 0, ret
        try:
            return CONTEXT.space.allocate(int(size)).base, 0
        except (MemoryError, ValueError) as exc:
            return 0, fail(ACL_ERROR_RT_MEMORY_ALLOCATION,
                           f"{func}: size={int(size)} cannot be allocated ({exc}; the emulated "
                           f"device has {DEVICE_MEMORY_BYTES} bytes)")


@acl_call("acl.rt.free()")
def free(ptr: int) -> int:
    """``aclrtFree``: release the allocation that starts at ``ptr``.

    A pointer that is not the start of a live device allocation (NULL, interior,
    host, already freed) returns 100000.
    """
    func = "acl.rt.free()"
    with CONTEXT.lock:
        ret = CONTEXT.ready(func)
        if ret:
            return ret
        space = CONTEXT.space
        region = space.region_at(ptr)
        if region is not None and region.space == "device":
            space.release(region)
            return 0
        why = _not_a_base(space, ptr, "device", "free needs the address malloc returned")
        return fail(ACL_ERROR_INVALID_PARAM, f"{func}: {why}")


@acl_call("acl.rt.host_unregister()")
def host_unregister(ptr: int) -> int:
    """``aclrtHostUnregister``: end the registration ``acl.util.numpy_to_ptr`` made.

    ``ptr`` must be the pointer ``acl.util.numpy_to_ptr`` or ``bytes_to_ptr``
    returned.  The emulator then drops its reference to the object (which is
    freed when nothing else holds it), and the pointer never resolves again.
    NULL, an interior or device pointer, or a registration already ended
    returns 100000.  Like those helpers, it works in any runtime state.  Views
    from ``acl.util.ptr_to_numpy`` stay valid: they hold the memory themselves.

    >>> import numpy as np
    >>> from axisops.ascend import acl
    >>> ptr = acl.util.numpy_to_ptr(np.zeros(4))
    >>> acl.rt.host_unregister(ptr), acl.rt.host_unregister(ptr)
    (0, 100000)
    >>> print(acl.get_recent_err_msg())  # doctest: +ELLIPSIS, +NORMALIZE_WHITESPACE
    acl.rt.host_unregister(): ptr=0x... points into the 32-byte host registration at 0x...,
    which was freed
    """
    func = "acl.rt.host_unregister()"
    with CONTEXT.lock:
        space = CONTEXT.space
        region = space.region_at(ptr)
        if region is not None and region.space == "host":
            space.release(region)
            return 0
        why = _not_a_base(space, ptr, "host",
                          "host_unregister needs the pointer numpy_to_ptr or bytes_to_ptr returned")
        return fail(ACL_ERROR_INVALID_PARAM, f"{func}: {why}")


def _not_a_base(space: AddressSpace, ptr: Any, want: str, need: str) -> str:
    """Why ``ptr`` is not the base of a region in space ``want``, for a message."""
    found = space.resolve(ptr)
    if found is None:
        return space.explain("ptr", ptr)
    region, offset = found
    if region.space != want:
        return f"ptr={ptr:#x} is in {region.describe()}, not {want} memory"
    return f"ptr={ptr:#x} is offset {offset} into {region.describe()} ({need})"


@acl_call("acl.rt.memcpy()")
def memcpy(dst: int, dest_max: int, src: int, count: int, kind: int) -> int:
    """``aclrtMemcpy``: copy ``count`` bytes from ``src`` to ``dst``, synchronously.

    ``kind`` says where each pointer lives (``ACL_MEMCPY_HOST_TO_DEVICE`` ...).
    A pointer no region owns, one in the wrong space, a range past either end,
    ``count > dest_max`` or a read-only destination returns 100000 and copies
    nothing.  Overlapping ranges copy as ``memmove`` does.  Queued stream work
    is not waited for.
    """
    func = "acl.rt.memcpy()"
    with CONTEXT.lock:
        ret = CONTEXT.ready(func) or _copy_args(func, dest_max, count, kind)
        if ret:
            return ret
        dst_space, src_space = _SPACES[int(kind)]
        try:
            target = CONTEXT.space.span(dst, int(count), want=dst_space, write=True, name="dst")
            source = CONTEXT.space.span(src, int(count), want=src_space, write=False, name="src")
        except MemoryFault as exc:
            kind_name = MEMCPY_KIND_NAMES[int(kind)]
            return fail(ACL_ERROR_INVALID_PARAM, f"{func}: {exc} (kind={kind_name})")
        target[...] = source
        return 0


def _copy_args(func: str, dest_max: Any, count: Any, kind: Any) -> int:
    if not is_int(kind) or int(kind) not in MEMCPY_KIND_NAMES:
        return _bad_int(func, "kind", kind, listing(MEMCPY_KIND_NAMES))
    for name, value in (("dest_max", dest_max), ("count", count)):
        if not is_int(value) or value < 0:
            return _bad_int(func, name, value, "an integer >= 0")
    if count > dest_max:
        return fail(ACL_ERROR_INVALID_PARAM,
                    f"{func}: count={int(count)} exceeds dest_max={int(dest_max)} "
                    f"(need count <= dest_max)")
    return 0
