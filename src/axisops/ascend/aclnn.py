"""Module ``aclnn``: tensors, executors and the two-phase aclnnGather / aclnnTopk, and the
sort and selection family (aclnnSort, aclnnArgsort, aclnnKthvalue, aclnnMedian,
aclnnMedianDim, aclnnNanMedian).

The functions keep their C names; C out-parameters come back first and the
status code last, as in pyACL::

    workspace_size, executor, ret = aclnn.aclnnGatherGetWorkspaceSize(self, dim, index, out)
    ret = aclnn.aclnnGather(workspace, workspace_size, executor, stream)

Phase 1 checks every rule in the order of the spec (``docs/ascend.md``) and
returns ``(0, None, code)`` at the first one broken, with the message in
:func:`aclGetRecentErrMsg`.  Phase 2 only enqueues the work on the stream;
``acl.rt.synchronize_stream`` runs it.

>>> import numpy as np
>>> from axisops.ascend import acl, aclnn
>>> _ = acl.init(), acl.rt.set_device(0)
>>> stream, _ = acl.rt.create_stream()
>>> data = np.array([[0, 1, 2.5, 3], [4, 5.5, 6, 7]], np.float32)
>>> x_ptr, _ = acl.rt.malloc(data.nbytes, acl.ACL_MEM_MALLOC_HUGE_FIRST)
>>> v_ptr, _ = acl.rt.malloc(16, acl.ACL_MEM_MALLOC_HUGE_FIRST)
>>> i_ptr, _ = acl.rt.malloc(32, acl.ACL_MEM_MALLOC_HUGE_FIRST)
>>> acl.rt.memcpy(x_ptr, 32, acl.util.numpy_to_ptr(data), 32, acl.ACL_MEMCPY_HOST_TO_DEVICE)
0
>>> nd = acl.ACL_FORMAT_ND
>>> x = aclnn.aclCreateTensor((2, 4), acl.ACL_FLOAT, (4, 1), 0, nd, (2, 4), x_ptr)
>>> v = aclnn.aclCreateTensor((2, 2), acl.ACL_FLOAT, (2, 1), 0, nd, (2, 2), v_ptr)
>>> i = aclnn.aclCreateTensor((2, 2), acl.ACL_INT64, (2, 1), 0, nd, (2, 2), i_ptr)
>>> ws, executor, ret = aclnn.aclnnTopkGetWorkspaceSize(x, 2, 1, True, True, v, i)
>>> ws, ret, aclnn.aclnnTopk(None, ws, executor, stream)
(0, 0, 0)
>>> acl.rt.synchronize_stream(stream)
0
>>> values = np.zeros(4, np.float32)
>>> acl.rt.memcpy(acl.util.numpy_to_ptr(values), 16, v_ptr, 16, acl.ACL_MEMCPY_DEVICE_TO_HOST)
0
>>> values.tolist()
[3.0, 2.5, 7.0, 6.0]
>>> aclnn.aclnnTopk(None, ws, executor, stream)
161002
>>> print(aclnn.aclGetRecentErrMsg())  # doctest: +ELLIPSIS
aclnnTopk(): executor #... (aclnnTopk) is single use and was already launched ...
>>> acl.finalize()
0
"""

from __future__ import annotations

from typing import Any

from . import _constants
from ._boundary import Failure, aclnn_call, describe, fail, show, take_recent
from ._constants import ACLNN_ERR_INNER, ACLNN_ERR_PARAM_INVALID, ACLNN_SUCCESS
from ._context import CONTEXT
from ._executors import Executor, destroy, launch, set_repeatable
from ._ops import (
    plan_argsort,
    plan_gather,
    plan_kthvalue,
    plan_median,
    plan_median_dim,
    plan_nan_median,
    plan_sort,
    plan_topk,
)
from ._tensors import AclTensor, create_tensor

# ACLNN_SUCCESS, ACLNN_ERR_PARAM_INVALID, ...: every ACLNN_* code, defined once in _constants.
globals().update(_constants.ACLNN_EXPORTS)

