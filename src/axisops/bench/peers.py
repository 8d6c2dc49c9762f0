"""What the benchmark times: axisops, the read floor, and the installed peers.

Each implementation is a :class:`Runner`: ``prepare`` turns the shared NumPy
input into the implementation's own array type once, outside the timing
(torch shares the memory; JAX copies it to its device), and ``call`` is the
timed operation, returning when the result is complete.

``numpy`` gives what axisops gives (stable sorts, top-k in order); ``numpy-default``
is NumPy's default kinds beside it, which give no order among equal elements (the
sorts) or none at all (a top-k by ``argpartition``): the route a NumPy user takes when
the order does not matter.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib.util import find_spec
from typing import Any

import numpy as np

from axisops import gather as ax_gather
from axisops import topk as ax_topk
from axisops.dtypes import as_dtype

from .cases import QUANTILES, SELECT_OPS, Case

__all__ = ["LARGE_K_FRACTION", "Runner", "axisops_runner", "floor_runner", "large_k",
           "missing_peers", "numpy_default", "numpy_select", "numpy_topk", "peer_runners",
           "select_k"]

#: The modules each peer needs, and the pip extra that installs them.
PEER_NEEDS = {"torch": (("torch",), "torch"), "jax": (("jax",), "jax"),
              "ort": (("onnx", "onnxruntime"), "bench")}

#: A top-k row's k is large from k >= n / LARGE_K_FRACTION on rows of 1000 or more
#: (where the core selects the k-th element first): ``numpy-default`` times
#: ``argpartition`` alone there.
LARGE_K_FRACTION = 64


@dataclass(frozen=True)
class Runner:
    """How one implementation runs one case."""

    name: str
    prepare: Callable[[np.ndarray, np.ndarray | None], Any]
    call: Callable[[Any], Any]


def _numpy_inputs(x: np.ndarray, index: np.ndarray | None) -> Any:
    return x, index


def select_k(case: Case, n: int) -> int:
    """The case's k for kthvalue (1-based; the lower median's for median), or its kth for
    partition (0-based)."""
    return (n - 1) // 2 + 1 if case.op == "median" else case.k


def _axisops_select(case: Case, backend: str | None = None) -> Callable[[Any], Any]:
    """The selection family through the public functions (``backend``: the backend
    named, or the default)."""
    import axisops

    def call(a: Any) -> Any:
        x = a[0]
        if case.op in ("quantile", "nanquantile"):
            return getattr(axisops, case.op)(x, np.array(QUANTILES), case.axis, backend=backend)
        if case.op in ("sort", "argsort"):
            return getattr(axisops, case.op)(x, case.axis, backend=backend)
        if case.op == "kthvalue":
            return axisops.kthvalue(x, case.k, case.axis, backend=backend)
        if case.op == "median":
            return axisops.median(x, case.axis, backend=backend)
        return getattr(axisops, case.op)(x, case.k, case.axis, backend=backend)

    return call


def axisops_runner(case: Case, backend: str | None = None) -> Runner:
    """axisops itself (the default backend unless one is named)."""
    if case.op in SELECT_OPS:
        return Runner("axisops", _numpy_inputs, _axisops_select(case, backend))
    if case.op == "gather":
        return Runner("axisops", _numpy_inputs,
                      lambda a: ax_gather(a[0], case.axis, a[1], backend=backend))
    return Runner("axisops", _numpy_inputs,
                  lambda a: ax_topk(a[0], case.k, case.axis, largest=case.largest,
                                    backend=backend))


def floor_runner(case: Case) -> Runner:
    """One read pass over the bytes the operation must read: ``np.max`` of their bits.

    For top-k that is the input; for gather, the index plus the elements the
    output holds (each read once).
    """

    def prepare(x: np.ndarray, index: np.ndarray | None) -> Any:
        if case.op == "gather":
            assert index is not None
            gathered = np.take_along_axis(x, index, case.axis) if x.ndim > 1 else x[index]
            return index.view(np.uint64), gathered.view(f"u{gathered.itemsize}")
        return (x.view(f"u{x.itemsize}"),)

    return Runner("floor", prepare, lambda a: [np.max(part) for part in a])


def numpy_topk(x: np.ndarray, k: int, axis: int,
               largest: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """NumPy's fastest route: ``argpartition``, then a sort of the k (no tie order)."""
    n = x.shape[axis]
    if k < n:
        kth = n - k if largest else k - 1
        part = np.argpartition(x, kth, axis=axis)
        idx = np.take(part, np.arange(n - k, n) if largest else np.arange(k), axis=axis)
    else:
        idx = np.argsort(x, axis=axis)
    vals = np.take_along_axis(x, idx, axis)
    order = np.argsort(vals, axis=axis)
    if largest:
        order = np.flip(order, axis=axis)
    return np.take_along_axis(vals, order, axis), np.take_along_axis(idx, order, axis)


