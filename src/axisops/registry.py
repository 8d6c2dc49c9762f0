"""The registry: which engine serves a call, chosen once per call.

An array's *family* is the root module of its type (``numpy``, ``torch``,
``dask``...); its adapter (:func:`axisops.adapters.of`) says which array types of
engines can run it (NumPy engines for a CPU tensor, torch engines for any
tensor) and which is the default (by its device).  The engine is the named one
(``backend="name"``, checked against the adapter and the array), or the
available engine of the default type with the highest priority that takes the
array and the request by default.  Given the validated request (``spec``), an
engine that cannot take it (Triton's kernels and a 64-bit type, say) is passed
over for the next engine of its type that can, named or not.

The runner (:mod:`axisops.runner`) asks once per call, with the adapter it
looked up; so do the ``axisops::`` torch operators called directly
(:mod:`axisops.torch.library`).  Nothing below asks again: the pieces of a call
run the engine they are given, a Dask task the one whose name it carries
(:func:`axisops.engines.blocks.named`), and an engine that runs another on the
host (JAX's CPU programs) is given it here (:meth:`Engine.host_type
<axisops.engines.base.Engine>`).  The registry imports no heavy dependency;
adapters and engines import theirs when they run.  ``torch.compile`` traces
:func:`choose` (its table lookups are constants while it traces,
:mod:`axisops.tracing`), so a compiled program's first call may be the first call.
"""

from __future__ import annotations

from typing import Any

from . import adapters, engines
from ._forksafe import imported
from .adapters.base import Adapter
from .engines.base import Engine, Spec
from .errors import boundary
from .rules import type_name

__all__ = ["backends", "choose", "register_backend"]


def _engines_for(adapter: Adapter, available_only: bool = True) -> list[str]:
    return [e.name for e in engines.all_engines()
            if e.array_type in adapter.engine_types and (e.available() or not available_only)]


def _named(name: Any, x: Any, adapter: Adapter, a: Any) -> Engine:
    """The engine ``backend=name`` names, refused with the library's error unless it is
    one that can run ``x`` (``a``: as the adapter takes it)."""
    imported("axisops.rules.inputs")
    from .rules.inputs import (  # a call without backend= needs neither
        backend_name,
        check_backend,
    )

    name = backend_name(name)
    if name not in engines.names():
        check_backend(name, known=engines.names())
    engine = engines.get(name)
    if engine.array_type not in adapter.engine_types:
        check_backend(name, for_type=(type_name(x), _engines_for(adapter)))
    if engine.missing():
        check_backend(name, missing=(engine.missing(), engine.extra))
    if not adapter.accepts(x, engine.array_type) or not engine.supports(a):
        check_backend(name, device_of=type_name(x))
    return engine


def choose(x: Any, backend: Any = None, spec: Spec | None = None, *, a: Any = None,
           adapter: Adapter | None = None) -> Engine:
    """The engine that runs an operation on ``x``: the named one, or the default.

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
    adapter : Adapter, optional
        ``x``'s adapter, when the caller has it (:func:`axisops.adapters.of` by default).

    Examples
    --------
    >>> import numpy as np
    >>> choose(np.zeros(3), "numpy").name
    'numpy'
    """
    adapter = adapters.of(x) if adapter is None else adapter
    a = x if a is None else a
    if backend is not None:
        engine = _named(backend, x, adapter, a)
        if spec is None or (engine.computes(spec) and engine.supports(a, spec)):
            return _hosted(engine, spec)
        array_type = engine.array_type  # it cannot take this request: the default that can
    else:
        array_type = adapter.engine_type(x)
    for engine in engines.of_type(array_type):
        # An engine is never given an operation its class does not define, even where an
        # override of supports() forgets to ask computes().
        if (spec is None or engine.computes(spec)) and engine.default_for(a, spec):
            return _hosted(engine, spec)
    imported("axisops.rules.inputs")
    from .rules.inputs import no_backend

    no_backend(type_name(x), _engines_for(adapter, available_only=False))


def _hosted(engine: Engine, spec: Spec | None) -> Engine:
    """``engine``, running the default engine of its ``host_type`` that computes ``spec``
    where it runs one on the host."""
    if engine.host_type is None:
        return engine
    host = next(e for e in engines.of_type(engine.host_type)
                if spec is None or e.computes(spec))
    return engine.on_host(host)  # type: ignore[attr-defined]



def register_backend(backend: Engine, *, replace: bool = False) -> None:
    """Add a backend, under its name, for the arrays of its ``array_type``.

    A backend is an instance of an ``Engine`` subclass: the class that holds the code
    computing each operation for one array type (``axisops.engines``).

    Parameters
    ----------
    backend : axisops.engines.base.Engine
        A named instance; it becomes the default for its arrays if it has the
        highest priority among the available backends that take them.
    replace : bool, optional
        Replace a backend of the same name.

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
    imported("axisops.rules.inputs")
    from .rules.inputs import check_new_backend

    named = isinstance(backend, Engine) and bool(backend.name)
    check_new_backend(backend, named, named and backend.name in engines.names() and not replace)
    engines.register(backend)


def backends() -> list[str]:
    """Names of the backends that can run here: what ``backend=`` takes.

    Returns
    -------
    list of str
        Every backend whose dependencies are installed, by the array type it
        computes on, then priority; any of them may be named with ``backend=``
        (for the arrays it takes).

    Examples
    --------
    >>> import axisops
    >>> "numpy" in axisops.backends()
    True
    """
    return [e.name for e in engines.all_engines() if e.available()]
