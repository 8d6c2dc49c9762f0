"""Inputs that would hang or explode the command line, and its one-line messages."""

import io
import json
import os
import zipfile

import numpy as np
import pytest

from axisops.cli.main import main
from axisops.cli.ops_commands import run_gather, run_topk
from axisops.streaming.errors import FileError
from axisops.streaming.sources import open_source
from subprocess_helpers import run_cli


def _one_line_error(proc_or_status, err=None, status=1):
    """The command failed with ``status`` and exactly one line on stderr; that line."""
    if err is None:
        proc = proc_or_status
        assert proc.stdout == ""
        proc_or_status, err = proc.returncode, proc.stderr
    assert proc_or_status == status, err
    assert "Traceback" not in err and len(err.splitlines()) == 1, err
    return err


def _in_process(capsys, *args):
    capsys.readouterr()
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    assert status != 1 or out == ""
    return status, out, err


def _header_only(path, shape, descr="<f4"):
    """A .npy file whose header claims ``shape`` and that holds no data."""
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        buffer, {"descr": descr, "fortran_order": False, "shape": shape})
    path.write_bytes(buffer.getvalue())


# -- headers --------------------------------------------------------------------------------

def test_an_empty_array_with_a_huge_side_is_answered_without_reading(tmp_path, monkeypatch):
    """(0, 10**18) is an array NumPy can hold: the result is empty, and nothing is read."""
    _header_only(tmp_path / "z.npy", (0, 10**18))
    _header_only(tmp_path / "i.npy", (0, 2), "<i8")

    def no_reading(*args, **kwargs):
        raise AssertionError("an empty result needs no reading")

    monkeypatch.setattr("axisops.streaming.jobs.stream_topk", no_reading)
    monkeypatch.setattr("axisops.streaming.jobs.stream_gather", no_reading)
    for k, axis, shape in [(5, -1, (0, 5)), (0, 0, (0, 10**18))]:
        rec = run_topk(str(tmp_path / "z.npy"), k, axis=axis, output=str(tmp_path / "o.npz"))
        assert rec["chunks"] == 0 and rec["values_shape"] == list(shape)
        with np.load(tmp_path / "o.npz") as z:
            assert z["values"].shape == z["indices"].shape == shape
    rec = run_gather(str(tmp_path / "z.npy"), str(tmp_path / "i.npy"), 1,
                     output=str(tmp_path / "g.npy"))
    assert rec["chunks"] == 0 and np.load(tmp_path / "g.npy").shape == (0, 2)


