"""JAX: exact top-k and gather in ``lax`` operations, and top-k on the host's CPU engine
through a buffer callback (the ``"jax"`` engine's)."""
