"""The CPU benchmark: a real quick run end to end, its verdicts, and the memory probe."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from axisops_bench.cases import CASES, Case, Target, quick_cases
from axisops_bench.memory import peak_growth
from axisops_bench.report import case_record
from axisops_bench.timing import CaseTimes

ROOT = Path(__file__).resolve().parents[1]


def test_quick_run_through_the_cli_writes_exact_results(tmp_path):
    out, png = tmp_path / "b.json", tmp_path / "b.png"
    proc = subprocess.run(
        [sys.executable, "-m", "axisops", "bench", "--quick", "--cases", "k=10", "--peers",
         "numpy,torch", "--repeats", "2", "--json", str(out), "--png", str(png)],
        capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads(out.read_text())
    names = [c.name for c in quick_cases() if "k=10" in c.name]
    assert [r["case"] for r in report["cases"]] == names
    for r in report["cases"]:
        assert r["exact"] is True
        assert set(r["seconds"]) == {"floor", "axisops", "numpy", "torch"}
        assert all(s > 0 for s in r["seconds"].values())
        assert r["x_floor"]["floor"] == pytest.approx(1.0)
    assert report["machine"]["threads"] >= 1 and report["memory"] == []
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "(1, 10M) k=10" in proc.stdout or "(1, 100k) k=10" in proc.stdout


def test_the_script_is_the_same_program():
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "bench.py"), "--help"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "--memory" in proc.stdout


def _record(targets, **seconds):
    case = Case("c", (1, 10), k=1, targets=targets)
    return case_record(CaseTimes(case, seconds=seconds), exact=True)


def test_target_verdicts():
    r = _record((Target(max_floor=2),), floor=1.0, axisops=2.5, numpy=10.0)
    assert r["targets"][0]["met"] is False and r["targets"][0]["value"] == pytest.approx(2.5)
    r = _record((Target(peer="best", min_speedup=4),), floor=1.0, axisops=2.0, numpy=10.0,
                torch=8.0)
    assert r["best_peer"] == "torch" and r["targets"][0]["value"] == pytest.approx(4.0)
    assert r["targets"][0]["met"] is True
    r = _record((Target(peer="jax", max_peer_ratio=1.2),), floor=1.0, axisops=2.0, numpy=3.0)
    assert r["targets"][0]["met"] is None  # jax is not in this run
    r = _record((Target(peer="jax", max_peer_ratio=1.2),), floor=1.0, axisops=2.5, jax=2.0)
    assert r["targets"][0]["met"] is False


def test_every_case_is_one_the_issue_names():
    names = {c.name for c in CASES}
    assert len(names) == len(CASES) == 15
    topk = [c for c in CASES if c.op == "topk"]
    assert all(0 < c.k <= c.shape[c.axis] for c in topk)
    assert all(c.shape[c.axis] >= 100 for c in quick_cases() if c.op == "topk")


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

    from axisops_bench import frameworks

    out = io.StringIO()
    records = frameworks.run(out, quick=True, repeats=1)
    assert [r["row"].split(" (")[0] for r in records] == [
        "torch op layer", "torch router fwd+bwd", "jax jit top-k", "jax jit top-k"]
    assert all(r["agree"] is True and r["ratio"] > 0 for r in records)
    assert [r["max_ratio"] for r in records] == [1.2, 1.0, 1.3, None]
    assert all(r["met"] == (r["ratio"] <= r["max_ratio"]) for r in records[:3])
    assert "vs lax.top_k" in out.getvalue() and "vs torch.topk" in out.getvalue()
