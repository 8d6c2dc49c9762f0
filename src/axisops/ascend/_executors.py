"""``aclOpExecutor``: what phase 1 validated, and the rules of launching it.

Phase 1 returns an :class:`Executor` holding the operator's work; phase 2
(:func:`launch`) checks the executor, the workspace and the stream, and only
enqueues that work on the stream.  An executor is single use: its first
launch consumes it.  ``aclSetAclOpExecutorRepeatable`` before that first
launch makes it reusable until ``aclDestroyAclOpExecutor``.

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

from ._boundary import brief, fail, is_int, is_null
from ._constants import (
    ACLNN_ERR_INNER,
    ACLNN_ERR_INNER_NULLPTR,
    ACLNN_ERR_PARAM_INVALID,
    ACLNN_ERR_PARAM_NULLPTR,
    ACLNN_ERR_RUNTIME_ERROR,
)
from ._context import CONTEXT, Task
from ._memory import MemoryFault

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


def _check_executor(func: str, executor: Any, *, null: int, foreign: int,
                    op: str | None = None) -> int:
    """0 when ``executor`` is a usable executor (of ``op``, if given), else the code.

    ``null`` is the code for None and ``foreign`` the code for something that is
    not an executor; CANN's executor calls and its phase 2 use different ones.
    """
    if executor is None:
        return fail(null, f"{func}: executor is None (NULL)")
    if not issubclass(type(executor), Executor):
        return fail(foreign, f"{func}: executor={brief(executor)} is not an aclOpExecutor")
    if op is not None and executor.op != op:
        return fail(ACLNN_ERR_PARAM_INVALID,
                    f"{func}: {executor.name} was made by {executor.op}GetWorkspaceSize, "
                    f"not {op}GetWorkspaceSize")
    why = executor.unusable()
    return 0 if why is None else fail(ACLNN_ERR_PARAM_INVALID, f"{func}: {why}")


def set_repeatable(executor: Executor) -> int:
    """``aclSetAclOpExecutorRepeatable``: let ``executor`` be launched any number of times.

    None returns 561103, a non-executor 561000, and an executor that was
    already consumed or destroyed 161002.
    """
    with CONTEXT.lock:
        ret = _check_executor("aclSetAclOpExecutorRepeatable()", executor,
                              null=ACLNN_ERR_INNER_NULLPTR, foreign=ACLNN_ERR_INNER)
        if ret == 0:
            executor.repeatable = True
        return ret


def destroy(executor: Executor) -> int:
    """``aclDestroyAclOpExecutor``: release ``executor`` (repeatable or not yet launched).

    Work it already queued still runs.  None returns 561103, a non-executor
    561000, and one already consumed or destroyed 161002.
    """
    with CONTEXT.lock:
        ret = _check_executor("aclDestroyAclOpExecutor()", executor,
                              null=ACLNN_ERR_INNER_NULLPTR, foreign=ACLNN_ERR_INNER)
        if ret == 0:
            executor.state = "destroyed"
        return ret


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
        ret = _check_executor(func, executor, null=ACLNN_ERR_PARAM_NULLPTR,
                              foreign=ACLNN_ERR_PARAM_INVALID, op=op) or _check_workspace(
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


def _check_workspace(func: str, workspace: Any, workspace_size: Any, executor: Executor) -> int:
    if not is_int(workspace_size) or workspace_size < 0:
        return fail(ACLNN_ERR_PARAM_INVALID,
                    f"{func}: workspace_size={brief(workspace_size)} is invalid (need an "
                    f"integer >= 0)")
    null = is_null(workspace)
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
    if is_null(stream) and CONTEXT.default_stream is None:
        state = "acl.init() has not been called" if not CONTEXT.initialized else \
            "no device is set"
        return fail(ACLNN_ERR_RUNTIME_ERROR,
                    f"{func}: stream={brief(stream)} is the default stream, but {state}")
    return CONTEXT.live_stream(func, stream, ACLNN_ERR_PARAM_INVALID)
