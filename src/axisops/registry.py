"""The registry: which adapter and engine serve a call, picked once per call.

An array's *family* is the root module of its type (``numpy``, ``torch``,
``dask``...).  Each family has one adapter (:mod:`axisops.adapters`); arrays no
adapter claims (lists, scalars, unknown types) are NumPy's.  The adapter says
which array type its engines compute on for this array (NumPy for a CPU array,
torch for an accelerator one), and the engine is the named one
(``backend="name"``, checked against the adapter), or the available engine of
that type with the highest priority that takes the array by default.

Nothing below the public functions calls the registry again: pieces of a call
(merges, boxes, Dask tasks) run on the engine they are given.  The registry
imports no heavy dependency; adapters and engines import theirs when they run.
"""

from __future__ import annotations

import importlib
import threading
from typing import Any

from . import adapters, engines
from .adapters.base import Adapter
from .engines.base import Engine
from .errors import boundary
from .validation import backend_name, check_backend, check_new_backend, no_backend, type_name

__all__ = ["backends", "pick", "register_backend", "select"]

_lock = threading.RLock()
_by_family: dict[str, Adapter] = {}


def _adapters() -> dict[str, Adapter]:
    if not _by_family:
        with _lock:
            found: dict[str, Adapter] = {}
            for path in adapters.TABLE.values():
                module, _, attribute = path.partition(":")
                adapter = getattr(importlib.import_module(module), attribute)
                found.update(dict.fromkeys(adapter.families, adapter))
            _by_family.update(found)
    return _by_family


def _engines_for(adapter: Adapter, available_only: bool = True) -> list[str]:
    return [e.name for e in engines.all_engines()
            if e.array_type in adapter.engine_types and (e.available() or not available_only)]


def pick(x: Any, backend: Any = None) -> tuple[Adapter, Engine]:
    """The adapter and engine that run an operation on ``x``: the named engine, or the default.

    >>> import numpy as np
    >>> adapter, engine = pick(np.zeros(3), "numpy")
    >>> adapter.name, engine.name
    ('numpy', 'numpy')
    """
    root = type(x).__module__.partition(".")[0]
    if root == "torch":
        from .backends.legacy import while_compiling

        pair = while_compiling(x, backend)
        if pair is not None:
            return pair
    adapter = _adapters().get(root) or _by_family["numpy"]
    name = backend_name(backend)
    if name is not None:
        try:
            engine = engines.get(name)
        except KeyError:
            check_backend(name, known=engines.names())
        if engine.array_type not in adapter.engine_types:
            check_backend(name, for_type=(type_name(x), _engines_for(adapter)))
        if engine.missing():
            check_backend(name, missing=(engine.missing(), engine.extra))
        if engine.array_type != adapter.engine_type(x) or not engine.supports(x):
            check_backend(name, device_of=type_name(x))
        return adapter, engine
    for engine in engines.of_type(adapter.engine_type(x)):
        if engine.default_for(x):
            return adapter, engine
    no_backend(type_name(x), _engines_for(adapter, available_only=False))


def select(x: Any, backend: str | None = None) -> Any:
    """The engine :func:`pick` gives ``x``; for torch tensors, the old torch backend behind it.

    The torch operators (``axisops::topk`` and the others) look up their runner
    here until the torch path is rewritten.
    """
    engine = pick(x, backend)[1]
    return getattr(engine, "backend", engine)


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
