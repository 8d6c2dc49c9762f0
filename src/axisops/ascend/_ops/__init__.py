"""The aclnn operators: for each, phase 1's rules in the spec's order and the work phase 2 queues.

One module per operator (:mod:`.gather`, :mod:`.topk`; :mod:`.select` holds the
sort and selection family: aclnnSort, aclnnArgsort, aclnnKthvalue, aclnnMedian,
aclnnMedianDim), each with a ``plan_*``
function that checks every rule (raising ``Failure`` at the first one broken)
and returns the :class:`~axisops.ascend._executors.Executor` holding the work;
:mod:`.rules` holds the checks they share.  A new operator goes here, with its
two public functions (``...GetWorkspaceSize`` and the launch) in
:mod:`axisops.ascend.aclnn`.

>>> from axisops.ascend import acl, aclnn
>>> from axisops.ascend._boundary import Failure
>>> x = aclnn.aclCreateTensor((3,), acl.ACL_FLOAT, None, 0, acl.ACL_FORMAT_ND, (3,), 0)
>>> try:
...     plan_topk(x, 4, 0, True, True, x, x)
... except Failure as refusal:
...     print(refusal.code, refusal.message)
161002 k=4 is out of range for self.size(0)=3 (need 0 <= k <= 3)
"""

from .gather import plan_gather
from .select import (
    plan_argsort,
    plan_kthvalue,
    plan_median,
    plan_median_dim,
    plan_nan_median,
    plan_sort,
)
from .topk import plan_topk

__all__ = ["plan_argsort", "plan_gather", "plan_kthvalue", "plan_median", "plan_median_dim",
           "plan_nan_median",
           "plan_sort", "plan_topk"]
