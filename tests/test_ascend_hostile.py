"""Arguments that misbehave: every public call of axisops.ascend still answers as documented.

Each parameter of each public function is replaced, in turn, by objects whose
methods raise (``__repr__``, ``__str__``, ``__format__``, ``__eq__``,
``__hash__``, ``__index__``, ``__len__``, ``__iter__`` ... one at a time and
all at once), by an object that lies about its class, and by a NumPy integer
whose value cannot be read.  The call must return the function's documented
failure (its status code, None for ``aclCreateTensor``, ``InvalidArgumentError``
for the ``acl.util`` helpers), record a message that names the parameter, and
change nothing.  An int subclass whose methods all raise must behave exactly
as its value.
"""

from __future__ import annotations

import inspect
import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from axisops import InvalidArgumentError
from axisops.ascend import acl, aclnn
from axisops.ascend._context import CONTEXT  # white-box: the state a call must not change
from axisops.ascend._executors import Executor  # white-box: an executor with a crafted task

from ascend_helpers import end_runtime, host_tensor, memory, put, tensor


class Unprintable(Exception):
    """An exception whose ``str()`` raises too."""

    def __str__(self):
        raise RuntimeError("str() of this exception fails")


def _raise(*args, **kwargs):
    raise Unprintable()


#: Methods Python, NumPy or the emulator might call on an argument.
METHODS = ["__repr__", "__str__", "__format__", "__eq__", "__ne__", "__lt__", "__le__",
           "__gt__", "__ge__", "__hash__", "__index__", "__int__", "__float__", "__bool__",
           "__len__", "__iter__", "__getitem__", "__contains__", "__fspath__", "__array__",
           "__array_interface__", "__dlpack__", "__mod__", "__add__", "__mul__"]


def _hostile_class(name: str, methods: list[str], base: type = object) -> type:
    return type(name, (base,), {m: _raise for m in methods})


class LiesAboutItsClass:
    """``isinstance`` sees an aclTensor, an executor or an array; nothing else works."""

    @property
    def __class__(self):
        return aclnn.AclTensor

    def __getattribute__(self, name):
        if name == "__class__":
            return aclnn.AclTensor
        raise Unprintable()


class UnreadableNumpyInt(np.int64):
    """A NumPy integer whose value cannot be read through ``__index__``."""

    __index__ = __int__ = __repr__ = __str__ = __eq__ = __hash__ = _raise


#: Objects that are invalid for every parameter (none is None, a tensor or an integer).
HOSTILE = {f"raising {m}": _hostile_class(f"Raising{m.strip('_').title()}", [m])
           for m in METHODS}
HOSTILE["raising everything"] = _hostile_class("RaisingEverything", METHODS)
HOSTILE["lies about its class"] = LiesAboutItsClass
HOSTILE["numpy int whose value cannot be read"] = lambda: UnreadableNumpyInt(3)

#: An int subclass with every method raising: it must act as its value.
StubbornInt = _hostile_class("StubbornInt", METHODS, base=int)


# --- the entry points: valid arguments, and what a refusal looks like ------------------

@dataclass
class Entry:
    """A public function, a factory of valid arguments, and its failure value."""

    func: Callable[..., Any]
    args: Callable[[dict], dict]
    refused: Any  # a code, a tuple ending in one, None, or InvalidArgumentError


def _gather_args(kit):
    return dict(self=kit["x"], dim=0, index=kit["index"], out=kit["out"])


def _topk_args(kit):
    return dict(self=kit["x"], k=1, dim=1, largest=True, sorted=True,
                values_out=kit["values"], indices_out=kit["indices"])


def _sort_args(kit):
    return dict(self=kit["x"], stable=True, dim=1, descending=False, values_out=kit["out"],
                indices_out=kit["order"])


def _argsort_args(kit):
    return dict(self=kit["x"], dim=-1, descending=True, out=kit["order"])


def _kthvalue_args(kit):
    return dict(self=kit["x"], k=2, dim=1, keepdim=True, values_out=kit["values"],
                indices_out=kit["indices"])


def _median_args(kit):
    return dict(self=kit["x"], values_out=kit["scalar"])


def _nan_median_args(kit):
    return dict(self=kit["x"], out=kit["scalar"])


def _median_dim_args(kit):
    return dict(self=kit["x"], dim=1, keepdim=True, values_out=kit["values"],
                indices_out=kit["indices"])


def _launch_args(phase1, op_args):
    def args(kit):
        _, executor, ret = phase1(**op_args(kit))
        assert ret == 0
        return dict(workspace=None, workspace_size=0, executor=executor, stream=kit["stream"])
    return args


