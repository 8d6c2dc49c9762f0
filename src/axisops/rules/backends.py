"""Rules on ``backend=`` and on engines registered by name."""

from __future__ import annotations

from typing import Any, NoReturn

from . import invalid

__all__ = ["backend_name", "check_backend", "check_new_backend", "no_backend"]


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
