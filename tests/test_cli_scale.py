"""The command line at scale: streamed top-k and gather, bounded memory, progress,
zarr inputs.  (``--scheduler`` is tested in test_dask_cluster.py, interruption in
test_cli_signals.py.)"""

import io
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import axisops
import disk
from axisops.cli.main import main
from axisops.cli.ops_commands import run_gather, run_topk
from axisops.streaming import progress
from axisops.streaming.boxes import Box, contiguous_runs, plan_boxes, slab_boxes
from axisops.streaming.errors import FileError
from axisops.streaming.progress import DELAY_SECONDS, progress_bar
from axisops.streaming.sources import open_source
from disk import CONTAINERS, least_chunk_bytes, save, stored_topk_requests

from oracle import assert_same_bits
from strategies import BF16, FLOAT_DTYPES, GATHER_DTYPES, arrays

FILE_GATHER_DTYPES = [d for d in GATHER_DTYPES if d != BF16]


def cli(*args, **kwargs):
    env = {**os.environ, "PYTHONUNBUFFERED": "1", **kwargs.pop("env", {})}
    env.pop("AXISOPS_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "axisops", *args], capture_output=True,
                          text=True, env=env, timeout=120, **kwargs)


def in_process(capsys, *args):
    """``axisops ARGS`` run in this process: (status, stdout, stderr)."""
    capsys.readouterr()
    status = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return status, out, err


def one_json_line(proc):
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 1, proc.stdout
    return json.loads(lines[0])


def leftovers(folder):
    return sorted(p.name for p in Path(folder).iterdir() if p.name.startswith((".", "out")))


@given(stored_topk_requests())
def test_streamed_topk_is_bit_identical_for_every_chunk_size(request):
    x, axis, k, largest, container, chunk_bytes = request
    with tempfile.TemporaryDirectory() as folder:
        path, key = save(folder, "x", x, container)
        out = os.path.join(folder, "out.npz")
        rec = run_topk(path, k, axis=axis, largest=largest, key=key, output=out,
                       chunk_bytes=chunk_bytes, index_dtype="int32")
        want = axisops.topk(x, k, axis, largest=largest, index_dtype=np.int32, backend="numpy")
        with np.load(out) as z:
            assert_same_bits(z["values"], want.values)
            assert_same_bits(z["indices"], want.indices)
        assert rec["values_shape"] == list(want.values.shape)
        assert rec["chunks"] >= 1 if want.values.size else rec["chunks"] == 0  # empty: no reads
        assert leftovers(folder) == ["out.npz"]


@st.composite
def gather_requests(draw):
    x = draw(arrays(dtypes=FILE_GATHER_DTYPES, min_dims=1, max_dims=3, max_side=6, min_side=1))
    dim = draw(st.integers(0, x.ndim - 1))
    n = x.shape[dim]
    shape = [draw(st.integers(0, s)) for s in x.shape]
    shape[dim] = draw(st.integers(0, 9))
    size = int(np.prod(shape))
    values = draw(st.lists(st.integers(-n, n - 1), min_size=size, max_size=size))
    dtype = draw(st.sampled_from(["int64", "int16", "uint32"]))
    index = np.array([v % n for v in values] if dtype[0] == "u" else values, dtype).reshape(shape)
    return x, dim, index


@given(gather_requests(), st.data())
def test_streamed_gather_is_bit_identical_for_every_chunk_size(request, data):
    x, dim, index = request
    containers = [c for c in CONTAINERS if c != "zarr" or index.size]
    x_container = data.draw(st.sampled_from(containers))
    i_container = data.draw(st.sampled_from(containers))
    least = max(least_chunk_bytes(x, x_container), least_chunk_bytes(index, i_container))
    chunk_bytes = data.draw(st.integers(least, least + 4 * (x.nbytes + index.nbytes) + 8))
    with tempfile.TemporaryDirectory() as folder:
        x_path, x_key = save(folder, "x", x, x_container)
        i_path, i_key = save(folder, "i", index, i_container)
        out = os.path.join(folder, "out.npy")
        rec = run_gather(x_path, i_path, dim, key=x_key, index_key=i_key, output=out,
                         chunk_bytes=chunk_bytes)
        assert_same_bits(np.load(out), axisops.gather(x, dim, index, backend="numpy"))
        assert rec["out_shape"] == list(index.shape)
        assert rec["chunks"] >= 1 if index.size else rec["chunks"] == 0  # empty: no reads


