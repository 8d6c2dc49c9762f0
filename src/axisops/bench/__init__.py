"""The benchmark behind ``axisops bench`` (and ``benchmarks/bench.py`` in a checkout).

It ships with the package, so ``axisops bench`` works wherever axisops is
installed; the peers it times (torch, JAX, ONNX Runtime) and the chart
(matplotlib) are imported only when used, and missing ones are named with the
extra that installs them (``pip install 'axisops[bench]'``).

- :mod:`.cases`: the cases and their targets;
- :mod:`.peers`: axisops, the read floor and the peers (numpy, torch, jax);
- :mod:`.timing`: warm-up, rotating copies, medians;
- :mod:`.memory`: peak RSS growth of one call, in a subprocess;
- :mod:`.report`: ratios, verdicts, the table, JSON and the PNG chart;
- :mod:`.frameworks`: the rows inside torch and JAX programs;
- :mod:`.scale`: the Dask path and the command line on a large file.
"""