__all__ = [
    "AclTensor",
    "Executor",
    "aclCreateTensor",
    "aclDestroyAclOpExecutor",
    "aclDestroyTensor",
    "aclGetRecentErrMsg",
    "aclSetAclOpExecutorRepeatable",
    "aclnnArgsort",
    "aclnnArgsortGetWorkspaceSize",
    "aclnnGather",
    "aclnnGatherGetWorkspaceSize",
    "aclnnKthvalue",
    "aclnnKthvalueGetWorkspaceSize",
    "aclnnMedian",
    "aclnnMedianDim",
    "aclnnMedianDimGetWorkspaceSize",
    "aclnnMedianGetWorkspaceSize",
    "aclnnNanMedian",
    "aclnnNanMedianGetWorkspaceSize",
    "aclnnSort",
    "aclnnSortGetWorkspaceSize",
    "aclnnTopk",
    "aclnnTopkGetWorkspaceSize",
]
__all__ += list(_constants.ACLNN_EXPORTS)  # (a call: documentation tools list strings only)


def _no_tensor(code: int) -> None:
    return None


def _no_executor(code: int) -> tuple[int, None, int]:
    return 0, None, code


# --- tensors --------------------------------------------------------------------------
@aclnn_call("aclCreateTensor()", failure=_no_tensor)
def aclCreateTensor(view_dims: Any, data_type: int, stride: Any, offset: int, format: int,
                    storage_dims: Any, tensor_data: int) -> AclTensor | None:
    """``aclCreateTensor``: a tensor handle, or None (with a message) where C returns NULL.

    ``view_dims``/``storage_dims``: sequences of integers >= 0 (None means no
    dimensions, as C's ``(nullptr, 0)``); ``stride``: one integer >= 0 per
    dimension, in elements, or None for contiguous; ``offset``: elements from
    ``tensor_data`` to the view's first element; ``format``: ND, NCHW or NHWC
    (all treated as ND); ``tensor_data``: a device pointer (0 or None for NULL).
    Complex types are accepted here and refused by the operators.

    >>> from axisops.ascend import acl, aclnn
    >>> t = aclnn.aclCreateTensor((2, 3), acl.ACL_INT32, (1, 2), 0, acl.ACL_FORMAT_ND, (6,), 0)
    >>> t.view_dims, t.strides, t.type_name
    ((2, 3), (1, 2), 'ACL_INT32')
    """
    return create_tensor(view_dims, data_type, stride, offset, format, storage_dims, tensor_data)


@aclnn_call("aclDestroyTensor()")
def aclDestroyTensor(tensor: AclTensor | None) -> int:
    """``aclDestroyTensor``: 0; destroying None does nothing, as in CANN.

    Executors already made from the tensor keep working.  A second destroy,
    or something that is not an aclTensor, returns 161002.
    """
    func = "aclDestroyTensor()"
    with CONTEXT.lock:
        if tensor is None:
            return ACLNN_SUCCESS
        if not issubclass(type(tensor), AclTensor):
            return fail(ACLNN_ERR_PARAM_INVALID,
                        f"{func}: {show('tensor', tensor)} is not an aclTensor")
        if tensor.destroyed:
            return fail(ACLNN_ERR_PARAM_INVALID, f"{func}: tensor was already destroyed")
        tensor.destroyed = True
        return ACLNN_SUCCESS


def aclGetRecentErrMsg() -> str | None:
    """The calling thread's latest error message (rule, argument, value), or None.

    Reading it clears it, as in CANN.
    """
    return take_recent()


# --- executors ------------------------------------------------------------------------------
@aclnn_call("aclSetAclOpExecutorRepeatable()", invalid=ACLNN_ERR_INNER)
def aclSetAclOpExecutorRepeatable(executor: Executor) -> int:
    """Make a phase-1 executor reusable until :func:`aclDestroyAclOpExecutor`.

    Call it right after phase 1: an executor already consumed returns 161002.
    None returns 561103 (ACLNN_ERR_INNER_NULLPTR), as in CANN.
    """
    return set_repeatable(executor)


