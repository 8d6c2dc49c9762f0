"""Backends: one module per implementation, found by :mod:`axisops.registry`.

Each module defines a :class:`~axisops.backends.base.Backend` subclass and a
module-level instance ``BACKEND``.  Modules import their heavy dependency
lazily, inside methods.
"""