def _fresh_executor(kit):
    _, executor, ret = aclnn.aclnnGatherGetWorkspaceSize(**_gather_args(kit))
    assert ret == 0
    return dict(executor=executor)


def _device_buffer(kit):
    ptr, ret = acl.rt.malloc(8, acl.ACL_MEM_MALLOC_HUGE_FIRST)
    assert ret == 0
    return ptr


def _host_buffer(kit):
    return acl.util.numpy_to_ptr(np.zeros(4, np.int32))


F32, I64 = np.dtype(np.float32).num, acl.ACL_INT64

ENTRIES = {
    "acl.init": Entry(acl.init, lambda kit: dict(config_path=""), 100000),
    "acl.rt.set_device": Entry(acl.rt.set_device, lambda kit: dict(device_id=0), 100000),
    "acl.rt.reset_device": Entry(acl.rt.reset_device, lambda kit: dict(device_id=0), 100000),
    "acl.rt.synchronize_stream": Entry(acl.rt.synchronize_stream,
                                       lambda kit: dict(stream=kit["stream"]), 100000),
    "acl.rt.destroy_stream": Entry(acl.rt.destroy_stream,
                                   lambda kit: dict(stream=acl.rt.create_stream()[0]), 100000),
    "acl.rt.malloc": Entry(acl.rt.malloc, lambda kit: dict(size=8, policy=0), (0, 100000)),
    "acl.rt.free": Entry(acl.rt.free, lambda kit: dict(ptr=_device_buffer(kit)), 100000),
    "acl.rt.memcpy": Entry(acl.rt.memcpy, lambda kit: dict(
        dst=_device_buffer(kit), dest_max=8, src=_host_buffer(kit), count=8,
        kind=acl.ACL_MEMCPY_HOST_TO_DEVICE), 100000),
    "acl.rt.host_unregister": Entry(acl.rt.host_unregister,
                                    lambda kit: dict(ptr=_host_buffer(kit)), 100000),
    "acl.util.numpy_to_ptr": Entry(acl.util.numpy_to_ptr,
                                   lambda kit: dict(array=np.zeros(3)), InvalidArgumentError),
    "acl.util.bytes_to_ptr": Entry(acl.util.bytes_to_ptr,
                                   lambda kit: dict(data=bytearray(4)), InvalidArgumentError),
    "acl.util.ptr_to_numpy": Entry(acl.util.ptr_to_numpy, lambda kit: dict(
        ptr=_host_buffer(kit), shape=(2, 2), dtype=F32), InvalidArgumentError),
    "aclnn.aclCreateTensor": Entry(aclnn.aclCreateTensor, lambda kit: dict(
        view_dims=(2, 2), data_type=acl.ACL_FLOAT, stride=(2, 1), offset=0,
        format=acl.ACL_FORMAT_ND, storage_dims=(2, 2), tensor_data=_device_buffer(kit)), None),
    "aclnn.aclDestroyTensor": Entry(aclnn.aclDestroyTensor,
                                    lambda kit: dict(tensor=host_tensor(np.zeros(2), 11)), 161002),
    "aclnn.aclSetAclOpExecutorRepeatable": Entry(aclnn.aclSetAclOpExecutorRepeatable,
                                                 _fresh_executor, 561000),
    "aclnn.aclDestroyAclOpExecutor": Entry(aclnn.aclDestroyAclOpExecutor, _fresh_executor,
                                           561000),
    "aclnn.aclnnGatherGetWorkspaceSize": Entry(aclnn.aclnnGatherGetWorkspaceSize, _gather_args,
                                               (0, None, 161002)),
    "aclnn.aclnnGather": Entry(aclnn.aclnnGather, _launch_args(
        aclnn.aclnnGatherGetWorkspaceSize, _gather_args), 161002),
    "aclnn.aclnnTopkGetWorkspaceSize": Entry(aclnn.aclnnTopkGetWorkspaceSize, _topk_args,
                                             (0, None, 161002)),
    "aclnn.aclnnTopk": Entry(aclnn.aclnnTopk, _launch_args(
        aclnn.aclnnTopkGetWorkspaceSize, _topk_args), 161002),
}
for _op, _args in (("Sort", _sort_args), ("Argsort", _argsort_args),
                   ("Kthvalue", _kthvalue_args), ("Median", _median_args),
                   ("NanMedian", _nan_median_args),
                   ("MedianDim", _median_dim_args)):
    _phase1 = getattr(aclnn, f"aclnn{_op}GetWorkspaceSize")
    ENTRIES[f"aclnn.aclnn{_op}GetWorkspaceSize"] = Entry(_phase1, _args, (0, None, 161002))
    ENTRIES[f"aclnn.aclnn{_op}"] = Entry(getattr(aclnn, f"aclnn{_op}"),
                                         _launch_args(_phase1, _args), 161002)