@aclnn_call("aclDestroyAclOpExecutor()", invalid=ACLNN_ERR_INNER)
def aclDestroyAclOpExecutor(executor: Executor) -> int:
    """Release a repeatable (or never launched) executor; its queued work still runs."""
    return destroy(executor)


# --- two-phase operators --------------------------------------------------------------------
def _phase1(func: str, plan: Any, *args: Any) -> tuple[int, Executor | None, int]:
    with CONTEXT.lock:
        try:
            executor = plan(*args)
        except Failure as refusal:
            return 0, None, fail(refusal.code, f"{func}(): {refusal.message}")
        except Exception as exc:  # a bug in the emulator must still be a status code
            return 0, None, fail(ACLNN_ERR_INNER, f"{func}(): internal error {describe(exc)}")
        return executor.workspace_size, executor, ACLNN_SUCCESS


@aclnn_call("aclnnGatherGetWorkspaceSize()", failure=_no_executor)
def aclnnGatherGetWorkspaceSize(self: AclTensor, dim: int, index: AclTensor,
                                out: AclTensor) -> tuple[int, Executor | None, int]:
    """Phase 1 of aclnnGather (``torch.gather``): ``workspace_size, executor, ret``.

    Checks, in order (the first failure decides): a None tensor 161001; dtypes
    (self in FLOAT, FLOAT16, BF16, DOUBLE, INT8..INT64, UINT8..UINT64, BOOL;
    index INT32/INT64; out == self) 161002; ranks equal (0-d counts as 1) and
    <= 8, ``out.shape == index.shape``, ``dim`` in ``[-r, r-1]``,
    ``index.size(d) <= self.size(d)`` for ``d != dim``, no non-empty index into
    an empty ``dim`` 161002; an empty self or index succeeds with an executor
    that does nothing.  Then, beyond CANN: every view inside its storage and
    its device allocation, aligned, and ``out`` addressing no element twice
    161002.
    """
    return _phase1("aclnnGatherGetWorkspaceSize", plan_gather, self, dim, index, out)


@aclnn_call("aclnnGather()")
def aclnnGather(workspace: int | None, workspace_size: int, executor: Executor,
                stream: int | None) -> int:
    """Phase 2 of aclnnGather: enqueue the work on ``stream`` (None or 0: default stream).

    An index value outside ``[-self.size(dim), self.size(dim)-1]`` is found when
    the stream runs: ``acl.rt.synchronize_stream`` returns 507015 and ``out`` is
    left untouched.
    """
    return launch("aclnnGather", workspace, workspace_size, executor, stream)


@aclnn_call("aclnnTopkGetWorkspaceSize()", failure=_no_executor)
def aclnnTopkGetWorkspaceSize(self: AclTensor, k: int, dim: int, largest: bool, sorted: bool,
                              values_out: AclTensor,
                              indices_out: AclTensor) -> tuple[int, Executor | None, int]:
    """Phase 1 of aclnnTopk: ``workspace_size, executor, ret``.

    Checks, in order: a None tensor 161001; ``dim`` in ``[-r, r-1]`` (0-d: 0 or
    -1); ``0 <= k <= self.size(dim)`` (0-d: 0 or 1); ``largest``/``sorted``
    booleans; self in FLOAT, FLOAT16, BF16, DOUBLE, INT8..INT64, UINT8..UINT64,
    ``values_out`` of self's type, ``indices_out`` INT64; rank <= 8; then, unless
    a tensor is empty (success, nothing to do), both outputs shaped like self
    with ``k`` at ``dim`` -- each 161002.  Then, beyond CANN: placement in
    memory, and outputs that address no element twice and do not overlap.
    """
    return _phase1("aclnnTopkGetWorkspaceSize", plan_topk, self, k, dim, largest, sorted,
                   values_out, indices_out)


@aclnn_call("aclnnTopk()")
def aclnnTopk(workspace: int | None, workspace_size: int, executor: Executor,
              stream: int | None) -> int:
    """Phase 2 of aclnnTopk: enqueue the work on ``stream`` (None or 0: default stream)."""
    return launch("aclnnTopk", workspace, workspace_size, executor, stream)


