"""The CPU benchmark: a real quick run end to end, its verdicts, and the memory probe."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from axisops.bench.cases import CASES, Case, Target, quick_cases
from axisops.bench.memory import peak_growth
from axisops.bench.peers import Runner
from axisops.bench.report import case_record
from axisops.bench.timing import CaseTimes, time_case

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_quick_run_through_the_cli_writes_exact_results(tmp_path):
    for peer in ("torch", "onnxruntime", "matplotlib"):  # the peers asked for, and the plot
        pytest.importorskip(peer)
    out, png = tmp_path / "b.json", tmp_path / "b.png"
    proc = subprocess.run(
        [sys.executable, "-m", "axisops", "bench", "--quick", "--cases", "MoE", "--peers",
         "numpy,torch,ort", "--repeats", "2", "--json", str(out), "--png", str(png)],
        capture_output=True, text=True, timeout=240)  # under pytest's 300
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads(out.read_text())
    names = [c.name for c in quick_cases() if "MoE" in c.name]
    assert len(names) == 4 and [r["case"] for r in report["cases"]] == names
    for r in report["cases"]:
        assert r["exact"] is True
        want = {"floor", "axisops", "numpy", "torch"} | ({"ort"} if r["dtype"] != "bfloat16"
                                                          else set())
        assert set(r["seconds"]) == want
        assert all(s > 0 for s in r["seconds"].values())
        assert r["x_floor"]["floor"] == pytest.approx(1.0)
        assert r["targets"] == []  # quick shapes are not held to the full-size targets
    assert report["machine"]["threads"] >= 1 and report["memory"] == []
    assert report["machine"]["cpu"] in proc.stdout
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "quick float32 (819, 64) k=2 (MoE router (8192, 64) k=2)" in proc.stdout
    assert "quick: reduced shapes, no targets" in proc.stdout


def _quick_moe(folder, *args):
    """A quick run of the three small MoE rows, numpy alone, one call each, in ``folder``."""
    proc = subprocess.run(
        [sys.executable, "-m", "axisops", "bench", "--quick", "--cases", "MoE router (8192",
         "--peers", "numpy", "--repeats", "1", *args],
        capture_output=True, text=True, timeout=240, cwd=folder)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout


def test_the_benchmark_writes_files_only_when_asked(tmp_path):
    out = _quick_moe(tmp_path)
    assert list(tmp_path.iterdir()) == [] and "wrote" not in out
    out = _quick_moe(tmp_path, "--json", "b.json")
    assert [p.name for p in tmp_path.iterdir()] == ["b.json"]
    assert out.rstrip().endswith("wrote b.json")
    assert len(json.loads((tmp_path / "b.json").read_text())["cases"]) == 3


def test_the_table_columns_line_up_whatever_the_names(tmp_path):
    """The case names differ in length and are longer than any fixed column: every
    entry still ends under the end of its right-aligned heading."""
    names = [c.name for c in quick_cases() if "MoE router (8192" in c.name]
    assert len({len(n) for n in names}) == 3 and min(map(len, names)) > 52
    lines = _quick_moe(tmp_path).splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("case "))
    header, rule, rows = lines[at], lines[at + 1], lines[at + 2:at + 2 + len(names)]
    assert rule == "-" * len(header)
    ends, start = [], 0
    for heading in ("floor", "axisops", "x floor", "numpy", "vs best"):
        start = header.index(heading, start) + len(heading)
        ends.append(start)
    assert header.index("floor") > max(map(len, names))
    for name, row in zip(names, rows):
        assert row.startswith(name + " ")
        for end in ends:
            assert row[end - 1] != " " and row[end:end + 1] in ("", " "), (row, end)


def test_rounds_merge_every_call_of_every_round(tmp_path, monkeypatch):
    """``--rounds 3``: each case timed in three rounds of all cases, its figure the median
    of all 3 x 2 calls (a spy on the timing counts the rounds and the calls)."""
    from axisops.bench import main as bench_main

    seen = []
    real = bench_main.time_case

    def spy(case, runners, repeats, **kw):
        times = real(case, runners, repeats, **kw)
        seen.append((case.name, {n: list(s) for n, s in times.samples.items()}))
        return times

    monkeypatch.setattr(bench_main, "time_case", spy)
    args = bench_main.build_parser().parse_args(
        ["--quick", "--cases", "MoE router (8192", "--peers", "numpy", "--repeats", "2",
         "--rounds", "3", "--json", str(tmp_path / "r.json"), "--png", str(tmp_path / "r.png")])
    payload = bench_main.run(args)
    names = [c.name for c in quick_cases() if "MoE router (8192" in c.name]
    assert [name for name, _ in seen] == names * 3
    assert payload["rounds"] == 3 and [r["case"] for r in payload["cases"]] == names
    for r in payload["cases"]:
        calls = [s[impl] for name, s in seen if name == r["case"] for impl in ("axisops",)]
        merged = np.median([t for round_ in calls for t in round_])
        assert r["seconds"]["axisops"] == pytest.approx(merged)
        assert len(calls) == 3 and all(len(c) == 2 for c in calls)


def test_each_implementation_warms_up_for_at_least_a_time_after_its_pause(monkeypatch):
    """After the idle pause, untimed calls go round the copies until ``warm`` seconds
    have passed (a fake clock: each call takes 0.1 s), at least once per copy, and only
    then the timed calls start; with ``warm=0`` one call per copy."""
    from axisops.bench import timing

    clock = {"now": 0.0}
    monkeypatch.setattr(timing.time, "perf_counter", lambda: clock["now"])
    monkeypatch.setattr(timing.time, "sleep", lambda s: clock.__setitem__("now", clock["now"] + s))
    case = Case("tiny", (4, 8), k=1)

    def runner(name, log):
        def call(args):
            log.append(args[1])
            clock["now"] += 0.1
        return Runner(name, lambda x, i: (x, len(log)), call)

    for warm, untimed in ((0.55, 6), (0.0, 2), (0.15, 2)):
        log: list = []
        times = time_case(case, [runner("a", log)], repeats=3, max_copies=2, idle=1.0, warm=warm)
        assert len(log) == untimed + 3 and times.copies == 2
        assert times.samples["a"] == pytest.approx([0.1] * 3)


def test_the_script_is_the_same_program():
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench.py"), "--help"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "--memory" in proc.stdout


def test_the_command_ships_with_the_package_and_imports_no_peer(tmp_path):
    """``axisops bench`` outside a checkout (another folder, no benchmarks/ in sight); its
    parser costs no peer import."""
    code = ("import sys; from axisops.cli.main import build_parser; build_parser(); "
            "print(sorted({'torch', 'jax', 'onnxruntime', 'matplotlib'} & set(sys.modules)))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout.strip() == "[]", proc.stderr
    proc = subprocess.run([sys.executable, "-m", "axisops", "bench", "--help"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "--frameworks" in proc.stdout


def test_a_peer_that_is_not_installed_is_named_with_its_extra(monkeypatch, tmp_path):
    from axisops.bench import main as bench_main
    from axisops.bench import peers

    monkeypatch.setitem(peers.PEER_NEEDS, "ort", (("a_module_that_is_not_installed",), "bench"))
    assert peers.missing_peers(("numpy", "ort")) == ["ort (pip install 'axisops[bench]')"]
    out = tmp_path / "out.txt"
    args = bench_main.build_parser().parse_args(
        ["--quick", "--cases", "MoE router (8192", "--peers", "numpy,ort", "--repeats", "1",
         "--json", str(tmp_path / "r.json"), "--png", str(tmp_path / "r.png")])
    with out.open("w") as stream:
        payload = bench_main.run(args, stream)
    text = out.read_text()
    assert "# not installed, not timed: ort (pip install 'axisops[bench]')" in text
    assert all("ort" not in r["seconds"] for r in payload["cases"])


def _record(targets, twin=None, **seconds):
    case = Case("c", (1, 10), k=1, targets=targets)
    return case_record(CaseTimes(case, seconds=seconds), exact=True, twin=twin)


def test_target_verdicts():
    r = _record((Target(max_floor=2),), floor=1.0, axisops=2.5, numpy=10.0)
    assert r["targets"][0]["met"] is False and r["targets"][0]["value"] == "2.50 floor"
    r = _record((Target(peer="best", min_speedup=4),), floor=1.0, axisops=2.0, numpy=10.0,
                torch=8.0)
    assert r["best_peer"] == "torch" and r["targets"][0]["value"] == "4.00x"
    assert r["targets"][0]["met"] is True
    r = _record((Target(peer="jax", min_speedup=1.2),), floor=1.0, axisops=2.0, numpy=3.0)
    assert r["targets"][0]["met"] is None  # jax is not in this run
    either = Target(peer="best", min_speedup=2, max_floor=1.3)
    r = _record((either,), floor=1.0, axisops=1.2, ort=1.5)  # slower than 2x, near the floor
    assert r["targets"][0]["met"] is True and r["targets"][0]["value"] == "1.25x, 1.20 floor"
    r = _record((either,), floor=1.0, axisops=1.5, ort=1.5)
    assert r["targets"][0]["met"] is False
    r = _record((Target(max_twin=3),), twin=0.5, floor=1.0, axisops=2.0)
    assert r["targets"][0]["met"] is False and r["x_twin"] == pytest.approx(4.0)


def test_every_case_is_one_the_issues_name():
    names = [c.name for c in CASES]
    assert len(set(names)) == len(names)
    for wanted in ("MoE router (8192, 64) k=2", "MoE router (65536, 128) k=8",
                   "sampling (32, 128000) k=50", "kNN (2000, 100000) k=10",
                   "bfloat16 MoE router (8192, 64) k=2", "float16 MoE router (8192, 64) k=2"):
        assert wanted in names
    topk = [c for c in CASES if c.op == "topk"]
    assert all(0 < c.k <= c.shape[c.axis] for c in topk)
    for c in CASES:  # an adversarial pattern is timed after its random twin, same shape and k
        if c.twin:
            twin = CASES[names.index(c.twin)]
            assert names.index(c.twin) < names.index(c.name)
            assert (twin.shape, twin.k, twin.axis, twin.largest, twin.pattern) == (
                c.shape, c.k, c.axis, c.largest, "random")
    quick = quick_cases()
    assert all(0 < c.k <= c.shape[c.axis] and c.targets == () for c in quick if c.op == "topk")
    assert all(c.name.startswith("quick ") for c in quick)


@pytest.mark.parametrize("case", [c for c in CASES if c.pattern != "random"],
                         ids=lambda c: c.pattern)
def test_patterns_are_what_they_say(case):
    from axisops.bench.cases import make_input

    small = Case(case.name, tuple(min(s, 2000) for s in case.shape), k=1, axis=case.axis,
                 pattern=case.pattern)
    x = make_input(small, 0)
    assert x.shape == small.shape and x.dtype == np.float32
    first = np.moveaxis(x, small.axis, -1).reshape(-1, x.shape[small.axis])[0]
    if case.pattern == "ascending":
        assert np.all(np.diff(first) > 0)
    elif case.pattern == "descending":
        assert np.all(np.diff(first) < 0)
    elif case.pattern == "zeros":
        assert np.all(x == 0) and np.signbit(x).any() and (~np.signbit(x)).any()
    elif case.pattern == "three":
        assert set(np.unique(x).tolist()) == {-1.0, 0.0, 1.0}
    elif case.pattern in ("every16zero", "spike16"):
        assert len(np.unique(x)) == 2


@pytest.mark.skipif(not sys.platform.startswith("linux"),
                    reason="the peak RSS probe reads /proc (Linux)")
def test_topk_needs_no_input_sized_temporaries():
    """Peak RSS growth of one call on a 40 MB input: axisops keeps to small scratch,
    where the numpy route allocates at least the input's size again."""
    ours = peak_growth("axisops", 1, 10_000_000, 100)
    theirs = peak_growth("numpy", 1, 10_000_000, 100)
    assert ours["peak_growth_mb"] < 0.25 * ours["input_mb"], ours
    assert theirs["peak_growth_mb"] >= 1.0 * theirs["input_mb"], theirs


