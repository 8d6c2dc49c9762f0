"""axisops.topk_file and axisops.gather_file: the streaming engine from Python.

Real files in every container (.npy C and Fortran order, .npz stored and compressed,
zarr), results returned or written atomically, bounded memory, every error path, and no
signal handler installed behind the caller's back.  (The engine itself is tested through
the command line in test_cli_*.py, which runs the same jobs.)
"""

import os
import signal
import tempfile
from importlib.util import find_spec
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import axisops
from axisops import FileError, IndexOutOfRangeError, InvalidArgumentError, TopK
from disk import CONTAINERS, least_chunk_bytes, peak_mb, save, stored_topk_requests

from oracle import assert_same_bits
from strategies import BF16, GATHER_DTYPES, arrays, tie_heavy

FILE_GATHER_DTYPES = [d for d in GATHER_DTYPES if d != BF16]
NEEDS_DISTRIBUTED = pytest.mark.skipif(find_spec("distributed") is None,
                                       reason="needs distributed")


def names(folder):
    return sorted(p.name for p in Path(folder).iterdir())


@settings(max_examples=40)
@given(stored_topk_requests(), st.booleans())
def test_topk_file_is_topk_of_the_whole_array(request, to_file):
    x, axis, k, largest, container, chunk_bytes = request
    want = axisops.topk(x, k, axis, largest=largest, backend="numpy")
    with tempfile.TemporaryDirectory() as folder:
        path, key = save(folder, "x", x, container)
        out = os.path.join(folder, "out.npz") if to_file else None
        got = axisops.topk_file(path, k, axis, largest=largest, key=key, out=out,
                                chunk_bytes=chunk_bytes)
        if to_file:  # written in the input's order, as the command line writes it
            assert got == out
            with np.load(out) as z:
                got = TopK(z["values"], z["indices"])
        else:  # returned C-contiguous, as axisops.topk returns them
            assert isinstance(got, TopK)
            assert got.values.flags.c_contiguous and got.indices.flags.c_contiguous
        assert_same_bits(got.values, want.values)
        assert_same_bits(got.indices, want.indices)


@settings(max_examples=40)
@given(arrays(dtypes=FILE_GATHER_DTYPES, min_dims=1, max_dims=3, max_side=6, min_side=1),
       st.data())
def test_gather_file_is_gather_of_the_whole_array(x, data):
    dim = data.draw(st.integers(0, x.ndim - 1))
    n = x.shape[dim]
    shape = [data.draw(st.integers(0, s)) for s in x.shape]
    shape[dim] = data.draw(st.integers(0, 9))
    size = int(np.prod(shape))
    index = np.array(data.draw(st.lists(st.integers(-n, n - 1), min_size=size,
                                        max_size=size)), np.int64).reshape(shape)
    container = data.draw(st.sampled_from([c for c in CONTAINERS if c != "npz-compressed"]))
    least = max(least_chunk_bytes(x, container), least_chunk_bytes(index, container))
    chunk_bytes = data.draw(st.integers(least, least + 2 * x.nbytes + 8))
    as_file, to_file = data.draw(st.booleans()), data.draw(st.booleans())
    want = axisops.gather(x, dim, index, backend="numpy")
    with tempfile.TemporaryDirectory() as folder:
        path, key = save(folder, "x", x, container)
        ipath, ikey = save(folder, "i", index, container) if as_file else (index, None)
        out = Path(folder) / "out.npy" if to_file else None
        got = axisops.gather_file(path, dim, ipath, key=key, index_key=ikey, out=out,
                                  chunk_bytes=chunk_bytes)
        if to_file:
            assert got == str(out)
            got = np.load(out)
        assert_same_bits(got, want)


def test_indices_dtype_sorted_and_path_objects(tmp_path):
    x = tie_heavy("int64", (6, 50), 1, width=9)
    np.save(tmp_path / "x.npy", x)
    got = axisops.topk_file(tmp_path / "x.npy", 5, 0, largest=False, sorted=False,
                            index_dtype=np.int8, chunk_bytes=64)
    want = axisops.topk(x, 5, 0, largest=False, index_dtype=np.int8, backend="numpy")
    assert_same_bits(got.indices, want.indices)
    assert_same_bits(got.values, want.values)


def test_an_out_of_range_index_names_its_place_in_the_whole_index_and_writes_nothing(tmp_path):
    np.save(tmp_path / "x.npy", np.arange(20.0).reshape(4, 5))
    index = np.zeros((4, 30), np.int64)
    index[3, 27] = 5
    np.save(tmp_path / "i.npy", index)
    for idx in (tmp_path / "i.npy", index):
        with pytest.raises(IndexOutOfRangeError,
                           match=r"^gather_file\(\): index\[3, 27\]=5 is out of range for dim 1 "
                                 r"of size 5"):
            axisops.gather_file(tmp_path / "x.npy", 1, idx, chunk_bytes=64,
                                out=tmp_path / "o.npy")
    assert names(tmp_path) == ["i.npy", "x.npy"]


