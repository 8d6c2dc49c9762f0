"""NumPy oracles of the selection family: slow, obviously correct, one small module per op.

Each is built on :func:`axisops.backends.numpy_backend.stable_order`, a stable argsort of
the contract's order (NaN above +inf, -0.0 equal to +0.0, integers exact, equal keys by
lower index in both directions), and takes values from the input itself so their bits
survive.  Every fast path of the core is tested against these bit for bit.
"""

from __future__ import annotations

from .kthvalue import kthvalue, median
from .partition import argpartition, partition
from .sort import argsort, sort

__all__ = ["argpartition", "argsort", "kthvalue", "median", "partition", "sort"]
