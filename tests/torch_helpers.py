"""NumPy <-> torch copies for the torch and Triton tests (bfloat16 through its bits)."""

import ml_dtypes
import numpy as np
import pytest

torch = pytest.importorskip("torch")

BF16 = np.dtype(ml_dtypes.bfloat16)


def to_torch(a: np.ndarray) -> torch.Tensor:
    """A torch copy of ``a`` (bfloat16 included, which ``torch.from_numpy`` refuses)."""
    a = np.ascontiguousarray(a)
    if a.dtype == BF16:
        return torch.from_numpy(a.view(np.int16).copy()).view(torch.bfloat16)
    return torch.from_numpy(a.copy())


def to_numpy(t: torch.Tensor) -> np.ndarray:
    """A NumPy view of a CPU tensor (bfloat16 as ml_dtypes.bfloat16)."""
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy().view(BF16)
    return t.numpy()
