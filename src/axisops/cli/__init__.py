"""The ``axisops`` command line (see :mod:`axisops.cli.main`)."""
