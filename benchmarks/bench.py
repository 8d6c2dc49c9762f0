"""CPU benchmark: axisops against numpy, torch, JAX and ONNX Runtime on the same inputs.

    python benchmarks/bench.py                 # every case (a few minutes on 2 cores)
    python benchmarks/bench.py --quick         # every case at 1/10-1/100 size
    python benchmarks/bench.py --memory        # also peak RSS growth on 400 MB inputs

The same as ``axisops bench``: the benchmark ships in the package (:mod:`axisops.bench`).
"""

import sys

from axisops.bench.main import main

if __name__ == "__main__":
    sys.exit(main())
