"""Engine internals that are not engines: the Triton, torch and JAX kernels, CPU cache sizes.

Kernels receive clean arguments only (validated specs, native-endian arrays);
they never validate user input themselves.  The engines that run them are in
:mod:`axisops.engines`; torch, Triton and JAX are imported by the kernels here,
which the engines import when they first run.
"""
