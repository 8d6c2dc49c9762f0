"""A smoke test of an installed axisops (run by cibuildwheel on every wheel it builds).

Every instruction-set level of the compiled core this machine runs computes top-k and
gather of every dtype, tie-heavy, with NaN and signed zeros, and must agree with the
NumPy oracle bit for bit.
"""

from __future__ import annotations

import numpy as np

import axisops
from axisops import _core


def main() -> None:
    rng = np.random.default_rng(0)
    dtypes = ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64",
              "float16", "float32", "float64"]
    for level in _core.available_levels():
        _core.kernels = _core.load(level)
        for name in dtypes:
            x = rng.integers(0, 5, (50, 300)).astype(name)
            if x.dtype.kind == "f":
                x[::7, 3] = np.nan
                x[::5, 4] = -0.0
            for k, axis in ((1, 1), (7, 1), (300, 1), (5, 0)):
                got = axisops.topk(x, k, axis)
                want = axisops.topk(x, k, axis, backend="numpy")
                assert got.values.tobytes() == want.values.tobytes(), (level, name, k)
                assert np.array_equal(got.indices, want.indices), (level, name, k)
            index = rng.integers(-300, 300, (50, 40))
            assert (axisops.gather(x, 1, index).tobytes()
                    == axisops.gather(x, 1, index, backend="numpy").tobytes()), (level, name)
        print(f"axisops {axisops.__version__}: {level} level exact")


if __name__ == "__main__":
    main()
