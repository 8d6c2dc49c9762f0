"""Arrays on disk for the streaming tests: every container the engine reads, big files,
and the peak memory of a child process."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from importlib.util import find_spec
from pathlib import Path

import numpy as np
import pytest
from hypothesis import strategies as st

from strategies import BF16, TOPK_DTYPES, arrays

#: Every way an input may be stored (zarr where installed; imported only to write one).
CONTAINERS = ["npy-C", "npy-F", "npz", "npz-compressed"] + (["zarr"] if find_spec("zarr") else [])
FILE_TOPK_DTYPES = [d for d in TOPK_DTYPES if d != BF16]  # .npy has no bfloat16


def listing(folder):
    """The names in ``folder``, sorted (to check what a command left there)."""
    return sorted(p.name for p in Path(folder).iterdir())


def zarr_chunks(shape):
    return tuple(max(1, (s + 1) // 2) for s in shape)


def least_chunk_bytes(x, container):
    """The smallest chunk size a container allows (a zarr chunk must fit in it)."""
    if container != "zarr" or not x.size:
        return 1
    return int(np.prod(zarr_chunks(x.shape))) * x.dtype.itemsize


@st.composite
def stored_topk_requests(draw):
    """A tie-heavy array, a top-k request on it, a container and a chunk size it allows."""
    x = draw(arrays(dtypes=FILE_TOPK_DTYPES, max_dims=3, max_side=7))
    axis = draw(st.integers(-x.ndim, x.ndim - 1))
    k = draw(st.integers(0, x.shape[axis]))
    container = draw(st.sampled_from(CONTAINERS if x.dtype.kind != "b" or x.size
                                     else CONTAINERS[:4]))  # zarr cannot store empty bools
    least = least_chunk_bytes(x, container)
    chunk_bytes = draw(st.integers(least, least + 2 * x.nbytes + 8))
    return x, axis, k, draw(st.booleans()), container, chunk_bytes


def save(folder, name, x, container):
    """Store ``x`` as ``container`` in ``folder``; the path (and key) to read it back."""
    path = Path(folder) / name
    if container == "npy-C":
        np.save(path.with_suffix(".npy"), np.ascontiguousarray(x))
        return str(path.with_suffix(".npy")), None
    if container == "npy-F":
        np.save(path.with_suffix(".npy"), np.asfortranarray(x))
        return str(path.with_suffix(".npy")), None
    if container == "npz":
        np.savez(path.with_suffix(".npz"), other=np.zeros(1), data=np.asfortranarray(x))
        return str(path.with_suffix(".npz")), "data"
    if container == "npz-compressed":
        np.savez_compressed(path.with_suffix(".npz"), data=x)
        return str(path.with_suffix(".npz")), None
    import zarr

    z = zarr.create_array(store=str(path.with_suffix(".zarr")), shape=x.shape, dtype=x.dtype,
                          chunks=zarr_chunks(x.shape))
    z[...] = x
    return str(path.with_suffix(".zarr")), None


def big_file(path, shape, dtype, seed):
    """A .npy of ``shape`` written in slabs (never whole in memory)."""
    rng = np.random.default_rng(seed)
    out = np.lib.format.open_memmap(path, mode="w+", dtype=dtype, shape=shape)
    step = max(1, shape[0] // 8)
    for i in range(0, shape[0], step):
        out[i:i + step] = rng.integers(-50, 50, size=(min(step, shape[0] - i), *shape[1:]))
    out.flush()
    del out


# The child's own peak (VmHWM, mapped file pages included): ru_maxrss would carry the
# pytest process's larger peak across exec and hide any growth.
_PEAK = textwrap.dedent("""
    import sys
    {code}
    with open("/proc/self/status") as f:
        hwm = next(line for line in f if line.startswith("VmHWM:"))
    print(int(hwm.split()[1]) // 1024, file=sys.stderr)
    sys.exit(status)
""")

#: tests that read a child's peak resident memory from /proc (Linux only).
linux_memory_probe = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                        reason="the peak RSS probe reads /proc (Linux)")


def peak_mb(code, *args):
    """Run ``code`` (which sets ``status``) in a child with ``args``; its stdout and peak MB."""
    proc = subprocess.run([sys.executable, "-c", _PEAK.format(code=code), *map(str, args)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout, int(proc.stderr.strip().splitlines()[-1])