def numpy_select(x: np.ndarray, case: Case) -> Any:
    """NumPy's route to each selection op: stable sorts; kthvalue and the lower median by
    ``argpartition`` and a take (values and indices, as torch and axisops return them)."""
    axis = case.axis
    if case.op in ("quantile", "nanquantile"):
        return getattr(np, case.op)(x, np.array(QUANTILES), axis=axis)
    if case.op == "sort":
        return np.sort(x, axis=axis, kind="stable")
    if case.op == "argsort":
        return np.argsort(x, axis=axis, kind="stable")
    if case.op == "partition":
        return np.partition(x, case.k, axis=axis)
    if case.op == "argpartition":
        return np.argpartition(x, case.k, axis=axis)
    k = select_k(case, x.shape[axis])
    idx = np.take(np.argpartition(x, k - 1, axis=axis), [k - 1], axis=axis)
    return np.take_along_axis(x, idx, axis), idx


def large_k(case: Case) -> bool:
    """Whether ``case`` is a top-k of a large k (see :data:`LARGE_K_FRACTION`).

    >>> large_k(Case("c", (1, 10_000), k=200)), large_k(Case("c", (8192, 64), k=2))
    (True, False)
    """
    n = case.shape[case.axis]
    return case.op == "topk" and n >= 1000 and case.k * LARGE_K_FRACTION >= n


def numpy_default(x: np.ndarray, case: Case) -> Any:
    """NumPy's default kinds: ``np.sort`` / ``np.argsort`` (no order among equal
    elements) for the sort rows; for a top-k of a large k, ``argpartition`` and a take
    (the k elements and their indices in no order; the default ``argsort`` where k is
    the whole row)."""
    axis, n, k = case.axis, x.shape[case.axis], case.k
    if case.op == "sort":
        return np.sort(x, axis=axis)
    if case.op == "argsort" or k >= n:
        idx = np.argsort(x, axis=axis)
        return idx if case.op == "argsort" else (np.take_along_axis(x, idx, axis), idx)
    kth = n - k if case.largest else k - 1
    idx = np.take(np.argpartition(x, kth, axis=axis),
                  np.arange(n - k, n) if case.largest else np.arange(k), axis=axis)
    return np.take_along_axis(x, idx, axis), idx


def _numpy_default(case: Case) -> Runner | None:
    """``numpy-default`` where NumPy has a default kind that gives less than axisops: the
    sorts and the top-k of a large k (on the partition rows ``numpy`` already is
    ``np.partition``)."""
    if case.op in ("sort", "argsort") or large_k(case):
        return Runner("numpy-default", _numpy_inputs, lambda a: numpy_default(a[0], case))
    return None


def _numpy(case: Case) -> Runner:
    if case.op in SELECT_OPS:
        return Runner("numpy", _numpy_inputs, lambda a: numpy_select(a[0], case))
    if case.op == "gather":
        return Runner("numpy", _numpy_inputs,
                      lambda a: np.take_along_axis(a[0], a[1], case.axis))
    return Runner("numpy", _numpy_inputs,
                  lambda a: numpy_topk(a[0], case.k, case.axis, case.largest))