def test_out_of_range_value_in_a_late_chunk_names_the_first_offender_and_writes_nothing(tmp_path):
    x = np.arange(40.0).reshape(4, 10)
    index = np.zeros((4, 50), np.int32)
    index[3, 40], index[2, 45] = 10, -11
    for order in ("C", "F"):
        np.save(tmp_path / "x.npy", x)
        np.save(tmp_path / "i.npy", np.asfortranarray(index) if order == "F" else index)
        with pytest.raises(axisops.IndexOutOfRangeError) as info:
            run_gather(str(tmp_path / "x.npy"), str(tmp_path / "i.npy"), 1,
                       output=str(tmp_path / "out.npy"), chunk_bytes=64)
        with pytest.raises(axisops.IndexOutOfRangeError) as numpy_info:
            axisops.gather(x, 1, index, backend="numpy")
        assert str(info.value) == str(numpy_info.value)
        assert "index[2, 45]=-11" in str(info.value)
        assert leftovers(tmp_path) == []


def test_stored_npz_members_are_read_in_place_and_compressed_ones_whole(tmp_path):
    x = np.arange(24, dtype=np.int16).reshape(4, 6)
    np.savez(tmp_path / "s.npz", a=x)
    np.savez_compressed(tmp_path / "c.npz", a=x)
    assert open_source(str(tmp_path / "s.npz")).kind == "npy"
    assert open_source(str(tmp_path / "c.npz")).kind == "memory"


def test_big_endian_input_gives_native_results(tmp_path):
    x = np.array([[3, -1, 7, 7], [0, 2, 2, 9]], ">i4")
    np.save(tmp_path / "x.npy", x)
    run_topk(str(tmp_path / "x.npy"), 3, output=str(tmp_path / "o.npz"), chunk_bytes=8)
    with np.load(tmp_path / "o.npz") as z:
        assert z["values"].dtype == np.dtype("int32") and z["values"].dtype.isnative
        assert_same_bits(z["values"], axisops.topk(x, 3, backend="numpy").values)


# -- planning and box arithmetic ------------------------------------------------------

@given(st.lists(st.integers(0, 7), min_size=1, max_size=4), st.data())
def test_plans_cover_every_element_once_with_columns_in_axis_order(shape, data):
    shape = tuple(shape)
    axis = data.draw(st.integers(0, len(shape) - 1))
    grain = tuple(data.draw(st.integers(1, 3)) for _ in shape)
    plan = plan_boxes(shape, axis, data.draw(st.integers(1, 300)), data.draw(st.integers(1, 50)),
                      grain)
    seen = np.zeros(shape, np.int64)
    for column in plan.columns:
        starts = [b.start[axis] for b in column]
        assert starts == sorted(starts) and starts[0] == 0
        for box in column:
            assert box.extent[:axis] + box.extent[axis + 1:] == \
                column[0].extent[:axis] + column[0].extent[axis + 1:]
            seen[box.slices] += 1
    assert (seen == 1).all()


def test_plan_prefers_long_contiguous_runs():
    # Along axis 0 of a wide array, whole sequences (plan A) would read 8-byte runs;
    # folding row blocks (plan B) reads whole rows.
    assert plan_boxes((1_000_000, 2048), 0, 1 << 22, 1 << 16, itemsize=4).extent == (2048, 2048)
    assert plan_boxes((64, 1 << 17), 1, 1 << 23, 1 << 10).extent == (64, 1 << 17)
    assert plan_boxes((4, 10, 6), 1, 60, 100).extent == (1, 10, 6)


@given(st.lists(st.integers(1, 6), min_size=1, max_size=4), st.data())
def test_contiguous_runs_read_exactly_the_box(shape, data):
    shape = tuple(shape)
    start = tuple(data.draw(st.integers(0, s - 1)) for s in shape)
    extent = tuple(data.draw(st.integers(1, s - b)) for s, b in zip(shape, start))
    box = Box(start, extent)
    flat = np.arange(int(np.prod(shape)))
    offsets, length = contiguous_runs(shape, box)
    got = np.concatenate([flat[o:o + length] for o in offsets]).reshape(extent)
    np.testing.assert_array_equal(got, flat.reshape(shape)[box.slices])


