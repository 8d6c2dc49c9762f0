"""``DMLError`` and the HRESULT values the DirectML-style API reports.

>>> from axisops import directml as dml
>>> err = dml.DMLError(dml.E_INVALIDARG, "create_operator(TOP_K1): k=0 is out of range")
>>> hex(err.hresult), str(err)
('0x80070057', 'E_INVALIDARG (0x80070057): create_operator(TOP_K1): k=0 is out of range')
"""

from __future__ import annotations

from ..errors import AxisOpsError

__all__ = [
    "DXGI_ERROR_DEVICE_REMOVED",
    "DXGI_ERROR_UNSUPPORTED",
    "E_INVALIDARG",
    "DMLError",
    "invalid_arg",
]

#: A descriptor or argument breaks a rule (winerror.h).
E_INVALIDARG = 0x80070057
#: The device was removed after call-time misuse (dxgi.h).
DXGI_ERROR_DEVICE_REMOVED = 0x887A0005
#: The requested feature level is not supported (dxgi.h).
DXGI_ERROR_UNSUPPORTED = 0x887A0004

_NAMES = {
    E_INVALIDARG: "E_INVALIDARG",
    DXGI_ERROR_DEVICE_REMOVED: "DXGI_ERROR_DEVICE_REMOVED",
    DXGI_ERROR_UNSUPPORTED: "DXGI_ERROR_UNSUPPORTED",
}


class DMLError(AxisOpsError):
    """A failed DirectML-style call: ``hresult`` (an int) and the debug-layer ``message``."""

    def __init__(self, hresult: int, message: str) -> None:
        super().__init__(hresult, message)
        self.hresult = hresult
        self.message = message

    @property
    def name(self) -> str:
        """The HRESULT's symbolic name, e.g. ``"E_INVALIDARG"``."""
        return _NAMES.get(self.hresult, "HRESULT")

    def __str__(self) -> str:
        return f"{self.name} (0x{self.hresult:08X}): {self.message}"


def invalid_arg(message: str) -> DMLError:
    """A ``DMLError(E_INVALIDARG, message)`` to raise."""
    return DMLError(E_INVALIDARG, message)
