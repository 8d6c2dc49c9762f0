"""aclnnGather: phase-1 checks in the spec's order, and the work phase 2 queues.

The work reads ``self`` and ``index`` as NumPy views over device memory,
computes the whole result with :func:`axisops.gather`, and only then writes
the elements ``out``'s view addresses.  An out-of-range index value fails the
work with ``ACL_ERROR_RT_AICORE_EXCEPTION`` (507015) and writes nothing.

>>> import numpy as np
>>> from axisops.ascend import acl, aclnn
>>> _ = acl.init(), acl.rt.set_device(0)
>>> ptr, _ = acl.rt.malloc(64, acl.ACL_MEM_MALLOC_HUGE_FIRST)
>>> x = aclnn.aclCreateTensor((3,), acl.ACL_FLOAT, None, 0, acl.ACL_FORMAT_ND, (3,), ptr)
>>> i = aclnn.aclCreateTensor((2,), acl.ACL_FLOAT, None, 0, acl.ACL_FORMAT_ND, (2,), ptr + 16)
>>> aclnn.aclnnGatherGetWorkspaceSize(x, 0, i, x)
(0, None, 161002)
>>> print(aclnn.aclGetRecentErrMsg())  # doctest: +NORMALIZE_WHITESPACE
aclnnGatherGetWorkspaceSize(): index.dataType=ACL_FLOAT is not supported (supported:
ACL_INT32, ACL_INT64)
>>> acl.finalize()
0
"""

from __future__ import annotations

from typing import Any

from ...api import gather
from ...errors import IndexOutOfRangeError, InvalidArgumentError
from ...rules.operations import check_gather_source, check_index_extents, check_same_rank
from .._boundary import Failure
from .._constants import (
    ACL_BOOL,
    ACL_COMPLEX64,
    ACL_COMPLEX128,
    ACL_ERROR_RT_AICORE_EXCEPTION,
    ACL_INT32,
    ACL_INT64,
)
from .._context import CONTEXT
from .._executors import Executor
from .._tensors import AclTensor, device_view
from .rules import (
    REAL_TYPES,
    invalid,
    require_dim,
    require_dtype,
    require_placed,
    require_rank,
    require_tensors,
    require_unique_outputs,
)

OP = "aclnnGather"
#: The data types of ``self`` (and ``out``) aclnnGather supports.
GATHER_SELF_TYPES = (*REAL_TYPES, ACL_BOOL)
#: The data types of ``index``.
GATHER_INDEX_TYPES = (ACL_INT32, ACL_INT64)


def _shape(tensor: AclTensor) -> tuple[int, ...]:
    """The view dims, with a 0-d tensor counted as one element in one dimension."""
    return tensor.view_dims or (1,)


def plan_gather(self: Any, dim: Any, index: Any, out: Any) -> Executor:
    """Check every rule, in order; raise ``Failure`` or return the executor."""
    require_tensors(self=self, index=index, out=out)
    if self.data_type in (ACL_COMPLEX64, ACL_COMPLEX128):
        raise invalid(f"self.dataType={self.type_name} is not supported by aclnnGather "
                      f"(complex types are accepted by aclCreateTensor, not by this operator)")
    require_dtype("self", self, GATHER_SELF_TYPES)
    require_dtype("index", index, GATHER_INDEX_TYPES)
    if out.data_type != self.data_type:
        raise invalid(f"out.dataType={out.type_name} differs from self.dataType="
                      f"{self.type_name} (need the same type)")
    d = _check_shapes(self, dim, index, out)
    if self.is_empty or index.is_empty:
        return Executor(OP, None)
    require_placed(self=self, index=index, out=out)
    require_unique_outputs(out=out)
    return Executor(OP, _work(self, int(dim), index, out, d))


def _check_shapes(self: AclTensor, dim: Any, index: AclTensor, out: AclTensor) -> int:
    try:
        check_same_rank(max(self.rank, 1), max(index.rank, 1))
    except InvalidArgumentError:
        raise invalid(f"index has {index.rank} dimensions {index.view_dims} but self has "
                      f"{self.rank} {self.view_dims} (need the same number; 0-d counts as "
                      f"1)") from None
    require_rank("self", self)
    require_rank("index", index)
    if out.view_dims != index.view_dims:
        raise invalid(f"out.shape={out.view_dims} differs from index.shape={index.view_dims} "
                      f"(need equal shapes)")
    d = require_dim("dim", dim, self.rank)
    try:
        check_index_extents(_shape(self), d, _shape(index))
    except InvalidArgumentError as err:
        raise invalid(f"index.size({err.axis})={err.value} exceeds self.size({err.axis})="
                      f"{err.size} (need index.size(d) <= self.size(d) for every d != "
                      f"dim={d})") from None
    try:
        check_gather_source(_shape(self), d, 0 if index.is_empty else 1)
    except InvalidArgumentError:
        raise invalid(f"index is non-empty {index.view_dims} but self.size({d})=0 (there is "
                      f"nothing to gather from)") from None
    return d


def _work(self: AclTensor, dim: int, index: AclTensor, out: AclTensor, d: int):
    """The queued work: read, compute everything, then write ``out``."""

    def run() -> None:
        space = CONTEXT.space
        x = device_view(space, self, "self", writable=False)
        idx = device_view(space, index, "index", writable=False)
        target = device_view(space, out, "out", writable=True)
        try:
            result = gather(x.reshape(_shape(self)), d, idx.reshape(_shape(index)))
        except IndexOutOfRangeError as exc:
            raise Failure(ACL_ERROR_RT_AICORE_EXCEPTION,
                          f"the AI Core hit an out-of-range index: {exc.message} "
                          f"(dim={dim}); out was left untouched") from None
        target[...] = result.reshape(target.shape)

    return run
