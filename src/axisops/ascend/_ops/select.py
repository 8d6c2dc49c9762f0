"""aclnnSort, aclnnArgsort, aclnnKthvalue, aclnnMedian and aclnnMedianDim: phase 1's rules
in the spec's order, and the work phase 2 queues.

The work reads ``self`` as a NumPy view over device memory, computes with the
public functions (:func:`axisops.sort`, :func:`axisops.argsort`,
:func:`axisops.kthvalue`, :func:`axisops.median`: stable, ties by lower index,
NaN greatest, integers exact), and only then writes the elements the output
views address.  ``stable=False`` is accepted and gives the stable order (one of
the orders an unstable sort may give).  aclnnMedian is the lower median of all
elements: position ``(numel - 1) // 2`` of the stable order of the flattened
``self``, as CANN documents it.

>>> from axisops.ascend import acl, aclnn
>>> x = aclnn.aclCreateTensor((2, 4), acl.ACL_FLOAT, None, 0, acl.ACL_FORMAT_ND, (2, 4), 0)
>>> v = aclnn.aclCreateTensor((2,), acl.ACL_FLOAT, None, 0, acl.ACL_FORMAT_ND, (2,), 0)
>>> i = aclnn.aclCreateTensor((2,), acl.ACL_INT64, None, 0, acl.ACL_FORMAT_ND, (2,), 0)
>>> aclnn.aclnnKthvalueGetWorkspaceSize(x, 0, 1, False, v, i)
(0, None, 161002)
>>> aclnn.aclGetRecentErrMsg()
'aclnnKthvalueGetWorkspaceSize(): k=0 is out of range for self.size(1)=4 (need 1 <= k <= 4)'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...api import argsort, kthvalue, median, nanmedian, sort
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

__all__ = ["plan_argsort", "plan_kthvalue", "plan_median", "plan_median_dim", "plan_nan_median",
           "plan_sort"]


def _same_type(name: str, out: AclTensor, self: AclTensor) -> None:
    if out.data_type != self.data_type:
        raise invalid(f"{name}.dataType={out.type_name} differs from self.dataType="
                      f"{self.type_name} (need the same type)")


def _shaped(want: tuple[int, ...], what: str, **outputs: AclTensor) -> None:
    for name, tensor in outputs.items():
        if tensor.view_dims != want:
            raise invalid(f"{name}.shape={tensor.view_dims} is not {what} (need {want})")


def _reduced_shape(self: AclTensor, d: int, keepdim: bool) -> tuple[int, ...]:
    if self.rank == 0:
        return ()
    kept = (1,) if keepdim else ()
    return self.view_dims[:d] + kept + self.view_dims[d + 1:]


def _size(self: AclTensor, d: int) -> int:
    return self.view_dims[d] if self.rank else 1


def _checked_k(self: AclTensor, k: Any, d: int) -> int:
    kk = require_int("k", k)
    n = _size(self, d)
    try:
        return check_k(kk, n, axis=d, low=1)
    except InvalidArgumentError as err:
        where = f"self.size({d})={n}" if self.rank else "a 0-d self (one element)"
        raise invalid(f"k={kk} is out of range for {where} (need {err.low} <= k <= "
                      f"{err.high})") from None


def _queued(op: str, self: AclTensor, outputs: dict[str, AclTensor],
            compute: Callable[[Any], tuple[Any, ...]]) -> Executor:
    """The executor of ``op``: read ``self`` (as a view of at least one dimension), compute
    every output with ``compute``, then write them in ``outputs``' order."""

    def run() -> None:
        space = CONTEXT.space
        x = device_view(space, self, "self", writable=False)
        views = [device_view(space, t, name, writable=True) for name, t in outputs.items()]
        results = compute(x.reshape(self.view_dims or (1,)))
        for view, result in zip(views, results):
            view[...] = result.reshape(view.shape)

    return Executor(op, run)


def plan_sort(self: Any, stable: Any, dim: Any, descending: Any, values_out: Any,
              indices_out: Any) -> Executor:
    """aclnnSort: check every rule, in order; raise ``Failure`` or return the executor."""
    require_tensors(self=self, values_out=values_out, indices_out=indices_out)
    require_bool("stable", stable)
    d = require_dim("dim", dim, self.rank)
    desc = require_bool("descending", descending)
    require_dtype("self", self, REAL_TYPES)
    _same_type("values_out", values_out, self)
    require_dtype("indices_out", indices_out, (ACL_INT64,))
    require_rank("self", self)
    _shaped(self.view_dims, f"self.shape={self.view_dims}", values_out=values_out,
            indices_out=indices_out)
    if self.is_empty:
        return Executor("aclnnSort", None)
    require_placed(self=self, values_out=values_out, indices_out=indices_out)
    require_unique_outputs(values_out=values_out, indices_out=indices_out)
    return _queued("aclnnSort", self, {"values_out": values_out, "indices_out": indices_out},
                   lambda x: (sort(x, d, descending=desc), argsort(x, d, descending=desc)))


