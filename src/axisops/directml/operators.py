"""Operator descs (TOP_K1, TOP_K, GATHER_ELEMENTS) and every rule ``create_operator`` checks.

Each operator's dtype/dimension support is a table of rows, one per feature
level where it changes (the "Tensor support" tables of the DirectML pages).
Validating a desc yields a :class:`Plan`: the tensors to bind, in binding
order, and the computation, which always runs through :func:`axisops.topk` /
:func:`axisops.gather`.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, ClassVar

import numpy as np

from ..api import gather, topk
from ..errors import IndexOutOfRangeError, InvalidArgumentError
from ..rules.arguments import as_int, check_k, normalize_axis
from .enums import AxisDirection, FeatureLevel, OperatorType, TensorDataType
from .errors import DMLError, invalid_arg
from .tensors import BufferTensorDesc, numpy_dtype, validate_tensor

__all__ = [
    "GATHER_ELEMENTS_SUPPORT",
    "TOP_K1_SUPPORT",
    "TOP_K_SUPPORT",
    "GatherElementsOperatorDesc",
    "Plan",
    "Support",
    "TopK1OperatorDesc",
    "TopKOperatorDesc",
    "plan_operator",
]

T = TensorDataType
FL = FeatureLevel


@dataclass(frozen=True)
class Support:
    """One row of a "Tensor support" table: what holds from feature level ``since``."""

    since: FeatureLevel
    dimensions: tuple[int, int]
    data_types: tuple[TensorDataType, ...]
    index_types: tuple[TensorDataType, ...]


_EIGHT = (T.FLOAT32, T.FLOAT16, T.INT32, T.INT16, T.INT8, T.UINT32, T.UINT16, T.UINT8)
_WIDE = (*_EIGHT, T.INT64, T.UINT64)

#: DML_TOP_K1_OPERATOR_DESC, "Tensor support".
TOP_K1_SUPPORT: tuple[Support, ...] = (
    Support(FL.FL_2_1, (4, 4), _EIGHT, (T.UINT32,)),
    Support(FL.FL_3_1, (1, 8), _EIGHT, (T.UINT32,)),
    Support(FL.FL_5_0, (1, 8), _WIDE, (T.UINT32, T.UINT64)),
)
#: DML_TOP_K_OPERATOR_DESC: FLOAT32/FLOAT16 in 4 dimensions until 2_1, then as TOP_K1.
TOP_K_SUPPORT: tuple[Support, ...] = (
    Support(FL.FL_1_0, (4, 4), (T.FLOAT32, T.FLOAT16), (T.UINT32,)),
    *TOP_K1_SUPPORT,
)
#: DML_GATHER_ELEMENTS_OPERATOR_DESC, "Tensor support".
GATHER_ELEMENTS_SUPPORT: tuple[Support, ...] = (
    Support(FL.FL_2_1, (4, 4), _EIGHT, (T.UINT32,)),
    Support(FL.FL_3_0, (1, 8), _EIGHT, (T.INT32, T.INT64, T.UINT32, T.UINT64)),
    Support(FL.FL_4_1, (1, 8), (*_EIGHT, T.FLOAT64, T.INT64, T.UINT64),
            (T.INT32, T.INT64, T.UINT32, T.UINT64)),
)


@dataclass(frozen=True)
class TopK1OperatorDesc:
    """``DML_TOP_K1_OPERATOR_DESC``: the ``k`` largest or smallest along ``axis``.

    ``axis_direction`` DECREASING gives the largest, largest first; INCREASING
    the smallest, smallest first.  Equal elements come in index order.
    """

    operator_type: ClassVar[OperatorType] = OperatorType.TOP_K1
    input_tensor: BufferTensorDesc
    output_value_tensor: BufferTensorDesc
    output_index_tensor: BufferTensorDesc
    axis: int
    k: int
    axis_direction: AxisDirection


@dataclass(frozen=True)
class TopKOperatorDesc:
    """``DML_TOP_K_OPERATOR_DESC``: the ``k`` largest along ``axis``, largest first."""

    operator_type: ClassVar[OperatorType] = OperatorType.TOP_K
    input_tensor: BufferTensorDesc
    output_value_tensor: BufferTensorDesc
    output_index_tensor: BufferTensorDesc
    axis: int
    k: int


@dataclass(frozen=True)
class GatherElementsOperatorDesc:
    """``DML_GATHER_ELEMENTS_OPERATOR_DESC``: ``out[..., i, ...] = x[..., idx[..., i, ...], ...]``.

    Signed indices may be negative (counting back from the end of ``axis``).
    """

    operator_type: ClassVar[OperatorType] = OperatorType.GATHER_ELEMENTS
    input_tensor: BufferTensorDesc
    indices_tensor: BufferTensorDesc
    output_tensor: BufferTensorDesc
    axis: int


OperatorDesc = TopK1OperatorDesc | TopKOperatorDesc | GatherElementsOperatorDesc


@dataclass(frozen=True)
class Plan:
    """A validated operator: tensors in binding order and the computation.

    ``compute`` takes the input views and returns the full outputs, in order.
    """

    operator_type: OperatorType
    inputs: tuple[tuple[str, BufferTensorDesc], ...]
    outputs: tuple[tuple[str, BufferTensorDesc], ...]
    compute: Callable[[Sequence[np.ndarray]], list[np.ndarray]]


def plan_operator(desc: Any, level: FeatureLevel, strict_k: bool) -> Plan:
    """Validate ``desc`` for a device at ``level``; raise ``DMLError(E_INVALIDARG)``."""
    if isinstance(desc, TopK1OperatorDesc):
        return _plan_topk(desc, TOP_K1_SUPPORT, level, strict_k)
    if isinstance(desc, TopKOperatorDesc):
        return _plan_topk(desc, TOP_K_SUPPORT, level, strict_k)
    if isinstance(desc, GatherElementsOperatorDesc):
        return _plan_gather_elements(desc, level)
    raise invalid_arg(f"create_operator(): desc={desc!r} is not an operator desc (need "
                      f"TopK1OperatorDesc, TopKOperatorDesc or GatherElementsOperatorDesc)")


def _plan_topk(desc: TopK1OperatorDesc | TopKOperatorDesc, rows: tuple[Support, ...],
               level: FeatureLevel, strict_k: bool) -> Plan:
    op = desc.operator_type
    where = f"create_operator({op.name})"
    row = _row_at(where, op, rows, level)
    x = validate_tensor(where, "input_tensor", desc.input_tensor, output=False)
    v = validate_tensor(where, "output_value_tensor", desc.output_value_tensor, output=True)
    i = validate_tensor(where, "output_index_tensor", desc.output_index_tensor, output=True)
    tensors = {"input_tensor": x, "output_value_tensor": v, "output_index_tensor": i}
    _check_dimensions(where, op, rows, row, level, tensors)
    _check_type(where, op, rows, row, level, "input_tensor", x, index=False)
    _check_type(where, op, rows, row, level, "output_index_tensor", i, index=True)
    _check_same_type(where, "output_value_tensor", v, "input_tensor", x)
    axis = _axis(where, desc.axis, x.dimension_count)
    largest = True
    if isinstance(desc, TopK1OperatorDesc):
        largest = _direction(where, desc.axis_direction) == AxisDirection.DECREASING
    k = _k(where, desc.k, x.sizes[axis], axis, strict_k)
    want = x.sizes[:axis] + (k,) + x.sizes[axis + 1:]
    rule = f"input_tensor.sizes with sizes[{axis}] = k = {k}"
    _check_sizes(where, "output_value_tensor", v, want, rule)
    _check_sizes(where, "output_index_tensor", i, want, rule)
    compute = partial(_run_topk, axis=axis, k=k, largest=largest,
                      index_dtype=numpy_dtype(i.data_type))  # type: ignore[arg-type]
    return Plan(op, (("input_tensor", x),),
                (("output_value_tensor", v), ("output_index_tensor", i)), compute)


def _plan_gather_elements(desc: GatherElementsOperatorDesc, level: FeatureLevel) -> Plan:
    op, rows = desc.operator_type, GATHER_ELEMENTS_SUPPORT
    where = f"create_operator({op.name})"
    row = _row_at(where, op, rows, level)
    x = validate_tensor(where, "input_tensor", desc.input_tensor, output=False)
    idx = validate_tensor(where, "indices_tensor", desc.indices_tensor, output=False)
    out = validate_tensor(where, "output_tensor", desc.output_tensor, output=True)
    tensors = {"input_tensor": x, "indices_tensor": idx, "output_tensor": out}
    _check_dimensions(where, op, rows, row, level, tensors)
    _check_type(where, op, rows, row, level, "input_tensor", x, index=False)
    _check_type(where, op, rows, row, level, "indices_tensor", idx, index=True)
    _check_same_type(where, "output_tensor", out, "input_tensor", x)
    axis = _axis(where, desc.axis, x.dimension_count)
    for d, (si, sx) in enumerate(zip(idx.sizes, x.sizes)):
        if d != axis and si != sx:
            raise invalid_arg(f"{where}: indices_tensor.sizes[{d}]={si} must equal "
                              f"input_tensor.sizes[{d}]={sx} (index sizes equal the input's "
                              f"in every dimension except axis={axis})")
    _check_sizes(where, "output_tensor", out, idx.sizes, "indices_tensor.sizes")
    compute = partial(_run_gather_elements, axis=axis)
    return Plan(op, (("input_tensor", x), ("indices_tensor", idx)),
                (("output_tensor", out),), compute)


def _row_at(where: str, op: OperatorType, rows: tuple[Support, ...],
            level: FeatureLevel) -> Support:
    found = [row for row in rows if row.since <= level]
    if not found:
        raise invalid_arg(f"{where}: {op.c_name} needs {rows[0].since.c_name} or higher "
                          f"(the device was created at {level.c_name})")
    return found[-1]


def _dimension_rule(dimensions: tuple[int, int]) -> str:
    lo, hi = dimensions
    return f"exactly {lo}" if lo == hi else f"{lo} to {hi}"


def _check_dimensions(where: str, op: OperatorType, rows: tuple[Support, ...], row: Support,
                      level: FeatureLevel, tensors: dict[str, BufferTensorDesc]) -> None:
    (first, x), *rest = tensors.items()
    for name, t in rest:
        if t.dimension_count != x.dimension_count:
            raise invalid_arg(f"{where}: {name} has {t.dimension_count} dimensions but {first} "
                              f"has {x.dimension_count} (need the same dimension count for "
                              f"{', '.join(tensors)})")
    lo, hi = row.dimensions
    if not lo <= x.dimension_count <= hi:
        later = next((r for r in rows if r.since > row.since
                      and r.dimensions[0] <= x.dimension_count <= r.dimensions[1]), None)
        hint = f"; {_dimension_rule(later.dimensions)} from {later.since.c_name}" if later else ""
        raise invalid_arg(f"{where}: {first} has {x.dimension_count} dimensions, which "
                          f"{op.c_name} does not support at {level.c_name} "
                          f"(need {_dimension_rule(row.dimensions)}{hint})")


def _check_type(where: str, op: OperatorType, rows: tuple[Support, ...], row: Support,
                level: FeatureLevel, name: str, t: BufferTensorDesc, *, index: bool) -> None:
    allowed = row.index_types if index else row.data_types
    if t.data_type in allowed:
        return
    later = next((r for r in rows if r.since > row.since
                  and t.data_type in (r.index_types if index else r.data_types)), None)
    hint = (f"{t.data_type.name} needs {later.since.c_name} or higher" if later
            else f"{op.c_name} never accepts {t.data_type.name} for {name}")
    raise invalid_arg(f"{where}: {name}.data_type={t.data_type.name} is not supported by "
                      f"{op.c_name} at {level.c_name} "
                      f"(supported: {', '.join(a.name for a in allowed)}; {hint})")


def _check_same_type(where: str, name: str, t: BufferTensorDesc, other_name: str,
                     other: BufferTensorDesc) -> None:
    if t.data_type != other.data_type:
        raise invalid_arg(f"{where}: {name}.data_type={t.data_type.name} must equal "
                          f"{other_name}.data_type={other.data_type.name}")


def _check_sizes(where: str, name: str, t: BufferTensorDesc, want: tuple[int, ...],
                 rule: str) -> None:
    if t.sizes != want:
        raise invalid_arg(f"{where}: {name}.sizes={t.sizes} must be {want} (need {rule})")


def _not_uint(where: str, name: str, value: Any, c_name: str) -> DMLError:
    return invalid_arg(f"{where}: {name}={value!r} ({type(value).__name__}) is not an "
                       f"integer ({c_name} is a UINT)")


def _axis(where: str, value: Any, ndim: int) -> int:
    try:
        return normalize_axis("axis", value, ndim, negative=False)
    except InvalidArgumentError as err:
        if getattr(err, "ndim", None) is None:
            raise _not_uint(where, "axis", value, "Axis") from None
        axis = err.value
    note = "; Axis is unsigned, so a negative axis is invalid" if axis < 0 else ""
    raise invalid_arg(f"{where}: axis={axis} is out of range for {ndim} dimensions "
                      f"(need 0 <= axis < {ndim}{note})")


def _direction(where: str, value: Any) -> AxisDirection:
    number = None
    if not isinstance(value, (bool, np.bool_)) and hasattr(value, "__index__"):
        number = operator.index(value)
    if number not in (AxisDirection.INCREASING, AxisDirection.DECREASING):
        raise invalid_arg(f"{where}: axis_direction={value!r} is not an AxisDirection "
                          f"(need INCREASING 0 or DECREASING 1)")
    return AxisDirection(number)


def _k(where: str, value: Any, n: int, axis: int, strict: bool) -> int:
    try:
        k = as_int("k", value)
    except InvalidArgumentError:
        raise _not_uint(where, "k", value, "K") from None
    try:
        return check_k(k, n, axis=axis, low=1, high=n - 1 if strict else n)
    except InvalidArgumentError:
        need = (f"0 < k < {n}: strict_k=True applies the page's bound 0 < K < Sizes[axis]"
                if strict else f"1 <= k <= {n}")
        raise invalid_arg(f"{where}: k={k} is out of range for input_tensor.sizes[{axis}]={n} "
                          f"(need {need})") from None


def _run_topk(views: Sequence[np.ndarray], *, axis: int, k: int, largest: bool,
              index_dtype: np.dtype) -> list[np.ndarray]:
    result = topk(views[0], k, axis, largest=largest, index_dtype=index_dtype)
    return [result.values, result.indices]


def _run_gather_elements(views: Sequence[np.ndarray], *, axis: int) -> list[np.ndarray]:
    x, index = views
    try:
        return [gather(x, axis, index)]
    except IndexOutOfRangeError as err:
        raise _index_error(err, index.dtype.kind == "i") from None


def _index_error(err: IndexOutOfRangeError, signed: bool) -> DMLError:
    """E_INVALIDARG for the out-of-range value the gather found (the first in C order).

    The caller may rewrite the buffer from another thread during ``execute``; a
    buffer that holds no offender any more when the gather looks again still gets
    an error (the gather met one; nothing was written).
    """
    n, axis = err.size, err.dim
    need = f"need {-n if signed else 0} <= index <= {n - 1}"
    if err.value is None:
        return invalid_arg(f"execute(GATHER_ELEMENTS): indices_tensor held an out-of-range "
                           f"value for input_tensor.sizes[{axis}]={n} when it was read, but "
                           f"holds none now (was it changed during the call?); {need}")
    where = ", ".join(map(str, err.position))
    return invalid_arg(f"execute(GATHER_ELEMENTS): indices_tensor[{where}]={err.value} "
                       f"is out of range for input_tensor.sizes[{axis}]={n} ({need})")
