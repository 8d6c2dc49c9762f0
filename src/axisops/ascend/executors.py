"""``aclOpExecutor``: what phase 1 validated, and the rules of launching it.

Phase 1 returns an :class:`Executor` holding the operator's work; phase 2
(:func:`launch`) checks the executor, the workspace and the stream, and only
enqueues that work on the stream.  An executor is single use: its first
launch consumes it.  ``aclSetAclOpExecutorRepeatable`` before that first
launch makes it reusable until ``aclDestroyAclOpExecutor``.

>>> from axisops.ascend.executors import Executor, set_repeatable, destroy
>>> ex = Executor("aclnnGather", None)
>>> ex  # doctest: +ELLIPSIS
<aclOpExecutor #... of aclnnGather, single use, ready>
>>> set_repeatable(ex), ex.repeatable, destroy(ex), destroy(ex)
(0, True, 0, 161002)
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from .constants import (
    ACLNN_ERR_INNER,
    ACLNN_ERR_INNER_NULLPTR,
    ACLNN_ERR_PARAM_INVALID,
    ACLNN_ERR_PARAM_NULLPTR,
    ACLNN_ERR_RUNTIME_ERROR,
)
from .memory import MemoryFault, is_int
from .runtime import CONTEXT
from .status import brief, fail
from .streams import Task

__all__ = ["Executor", "destroy", "launch", "set_repeatable"]

_serial = itertools.count(1)


class Executor:
    """An ``aclOpExecutor``: ``task`` does the work (None: nothing to do, e.g. empty tensors)."""

    def __init__(self, op: str, task: Callable[[], None] | None, workspace_size: int = 0) -> None:
        self.op = op
        self.task = task
        self.workspace_size = workspace_size
        self.serial = next(_serial)
        self.repeatable = False
        self.launches = 0
        self.state = "ready"  # "ready", "consumed" (single use, launched) or "destroyed"

    def __repr__(self) -> str:
        use = "repeatable" if self.repeatable else "single use"
        return f"<aclOpExecutor #{self.serial} of {self.op}, {use}, {self.state}>"

    @property
    def name(self) -> str:
        """E.g. ``"executor #3 (aclnnGather)"``, for messages."""
        return f"executor #{self.serial} ({self.op})"

    def unusable(self) -> str | None:
        """Why this executor can no longer be launched, or None."""
        if self.state == "destroyed":
            return f"{self.name} was destroyed by aclDestroyAclOpExecutor"
        if self.state == "consumed":
            return (f"{self.name} is single use and was already launched (call "
                    f"aclSetAclOpExecutorRepeatable right after phase 1 to reuse it)")
        return None


def _not_executor(func: str, executor: Any) -> int | None:
    if executor is None:
        return fail(ACLNN_ERR_INNER_NULLPTR, f"{func}: executor is None (NULL)")
    if not issubclass(type(executor), Executor):
        return fail(ACLNN_ERR_INNER, f"{func}: executor={brief(executor)} is not an aclOpExecutor")
    return None


def set_repeatable(executor: Executor) -> int:
    """``aclSetAclOpExecutorRepeatable``: let ``executor`` be launched any number of times.

    None returns 561103, a non-executor 561000, and an executor that was
    already consumed or destroyed 161002.
    """
    func = "aclSetAclOpExecutorRepeatable()"
    with CONTEXT.lock:
        bad = _not_executor(func, executor)
        if bad is not None:
            return bad
        why = executor.unusable()
        if why is not None:
            return fail(ACLNN_ERR_PARAM_INVALID, f"{func}: {why}")
        executor.repeatable = True
        return 0


def destroy(executor: Executor) -> int:
    """``aclDestroyAclOpExecutor``: release ``executor`` (repeatable or not yet launched).

    Work it already queued still runs.  None returns 561103, a non-executor
    561000, and one already consumed or destroyed 161002.
    """
    func = "aclDestroyAclOpExecutor()"
    with CONTEXT.lock:
        bad = _not_executor(func, executor)
        if bad is not None:
            return bad
        why = executor.unusable()
        if why is not None:
            return fail(ACLNN_ERR_PARAM_INVALID, f"{func}: {why}")
        executor.state = "destroyed"
        return 0


def launch(op: str, workspace: Any, workspace_size: Any, executor: Any, stream: Any) -> int:
    """Phase 2 of ``op``: check everything, then enqueue ``executor``'s work on ``stream``.

    Codes: executor None 161001; not an executor of ``op``, consumed or
    destroyed 161002; ``workspace_size`` not an integer >= 0 161002;
    ``workspace_size > 0`` with workspace None 161001; ``workspace_size``
    below what phase 1 asked for, or a workspace that is not that many bytes
    of device memory, 161002; an unknown stream 161002; the default stream
    without a device 361001.  A failed launch changes nothing.
    """
    func = f"{op}()"
    with CONTEXT.lock:
        ret = _check_executor(func, op, executor) or _check_workspace(
            func, workspace, workspace_size, executor)
        if ret:
            return ret
        target = _find_stream(func, stream)
        if is_int(target):
            return target
        executor.launches += 1
        label = f"{op} (launch {executor.launches} of {executor.name})"
        target.enqueue(Task(label, executor.task or _nothing))
        if not executor.repeatable:
            executor.state = "consumed"
        return 0


def _nothing() -> None:
    """The work of an executor with nothing to do."""


def _check_executor(func: str, op: str, executor: Any) -> int:
    if executor is None:
        return fail(ACLNN_ERR_PARAM_NULLPTR, f"{func}: executor is None (NULL)")
    if not issubclass(type(executor), Executor):
        return fail(ACLNN_ERR_PARAM_INVALID,
                    f"{func}: executor={brief(executor)} is not an aclOpExecutor")
    if executor.op != op:
        return fail(ACLNN_ERR_PARAM_INVALID,
                    f"{func}: {executor.name} was made by {executor.op}GetWorkspaceSize, "
                    f"not {op}GetWorkspaceSize")
    why = executor.unusable()
    return 0 if why is None else fail(ACLNN_ERR_PARAM_INVALID, f"{func}: {why}")


def _check_workspace(func: str, workspace: Any, workspace_size: Any, executor: Executor) -> int:
    if not is_int(workspace_size) or workspace_size < 0:
        return fail(ACLNN_ERR_PARAM_INVALID,
                    f"{func}: workspace_size={brief(workspace_size)} is invalid (need an "
                    f"integer >= 0)")
    null = workspace is None or (is_int(workspace) and workspace == 0)
    if workspace_size > 0 and null:
        return fail(ACLNN_ERR_PARAM_NULLPTR,
                    f"{func}: workspace is NULL but workspace_size={int(workspace_size)} > 0")
    if workspace_size < executor.workspace_size:
        return fail(ACLNN_ERR_PARAM_INVALID,
                    f"{func}: workspace_size={int(workspace_size)} is smaller than the "
                    f"{executor.workspace_size} bytes phase 1 asked for")
    if null:
        return 0
    try:
        CONTEXT.space.span(workspace, int(workspace_size), want="device", write=True,
                           name="workspace")
    except MemoryFault as exc:
        return fail(ACLNN_ERR_PARAM_INVALID, f"{func}: {exc}")
    return 0


def _find_stream(func: str, stream: Any) -> Any:
    found = CONTEXT.find_stream(stream)
    if found is not None:
        return found
    if stream is None or (is_int(stream) and stream == 0):
        state = "acl.init() has not been called" if not CONTEXT.initialized else \
            "no device is set"
        return fail(ACLNN_ERR_RUNTIME_ERROR,
                    f"{func}: stream={brief(stream)} is the default stream, but {state}")
    return fail(ACLNN_ERR_PARAM_INVALID,
                f"{func}: stream={brief(stream)} is not a live stream (never created, or "
                f"already destroyed)")
