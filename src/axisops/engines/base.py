"""What an engine is: the computation of the operations on one array type.

An engine computes ``topk(x, spec)`` and ``gather(x, index, spec)`` on what it
is given (NumPy arrays for ``"cpu"`` and ``"numpy"``, dask arrays for
``"dask"``...), and may compute the selection family (``sort``, ``kthvalue``,
``partition``: :meth:`Engine.computes` says which, and the registry passes over
an engine that does not), for a validated spec (:mod:`axisops.requests`): it
never validates arguments, never converts a user's array (that is an adapter's
work, :mod:`axisops.adapters`), never looks another engine up and never imports
another engine.  Its heavy dependency is imported inside its methods, so listing
engines costs nothing.

Engines are listed in :mod:`axisops.engines` by name; the registry
(:mod:`axisops.registry`) picks one per call, and code that cuts one request
into pieces (the merges of :mod:`axisops.merge`, the boxes of the streaming
engine) runs the pieces on the engine it was given, with :meth:`Engine.topk_block`
and :meth:`Engine.gather_block`; a Dask task, which runs elsewhere, is given the
engine's name (:func:`axisops.engines.blocks.named`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from importlib.util import find_spec
from typing import Any

import numpy as np

from ..dtypes import native
from ..requests import GatherSpec, KthSpec, PartitionSpec, QuantileSpec, SortSpec, Spec, TopKSpec
from ..tracing import constant_while_tracing

__all__ = ["PIECE_INDEX", "Engine"]

#: The index dtype of every partial top-k (offsets may exceed the caller's type).
PIECE_INDEX = np.dtype(np.int64)


_MISSING: dict[tuple[str, ...], tuple[str, ...]] = {}

#: The method that computes each spec of the selection family (an engine may lack them).
_FAMILY_METHOD = {SortSpec: "sort", KthSpec: "kthvalue", PartitionSpec: "partition",
                  QuantileSpec: "quantile"}


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
    - ``extra``: the pip extra that installs them, for messages;
    - ``host_type``: for an engine that runs an engine of another array type on
      the host (the JAX engine's CPU programs call a NumPy engine back), that
      type: the registry gives it the one to run with ``on_host(engine)``, a copy
      of itself that runs that engine.
    """

    name: str = ""
    array_type: str = "numpy"
    priority: int = 0
    requires: tuple[str, ...] = ()
    extra: str = ""
    description: str = ""
    host_type: str | None = None

    def available(self) -> bool:
        """True when every required module can be imported (nothing is imported)."""
        return self.missing() == ()

    def missing(self) -> tuple[str, ...]:
        """The required modules that are not installed (nothing is imported)."""
        return _missing(tuple(self.requires))

    def supports(self, x: Any, spec: Spec | None = None) -> bool:
        """Finer than ``array_type``: may this engine take ``x`` (an array of its type,
        as the adapter hands it over: its device, say), and this request (``spec``;
        None: any request)?

        The registry asks before it picks: a named engine that cannot take ``x``
        is refused, and one that cannot take the request gives way to the default
        engine of its type that can (Triton's kernels leave 64-bit types to the
        ``"torch"`` engine, say).  No engine hands a request to another.  This
        default takes every request whose operation the engine computes
        (:meth:`computes`); an override should keep that test.
        """
        return spec is None or self.computes(spec)

    def computes(self, spec: Spec) -> bool:
        """Whether this engine computes ``spec``'s operation at all: top-k and gather
        always; ``sort``, ``kthvalue``, ``partition`` and ``quantile`` where its class
        defines them.

        >>> from axisops.engines import get
        >>> from axisops.requests import ArrayMeta
        >>> from axisops.rules.operations import sort_spec
        >>> get("numpy").computes(sort_spec(ArrayMeta((3,), np.dtype(int)), 0, False))
        True
        """
        method = _FAMILY_METHOD.get(type(spec))
        return method is None or getattr(type(self), method) is not getattr(Engine, method)

    def default_for(self, x: Any, spec: Spec | None = None) -> bool:
        """May the registry pick this engine for ``x`` and ``spec`` unasked (no ``backend=``)?"""
        return self.supports(x, spec)

    @abstractmethod
    def topk(self, x: Any, spec: TopKSpec) -> tuple[Any, Any]:
        """``(values, indices)`` for a validated spec."""

    @abstractmethod
    def gather(self, x: Any, index: Any, spec: GatherSpec) -> Any:
        """The gathered array for a validated spec (index values not yet checked)."""

    def sort(self, x: Any, spec: SortSpec, values: bool = True,
             indices: bool = True) -> tuple[Any, Any]:
        """``(values, indices)`` of the stable sort along ``spec.axis`` (``None`` for the one
        not asked for): ``x``'s shape, values of ``spec.out_dtype``, int64 indices.

        Equal keys keep index order in both directions; NaN is above +inf; -0.0
        equals +0.0; values keep their bits.  Engines that do not sort leave this
        method as it is (:meth:`computes` is then False).
        """
        raise NotImplementedError(f"engine {self.name!r} does not compute sort")

    def kthvalue(self, x: Any, spec: KthSpec) -> tuple[Any, Any]:
        """``(values, indices)`` of position ``spec.k - 1`` of the stable ascending sort:
        arrays of ``spec.out_shape``, values of ``spec.out_dtype``, int64 indices."""
        raise NotImplementedError(f"engine {self.name!r} does not compute kthvalue")

    def partition(self, x: Any, spec: PartitionSpec, values: bool = True,
                  indices: bool = True) -> tuple[Any, Any]:
        """``(values, indices)`` of the deterministic partition at ``spec.kth`` (``None``
        for the one not asked for): ``x``'s shape, int64 indices.

        Position ``kth`` holds the element of stable rank ``kth``; the elements
        between two kths (and before the first, after the last) are those of the
        ranks between, in their original index order.
        """
        raise NotImplementedError(f"engine {self.name!r} does not compute partition")

    def quantile(self, x: Any, spec: QuantileSpec, parts: bool = False) -> Any:
        """The quantiles of ``spec`` (quantile, nanquantile, nanmedian): an array of
        ``spec.out_shape`` and ``spec.out_dtype``, NumPy 2.4's formulas on the order
        statistics of the stable order (NaN last; skipped with ``spec.skipnan``).

        ``parts``: instead, what they are made of, ``(below, below_indices, above,
        above_indices, weights)``, each of ``spec.out_shape``: the order statistics read
        (``x``'s dtype, their bits kept), their int64 indices along the axis, and the
        weight of ``above`` (zeros where the method picks ``below``), for the fronts that
        interpolate themselves (torch's autograd and drop-ins) and nanmedian's index.
        """
        raise NotImplementedError(f"engine {self.name!r} does not compute quantile")

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
        >>> from axisops.requests import ArrayMeta
        >>> from axisops.rules.operations import topk_spec
        >>> spec = topk_spec(ArrayMeta((4,), np.dtype(int)), 2, 0, True, False, None)
        >>> get("numpy").topk_block(np.array([5, 7, 5, 1]), spec)
        (array([7, 5]), array([1, 0]))
        """
        n = block.shape[spec.axis]
        piece = spec.replace(shape=tuple(block.shape), dtype=block.dtype, sorted=True,
                             k=min(spec.k if k is None else k, n), index_dtype=PIECE_INDEX)
        return self.topk(block, piece)

    def gather_block(self, data: Any, index: Any, spec: GatherSpec) -> Any:
        """``gather(data, spec.dim, index)`` for one piece of a validated request.

        ``index.shape[d] <= data.shape[d]`` off ``spec.dim`` and index values
        valid for ``data`` (the caller checked or wrapped them).
        """
        piece = spec.replace(shape=tuple(data.shape), dtype=data.dtype,
                             index_shape=tuple(index.shape), index_dtype=native(index.dtype))
        return self.gather(data, index, piece)

    def __repr__(self) -> str:
        return f"<axisops engine {self.name!r}>"
