"""Streams: queues of work that run, in order, when the stream is synchronised.

Phase 2 of an aclnn operator only appends a :class:`Task`; nothing is read or
written until ``acl.rt.synchronize_stream`` runs the queue.  A task that fails
raises :class:`~axisops.ascend.status.TaskFailure`; as on an NPU, where an AI
Core exception aborts the stream's later work, the tasks queued after it are
discarded, and the synchronisation reports the first failure.

>>> from axisops.ascend.streams import Stream, Task
>>> stream, seen = Stream(0x5000_0100), []
>>> stream.enqueue(Task("first", lambda: seen.append(1)))
>>> stream.enqueue(Task("second", lambda: seen.append(2)))
>>> seen, stream.pending
([], 2)
>>> stream.run_all(), seen, stream.pending
(None, [1, 2], 0)
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from .constants import ACLNN_ERR_INNER
from .status import TaskFailure, describe

__all__ = ["Stream", "Task"]


@dataclass(frozen=True)
class Task:
    """One piece of queued work: ``run()`` does it or raises ``TaskFailure``."""

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
            except TaskFailure as exc:
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
