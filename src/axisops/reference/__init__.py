"""The reference implementations: one small, obviously correct NumPy file per operation.

In the manner of ONNX's reference operators: each file states its operation
with whole-array NumPy calls (a stable sort, ``take_along_axis``) and nothing
clever, so that reading it is checking it.  The ``"numpy"`` engine
(:mod:`axisops.engines.numpy`) runs them, and every fast path is tested against
them bit for bit.
"""

from __future__ import annotations

from .kthvalue import kthvalue, median
from .partition import argpartition, partition
from .quantile import nanmedian, quantile
from .sort import argsort, sort

__all__ = ["argpartition", "argsort", "kthvalue", "median", "nanmedian", "partition", "quantile",
           "sort"]
