"""Array handling shared by the backends that work on NumPy arrays.

NumPy arrays, their subclasses and array-likes such as nested lists are all
served here (see "Array subclasses" in docs/contract.md):

- ``np.ma.MaskedArray`` (and its subclasses) is refused with
  :class:`~axisops.InvalidArgumentError`: reading it as an array would rank
  or gather the values under the mask as if they were not masked;
- every other subclass (``np.memmap``, ``np.matrix``, ``np.recarray``, a
  user's own) is read in place as the plain ndarray it views, without calling
  any of its methods or hooks, and results are plain ndarrays.  ``np.matrix``
  is thus a 2-D array; a recarray's structured dtype is refused as a dtype.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from ..errors import InvalidArgumentError
from ..validation import ArrayMeta
from .base import Backend

__all__ = ["NumpyFamily", "as_ndarray"]


def _is_masked(x: Any) -> bool:
    # numpy.ma is never imported here: no masked array exists before its class does.
    # Another thread may be importing it right now, so the class is looked up where it
    # is defined, and may not be there yet (then there is no instance either).
    masked = getattr(sys.modules.get("numpy.ma.core"), "MaskedArray", None)
    return masked is not None and isinstance(x, masked)


def as_ndarray(x: Any, name: str) -> np.ndarray:
    """``x`` as a base-class ndarray, without copying when it already is one.

    Masked arrays are refused; other subclasses are viewed as ``np.ndarray``
    through the base class's own ``view`` (a subclass's overrides never run).
    """
    if _is_masked(x):
        raise InvalidArgumentError(
            f"{name} is a masked array ({type(x).__module__}.{type(x).__name__}), "
            f"which axisops does not take (its mask would be ignored); pass {name}.filled(v) "
            f"to give masked elements the value v, np.ma.getdata({name}) to ignore the mask, "
            f"or {name}.compressed() for the unmasked elements as a 1-D array"
        )
    if isinstance(x, np.ndarray):
        return x if type(x) is np.ndarray else np.ndarray.view(x, np.ndarray)
    try:
        return np.asarray(x)
    except (ValueError, TypeError) as exc:
        raise InvalidArgumentError(
            f"{name} of type {type(x).__name__} cannot be read as an array ({exc})"
        ) from None


class NumpyFamily(Backend):
    """Base for backends whose arrays are NumPy arrays (and array-likes)."""

    array_modules = ("numpy", "builtins")

    def asarray(self, x: Any, name: str) -> np.ndarray:
        return as_ndarray(x, name)

    def meta(self, x: np.ndarray, name: str) -> ArrayMeta:
        return ArrayMeta(x.shape, x.dtype)

    def broadcast_to(self, x: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
        return x if x.shape == shape else np.broadcast_to(x, shape)
