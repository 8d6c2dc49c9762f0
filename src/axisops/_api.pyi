# The public operations as type checkers see them: the result has the input's array type.
#
# ``axisops/__init__.py`` imports these names from here under ``TYPE_CHECKING`` and from
# ``axisops.api`` at run time.  A generic NamedTuple is allowed at run time only from Python
# 3.11, so the generic ``TopK`` lives here; at run time ``axisops.TopK`` is the plain
# NamedTuple (write ``TopK[np.ndarray]`` in annotations, which are not evaluated).
# tests/test_project.py checks these signatures against the run-time ones.

from collections.abc import Sequence
from typing import Any, Generic, NamedTuple, TypeVar, overload

import numpy as np

_A = TypeVar("_A")
_NDArray = np.ndarray[Any, np.dtype[Any]]
# Inputs that come back as a plain np.ndarray: nested Python sequences, and the ndarray
# subclasses NumPy itself would turn into one (np.memmap, np.matrix).
_AsNDArray = Sequence[Any] | np.memmap[Any, Any] | np.matrix[Any, Any]

class TopK(NamedTuple, Generic[_A]):
    """The result of :func:`topk`: ``values`` and their ``indices`` along the axis."""

    values: _A
    indices: _A

class KthValue(NamedTuple, Generic[_A]):
    """The result of :func:`kthvalue`: ``values`` and their ``indices`` along the axis."""

    values: _A
    indices: _A

class Median(NamedTuple, Generic[_A]):
    """The result of :func:`median`: the lower median ``values`` and their ``indices``."""

    values: _A
    indices: _A

# Any other array (np.ndarray, torch, JAX, CuPy, Dask) comes back as its own type.
@overload
def topk(
    x: _AsNDArray,
    k: int,
    axis: int | None = -1,
    *,
    largest: bool = True,
    sorted: bool = True,
    index_dtype: Any = None,
    backend: str | None = None,
) -> TopK[_NDArray]: ...
@overload
def topk(
    x: _A,
    k: int,
    axis: int | None = -1,
    *,
    largest: bool = True,
    sorted: bool = True,
    index_dtype: Any = None,
    backend: str | None = None,
) -> TopK[_A]: ...
@overload
def top_k(
    x: _AsNDArray, k: int, /, *, axis: int | None = -1, mode: str = "largest",
    sorted: bool = True
) -> TopK[_NDArray]: ...
@overload
def top_k(
    x: _A, k: int, /, *, axis: int | None = -1, mode: str = "largest", sorted: bool = True
) -> TopK[_A]: ...
@overload
def gather(x: _AsNDArray, dim: int, index: Any, *, backend: str | None = None) -> _NDArray: ...
@overload
def gather(x: _A, dim: int, index: Any, *, backend: str | None = None) -> _A: ...
@overload
def take_along_axis(x: _AsNDArray, indices: Any, /, *, axis: int = -1) -> _NDArray: ...
@overload
def take_along_axis(x: _A, indices: Any, /, *, axis: int = -1) -> _A: ...
@overload
def sort(
    x: _AsNDArray, axis: int | None = -1, *, descending: bool = False, backend: str | None = None
) -> _NDArray: ...
@overload
def sort(
    x: _A, axis: int | None = -1, *, descending: bool = False, backend: str | None = None
) -> _A: ...
@overload
def argsort(
    x: _AsNDArray, axis: int | None = -1, *, descending: bool = False, backend: str | None = None
) -> _NDArray: ...
@overload
def argsort(
    x: _A, axis: int | None = -1, *, descending: bool = False, backend: str | None = None
) -> _A: ...
@overload
def kthvalue(
    x: _AsNDArray,
    k: int,
    axis: int | None = -1,
    *,
    keepdims: bool = False,
    backend: str | None = None,
) -> KthValue[_NDArray]: ...
@overload
def kthvalue(
    x: _A, k: int, axis: int | None = -1, *, keepdims: bool = False, backend: str | None = None
) -> KthValue[_A]: ...
@overload
def median(
    x: _AsNDArray, axis: int | None = -1, *, keepdims: bool = False, backend: str | None = None
) -> Median[_NDArray]: ...
@overload
def median(
    x: _A, axis: int | None = -1, *, keepdims: bool = False, backend: str | None = None
) -> Median[_A]: ...
@overload
def partition(
    x: _AsNDArray, kth: int | Sequence[int], axis: int | None = -1, *, backend: str | None = None
) -> _NDArray: ...
@overload
def partition(
    x: _A, kth: int | Sequence[int], axis: int | None = -1, *, backend: str | None = None
) -> _A: ...
@overload
def argpartition(
    x: _AsNDArray, kth: int | Sequence[int], axis: int | None = -1, *, backend: str | None = None
) -> _NDArray: ...
@overload
def argpartition(
    x: _A, kth: int | Sequence[int], axis: int | None = -1, *, backend: str | None = None
) -> _A: ...
@overload
def quantile(
    x: _AsNDArray,
    q: Any,
    axis: int | None = -1,
    *,
    method: str = "linear",
    keepdims: bool = False,
    backend: str | None = None,
) -> _NDArray: ...
@overload
def quantile(
    x: _A,
    q: Any,
    axis: int | None = -1,
    *,
    method: str = "linear",
    keepdims: bool = False,
    backend: str | None = None,
) -> _A: ...
@overload
def nanquantile(
    x: _AsNDArray,
    q: Any,
    axis: int | None = -1,
    *,
    method: str = "linear",
    keepdims: bool = False,
    backend: str | None = None,
) -> _NDArray: ...
@overload
def nanquantile(
    x: _A,
    q: Any,
    axis: int | None = -1,
    *,
    method: str = "linear",
    keepdims: bool = False,
    backend: str | None = None,
) -> _A: ...
@overload
def nanmedian(
    x: _AsNDArray, axis: int | None = -1, *, keepdims: bool = False, backend: str | None = None
) -> Median[_NDArray]: ...
@overload
def nanmedian(
    x: _A, axis: int | None = -1, *, keepdims: bool = False, backend: str | None = None
) -> Median[_A]: ...
