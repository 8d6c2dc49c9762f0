"""The real ``axisops`` command, run in a subprocess on real files."""

import argparse
import json
import re

import numpy as np
import pytest

from axisops.cli import demo
from axisops.cli.main import build_parser
from subprocess_helpers import SCRIPT
from subprocess_helpers import run_cli as run

from oracle import ref_gather, ref_topk


def ok(proc):
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    assert len(lines) == 1, proc.stdout
    return json.loads(lines[0])


def failed(proc, status=1, *needles):
    assert proc.returncode == status, (proc.returncode, proc.stdout, proc.stderr)
    assert "Traceback" not in proc.stderr
    assert proc.stdout == ""
    if status == 1:
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    for needle in needles:
        assert needle in proc.stderr, proc.stderr
    return proc.stderr


@pytest.fixture
def data(tmp_path):
    rng = np.random.default_rng(0)
    x = rng.integers(0, 5, size=(6, 9)).astype(np.float32)
    np.save(tmp_path / "x.npy", x)
    return tmp_path, x


def test_console_script_is_installed():
    assert SCRIPT is not None
    proc = run("--version", script=True)
    assert proc.returncode == 0 and proc.stdout.startswith("axisops ")


def _commands():
    """The command line's commands, in the order of its help."""
    sub = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    return list(sub.choices)


def test_help_describes_every_command():
    """The top-level help lists every command with a line of help, and its description
    names the commands beyond top-k and gather; every command's own help describes it."""
    commands = _commands()
    assert {"topk", "gather", "info", "demo", "bench"} <= set(commands)
    top = run("--help")
    assert top.returncode == 0, top.stderr
    assert [name for name, _ in re.findall(r"^    (\w+) +(\S.*)$", top.stdout, re.M)] == commands
    description = " ".join(top.stdout.split("\n\n")[1].split())
    assert "top-k" in description and "gather" in description
    assert all(f"({name})" in description for name in commands if name not in ("topk", "gather"))
    for name in commands:
        proc = run(name, "--help")
        assert proc.returncode == 0, proc.stderr
        usage, description, *_ = proc.stdout.split("\n\n")
        assert usage.startswith(f"usage: axisops {name}")
        assert not description.startswith(("options:", "positional arguments:"))
        assert len(description.split()) >= 15, (name, description)


def test_what_a_user_reads_names_backends_never_engines(data):
    """What ``backend=`` names is a backend in the help, in ``axisops info`` and in the
    messages (the backends' own descriptions, from their modules, are left out here)."""
    folder, _ = data
    texts = [run("--help").stdout, *(run(name, "--help").stdout for name in _commands())]
    info = run("info").stdout
    for row in json.loads(run("info", "--json").stdout)["backends"]:
        info = info.replace(row["description"], "")
    assert "default backend for NumPy arrays: " in info and "\nbackends:\n" in info
    texts += [info, failed(run("topk", str(folder / "x.npy"), "-k", "1", "--backend", "nope"))]
    assert [t for t in texts if "engine" in t.lower()] == []


def test_topk_writes_values_and_indices(data):
    folder, x = data
    rec = ok(run("topk", str(folder / "x.npy"), "-k", "3", "--axis", "0", script=True))
    out = folder / "x.topk.npz"
    assert rec["output"] == str(out) and rec["k"] == 3 and rec["axis"] == 0
    assert rec["shape"] == [6, 9] and rec["dtype"] == "float32" and rec["values_shape"] == [3, 9]
    assert rec["seconds"] >= 0 and rec["backend"]
    with np.load(out) as z:
        v, i = ref_topk(x, 3, 0, True)
        np.testing.assert_array_equal(z["values"], v)
        np.testing.assert_array_equal(z["indices"], i)
    assert not [p for p in folder.iterdir() if p.name.endswith(".part")]


def test_topk_options(data):
    folder, x = data
    out = folder / "small.npz"
    rec = ok(run("topk", str(folder / "x.npy"), "-k", "2", "--smallest", "--unsorted",
                 "--index-dtype", "int16", "-o", str(out)))
    assert rec["largest"] is False and rec["sorted"] is False and rec["index_dtype"] == "int16"
    with np.load(out) as z:
        assert z["indices"].dtype == np.int16
        want = ref_topk(x, 2, -1, False)[1]
        np.testing.assert_array_equal(np.sort(z["indices"], -1), np.sort(want, -1))


