"""The backend registry: which implementation serves which array.

Backends are found lazily, the first time an operation runs, by scanning the
:mod:`axisops.backends` package for modules that define ``BACKEND`` (see
:class:`axisops.backends.base.Backend`).  Third-party code may add its own with
:func:`register_backend`.

An array's *family* is the root module of its type (``numpy``, ``torch``,
``dask``...).  The default backend for an array is the available backend of its
family with the highest priority whose ``accepts(x)`` is true; arrays no backend
claims (lists, scalars, unknown types) belong to the ``numpy`` family.
``backend="name"`` overrides the choice, within the array's family.
"""

from __future__ import annotations

import importlib
import pkgutil
import threading
from typing import Any

from .backends.base import Backend
from .errors import InvalidArgumentError, boundary

__all__ = ["all_backends", "backends", "get_backend", "register_backend", "select"]

_lock = threading.RLock()
_registry: dict[str, Backend] = {}
_discovered = False
_candidate_cache: dict[str, list[Backend]] = {}
_claimed: dict[str, bool] = {}


def _discover() -> None:
    global _discovered
    with _lock:
        if _discovered:
            return
        # Not ``from . import backends``: the package attribute is the function.
        package = importlib.import_module(f"{__package__}.backends")
        for info in pkgutil.iter_modules(package.__path__):
            if info.name in ("base", "numpy_family") or info.name.startswith("_"):
                continue
            module = importlib.import_module(f"{package.__name__}.{info.name}")
            backend = getattr(module, "BACKEND", None)
            if isinstance(backend, Backend) and backend.name not in _registry:
                _add(backend)
        _discovered = True


@boundary("register_backend")
def _add(backend: Backend) -> None:
    """Register ``backend``, and give it the resolver it hands converted arrays to (a
    backend never imports this module: see :meth:`Backend.delegate`)."""
    backend.resolver = _default_backend
    _registry[backend.name] = backend


def _default_backend(x: Any) -> Backend:
    return select(x)


def register_backend(backend: Backend, *, replace: bool = False) -> None:
    """Add a backend, for arrays of the families it names.

    Parameters
    ----------
    backend : axisops.backends.base.Backend
        A named instance; it becomes the default for its arrays if it has the
        highest priority among the available backends that accept them.
    replace : bool, optional
        Replace a registered backend of the same name.

    Raises
    ------
    InvalidArgumentError
        Not a named ``Backend``, or the name is taken and ``replace`` is false.

    Examples
    --------
    >>> import axisops
    >>> from axisops.backends.numpy_backend import NumpyBackend
    >>> class Mine(NumpyBackend):
    ...     name = "mine"
    ...     priority = -1
    >>> axisops.register_backend(Mine())
    >>> "mine" in axisops.backends()
    True
    """
    if not isinstance(backend, Backend) or not backend.name:
        raise InvalidArgumentError(
            f"backend={backend!r} is not a named axisops Backend instance"
        )
    _discover()
    with _lock:
        if backend.name in _registry and not replace:
            raise InvalidArgumentError(
                f"a backend named {backend.name!r} exists "
                f"(pass replace=True to replace it)"
            )
        _add(backend)
        _candidate_cache.clear()
        _claimed.clear()


def all_backends() -> list[Backend]:
    """Every registered backend, available or not, by family then priority."""
    _discover()
    with _lock:
        found = list(_registry.values())
    return sorted(found, key=lambda b: (b.array_modules, -b.priority, b.name))


def backends() -> list[str]:
    """Names of the backends that can run here.

    Returns
    -------
    list of str
        Every registered backend whose dependencies are installed, by array
        family then priority; any of them may be named with ``backend=``.

    Examples
    --------
    >>> import axisops
    >>> "numpy" in axisops.backends()
    True
    """
    return [b.name for b in all_backends() if b.available()]


def get_backend(name: str) -> Backend:
    """The registered backend called ``name`` (available or not)."""
    _discover()
    try:
        return _registry[name]
    except (KeyError, TypeError):
        known = ", ".join(sorted(_registry))
        raise InvalidArgumentError(f"backend={name!r} is not a backend (known: {known})") from None


def family(x: Any) -> str:
    """The array family of ``x``: its type's root module, if a backend claims it."""
    root = type(x).__module__.partition(".")[0]
    if root not in _candidate_cache:
        _candidates(root)
    return root if _claimed.get(root) else "numpy"


def _serves(backend: Backend, fam: str) -> bool:
    return fam in backend.array_modules or (fam == "numpy" and "builtins" in backend.array_modules)


def select(x: Any, backend: str | None = None) -> Backend:
    """The backend that runs an operation on ``x``: the named one, or the default."""
    fam = family(x)
    if backend is not None:
        if not isinstance(backend, str):
            raise InvalidArgumentError(
                f"backend={backend!r} is not a backend name (need a str or None)"
            )
        chosen = get_backend(backend)
        if not _serves(chosen, fam):
            raise InvalidArgumentError(
                f"backend={backend!r} does not take {_type_name(x)} inputs "
                f"(backends for them: {', '.join(_names_for(fam)) or 'none'})"
            )
        missing = chosen.missing()
        if missing:
            hint = f" (pip install 'axisops[{chosen.extra}]')" if chosen.extra else ""
            raise InvalidArgumentError(
                f"backend={backend!r} is not available here: "
                f"{', '.join(missing)} is not installed{hint}"
            )
        if not chosen.accepts(x):
            raise InvalidArgumentError(
                f"backend={backend!r} cannot take this {_type_name(x)} "
                f"(for example its device)"
            )
        return chosen
    for candidate in _candidates(fam):
        if candidate.default_for(x):
            return candidate
    raise InvalidArgumentError(
        f"no installed backend takes {_type_name(x)} inputs "
        f"(registered for them: {', '.join(_names_for(fam, available_only=False)) or 'none'})"
    )


def _candidates(fam: str) -> list[Backend]:
    cached = _candidate_cache.get(fam)
    if cached is None:
        registered = [b for b in all_backends() if _serves(b, fam)]
        _claimed[fam] = bool(registered)
        cached = [b for b in registered if b.available()]
        _candidate_cache[fam] = cached
    return cached


def _names_for(fam: str, available_only: bool = True) -> list[str]:
    return [
        b.name for b in all_backends() if _serves(b, fam) and (b.available() or not available_only)
    ]


def _type_name(x: Any) -> str:
    t = type(x)
    return f"{t.__module__}.{t.__qualname__}"