def plan_argsort(self: Any, dim: Any, descending: Any, out: Any) -> Executor:
    """aclnnArgsort: check every rule, in order; raise ``Failure`` or return the executor."""
    require_tensors(self=self, out=out)
    d = require_dim("dim", dim, self.rank)
    desc = require_bool("descending", descending)
    require_dtype("self", self, REAL_TYPES)
    require_dtype("out", out, (ACL_INT64,))
    require_rank("self", self)
    _shaped(self.view_dims, f"self.shape={self.view_dims}", out=out)
    if self.is_empty:
        return Executor("aclnnArgsort", None)
    require_placed(self=self, out=out)
    require_unique_outputs(out=out)
    return _queued("aclnnArgsort", self, {"out": out},
                   lambda x: (argsort(x, d, descending=desc),))


def _plan_reduced(op: str, self: Any, dim: Any, keepdim: Any, values_out: Any,
                  indices_out: Any, k: Any = None) -> Executor:
    """aclnnKthvalue (``k`` given) and aclnnMedianDim (``k`` None: the lower median)."""
    require_tensors(self=self, values_out=values_out, indices_out=indices_out)
    d = require_dim("dim", dim, self.rank)
    kk = _checked_k(self, k, d) if op == "aclnnKthvalue" else None
    keep = require_bool("keepdim", keepdim)
    require_dtype("self", self, REAL_TYPES)
    _same_type("values_out", values_out, self)
    require_dtype("indices_out", indices_out, (ACL_INT64,))
    require_rank("self", self)
    if kk is None and _size(self, d) == 0:
        raise invalid(f"self.size({d})=0 has no median (need at least one element along dim)")
    want = _reduced_shape(self, d, keep)
    _shaped(want, f"self.shape={self.view_dims} reduced at dim={d}"
            f"{' (kept as 1)' if keep else ''}", values_out=values_out, indices_out=indices_out)
    if self.is_empty:
        return Executor(op, None)
    require_placed(self=self, values_out=values_out, indices_out=indices_out)
    require_unique_outputs(values_out=values_out, indices_out=indices_out)
    if kk is None:
        return _queued(op, self, {"values_out": values_out, "indices_out": indices_out},
                       lambda x: tuple(median(x, d)))
    return _queued(op, self, {"values_out": values_out, "indices_out": indices_out},
                   lambda x: tuple(kthvalue(x, kk, d)))


def plan_kthvalue(self: Any, k: Any, dim: Any, keepdim: Any, values_out: Any,
                  indices_out: Any) -> Executor:
    """aclnnKthvalue: check every rule, in order; raise ``Failure`` or return the executor."""
    return _plan_reduced("aclnnKthvalue", self, dim, keepdim, values_out, indices_out, k)


def plan_median_dim(self: Any, dim: Any, keepdim: Any, values_out: Any,
                    indices_out: Any) -> Executor:
    """aclnnMedianDim: check every rule, in order; raise ``Failure`` or return the executor."""
    return _plan_reduced("aclnnMedianDim", self, dim, keepdim, values_out, indices_out)


def plan_median(self: Any, values_out: Any, op: str = "aclnnMedian",
                name: str = "values_out") -> Executor:
    """aclnnMedian (and aclnnNanMedian: ``op``, whose output is named ``out``): check
    every rule, in order; raise ``Failure`` or return the executor."""
    require_tensors(**{"self": self, name: values_out})
    require_dtype("self", self, REAL_TYPES)
    _same_type(name, values_out, self)
    require_rank("self", self)
    if self.is_empty:
        raise invalid(f"self is empty (shape {self.view_dims}), which has no median (need at "
                      f"least one element)")
    if values_out.view_dims not in ((), (1,)):
        raise invalid(f"{name}.shape={values_out.view_dims} is not 0-d or (1,) (need one "
                      f"element)")
    require_placed(**{"self": self, name: values_out})
    require_unique_outputs(**{name: values_out})
    lower = nanmedian if op == "aclnnNanMedian" else median
    return _queued(op, self, {name: values_out}, lambda x: (lower(x.reshape(-1)).values,))


def plan_nan_median(self: Any, out: Any) -> Executor:
    """aclnnNanMedian: aclnnMedian's rules; the lower median of the non-NaN elements
    (``torch.nanmedian()``; NaN when every element is)."""
    return plan_median(self, out, "aclnnNanMedian", "out")