#: Public functions without parameters: no argument to misbehave.
NO_PARAMETERS = {"acl.finalize", "acl.get_recent_err_msg", "acl.rt.create_stream",
                 "aclnn.aclGetRecentErrMsg"}


def _public_functions():
    found = {}
    for prefix, module in (("acl", acl), ("acl.rt", acl.rt), ("acl.util", acl.util),
                           ("aclnn", aclnn)):
        for name in module.__all__:
            value = getattr(module, name)
            if inspect.isfunction(value):
                found[f"{prefix}.{name}"] = value
    return found


CASES = [(name, param) for name, entry in ENTRIES.items()
         for param in inspect.signature(entry.func).parameters]


def test_every_public_function_is_covered():
    public = _public_functions()
    assert set(public) == set(ENTRIES) | NO_PARAMETERS
    assert all(not inspect.signature(public[n]).parameters for n in NO_PARAMETERS)
    assert all(public[name] is entry.func for name, entry in ENTRIES.items())


@pytest.fixture
def kit():
    """A runtime with device 0, a stream, and small tensors for both operators."""
    assert acl.init() == 0 and acl.rt.set_device(0) == 0
    stream, ret = acl.rt.create_stream()
    assert ret == 0
    x = host_tensor(np.arange(8, dtype=np.float32).reshape(4, 2), acl.ACL_FLOAT)
    yield dict(stream=stream, x=x, index=host_tensor(np.zeros((4, 2), np.int64), I64),
               out=tensor(put(np.zeros(8, np.float32)), (4, 2), acl.ACL_FLOAT),
               values=tensor(put(np.zeros(4, np.float32)), (4, 1), acl.ACL_FLOAT),
               indices=tensor(put(np.zeros(4, np.int64)), (4, 1), I64),
               order=tensor(put(np.zeros(8, np.int64)), (4, 2), I64),
               scalar=tensor(put(np.zeros(1, np.float32)), (), acl.ACL_FLOAT))
    end_runtime()


def _state():
    """Everything a call could change: init, device, streams, memory, registrations."""
    streams = {h: s.pending for h, s in CONTEXT.streams.items()}
    return CONTEXT.initialized, CONTEXT.device_refs, streams, memory("device"), memory("host")


def _text(exc: Exception) -> str:
    """``"TypeName: message"``, or the type's name alone when ``str(exc)`` raises."""
    try:
        return f"{type(exc).__name__}: {exc}"
    except Exception:
        return type(exc).__name__


def _call(entry: Entry, args: dict) -> tuple:
    """``("returned", value)`` or ``("raised", type, text)``, printable whatever was raised."""
    try:
        return "returned", entry.func(**args)
    except Exception as exc:
        return "raised", type(exc), _text(exc)


def _prepare(name: str, entry: Entry, kit: dict) -> dict:
    args = entry.args(kit)
    if name == "acl.init" and CONTEXT.initialized:  # init reads its argument only before init
        assert acl.finalize() == 0
    acl.get_recent_err_msg()
    return args


@pytest.mark.parametrize("name, param", CASES, ids=[f"{n}-{p}" for n, p in CASES])
def test_a_misbehaving_argument_is_refused_as_documented(kit, name, param):
    entry = ENTRIES[name]
    for kind, make in HOSTILE.items():
        args = _prepare(name, entry, kit)
        args[param] = make()
        before = _state()
        called = _call(entry, args)
        where = f"{name}({param}=<{kind}>)"
        if entry.refused is InvalidArgumentError:
            assert called[:2] == ("raised", InvalidArgumentError), (where, called)
            message = called[2].removeprefix("InvalidArgumentError: ")
        else:
            assert called == ("returned", entry.refused), (where, called)
            message = acl.get_recent_err_msg()
        assert message.startswith(f"{name.removeprefix('aclnn.')}(): "), (where, message)
        assert f"{param}=" in message, (where, message)
        assert _state() == before, where


def _stubborn(value):
    """``value`` with every plain int in it made a StubbornInt (None: no int in it)."""
    if type(value) is int:
        return StubbornInt(value)
    if type(value) is tuple and value and all(type(v) is int for v in value):
        return tuple(StubbornInt(v) for v in value)
    return None


