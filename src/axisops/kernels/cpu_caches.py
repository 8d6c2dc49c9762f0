"""The data cache sizes of the CPU this process runs on, for kernels that adapt to them.

Read once, lazily, from Linux's ``/sys/devices/system/cpu/cpu<N>/cache`` for
the first CPU this process may run on; where that is not available (other
systems, containers that hide it) or unreadable, a conservative default
stands in: the smallest size of that level on common x86 and Arm cores, so
a kernel that switches a technique on above a cache size errs on the side
of using it.
"""

from __future__ import annotations

import os
from functools import cache
from typing import TYPE_CHECKING

from .._forksafe import imported

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["DEFAULT_BYTES", "data_cache_bytes", "parse_size"]

#: stand-ins when the system does not say: L1 32 KiB, L2 256 KiB, L3 2 MiB.
DEFAULT_BYTES = {1: 32 << 10, 2: 256 << 10, 3: 2 << 20}

_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def parse_size(text: str) -> int | None:
    """Bytes in a sysfs cache size such as ``"1024K"`` (None when it is not one).

    >>> parse_size("1024K"), parse_size("32M"), parse_size("?")
    (1048576, 33554432, None)
    """
    text = text.strip().upper().removesuffix("B")
    unit = text[-1:] if text[-1:] in _UNITS else ""
    digits = text[: len(text) - len(unit)]
    return int(digits) * _UNITS[unit] if digits.isdigit() and int(digits) > 0 else None


def _first_cpu() -> int:
    try:
        return min(os.sched_getaffinity(0))
    except (AttributeError, OSError, ValueError):  # no affinity masks on this platform
        return 0


def _read(level: int, root: Path) -> int | None:
    for entry in sorted(root.glob("index*")):
        try:
            if (int((entry / "level").read_text()) == level
                    and (entry / "type").read_text().strip() in ("Data", "Unified")):
                return parse_size((entry / "size").read_text())
        except (OSError, ValueError):
            continue
    return None


@cache
def data_cache_bytes(level: int) -> int:
    """Size in bytes of the level-``level`` data (or unified) cache of one core.

    >>> data_cache_bytes(2) >= 1024
    True
    """
    imported("pathlib")
    from pathlib import Path  # milliseconds of a fresh process: only once a gather asks

    root = Path(f"/sys/devices/system/cpu/cpu{_first_cpu()}/cache")
    found = _read(level, root) if root.is_dir() else None
    return found or DEFAULT_BYTES[level]
