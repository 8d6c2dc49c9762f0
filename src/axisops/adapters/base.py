"""What an adapter is: a user's array type turned into what an engine takes, and back.

The registry (:mod:`axisops.registry`) knows adapters by array *family*, the root
module of the array's type (``numpy``, ``dask``, ``cupy``...), and picks the
(adapter, engine) pair once per call.  The public function then runs::

    a = adapter.to_engine(x, engine, "x")         # e.g. a NumPy view of a CPU array
    spec = validation.topk_spec(adapter.meta(a, "x"), ...)
    result = engine.topk(a, spec)
    return adapter.from_engine(result, x)          # back in x's own type

An adapter never computes and imports no engine: it is given the engine, and
may read its ``array_type`` (the DLPack adapter imports CPU arrays as NumPy and
accelerator arrays as torch tensors).  Its heavy dependency is imported inside
its methods.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from ..validation import ArrayMeta

__all__ = ["Adapter"]


class Adapter(ABC):
    """Base class of every adapter.

    - ``families``: root module names of the array types it serves; an array
      no adapter claims (lists, scalars, unknown types) goes to NumPy's;
    - ``engine_types``: the array types of the engines it can feed (see
      :attr:`axisops.engines.base.Engine.array_type`), the usual one first.
    """

    name: str = ""
    families: tuple[str, ...] = ()
    engine_types: tuple[str, ...] = ("numpy",)

    def engine_type(self, x: Any) -> str:
        """The array type of the engines that can run ``x`` (by its device, say)."""
        return self.engine_types[0]

    def to_engine(self, x: Any, engine: Any, name: str) -> Any:
        """``x`` as ``engine`` takes it (``name`` is the argument, for messages)."""
        return x

    def index(self, index: Any, x: Any, engine: Any, name: str) -> Any:
        """A gather index, as ``engine`` takes it beside ``x`` (already converted)."""
        return self.to_engine(index, engine, name)

    @abstractmethod
    def meta(self, a: Any, name: str) -> ArrayMeta:
        """Shape and NumPy dtype of a converted array (refusing a type with none)."""

    @abstractmethod
    def broadcast_to(self, a: Any, shape: tuple[int, ...]) -> Any:
        """A broadcast view of a converted array (``take_along_axis``)."""

    def from_engine(self, result: Any, like: Any) -> Any:
        """An engine's result (an array, or a tuple of them) back in the type of ``like``,
        the user's array."""
        return result

    def __repr__(self) -> str:
        return f"<axisops adapter {self.name!r}>"
