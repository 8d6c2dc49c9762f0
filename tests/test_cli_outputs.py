"""Where the command line writes: the target's rules, temporary files, other platforms."""

import json
import os
import stat
import subprocess
import sys

import numpy as np
import pytest

from axisops.cli.demo import run_demo
from axisops.cli.main import CLIError, main
from axisops.cli.ops_commands import run_gather, run_topk
from axisops.streaming import errors, tempfiles
from axisops.streaming.errors import FileError
from axisops.streaming.positional import read_at, write_at
from disk import listing
from subprocess_helpers import cli_env

from oracle import ref_gather, ref_topk

POSIX = pytest.mark.skipif(os.name != "posix", reason="POSIX file kinds and modes")


@pytest.fixture
def x_file(tmp_path):
    x = np.random.default_rng(0).integers(0, 5, size=(6, 9)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    return tmp_path / "x.npy", x


def _topk_ok(path, x, k=2):
    with np.load(path) as z:
        want_v, want_i = ref_topk(x, k, -1, True)
        return np.array_equal(z["values"], want_v) and np.array_equal(z["indices"], want_i)


# -- the target ---------------------------------------------------------------------------

def test_output_through_a_symlink_writes_its_target(x_file, tmp_path):
    path, x = x_file
    (tmp_path / "real").mkdir()
    link = tmp_path / "link.npz"
    link.symlink_to(tmp_path / "real" / "out.npz")  # dangling: the target is created
    run_topk(str(path), 2, output=str(link))
    assert link.is_symlink() and _topk_ok(tmp_path / "real" / "out.npz", x)
    run_topk(str(path), 2, output=str(link))  # existing: replaced, the link stays
    assert link.is_symlink() and _topk_ok(link, x)
    assert listing(tmp_path / "real") == ["out.npz"]


@POSIX
def test_devices_and_fifos_are_refused_and_left_alone(x_file, tmp_path):
    path, _ = x_file
    os.mkfifo(tmp_path / "fifo.npz")
    before = os.stat("/dev/null")
    for target, kind in [("/dev/null", "a character device"), (tmp_path / "fifo.npz", "a FIFO")]:
        with pytest.raises(FileError, match=f"is {kind}; axisops writes only regular files"):
            run_topk(str(path), 2, output=str(target))
    after = os.stat("/dev/null")
    assert stat.S_ISCHR(after.st_mode) and (after.st_ino, after.st_rdev) == (
        before.st_ino, before.st_rdev)
    assert stat.S_ISFIFO(os.stat(tmp_path / "fifo.npz").st_mode)
    assert listing(tmp_path) == ["fifo.npz", "x.npy"]


@POSIX
def test_an_existing_output_keeps_its_mode_and_a_new_one_follows_the_umask(x_file, tmp_path):
    path, x = x_file
    out = tmp_path / "o.npz"
    out.write_bytes(b"old")
    os.chmod(out, 0o600)
    run_topk(str(path), 2, output=str(out))
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o600 and _topk_ok(out, x)
    proc = subprocess.run([sys.executable, "-m", "axisops", "topk", str(path), "-k", "2",
                           "--backend", "numpy", "-o", str(tmp_path / "new.npz")],
                          capture_output=True, text=True,
                          env=cli_env(), timeout=120, umask=0o027)
    assert proc.returncode == 0, proc.stderr
    assert stat.S_IMODE(os.stat(tmp_path / "new.npz").st_mode) == 0o640


def test_the_umask_is_never_changed(x_file, tmp_path, monkeypatch):
    def no_umask(mask):
        raise AssertionError("os.umask changes the whole process's umask")

    monkeypatch.setattr(os, "umask", no_umask)
    run_topk(str(x_file[0]), 2, output=str(tmp_path / "o.npz"))
    monkeypatch.setattr(tempfiles, "_unnamed_supported", lambda: False)
    run_topk(str(x_file[0]), 2, output=str(tmp_path / "o.npz"))


def test_an_output_that_is_an_input_is_refused_before_any_work(x_file, tmp_path, monkeypatch):
    path, _ = x_file
    np.save(tmp_path / "i.npy", np.array([[0, 1]]))
    (tmp_path / "alias.npy").symlink_to(path)
    os.link(path, tmp_path / "hard.npy")
    before = path.read_bytes()

    def no_work(*args, **kwargs):
        raise AssertionError("work started")

    monkeypatch.setattr("axisops.streaming.jobs.stream_topk", no_work)
    monkeypatch.setattr("axisops.streaming.jobs.stream_gather", no_work)
    for out in (path, tmp_path / "alias.npy", tmp_path / "hard.npy"):
        with pytest.raises(FileError, match=r"is INPUT .*x\.npy itself"):
            run_topk(str(path), 2, output=str(out))
    with pytest.raises(FileError, match=r"is INPUT .*alias\.npy itself"):
        run_topk(str(tmp_path / "alias.npy"), 2, output=str(path))
    with pytest.raises(FileError, match=r"is INDEX .*i\.npy itself"):
        run_gather(str(path), str(tmp_path / "i.npy"), 1, output=str(tmp_path / "i.npy"))
    assert path.read_bytes() == before
    assert listing(tmp_path) == ["alias.npy", "hard.npy", "i.npy", "x.npy"]


def test_an_existing_output_is_replaced_whole(x_file, tmp_path):
    path, x = x_file
    out = tmp_path / "o.npz"
    out.write_bytes(b"an older result")
    old_inode = os.stat(out).st_ino
    run_topk(str(path), 2, output=str(out))
    assert _topk_ok(out, x) and listing(tmp_path) == ["o.npz", "x.npy"]
    assert os.stat(out).st_ino != old_inode  # a new file renamed over, not rewritten in place


def test_stdout_that_cannot_take_the_result_leaves_no_output(x_file, tmp_path):
    if not os.path.exists("/dev/full"):
        pytest.skip("needs /dev/full")  # Linux and the BSDs have it
    path, _ = x_file
    with open("/dev/full", "w") as full:
        proc = subprocess.run([sys.executable, "-m", "axisops", "topk", str(path), "-k", "2",
                               "--backend", "numpy", "-o", str(tmp_path / "o.npz")], stdout=full,
                              stderr=subprocess.PIPE, text=True, env=cli_env(), timeout=120)
    assert proc.returncode == 1
    assert proc.stderr == ("axisops: error: stdout: cannot print the result (No space left "
                           "on device); no output written\n")
    assert listing(tmp_path) == ["x.npy"]


# -- the demo -------------------------------------------------------------------------------

def test_demo_refuses_to_overwrite_what_it_did_not_write(tmp_path, capsys):
    folder = tmp_path / "d"
    assert run_demo(folder) == 0
    written = {p.name: p.read_bytes() for p in folder.iterdir()}
    assert run_demo(folder) == 0  # its own files: run again over them
    assert listing(folder) == sorted(written)
    np.save(folder / "x.npy", np.zeros(3))  # now a user's file
    users = (folder / "x.npy").read_bytes()
    (folder / "topk1.npz").unlink()
    with pytest.raises(CLIError, match=r"x\.npy is there and is not a file the demo wrote"):
        run_demo(folder)
    assert (folder / "x.npy").read_bytes() == users and not (folder / "topk1.npz").exists()
    capsys.readouterr()


@POSIX
def test_demo_never_opens_a_fifo_or_follows_a_foreign_file(tmp_path, capsys):
    folder = tmp_path / "d"
    folder.mkdir()
    os.mkfifo(folder / "g.npy")
    with pytest.raises(CLIError, match=r"g\.npy is there and is not a file the demo wrote"):
        run_demo(folder)
    (folder / "g.npy").unlink()
    (folder / "topk2.npz").write_bytes(b"PK not really")
    assert main(["demo", "--dir", str(folder)]) == 1
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and "topk2.npz is there" in err
    assert listing(folder) == ["topk2.npz"]


# -- temporary files ------------------------------------------------------------------------

def test_the_sweep_removes_only_dead_runs_files(tmp_path):
    named = tempfiles.create_named(tmp_path, "out.npz", 0o600)  # locked while open
    dead = tmp_path / tempfiles.hidden_name("out.npz")
    dead.write_bytes(b"left by a killed run")
    (tmp_path / ".out.npz.part").write_bytes(b"not ours")
    (tmp_path / "x.axisops-1-abcdefgh.part").write_bytes(b"not hidden: not ours")
    assert tempfiles.sweep(tmp_path) == 1
    assert sorted(listing(tmp_path)) == sorted(
        [".out.npz.part", named.name, "x.axisops-1-abcdefgh.part"])
    named.discard()
    assert listing(tmp_path) == [".out.npz.part", "x.axisops-1-abcdefgh.part"]


def test_named_temporaries_when_o_tmpfile_is_unavailable(x_file, tmp_path, monkeypatch):
    path, x = x_file
    monkeypatch.setattr(tempfiles, "_unnamed_supported", lambda: False)
    seen = []
    create = tempfiles.create_named

    def spy(*args):
        seen.append(create(*args))
        return seen[-1]

    monkeypatch.setattr(tempfiles, "create_named", spy)
    out = tmp_path / "o.npz"
    out.write_bytes(b"old")
    os.chmod(out, 0o640)
    run_topk(str(path), 2, output=str(out))
    assert len(seen) == 3 and _topk_ok(out, x)
    assert stat.S_IMODE(os.stat(out).st_mode) == 0o640
    assert listing(tmp_path) == ["o.npz", "x.npy"]


def test_a_filesystem_without_o_tmpfile_falls_back_to_names(x_file, tmp_path, monkeypatch):
    if not hasattr(os, "O_TMPFILE"):
        pytest.skip("no O_TMPFILE on this platform: the named path is the only one")
    import errno

    real_open = os.open

    def no_tmpfile(path, flags, *args, **kwargs):
        if flags & os.O_TMPFILE == os.O_TMPFILE:
            raise OSError(errno.EOPNOTSUPP, "Operation not supported")
        return real_open(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", no_tmpfile)
    temp = tempfiles.create(tmp_path, "o.npz", 0o600)
    assert not temp.unnamed and tempfiles.PATTERN.fullmatch(temp.name)
    temp.discard()
    run_topk(str(x_file[0]), 2, output=str(tmp_path / "o.npz"))
    assert _topk_ok(tmp_path / "o.npz", x_file[1]) and listing(tmp_path) == ["o.npz", "x.npy"]


@POSIX
def test_an_unnamed_file_that_cannot_be_linked_is_copied_into_place(x_file, tmp_path,
                                                                  monkeypatch):
    """Some systems refuse linkat of /proc/self/fd (no /proc access, odd filesystems)."""
    if not hasattr(os, "O_TMPFILE"):
        pytest.skip("no O_TMPFILE on this platform: nothing is ever linked")
    import errno

    def refuse(*args, **kwargs):
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", refuse)
    path, x = x_file
    out = tmp_path / "o.npz"
    run_topk(str(path), 2, output=str(out))
    out.write_bytes(b"old")
    os.chmod(out, 0o666)  # kept exactly, not less the umask
    run_topk(str(path), 2, output=str(out))
    assert _topk_ok(out, x) and stat.S_IMODE(os.stat(out).st_mode) == 0o666
    assert listing(tmp_path) == ["o.npz", "x.npy"]


# -- other platforms: no preadv, pread, pwrite, fchmod or O_TMPFILE ---------------------------

def test_positional_reads_and_writes_without_the_posix_calls(tmp_path, monkeypatch):
    for name in ("preadv", "pread", "pwrite"):
        monkeypatch.delattr(os, name, raising=False)
    with open(tmp_path / "f", "w+b") as f:
        write_at(f.fileno(), memoryview(b"abcdef"), 3)
        buf = bytearray(4)
        assert read_at(f.fileno(), memoryview(buf), 2) == 4 and bytes(buf) == b"\0abc"
        assert read_at(f.fileno(), memoryview(buf), 7) == 2 and bytes(buf[:2]) == b"ef"


@pytest.mark.parametrize("removed", [("preadv", "fchmod"),
                                     ("preadv", "pread", "pwrite", "fchmod")])
def test_round_trips_without_the_posix_calls(tmp_path, monkeypatch, removed):
    """In this process: the fallbacks give exactly the results the fast calls give."""
    for name in removed:
        monkeypatch.delattr(os, name, raising=False)
    monkeypatch.setattr(tempfiles, "_unnamed_supported", lambda: False)
    _round_trip(tmp_path)


PORTABLE_CHILD = r"""
import os, sys
for name in ("preadv", "pread", "pwrite", "fchmod", "O_TMPFILE"):
    if hasattr(os, name):
        delattr(os, name)
from axisops.cli.main import main  # imported only now, as on a platform without them
sys.exit(main(sys.argv[1:]))
"""


def test_the_command_without_the_posix_calls(tmp_path):
    """A fresh interpreter where os lacks them before the CLI modules are imported."""
    def run(*args):
        proc = subprocess.run([sys.executable, "-c", PORTABLE_CHILD, *map(str, args)],
                              capture_output=True, text=True, env=cli_env(), timeout=120)
        assert proc.returncode == 0, proc.stderr
        return json.loads(proc.stdout)

    _round_trip(tmp_path, run)


def _round_trip(folder, run=None):
    """A top-k and a gather in several boxes, Fortran order included, checked exactly."""
    rng = np.random.default_rng(7)
    x = np.asfortranarray(rng.integers(-9, 9, size=(40, 30)).astype(np.int64))
    index = rng.integers(-30, 30, size=(35, 12))
    np.save(folder / "x.npy", x)
    np.savez(folder / "i.npz", index=index)
    existing = folder / "t.npz"
    existing.write_bytes(b"old")
    os.chmod(existing, 0o600)
    common = ["--backend", "numpy"]  # the I/O is under test, not the kernels
    topk = ["topk", folder / "x.npy", "-k", "5", "--axis", "0", "--chunk-bytes", "512",
            "-o", existing, *common]
    gather = ["gather", folder / "x.npy", folder / "i.npz", "--dim", "1", "--chunk-bytes",
              "300", "-o", folder / "g.npy", *common]
    for args in (topk, gather):
        if run is None:
            assert main([str(a) for a in args]) == 0
        else:
            assert run(*args)["chunks"] > 1
    with np.load(existing) as z:
        want_v, want_i = ref_topk(x, 5, 0, True)
        np.testing.assert_array_equal(z["values"], want_v)
        np.testing.assert_array_equal(z["indices"], want_i)
    np.testing.assert_array_equal(np.load(folder / "g.npy"), ref_gather(x, 1, index))
    if os.name == "posix":
        assert stat.S_IMODE(os.stat(existing).st_mode) == 0o600
    assert listing(folder) == ["g.npy", "i.npz", "t.npz", "x.npy"]


def test_messages_are_one_line_whatever_the_names():
    assert errors.one_line("a\nb\x00c\u200bd é") == "a\\nb\\x00c\\u200bd é"
    assert len(errors.one_line("x" * 5000)) == errors.MAX_MESSAGE
    assert errors.show_names(["a, b", " lead", ""]) == "'a, b', ' lead', ''"