def test_framework_rows_agree_with_the_frameworks_and_carry_their_targets():
    import io

    pytest.importorskip("torch")
    pytest.importorskip("jax")

    from axisops.bench import frameworks

    out = io.StringIO()
    records = frameworks.run(out, quick=True, repeats=1)
    assert [r["row"].split(" (")[0] for r in records] == [
        "torch op layer", "torch router fwd+bwd", "jax jit top-k", "jax jit top-k"]
    assert all(r["agree"] is True and r["ratio"] > 0 for r in records)
    assert [r["max_ratio"] for r in records] == [1.2, 1.0, 1.3, None]
    assert all(r["met"] == (r["ratio"] <= r["max_ratio"]) for r in records[:3])
    assert "vs lax.top_k" in out.getvalue() and "vs torch.topk" in out.getvalue()


def test_selection_rows_are_exact_and_timed_against_their_peers(tmp_path, monkeypatch):
    """The selection family's rows (quick shapes): each exact against axisops.reference,
    timed against the peers that have the op (torch has no partition, JAX no kthvalue)."""
    from axisops.bench import main as bench_main
    from axisops.bench.cases import SELECT_OPS

    pytest.importorskip("torch")
    quick = tuple(c for c in quick_cases() if c.op in SELECT_OPS)
    assert {c.op for c in quick} == set(SELECT_OPS)
    monkeypatch.setattr(bench_main, "quick_cases", lambda: quick)
    args = bench_main.build_parser().parse_args(
        ["--quick", "--peers", "numpy,torch", "--repeats", "1",
         "--json", str(tmp_path / "s.json"), "--png", str(tmp_path / "s.png")])
    payload = bench_main.run(args)
    assert [r["case"] for r in payload["cases"]] == [c.name for c in quick]
    for r in payload["cases"]:
        assert r["exact"] is True, r["case"]
        torch_has_it = r["op"] not in ("partition", "argpartition")
        assert set(r["seconds"]) == {"floor", "axisops", "numpy"} | (
            {"torch"} if torch_has_it else set())


