"""The request runner: every call's one way down, from the user's array to its result.

Every front (the public functions of :mod:`axisops.api`, the torch drop-ins of
:mod:`axisops.torch`, :class:`~axisops.StreamingTopK` and the file jobs of
:mod:`axisops.streaming`; the DirectML and Ascend facades through the public
functions) runs a call as one :class:`Call`::

    call = Call(x, backend)                           # adapters.of(x), adapter.take
    spec = topk_spec(call.meta(), k, axis, ...)       # the rules, on x's shape and dtype
    values, indices = call.run(spec)                  # choose, compute, from_engine

:meth:`Call.run` asks the registry for the engine once, with the adapter looked
up once, runs it on the arrays as the adapter hands them over, and gives the
result back in ``x``'s type.  A call torch could observe (autograd, compile,
transforms: :meth:`Adapter.observed <axisops.adapters.base.Adapter.observed>`) runs
the ``axisops::`` torch operator instead (:mod:`axisops.torch.library`), with the
name of the engine chosen here, which the operator runs without choosing again.
A front that cuts its request into pieces (a stream, a file job) asks for its
engine with :func:`engine_for` and runs the pieces on it itself.
"""

from __future__ import annotations

from typing import Any

from . import adapters, registry
from ._forksafe import imported
from .adapters.base import Adapter
from .engines.base import Engine
from .requests import BOTH, ArrayMeta, Spec

__all__ = ["Call", "engine_for"]


class Call:
    """One call on its way down: the user's array ``x``, its adapter and ``x`` taken.

    Parameters
    ----------
    x : array_like
        The user's array (named ``x`` in messages).
    backend : str, optional
        ``backend=``: an engine's name, or None for the registry's default.
    adapter : Adapter, optional
        The adapter to take ``x`` with (``x``'s family's by default).
    """

    __slots__ = ("a", "adapter", "backend", "x")

    def __init__(self, x: Any, backend: str | None = None, adapter: Adapter | None = None):
        self.x, self.backend = x, backend
        self.adapter = adapters.of(x) if adapter is None else adapter
        self.a = self.adapter.take(x, "x")

    def meta(self, a: Any = None, name: str = "x") -> ArrayMeta:
        """Shape and dtype of ``x`` taken (or of ``a``, another taken array: the index)."""
        return self.adapter.meta(self.a if a is None else a, name)

    def index(self, index: Any, name: str = "index") -> Any:
        """A gather index, taken beside ``x``."""
        return self.adapter.index(index, self.a, name)

    def broadcast_to(self, shape: tuple[int, ...]) -> None:
        """``x`` taken is broadcast to ``shape`` from now on (``take_along_axis``)."""
        self.a = self.adapter.broadcast_to(self.a, shape)

    def reshape(self, shape: tuple[int, ...]) -> None:
        """``x`` taken is reshaped to ``shape`` from now on (``axis=None`` flattens it)."""
        self.a = self.adapter.reshape(self.a, shape)

    def engine(self, spec: Spec | None = None) -> Engine:
        """The engine that runs this call (for ``spec``, when there is one)."""
        return registry.choose(self.x, self.backend, spec, a=self.a, adapter=self.adapter)

    def run(self, spec: Spec, index: Any = None, want: tuple[bool, bool] = BOTH, *,
            function: str = "gather", sparse_grad: bool = False) -> Any:
        """The result of ``spec`` for this call, in ``x``'s type.

        Parameters
        ----------
        spec : TopKSpec, GatherSpec, SortSpec, KthSpec, PartitionSpec or QuantileSpec
            The validated request.
        index : array, optional
            A gather's index, taken (:meth:`index`); for a quantile, the caller's tensor of
            probabilities where its spec holds none of their values (a torch drop-in
            under ``torch.compile``).
        want : (bool, bool), optional
            Which of a sort's or partition's values and indices to compute (``None``
            comes back for the other).
        function : str, optional
            The public function of a gather (``"gather"`` or ``"take_along_axis"``),
            for the torch operator that records it by name.
        sparse_grad : bool, optional
            A sparse gradient for a torch gather (only its operator makes one).
        """
        engine = self.engine(spec)
        if sparse_grad or self.adapter.observed(self.a, index):
            imported("axisops.torch", "axisops.torch.library")
            from .torch import library  # registers the axisops:: operators when first run

            result = library.run(spec, engine.name, self.a, index, want, function, sparse_grad)
            return self.adapter.from_engine(result, self.x, spec)
        return self.adapter.compute(engine, spec, self.a, self.x, index, want)


def engine_for(like: Any, backend: str | None = None) -> Engine:
    """The engine that runs the pieces of a request on arrays like ``like`` (``backend=``:
    its name, None for the default): for fronts that cut a request into pieces."""
    return Call(like, backend).engine()