def test_topk_from_npz_key(tmp_path):
    np.savez(tmp_path / "a.npz", first=np.arange(5), second=np.arange(5)[::-1].copy())
    rec = ok(run("topk", str(tmp_path / "a.npz"), "--key", "second", "-k", "1"))
    with np.load(rec["output"]) as z:
        assert z["indices"].tolist() == [0]
    err = failed(run("topk", str(tmp_path / "a.npz"), "-k", "1"), 1, "holds 2 arrays", "--key")
    assert "first, second" in err
    failed(run("topk", str(tmp_path / "a.npz"), "--key", "third", "-k", "1"), 1,
           "no array named 'third' (keys: first, second)")


def test_single_array_npz_needs_no_key(tmp_path):
    np.savez(tmp_path / "one.npz", only=np.array([1, 9, 3]))
    rec = ok(run("topk", str(tmp_path / "one.npz"), "-k", "1"))
    assert rec["output"].endswith("one.topk.npz")


def test_gather(tmp_path):
    x = np.arange(12).reshape(3, 4)
    idx = np.array([[3, -1], [0, 2]])
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "i.npy", idx)
    rec = ok(run("gather", str(tmp_path / "x.npy"), str(tmp_path / "i.npy"), "--dim", "1",
                 script=True))
    assert rec["output"] == str(tmp_path / "x.gather.npy") and rec["out_shape"] == [2, 2]
    np.testing.assert_array_equal(np.load(rec["output"]), ref_gather(x, 1, idx))


def test_gather_from_npz_index_key(tmp_path):
    np.save(tmp_path / "x.npy", np.arange(4.0))
    np.savez(tmp_path / "i.npz", a=np.array([3, 0]), b=np.array([1]))
    out = tmp_path / "o.npy"
    ok(run("gather", str(tmp_path / "x.npy"), str(tmp_path / "i.npz"), "--dim", "0",
           "--index-key", "a", "-o", str(out)))
    assert np.load(out).tolist() == [3.0, 0.0]


def test_info_and_json():
    proc = run("info")
    assert proc.returncode == 0 and "backends:" in proc.stdout and "threads:" in proc.stdout
    data = json.loads(run("info", "--json").stdout)
    assert data["threads"] >= 1 and any(b["name"] == "numpy" for b in data["backends"])


