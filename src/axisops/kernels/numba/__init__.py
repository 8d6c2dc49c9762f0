"""The Numba CPU kernels: order keys, one file per top-k strategy, gather, and
how they are compiled (in the background, into a safe on-disk cache) and run."""