# -- NumPy's default kinds, and the machine -------------------------------------------------

def _names_with(peer, cases):
    from axisops.bench.peers import peer_runners

    return [c.name for c in cases if any(r.name == peer for r in peer_runners(c, 1, (peer,)))]


def test_numpy_default_kinds_time_the_sorts_and_the_top_k_of_a_large_k():
    """``numpy-default`` on the sort and argsort rows and the top-k rows of a large k
    (k >= n/64 on rows of 1000 or more), nowhere else; the sort family is in --quick."""
    from axisops.bench.cases import SELECT_OPS
    from axisops.bench.peers import large_k

    quick = quick_cases()
    assert {c.op for c in quick} >= set(SELECT_OPS)
    for cases in (CASES, quick):
        timed = set(_names_with("numpy-default", cases))
        assert timed == {c.name for c in cases if c.op in ("sort", "argsort") or large_k(c)}
        assert any(c.op == "topk" for c in cases if c.name in timed)
    names = set(_names_with("numpy-default", CASES))
    assert "(10M,) k=624999 random" in names and "(10k, 1000) k=1000 full sort" in names
    assert "MoE router (8192, 64) k=2" not in names and "(1, 10M) k=1000" not in names


@pytest.mark.parametrize("op, k, largest", [("sort", 0, True), ("argsort", 0, True),
                                            ("topk", 100, True), ("topk", 100, False),
                                            ("topk", 2000, True)])
