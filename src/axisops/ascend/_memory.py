"""The emulated address space: device allocations and registered host buffers.

A pointer is a plain Python ``int`` that the emulator hands out and never
dereferences.  Each region (a device allocation from ``acl.rt.malloc`` or a
host buffer registered by ``acl.util.numpy_to_ptr`` / ``bytes_to_ptr``) gets a
base address of its own, and C-style arithmetic works: ``ptr + n`` for
``0 <= n <= size`` resolves to ``(region, n)``.  Bases are never reused and
regions are separated by guard gaps, so a pointer past one region never lands
in another, and a pointer to freed memory never resolves again.  Every access
goes through :meth:`AddressSpace.span`, which checks the whole byte range
before any byte is touched.

>>> space = AddressSpace()
>>> region = space.allocate(16)
>>> hex(region.base), region.size
('0x100000000000', 16)
>>> space.span(region.base + 4, 12, want="device", write=True, name="dst").size
12
>>> space.span(region.base + 4, 13, want="device", write=True, name="dst")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
axisops.ascend._memory.MemoryFault: dst=0x100000000004 with count=13 runs past the end of ...
"""

from __future__ import annotations

from bisect import bisect_right, insort
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

import numpy as np

from ._boundary import is_int, show

#: Where device allocations start in the emulated address space.
DEVICE_BASE = 0x1000_0000_0000
#: Where registered host buffers start.
HOST_BASE = 0x7000_0000_0000
#: The emulated device's memory (64 GiB, an Ascend 910B's HBM); malloc beyond it fails.
DEVICE_MEMORY_BYTES = 64 << 30
# Regions start on 2 MiB boundaries and are followed by at least 2 MiB of unmapped space.
_GRANULE = 0x20_0000
# How many freed ranges are remembered, to say "freed" rather than "unknown".
_FREED_MEMORY = 4096


class MemoryFault(Exception):
    """A pointer or byte range no region owns, or an access it does not allow."""


@dataclass(eq=False)
class Region:
    """One owned byte range: ``data`` is a 1-D uint8 array over exactly its bytes."""

    space: str  # "device" or "host"
    base: int
    data: np.ndarray
    owner: Any = None  # the registered host object, kept alive while registered

    @property
    def size(self) -> int:
        """Length in bytes."""
        return int(self.data.size)

    @property
    def writable(self) -> bool:
        """False for read-only host buffers (``bytes``, read-only arrays)."""
        return bool(self.data.flags.writeable)

    def describe(self) -> str:
        """E.g. ``"the 32-byte device allocation at 0x100000000000"``."""
        what = "device allocation" if self.space == "device" else "registered host buffer"
        return f"the {self.size}-byte {what} at {self.base:#x}"


def _round_up(n: int) -> int:
    return -(-max(n, 1) // _GRANULE) * _GRANULE


class AddressSpace:
    """Every region the emulator owns, by base address; not thread-safe on its own."""

    def __init__(self) -> None:
        self._regions: dict[int, Region] = {}
        self._bases: list[int] = []
        self._next = {"device": DEVICE_BASE, "host": HOST_BASE}
        self._host_owners: dict[int, Region] = {}
        self._freed: OrderedDict[int, tuple[str, int]] = OrderedDict()
        self.device_bytes = 0

    # --- creating and releasing regions ------------------------------------------
    def _add(self, space: str, data: np.ndarray, owner: Any = None) -> Region:
        base = self._next[space]
        self._next[space] = base + _round_up(data.size) + _GRANULE
        region = Region(space, base, data, owner)
        self._regions[base] = region
        insort(self._bases, base)
        return region

    def allocate(self, size: int) -> Region:
        """A new zero-filled device allocation of ``size`` bytes.

        Raises ``MemoryError`` when the emulated device (or the host) is out of memory.
        """
        if self.device_bytes + size > DEVICE_MEMORY_BYTES:
            raise MemoryError(f"{self.device_bytes} of {DEVICE_MEMORY_BYTES} bytes are in use")
        data = np.zeros(size, np.uint8)  # calloc: pages are only touched when written
        self.device_bytes += size
        return self._add("device", data)

    def register_host(self, owner: Any, data: np.ndarray) -> Region:
        """The region of host object ``owner`` (whose bytes are ``data``); one per object."""
        known = self._host_owners.get(id(owner))
        if known is not None and known.owner is owner:
            return known
        region = self._add("host", data, owner)
        self._host_owners[id(owner)] = region
        return region

    def release(self, region: Region) -> None:
        """Forget ``region``: its addresses never resolve again."""
        del self._regions[region.base]
        self._bases.pop(bisect_right(self._bases, region.base) - 1)
        if region.space == "device":
            self.device_bytes -= region.size
        else:
            self._host_owners.pop(id(region.owner), None)
        self._freed[region.base] = (region.space, region.size)
        while len(self._freed) > _FREED_MEMORY:
            self._freed.popitem(last=False)

    def regions(self, space: str | None = None) -> list[Region]:
        """The live regions (of one space, or all), in address order."""
        found = (self._regions[b] for b in self._bases)
        return [r for r in found if space is None or r.space == space]

    # --- resolving pointers -----------------------------------------------------------
    def region_at(self, ptr: Any) -> Region | None:
        """The region whose base is exactly ``ptr``, or None."""
        return self._regions.get(ptr) if is_int(ptr) else None

    def resolve(self, ptr: Any) -> tuple[Region, int] | None:
        """``(region, offset)`` with ``0 <= offset <= region.size``, or None."""
        if not is_int(ptr) or not self._bases:
            return None
        ptr = int(ptr)
        i = bisect_right(self._bases, ptr) - 1
        if i < 0:
            return None
        region = self._regions[self._bases[i]]
        offset = ptr - region.base
        return (region, offset) if offset <= region.size else None

    def explain(self, name: str, ptr: Any) -> str:
        """Why ``ptr`` resolves to nothing, as a message fragment starting with ``name``."""
        if not is_int(ptr):
            return f"{show(name, ptr)} is not a pointer (need an int)"
        if ptr == 0:
            return f"{name} is NULL (0)"
        for base, (space, size) in reversed(self._freed.items()):
            if base <= ptr <= base + size:
                what = "device allocation" if space == "device" else "host registration"
                return (f"{name}={int(ptr):#x} points into the {size}-byte {what} at {base:#x}, "
                        f"which was freed")
        return (f"{name}={int(ptr):#x} is not owned by any device allocation or registered "
                f"host buffer")

    def span(self, ptr: Any, count: int, *, want: str, write: bool, name: str) -> np.ndarray:
        """The ``count`` bytes at ``ptr`` as a uint8 view, after checking every rule.

        ``want`` is the space the pointer must be in ("device" or "host");
        ``write`` asks for a writable range.  Raises :class:`MemoryFault`
        naming ``name``, the pointer and the rule broken.
        """
        found = self.resolve(ptr)
        if found is None:
            raise MemoryFault(self.explain(name, ptr))
        region, offset = found
        if region.space != want:
            raise MemoryFault(f"{name}={int(ptr):#x} is {region.space} memory, in "
                              f"{region.describe()}, but {want} memory is needed here")
        if offset + count > region.size:
            raise MemoryFault(f"{name}={int(ptr):#x} with count={count} runs past the end of "
                              f"{region.describe()} (offset {offset}, need offset + count <= "
                              f"{region.size})")
        if write and not region.writable:
            raise MemoryFault(f"{name}={int(ptr):#x} is in {region.describe()}, which is "
                              f"read-only")
        return region.data[offset:offset + count]
