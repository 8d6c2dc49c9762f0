"""Compile every torch entry point as the first thing a process does (run by test_torch_compile_fresh.py).

The matrix: {topk, gather, take_along_axis} x {generic ``axisops.*``, the
``axisops.torch`` drop-ins, ``torch.ops.axisops.*``} x every dtype axisops
supports on tensors (bfloat16 and the wide unsigned types included; complex
for the gathers) x {static, dynamic} shapes.  The cells of one (op, front,
shapes) *group* are compiled together: one function calls the entry point once
per dtype, and Dynamo traces it as one graph (its fixed cost per compile is
most of a small compile's time).  Each group resets Dynamo (the generic
front's groups ask ``torch._dynamo.explain`` for graph breaks first), then compiles with
``fullgraph=True`` (Dynamo runs the operators' fake implementations to know the
outputs; for the generic front the ``aot_eager`` backend then traces the autograd
graph through them with AOTAutograd, without Inductor's C++ compile) and checks
that the graph calls the axisops operator once per dtype.

The selection family adds groups of its own (:data:`FAMILY`): sort, argsort,
kthvalue, median and partition, each through one front and one shape mode, with a
few dtypes each (bfloat16 and a 64-bit type among them); their graphs call the
``axisops::`` family operators (median calls ``axisops::kthvalue``, the global
median included).

Nothing runs eagerly before the last group: the first use of each dtype in this
process is inside a compile, and the first group holds the call a new user
types first (``axisops.topk`` of float32, static; float32 is traced first).
The references are computed afterwards by the NumPy oracle backend and compared
bit for bit.

Prints one JSON line (cells, failures, seconds) and exits 0 when every cell passed.

    python torch_compile_matrix.py
"""

from __future__ import annotations

import json
import sys
import time

import numpy as np
import torch

import axisops

from torch_helpers import BF16, to_numpy, to_torch

TOPK_DTYPES = ["float32", "bool", "uint8", "int8", "int16", "int32", "int64", "uint16",
               "uint32", "uint64", "float16", "bfloat16", "float64"]
GATHER_DTYPES = [*TOPK_DTYPES, "complex64", "complex128"]
OPS = {"topk": "axisops.topk.default", "gather": "axisops.gather.default",
       "take_along_axis": "axisops.take_along_axis.default"}


def data(name: str, seed: int) -> np.ndarray:
    """A (3, 6) array with ties and the dtype's special values (NaN, -0.0, extremes)."""
    from strategies import tie_heavy

    return tie_heavy(BF16 if name == "bfloat16" else np.dtype(name), (3, 6), seed, width=None)


INDEX = np.array([[0, -1, 5, 2], [3, 3, -6, 1], [5, 4, 0, -2]])  # negatives and repeats
ROW = INDEX[:1]  # broadcast against x's three rows by take_along_axis


def calls(op: str, front: str):
    """``(function, index argument)`` of one cell; the function takes ``(x, index)``."""
    if front == "drop-in":
        from axisops import torch as ax
    if op == "topk":
        return {
            "generic": lambda x, i: tuple(axisops.topk(x, 3, 1)),
            "drop-in": lambda x, i: tuple(ax.topk(x, 3, dim=1)),
            "torch.ops": lambda x, i: torch.ops.axisops.topk(x, 3, 1, True, True),
        }[front], None
    if op == "gather":
        return {
            "generic": lambda x, i: axisops.gather(x, 1, i),
            "drop-in": lambda x, i: ax.gather(x, 1, i),
            "torch.ops": lambda x, i: torch.ops.axisops.gather(x, 1, i),
        }[front], INDEX
    return {
        "generic": lambda x, i: axisops.take_along_axis(x, i, axis=1),
        "drop-in": lambda x, i: ax.take_along_dim(x, i, dim=1),
        # The operator takes shapes already broadcast, as axisops.take_along_axis hands it.
        "torch.ops": lambda x, i: torch.ops.axisops.take_along_axis(x, 1, i.expand(3, 4)),
    }[front], ROW


class GraphTargets:
    """A compile backend that records each graph's call targets and runs it with ``then``."""

    def __init__(self, then: str) -> None:
        self.targets: list[list[str]] = []
        self.then = then

    def __call__(self, gm, inputs):
        self.targets.append([str(n.target) for n in gm.graph.nodes if n.op == "call_function"])
        return torch._dynamo.lookup_backend(self.then)(gm, inputs)

    def calls(self, op: str) -> int:
        """How many times the graphs call ``op`` (the packet, or its ``.default``)."""
        return sum(t in (op, op[:-8]) for graph in self.targets for t in graph)


def reference(op: str, x: np.ndarray, index: np.ndarray | None):
    if op == "topk":
        return tuple(axisops.topk(x, 3, 1, backend="numpy"))
    if op == "gather":
        return (axisops.gather(x, 1, index, backend="numpy"),)
    return (axisops.gather(x, 1, np.broadcast_to(index, (3, 4)), backend="numpy"),)


FAMILY_DTYPES = ["float32", "bfloat16", "int64", "uint8"]