def test_slab_boxes_visit_elements_in_c_order():
    shape = (3, 4, 5)
    order = np.concatenate([np.arange(60).reshape(shape)[b.slices].ravel()
                            for b in slab_boxes(shape, 7)])
    np.testing.assert_array_equal(order, np.arange(60))


# -- memory ---------------------------------------------------------------------------

def peak_mb(*args):
    """Run the command in a child; its output record and peak resident memory (MB)."""
    out, peak = disk.peak_mb("from axisops.cli.main import main\nstatus = main(sys.argv[1:])",
                             *args)
    return json.loads(out), peak


@pytest.mark.slow
@disk.linux_memory_probe
def test_peak_memory_does_not_grow_with_the_input(big):
    """Eight times the input, the same peak: the peak RSS (mapped pages included) stays put.

    Each large run is compared with a run on a small file that the same chunk size cuts
    into boxes of the same shapes, so both run the same kernels; the large input is
    112 MiB larger, the peak may be at most 40 MB larger.
    """
    def topk(name, axis):
        return peak_mb("topk", str(big / f"{name}.npy"), "-k", "100", "--axis", axis,
                       "--chunk-bytes", "4MiB", "-o", str(big / f"{name}.topk.npz"))

    for axis, small in (("-1", "rows"), ("0", "cols")):
        _, small_peak = topk(small, axis)
        rec, peak = topk("x", axis)
        assert rec["chunks"] >= 32
        assert peak - small_peak < 40, (axis, peak, small_peak)
        assert peak < 512, (axis, peak)
    with np.load(big / "x.topk.npz") as z:
        x = np.load(big / "x.npy", mmap_mode="r")
        assert_same_bits(z["indices"][:, :1000], axisops.topk(x[:, :1000], 100, 0).indices)

    def gather(x, index):
        return peak_mb("gather", str(big / f"{x}.npy"), str(big / f"{index}.npy"), "--dim", "1",
                       "--chunk-bytes", "4MiB", "-o", str(big / f"{index}.gather.npy"))

    _, small_peak = gather("g_rows", "i_rows")
    rec, peak = gather("g", "i")
    assert rec["chunks"] >= 32
    assert peak - small_peak < 40, (peak, small_peak)
    index = np.load(big / "i.npy", mmap_mode="r")[:, :5000]
    got = np.load(big / "i.gather.npy", mmap_mode="r")[:, :5000]
    np.testing.assert_array_equal(got, np.take_along_axis(np.load(big / "g.npy"), index % 64, 1))


@disk.linux_memory_probe
def test_mapped_pages_would_count(big):
    """The test above is meaningful: touching a mapped file counts in the peak RSS."""
    _, peak = disk.peak_mb("import numpy as np\n"
                           "np.load(sys.argv[1], mmap_mode='r').sum(dtype=np.float64)\n"
                           "status = 0", big / "x.npy")
    assert peak > 128


# -- progress, interruption, options --------------------------------------------------

def test_progress_goes_to_stderr_only_when_asked_or_on_a_terminal(big, capsys):
    args = ["topk", big / "g_rows.npy", "-k", "3", "--chunk-bytes", "4096", "-o", big / "p.npz"]
    status, out, err = in_process(capsys, *args, "--progress")
    assert status == 0 and len(out.splitlines()) == 1 and json.loads(out)["chunks"] == 8
    last = err.splitlines()[-1]  # the bar's final line: the whole job, in decimal units
    assert last.startswith("topk: 100% |") and "32.8 kB / 32.8 kB" in last, err
    for extra in ([], ["--no-progress"]):
        status, out, err = in_process(capsys, *args, *extra)
        assert status == 0 and len(out.splitlines()) == 1 and err == ""


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_default_progress_waits_a_second_and_needs_a_terminal():
    with progress_bar(10, None, stream=_Terminal()) as bar:
        assert not bar.disable and bar.delay == DELAY_SECONDS >= 1
    with progress_bar(10, None, stream=io.StringIO()) as bar:
        assert bar.disable
    with progress_bar(10, False, stream=_Terminal()) as bar:
        assert bar.disable
    stream = io.StringIO()
    with progress_bar(10, True, stream=stream, desc="topk") as bar:
        bar.update(10)
    assert "topk" in stream.getvalue()


