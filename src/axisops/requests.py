"""The request types: what a validated call asks for, as engines receive it.

The rules (:mod:`axisops.rules`) turn a user's arguments into one of these
*specs* (:class:`TopKSpec`, :class:`GatherSpec`, :class:`SortSpec`,
:class:`KthSpec`, :class:`PartitionSpec`, :class:`QuantileSpec`), whose fields are
already checked:
axes are non-negative, ``k`` is a Python int within range, dtypes are NumPy
dtypes.  Engines receive only specs and never validate arguments again; a spec
knows which engine method computes it (:meth:`TopKSpec.compute` and the others).

Specs are frozen records compared and hashed by value (``jax.jit`` takes them as
static arguments), built without :mod:`dataclasses`, whose import and class
generation would be most of a fresh process's first call.
"""

from __future__ import annotations

from math import prod
from typing import Any

import numpy as np

from .dtypes import native

__all__ = ["BOTH", "ArrayMeta", "GatherSpec", "KthSpec", "PartitionSpec", "QuantileSpec",
           "SortSpec", "Spec", "TopKSpec"]

#: ``want``: both the values and the indices of a sort or partition.
BOTH = (True, True)


class Record:
    """A frozen record of the fields ``_fields`` names (in order), compared and hashed by value.

    >>> ArrayMeta((2, 3), np.dtype("int8")).replace(shape=(4,))
    ArrayMeta(shape=(4,), dtype=dtype('int8'))
    """

    _fields: tuple[str, ...] = ()
    __slots__ = ()

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        for name, value in zip(self._fields, args):
            object.__setattr__(self, name, value)
        for name, value in kwargs.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen (use replace())")

    def _values(self) -> tuple[Any, ...]:
        return tuple(getattr(self, name) for name in self._fields)

    def replace(self, **changes: Any) -> Any:
        """A copy with the fields ``changes`` names set to new values."""
        return type(self)(*(changes.get(n, getattr(self, n)) for n in self._fields))

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and self._values() == other._values()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self), self._values()))

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return type(self), self._values()

    def __repr__(self) -> str:
        fields = ", ".join(f"{n}={getattr(self, n)!r}" for n in self._fields)
        return f"{type(self).__name__}({fields})"


class ArrayMeta(Record):
    """What validation needs to know of an array: its shape and NumPy dtype."""

    _fields = ("shape", "dtype")
    __slots__ = _fields
    shape: tuple[int, ...]
    dtype: np.dtype

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return prod(self.shape)


class _AlongAxis(Record):
    """What every request along one axis derives from its ``shape``, ``axis`` and ``dtype``."""

    __slots__ = ()
    shape: tuple[int, ...]
    dtype: np.dtype
    axis: int

    @property
    def n(self) -> int:
        return self.shape[self.axis]

    @property
    def out_dtype(self) -> np.dtype:
        return native(self.dtype)


class TopKSpec(_AlongAxis):
    """A validated top-k request.  ``axis`` is in ``[0, ndim)``, ``0 <= k <= n``."""

    _fields = ("shape", "dtype", "axis", "k", "largest", "sorted", "index_dtype")
    __slots__ = _fields
    k: int
    largest: bool
    sorted: bool
    index_dtype: np.dtype

    @property
    def out_shape(self) -> tuple[int, ...]:
        return self.shape[: self.axis] + (self.k,) + self.shape[self.axis + 1 :]

    def compute(self, engine: Any, x: Any, index: Any = None, want: Any = BOTH) -> Any:
        """``engine``'s ``(values, indices)`` for this request."""
        return engine.topk(x, self)


class GatherSpec(Record):
    """A validated gather request; ``dim`` is in ``[0, ndim)``.

    ``index_shape[d] <= shape[d]`` for every ``d != dim``; index *values* are
    checked by the engine (see :func:`axisops.rules.operations.check_index_values`).
    A spec holds no wording: the messages of its errors name ``index`` and ``dim``,
    and the function that was called words them its own way (``take_along_axis``
    says ``indices`` and ``axis``, see :data:`axisops.errors.FUNCTION_WORDS`).
    """

    _fields = ("shape", "dtype", "dim", "index_shape", "index_dtype")
    __slots__ = _fields
    shape: tuple[int, ...]
    dtype: np.dtype
    dim: int
    index_shape: tuple[int, ...]
    index_dtype: np.dtype

    @property
    def n(self) -> int:
        return self.shape[self.dim]

    @property
    def out_shape(self) -> tuple[int, ...]:
        return self.index_shape

    @property
    def out_dtype(self) -> np.dtype:
        return native(self.dtype)

    def compute(self, engine: Any, x: Any, index: Any = None, want: Any = BOTH) -> Any:
        """``engine``'s gather from ``x`` at ``index`` (its values not yet checked)."""
        return engine.gather(x, index, self)