# --- the sort and selection family ------------------------------------------------------------
@aclnn_call("aclnnSortGetWorkspaceSize()", failure=_no_executor)
def aclnnSortGetWorkspaceSize(self: AclTensor, stable: bool, dim: int, descending: bool,
                              values_out: AclTensor,
                              indices_out: AclTensor) -> tuple[int, Executor | None, int]:
    """Phase 1 of aclnnSort (``torch.sort``): ``workspace_size, executor, ret``.

    Checks, in order: a None tensor 161001; ``stable`` a boolean; ``dim`` in
    ``[-r, r-1]`` (0-d: 0 or -1); ``descending`` a boolean; self in FLOAT,
    FLOAT16, BF16, DOUBLE, INT8..INT64, UINT8..UINT64, ``values_out`` of self's
    type, ``indices_out`` INT64; rank <= 8; both outputs shaped like self -- each
    161002; an empty self succeeds with an executor that does nothing.  Then,
    beyond CANN: placement in memory, and outputs that address no element twice
    and do not overlap.  The order is stable whatever ``stable`` says (equal
    elements keep index order in both directions; NaN is the greatest).
    """
    return _phase1("aclnnSortGetWorkspaceSize", plan_sort, self, stable, dim, descending,
                   values_out, indices_out)


@aclnn_call("aclnnSort()")
def aclnnSort(workspace: int | None, workspace_size: int, executor: Executor,
              stream: int | None) -> int:
    """Phase 2 of aclnnSort: enqueue the work on ``stream`` (None or 0: default stream)."""
    return launch("aclnnSort", workspace, workspace_size, executor, stream)


@aclnn_call("aclnnArgsortGetWorkspaceSize()", failure=_no_executor)
def aclnnArgsortGetWorkspaceSize(self: AclTensor, dim: int, descending: bool,
                                 out: AclTensor) -> tuple[int, Executor | None, int]:
    """Phase 1 of aclnnArgsort (``torch.argsort(stable=True)``): ``workspace_size,
    executor, ret``.

    Checks, in order: a None tensor 161001; ``dim`` in ``[-r, r-1]``;
    ``descending`` a boolean; self's type as for aclnnSort, ``out`` INT64; rank
    <= 8; ``out`` shaped like self -- each 161002; an empty self succeeds with an
    executor that does nothing.  Then placement and overlap, beyond CANN.
    """
    return _phase1("aclnnArgsortGetWorkspaceSize", plan_argsort, self, dim, descending, out)


@aclnn_call("aclnnArgsort()")
def aclnnArgsort(workspace: int | None, workspace_size: int, executor: Executor,
                 stream: int | None) -> int:
    """Phase 2 of aclnnArgsort: enqueue the work on ``stream`` (None or 0: default stream)."""
    return launch("aclnnArgsort", workspace, workspace_size, executor, stream)


@aclnn_call("aclnnKthvalueGetWorkspaceSize()", failure=_no_executor)
def aclnnKthvalueGetWorkspaceSize(self: AclTensor, k: int, dim: int, keepdim: bool,
                                  values_out: AclTensor,
                                  indices_out: AclTensor) -> tuple[int, Executor | None, int]:
    """Phase 1 of aclnnKthvalue (``torch.kthvalue``): ``workspace_size, executor, ret``.

    Checks, in order: a None tensor 161001; ``dim`` in ``[-r, r-1]``; ``1 <= k <=
    self.size(dim)`` (0-d: k = 1); ``keepdim`` a boolean; self's type as for
    aclnnSort, ``values_out`` of self's type, ``indices_out`` INT64; rank <= 8;
    both outputs shaped like self without ``dim`` (or with it of size 1 when
    ``keepdim``) -- each 161002; an empty self succeeds with an executor that does
    nothing.  Then placement and overlap, beyond CANN.  The answer is position
    ``k - 1`` of the stable ascending order and its index.
    """
    return _phase1("aclnnKthvalueGetWorkspaceSize", plan_kthvalue, self, k, dim, keepdim,
                   values_out, indices_out)


