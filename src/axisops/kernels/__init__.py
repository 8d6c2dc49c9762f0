"""Compute kernels: Numba kernels for the CPU, Triton kernels for the GPU.

Kernels receive clean arguments only (validated specs, native-endian arrays);
they never validate user input themselves.
"""
