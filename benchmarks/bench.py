"""CPU benchmark: axisops against numpy, torch and jax on the same inputs, in one process.

    python benchmarks/bench.py                 # every case (a few minutes on 2 cores)
    python benchmarks/bench.py --quick         # every case at 1/10-1/100 size
    python benchmarks/bench.py --memory        # also peak RSS growth on 400 MB inputs

The same as ``axisops bench``; the implementation is :mod:`axisops_bench`.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from axisops_bench.main import main

if __name__ == "__main__":
    sys.exit(main())
