"""The registry: which engine serves a call, picked once per call.

An array's *family* is the root module of its type (``numpy``, ``torch``,
``dask``...); its adapter (:func:`axisops.adapters.of`) says which array types of
engines can run it (NumPy engines for a CPU tensor, torch engines for any
tensor) and which is the default (by its device).  The engine is the named one
(``backend="name"``, checked against the adapter and the array), or the
available engine of the default type with the highest priority that takes the
array and the request by default.  Given the validated request (``spec``), an
engine that cannot take it (Triton's kernels and a 64-bit type, say) is passed
over for the next engine of its type that can, named or not.

Nothing below the public functions calls the registry again: pieces of a call
(merges, boxes, Dask tasks, the torch operators' kernels, the JAX host callback)
run on the engine they are given, or find it by name in the engine table.  The
registry imports no heavy dependency; adapters and engines import theirs when
they run.  ``torch.compile`` traces :func:`pick` (its table lookups are constants
while it traces, :mod:`axisops.tracing`), so a compiled program's first call may
be the first call.
"""

from __future__ import annotations

from typing import Any

from . import adapters, engines
from .adapters.base import Adapter
from .engines.base import Engine, Spec
from .errors import boundary
from .rules import type_name
from .rules.backends import backend_name, check_backend, check_new_backend, no_backend

__all__ = ["backends", "pick", "register_backend"]


def _engines_for(adapter: Adapter, available_only: bool = True) -> list[str]:
    return [e.name for e in engines.all_engines()
            if e.array_type in adapter.engine_types and (e.available() or not available_only)]


def _named(name: str) -> Engine:
    try:
        return engines.get(name)
    except KeyError:
        check_backend(name, known=engines.names())
        raise  # not reached: check_backend raised


def pick(x: Any, backend: Any = None, spec: Spec | None = None,
         a: Any = None) -> tuple[Adapter, Engine]:
    """The adapter and engine that run an operation on ``x``: the named engine, or the default.

    Parameters
    ----------
    x : array_like
        The user's array (its family names the adapter; its type names it in errors).
    backend : str, optional
        An engine's name (``backend=``), or None for the default.
    spec : TopKSpec, GatherSpec, SortSpec, KthSpec or PartitionSpec, optional
        The validated request, when there is one: engines that cannot take it are
        passed over.
    a : array, optional
        ``x`` as the adapter takes it (:meth:`~axisops.adapters.base.Adapter.take`),
        which the engines are asked about; ``x`` itself by default.

    Examples
    --------
    >>> import numpy as np
    >>> adapter, engine = pick(np.zeros(3), "numpy")
    >>> adapter.name, engine.name
    ('numpy', 'numpy')
    """
    adapter = adapters.of(x)
    a = x if a is None else a
    name = backend_name(backend)
    if name is not None:
        engine = _named(name)
        if engine.array_type not in adapter.engine_types:
            check_backend(name, for_type=(type_name(x), _engines_for(adapter)))
        if engine.missing():
            check_backend(name, missing=(engine.missing(), engine.extra))
        if not adapter.accepts(x, engine.array_type) or not engine.supports(a):
            check_backend(name, device_of=type_name(x))
        if spec is None or (engine.computes(spec) and engine.supports(a, spec)):
            return adapter, engine
        array_type = engine.array_type  # it cannot take this request: the default that can
    else:
        array_type = adapter.engine_type(x)
    for engine in engines.of_type(array_type):
        # An engine is never given an operation its class does not define, even where an
        # override of supports() forgets to ask computes().
        if (spec is None or engine.computes(spec)) and engine.default_for(a, spec):
            return adapter, engine
    no_backend(type_name(x), _engines_for(adapter, available_only=False))


def register_backend(backend: Engine, *, replace: bool = False) -> None:
    """Add an engine, under its name, for the arrays of its ``array_type``.

    Parameters
    ----------
    backend : axisops.engines.base.Engine
        A named instance; it becomes the default for its arrays if it has the
        highest priority among the available engines that take them.
    replace : bool, optional
        Replace an engine of the same name.

    Raises
    ------
    InvalidArgumentError
        Not a named ``Engine``, or the name is taken and ``replace`` is false.

    Examples
    --------
    >>> import axisops
    >>> from axisops.engines.numpy import NumpyEngine
    >>> class Mine(NumpyEngine):
    ...     name = "mine"
    ...     priority = -1
    >>> axisops.register_backend(Mine())
    >>> "mine" in axisops.backends()
    True
    """
    _register(backend, replace)


@boundary("register_backend")
def _register(backend: Any, replace: bool) -> None:
    named = isinstance(backend, Engine) and bool(backend.name)
    check_new_backend(backend, named, named and backend.name in engines.names() and not replace)
    engines.register(backend)


def backends() -> list[str]:
    """Names of the engines that can run here.

    Returns
    -------
    list of str
        Every engine whose dependencies are installed, by the array type it
        computes on, then priority; any of them may be named with ``backend=``
        (for the arrays it takes).

    Examples
    --------
    >>> import axisops
    >>> "numpy" in axisops.backends()
    True
    """
    return [e.name for e in engines.all_engines() if e.available()]
