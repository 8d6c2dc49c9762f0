"""Array handling shared by the backends that work on NumPy arrays.

NumPy arrays, their subclasses (``np.memmap`` included: results are plain
arrays) and array-likes such as nested lists are all served here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..errors import InvalidArgumentError
from ..validation import ArrayMeta
from .base import Backend

__all__ = ["NumpyFamily", "as_ndarray"]


def as_ndarray(x: Any, func: str, name: str) -> np.ndarray:
    """``x`` as a base-class ndarray, without copying when it already is one."""
    if isinstance(x, np.ndarray):
        return x if type(x) is np.ndarray else x.view(np.ndarray)
    try:
        return np.asarray(x)
    except (ValueError, TypeError) as exc:
        raise InvalidArgumentError(
            f"{func}(): {name} of type {type(x).__name__} cannot be read as an array ({exc})"
        ) from None


class NumpyFamily(Backend):
    """Base for backends whose arrays are NumPy arrays (and array-likes)."""

    array_modules = ("numpy", "builtins")

    def asarray(self, x: Any, func: str, name: str) -> np.ndarray:
        return as_ndarray(x, func, name)

    def meta(self, x: np.ndarray, func: str, name: str) -> ArrayMeta:
        return ArrayMeta(x.shape, x.dtype)

    def broadcast_to(self, x: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
        return x if x.shape == shape else np.broadcast_to(x, shape)
