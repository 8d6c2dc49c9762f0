"""The Triton GPU kernels (packed-key top-k, fused gather)."""
