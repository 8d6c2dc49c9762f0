"""The NumPy adapter: ndarrays, their subclasses and array-likes, for NumPy engines.

NumPy arrays, their subclasses and array-likes such as nested lists are all
served here (see "Array subclasses" in docs/contract.md):

- ``np.ma.MaskedArray`` (and its subclasses) is refused with
  :class:`~axisops.InvalidArgumentError`: reading it as an array would rank
  or gather the values under the mask as if they were not masked;
- every other subclass (``np.memmap``, ``np.matrix``, ``np.recarray``, a
  user's own) is read in place as the plain ndarray it views, without calling
  any of its methods or hooks, and results are plain ndarrays.  ``np.matrix``
  is thus a 2-D array; a recarray's structured dtype is refused as a dtype.

Other types with ``__array_namespace__`` that no adapter claims are read here
too, and give NumPy arrays.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

from .._forksafe import imported
from ..requests import ArrayMeta
from .base import Adapter

__all__ = ["ADAPTER", "NumpyAdapter", "as_ndarray"]


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

    >>> as_ndarray(np.matrix([[1, 2]]), "x")
    array([[1, 2]])
    """
    if _is_masked(x):
        imported("axisops.rules.inputs")
        from ..rules.inputs import refuse_masked

        refuse_masked(name, x)
    if isinstance(x, np.ndarray):
        return x if type(x) is np.ndarray else np.ndarray.view(x, np.ndarray)
    try:
        return np.asarray(x)
    except (ValueError, TypeError) as exc:
        imported("axisops.rules.inputs")
        from ..rules.inputs import unreadable

        unreadable(name, x, f"cannot be read as an array ({exc})", short=True)


class NumpyAdapter(Adapter):
    name = "numpy"

    def take(self, x: Any, name: str) -> np.ndarray:
        return as_ndarray(x, name)

    def meta(self, a: np.ndarray, name: str) -> ArrayMeta:
        return ArrayMeta(a.shape, a.dtype)

    def broadcast_to(self, a: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
        return a if a.shape == shape else np.broadcast_to(a, shape)


ADAPTER = NumpyAdapter()
