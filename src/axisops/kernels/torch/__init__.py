"""torch: the exact contract from stock torch operations (the ``"torch"`` engine's), and
torch dtypes (their NumPy names, same-width integer views)."""
