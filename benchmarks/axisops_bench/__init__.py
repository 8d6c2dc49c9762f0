"""The benchmark behind ``axisops bench`` and ``benchmarks/bench.py``.

- :mod:`.cases`: the cases and their targets;
- :mod:`.peers`: axisops, the read floor and the peers (numpy, torch, jax);
- :mod:`.timing`: warm-up, rotating copies, medians;
- :mod:`.memory`: peak RSS growth of one call, in a subprocess;
- :mod:`.report`: ratios, verdicts, the table, JSON and the PNG chart.
"""