def _torch_tensor(x: np.ndarray) -> Any:
    import torch

    if x.dtype.name == "bfloat16":
        return torch.from_numpy(x.view(np.int16)).view(torch.bfloat16)
    return torch.from_numpy(x)


def _torch_select(case: Case) -> Callable[[Any], Any] | None:
    """torch's op for a selection case, or None where torch has none (partition)."""
    import torch

    dim = case.axis
    if case.op in ("quantile", "nanquantile"):
        fn = getattr(torch, case.op)
        return lambda a: fn(a[0], torch.tensor(QUANTILES, dtype=a[0].dtype), dim=dim)
    if case.op == "sort":
        return lambda a: torch.sort(a[0], dim=dim, stable=True)
    if case.op == "argsort":
        return lambda a: torch.argsort(a[0], dim=dim, stable=True)
    if case.op == "kthvalue":
        return lambda a: torch.kthvalue(a[0], case.k, dim=dim)
    if case.op == "median":
        return lambda a: torch.median(a[0], dim=dim)
    return None


def _torch(case: Case, threads: int) -> Runner | None:
    import torch

    torch.set_num_threads(threads)

    def prepare(x: np.ndarray, index: np.ndarray | None) -> Any:
        return _torch_tensor(x), None if index is None else torch.from_numpy(index)

    if case.op in SELECT_OPS:
        call = _torch_select(case)
        return None if call is None else Runner("torch", prepare, call)
    if case.op == "gather":
        return Runner("torch", prepare, lambda a: torch.gather(a[0], case.axis, a[1]))
    return Runner("torch", prepare,
                  lambda a: torch.topk(a[0], case.k, dim=case.axis, largest=case.largest))


def _jax_select(case: Case) -> Callable[..., Any] | None:
    """JAX's op for a selection case (its sorts are stable), or None where it has none
    with the same meaning (kthvalue; its median averages)."""
    import jax.numpy as jnp

    axis = case.axis
    if case.op in ("quantile", "nanquantile"):
        fn = getattr(jnp, case.op)
        return lambda x: fn(x, jnp.array(QUANTILES), axis=axis)
    if case.op == "sort":
        return lambda x: jnp.sort(x, axis=axis, stable=True)
    if case.op == "argsort":
        return lambda x: jnp.argsort(x, axis=axis, stable=True)
    if case.op == "partition":
        return lambda x: jnp.partition(x, case.k, axis=axis)
    if case.op == "argpartition":
        return lambda x: jnp.argpartition(x, case.k, axis=axis)
    return None


def _jax(case: Case) -> Runner | None:
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    def prepare(x: np.ndarray, index: np.ndarray | None) -> Any:
        args = (x,) if index is None else (x, index)
        return tuple(jax.device_put(a).block_until_ready() for a in args)

    if case.op in SELECT_OPS:
        op = _jax_select(case)
        if op is None:
            return None
        jitted = jax.jit(op)
        return Runner("jax", prepare, lambda a: jax.block_until_ready(jitted(*a)))

    def top_k(x: Any) -> Any:
        if case.largest:
            return jax.lax.top_k(x, case.k)
        v, i = jax.lax.top_k(-x, case.k)  # JAX's own idiom for the smallest
        return -v, i

    if case.op == "gather":
        fn = jax.jit(lambda x, i: jnp.take_along_axis(x, i, axis=case.axis))
    elif case.axis in (-1, len(case.shape) - 1):
        fn = jax.jit(top_k)
    else:
        # lax.top_k works along the last axis only: move the axis there and back.
        def moved(x: Any) -> Any:
            v, i = top_k(jnp.moveaxis(x, case.axis, -1))
            return jnp.moveaxis(v, -1, case.axis), jnp.moveaxis(i, -1, case.axis)

        fn = jax.jit(moved)
    return Runner("jax", prepare, lambda a: jax.block_until_ready(fn(*a)))


