#!/usr/bin/env bash
# Everything a CUDA machine checks, in one run from the checkout's root (no install needed):
#   1. benchmarks/gpu.py --profile: exactness on tie-heavy data, timings against torch, and the
#      kernels of each call;
#   2. benchmarks/gpu_variants.py: the top-k routes for k > 16 and gather's two paths, side by side;
#   3. the Triton kernel tests on CUDA tensors (AXISOPS_TEST_DEVICE=cuda), against the NumPy oracle.
#
#   bash benchmarks/gpu_check.sh [OUTDIR]      # logs and gpu.json land in OUTDIR (default gpu-check)
#
# Every step runs even if an earlier one fails; the exit status is non-zero if any did.
# axisops must be installed in the Python that runs it (pip install ., which builds the C++
# core; on a machine without PyPI, pip install --no-build-isolation . with scikit-build-core
# and nanobind already installed).
set -uo pipefail
out="${1:-gpu-check}"
mkdir -p "$out"
py="${PYTHON:-python3}"
export PYTHONUNBUFFERED=1

nvidia-smi -L 2>&1 | tee "$out/device.log"
"$py" - <<'EOF' 2>&1 | tee -a "$out/device.log"
import importlib
for name in ("torch", "triton", "numpy", "axisops"):
    try:
        print(name, importlib.import_module(name).__version__)
    except Exception as e:  # report and go on: the steps below say what breaks
        print(name, "NOT IMPORTABLE:", e)
EOF

status=0
timeout "${BENCH_SECONDS:-360}" "$py" benchmarks/gpu.py --profile --json "$out/gpu.json" 2>&1 \
    | tee "$out/bench.log" || status=1
timeout "${VARIANTS_SECONDS:-180}" "$py" benchmarks/gpu_variants.py --json "$out/variants.json" 2>&1 \
    | tee "$out/variants.log" || status=1
AXISOPS_TEST_DEVICE=cuda timeout "${TEST_SECONDS:-300}" "$py" -m pytest -q -p no:cacheprovider \
    -o addopts="" --timeout 150 tests/test_triton_kernels.py 2>&1 | tee "$out/tests.log" || status=1
echo "gpu_check: exit status $status"
exit $status