@aclnn_call("aclnnKthvalue()")
def aclnnKthvalue(workspace: int | None, workspace_size: int, executor: Executor,
                  stream: int | None) -> int:
    """Phase 2 of aclnnKthvalue: enqueue the work on ``stream`` (None or 0: default stream)."""
    return launch("aclnnKthvalue", workspace, workspace_size, executor, stream)


@aclnn_call("aclnnMedianGetWorkspaceSize()", failure=_no_executor)
def aclnnMedianGetWorkspaceSize(self: AclTensor,
                                values_out: AclTensor) -> tuple[int, Executor | None, int]:
    """Phase 1 of aclnnMedian (``torch.median()``, all elements): ``workspace_size,
    executor, ret``.

    Checks, in order: a None tensor 161001; self's type as for aclnnSort,
    ``values_out`` of self's type; rank <= 8; a non-empty self; ``values_out`` 0-d
    or of shape (1,) -- each 161002.  Then placement and overlap, beyond CANN.
    The answer is the lower median: position ``(numel - 1) // 2`` of the stable
    ascending order of the flattened self.
    """
    return _phase1("aclnnMedianGetWorkspaceSize", plan_median, self, values_out)


@aclnn_call("aclnnMedian()")
def aclnnMedian(workspace: int | None, workspace_size: int, executor: Executor,
                stream: int | None) -> int:
    """Phase 2 of aclnnMedian: enqueue the work on ``stream`` (None or 0: default stream)."""
    return launch("aclnnMedian", workspace, workspace_size, executor, stream)


@aclnn_call("aclnnNanMedianGetWorkspaceSize()", failure=_no_executor)
def aclnnNanMedianGetWorkspaceSize(self: AclTensor,
                                   out: AclTensor) -> tuple[int, Executor | None, int]:
    """Phase 1 of aclnnNanMedian (``torch.nanmedian()``, all elements): ``workspace_size,
    executor, ret``.

    aclnnMedian's checks, in the same order and with the same codes (``out`` in
    ``values_out``'s place).  The answer is the lower median of the non-NaN elements:
    position ``(v - 1) // 2`` of the stable ascending order of the ``v`` of them, NaN
    when every element is NaN.
    """
    return _phase1("aclnnNanMedianGetWorkspaceSize", plan_nan_median, self, out)


@aclnn_call("aclnnNanMedian()")
def aclnnNanMedian(workspace: int | None, workspace_size: int, executor: Executor,
                   stream: int | None) -> int:
    """Phase 2 of aclnnNanMedian: enqueue the work on ``stream`` (None or 0: default
    stream)."""
    return launch("aclnnNanMedian", workspace, workspace_size, executor, stream)


@aclnn_call("aclnnMedianDimGetWorkspaceSize()", failure=_no_executor)
def aclnnMedianDimGetWorkspaceSize(self: AclTensor, dim: int, keepdim: bool,
                                   values_out: AclTensor,
                                   indices_out: AclTensor) -> tuple[int, Executor | None, int]:
    """Phase 1 of aclnnMedianDim (``torch.median(dim)``): ``workspace_size, executor, ret``.

    Checks as aclnnKthvalue's without ``k``, and ``self.size(dim) >= 1`` (an empty
    ``dim`` has no median) before the output shapes.  The answer is
    ``kthvalue(self, (n - 1) // 2 + 1, dim)``: the lower median and its index.
    """
    return _phase1("aclnnMedianDimGetWorkspaceSize", plan_median_dim, self, dim, keepdim,
                   values_out, indices_out)


@aclnn_call("aclnnMedianDim()")
def aclnnMedianDim(workspace: int | None, workspace_size: int, executor: Executor,
                   stream: int | None) -> int:
    """Phase 2 of aclnnMedianDim: enqueue the work on ``stream`` (None or 0: default stream)."""
    return launch("aclnnMedianDim", workspace, workspace_size, executor, stream)
