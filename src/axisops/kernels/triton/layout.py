"""The layouts the Triton gather kernel walks: at most four dimensions after coalescing.

Light on purpose (no torch, no Triton): the ``"triton"`` engine asks :func:`fits`
before the registry picks it, and the kernel walks what :func:`coalesce` gives.
"""

from __future__ import annotations

from ...requests import GatherSpec

__all__ = ["MAX_RANK", "coalesce", "fits"]

#: The dimensions the gather kernel walks.
MAX_RANK = 4


def coalesce(shape: tuple[int, ...], strides: tuple[int, ...], dim: int
             ) -> tuple[list[int], list[int], int]:
    """Fewest dimensions that walk ``shape`` in row-major order over ``strides``.

    Size-1 dimensions are dropped and neighbours merged when the outer stride
    is the inner one times the inner size; ``dim`` is never merged.

    >>> coalesce((2, 3, 4, 5), (60, 20, 5, 1), 1)
    ([2, 3, 20], [60, 20, 1], 1)
    """
    sizes: list[int] = []
    steps: list[int] = []
    new_dim = 0
    for d, (size, step) in enumerate(zip(shape, strides)):
        if d == dim:
            sizes.append(size)
            steps.append(step)
            new_dim = len(sizes) - 1
            continue
        if size == 1:
            continue
        prev_is_dim = sizes and len(sizes) - 1 == new_dim and d > dim
        if sizes and not prev_is_dim and steps[-1] == size * step:
            sizes[-1] *= size
            steps[-1] = step
        else:
            sizes.append(size)
            steps.append(step)
    return sizes, steps, new_dim


def fits(spec: GatherSpec, strides: tuple[int, ...]) -> bool:
    """Whether the gather kernel can walk ``x`` (of ``strides``, in elements) for ``spec``.

    >>> import numpy as np
    >>> spec = GatherSpec((2, 3, 4, 5, 6), np.dtype("f4"), 0, (2, 3, 4, 5, 6), np.dtype("i8"))
    >>> fits(spec, (360, 120, 30, 6, 1)), fits(spec, (1, 2, 6, 24, 120))
    (True, False)
    """
    return len(coalesce(spec.index_shape, strides, spec.dim)[0]) <= MAX_RANK
