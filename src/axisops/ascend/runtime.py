"""The runtime's state: one context object, guarded by one lock.

``CONTEXT`` holds whether ``acl.init`` has run, how many times device 0 is
set, the streams, and the address space (device allocations and registered
host buffers).  Every public call takes ``CONTEXT.lock`` for its whole
duration, so calls from several threads are serialised and queued work runs
under the same lock as the memory it touches.

>>> from axisops.ascend.runtime import CONTEXT
>>> CONTEXT.initialized
False
"""

from __future__ import annotations

import threading
from typing import Any

from .constants import ACL_ERROR_RT_CONTEXT_NULL, ACL_ERROR_UNINITIALIZE
from .memory import AddressSpace, is_int
from .status import fail, record
from .streams import Stream

__all__ = ["CONTEXT", "Context"]

# Stream handles live in their own range; they are never reused within a process.
_STREAM_BASE = 0x5000_0000
_STREAM_STEP = 0x100


class Context:
    """Runtime state: init flag, device references, streams, address space."""

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self.space = AddressSpace()
        self.initialized = False
        self.device_refs = 0
        self.streams: dict[int, Stream] = {}
        self.default_stream: Stream | None = None
        self._next_stream = _STREAM_BASE

    # --- preconditions ------------------------------------------------------------
    def ready(self, func: str, *, device: bool = True) -> int:
        """0 when ``func`` may run, else the code (and its recorded message)."""
        if not self.initialized:
            return fail(ACL_ERROR_UNINITIALIZE,
                        f"{func}: acl.init() has not been called (or acl.finalize() has)")
        if device and self.device_refs == 0:
            return fail(ACL_ERROR_RT_CONTEXT_NULL,
                        f"{func}: no device is set (call acl.rt.set_device(0) first)")
        return 0

    # --- streams -----------------------------------------------------------------------
    def new_stream(self) -> Stream:
        """Create and remember a stream with a fresh handle."""
        self._next_stream += _STREAM_STEP
        stream = Stream(self._next_stream)
        self.streams[stream.handle] = stream
        return stream

    def find_stream(self, handle: Any) -> Stream | None:
        """The stream ``handle`` names: None or 0 is the default stream of the device."""
        if handle is None or (is_int(handle) and handle == 0):
            return self.default_stream
        return self.streams.get(int(handle)) if is_int(handle) else None

    def drain(self, stream: Stream, func: str) -> None:
        """Run ``stream``'s pending work; a failure is only recorded (the caller succeeds)."""
        failure = stream.run_all()
        if failure is not None:
            record(f"{func}: pending work ran first and failed: {failure[1]}")

    # --- devices and teardown -----------------------------------------------------------
    def open_device(self) -> None:
        """One more ``set_device(0)``; the first one creates the default stream."""
        self.device_refs += 1
        if self.default_stream is None:
            self.default_stream = Stream(0)

    def close_device(self, func: str) -> None:
        """Run all pending work, then destroy every stream and free every device allocation."""
        streams = [s for s in (self.default_stream, *self.streams.values()) if s is not None]
        for stream in streams:
            self.drain(stream, func)
        self.streams.clear()
        self.default_stream = None
        self.device_refs = 0
        for region in self.space.regions("device"):
            self.space.release(region)

    def finalize(self) -> None:
        """``acl.finalize``: close the device, forget host registrations, uninitialise."""
        self.close_device("acl.finalize()")
        for region in self.space.regions("host"):
            self.space.release(region)
        self.initialized = False


#: The one runtime context of this process.
CONTEXT = Context()
