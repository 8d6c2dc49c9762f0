"""The torch, Triton and JAX backends, until they are rewritten as adapters and engines.

Each module here both adapts arrays and computes (:class:`~axisops.backends.base.Backend`);
:mod:`axisops.backends.legacy` shows them to the registry as adapters and engines.
Every other array family is served by :mod:`axisops.adapters` and
:mod:`axisops.engines`.  (``axisops.backends``, the attribute, is the public
function listing engine names: this package is imported under its full name.)
"""
