"""What an engine is: the computation of both operations on one array type.

An engine computes ``topk(x, spec)`` and ``gather(x, index, spec)`` on what it
is given (NumPy arrays for ``"cpu"`` and ``"numpy"``, dask arrays for
``"dask"``...), for a validated spec (see :mod:`axisops.validation`): it never
validates arguments, never converts a user's array (that is an adapter's work,
:mod:`axisops.adapters`), never asks the registry for another engine and never
imports another engine.  Its heavy dependency is imported inside its methods, so
listing engines costs nothing.

Engines are listed in :mod:`axisops.engines` by name; the registry
(:mod:`axisops.registry`) picks one per call, and code that cuts one request
into pieces (the merges of :mod:`axisops.merge`, the boxes of the streaming
engine, the tasks of a Dask graph) runs the pieces on the engine it was given,
with :meth:`Engine.topk_block` and :meth:`Engine.gather_block`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import replace
from importlib.util import find_spec
from typing import Any

import numpy as np

from ..dtypes import native
from ..tracing import constant_while_tracing
from ..validation import GatherSpec, TopKSpec

__all__ = ["PIECE_INDEX", "Engine"]

#: The index dtype of every partial top-k (offsets may exceed the caller's type).
PIECE_INDEX = np.dtype(np.int64)


_MISSING: dict[tuple[str, ...], tuple[str, ...]] = {}


@constant_while_tracing
def _missing(requires: tuple[str, ...]) -> tuple[str, ...]:
    """The modules of ``requires`` that are not installed (looked up once)."""
    found = _MISSING.get(requires)
    if found is None:
        found = _MISSING[requires] = tuple(m for m in requires if find_spec(m) is None)
    return found


class Engine(ABC):
    """Base class of every engine.

    Class attributes describe it to the registry:

    - ``name``: what ``backend=`` selects it by;
    - ``array_type``: the arrays it computes on: ``"numpy"``, ``"torch"``,
      ``"jax"`` or ``"dask"`` (an adapter turns a user's array into one);
    - ``priority``: among the available engines for an array, the highest is
      the default;
    - ``requires``: modules that must be importable for it to be available;
    - ``extra``: the pip extra that installs them, for messages.
    """

    name: str = ""
    array_type: str = "numpy"
    priority: int = 0
    requires: tuple[str, ...] = ()
    extra: str = ""
    description: str = ""

    def available(self) -> bool:
        """True when every required module can be imported (nothing is imported)."""
        return self.missing() == ()

    def missing(self) -> tuple[str, ...]:
        """The required modules that are not installed (nothing is imported)."""
        return _missing(tuple(self.requires))

    def supports(self, x: Any, spec: TopKSpec | GatherSpec | None = None) -> bool:
        """Finer than ``array_type``: may this engine take ``x`` (an array of its type,
        as the adapter hands it over: its device, say), and this request (``spec``;
        None: any request)?

        The registry asks before it picks: a named engine that cannot take ``x``
        is refused, and one that cannot take the request gives way to the default
        engine of its type that can (Triton's kernels leave 64-bit types to the
        ``"torch"`` engine, say).  No engine hands a request to another.
        """
        return True

    def default_for(self, x: Any, spec: TopKSpec | GatherSpec | None = None) -> bool:
        """May the registry pick this engine for ``x`` and ``spec`` unasked (no ``backend=``)?"""
        return self.supports(x, spec)

    @abstractmethod
    def topk(self, x: Any, spec: TopKSpec) -> tuple[Any, Any]:
        """``(values, indices)`` for a validated spec."""

    @abstractmethod
    def gather(self, x: Any, index: Any, spec: GatherSpec) -> Any:
        """The gathered array for a validated spec (index values not yet checked)."""

    def topk_into(self, x: Any, spec: TopKSpec, values: Any, indices: Any) -> None:
        """:meth:`topk` written into ``values`` and ``indices`` (arrays of the out shape,
        of ``spec``'s value dtype and any integer dtype that holds the indices).

        For callers that own the output memory (the JAX host callback writes into
        XLA's buffers).  This default copies :meth:`topk`'s result; an engine that can
        write in place (``"cpu"``) does.
        """
        got_values, got_indices = self.topk(x, spec)
        values[...] = got_values
        indices[...] = got_indices

    def topk_block(self, block: Any, spec: TopKSpec, k: int | None = None) -> tuple[Any, Any]:
        """The sorted top-``min(k, n)`` of one piece of a validated request, int64 indices.

        ``block`` has ``spec``'s rank and a dtype ``spec`` allows (its own byte
        order); ``k`` defaults to ``spec.k``.  The piece's spec is derived from
        the validated one (only shape, dtype and k change, within range).

        >>> from axisops.engines import get
        >>> from axisops.validation import ArrayMeta, topk_spec
        >>> spec = topk_spec(ArrayMeta((4,), np.dtype(int)), 2, 0, True, False, None)
        >>> get("numpy").topk_block(np.array([5, 7, 5, 1]), spec)
        (array([7, 5]), array([1, 0]))
        """
        n = block.shape[spec.axis]
        piece = replace(spec, shape=tuple(block.shape), dtype=block.dtype, sorted=True,
                        k=min(spec.k if k is None else k, n), index_dtype=PIECE_INDEX)
        return self.topk(block, piece)

    def gather_block(self, data: Any, index: Any, spec: GatherSpec) -> Any:
        """``gather(data, spec.dim, index)`` for one piece of a validated request.

        ``index.shape[d] <= data.shape[d]`` off ``spec.dim`` and index values
        valid for ``data`` (the caller checked or wrapped them).
        """
        piece = replace(spec, shape=tuple(data.shape), dtype=data.dtype,
                        index_shape=tuple(index.shape), index_dtype=native(index.dtype))
        return self.gather(data, index, piece)

    def __repr__(self) -> str:
        return f"<axisops engine {self.name!r}>"