@pytest.mark.parametrize("shape, needle", [
    ((True, 3), "shape (True, 3) is not a tuple of integers >= 0"),
    ((-1, 3), "shape (-1, 3) is not a tuple of integers >= 0"),
    ((0, 2**63), "is not one NumPy can hold"),
    ((10**18, 10**18), "is not one NumPy can hold"),
    ((1,) * 70, "is not one NumPy can hold"),
    ((10**6, 10**6), "its header promises 4000000000000 bytes of data, the file holds 0"),
])
def test_absurd_header_shapes_are_refused_at_once(tmp_path, capsys, shape, needle):
    _header_only(tmp_path / "bad.npy", shape)
    np.save(tmp_path / "x.npy", np.arange(4.0))
    for args in (["topk", tmp_path / "bad.npy", "-k", "1"],
                 ["gather", tmp_path / "x.npy", tmp_path / "bad.npy", "--dim", "0"]):
        status, _, err = _in_process(capsys, *args, "-o", tmp_path / "out.npz")
        _one_line_error(status, err)
        assert "is not a valid NumPy file" in err and needle in err
    assert sorted(os.listdir(tmp_path)) == ["bad.npy", "x.npy"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_a_fifo_is_refused_without_waiting_for_a_writer(tmp_path):
    """Run in children: if opening it blocked, the timeout would fail the test, not hang it."""
    os.mkfifo(tmp_path / "x.npy")
    os.mkfifo(tmp_path / "i.npz")
    np.save(tmp_path / "real.npy", np.arange(4.0))
    err = _one_line_error(run_cli("topk", tmp_path / "x.npy", "-k", "1"))
    assert "INPUT" in err and "x.npy: is a FIFO, not a regular file" in err
    err = _one_line_error(run_cli("gather", tmp_path / "real.npy", tmp_path / "i.npz", "--dim", "0"))
    assert "INDEX" in err and "i.npz: is a FIFO, not a regular file" in err


def test_a_device_is_not_an_input(tmp_path):
    if not os.path.exists("/dev/zero"):
        pytest.skip("needs /dev/zero")  # every POSIX system has it
    (tmp_path / "x.npy").symlink_to("/dev/zero")
    with pytest.raises(FileError, match=r"x\.npy': is a character device, not a regular file"):
        open_source(str(tmp_path / "x.npy"))


# -- zarr -----------------------------------------------------------------------------------

def _zarr(path, **kwargs):
    zarr = pytest.importorskip("zarr")
    x = np.arange(54, dtype=np.float32).reshape(6, 9)
    z = zarr.create_array(store=str(path), shape=x.shape, dtype=x.dtype, chunks=(4, 4),
                          **kwargs)
    z[...] = x
    return path


def test_zarr_chunks_of_zero_short_or_corrupt_give_one_line(tmp_path):
    zero = _zarr(tmp_path / "zero.zarr", compressors=None)
    meta = json.loads((zero / "zarr.json").read_text())
    meta["chunk_grid"]["configuration"]["chunk_shape"] = [0, 4]
    (zero / "zarr.json").write_text(json.dumps(meta))
    short = _zarr(tmp_path / "short.zarr", compressors=None)
    os.truncate(short / "c" / "0" / "0", 10)
    corrupt = _zarr(tmp_path / "corrupt.zarr")
    (corrupt / "c" / "0" / "0").write_bytes(b"garbage!" * 4)
    for path, needle in [(zero, "its chunk shape (0, 4) has an empty side"),
                         (short, "a zarr chunk cannot be read (ValueError"),
                         (corrupt, "a zarr chunk cannot be read")]:
        # a child: zarr's event loop logs abandoned tasks as the interpreter exits
        err = _one_line_error(run_cli("topk", path, "-k", "2", "--backend", "numpy",
                                   "-o", tmp_path / "o.npz"))
        assert needle in err, err
    assert not (tmp_path / "o.npz").exists()


def test_a_zarr_chunk_larger_than_chunk_bytes_is_refused_before_reading(tmp_path, capsys,
                                                                       monkeypatch):
    zarr = pytest.importorskip("zarr")
    z = zarr.create_array(store=str(tmp_path / "big.zarr"), shape=(100_000,), dtype="float32",
                          chunks=(100_000,))
    z[...] = np.arange(100_000, dtype=np.float32)
    np.save(tmp_path / "i.npy", np.zeros(3, np.int64))
    status, _, err = _in_process(capsys, "topk", tmp_path / "big.zarr", "-k", "2",
                                 "--chunk-bytes", "64KiB")
    _one_line_error(status, err)
    assert ("its zarr chunks (100000,) of float32 take 400000 bytes each once decoded, more "
            "than --chunk-bytes=65536 (zarr decodes whole chunks); pass --chunk-bytes 400000 "
            "or more") in err
    status, _, err = _in_process(capsys, "gather", tmp_path / "big.zarr", tmp_path / "i.npy",
                                 "--dim", "0", "--chunk-bytes", "1000")
    assert status == 1 and "INPUT" in err and "pass --chunk-bytes 400000" in err
    status, out, _ = _in_process(capsys, "topk", tmp_path / "big.zarr", "-k", "2",
                                 "--chunk-bytes", "400000")
    assert status == 0 and json.loads(out)["chunks"] == 1


# -- messages -------------------------------------------------------------------------------

def test_a_400_digit_chunk_bytes_is_a_usage_error(tmp_path):
    np.save(tmp_path / "x.npy", np.arange(3))
    proc = run_cli("topk", tmp_path / "x.npy", "-k", "1", "--chunk-bytes", "9" * 400)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "is not a size" in proc.stderr and len(proc.stderr) < 1000


def test_npz_member_names_stay_on_one_short_line(tmp_path, capsys):
    with zipfile.ZipFile(tmp_path / "nl.npz", "w") as archive:
        for name in ("first\nline.npy", "second.npy"):
            with archive.open(name, "w") as member:
                np.save(member, np.arange(3))
    status, _, err = _in_process(capsys, "topk", tmp_path / "nl.npz", "-k", "1")
    _one_line_error(status, err)
    assert "(keys: 'first\\nline', second)" in err
    many = {f"member_{i}": np.zeros(1) for i in range(20_000)}
    np.savez(tmp_path / "many.npz", **many)
    status, _, err = _in_process(capsys, "topk", tmp_path / "many.npz", "-k", "1")
    _one_line_error(status, err)
    assert "holds 20000 arrays" in err and "... (20000 in all)" in err and len(err) < 400
    status, _, err = _in_process(capsys, "topk", tmp_path / "many.npz", "--key", "nope\n",
                                 "-k", "1")
    _one_line_error(status, err)
    assert "no array named 'nope\\n'" in err and len(err) < 400


def test_index_messages_name_the_index_key_flag(tmp_path, capsys):
    np.save(tmp_path / "x.npy", np.arange(12.0).reshape(3, 4))
    np.savez(tmp_path / "x.topk.npz", values=np.zeros((3, 1)), indices=np.zeros((3, 1), int))
    np.save(tmp_path / "i.npy", np.zeros((3, 1), int))
    status, _, err = _in_process(capsys, "gather", tmp_path / "x.npy", tmp_path / "x.topk.npz",
                                 "--dim", "1")
    _one_line_error(status, err)
    assert "INDEX" in err and "name one with --index-key (keys: values, indices)" in err
    status, _, err = _in_process(capsys, "gather", tmp_path / "x.npy", tmp_path / "i.npy",
                                 "--dim", "1", "--index-key", "a")
    assert status == 1 and "INDEX" in err and "--index-key applies to .npz archives" in err
    status, out, _ = _in_process(capsys, "gather", tmp_path / "x.npy", tmp_path / "x.topk.npz",
                                 "--dim", "1", "--index-key", "indices")
    assert status == 0 and json.loads(out)["out_shape"] == [3, 1]


def test_the_dask_backend_needs_a_scheduler(tmp_path, capsys):
    np.save(tmp_path / "x.npy", np.arange(4.0))
    status, _, err = _in_process(capsys, "topk", tmp_path / "x.npy", "-k", "1",
                                 "--backend", "dask")
    _one_line_error(status, err)
    assert "backend='dask' does not take numpy.ndarray inputs" in err


# -- directories ---------------------------------------------------------------------------

_DIRECTORY = "is a directory (need a .npy or .npz file, or a zarr array)"


@pytest.mark.parametrize("args, line", [
    (["topk", ".", "-k", "1"], f"INPUT .: {_DIRECTORY}"),
    (["topk", "..", "-k", "1", "--smallest"], f"INPUT ..: {_DIRECTORY}"),
    (["topk", "/", "-k", "1"], f"INPUT /: {_DIRECTORY}"),
    (["gather", ".", "i.npy", "--dim", "0"], f"INPUT .: {_DIRECTORY}"),
    (["gather", "x.npy", ".", "--dim", "0"], f"INDEX .: {_DIRECTORY}"),
    (["bench", "--quick", "--json", "."], "bench --json .: is a directory (need a file name)"),
    (["bench", "--quick", "--plot", ".."], "bench --plot ..: is a directory (need a file name)"),
    (["bench", "--quick", "--json", "no/b.json"],
     "bench --json no/b.json: directory no does not exist"),
])
def test_a_directory_is_refused_as_one_by_every_command_that_takes_a_file(tmp_path, args,
                                                                          line):
    """``.``, ``..`` and ``/`` have no stem to name a default output after: the input is
    still checked first, and every file argument refuses a directory in the same words
    (bench before any timing)."""
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    np.save(cwd / "x.npy", np.arange(4.0))
    np.save(cwd / "i.npy", np.array([1, 0]))
    before = sorted(p.name for p in tmp_path.rglob("*"))
    err = _one_line_error(run_cli(*args, cwd=cwd))
    assert err == f"axisops: error: {line}\n"
    assert sorted(p.name for p in tmp_path.rglob("*")) == before


def test_a_zarr_array_named_dot_gets_its_output_beside_it(tmp_path):
    zarr = pytest.importorskip("zarr")
    x = np.array([[3.0, 1.0, 2.0]])
    zarr.create_array(store=str(tmp_path / "a.zarr"), shape=x.shape, dtype=x.dtype)[...] = x
    proc = run_cli("topk", ".", "-k", "1", cwd=tmp_path / "a.zarr")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["output"] == str(tmp_path / "a.topk.npz")
    with np.load(tmp_path / "a.topk.npz") as result:
        assert result["values"].tolist() == [[3.0]] and result["indices"].tolist() == [[0]]
