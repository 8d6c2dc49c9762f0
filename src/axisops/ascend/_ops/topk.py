"""aclnnTopk: phase-1 checks in the spec's order, and the work phase 2 queues.

The work reads ``self`` as a NumPy view over device memory, computes values
and indices with :func:`axisops.topk` (ties by lower index, NaN greatest,
integers exact), and only then writes the elements the two output views
address.

>>> from axisops.ascend import acl, aclnn
>>> x = aclnn.aclCreateTensor((2, 4), acl.ACL_FLOAT, None, 0, acl.ACL_FORMAT_ND, (2, 4), 0)
>>> v = aclnn.aclCreateTensor((2, 2), acl.ACL_FLOAT, None, 0, acl.ACL_FORMAT_ND, (2, 2), 0)
>>> i = aclnn.aclCreateTensor((2, 2), acl.ACL_INT64, None, 0, acl.ACL_FORMAT_ND, (2, 2), 0)
>>> aclnn.aclnnTopkGetWorkspaceSize(x, 5, 1, True, True, v, i)
(0, None, 161002)
>>> aclnn.aclGetRecentErrMsg()
'aclnnTopkGetWorkspaceSize(): k=5 is out of range for self.size(1)=4 (need 0 <= k <= 4)'
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...api import topk
from ...errors import InvalidArgumentError
from ...rules.arguments import check_k
from .._constants import ACL_INT64
from .._context import CONTEXT
from .._executors import Executor
from .._tensors import AclTensor, device_view
from .rules import (
    REAL_TYPES,
    invalid,
    require_bool,
    require_dim,
    require_dtype,
    require_int,
    require_placed,
    require_rank,
    require_tensors,
    require_unique_outputs,
)

OP = "aclnnTopk"


def plan_topk(self: Any, k: Any, dim: Any, largest: Any, sorted: Any, values_out: Any,
              indices_out: Any) -> Executor:
    """Check every rule, in order; raise ``Failure`` or return the executor."""
    require_tensors(self=self, values_out=values_out, indices_out=indices_out)
    d = require_dim("dim", dim, self.rank)
    kk = _check_k(self, k, d)
    big, srt = require_bool("largest", largest), require_bool("sorted", sorted)
    require_dtype("self", self, REAL_TYPES)
    if values_out.data_type != self.data_type:
        raise invalid(f"values_out.dataType={values_out.type_name} differs from self.dataType="
                      f"{self.type_name} (need the same type)")
    require_dtype("indices_out", indices_out, (ACL_INT64,))
    require_rank("self", self)
    if self.is_empty or values_out.is_empty or indices_out.is_empty:
        return Executor(OP, None)
    want = _out_shape(self, kk, d)
    for name, tensor in (("values_out", values_out), ("indices_out", indices_out)):
        if tensor.view_dims != want:
            raise invalid(f"{name}.shape={tensor.view_dims} is not self.shape={self.view_dims} "
                          f"with size k={kk} at dim={d} (need {want})")
    require_placed(self=self, values_out=values_out, indices_out=indices_out)
    require_unique_outputs(values_out=values_out, indices_out=indices_out)
    return Executor(OP, _work(self, kk, d, big, srt, values_out, indices_out))


def _check_k(self: AclTensor, k: Any, d: int) -> int:
    kk = require_int("k", k)
    n = self.view_dims[d] if self.rank else 1
    try:
        return check_k(kk, n, axis=d)
    except InvalidArgumentError:
        where = f"self.size({d})={n}" if self.rank else "a 0-d self (one element)"
        raise invalid(f"k={kk} is out of range for {where} (need 0 <= k <= {n})") from None


def _out_shape(self: AclTensor, k: int, d: int) -> tuple[int, ...]:
    if self.rank == 0:
        return () if k == 1 else (k,)
    return self.view_dims[:d] + (k,) + self.view_dims[d + 1:]


def _work(self: AclTensor, k: int, d: int, largest: bool, sorted: bool,
          values_out: AclTensor, indices_out: AclTensor):
    """The queued work: read, compute both outputs, then write them."""

    def run() -> None:
        space = CONTEXT.space
        x = device_view(space, self, "self", writable=False)
        values = device_view(space, values_out, "values_out", writable=True)
        indices = device_view(space, indices_out, "indices_out", writable=True)
        result = topk(x.reshape(self.view_dims or (1,)), k, d, largest=largest, sorted=sorted,
                      index_dtype=np.int64)
        values[...] = result.values.reshape(values.shape)
        indices[...] = result.indices.reshape(indices.shape)

    return run
