"""The scale benchmark: the Dask path against dask's own top-k, and the CLI on big files.

- **Dask**: :func:`axisops.topk` on a chunked ``dask.array`` against
  ``dask.array.topk`` + ``dask.array.argtopk`` (values and indices, as ours
  gives), on the same array with the same scheduler; both are checked against
  the NumPy oracle on tie-heavy data, where dask's tie order depends on the
  chunks.
- **Dask quantile**: :func:`axisops.quantile` along the chunked axis 0 of a float64
  (20000, 20000) array in (2000, 2000) chunks, persisted on a ``LocalCluster`` of 2
  workers with 1 thread each, against ``da.max(axis=0)`` on the same cluster.
- **Jumping index**: ``axisops gather`` of a 64 MB ``x`` in 256 KiB chunks at a
  sorted and at a random index (the random one's time as a multiple of the sorted).
- **CLI**: ``axisops topk``, ``quantile`` and ``gather`` in a subprocess on a
  ``.npy`` file of ``--gigabytes`` GB (2 by default), along each axis: wall
  time, throughput (input GB / s) and the process's peak resident memory
  (``VmHWM``, which counts mapped file pages like ``ru_maxrss`` but is not
  inherited from the parent across ``exec``).  The file is written just
  before; how much of it the page cache still holds, and how fast outputs
  reach the disk, depends on the machine, so the throughput is an I/O figure
  as much as a CPU one.

    python -m axisops.bench.scale [--gigabytes 2] [--dir /tmp] [--json scale.json]
    python benchmarks/scale.py ...                 # the same, from a checkout
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["cli_runs", "dask_quantile_run", "dask_runs", "main"]

#: The quantiles of the Dask and CLI quantile runs (the benchmark's quantile rows').
QUANTILES = (0.01, 0.5, 0.99)

#: Runs the CLI, then prints its own peak RSS (see :mod:`.memory` for why not ru_maxrss).
_RSS_CHILD = """
import sys
from axisops.bench.memory import peak_rss_mb
from axisops.cli.main import main
status = main(sys.argv[1:])
print(int(peak_rss_mb()), file=sys.stderr)
sys.exit(status)
"""


def _median_time(fn: Any, repeats: int) -> float:
    fn()
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _exact(got: tuple[np.ndarray, np.ndarray], want: Any) -> bool:
    return bool(np.array_equal(got[0], want.values) and np.array_equal(got[1], want.indices))


def dask_runs(repeats: int = 3) -> list[dict[str, Any]]:
    """axisops' Dask path against dask's topk/argtopk, timed and checked."""
    import dask
    import dask.array as da

    import axisops

    rng = np.random.default_rng(0)
    cases = [
        ("float32 (2000, 50000) chunks (500, 10000), k=10 on axis 1",
         rng.standard_normal((2000, 50_000), dtype=np.float32), (500, 10_000), 10, 1),
        ("float32 (100M,) chunks 10M, k=100",
         rng.standard_normal(100_000_000, dtype=np.float32), (10_000_000,), 100, 0),
        ("int8 ties (4000, 20000) chunks (1000, 3000), k=50 on axis 1",
         rng.integers(-3, 3, (4000, 20_000), dtype=np.int8), (1000, 3000), 50, 1),
    ]
    rows = []
    with dask.config.set(scheduler="threads"):
        for name, data, chunks, k, axis in cases:
            x = da.from_array(data, chunks=chunks)
            want = axisops.topk(data, k, axis)

            def ours(x=x, k=k, axis=axis) -> tuple[np.ndarray, np.ndarray]:
                v, i = axisops.topk(x, k, axis)
                return dask.compute(v, i)

            def theirs(x=x, k=k, axis=axis) -> tuple[np.ndarray, np.ndarray]:
                return dask.compute(da.topk(x, k, axis=axis), da.argtopk(x, k, axis=axis))

            t_ours, t_theirs = _median_time(ours, repeats), _median_time(theirs, repeats)
            rows.append({"case": name, "nbytes": data.nbytes, "axisops_s": t_ours,
                         "dask_s": t_theirs, "speedup": t_theirs / t_ours,
                         "axisops_exact": _exact(ours(), want),
                         "dask_exact": _exact(theirs(), want)})
    return rows


def dask_quantile_run(shape: tuple[int, int] = (20_000, 20_000),
                      chunks: tuple[int, int] = (2000, 2000), repeats: int = 3) -> dict[str, Any]:
    """:func:`axisops.quantile` along axis 0 of a float64 array chunked along it, persisted
    on a ``distributed.LocalCluster`` of 2 workers with 1 thread each, against
    ``da.max(axis=0)`` of the same array on the same cluster (one pass, the floor a
    reduction along the chunked axis can reach); checked against NumPy's quantile."""
    import dask.array as da
    from distributed import Client, LocalCluster

    import axisops

    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None, memory_limit=0) as cluster, Client(cluster):
        x = da.random.default_rng(3).standard_normal(shape, chunks=chunks).persist()
        q = list(QUANTILES)

        def ours() -> np.ndarray:
            return axisops.quantile(x, q, axis=0).compute()

        def peak() -> np.ndarray:
            return x.max(axis=0).compute()

        t_ours, t_max = _median_time(ours, repeats), _median_time(peak, repeats)
        got = ours()
        column = slice(0, min(shape[1], 2000))
        want = np.quantile(x[:, column].compute(), q, axis=0)
        exact = bool(np.array_equal(got[:, column], want))
    return {"case": f"float64 {shape} chunks {chunks}, q {q} along axis 0, LocalCluster "
                    "2 workers x 1 thread", "nbytes": int(np.prod(shape)) * 8,
            "axisops_s": t_ours, "max_s": t_max, "ratio_to_max": t_ours / t_max,
            "exact": exact}


