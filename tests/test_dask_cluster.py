"""Top-k and gather on a real ``distributed.LocalCluster`` of two worker processes
(the session's ``client`` fixture, see conftest.py)."""

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

dask = pytest.importorskip("dask")
pytest.importorskip("distributed")

import dask.array as da
from distributed import wait

import axisops
from axisops.cli.main import main

from oracle import assert_same_bits
from strategies import tie_heavy


def _uneven(n, seed):
    rng = np.random.default_rng(seed)
    cuts = np.unique(rng.integers(1, n, size=4))
    return tuple(np.diff([0, *cuts, n]).tolist())


CHUNKINGS = ("ones", "uneven", "single")


def _chunks(kind, shape, seed):
    if kind == "ones":
        return (1,) * len(shape)
    if kind == "single":
        return shape
    return tuple(_uneven(n, seed + d) for d, n in enumerate(shape))


def test_topk_on_the_cluster_for_one_element_uneven_and_single_chunks(client):
    cases, lazy = [], []
    for dtype in ("float32", "int64"):
        x = tie_heavy(dtype, (3, 14), len(cases))
        for kind in CHUNKINGS:
            d = da.from_array(x, chunks=_chunks(kind, x.shape, 2))
            for axis, largest, k in ((1, True, 5), (0, False, 2), (1, False, 14)):
                with dask.config.set(split_every=3):
                    lazy.append(axisops.topk(d, k, axis, largest=largest))
                cases.append(axisops.topk(x, k, axis, largest=largest, backend="numpy"))
    results = client.compute(lazy, sync=True)
    assert len(results) == len(cases) == 18
    for (values, indices), want in zip(results, cases):
        assert_same_bits(values, want.values)
        assert_same_bits(indices, want.indices)


def test_gather_on_the_cluster_with_numpy_and_dask_indices(client):
    cases, lazy = [], []
    for dtype in ("float64",):
        x = tie_heavy(dtype, (4, 12), 3)
        index = np.random.default_rng(4).integers(-12, 12, size=(3, 17))
        for kind in CHUNKINGS:
            d = da.from_array(x, chunks=_chunks(kind, x.shape, 5))
            for idx in (index, da.from_array(index, chunks=_chunks(kind, index.shape, 6))):
                lazy.append(axisops.gather(d, 1, idx))
                cases.append(axisops.gather(x, 1, index, backend="numpy"))
    for got, want in zip(client.compute(lazy, sync=True), cases, strict=True):
        assert_same_bits(got, want)


def test_out_of_range_index_raises_the_core_error_through_the_cluster(client):
    index = np.zeros((3, 4), np.int32)
    index[2, 1] = -9
    out = axisops.gather(da.zeros((3, 8), chunks=2), 1, da.from_array(index, chunks=2))
    with pytest.raises(axisops.IndexOutOfRangeError,
                       match=r"^gather\(\): index\[2, 1\]=-9 is out of range for dim 1 of size 8"):
        client.compute(out, sync=True)


def test_a_worker_killed_mid_computation_still_gives_the_exact_result(client):
    x = tie_heavy("float32", (4, 240), 7)

    def slow(block):
        time.sleep(0.02)
        return block

    d = da.from_array(x, chunks=(2, 5)).map_blocks(slow, meta=x[:0, :0])
    r = axisops.topk(d, 9, axis=1)
    futures = client.compute([r.values, r.indices])
    pids = client.run(os.getpid)
    victim = next(iter(pids.values()))
    deadline = time.monotonic() + 30
    while not any(client.processing().values()) and time.monotonic() < deadline:
        time.sleep(0.01)
    time.sleep(0.2)
    assert not all(f.done() for f in futures)
    os.kill(victim, signal.SIGKILL)
    values, indices = client.gather(futures)
    assert not all(f.status == "error" for f in futures)
    want = axisops.topk(x, 9, axis=1, backend="numpy")
    assert_same_bits(values, want.values)
    assert_same_bits(indices, want.indices)
    wait(futures)
    assert victim not in client.run(os.getpid).values()


# -- the command line's --scheduler ----------------------------------------------------

def _axisops(*args):
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    env.pop("AXISOPS_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "axisops", *map(str, args)],
                          capture_output=True, text=True, env=env, timeout=120)


def test_cli_topk_on_the_cluster_matches_numpy(client, tmp_path):
    x = tie_heavy("float64", (30, 41), 8)
    np.save(tmp_path / "x.npy", np.asfortranarray(x))
    address = client.scheduler.address
    proc = _axisops("topk", tmp_path / "x.npy", "-k", "7", "--axis", "0", "--smallest",
                    "--chunk-bytes", "512", "--scheduler", address, "-o", tmp_path / "o.npz")
    assert proc.returncode == 0, proc.stderr
    record = json.loads(proc.stdout)
    assert record["scheduler"] == address and record["backend"] == "dask"
    assert record["chunks"] > 1
    want = axisops.topk(x, 7, 0, largest=False, backend="numpy")
    with np.load(tmp_path / "o.npz") as z:
        assert_same_bits(z["values"], want.values)
        assert_same_bits(z["indices"], want.indices)