def test_an_existing_output_is_replaced_whole_and_keeps_its_mode(tmp_path):
    np.save(tmp_path / "x.npy", np.arange(10))
    (tmp_path / "out.npz").write_bytes(b"old")
    os.chmod(tmp_path / "out.npz", 0o600)
    assert axisops.topk_file(str(tmp_path / "x.npy"), 2, out=str(tmp_path / "out.npz")) \
        == str(tmp_path / "out.npz")
    with np.load(tmp_path / "out.npz") as z:
        assert z["indices"].tolist() == [9, 8]
    if os.name == "posix":
        assert os.stat(tmp_path / "out.npz").st_mode & 0o777 == 0o600
    assert names(tmp_path) == ["out.npz", "x.npy"]


def test_no_signal_handler_is_installed_and_no_bar_is_shown(tmp_path, monkeypatch, capfd):
    """The API leaves the process's signals alone (the command line takes them over)."""
    np.save(tmp_path / "x.npy", np.arange(100.0))
    np.save(tmp_path / "i.npy", np.arange(10))
    seen = []
    from axisops.streaming import jobs

    def spy(real):
        def run(*args, **kwargs):
            seen.append({s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)})
            return real(*args, **kwargs)
        return run

    monkeypatch.setattr(jobs, "stream_topk", spy(jobs.stream_topk))
    monkeypatch.setattr(jobs, "stream_gather", spy(jobs.stream_gather))
    before = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    axisops.topk_file(tmp_path / "x.npy", 3, chunk_bytes=64)
    axisops.gather_file(tmp_path / "x.npy", 0, tmp_path / "i.npy", out=tmp_path / "g.npy")
    assert seen == [before, before]
    assert capfd.readouterr().err == ""
    axisops.topk_file(tmp_path / "x.npy", 3, chunk_bytes=64, progress=True)
    assert "topk" in capfd.readouterr().err


def test_on_a_cluster_with_a_client_or_an_address(client, tmp_path):
    x = tie_heavy("float32", (9, 40), 2)
    np.save(tmp_path / "x.npy", np.asfortranarray(x))
    index = np.random.default_rng(3).integers(-40, 40, size=(9, 13))
    want = axisops.topk(x, 6, 1, backend="numpy")
    got = axisops.topk_file(tmp_path / "x.npy", 6, 1, chunk_bytes=128, scheduler=client)
    assert_same_bits(got.values, want.values)
    assert_same_bits(got.indices, want.indices)
    out = axisops.gather_file(tmp_path / "x.npy", 1, index, chunk_bytes=128, backend="numpy",
                              scheduler=client.scheduler.address, out=tmp_path / "g.npy")
    assert_same_bits(np.load(out), axisops.gather(x, 1, index, backend="numpy"))


def test_bounded_memory(big):
    """As the command line's test: eight times the input, about the same peak."""
    code = ("import axisops\n"
            "got = axisops.topk_file(sys.argv[1], 100, chunk_bytes=4 << 20)\n"
            "print(got.indices[:, 0].sum())\n"
            "status = 0")
    _, small_peak = peak_mb(code, big / "rows.npy")
    out, peak = peak_mb(code, big / "x.npy")
    assert peak - small_peak < 40, (peak, small_peak)
    x = np.load(big / "x.npy", mmap_mode="r")
    assert int(out) == int(np.argmax(x, axis=1).sum())  # top-1 ties go to the lower index


# -- errors ------------------------------------------------------------------------------

@pytest.fixture
def folder(tmp_path):
    np.save(tmp_path / "x.npy", np.arange(12.0).reshape(3, 4))
    np.save(tmp_path / "i.npy", np.zeros((3, 2), np.int64))
    np.savez(tmp_path / "two.npz", a=np.zeros(3), b=np.ones(3))
    (tmp_path / "dir").mkdir()
    return tmp_path


