"""The streamed gather of an index that jumps about an ``x`` too large to read whole.

Each index box used to read every block of ``x`` its values fell in, so a random
index made every box read most of ``x`` again (a (16M, 1) ``x``, a 2M random
index and 256 KiB chunks took 8.5x as long as with the index sorted).  Once a
column's boxes have read twice the blocks of its region, the rest of the column
goes through scratch files ordered by block, and each block is read once more.
The tests count the bytes read from ``x`` (the mechanism, not the time).
"""

import numpy as np
import pytest

import axisops
from axisops.streaming import stream, tempfiles
from disk import listing

from oracle import assert_same_bits

CHUNK = 32 * 1024


@pytest.fixture
def reads(monkeypatch):
    """The bytes of every block of ``x`` read, and the columns gathered by blocks."""
    seen = {"bytes": [], "by_blocks": []}
    read_block, by_blocks = stream._Region.read_block, stream._by_blocks

    def counted_read(self, box, j):
        data = read_block(self, box, j)
        seen["bytes"].append(data.nbytes)
        return data

    def counted_by_blocks(boxes, *args):
        seen["by_blocks"].append(len(boxes))
        return by_blocks(boxes, *args)

    monkeypatch.setattr(stream._Region, "read_block", counted_read)
    monkeypatch.setattr(stream, "_by_blocks", counted_by_blocks)
    return seen


def _save(folder, x, index, order):
    np.save(folder / "x.npy", np.asarray(x, order=order))
    np.save(folder / "i.npy", np.asarray(index, order=order))


@pytest.mark.parametrize(("shape", "dim", "index_shape", "order", "dtype"), [
    ((40_000, 3), 0, (30_000, 3), "C", "float32"),
    ((3, 40_000), 1, (3, 30_000), "F", "float32"),
    ((3000, 4, 5), 0, (4000, 4, 5), "C", "complex128"),
    ((4, 40_000, 5), 1, (3, 30_000, 4), "F", "int16"),
    ((3, 2, 200_000), -1, (3, 2, 100_000), "C", "bool"),
])
def test_a_jumping_index_reads_each_block_of_x_a_bounded_number_of_times(
        tmp_path, reads, shape, dim, index_shape, order, dtype):
    rng = np.random.default_rng(0)
    x = (rng.random(shape) * 1000).astype(dtype)
    n = shape[dim]
    index = rng.integers(-n, n, size=index_shape)
    _save(tmp_path, x, index, order)
    got = axisops.gather_file(tmp_path / "x.npy", dim, tmp_path / "i.npy", chunk_bytes=CHUNK)
    assert_same_bits(got, axisops.gather(x, dim, index, backend="numpy"))
    assert reads["by_blocks"], "no column was gathered by blocks"
    # Each column's region: twice by boxes, once more by the box that ran over, once by
    # blocks (before: once per box, dozens of times).
    assert sum(reads["bytes"]) <= 4 * x.nbytes + len(reads["bytes"]) * CHUNK // 8


def test_a_sorted_index_stays_box_by_box(tmp_path, reads):
    rng = np.random.default_rng(1)
    x = rng.random((40_000, 3), np.float32)
    index = np.sort(rng.integers(0, 40_000, size=(30_000, 3)), axis=0)
    _save(tmp_path, x, index, "C")
    got = axisops.gather_file(tmp_path / "x.npy", 0, tmp_path / "i.npy", chunk_bytes=CHUNK)
    assert_same_bits(got, np.take_along_axis(x, index, 0))
    assert reads["by_blocks"] == []  # one or two blocks a box: no scratch files needed


@pytest.mark.parametrize("named", [False, True])
def test_scratch_files_go_beside_the_output_and_nothing_is_left(tmp_path, monkeypatch, reads,
                                                                named):
    if named:  # no O_TMPFILE: named scratch files, removed at the end
        monkeypatch.setattr(tempfiles, "_unnamed_supported", lambda: False)
    created = []
    create = tempfiles.create

    def spy(directory, label, mode):
        created.append((directory, label))
        return create(directory, label, mode)

    monkeypatch.setattr(tempfiles, "create", spy)
    rng = np.random.default_rng(2)
    x = rng.random((40_000, 2), np.float32)
    index = rng.integers(0, 40_000, size=(20_000, 2))
    _save(tmp_path, x, index, "C")
    out = tmp_path / "out.npy"
    assert axisops.gather_file(tmp_path / "x.npy", 0, tmp_path / "i.npy", out=out,
                               chunk_bytes=CHUNK) == str(out)
    assert_same_bits(np.load(out), np.take_along_axis(x, index, 0))
    assert reads["by_blocks"]
    assert {label for _, label in created} >= {"gather.places", "gather.positions",
                                               "gather.values"}
    assert all(directory == tmp_path for directory, label in created if "gather." in label)
    assert listing(tmp_path) == ["i.npy", "out.npy", "x.npy"]


def test_a_bad_value_in_a_late_box_writes_nothing(tmp_path, reads):
    rng = np.random.default_rng(3)
    x = rng.random((40_000, 2), np.float32)
    index = rng.integers(0, 40_000, size=(20_000, 2))
    index[-1, 1] = 40_000
    _save(tmp_path, x, index, "C")
    with pytest.raises(axisops.IndexOutOfRangeError) as info:
        axisops.gather_file(tmp_path / "x.npy", 0, tmp_path / "i.npy",
                            out=tmp_path / "out.npy", chunk_bytes=CHUNK)
    with pytest.raises(axisops.IndexOutOfRangeError) as want:
        axisops.gather(x, 0, index, backend="numpy")
    assert str(info.value).split(": ", 1)[1] == str(want.value).split(": ", 1)[1]
    assert reads["by_blocks"]  # the bad value was met in the scratch pass
    assert listing(tmp_path) == ["i.npy", "x.npy"]