def _family_calls():
    from axisops import torch as ax

    kth = "axisops.kthvalue.default"
    return {
        # (op, front, dynamic): (function of x, operator, calls per cell, oracle of x)
        ("sort", "drop-in", False): (
            lambda x: tuple(ax.sort(x, dim=1, descending=True)), "axisops.sort.default", 1,
            lambda x: (axisops.sort(x, 1, descending=True, backend="numpy"),
                       axisops.argsort(x, 1, descending=True, backend="numpy"))),
        ("sort", "torch.ops", True): (
            lambda x: torch.ops.axisops.sort(x, 1, False), "axisops.sort.default", 1,
            lambda x: (axisops.sort(x, 1, backend="numpy"),
                       axisops.argsort(x, 1, backend="numpy"))),
        ("argsort", "generic", True): (
            lambda x: (axisops.argsort(x, axis=1),), "axisops.argsort.default", 1,
            lambda x: (axisops.argsort(x, 1, backend="numpy"),)),
        ("kthvalue", "drop-in", True): (  # k from a size stays symbolic
            lambda x: tuple(ax.kthvalue(x, x.shape[1] // 2, 1)), kth, 1,
            lambda x: tuple(axisops.kthvalue(x, 3, 1, backend="numpy"))),
        ("median", "drop-in", False): (
            lambda x: (*ax.median(x, 1, keepdim=True), ax.median(x)), kth, 2,
            lambda x: (*axisops.median(x, 1, keepdims=True, backend="numpy"),
                       axisops.median(x.reshape(-1), backend="numpy").values)),
        ("median", "generic", True): (
            lambda x: tuple(axisops.median(x, axis=1)), kth, 1,
            lambda x: tuple(axisops.median(x, 1, backend="numpy"))),
        ("partition", "generic", False): (
            lambda x: (axisops.partition(x, [1, -2], axis=1),
                       axisops.argpartition(x, 4, axis=1)),
            "axisops.partition.default", 1,
            lambda x: (axisops.partition(x, [1, -2], 1, backend="numpy"),
                       axisops.argpartition(x, 4, 1, backend="numpy"))),
    }


#: The fronts whose groups torch._dynamo.explain also traces (every op, both shape modes;
#: the very first compile of the process among them).  It shows what ``fullgraph=True``
#: then enforces for every group: one graph, no break (a break raises).
EXPLAINED = ("generic",)


def main() -> int:
    from torch._dynamo.utils import counters

    groups = [(op, front, dynamic)
              for op in OPS
              for front in ("generic", "drop-in", "torch.ops")
              for dynamic in (False, True)]
    family = _family_calls()
    groups += list(family)
    cells = explained = compiled = 0
    failures, results = [], []
    start = time.perf_counter()
    for g, (op, front, dynamic) in enumerate(groups):
        group = f"{op}/{front}/{'dynamic' if dynamic else 'static'}"
        if (op, front, dynamic) in family:
            cell, target, per_cell, _ = family[op, front, dynamic]
            dtypes, index = FAMILY_DTYPES, None

            def fn(x, i, cell=cell):
                return cell(x)
        else:
            dtypes = TOPK_DTYPES if op == "topk" else GATHER_DTYPES
            fn, index = calls(op, front)
            target, per_cell = OPS[op], 1
        cells += len(dtypes)
        xs = {dtype: data(dtype, g * 16 + n) for n, dtype in enumerate(dtypes)}
        tensors = [to_torch(x) for x in xs.values()]
        i = None if index is None else torch.from_numpy(index.copy())

        def every_dtype(i, *tensors, fn=fn):
            return [fn(t, i) for t in tensors]

        try:
            if front in EXPLAINED:
                torch._dynamo.reset()
                with torch._dynamo.config.patch(assume_static_by_default=not dynamic):
                    report = torch._dynamo.explain(every_dtype)(i, *tensors)
                explained += 1
                if report.graph_break_count or report.graph_count != 1:
                    failures.append(f"{group}: explain found {report.graph_break_count} graph "
                                    f"breaks in {report.graph_count} graphs")
            torch._dynamo.reset()
            counters.clear()
            # AOTAutograd (the autograd graph through the operators' fake kernels) for the
            # generic front, which reaches every operator; Dynamo's own trace for the rest.
            backend = GraphTargets("aot_eager" if front in EXPLAINED else "eager")
            got = torch.compile(every_dtype, backend=backend, fullgraph=True,
                                dynamic=dynamic)(i, *tensors)
        except Exception as exc:
            failures.append(f"{group}: {type(exc).__name__}: {str(exc)[:300]}")
            continue
        compiled += len(dtypes)
        if counters["graph_break"]:
            failures.append(f"{group}: graph breaks {dict(counters['graph_break'])}")
        # torch.ops.axisops.topk (the packet) is recorded as such, the others as .default.
        calls_made = backend.calls(target)
        if len(backend.targets) != 1 or calls_made != per_cell * len(dtypes):
            failures.append(f"{group}: {len(backend.targets)} graphs calling {target} "
                            f"{calls_made} times, not one calling it "
                            f"{per_cell * len(dtypes)} times")
        for (dtype, x), out in zip(xs.items(), got):
            out = out if isinstance(out, tuple) else (out,)
            results.append((f"{op}/{front}/{dtype}/{'dynamic' if dynamic else 'static'}",
                            (op, front, dynamic), x, index,
                            [to_numpy(t.detach()) for t in out]))
    seconds = time.perf_counter() - start
    for name, key, x, index, got in results:  # eager work only now: the oracle
        want = family[key][3](x) if key in family else reference(key[0], x, index)
        for g, w in zip(got, want):
            if g.dtype != w.dtype or g.shape != w.shape or not np.array_equal(
                    np.ascontiguousarray(g).view(np.uint8), np.ascontiguousarray(w).view(np.uint8)):
                failures.append(f"{name}: {g!r} differs from the oracle's {w!r}")
    print(json.dumps({"cells": cells, "compiled": compiled, "groups": len(groups),
                      "explained": explained, "first": "/".join(map(str, groups[0])),
                      "failures": failures, "seconds": round(seconds, 1),
                      "torch": torch.__version__}))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
