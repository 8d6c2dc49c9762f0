"""The device: ``create_device``, ``create_operator``, ``compile_operator``, ``execute``.

Descriptor problems raise ``DMLError(E_INVALIDARG)`` from ``create_operator``.
Misuse at ``execute`` (wrong buffer count, a short, read-only, non-contiguous
or overlapping buffer) removes the device, as real DirectML does: that call
and every later one on the device raise ``DMLError(DXGI_ERROR_DEVICE_REMOVED)``
with the reason.  A failed ``execute`` writes no output byte.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from .buffers import Binding, BindingMisuse, bind, check_disjoint, read_view, write
from .enums import FeatureLevel, OperatorType
from .errors import DXGI_ERROR_DEVICE_REMOVED, DXGI_ERROR_UNSUPPORTED, DMLError, invalid_arg
from .operators import OperatorDesc, Plan, plan_operator

__all__ = ["CompiledOperator", "Device", "Operator", "create_device"]

#: The highest feature level this implementation supports (and the default).
HIGHEST_FEATURE_LEVEL = FeatureLevel.FL_6_4


def create_device(feature_level: FeatureLevel | int | None = None, *,
                  strict_k: bool = False) -> Device:
    """``DMLCreateDevice1``: a device whose operators follow ``feature_level``'s rules.

    ``feature_level`` defaults to the highest (``FL_6_4``); one above it raises
    ``DMLError(DXGI_ERROR_UNSUPPORTED)``.  ``strict_k=True`` applies the TOP_K
    pages' bound ``0 < K < Sizes[axis]`` instead of ``1 <= K <= Sizes[axis]``.

    >>> from axisops import directml as dml
    >>> dml.create_device(dml.FeatureLevel.FL_3_1).feature_level.c_name
    'DML_FEATURE_LEVEL_3_1'
    >>> dml.create_device(0x7000)
    Traceback (most recent call last):
    ...
    axisops.directml.errors.DMLError: DXGI_ERROR_UNSUPPORTED (0x887A0004): ...
    """
    return Device(_feature_level(feature_level), _strict(strict_k))


def _feature_level(value: Any) -> FeatureLevel:
    if value is None:
        return HIGHEST_FEATURE_LEVEL
    if isinstance(value, (bool, np.bool_)) or not hasattr(value, "__index__"):
        raise invalid_arg(f"create_device(): feature_level={value!r} ({type(value).__name__}) "
                          f"is not a FeatureLevel")
    number = int(value.__index__())
    highest = HIGHEST_FEATURE_LEVEL
    if number > highest:
        raise DMLError(DXGI_ERROR_UNSUPPORTED,
                       f"create_device(): feature_level={number:#x} is above the highest "
                       f"supported, {highest.c_name} ({int(highest):#x})")
    if number not in FeatureLevel._value2member_map_:
        known = ", ".join(f"{int(f):#x}" for f in FeatureLevel)
        raise invalid_arg(f"create_device(): feature_level={number:#x} is not a "
                          f"DML_FEATURE_LEVEL (known: {known})")
    return FeatureLevel(number)


def _strict(value: Any) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise invalid_arg(f"create_device(): strict_k={value!r} ({type(value).__name__}) "
                          f"is not a bool")
    return bool(value)


class Device:
    """``IDMLDevice``: creates and compiles operators; removed on call-time misuse."""

    def __init__(self, feature_level: FeatureLevel, strict_k: bool) -> None:
        self._feature_level = feature_level
        self._strict_k = strict_k
        self._lock = threading.Lock()
        self._removed_reason: str | None = None

    @property
    def feature_level(self) -> FeatureLevel:
        """The feature level whose rules ``create_operator`` applies."""
        return self._feature_level

    @property
    def strict_k(self) -> bool:
        """Whether TOP_K/TOP_K1 need ``K < Sizes[axis]`` (the page's bound)."""
        return self._strict_k

    def __repr__(self) -> str:
        state = " removed" if self._removed_reason else ""
        return f"<axisops.directml Device {self._feature_level.c_name}{state}>"

    def create_operator(self, desc: OperatorDesc) -> Operator:
        """``IDMLDevice::CreateOperator``: validate ``desc`` against every rule.

        Raises ``DMLError(E_INVALIDARG)`` naming the field, its value and the rule.
        """
        self._check_alive()
        return Operator(self, desc, plan_operator(desc, self._feature_level, self._strict_k))

    def compile_operator(self, op: Operator) -> CompiledOperator:
        """``IDMLDevice::CompileOperator``: an operator of this device, ready to execute."""
        self._check_alive()
        if not isinstance(op, Operator):
            raise invalid_arg(f"compile_operator(): op={op!r} is not an Operator "
                              f"(need the result of create_operator)")
        if op.device is not self:
            raise invalid_arg("compile_operator(): op was created by another device")
        return CompiledOperator(op)

    def get_device_removed_reason(self) -> str | None:
        """Why the device was removed, or None while it is not."""
        return self._removed_reason

    def _check_alive(self) -> None:
        """Raise ``DMLError(DXGI_ERROR_DEVICE_REMOVED)`` if this device has been removed."""
        reason = self._removed_reason
        if reason is not None:
            raise DMLError(DXGI_ERROR_DEVICE_REMOVED, reason)

    def _remove(self, reason: str) -> DMLError:
        """Mark the device removed (the first reason stays) and return its error."""
        with self._lock:
            if self._removed_reason is None:
                self._removed_reason = reason
            return DMLError(DXGI_ERROR_DEVICE_REMOVED, self._removed_reason)


class Operator:
    """``IDMLOperator``: a validated operator desc."""

    def __init__(self, device: Device, desc: OperatorDesc, plan: Plan) -> None:
        self.device = device
        self.desc = desc
        self._plan = plan

    @property
    def operator_type(self) -> OperatorType:
        """The ``DML_OPERATOR_TYPE`` of the desc."""
        return self._plan.operator_type

    def __repr__(self) -> str:
        return f"<axisops.directml Operator {self.operator_type.c_name}>"


class CompiledOperator:
    """``IDMLCompiledOperator``: bind buffers and execute.

    Inputs and outputs are bound in the desc's order: TOP_K/TOP_K1 take
    ``inputs=[input]`` and ``outputs=[values, indices]``; GATHER_ELEMENTS takes
    ``inputs=[input, indices]`` and ``outputs=[output]``.
    """

    def __init__(self, op: Operator) -> None:
        self.operator = op
        self._plan = op._plan

    @property
    def input_names(self) -> tuple[str, ...]:
        """The desc fields the input buffers bind to, in order."""
        return tuple(name for name, _ in self._plan.inputs)

    @property
    def output_names(self) -> tuple[str, ...]:
        """The desc fields the output buffers bind to, in order."""
        return tuple(name for name, _ in self._plan.outputs)

    def __repr__(self) -> str:
        return f"<axisops.directml CompiledOperator {self._plan.operator_type.c_name}>"

    def execute(self, inputs: Sequence[Any], outputs: Sequence[Any]) -> None:
        """Run the operator: read ``inputs``, write ``outputs`` (bytes-like buffers).

        Only the bytes the output descs' sizes and strides address are
        written; nothing is written when the call fails.  Misuse removes the
        device and raises ``DMLError(DXGI_ERROR_DEVICE_REMOVED)``; an
        out-of-range gather index raises ``DMLError(E_INVALIDARG)``.
        """
        device = self.operator.device
        device._check_alive()
        try:
            bound_in, bound_out = self._bind(inputs, outputs)
        except BindingMisuse as exc:
            name = self._plan.operator_type.name
            raise device._remove(f"execute({name}): {exc}; the device is removed") from None
        results = self._plan.compute([read_view(b) for b in bound_in])
        for binding, result in zip(bound_out, results):
            write(binding, result)

    def _bind(self, inputs: Any, outputs: Any) -> tuple[list[Binding], list[Binding]]:
        bound_in = _bind_all("inputs", inputs, self._plan.inputs, output=False)
        bound_out = _bind_all("outputs", outputs, self._plan.outputs, output=True)
        check_disjoint(bound_in, bound_out)
        return bound_in, bound_out


def _bind_all(kind: str, buffers: Any, tensors: tuple[tuple[str, Any], ...], *,
              output: bool) -> list[Binding]:
    names = ", ".join(name for name, _ in tensors)
    need = f"need a list of {len(tensors)} buffer{'s' if len(tensors) > 1 else ''}: {names}"
    if not isinstance(buffers, (list, tuple)):
        raise BindingMisuse(f"{kind} is a {type(buffers).__name__}, not a list of buffers ({need})")
    if len(buffers) != len(tensors):
        raise BindingMisuse(f"{kind} has {len(buffers)} buffers ({need})")
    return [bind(buf, desc, f"{kind}[{i}] ({name})", output=output)
            for i, (buf, (name, desc)) in enumerate(zip(buffers, tensors))]