def test_a_shown_bar_ends_at_100_percent_on_a_line_of_its_own(monkeypatch):
    """The last update may fall inside the redraw interval (and the work may count a
    little short of the total): closing draws the finished state all the same."""
    clock = iter(range(1000))
    monkeypatch.setattr(progress.time, "monotonic", lambda: next(clock) * 0.01)
    stream = _Terminal()
    with progress_bar(3_000_000_000, True, stream=stream, desc="gather") as bar:
        for _ in range(29):
            bar.update(100_000_000)  # 2.9 GB counted, redraws at most every 0.1 s
    text = stream.getvalue()
    assert text.endswith("\n") and text.count("\n") == 1  # one line, redrawn in place
    final = text.rsplit("\r", 1)[-1]
    assert final.startswith("gather: 100% |" + "#" * progress.WIDTH + "| 3.0 GB / 3.0 GB [")
    assert text.count("\r") < 29  # not every update redrew


def test_into_a_file_a_forced_bar_writes_its_first_and_last_lines_only():
    stream = io.StringIO()
    with progress_bar(5000, True, stream=stream, unit="block") as bar:
        for _ in range(5000):
            bar.update(1)
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2 and lines[0].startswith("  0% |") and "1 block / " in lines[0]
    assert lines[1].startswith("100% |") and "5,000 blocks / 5,000 blocks" in lines[1]


def test_an_interrupted_bar_ends_where_the_work_stopped():
    stream = io.StringIO()
    with pytest.raises(KeyboardInterrupt), progress_bar(1000, True, stream=stream) as bar:
        bar.update(250)
        raise KeyboardInterrupt
    assert stream.getvalue().splitlines()[-1].startswith(" 25% |")


@pytest.mark.parametrize("count, text", [(0, "0 B"), (999, "999 B"), (1000, "1.0 kB"),
                                         (32768, "32.8 kB"), (2 * 10**9, "2.0 GB"),
                                         (5 * 10**15, "5.0 PB"), (7 * 10**18, "7000.0 PB")])
def test_sizes_are_in_decimal_units(count, text):
    assert progress.size_text(count) == text


def test_a_failed_write_leaves_nothing(tmp_path):
    np.save(tmp_path / "x.npy", np.arange(10))
    os.mkdir(tmp_path / "out.npz")
    proc = cli("topk", str(tmp_path / "x.npy"), "-k", "2", "-o", str(tmp_path / "out.npz"))
    assert proc.returncode == 1 and "is a directory" in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.npz", "x.npy"]


@pytest.mark.parametrize("value", ["0", "abc", "-5", "1.5XB", ""])
def test_bad_chunk_bytes_is_a_usage_error(tmp_path, value):
    np.save(tmp_path / "x.npy", np.arange(10))
    proc = cli("topk", str(tmp_path / "x.npy"), "-k", "2", "--chunk-bytes", value)
    assert proc.returncode == 2 and "--chunk-bytes" in proc.stderr and "is not a size" in proc.stderr


def test_chunk_bytes_accepts_units_and_reports_them(tmp_path):
    np.save(tmp_path / "x.npy", np.arange(1000.0))
    rec = one_json_line(cli("topk", str(tmp_path / "x.npy"), "-k", "2", "--chunk-bytes", "1KiB"))
    assert rec["chunk_bytes"] == 1024 and rec["chunks"] == 8 and rec["scheduler"] is None  # 128 float64 a chunk
    with pytest.raises(axisops.InvalidArgumentError, match=r"--chunk-bytes=0 is not allowed"):
        run_topk(str(tmp_path / "x.npy"), 2, chunk_bytes=0)


def test_truncated_npy_is_refused(tmp_path):
    np.save(tmp_path / "x.npy", np.arange(100.0))
    data = (tmp_path / "x.npy").read_bytes()
    (tmp_path / "x.npy").write_bytes(data[:-8])
    proc = cli("topk", str(tmp_path / "x.npy"), "-k", "2")
    assert proc.returncode == 1
    assert "header promises 800 bytes of data, the file holds 792" in proc.stderr
    assert leftovers(tmp_path) == []


