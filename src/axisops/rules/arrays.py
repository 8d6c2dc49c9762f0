"""Rules on array inputs an adapter cannot read as they are."""

from __future__ import annotations

from typing import Any, NoReturn

import numpy as np

from . import invalid, type_name

__all__ = ["check_known_chunks", "check_one_chunk", "refuse_array", "refuse_masked", "unreadable"]


def refuse_masked(name: str, x: Any) -> NoReturn:
    """Masked arrays are refused: their mask would be ignored (docs/contract.md)."""
    invalid(f"{name} is a masked array ({type(x).__module__}.{type(x).__name__}), "
            f"which axisops does not take (its mask would be ignored); pass {name}.filled(v) "
            f"to give masked elements the value v, np.ma.getdata({name}) to ignore the mask, "
            f"or {name}.compressed() for the unmasked elements as a 1-D array",
            name=name, value=x, allowed="an unmasked array")


def unreadable(name: str, x: Any, problem: str, need: str | None = None,
               short: bool = False) -> NoReturn:
    """``x`` cannot be read as an array of its family: ``problem`` says why, ``need`` what
    would do (``short`` names the type by its bare name)."""
    kind = type(x).__name__ if short else type_name(x)
    tail = f" ({need})" if need and not need.startswith(";") else (need or "")
    invalid(f"{name} of type {kind} {problem}{tail}", name=name, value=x,
            allowed=need or "an array")


def refuse_array(name: str, x: Any, problem: str) -> NoReturn:
    """An array of a family axisops reads, in a state it cannot read (``problem``)."""
    invalid(f"{name} {problem}", name=name, value=x, allowed="a readable array")


def check_known_chunks(name: str, shape: tuple[Any, ...]) -> tuple[int, ...]:
    """A dask array's shape, every size known."""
    for d, size in enumerate(shape):
        if isinstance(size, float) and np.isnan(size):
            invalid(f"{name} has unknown chunk sizes along axis {d} (shape {shape}); call "
                    f"{name}.compute_chunk_sizes() first", name=name, value=shape,
                    allowed="known chunk sizes")
    return tuple(int(s) for s in shape)


def check_one_chunk(name: str, chunks: tuple[int, ...], axis: int, what: str) -> None:
    """A dask array in one chunk along ``axis``, for ``what`` (sort, partition...), which
    cannot be done chunk by chunk; the message says how to rechunk."""
    if len(chunks) > 1:
        shown = chunks if len(chunks) <= 6 else (*chunks[:3], "...", *chunks[-2:])
        invalid(f"{name} has {len(chunks)} chunks along axis {axis} {shown}, and {what} "
                f"along a chunked axis would need every chunk at once; call "
                f"{name}.rechunk({{{axis}: -1}}) first (kthvalue and median need no rechunk)",
                name=name, value=chunks, axis=axis,
                allowed=f"one chunk along axis {axis} ({name}.rechunk({{{axis}: -1}}))")
