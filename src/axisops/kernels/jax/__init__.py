"""JAX: exact top-k and gather from ``lax`` operations, for traced code."""
