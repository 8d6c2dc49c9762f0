"""The quantile of a file read in chunks: ``axisops.streaming.jobs.quantile_job`` and the
``axisops quantile`` command, bit for bit :func:`axisops.quantile` (and ``nanquantile``)
of the whole array, whether the chunks span the axis (each read once) or cut it (the
exact radix select in passes over the file, :mod:`axisops.streaming.order_stats`)."""

import json
import warnings

import numpy as np
import pytest

import axisops
from axisops.streaming.jobs import Options, quantile_job
from subprocess_helpers import run_cli as run
from test_cli import failed, ok

#: Tie-heavy data with NaN, -0.0 and +0.0, the least and greatest of the type.
CASES = [
    ("float32", (7, 3000), 1),
    ("float64", (4, 700, 6), 1),
    ("int64", (3000, 5), 0),
    ("uint8", (5, 4000), -1),
    ("float16", (3, 2, 700), -1),
]
METHODS = ["linear", "lower", "higher", "nearest", "midpoint", "hazen", "inverted_cdf",
           "closest_observation"]


def _data(dtype: str, shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    x = rng.integers(-4, 5, size=shape).astype(dtype)
    flat = x.reshape(-1)
    info = np.finfo(dtype) if x.dtype.kind == "f" else np.iinfo(dtype)
    flat[::97], flat[5::101] = info.max, info.min
    if x.dtype.kind == "f":
        flat[x.reshape(-1) == 3] = np.nan
        flat[1::89], flat[2::83] = -0.0, 0.0
    return x


def _want(x, q, axis, method, skipnan):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # nanquantile of all-NaN rows
        f = axisops.nanquantile if skipnan else axisops.quantile
        return f(x, np.asarray(q), axis, method=method)


def _same(got, want):
    assert got.dtype == want.dtype and got.shape == want.shape
    assert np.array_equal(got.view(np.uint8), want.view(np.uint8))


@pytest.mark.parametrize("dtype,shape,axis", CASES, ids=lambda c: str(c))
@pytest.mark.parametrize("skipnan", [False, True])
def test_chunks_that_cut_the_axis_give_the_whole_arrays_quantile(tmp_path, dtype, shape, axis,
                                                                 skipnan):
    x = _data(dtype, shape)
    np.save(tmp_path / "x.npy", x)
    q = [0.0, 0.01, 0.3, 0.5, 0.999, 1.0]
    for method in METHODS:
        cut, record = quantile_job(str(tmp_path / "x.npy"), q, axis=axis, method=method,
                                   skipnan=skipnan, options=Options(chunk_bytes=4096))
        assert record["passes"] > 1, record  # the select over boxes ran, in passes
        _same(cut, _want(x, q, axis, method, skipnan))
        whole, record = quantile_job(str(tmp_path / "x.npy"), q, axis=axis, method=method,
                                     skipnan=skipnan, options=Options(chunk_bytes=1 << 24))
        assert record["passes"] == 1, record
        _same(whole, cut)


def test_crowded_keys_take_every_pass(tmp_path):
    """A column of one value but for a few: the buckets stay crowded to the last bit."""
    x = np.full((3, 20000), 7, np.int32)
    x[:, ::4999] = [[-1], [8], [2**31 - 1]]
    np.save(tmp_path / "x.npy", x)
    q = [0.0, 0.5, 0.99995, 1.0]
    got, record = quantile_job(str(tmp_path / "x.npy"), q, method="nearest",
                               options=Options(chunk_bytes=4096))
    _same(got, _want(x, q, -1, "nearest", False))
    assert record["passes"] > 2, record


def test_empty_and_zero_size_outputs(tmp_path):
    np.save(tmp_path / "e.npy", np.zeros((0, 5), np.float32))
    got, _ = quantile_job(str(tmp_path / "e.npy"), [0.5], axis=1)
    _same(got, _want(np.zeros((0, 5), np.float32), [0.5], 1, "linear", False))


def test_the_command_writes_the_quantiles(tmp_path):
    x = _data("float32", (6, 5000), 3)
    np.save(tmp_path / "x.npy", x)
    record = ok(run("quantile", str(tmp_path / "x.npy"), "-q", "0.25", "0.5", "0.99",
                    "--method", "hazen", "--chunk-bytes", "4KiB", "--no-progress"))
    assert record["output"] == str(tmp_path / "x.quantile.npy") and record["passes"] > 1
    _same(np.load(tmp_path / "x.quantile.npy"), _want(x, [0.25, 0.5, 0.99], -1, "hazen", False))
    out = tmp_path / "n.npy"
    record = ok(run("quantile", str(tmp_path / "x.npy"), "-q", "0.5", "--axis", "0",
                    "--skip-nan", "-o", str(out)))
    assert record["skipnan"] is True and json.dumps(record)
    _same(np.load(out), _want(x, [0.5], 0, "linear", True))


@pytest.mark.parametrize("args,needle", [
    (["-q", "1.5"], "q"),
    (["-q", "0.5", "--axis", "2"], "axis"),
    (["-q", "0.5", "--method", "median"], "method"),
])
def test_the_commands_bad_arguments_write_nothing(tmp_path, args, needle):
    np.save(tmp_path / "x.npy", np.zeros((3, 4), np.float32))
    out = tmp_path / "out.npy"
    message = failed(run("quantile", str(tmp_path / "x.npy"), *args, "-o", str(out)), 1, needle)
    assert "quantile" in message and not out.exists()