class SortSpec(_AlongAxis):
    """A validated sort or argsort request.  ``axis`` is in ``[0, ndim)``.

    The order is stable in both directions: equal keys keep their index order
    whether ``descending`` or not.
    """

    _fields = ("shape", "dtype", "axis", "descending")
    __slots__ = _fields
    descending: bool

    @property
    def out_shape(self) -> tuple[int, ...]:
        return self.shape

    def compute(self, engine: Any, x: Any, index: Any = None, want: Any = BOTH) -> Any:
        """``engine``'s ``(values, indices)``; ``want`` says which (``None`` for the other)."""
        return engine.sort(x, self, *want)


class KthSpec(_AlongAxis):
    """A validated kthvalue (or median) request: ``k`` is 1-based, ``1 <= k <= n``.

    The answer is position ``k - 1`` of the stable ascending sort along ``axis``
    and its index; ``out_shape`` is the shape without the axis, or with it kept
    as 1 when ``keepdims``.
    """

    _fields = ("shape", "dtype", "axis", "k", "keepdims")
    __slots__ = _fields
    k: int
    keepdims: bool

    @property
    def out_shape(self) -> tuple[int, ...]:
        kept = (1,) if self.keepdims else ()
        return self.shape[: self.axis] + kept + self.shape[self.axis + 1 :]

    def compute(self, engine: Any, x: Any, index: Any = None, want: Any = BOTH) -> Any:
        """``engine``'s ``(values, indices)`` for this request."""
        return engine.kthvalue(x, self)


class PartitionSpec(_AlongAxis):
    """A validated partition or argpartition request.

    ``kth`` holds the positions, non-negative, ascending and unique (NumPy's
    negative ones already counted from the end); it may be empty.
    """

    _fields = ("shape", "dtype", "axis", "kth")
    __slots__ = _fields
    kth: tuple[int, ...]

    @property
    def out_shape(self) -> tuple[int, ...]:
        return self.shape

    def compute(self, engine: Any, x: Any, index: Any = None, want: Any = BOTH) -> Any:
        """``engine``'s ``(values, indices)``; ``want`` says which (``None`` for the other)."""
        return engine.partition(x, self, *want)


class QuantileSpec(_AlongAxis):
    """A validated quantile, nanquantile or nanmedian request along ``axis`` (in ``[0, ndim)``;
    ``axis=None`` is a flattened ``x`` along axis 0, made so by the front).

    ``q`` holds the probabilities (C order of ``q_shape``, ``()`` for a scalar) as Python
    floats, each exactly a value of ``q_dtype``, the dtype NumPy holds ``q`` in (float16,
    float32, float64, or int64 for integer ``q``, whose only values in range are 0 and 1);
    ``weak`` says that ``q`` was a Python scalar, which NumPy 2 promotes weakly (a
    float32 ``x`` with ``q=0.5`` gives float32).  ``method`` is one of NumPy's 13, or for
    ``flavour="torch"`` (the torch drop-ins) one of torch's five, whose ranks and weights
    are computed in ``x``'s dtype as torch computes them.  ``skipnan``: NaN are skipped
    (nanquantile, nanmedian): every sequence's ranks count its non-NaN elements, which
    are its stable ranks ``0 .. v - 1`` since NaN sort last.  ``out_dtype`` is the result
    dtype NumPy gives (``x``'s own for the methods that pick an element).  ``out_shape`` is
    ``q_shape`` followed by ``x``'s shape without ``axis`` (with it as 1 when
    ``keepdims``).
    """

    _fields = ("shape", "dtype", "axis", "q", "q_shape", "q_dtype", "weak", "method",
               "keepdims", "skipnan", "flavour", "result_dtype")
    __slots__ = _fields
    q: tuple[float, ...]
    q_shape: tuple[int, ...]
    q_dtype: np.dtype
    weak: bool
    method: str
    keepdims: bool
    skipnan: bool
    flavour: str
    result_dtype: np.dtype

    @property
    def out_dtype(self) -> np.dtype:
        return self.result_dtype

    @property
    def reduced_shape(self) -> tuple[int, ...]:
        """``x``'s shape without ``axis`` (with it as 1 when ``keepdims``)."""
        kept = (1,) if self.keepdims else ()
        return self.shape[: self.axis] + kept + self.shape[self.axis + 1 :]

    @property
    def out_shape(self) -> tuple[int, ...]:
        return self.q_shape + self.reduced_shape

    def compute(self, engine: Any, x: Any, index: Any = None, want: Any = BOTH) -> Any:
        """``engine``'s quantiles (``want == (True, False)``) or, otherwise, the parts they are
        made of: ``(below, below_indices, above, above_indices, weights)``, see
        :meth:`axisops.engines.base.Engine.quantile`."""
        return engine.quantile(x, self, parts=not (want[0] and not want[1]))


#: Every spec an engine may be asked about.
Spec = TopKSpec | GatherSpec | SortSpec | KthSpec | PartitionSpec | QuantileSpec
