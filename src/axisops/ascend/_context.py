"""The runtime's state: one context object, guarded by one lock, and its streams.

``CONTEXT`` holds whether ``acl.init`` has run, how many times device 0 is
set, the streams, and the address space (device allocations and registered
host buffers).  Every public call takes ``CONTEXT.lock`` for its whole
duration, so calls from several threads are serialised and queued work runs
under the same lock as the memory it touches.

A :class:`Stream` is a queue of work that runs, in order, when the stream is
synchronised: phase 2 of an aclnn operator only appends a :class:`Task`.  A
task that fails raises :class:`~axisops.ascend._boundary.Failure`; as on an
NPU, where an AI Core exception aborts the stream's later work, the tasks
queued after it are discarded, and the synchronisation reports the first
failure.

>>> CONTEXT.initialized
False
>>> stream, seen = Stream(0x5000_0100), []
>>> stream.enqueue(Task("first", lambda: seen.append(1)))
>>> stream.enqueue(Task("second", lambda: seen.append(2)))
>>> seen, stream.pending
([], 2)
>>> stream.run_all(), seen, stream.pending
(None, [1, 2], 0)
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .._forksafe import fork_safe
from ._boundary import Failure, brief, describe, fail, is_int, is_null, record
from ._constants import ACL_ERROR_RT_CONTEXT_NULL, ACL_ERROR_UNINITIALIZE, ACLNN_ERR_INNER
from ._memory import AddressSpace

# Stream handles live in their own range; they are never reused within a process.
_STREAM_BASE = 0x5000_0000
_STREAM_STEP = 0x100


@dataclass(frozen=True)
class Task:
    """One piece of queued work: ``run()`` does it or raises ``Failure``."""

    label: str
    run: Callable[[], None]


class Stream:
    """An ``aclrtStream``: ``handle`` is what the caller holds (0 for the default stream)."""

    def __init__(self, handle: int) -> None:
        self.handle = handle
        self._queue: deque[Task] = deque()

    def __repr__(self) -> str:
        return f"<axisops.ascend Stream {self.handle:#x}, {self.pending} pending>"

    @property
    def pending(self) -> int:
        """How many tasks wait for the next synchronisation."""
        return len(self._queue)

    def enqueue(self, task: Task) -> None:
        """Append ``task``; it runs at the next :meth:`run_all`."""
        self._queue.append(task)

    def run_all(self) -> tuple[int, str] | None:
        """Run every queued task in order; ``(code, message)`` of the first failure, or None.

        After a failure the remaining tasks are discarded (and counted in the message).
        """
        while self._queue:
            task = self._queue.popleft()
            try:
                task.run()
            except Failure as exc:
                return exc.code, self._failed(task, exc.message)
            except Exception as exc:  # a bug in the emulator must still be a status code
                detail = f"internal error {describe(exc)}"
                return ACLNN_ERR_INNER, self._failed(task, detail)
        return None

    def _failed(self, task: Task, detail: str) -> str:
        dropped = len(self._queue)
        self._queue.clear()
        where = "the default stream" if self.handle == 0 else f"stream {self.handle:#x}"
        tail = (f"; the {dropped} task{'s' if dropped != 1 else ''} queued after it "
                f"{'were' if dropped != 1 else 'was'} discarded") if dropped else ""
        return f"{task.label} on {where} failed: {detail}{tail}"


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
        if is_null(handle):
            return self.default_stream
        return self.streams.get(int(handle)) if is_int(handle) else None

    def live_stream(self, func: str, handle: Any, code: int) -> Stream | int:
        """The stream ``handle`` names, or ``code`` (with its message) when none is live."""
        found = self.find_stream(handle)
        if found is None:
            return fail(code, f"{func}: stream={brief(handle)} is not a live stream (never "
                              f"created, or already destroyed)")
        return found

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


#: The one runtime context of this process.  fork() waits for a call in flight (a
#: synchronisation runs its stream's work); its lock is outer: queued work makes axisops
#: calls, which take the lazy imports' locks.
CONTEXT = Context()
fork_safe(CONTEXT.lock, outer=True)
