"""What an adapter is: a user's array type turned into what an engine takes, and back.

An adapter serves the arrays of some *families* (the root module of the array's
type: ``numpy``, ``torch``, ``cupy``...; :func:`axisops.adapters.of` finds it).
The public functions run::

    adapter = adapters.of(x)
    a = adapter.take(x, "x")                       # the array as engines of its type read it
    spec = validation.topk_spec(adapter.meta(a, "x"), ...)
    adapter, engine = registry.pick(x, backend, spec, a)   # the one choice
    result = adapter.topk(engine, a, spec)         # the engine runs, on what it takes
    return adapter.from_engine(result, x)          # back in x's own type

An adapter never computes and imports no engine: it is given the engine, and
reads its ``array_type`` (the torch adapter views CPU tensors as NumPy arrays for
the NumPy engines, and hands the torch engines tensors).  Its heavy dependency
is imported inside its methods.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from ..requests import ArrayMeta, GatherSpec, KthSpec, PartitionSpec, SortSpec, TopKSpec

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

    def topk(self, engine: Any, a: Any, spec: TopKSpec) -> tuple[Any, Any]:
        """``engine``'s top-k of the taken array ``a``."""
        return engine.topk(a, spec)

    def sort(self, engine: Any, a: Any, spec: SortSpec, values: bool = True,
             indices: bool = True) -> tuple[Any, Any]:
        """``engine``'s stable sort of the taken array ``a``: ``(values, indices)``, ``None``
        for the one not asked for."""
        return engine.sort(a, spec, values, indices)

    def kthvalue(self, engine: Any, a: Any, spec: KthSpec) -> tuple[Any, Any]:
        """``engine``'s kthvalue (or median) of the taken array ``a``."""
        return engine.kthvalue(a, spec)

    def partition(self, engine: Any, a: Any, spec: PartitionSpec, values: bool = True,
                  indices: bool = True) -> tuple[Any, Any]:
        """``engine``'s partition of the taken array ``a``: ``(values, indices)``, ``None``
        for the one not asked for."""
        return engine.partition(a, spec, values, indices)

    def gather(self, engine: Any, a: Any, index: Any, spec: GatherSpec,
               function: str = "gather") -> Any:
        """``engine``'s gather from the taken array ``a``; ``function`` is the public
        function (``"gather"`` or ``"take_along_axis"``), for adapters whose framework
        records the call by name (torch's operators)."""
        return engine.gather(a, index, spec)

    def from_engine(self, result: Any, like: Any) -> Any:
        """A result (an array, or a tuple of them) back in the type of ``like``, the
        user's array."""
        return result

    def __repr__(self) -> str:
        return f"<axisops adapter {self.name!r}>"