def _outcome(called: tuple) -> Any:
    """What must agree between a call with plain ints and one with StubbornInts."""
    if called[0] == "raised":
        return called
    how, result = called
    if isinstance(result, tuple):
        return how, result[-1]  # the code (pointers and handles differ between calls)
    if isinstance(result, aclnn.AclTensor):
        return how, (result.view_dims, result.data_type, result.strides, result.offset)
    if isinstance(result, np.ndarray):
        return how, result.shape, result.dtype, result.tolist()
    return how, result


@pytest.mark.parametrize("name", [n for n in ENTRIES if n != "acl.init"])
def test_an_int_subclass_whose_methods_raise_acts_as_its_value(kit, name):
    entry = ENTRIES[name]
    substituted = []
    for param in inspect.signature(entry.func).parameters:
        plain = _prepare(name, entry, kit)
        if _stubborn(plain[param]) is None:
            continue
        stubborn = _prepare(name, entry, kit)
        stubborn[param] = _stubborn(stubborn[param])
        assert _outcome(_call(entry, stubborn)) == _outcome(_call(entry, plain)), param
        substituted.append(param)
    takes_no_int = {"acl.util.numpy_to_ptr", "acl.util.bytes_to_ptr", "aclnn.aclDestroyTensor",
                    "aclnn.aclSetAclOpExecutorRepeatable", "aclnn.aclDestroyAclOpExecutor",
                    "aclnn.aclnnMedianGetWorkspaceSize", "aclnn.aclnnNanMedianGetWorkspaceSize"}
    assert bool(substituted) == (name not in takes_no_int), substituted


# --- the net under the checks, and bounded reads ---------------------------------------------

NET = "internal error Unprintable: <str() raised>"


def test_what_escapes_a_runtime_call_is_acl_error_internal_error(kit, monkeypatch):
    monkeypatch.setattr(CONTEXT.space, "allocate", _raise)
    assert acl.rt.malloc(8, 0) == (0, acl.ACL_ERROR_INTERNAL_ERROR) == (0, 500000)
    assert acl.get_recent_err_msg() == f"acl.rt.malloc(): {NET}"


def test_what_escapes_an_aclnn_call_is_aclnn_err_inner(kit, monkeypatch):
    import axisops.ascend.aclnn as aclnn_module

    monkeypatch.setattr(aclnn_module, "create_tensor", _raise)
    assert aclnn.aclCreateTensor((1,), 0, None, 0, 2, (1,), 0) is None
    assert aclnn.aclGetRecentErrMsg() == f"aclCreateTensor(): {NET}"
    monkeypatch.setattr(aclnn_module, "plan_topk", _raise)
    assert aclnn.aclnnTopkGetWorkspaceSize(**_topk_args(kit)) == (0, None, 561000)
    assert aclnn.aclGetRecentErrMsg() == f"aclnnTopkGetWorkspaceSize(): {NET}"
    assert aclnn.aclnnGather(None, 0, Executor("aclnnGather", _raise), kit["stream"]) == 0
    assert acl.rt.synchronize_stream(kit["stream"]) == 561000
    assert aclnn.aclGetRecentErrMsg().endswith(f"failed: {NET}")


def test_what_escapes_a_util_helper_is_invalid_argument_error(kit, monkeypatch):
    monkeypatch.setattr(CONTEXT.space, "register_host", _raise)
    with pytest.raises(InvalidArgumentError) as caught:
        acl.util.numpy_to_ptr(np.zeros(2))
    assert str(caught.value) == f"acl.util.numpy_to_ptr(): {NET}"


def test_endless_iterables_are_read_only_up_to_the_limit(kit):
    read = itertools.count(1)
    assert aclnn.aclCreateTensor(read, 0, None, 0, 2, (1,), 0) is None
    assert next(read) == 130  # 128 entries allowed, one more read to know there are more
    assert "has more than 128 entries (need at most ACL_MAX_DIM_CNT=128)" in \
        aclnn.aclGetRecentErrMsg()
    with pytest.raises(InvalidArgumentError, match=r"need an integer or a sequence of at most "
                                                   r"64 integers >= 0"):
        acl.util.ptr_to_numpy(_host_buffer(kit), itertools.repeat(1), np.float32)


def test_a_wrong_number_of_arguments_is_a_type_error_as_in_pyacl():
    with pytest.raises(TypeError):
        acl.rt.malloc(8)
    with pytest.raises(TypeError):
        aclnn.aclnnGather(None, 0, None, None, "extra")
    assert list(inspect.signature(acl.rt.memcpy).parameters) == \
        ["dst", "dest_max", "src", "count", "kind"]