@pytest.mark.parametrize("call, error, message", [
    (lambda f: axisops.topk_file(f / "nope.npy", 1), FileError,
     r"^topk_file\(\): path='.*nope\.npy': no such file$"),
    (lambda f: axisops.topk_file(5, 1), InvalidArgumentError,
     r"^topk_file\(\): path=5 \(int\) is not a path \(need a str or os\.PathLike\)$"),
    (lambda f: axisops.topk_file(f / "x.npy", 9), InvalidArgumentError,
     r"^topk_file\(\): k=9 is out of range for axis 1 of size 4"),
    (lambda f: axisops.topk_file(f / "x.npy", 1, key="a"), FileError,
     r"^topk_file\(\): path='.*x\.npy': key applies to \.npz archives only"),
    (lambda f: axisops.topk_file(f / "two.npz", 1), FileError,
     r"^topk_file\(\): path='.*two\.npz': holds 2 arrays, name one with key \(keys: a, b\)"),
    (lambda f: axisops.topk_file(f / "x.npy", 1, key=3), InvalidArgumentError,
     r"^topk_file\(\): key=3 is not an array name"),
    (lambda f: axisops.topk_file(f / "x.npy", 1, out=f / "dir"), FileError,
     r"^topk_file\(\): out='.*dir': is a directory$"),
    (lambda f: axisops.topk_file(f / "x.npy", 1, out=f / "x.npy"), FileError,
     r"^topk_file\(\): out='.*x\.npy': is path='.*x\.npy' itself \(choose another out; "),
    (lambda f: axisops.topk_file(f / "x.npy", 1, out=3), InvalidArgumentError,
     r"^topk_file\(\): out=3 \(int\) is not a path \(need a str or os\.PathLike or None\)"),
    (lambda f: axisops.topk_file(f / "x.npy", 1, chunk_bytes=0), InvalidArgumentError,
     r"^topk_file\(\): chunk_bytes=0 is not allowed \(need an integer >= 1\)$"),
    (lambda f: axisops.topk_file(f / "x.npy", 1, chunk_bytes=True), InvalidArgumentError,
     r"^topk_file\(\): chunk_bytes=True is not allowed"),
    (lambda f: axisops.topk_file(f / "x.npy", 1, progress="yes"), InvalidArgumentError,
     r"^topk_file\(\): progress='yes' is not allowed \(need True, False or None\)$"),
    (lambda f: axisops.topk_file(f / "x.npy", 1, scheduler=8786), InvalidArgumentError,
     r"^topk_file\(\): scheduler=8786 is not a scheduler"),
    pytest.param(lambda f: axisops.topk_file(f / "x.npy", 1, scheduler="nonsense://"), FileError,
                 r"^topk_file\(\): scheduler='nonsense://': not a scheduler address",
                 marks=NEEDS_DISTRIBUTED),
    (lambda f: axisops.topk_file(f / "x.npy", 1, backend="nope"), InvalidArgumentError,
     r"^topk_file\(\): backend='nope' is not a backend"),
    (lambda f: axisops.gather_file(f / "x.npy", 1, f / "nope.npy"), FileError,
     r"^gather_file\(\): index='.*nope\.npy': no such file$"),
    (lambda f: axisops.gather_file(f / "x.npy", 1, f / "i.npy", out=f / "i.npy"), FileError,
     r"^gather_file\(\): out='.*i\.npy': is index='.*i\.npy' itself"),
    (lambda f: axisops.gather_file(f / "x.npy", 1, np.zeros((3, 2)), out=f / "o.npy"),
     axisops.UnsupportedDTypeError, r"^gather_file\(\): index has dtype float64"),
    (lambda f: axisops.gather_file(f / "x.npy", 1, [[0], [1, 2]]), InvalidArgumentError,
     r"^gather_file\(\): index of type list cannot be read as an array"),
    (lambda f: axisops.gather_file(f / "x.npy", 1, np.zeros((3, 2), int), index_key="a"),
     InvalidArgumentError, r"^gather_file\(\): index_key='a' names an array in an index file"),
    (lambda f: axisops.gather_file(f / "x.npy", 7, f / "i.npy"), InvalidArgumentError,
     r"^gather_file\(\): dim=7 is out of range"),
])
def test_errors_name_the_function_the_argument_and_the_value(folder, call, error, message):
    with pytest.raises(error, match=message):
        call(folder)
    assert names(folder) == ["dir", "i.npy", "two.npz", "x.npy"]


def test_a_zarr_chunk_over_the_budget_suggests_the_keyword(tmp_path):
    zarr = pytest.importorskip("zarr")
    z = zarr.create_array(store=str(tmp_path / "a.zarr"), shape=(8, 8), dtype="f8",
                          chunks=(4, 4))
    z[...] = np.arange(64.0).reshape(8, 8)
    with pytest.raises(FileError, match=r"^topk_file\(\): path='.*a\.zarr': its zarr chunks "
                                        r"\(4, 4\) .* more than chunk_bytes=64 .*; pass "
                                        r"chunk_bytes=128 or more"):
        axisops.topk_file(tmp_path / "a.zarr", 1, chunk_bytes=64)
    assert axisops.topk_file(tmp_path / "a.zarr", 1, chunk_bytes=128).indices.ravel().tolist() \
        == [7] * 8
