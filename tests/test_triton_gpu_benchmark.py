"""benchmarks/gpu.py: its CPU run (Triton interpreter) is exact, and its guards hold."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "gpu.py"


def _load():
    if "gpu_benchmark" not in sys.modules:
        spec = importlib.util.spec_from_file_location("gpu_benchmark", SCRIPT)
        module = importlib.util.module_from_spec(spec)
        sys.modules["gpu_benchmark"] = module  # dataclasses look their module up here
        spec.loader.exec_module(module)
    return sys.modules["gpu_benchmark"]


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("triton") is None,
                    reason="Triton ships Linux wheels only")
def test_interpret_quick_run_is_bit_exact(tmp_path):
    out = tmp_path / "gpu.json"
    run = subprocess.run([sys.executable, str(SCRIPT), "--interpret", "--quick",
                          "--json", str(out)], capture_output=True, text=True, timeout=240)
    assert run.returncode == 0, run.stderr[-2000:]
    report = json.loads(out.read_text())
    bench = _load()
    assert report["all_exact"] is True and report["interpreted"] is True
    assert len(report["cases"]) == len(bench.QUICK_CASES)
    for case, want in zip(report["cases"], bench.QUICK_CASES):
        assert case["exact"] is True and case["backend"] == "triton"
        assert case["op"] == want["op"] and tuple(case["shape"]) == want["shape"]
        assert case["axisops_s"] > 0 and case["torch_s"] > 0 and case["fraction_of_copy_bw"] > 0
    assert report["copy_bandwidth_GBps"] > 0
    assert "all exact: True" in run.stdout


def test_the_full_cases_are_the_issue_s():
    cases = {(c["op"], c["shape"], c.get("k"), c.get("index")) for c in _load().FULL_CASES}
    assert cases == {
        ("topk", (1, 2**28), 10, None), ("topk", (1, 2**28), 1000, None),
        ("topk", (256, 131072), 10, None), ("topk", (256, 131072), 100, None),
        ("topk", (16384, 4096), 8, None), ("topk", (32, 128256), 50, None),
        ("gather", (8192, 8192), None, (8192, 64)),
    }


def test_without_cuda_it_says_how_to_run_on_the_cpu(monkeypatch, capsys):
    torch = pytest.importorskip("torch")

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert _load().main(["--json", "unused.json"]) == 2
    assert "--interpret --quick" in capsys.readouterr().err


def test_interpret_needs_quick(capsys):
    with pytest.raises(SystemExit) as exit_info:
        _load().main(["--interpret"])
    assert exit_info.value.code == 2
    assert "--interpret needs --quick" in capsys.readouterr().err


def test_profile_needs_a_gpu(capsys):
    with pytest.raises(SystemExit) as exit_info:
        _load().main(["--interpret", "--quick", "--profile"])
    assert exit_info.value.code == 2
    assert "--profile needs a GPU" in capsys.readouterr().err


def test_kernel_times_lists_device_kernels_longest_first():
    class Event:
        def __init__(self, key, us):
            self.key, self.device_time_total = key, us

    class Legacy:  # torch < 2.4: cuda_time_total
        key, cuda_time_total = "old_kernel", 7.0

    class Prof:
        def key_averages(self):
            return [Event("_rows_kernel", 12.5), Event("cudaLaunchKernel", 0.0),
                    Event("x" * 100, 40.0), Legacy()]

    assert _load().kernel_times(Prof()) == [("x" * 80, 40.0), ("_rows_kernel", 12.5),
                                            ("old_kernel", 7.0)]


def test_tie_heavy_inputs_have_ties_nans_and_both_zeros():
    torch = pytest.importorskip("torch")

    x = _load().tie_heavy(torch, (4, 4096), 0, "cpu")
    bits = x.view(torch.int32)
    assert int(torch.isnan(x).sum(1).min()) >= 1
    assert bool(((bits == 0).any()) and bool((bits == -(2**31)).any()))
    top = x.nan_to_num(nan=-1.0).max(1).values
    assert int((x == top[:, None]).sum(1).min()) >= 2  # the maxima are tied


def test_a_profiled_row_prints_its_device_time_and_kernels(capsys):
    bench = _load()
    r = bench.Result("topk", "MoE", (4, 8), 2, None, "float32", "triton", exact=True,
                     axisops_s=5e-4, torch_s=1e-3, speedup_vs_torch=2.0,
                     fraction_of_copy_bw=0.1, kernels=[("_rows_kernel", 392.0)], device_s=3.92e-4)
    bench.print_row(r)
    out = capsys.readouterr().out.splitlines()
    assert "x 2.00" in out[0] and "[MoE]" in out[0]
    assert out[1].split() == ["device", "0.392", "ms", "of", "the", "call's", "0.500", "(the",
                              "rest", "waits", "for", "the", "host):"]
    assert out[2].split() == ["392.0", "us", "_rows_kernel"]


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("triton") is None,
                    reason="Triton ships Linux wheels only")
def test_the_host_time_script_runs_its_calls_in_the_interpreter():
    script = ROOT / "benchmarks" / "gpu_host.py"
    run = subprocess.run([sys.executable, str(script), "--interpret", "--calls", "1", "--top", "3"],
                         capture_output=True, text=True, timeout=240)
    assert run.returncode == 0, run.stderr[-2000:]
    lines = [line for line in run.stdout.splitlines() if "us/call" in line]
    assert [line.split("  host")[0].strip() for line in lines] == [
        "empty Triton kernel", "gather (64, 64) by (64, 8)", "topk (256, 64) k=2",
        "topk (4, 8192) k=10"]
    assert all(float(line.split()[line.split().index("host") + 1]) > 0 for line in lines)
    assert run.stdout.count("cProfile of 1 calls") == 3
    assert run.stdout.count("function calls") == 3  # one pstats table per axisops call


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("triton") is None,
                    reason="Triton ships Linux wheels only")
def test_variants_script_interpret_run_is_exact(tmp_path):
    # benchmarks/gpu_variants.py: every route and gather path, on tiny cases in the interpreter.
    out = tmp_path / "variants.json"
    script = ROOT / "benchmarks" / "gpu_variants.py"
    run = subprocess.run([sys.executable, str(script), "--interpret", "--json", str(out)],
                         capture_output=True, text=True, timeout=240)
    assert run.returncode == 0, run.stderr[-2000:]
    rows = json.loads(out.read_text())
    assert {r["variant"] for r in rows} == {"fused-bitonic", "fused-iterate", "separate",
                                            "backend=triton", "backend=torch"}
    assert all(r["exact"] and r["ms"] > 0 for r in rows)
    assert "all exact: True" in run.stdout
