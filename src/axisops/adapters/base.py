"""What an adapter is: a user's array type turned into what an engine takes, and back.

An adapter serves the arrays of some *families* (the root module of the array's
type: ``numpy``, ``torch``, ``cupy``...; :func:`axisops.adapters.of` finds it).
The runner (:mod:`axisops.runner`) drives it, once per call::

    a = adapter.take(x, "x")                  # the array as this adapter holds it
    spec = topk_spec(adapter.meta(a, "x"), ...)
    engine = registry.choose(x, backend, spec, a=a, adapter=adapter)
    return adapter.compute(engine, spec, a, x)   # to_engine, the engine, from_engine

An adapter never computes, never chooses and imports no engine: it is given the
engine, and reads its ``array_type`` (the torch adapter views CPU tensors as
NumPy arrays for the NumPy engines, and hands the torch engines tensors).  Its
heavy dependency is imported inside its methods.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

from ..requests import BOTH, ArrayMeta, Spec

__all__ = ["Adapter", "each"]


def each(result: Any, convert: Callable[[Any], Any]) -> Any:
    """``convert`` applied to an engine's result: an array, or each array of a tuple (``None``,
    an output not asked for, stays ``None``)."""
    if isinstance(result, tuple):
        return tuple(None if r is None else convert(r) for r in result)
    return convert(result)


class Adapter(ABC):
    """Base class of every adapter.

    ``engine_types``: the array types of the engines it can feed (see
    :attr:`axisops.engines.base.Engine.array_type`), the usual one first.
    """

    name: str = ""
    engine_types: tuple[str, ...] = ("numpy",)

    def engine_type(self, x: Any) -> str:
        """The array type of the engines that run ``x`` by default (by its device, say)."""
        return self.engine_types[0]

    def accepts(self, x: Any, array_type: str) -> bool:
        """Whether engines of ``array_type`` may run ``x`` (when named with ``backend=``)."""
        return array_type == self.engine_type(x)

    def take(self, x: Any, name: str) -> Any:
        """``x`` as this adapter hands it to engines (``name``: the argument, for messages),
        refused with the library's error if it cannot be read."""
        return x

    def index(self, index: Any, x: Any, name: str) -> Any:
        """A gather index, as this adapter hands it to engines beside ``x`` (taken)."""
        return self.take(index, name)

    @abstractmethod
    def meta(self, a: Any, name: str) -> ArrayMeta:
        """Shape and NumPy dtype of a taken array (refusing a type with none)."""

    @abstractmethod
    def broadcast_to(self, a: Any, shape: tuple[int, ...]) -> Any:
        """A broadcast view of a taken array (``take_along_axis``)."""

    def reshape(self, a: Any, shape: tuple[int, ...]) -> Any:
        """A taken array (or a result) in another shape, C order (``axis=None`` flattens)."""
        return a.reshape(shape)

    def observed(self, a: Any, index: Any = None) -> bool:
        """Whether the array's framework must see the call as its own operator (torch's
        autograd, compile and transforms: :mod:`axisops.torch.library`); ``index``: a
        gather's, taken."""
        return False

    def to_engine(self, a: Any, engine: Any, name: str = "x") -> Any:
        """A taken array as ``engine`` reads it (``name``: the argument, for messages)."""
        return a

    def from_engine(self, result: Any, like: Any, spec: Spec) -> Any:
        """An engine's result for ``spec`` (an array, or a tuple of them with ``None`` for
        an output not asked for) in the type of ``like``, the user's array."""
        return result

    def compute(self, engine: Any, spec: Spec, a: Any, like: Any, index: Any = None,
                want: tuple[bool, bool] = BOTH) -> Any:
        """``engine``'s result for ``spec`` on the taken ``a`` (and ``index``, a gather's),
        given as it reads them, back in the type of ``like``; ``want``: see
        :meth:`axisops.requests.SortSpec.compute`."""
        arrays = [self.to_engine(a, engine)]
        if index is not None:
            arrays.append(self.to_engine(index, engine, "index"))
        return self.from_engine(spec.compute(engine, *arrays, want=want), like, spec)

    def __repr__(self) -> str:
        return f"<axisops adapter {self.name!r}>"
