"""torch.compile(fullgraph=True) of every entry point as the first thing a process does.

The matrix runs in one fresh subprocess (see ``torch_compile_matrix.py``): the
suite's other tests call axisops eagerly first in their own process, which
warmed what a fresh process has to do while Dynamo traces and hid every
failure of a first compile.
"""

import json

import pytest

pytest.importorskip("torch")

from subprocess_helpers import run_python


@pytest.mark.timeout(300)
def test_every_entry_point_dtype_and_shape_mode_compiles_first_in_a_fresh_process():
    done = run_python(["torch_compile_matrix.py"], timeout=240)
    assert done.returncode == 0, done.explain()
    report = json.loads(done.stdout.strip().splitlines()[-1])
    # 13 top-k dtypes and 15 gather dtypes, x 3 fronts x {static, dynamic}; then the
    # selection family's 7 groups (sort, argsort, kthvalue, median, partition) of 4 dtypes.
    assert report["cells"] == report["compiled"] == 13 * 3 * 2 + 2 * 15 * 3 * 2 + 7 * 4
    assert report["failures"] == []
    assert report["groups"] == 18 + 7  # {op} x {front} x {static, dynamic}, and the family's
    assert report["explained"] == 6 + 3  # the generic front's groups
    assert report["first"] == "topk/generic/False"  # the very first call: static float32 top-k
