"""What a backend is: one implementation of both operations for one array family.

A backend module in :mod:`axisops.backends` defines a subclass of
:class:`Backend` and a module-level instance named ``BACKEND``; the registry
finds it by scanning the package, so adding a backend adds a module and changes
no existing one.  Backend modules import their heavy dependency (numba, torch,
dask...) inside methods, never at module level, so discovery stays cheap.

Backends receive validated specs only (see :mod:`axisops.validation`).  Their
messages name arguments, never the function: the public function the user
called adds its name (see :func:`axisops.errors.boundary`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from importlib.util import find_spec
from typing import Any

from ..validation import ArrayMeta, GatherSpec, TopKSpec

__all__ = ["Backend"]


class Backend(ABC):
    """Base class of every backend.

    Class attributes describe the backend to the registry:

    - ``name``: what ``backend=`` selects it by;
    - ``array_modules``: root module names of the array types it serves
      (``type(x).__module__`` up to the first dot), e.g. ``("torch",)``;
    - ``priority``: among the available backends that accept an array, the
      highest priority is the default;
    - ``requires``: modules that must be importable for it to be available;
    - ``extra``: the pip extra that installs them, for error messages.
    """

    name: str = ""
    #: the registry's default-backend resolver, given to each backend it registers.
    resolver: Any = None
    array_modules: tuple[str, ...] = ()
    priority: int = 0
    requires: tuple[str, ...] = ()
    extra: str = ""
    description: str = ""

    def available(self) -> bool:
        """True when every required module can be imported (nothing is imported)."""
        return self.missing() == ()

    def missing(self) -> tuple[str, ...]:
        """The required modules that are not installed (looked up once)."""
        cached = self.__dict__.get("_missing")
        if cached is None:
            cached = tuple(m for m in self.requires if find_spec(m) is None)
            self.__dict__["_missing"] = cached
        return cached

    def delegate(self, x: Any) -> Backend:
        """The default backend for ``x``, an array this backend converted to another
        family (a CPU tensor viewed as NumPy, say); resolved by the registry, which
        backends never import."""
        if self.resolver is None:
            raise RuntimeError(f"backend {self.name!r} is not registered")
        return self.resolver(x)

    def serves(self, x: Any) -> bool:
        """Whether ``x``'s family is one of this backend's (by its type's root module)."""
        return type(x).__module__.partition(".")[0] in self.array_modules

    def accepts(self, x: Any) -> bool:
        """Finer than ``array_modules``: may this backend take ``x`` (e.g. its device)?"""
        return True

    def default_for(self, x: Any) -> bool:
        """May the registry pick this backend for ``x`` unasked (no ``backend=``)?

        Defaults to :meth:`accepts`; a backend that takes some arrays only when
        named (e.g. Triton on CPU tensors, in its interpreter) narrows it.
        """
        return self.accepts(x)

    def asarray(self, x: Any, name: str) -> Any:
        """``x`` converted to the array type this backend works on.

        ``name`` is the argument as the user passed it (``"x"``, ``"index"``),
        for messages.
        """
        return x

    def as_index(self, index: Any, x: Any, name: str) -> Any:
        """A gather index converted to a type this backend can use beside ``x``."""
        return self.asarray(index, name)

    @abstractmethod
    def meta(self, x: Any, name: str) -> ArrayMeta:
        """Shape and NumPy dtype of an array returned by :meth:`asarray`.

        A backend whose arrays may hold a type with no NumPy equivalent raises
        :class:`~axisops.UnsupportedDTypeError` here, naming the argument ``name``.
        """

    @abstractmethod
    def broadcast_to(self, x: Any, shape: tuple[int, ...]) -> Any:
        """A broadcast view of ``x`` (used by ``take_along_axis``)."""

    @abstractmethod
    def topk(self, x: Any, spec: TopKSpec) -> tuple[Any, Any]:
        """``(values, indices)`` for a validated spec."""

    @abstractmethod
    def gather(self, x: Any, index: Any, spec: GatherSpec) -> Any:
        """The gathered array for a validated spec (index values not yet checked)."""

    def __repr__(self) -> str:
        return f"<axisops backend {self.name!r}>"
