"""Rules on labelled arrays (:mod:`axisops.xarray`): the object, ``dim``, the names a result
adds, and a labelled gather index.

xarray is never imported here: the front hands over the names and sizes it read.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from typing import Any

from . import invalid, type_name

__all__ = ["check_dim", "check_free_name", "check_index_dims", "need_labelled",
           "need_labelled_index"]


def _names(names: Iterable[Hashable]) -> str:
    shown = ", ".join(repr(n) for n in names)
    return shown or "none"


def need_labelled(name: str, value: Any) -> None:
    """``value`` must be an ``xarray.DataArray`` or ``xarray.Dataset``."""
    module = type(value).__module__.partition(".")[0]
    if module != "xarray" or type(value).__name__ not in ("DataArray", "Dataset"):
        invalid(f"{name} of type {type_name(value)} is not an xarray.DataArray or "
                f"xarray.Dataset (axisops.topk and the others take unlabelled arrays)",
                name=name, value=value, allowed="an xarray.DataArray or xarray.Dataset")


def check_dim(dim: Any, dims: tuple[Hashable, ...], what: str = "the DataArray") -> Hashable:
    """``dim`` must name one of ``dims`` (the object's dimensions).

    >>> check_dim("x", ("y", "x"))
    'x'
    """
    try:
        found = dim in dims
    except TypeError:  # an unhashable dim
        found = False
    if not found:
        invalid(f"dim={dim!r} is not a dimension of {what} (dimensions: {_names(dims)})",
                name="dim", value=dim, allowed=f"one of {_names(dims)}")
    return dim


def check_free_name(name: Hashable, taken: Iterable[Hashable], why: str) -> None:
    """A name a result adds (``'x_rank'``, ``'quantile'``) must not be one the object already
    uses for a dimension or a coordinate."""
    if name in set(taken):
        invalid(f"the result needs a dimension named {name!r} ({why}), and the input already "
                f"has a dimension or coordinate of that name; rename it first "
                f"(obj.rename({{{name!r}: ...}}))",
                name="dim", value=name, allowed=f"an object without {name!r}")


def need_labelled_index(value: Any) -> None:
    """A Dataset's gather index must be labelled: its dimensions say how it lines up with
    each variable's."""
    invalid(f"index of type {type_name(value)} has no dimension names; a Dataset is gathered "
            f"with an xarray.DataArray index (its dimensions name which of the Dataset's "
            f"it runs along)", name="index", value=value, allowed="an xarray.DataArray")


def check_index_dims(dim: Hashable, index_sizes: Mapping[Hashable, int],
                     sizes: Mapping[Hashable, int]) -> Hashable | None:
    """The dimension of a labelled gather index that holds positions along ``dim``: ``dim``
    itself or the one dimension the object lacks (None: the index has neither, and picks
    one element per sequence).  Its other dimensions must have the object's sizes.

    >>> check_index_dims("x", {"y": 2, "x_rank": 3}, {"y": 2, "x": 5})
    'x_rank'
    """
    along = [d for d in index_sizes if d == dim or d not in sizes]
    if len(along) > 1:
        invalid(f"index has {len(along)} dimensions that are not the object's other "
                f"dimensions ({_names(along)}); it may have one, holding the positions along "
                f"dim={dim!r}", name="index", value=tuple(index_sizes),
                allowed=f"dimensions among {_names(sizes)} and at most one other")
    for d, n in index_sizes.items():
        if d not in along and n != sizes[d]:
            invalid(f"index has size {n} along dimension {d!r}, where the object has "
                    f"{sizes[d]} (need the same size)", name="index", value=tuple(index_sizes),
                    dim=d, size=sizes[d], allowed=f"size {sizes[d]} along {d!r}")
    return along[0] if along else None