def test_numpy_default_gives_the_same_elements_in_its_own_order(op, k, largest):
    import axisops
    from axisops.bench.peers import numpy_default

    x = np.random.default_rng(3).integers(0, 50, size=(3, 2000)).astype(np.float32)
    got = numpy_default(x, Case("c", x.shape, k=k, op=op, largest=largest))
    if op == "sort":
        assert np.array_equal(got, np.sort(x, kind="stable"))
    elif op == "argsort":
        assert np.array_equal(np.take_along_axis(x, got, -1), np.sort(x, kind="stable"))
    else:
        values, indices = got
        assert np.array_equal(np.take_along_axis(x, indices, -1), values)
        want = axisops.topk(x, k, largest=largest).values
        assert np.array_equal(np.sort(values), np.sort(want))


def test_numpy_default_is_shown_but_never_the_best_peer():
    r = _record((Target(peer="best", min_speedup=2), Target(peer="numpy-default",
                                                             min_speedup=0.5)),
                floor=1.0, axisops=2.0, numpy=10.0, **{"numpy-default": 1.0})
    assert r["best_peer"] == "numpy" and r["speedup_vs_best_peer"] == pytest.approx(5.0)
    assert [(t["value"], t["met"]) for t in r["targets"]] == [("5.00x", True),
                                                               ("0.50x", True)]
    assert r["x_floor"]["numpy-default"] == pytest.approx(1.0)


def test_every_run_records_the_cpu_and_the_cores_level(tmp_path, monkeypatch):
    """The JSON and the first printed line of a run, and of a --frameworks run, name the
    CPU model and the compiled core's instruction-set level; the sort rows time
    numpy-default beside numpy."""
    from axisops.bench import frameworks
    from axisops.bench import main as bench_main
    from axisops.bench.report import machine
    from axisops.engines import cpu

    isa, model = cpu.describe()["isa"], machine()["cpu"]
    proc = subprocess.run(
        [sys.executable, "-m", "axisops", "bench", "--quick", "--cases", "sort (10k, 1000)",
         "--peers", "numpy,numpy-default", "--repeats", "1", "--json", "b.json"],
        capture_output=True, text=True, timeout=240, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-2000:]
    first = proc.stdout.splitlines()[0]
    assert first.startswith(f"# {model}, ") and f"; core {isa} (this CPU runs " in first
    payload = json.loads((tmp_path / "b.json").read_text())
    assert payload["machine"]["cpu"] == model and payload["machine"]["core"]["isa"] == isa
    assert [r["op"] for r in payload["cases"]] == ["sort", "argsort"]
    assert all(r["exact"] and r["seconds"]["numpy-default"] > 0 for r in payload["cases"])
    monkeypatch.setattr(frameworks, "run", lambda out, quick, repeats: [])
    args = bench_main.build_parser().parse_args(["--frameworks", "--json",
                                                 str(tmp_path / "f.json")])
    out = tmp_path / "f.txt"
    with out.open("w") as stream:
        bench_main.run(args, stream)
    first = out.read_text().splitlines()[0]
    assert first.startswith(f"# {model}, ") and f"; core {isa} (this CPU runs " in first
    assert json.loads((tmp_path / "f.json").read_text())["machine"]["core"]["isa"] == isa