def _write_big(path: Path, shape: tuple[int, ...], dtype: str, high: int) -> None:
    """A .npy of ``shape`` written in slabs, never whole in memory."""
    rng = np.random.default_rng(1)
    out = np.lib.format.open_memmap(path, mode="w+", dtype=dtype, shape=shape)
    step = max(1, shape[0] // 64)
    for i in range(0, shape[0], step):
        rows = min(step, shape[0] - i)
        if np.dtype(dtype).kind == "f":
            out[i:i + rows] = rng.standard_normal((rows, *shape[1:]), dtype=np.float32)
        else:
            out[i:i + rows] = rng.integers(0, high, (rows, *shape[1:]), dtype=dtype)
    out.flush()
    del out


def _cli(*args: str) -> dict[str, Any]:
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _RSS_CHILD, *args], capture_output=True,
                          text=True, timeout=1800)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"axisops {' '.join(args)} failed: {proc.stderr.strip()}")
    record = json.loads(proc.stdout.strip().splitlines()[-1])
    return {"wall_s": wall, "seconds": record["seconds"], "chunks": record["chunks"],
            "peak_rss_mb": int(proc.stderr.strip().splitlines()[-1])}


def cli_runs(folder: Path, gigabytes: float) -> list[dict[str, Any]]:
    """``axisops topk`` / ``gather`` on a file of ``gigabytes`` GB, along each axis."""
    cols = 10_000
    rows = int(gigabytes * 1e9 / (4 * cols))
    x = folder / "big.npy"
    index = folder / "big_index.npy"
    _write_big(x, (rows, cols), "float32", 0)
    _write_big(index, (rows, 1000), "int64", cols)
    x_gb, i_gb = x.stat().st_size / 1e9, index.stat().st_size / 1e9
    out = []
    for k, axis in ((100, "1"), (100, "0"), (1000, "1"), (1000, "0")):
        run = _cli("topk", str(x), "-k", str(k), "--axis", axis, "--no-progress",
                   "-o", str(folder / "big.topk.npz"))
        out.append({"command": f"axisops topk -k {k} --axis {axis}",
                    "input": f"float32 {rows}x{cols}", "input_gb": x_gb,
                    "gb_per_s": x_gb / run["seconds"], **run})
    for axis in ("1", "0"):
        run = _cli("quantile", str(x), "-q", *map(str, QUANTILES), "--axis", axis,
                   "--no-progress", "-o", str(folder / "big.quantile.npy"))
        out.append({"command": f"axisops quantile -q {' '.join(map(str, QUANTILES))} "
                               f"--axis {axis}",
                    "input": f"float32 {rows}x{cols}", "input_gb": x_gb,
                    "gb_per_s": x_gb / run["seconds"], **run})
    run = _cli("gather", str(x), str(index), "--dim", "1", "--no-progress",
               "-o", str(folder / "big.gather.npy"))
    out.append({"command": "axisops gather --dim 1", "input": f"int64 index {rows}x1000",
                "input_gb": i_gb, "gb_per_s": i_gb / run["seconds"], **run})
    return out


