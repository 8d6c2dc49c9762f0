"""The phase-1 rules the operators share, each raising a ``Failure`` with its code.

A phase-1 function runs its rules in the spec's order; the first
:class:`~axisops.ascend._boundary.Failure` decides the code and the message
``aclGetRecentErrMsg`` returns.  The rules after the spec's (placement in
memory, outputs that address an element twice or overlap) come last.

>>> try:
...     require_int("dim", True)
... except Failure as refusal:
...     print(refusal.code, refusal.message)
161002 dim=True (bool) is invalid (need an integer)
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from ...errors import InvalidArgumentError
from ...rules.arguments import as_bool, as_int, normalize_axis
from .._boundary import Failure, show
from .._constants import (
    ACL_BF16,
    ACL_DOUBLE,
    ACL_FLOAT,
    ACL_FLOAT16,
    ACL_INT8,
    ACL_INT16,
    ACL_INT32,
    ACL_INT64,
    ACL_UINT8,
    ACL_UINT16,
    ACL_UINT32,
    ACL_UINT64,
    ACLNN_ERR_PARAM_INVALID,
    ACLNN_ERR_PARAM_NULLPTR,
    DTYPE_NAMES,
)
from .._context import CONTEXT
from .._tensors import AclTensor, addresses_an_element_twice, device_view, placement_problem

#: The real (not complex, not bool) data types, which both operators take as ``self``.
REAL_TYPES = (ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_INT8, ACL_INT16, ACL_INT32,
              ACL_INT64, ACL_UINT8, ACL_UINT16, ACL_UINT32, ACL_UINT64)
#: The most dimensions an aclnn tensor may have here.
MAX_DIMS = 8
_TOO_HARD = getattr(np, "exceptions", np).TooHardError


def invalid(message: str) -> Failure:
    """A ``Failure(ACLNN_ERR_PARAM_INVALID, message)`` to raise."""
    return Failure(ACLNN_ERR_PARAM_INVALID, message)


def type_names(types: Iterable[int]) -> str:
    """``"ACL_INT32, ACL_INT64"``."""
    return ", ".join(DTYPE_NAMES[t] for t in types)


def require_tensors(**tensors: Any) -> None:
    """Every tensor given is not None (161001), then a live aclTensor (161002)."""
    for name, tensor in tensors.items():
        if tensor is None:
            raise Failure(ACLNN_ERR_PARAM_NULLPTR, f"{name} is None (NULL)")
    for name, tensor in tensors.items():
        if not issubclass(type(tensor), AclTensor):
            raise invalid(f"{show(name, tensor)} is not an aclTensor (need the result of "
                          f"aclCreateTensor)")
        if tensor.destroyed:
            raise invalid(f"{name} was destroyed by aclDestroyTensor")


def require_dtype(name: str, tensor: AclTensor, allowed: tuple[int, ...]) -> None:
    """``tensor``'s data type is one of ``allowed``."""
    if tensor.data_type not in allowed:
        raise invalid(f"{name}.dataType={tensor.type_name} is not supported "
                      f"(supported: {type_names(allowed)})")


def require_int(name: str, value: Any) -> int:
    """``value`` as an int; bool, float and the like are refused (by type: no code of the
    value's class runs)."""
    try:
        return int(as_int(name, value, exact=True))
    except InvalidArgumentError:
        raise invalid(f"{show(name, value)} is invalid (need an integer)") from None


def require_dim(name: str, value: Any, rank: int) -> int:
    """An axis in ``[-r, r-1]`` with ``r = max(rank, 1)``, normalised to ``[0, r)``."""
    dim, r = require_int(name, value), max(rank, 1)
    try:
        return normalize_axis(name, dim, r)
    except InvalidArgumentError:
        raise invalid(f"{name}={dim} is out of range for a tensor of {rank} dimension"
                      f"{'s' if rank != 1 else ''} (need {-r} <= {name} <= {r - 1})") from None


def require_bool(name: str, value: Any) -> bool:
    """A C ``bool``: True/False (Python or NumPy), or the integers 0 and 1."""
    try:
        return as_bool(name, value, c_bool=True)
    except InvalidArgumentError:
        raise invalid(f"{show(name, value)} is invalid (need True or False)") from None


def require_rank(name: str, tensor: AclTensor) -> None:
    """At most :data:`MAX_DIMS` dimensions."""
    if tensor.rank > MAX_DIMS:
        raise invalid(f"{name} has {tensor.rank} dimensions {tensor.view_dims} "
                      f"(need at most {MAX_DIMS})")


def require_placed(**tensors: AclTensor) -> None:
    """Each non-empty view lies inside its storage and inside device memory, aligned."""
    for name, tensor in tensors.items():
        problem = placement_problem(CONTEXT.space, tensor, name)
        if problem is not None:
            raise invalid(problem)


def require_unique_outputs(**outputs: AclTensor) -> None:
    """No output addresses an element twice, and no two outputs share a byte."""
    for name, tensor in outputs.items():
        if addresses_an_element_twice(tensor):
            raise invalid(f"{name}'s strides {tensor.strides} with view_dims "
                          f"{tensor.view_dims} address an element twice (an output must "
                          f"not; a stride of 0 is allowed only where the size is 1)")
    named = list(outputs.items())
    for i, (name, a) in enumerate(named):
        for other, b in named[i + 1:]:
            if _overlap(a, b):
                raise invalid(f"{name} and {other} share device memory (outputs must not "
                              f"overlap)")


def _overlap(a: AclTensor, b: AclTensor) -> bool:
    va = device_view(CONTEXT.space, a, "a", writable=False)
    vb = device_view(CONTEXT.space, b, "b", writable=False)
    try:
        return bool(np.shares_memory(va, vb, max_work=1 << 20))
    except _TOO_HARD:
        return True  # undecidable within the budget: refuse rather than risk it