def test_cli_gather_and_zarr_on_the_cluster_match_numpy(client, tmp_path, capsys):
    zarr = pytest.importorskip("zarr")
    x = tie_heavy("int16", (12, 20), 9)
    index = np.random.default_rng(10).integers(-20, 20, size=(9, 33))
    z = zarr.create_array(store=str(tmp_path / "x.zarr"), shape=x.shape, dtype=x.dtype,
                          chunks=(5, 6))
    z[...] = x
    np.save(tmp_path / "i.npy", index)
    address = client.scheduler.address
    assert main(["gather", str(tmp_path / "x.zarr"), str(tmp_path / "i.npy"), "--dim", "1",
                 "--chunk-bytes", "300", "--scheduler", address,
                 "-o", str(tmp_path / "g.npy")]) == 0
    assert json.loads(capsys.readouterr().out)["chunks"] > 1
    assert_same_bits(np.load(tmp_path / "g.npy"), axisops.gather(x, 1, index, backend="numpy"))
    assert main(["topk", str(tmp_path / "x.zarr"), "-k", "4", "--scheduler", address,
                 "--chunk-bytes", "100", "-o", str(tmp_path / "t.npz")]) == 0
    with np.load(tmp_path / "t.npz") as out:
        assert_same_bits(out["indices"], axisops.topk(x, 4, backend="numpy").indices)


def test_cli_errors_on_the_cluster_write_nothing(client, tmp_path, capsys):
    np.save(tmp_path / "x.npy", np.arange(30.0).reshape(3, 10))
    bad = np.zeros((3, 40), np.int64)
    bad[1, 33] = 10
    np.save(tmp_path / "i.npy", bad)
    address = client.scheduler.address
    status = main(["gather", str(tmp_path / "x.npy"), str(tmp_path / "i.npy"), "--dim", "1",
                   "--scheduler", address, "--chunk-bytes", "64", "-o", str(tmp_path / "o.npy")])
    err = capsys.readouterr().err
    assert status == 1 and "gather(): index[1, 33]=10 is out of range for dim 1 of size 10" in err
    for address, needle in [("tcp://127.0.0.1:1", "cannot connect"),
                            ("no-port-here", "not a scheduler address")]:
        status = main(["topk", str(tmp_path / "x.npy"), "-k", "1", "--scheduler", address,
                       "-o", str(tmp_path / "o.npz")])
        err = capsys.readouterr().err
        assert status == 1 and needle in err and len(err.strip().splitlines()) == 1
    status = main(["topk", str(tmp_path / "x.npy"), "-k", "1", "--scheduler",
                   client.scheduler.address, "--backend", "torch", "-o", str(tmp_path / "o.npz")])
    err = capsys.readouterr().err  # --backend names what runs the blocks: a NumPy backend
    assert status == 1 and "backend='torch' does not take numpy.ndarray inputs" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["i.npy", "x.npy"]


def test_cli_backend_is_the_one_the_workers_run_on_their_blocks(client, tmp_path, capsys):
    """Every block's task on the workers runs the engine --backend names (a spy on each
    worker's one lookup below the registry: tasks look their engine up by the name they
    carry, or None for the worker's default)."""
    def spy(on):
        from axisops.engines import blocks

        if on and not hasattr(blocks, "spied"):
            blocks.spied, blocks.seen = blocks.named, []

            def named(name):
                chosen = blocks.spied(name)
                blocks.seen.append(chosen.name)
                return chosen

            blocks.named = named
        elif not on and hasattr(blocks, "spied"):
            blocks.named = blocks.spied
            del blocks.spied
        seen, blocks.seen = getattr(blocks, "seen", []), []
        return seen

    x = tie_heavy("float64", (20, 33), 11)
    index = np.random.default_rng(12).integers(-33, 33, size=(20, 15))
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "i.npy", index)
    address = client.scheduler.address
    default = axisops.registry.choose(x).name
    forced = "numpy" if default != "numpy" else "cpu"
    client.run(spy, True)
    try:
        for backend, want in ((forced, {forced}), (None, {default})):
            extra = [] if backend is None else ["--backend", backend]
            assert main(["topk", str(tmp_path / "x.npy"), "-k", "6", "--axis", "0",
                         "--chunk-bytes", "400", "--scheduler", address, *extra,
                         "-o", str(tmp_path / "t.npz")]) == 0
            record = json.loads(capsys.readouterr().out)
            assert record["backend"] == "dask" and record["block_backend"] == backend
            assert main(["gather", str(tmp_path / "x.npy"), str(tmp_path / "i.npy"), "--dim",
                         "1", "--chunk-bytes", "400", "--scheduler", address, *extra,
                         "-o", str(tmp_path / "g.npy")]) == 0
            capsys.readouterr()
            seen = [name for names in client.run(spy, True).values() for name in names]
            assert len(seen) > 4 and set(seen) == want, seen
            with np.load(tmp_path / "t.npz") as z:
                want_topk = axisops.topk(x, 6, 0, backend="numpy")
                assert_same_bits(z["values"], want_topk.values)
                assert_same_bits(z["indices"], want_topk.indices)
            assert_same_bits(np.load(tmp_path / "g.npy"),
                             axisops.gather(x, 1, index, backend="numpy"))
    finally:
        client.run(spy, False)