def test_a_file_cut_while_read_is_reported(tmp_path):
    np.save(tmp_path / "x.npy", np.arange(100.0))
    source = open_source(str(tmp_path / "x.npy"))
    os.truncate(tmp_path / "x.npy", 200)
    with pytest.raises(FileError, match="the file ended early"):
        source.read(Box((0,), (100,)), False)
    source.close()


# -- zarr ------------------------------------------------------------------------------

def test_zarr_arrays_and_groups(tmp_path, capsys):
    zarr = pytest.importorskip("zarr")
    x = np.random.default_rng(5).integers(0, 4, size=(6, 9)).astype(np.float64)
    z = zarr.create_array(store=str(tmp_path / "a.zarr"), shape=x.shape, dtype=x.dtype,
                          chunks=(4, 4))
    z[...] = x
    status, out, _ = in_process(capsys, "topk", tmp_path / "a.zarr", "-k", "3", "--axis", "0",
                                "--chunk-bytes", "128")  # one 4x4 chunk of float64
    rec = json.loads(out)
    assert status == 0 and rec["output"] == str(tmp_path / "a.topk.npz")
    with np.load(rec["output"]) as result:
        assert_same_bits(result["indices"], axisops.topk(x, 3, 0, backend="numpy").indices)
    group = zarr.open_group(store=str(tmp_path / "g.zarr"), mode="w")
    group.create_array("data", shape=x.shape, dtype=x.dtype, chunks=(2, 9))[...] = x
    group.create_array("idx", shape=(6, 2), dtype="int64", chunks=(3, 2))[...] = [[0, -1]] * 6
    target = tmp_path / "g.npy"
    status, _, _ = in_process(capsys, "gather", tmp_path / "g.zarr", tmp_path / "g.zarr",
                              "--dim", "1", "--key", "data", "--index-key", "idx", "-o", target)
    assert status == 0
    np.testing.assert_array_equal(np.load(target), x[:, [0, -1]])
    for args, needle in [
        ([], "is a zarr group of 2 arrays, name one with --key (keys: data, idx)"),
        (["--key", "nope"], "no array named 'nope' (keys: data, idx)"),
    ]:
        status, out, err = in_process(capsys, "topk", tmp_path / "g.zarr", "-k", "1", *args)
        assert status == 1 and out == "" and needle in err
    status, _, err = in_process(capsys, "topk", tmp_path / "a.zarr", "-k", "1", "--key", "nope")
    assert status == 1 and "is a zarr array, not a group" in err
    status, out, err = in_process(capsys, "topk", tmp_path / "a.zarr", "-k", "1",
                                  "--chunk-bytes", "127")
    assert status == 1 and out == "" and len(err.splitlines()) == 1
    assert "its zarr chunks (4, 4) of float64 take 128 bytes each" in err
    assert "pass --chunk-bytes 128 or more" in err


def test_zarr_errors(tmp_path, monkeypatch, capsys):
    (tmp_path / "broken.zarr").mkdir()
    (tmp_path / "broken.zarr" / "zarr.json").write_text("{not json")
    with monkeypatch.context() as without:
        without.setitem(sys.modules, "zarr", None)
        with pytest.raises(FileError, match=r"needs the zarr package \(pip install 'axisops\[zarr\]'\)"):
            open_source(str(tmp_path / "broken.zarr"))
    pytest.importorskip("zarr")
    status, _, err = in_process(capsys, "topk", tmp_path / "broken.zarr", "-k", "1")
    assert status == 1 and "is not a readable zarr array" in err and "Traceback" not in err


def test_plain_directory_is_not_an_input(tmp_path):
    with pytest.raises(FileError, match="is a directory"):
        open_source(str(tmp_path))


def test_float_dtypes_with_nan_payloads_survive_the_stream(tmp_path):
    for dtype in FLOAT_DTYPES:
        if dtype == BF16:
            continue
        x = np.array([[np.nan, 1, -0.0, 0.0, np.inf, np.nan]] * 3, dtype)
        x.view(f"u{dtype.itemsize}")[0, 0] |= 1  # a NaN with a payload
        np.save(tmp_path / "x.npy", x)
        run_topk(str(tmp_path / "x.npy"), 4, output=str(tmp_path / "o.npz"), chunk_bytes=3)
        with np.load(tmp_path / "o.npz") as z:
            assert_same_bits(z["values"], axisops.topk(x, 4, backend="numpy").values)