_ORT_TYPES = {"float32": 1, "uint8": 2, "int8": 3, "uint16": 4, "int16": 5, "int32": 6,
              "int64": 7, "bool": 9, "float16": 10, "float64": 11, "uint32": 12, "uint64": 13,
              "bfloat16": 16}


def _ort_model(case: Case) -> bytes:
    """A one-node ONNX model: TopK (k as an initializer) or GatherElements."""
    from onnx import TensorProto, helper, numpy_helper

    elem = _ORT_TYPES[case.dtype]
    rank = len(case.shape)
    x = helper.make_tensor_value_info("x", elem, [None] * rank)
    if case.op == "gather":
        index = helper.make_tensor_value_info("index", TensorProto.INT64, [None] * rank)
        out = helper.make_tensor_value_info("out", elem, [None] * rank)
        node = helper.make_node("GatherElements", ["x", "index"], ["out"], axis=case.axis)
        graph = helper.make_graph([node], "gather", [x, index], [out])
    else:
        k = numpy_helper.from_array(np.array([case.k], np.int64), name="k")
        values = helper.make_tensor_value_info("values", elem, [None] * rank)
        indices = helper.make_tensor_value_info("indices", TensorProto.INT64, [None] * rank)
        node = helper.make_node("TopK", ["x", "k"], ["values", "indices"], axis=case.axis,
                                largest=int(case.largest), sorted=1)
        graph = helper.make_graph([node], "topk", [x], [values, indices], initializer=[k])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    return model.SerializeToString()


def _ort(case: Case, threads: int) -> Runner | None:
    """ONNX Runtime's CPU TopK / GatherElements, or None where it has no kernel for the
    case's type (or no operator at all: ONNX has no sort, kthvalue or partition)."""
    if case.op in SELECT_OPS:
        return None
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    try:
        session = ort.InferenceSession(_ort_model(case), options,
                                       providers=["CPUExecutionProvider"])
        shape = [1] * len(case.shape)
        shape[case.axis] = max(case.k, 1)
        probe = np.zeros(shape, as_dtype(case.dtype))
        feeds = {"x": probe}
        if case.op == "gather":
            feeds["index"] = np.zeros(probe.shape, np.int64)
        session.run(None, feeds)
    except Exception:
        return None  # e.g. NOT_IMPLEMENTED: no TopK kernel for this type

    def prepare(x: np.ndarray, index: np.ndarray | None) -> Any:
        return {"x": x} if index is None else {"x": x, "index": index}

    return Runner("ort", prepare, lambda feeds: session.run(None, feeds))


def _installed(peer: str) -> bool:
    modules, _ = PEER_NEEDS.get(peer, ((), ""))
    return all(find_spec(m) is not None for m in modules)


def missing_peers(wanted: tuple[str, ...]) -> list[str]:
    """What to say of each peer in ``wanted`` that is not installed here, e.g.
    ``"ort (pip install 'axisops[bench]')"``."""
    return [f"{p} (pip install 'axisops[{PEER_NEEDS[p][1]}]')" for p in wanted
            if p in PEER_NEEDS and not _installed(p)]


def peer_runners(case: Case, threads: int, wanted: tuple[str, ...]) -> list[Runner]:
    """The peers in ``wanted`` that are installed here (and take the case's type)."""
    found: list[Runner | None] = []
    if "numpy" in wanted:
        found.append(_numpy(case))
    if "numpy-default" in wanted:
        found.append(_numpy_default(case))
    if "torch" in wanted and _installed("torch"):
        found.append(_torch(case, threads))
    if "jax" in wanted and _installed("jax"):
        found.append(_jax(case))
    if "ort" in wanted and _installed("ort"):
        found.append(_ort(case, threads))
    return [r for r in found if r is not None]
