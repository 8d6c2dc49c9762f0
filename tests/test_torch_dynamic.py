"""A symbolic k under torch.compile(dynamic=True), and torch.export of modules that call the ops.

A compile counter (a backend that counts the graphs it is given) proves that
a k computed from a size does not recompile per value; results are compared
with torch's own ops on tie-free data and with eager axisops on tie-heavy data.
"""

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from torch.export import Dim

import axisops
from axisops import torch as ax

from oracle import assert_same_bits
from strategies import tie_heavy
from torch_helpers import to_numpy, to_torch


class Counter:
    """A torch.compile backend that counts graphs and runs them through aot_eager."""

    def __init__(self):
        self.graphs = []

    def __call__(self, gm, inputs):
        self.graphs.append(gm)
        return torch._dynamo.lookup_backend("aot_eager")(gm, inputs)


FRONTS = {
    "generic": lambda x, k: tuple(axisops.topk(x, k, 1)),
    "drop-in": lambda x, k: tuple(ax.topk(x, k, dim=1)),
    "torch.ops": lambda x, k: torch.ops.axisops.topk(x, k, 1, True, True),
}


@pytest.mark.parametrize("front", FRONTS)
def test_k_from_a_size_compiles_once_for_every_value(front):
    counter = Counter()
    fn = torch.compile(lambda x, y: FRONTS[front](x, y.shape[1] // 2), backend=counter,
                       fullgraph=True, dynamic=True)
    for width in (4, 6, 8, 10, 14):
        x, y = torch.randn(3, 9, requires_grad=True), torch.zeros(1, width)
        values, indices = fn(x, y)
        want = torch.topk(x, width // 2, 1)
        assert torch.equal(values, want.values) and torch.equal(indices, want.indices)
        values.sum().backward()  # the backward graph is symbolic in k too
        assert torch.equal(x.grad, torch.zeros_like(x).scatter(1, want.indices, 1.0))
    assert len(counter.graphs) == 1
    assert "axisops.topk" in {str(n.target).removesuffix(".default")
                              for n in counter.graphs[0].graph.nodes}


def test_a_symbolic_k_out_of_range_is_refused_with_the_librarys_error():
    fn = torch.compile(lambda x, y: axisops.topk(x, y.shape[1]), backend="aot_eager",
                       dynamic=True)
    fn(torch.randn(2, 5), torch.zeros(1, 3))
    with pytest.raises(axisops.InvalidArgumentError, match=r"^topk\(\): k=7 is out of range "
                                                           r"for axis 1 of size 5"):
        fn(torch.randn(2, 5), torch.zeros(1, 7))


def test_symbolic_k_on_tie_heavy_data_equals_eager_bit_for_bit():
    counter = Counter()
    fn = torch.compile(lambda x, y: tuple(axisops.topk(x, y.shape[0] - 1, 1, largest=False)),
                       backend=counter, fullgraph=True, dynamic=True)
    for k in (2, 5, 9):
        x = to_torch(tie_heavy(np.float32, (4, 12), k, width=None))
        got, want = fn(x, torch.zeros(k + 1)), axisops.topk(x, k, 1, largest=False)
        assert_same_bits(to_numpy(got[0]), to_numpy(want.values))
        assert_same_bits(to_numpy(got[1]), to_numpy(want.indices))
    assert len(counter.graphs) == 1


class Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(8, 8)

    def forward(self, x, index):
        scores = self.proj(x)
        top = axisops.topk(scores, 3)
        picked = ax.gather(scores, 1, index)
        taken = ax.take_along_dim(scores, index[:1], dim=1)
        raw = torch.ops.axisops.topk(scores, scores.shape[1] // 4, 1, False, True)
        return top.values, top.indices, picked, taken, raw[1]


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
def test_export_a_module_that_calls_the_ops_and_run_the_program(dynamic):
    torch.manual_seed(0)
    model = Model()
    x, index = torch.randn(5, 8), torch.tensor([[7, -8, 3]]).expand(5, 3)
    shapes = {"x": {0: Dim("rows", min=2)}, "index": {0: Dim("rows", min=2)}} if dynamic else None
    program = torch.export.export(model, (x, index), dynamic_shapes=shapes)
    targets = {str(n.target) for n in program.graph.nodes if n.op == "call_function"}
    assert {"axisops.topk.default", "axisops.gather.default",
            "axisops.take_along_axis.default"} <= targets
    runs = [(x, index)] + ([(torch.randn(11, 8), torch.tensor([[0, 1, -1]]).expand(11, 3))]
                           if dynamic else [])
    for args in runs:
        for got, want in zip(program.module()(*args), model(*args)):
            assert torch.equal(got, want)


def test_export_keeps_a_k_computed_from_a_dynamic_size_symbolic():
    class Half(torch.nn.Module):
        def forward(self, x):
            return axisops.topk(x, x.shape[1] // 2).values

    # Dim.DYNAMIC: the exporter keeps the conditions validation puts on n (k <= n, here
    # n // 2 <= n, which its solver does not prove for a named Dim's whole range).
    x = torch.randn(3, 8)
    program = torch.export.export(Half(), (x,), dynamic_shapes={"x": {1: Dim.DYNAMIC}})
    for n in (4, 10, 17):
        y = torch.randn(3, n)
        assert torch.equal(program.module()(y), torch.topk(y, n // 2).values)