def test_demo_runs_the_examples_of_the_pages(tmp_path):
    proc = run("demo", "--dir", str(tmp_path / "d"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines()[-1] == (
        "all 6 examples of the DirectML TOP_K1 and aclnnGather pages give the documented "
        f"outputs; files in {tmp_path / 'd'}")
    assert proc.stdout.count("the output documented on DirectML's TOP_K1 page: yes") == 4
    assert proc.stdout.count("the output documented on the aclnnGather page: yes") == 2
    assert "seed" not in proc.stdout
    assert (tmp_path / "d" / "x.npy").exists()


def test_demo_names_an_example_that_gives_another_output(tmp_path, monkeypatch, capsys):
    *example, _ = demo.GATHER_EXAMPLES[1]
    monkeypatch.setattr(demo, "GATHER_EXAMPLES",
                        [demo.GATHER_EXAMPLES[0], (*example, [[0, 0], [0, 0]])])
    assert demo.run_demo(tmp_path) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[-2].startswith("  the output documented on the aclnnGather page: NO (")
    assert lines[-1] == ("5 of the 6 examples of the DirectML TOP_K1 and aclnnGather pages "
                         f"give the documented outputs, 1 do NOT; files in {tmp_path}")


def _no_outputs(folder):
    return [p.name for p in folder.iterdir() if ".topk" in p.name or ".gather" in p.name
            or p.name.endswith(".part") or p.name.startswith("out")]


@pytest.mark.parametrize("args, needle", [
    (["-k", "99"], "k=99 is out of range for axis 1 of size 9"),
    (["-k", "2", "--axis", "5"], "axis=5 is out of range"),
    (["-k", "2", "--index-dtype", "float32"], "index_dtype=float32 is not an integer type"),
    (["-k", "2", "--index-dtype", "int3"], "index_dtype='int3' is not a dtype"),
    (["-k", "2", "--backend", "nope"], "backend='nope' is not a backend"),
    (["-k", "2", "--key", "a"], "--key applies to .npz archives only"),
])
def test_bad_values_exit_1_and_write_nothing(data, args, needle):
    folder, _ = data
    failed(run("topk", str(folder / "x.npy"), *args, "-o", str(folder / "out.npz")), 1, needle)
    assert _no_outputs(folder) == []


@pytest.mark.parametrize("args", [
    ["topk", "X"], ["topk", "X", "-k", "two"], ["gather", "X", "I"], ["frobnicate"], [],
    ["topk", "X", "-k", "1", "--axis", "1.5"],
])
def test_usage_errors_exit_2(data, args):
    folder, _ = data
    args = [str(folder / "x.npy") if a == "X" else a for a in args]
    proc = run(*args)
    assert proc.returncode == 2 and "usage:" in proc.stderr and "Traceback" not in proc.stderr


def test_object_and_pickled_files_are_refused(tmp_path):
    np.save(tmp_path / "obj.npy", np.array([1, "a", None], dtype=object), allow_pickle=True)
    failed(run("topk", str(tmp_path / "obj.npy"), "-k", "1"), 1,
           "holds Python objects (object dtype), which are never unpickled")
    (tmp_path / "pickle.npy").write_bytes(b"\x80\x04\x95 not a numpy file at all")
    failed(run("topk", str(tmp_path / "pickle.npy"), "-k", "1"), 1, "pickle.npy")
    np.savez(tmp_path / "obj.npz", o=np.array([None], dtype=object))
    failed(run("topk", str(tmp_path / "obj.npz"), "-k", "1"), 1, "Python objects")
    assert _no_outputs(tmp_path) == []


@pytest.mark.parametrize("content", [b"\x93NUMPY\x01\x00garbage", b"", b"PK\x03\x04broken"])
def test_malformed_files_are_refused(tmp_path, content):
    for suffix in (".npy", ".npz"):
        path = tmp_path / f"bad{suffix}"
        path.write_bytes(content)
        failed(run("topk", str(path), "-k", "1"), 1, str(path))
    assert _no_outputs(tmp_path) == []


def test_missing_and_unsupported_inputs(tmp_path):
    failed(run("topk", str(tmp_path / "none.npy"), "-k", "1"), 1, "no such file")
    (tmp_path / "a.csv").write_text("1,2,3\n")
    failed(run("topk", str(tmp_path / "a.csv"), "-k", "1"), 1, "unsupported file type '.csv'")
    failed(run("topk", str(tmp_path), "-k", "1"), 1, "is a directory")


def test_output_into_a_missing_directory(data):
    folder, _ = data
    failed(run("topk", str(folder / "x.npy"), "-k", "1", "-o", str(folder / "no" / "o.npz")), 1,
           "does not exist")


def test_gather_errors_write_nothing(tmp_path):
    np.save(tmp_path / "x.npy", np.arange(6).reshape(2, 3))
    np.save(tmp_path / "i.npy", np.array([[0, 3]]))
    np.save(tmp_path / "f.npy", np.array([[0.5]]))
    x, i, f = (str(tmp_path / n) for n in ("x.npy", "i.npy", "f.npy"))
    failed(run("gather", x, i, "--dim", "1"), 1, "index[0, 1]=3 is out of range for dim 1 of size 3")
    failed(run("gather", x, f, "--dim", "1"), 1, "index has dtype float64")
    failed(run("gather", x, i, "--dim", "2"), 1, "dim=2 is out of range")
    failed(run("gather", x, str(tmp_path / "nope.npy"), "--dim", "0"), 1, "INDEX", "no such file")
    assert _no_outputs(tmp_path) == []


def test_memmapped_input_is_untouched(data):
    folder, _ = data
    before = (folder / "x.npy").read_bytes()
    ok(run("topk", str(folder / "x.npy"), "-k", "4"))
    assert (folder / "x.npy").read_bytes() == before
