"""Rules of the torch drop-ins' signatures: tensors where torch takes them, and ``out=``."""

from __future__ import annotations

from typing import Any

from ..errors import UnsupportedDTypeError, with_fields
from . import invalid

__all__ = ["check_out_pair", "check_out_tensor", "need_type", "refuse_out_with_grad",
           "refuse_shared_out"]


def need_type(name: str, value: Any, ok: bool, kind: str, why: str = "") -> None:
    """``value`` is a ``kind`` (``ok``: the caller's test, which needs no import here);
    ``why`` adds a reason in parentheses."""
    if not ok:
        tail = f" ({why})" if why else ""
        invalid(f"{name} is a {type(value).__name__}, not a {kind}{tail}", name=name,
                value=value, allowed=f"a {kind}")


def check_out_pair(value: Any, ok: bool) -> None:
    """``out=`` of ``torch.topk``: a pair of tensors (``ok``: the caller's test)."""
    if not ok:
        invalid(f"out is a {type(value).__name__}, need a tuple of two tensors (values, "
                f"indices)", name="out", value=value, allowed="a tuple of two tensors")


def check_out_tensor(name: str, dtype: Any, need_dtype: Any, device: Any, need_device: Any,
                     function: str) -> None:
    """An ``out=`` tensor of the result's dtype (never cast, as torch's ``function`` does)
    on the input's device."""
    if dtype != need_dtype:
        raise with_fields(UnsupportedDTypeError(
            f"{name} has dtype {dtype}, need {need_dtype} (out= tensors are written as they "
            f"are, never cast, as torch.{function} does)"),
            name=name, dtype=dtype, allowed=str(need_dtype))
    if device != need_device:
        invalid(f"{name} is on {device}, need input's device {need_device}", name=name,
                value=device, allowed=str(need_device))


def refuse_shared_out(name: str, shape: tuple[int, ...], result_shape: tuple[int, ...],
                      other: str, shares: bool) -> None:
    """An ``out=`` tensor of ``shape`` that shares memory with ``other``, an input or another
    ``out=`` tensor, as it is or once resized to ``result_shape`` (``shares``: the caller's
    test): out= is written, and an input never is."""
    if shares:
        resized = f", resized to {result_shape}" if shape != result_shape else ""
        invalid(f"{name} (shape {shape}{resized}) shares memory with {other} (need out= "
                f"tensors that share no memory with an input or with each other: out= is "
                f"written, an input never is)", name=name, value=shape,
                allowed=f"memory not shared with {other}")


def refuse_out_with_grad(records: bool, function: str) -> None:
    """``out=`` records no autograd history: refused while an argument requires grad."""
    if records:
        invalid(f"out= cannot record autograd history, but an argument requires grad (as "
                f"torch.{function} refuses; call it without out=, or under torch.no_grad())",
                name="out", value=None, allowed="no out= with autograd")
