"""torch: the exact path from stock torch operations, dtypes, and the ``axisops::``
custom operators."""
