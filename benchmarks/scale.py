"""Scale benchmark: the Dask path against dask.array.topk/argtopk, and the CLI on a 2 GB file.

    python benchmarks/scale.py                   # Dask cases, then the CLI on a 2 GB file
    python benchmarks/scale.py --gigabytes 0.5   # a smaller file

The implementation is :mod:`axisops_bench.scale`.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from axisops_bench.scale import main

if __name__ == "__main__":
    sys.exit(main())
