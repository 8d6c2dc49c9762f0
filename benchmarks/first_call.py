"""The first call of a fresh process against its second: no compile, no fallback.

Each row starts a new interpreter with an empty HOME (no cache of any kind to
find), imports axisops, builds its input, then times the first call of one
operation on it and the second call on the same input.  The compiled core has
nothing to compile: the difference is what the first call of a process pays
once (page faults of the core's code, the thread pool's start), and it must
stay under 50 ms.  ``import axisops`` is timed in the same child.

    python benchmarks/first_call.py            # a table, < 1 minute
    python benchmarks/first_call.py --json out.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

#: (label, setup of x and the call, as Python source run in the child).
ROWS = [
    ("topk float32 (1, 10M) k=10", "x = np.random.default_rng(0).random((1, 10_000_000), "
     "dtype=np.float32)", "axisops.topk(x, 10)"),
    ("topk float32 (1000, 10k) k=100", "x = np.random.default_rng(0).random((1000, 10_000), "
     "dtype=np.float32)", "axisops.topk(x, 100)"),
    ("topk int64 (100k, 100) k=10", "x = np.random.default_rng(0).integers(-2**62, 2**62, "
     "(100_000, 100))", "axisops.topk(x, 10)"),
    ("topk float16 axis 0 (10k, 1000) k=10", "x = np.random.default_rng(0).random((10_000, "
     "1000)).astype(np.float16)", "axisops.topk(x, 10, axis=0)"),
    ("topk uint8 MoE (8192, 64) k=2", "x = np.random.default_rng(0).integers(0, 255, "
     "(8192, 64), dtype=np.uint8)", "axisops.topk(x, 2)"),
    ("gather float32 (10k, 1000) by (10k, 64)", "rng = np.random.default_rng(0); "
     "x = rng.random((10_000, 1000), dtype=np.float32); "
     "i = rng.integers(0, 1000, (10_000, 64))", "axisops.gather(x, 1, i)"),
]

CHILD = """
import time
t0 = time.perf_counter()
import axisops
t1 = time.perf_counter()
import json, numpy as np
{setup}
def call():
    {call}
s = time.perf_counter(); call(); first = time.perf_counter() - s
s = time.perf_counter(); call(); second = time.perf_counter() - s
print(json.dumps({{"import_s": t1 - t0, "first_s": first, "second_s": second}}))
"""


def run_row(setup: str, call: str, home: str) -> dict:
    env = {**os.environ, "HOME": home, "XDG_CACHE_HOME": os.path.join(home, ".cache")}
    done = subprocess.run([sys.executable, "-c", CHILD.format(setup=setup, call=call)],
                          capture_output=True, text=True, env=env, check=True, timeout=120)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--json", help="write the rows to this file")
    args = parser.parse_args(argv)
    rows = []
    print(f"{'row':42} {'import':>8} {'first':>9} {'second':>9} {'extra':>9}")
    for label, setup, call in ROWS:
        with tempfile.TemporaryDirectory() as home:
            r = run_row(setup, call, home)
        r["row"], r["extra_s"] = label, r["first_s"] - r["second_s"]
        rows.append(r)
        print(f"{label:42} {r['import_s'] * 1e3:6.1f}ms {r['first_s'] * 1e3:7.2f}ms "
              f"{r['second_s'] * 1e3:7.2f}ms {r['extra_s'] * 1e3:7.2f}ms", flush=True)
    worst = max(r["extra_s"] for r in rows)
    print(f"worst first-call extra: {worst * 1e3:.1f} ms (target < 50 ms)")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0 if worst < 0.05 else 1


if __name__ == "__main__":
    sys.exit(main())
