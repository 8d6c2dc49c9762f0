"""Rules on what a call is handed besides its arguments: arrays an adapter cannot read
as they are, and ``backend=`` (and the engines registered by name)."""

from __future__ import annotations

from typing import Any, NoReturn

import numpy as np

from . import invalid, type_name

__all__ = ["backend_name", "check_backend", "check_known_chunks", "check_new_backend",
           "check_one_chunk", "no_backend", "refuse_array", "refuse_masked", "unreadable"]


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


def check_one_chunk(name: str, chunks: tuple[int, ...], axis: int, what: str,
                    ndim: int | None = None) -> None:
    """A dask array in one chunk along ``axis``, for ``what`` (sort, partition...), which
    cannot be done chunk by chunk; the message says how to rechunk.  A 1-D array (``ndim``)
    may be the user's ``x`` flattened (``axis=None``): its advice, ``x.rechunk(-1)``, holds
    for the ``x`` that was flattened too."""
    if len(chunks) > 1:
        shown = chunks if len(chunks) <= 6 else (*chunks[:3], "...", *chunks[-2:])
        fix = f"{name}.rechunk(-1)" if ndim == 1 else f"{name}.rechunk({{{axis}: -1}})"
        flat = f" (with axis=None: {name} in one chunk)" if ndim == 1 else ""
        invalid(f"{name} has {len(chunks)} chunks along axis {axis} {shown}, and {what} "
                f"along a chunked axis would need every chunk at once; call {fix} first"
                f"{flat} (kthvalue and median need no rechunk)",
                name=name, value=chunks, axis=axis,
                allowed=f"one chunk along axis {axis} ({fix})")


def backend_name(value: Any) -> str | None:
    """The ``backend`` argument: a name or None."""
    if value is None or isinstance(value, str):
        return value
    invalid(f"backend={value!r} is not a backend name (need a str or None)", name="backend",
            value=value, allowed="a str or None")


def check_backend(value: str, *, known: list[str] | None = None,
                  for_type: tuple[str, list[str]] | None = None,
                  missing: tuple[tuple[str, ...], str] | None = None,
                  device_of: str | None = None) -> None:
    """Refuse ``backend=value`` for the first reason given: not a ``known`` name; not one
    that takes arrays of a type (``for_type``: the type's name and the names that do);
    its modules ``missing`` (and the pip extra that installs them); or it cannot take
    this array of type ``device_of`` (its device, say)."""
    fields = dict(name="backend", value=value)
    if known is not None:
        invalid(f"backend={value!r} is not a backend (known: {', '.join(sorted(known))})",
                allowed=", ".join(sorted(known)), **fields)
    if for_type is not None:
        type_name, names = for_type
        invalid(f"backend={value!r} does not take {type_name} inputs "
                f"(backends for them: {', '.join(names) or 'none'})",
                allowed=", ".join(names), **fields)
    if missing is not None:
        modules, extra = missing
        hint = f" (pip install 'axisops[{extra}]')" if extra else ""
        invalid(f"backend={value!r} is not available here: "
                f"{', '.join(modules)} is not installed{hint}", allowed="an installed backend",
                **fields)
    invalid(f"backend={value!r} cannot take this {device_of} (for example its device)",
            allowed="a backend for this array", **fields)


def no_backend(type_name: str, registered: list[str]) -> NoReturn:
    """No installed backend takes arrays of ``type_name``."""
    invalid(f"no installed backend takes {type_name} inputs "
            f"(registered for them: {', '.join(registered) or 'none'})",
            name="x", value=type_name, allowed=", ".join(registered))


def check_new_backend(engine: Any, is_engine: bool, taken: bool) -> None:
    """``register_backend``: a named engine, under a name not taken (unless replacing)."""
    if not is_engine:
        invalid(f"backend={engine!r} is not a named axisops Engine instance", name="backend",
                value=engine, allowed="an axisops.engines.base.Engine instance")
    if taken:
        invalid(f"a backend named {engine.name!r} exists (pass replace=True to replace it)",
                name="backend", value=engine.name, allowed="a new name, or replace=True")