def jumping_runs(folder: Path) -> list[dict[str, Any]]:
    """``axisops gather`` of a (16M, 1) float32 ``x`` (64 MB) at a 2M index, sorted and
    random, in 256 KiB chunks: ``x`` is far over a chunk, so every index box reads blocks
    of it; a random index used to make each box read most of ``x`` again (8.5x)."""
    n, m = 16_000_000, 2_000_000
    rng = np.random.default_rng(2)
    x, out = folder / "jump_x.npy", folder / "jump.out.npy"
    np.save(x, rng.standard_normal((n, 1), dtype=np.float32))
    index = rng.integers(0, n, size=(m, 1))
    rows = []
    for pattern, values in (("sorted", np.sort(index, axis=0)), ("random", index)):
        path = folder / f"jump_{pattern}.npy"
        np.save(path, values)
        run = _cli("gather", str(x), str(path), "--dim", "0", "--chunk-bytes", "256KiB",
                   "--no-progress", "-o", str(out))
        rows.append({"command": "axisops gather --dim 0 --chunk-bytes 256KiB",
                     "input": f"float32 ({n}, 1), {pattern} int64 index ({m}, 1)",
                     "pattern": pattern, **run})
    rows[1]["ratio_to_sorted"] = rows[1]["seconds"] / rows[0]["seconds"]
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--gigabytes", type=float, default=2.0, help="size of the CLI's input file")
    p.add_argument("--dir", default=None, help="where to write the big files (default: temp)")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--json", default="scale.json")
    p.add_argument("--skip-dask", action="store_true")
    p.add_argument("--skip-dask-quantile", action="store_true",
                   help="skip the quantile on a LocalCluster (a 3.2 GB array)")
    p.add_argument("--skip-cli", action="store_true")
    p.add_argument("--skip-jumping", action="store_true",
                   help="skip the streamed gather at a sorted and a random index")
    args = p.parse_args(argv)
    report: dict[str, Any] = {"dask": [], "dask_quantile": None, "cli": [], "jumping": []}
    if not args.skip_dask:
        report["dask"] = dask_runs(args.repeats)
        print("# Dask: axisops.topk against dask.array.topk + argtopk (threaded scheduler)")
        for r in report["dask"]:
            print(f"{r['case']:<62} axisops {r['axisops_s'] * 1e3:8.1f} ms  dask "
                  f"{r['dask_s'] * 1e3:8.1f} ms  {r['speedup']:5.2f}x  exact: axisops "
                  f"{r['axisops_exact']}, dask {r['dask_exact']}")
    if not args.skip_dask_quantile:
        r = report["dask_quantile"] = dask_quantile_run(repeats=args.repeats)
        print(f"\n# Dask quantile: {r['case']}\naxisops {r['axisops_s']:7.2f} s   "
              f"da.max(axis=0) {r['max_s']:7.2f} s   {r['ratio_to_max']:.2f}x the max   "
              f"exact: {r['exact']}")
    if not args.skip_cli:
        with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
            report["cli"] = cli_runs(Path(tmp), args.gigabytes)
        print(f"\n# CLI on a {args.gigabytes:g} GB file, just written")
        for r in report["cli"]:
            print(f"{r['command']:<34} {r['input']:<26} {r['seconds']:7.2f} s  "
                  f"{r['gb_per_s']:5.2f} GB/s  peak RSS {r['peak_rss_mb']} MB  "
                  f"({r['chunks']} chunks)")
    if not args.skip_jumping:
        with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
            report["jumping"] = jumping_runs(Path(tmp))
        print("\n# streamed gather of a 64 MB x in 256 KiB chunks, the index sorted or not")
        for r in report["jumping"]:
            print(f"{r['input']:<52} {r['seconds']:7.2f} s  peak RSS {r['peak_rss_mb']} MB"
                  + (f"  ({r['ratio_to_sorted']:.2f}x sorted)" if "ratio_to_sorted" in r
                     else ""))
    Path(args.json).write_text(json.dumps(report, indent=1) + "\n")
    print(f"\nwrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
