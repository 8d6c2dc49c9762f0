"""Scale benchmark: the Dask path against dask.array.topk/argtopk, and the CLI on a 2 GB file.

    python benchmarks/scale.py                   # Dask cases, then the CLI on a 2 GB file
    python benchmarks/scale.py --gigabytes 0.5   # a smaller file

The implementation ships in the package: :mod:`axisops.bench.scale`.
"""

import sys

from axisops.bench.scale import main

if __name__ == "__main__":
    sys.exit(main())
