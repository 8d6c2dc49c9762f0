"""Every error row of the contract: class, standard base class, message, no side effects."""

import pickle
import re
import sys
import threading

import numpy as np
import pytest

import axisops
from axisops import (
    AxisOpsError,
    IndexOutOfRangeError,
    InvalidArgumentError,
    UnsupportedDTypeError,
    validation,
)
from axisops.errors import boundary, call_as, current_function, name_error

X = np.arange(15, dtype=np.float32).reshape(3, 5)
IDX = np.array([[0, 1], [2, 0]])
E = InvalidArgumentError
U = UnsupportedDTypeError
R = IndexOutOfRangeError

# (id, call(x, idx, backend), error class, regex the message must match)
TOPK_ERRORS = [
    ("k too big", lambda x, b: axisops.topk(x, 7, axis=1, backend=b), E,
     r"^topk\(\): k=7 is out of range for axis 1 of size 5 \(need 0 <= k <= 5\)$"),
    ("k negative", lambda x, b: axisops.topk(x, -1, backend=b), E, r"k=-1 .*need 0 <= k <= 5"),
    ("k float", lambda x, b: axisops.topk(x, 2.0, backend=b), E, r"k=2\.0 \(float\) is not an integer"),
    ("k numpy float", lambda x, b: axisops.topk(x, np.float64(2), backend=b), E,
     r"k=.*float64.* is not an integer"),
    ("k bool", lambda x, b: axisops.topk(x, True, backend=b), E, r"k=True is a bool"),
    ("k str", lambda x, b: axisops.topk(x, "2", backend=b), E, r"k='2' \(str\) is not an integer"),
    ("k None", lambda x, b: axisops.topk(x, None, backend=b), E, r"k=None .* is not an integer"),
    ("axis too big", lambda x, b: axisops.topk(x, 1, axis=2, backend=b), E,
     r"^topk\(\): axis=2 is out of range for an array of 2 dimensions \(need -2 <= axis <= 1\)$"),
    ("axis too negative", lambda x, b: axisops.topk(x, 1, axis=-3, backend=b), E, r"axis=-3"),
    ("axis float", lambda x, b: axisops.topk(x, 1, axis=1.0, backend=b), E, r"axis=1\.0 .*not an integer"),
    ("axis bool", lambda x, b: axisops.topk(x, 1, axis=False, backend=b), E, r"axis=False is a bool"),
    ("0-d input", lambda x, b: axisops.topk(np.float32(3), 1, backend=b), E,
     r"x must have at least one dimension, got a 0-d array"),
    ("complex input", lambda x, b: axisops.topk(x.astype(np.complex64), 1, backend=b), U,
     r"x has dtype complex64, which top-k does not support \(supported: bool, int8,"),
    ("object input", lambda x, b: axisops.topk(x.astype(object), 1, backend=b), U, r"dtype object"),
    ("string input", lambda x, b: axisops.topk(np.array(["a", "b"]), 1, backend=b), U, r"dtype <U1"),
    ("bytes input", lambda x, b: axisops.topk(np.array([b"a", b"b"]), 1, backend=b), U,
     r"dtype \|S1, which top-k does not support \(supported: .*, datetime64, timedelta64\)"),
    ("longdouble input", lambda x, b: axisops.topk(x.astype(np.longdouble), 1, backend=b), U,
     r"float128|longdouble"),
    ("index_dtype too small", lambda x, b: axisops.topk(np.zeros(200), 1, index_dtype="int8",
                                                        backend=b), E,
     r"index_dtype=int8 cannot hold index 199 of axis 0 of size 200"),
    ("uint8 too small", lambda x, b: axisops.topk(np.zeros(257), 1, index_dtype=np.uint8,
                                                  backend=b), E, r"uint8 cannot hold index 256"),
    ("index_dtype float", lambda x, b: axisops.topk(x, 1, index_dtype="float32", backend=b), U,
     r"index_dtype=float32 is not an integer type \(allowed: int8,"),
    ("index_dtype bool", lambda x, b: axisops.topk(x, 1, index_dtype=bool, backend=b), U,
     r"index_dtype=bool is not an integer type"),
    ("index_dtype nonsense", lambda x, b: axisops.topk(x, 1, index_dtype="nonsense", backend=b), U,
     r"index_dtype='nonsense' is not a dtype"),
    ("largest not bool", lambda x, b: axisops.topk(x, 1, largest="yes", backend=b), E,
     r"largest='yes' \(str\) is not a bool"),
    ("sorted not bool", lambda x, b: axisops.topk(x, 1, sorted=1, backend=b), E,
     r"sorted=1 \(int\) is not a bool"),
    ("ragged list", lambda x, b: axisops.topk([[1, 2], [3]], 1, backend=b), E,
     r"x of type list cannot be read as an array"),
]

GATHER_ERRORS = [
    ("rank mismatch", lambda x, i, b: axisops.gather(x, 0, i[0], backend=b), E,
     r"^gather\(\): index must have the same number of dimensions as x \(x has 2, index has 1\)$"),
    ("dim too big", lambda x, i, b: axisops.gather(x, 2, i, backend=b), E,
     r"dim=2 is out of range for an array of 2 dimensions \(need -2 <= dim <= 1\)"),
    ("dim float", lambda x, i, b: axisops.gather(x, 0.0, i, backend=b), E, r"dim=0\.0"),
    ("index too big in other dim", lambda x, i, b: axisops.gather(x, 1, np.zeros((4, 1), int),
                                                                  backend=b), E,
     r"index\.shape\[0\]=4 exceeds x\.shape\[0\]=3 \(need index\.shape\[d\] <= x\.shape\[d\] "
     r"for every d != dim=1\)"),
    ("float index", lambda x, i, b: axisops.gather(x, 0, i.astype(np.float32), backend=b), U,
     r"index has dtype float32, need an integer dtype \(int8,"),
    ("bool index", lambda x, i, b: axisops.gather(x, 0, i.astype(bool), backend=b), U,
     r"index has dtype bool"),
    ("object x", lambda x, i, b: axisops.gather(x.astype(object), 0, i, backend=b), U,
     r"x has dtype object, which gather does not support \(supported: .*complex128, "
     r"datetime64, timedelta64\)"),
    ("0-d x", lambda x, i, b: axisops.gather(np.float32(1), 0, np.int64(0), backend=b), E,
     r"x must have at least one dimension"),
    ("empty axis", lambda x, i, b: axisops.gather(np.zeros((2, 0)), 1, np.zeros((2, 1), int),
                                                  backend=b), E,
     r"index is non-empty but dim 1 of x has size 0"),
    ("index == n", lambda x, i, b: axisops.gather(x, 1, np.array([[0, 5]]), backend=b), R,
     r"^gather\(\): index\[0, 1\]=5 is out of range for dim 1 of size 5 \(need -5 <= index <= 4\)$"),
    ("index == -n-1", lambda x, i, b: axisops.gather(x, 0, np.array([[0], [-4]]), backend=b), R,
     r"index\[1, 0\]=-4 is out of range for dim 0 of size 3"),
    ("index 2**62", lambda x, i, b: axisops.gather(x, 0, np.array([[2**62]]), backend=b), R,
     r"index\[0, 0\]=4611686018427387904 is out of range"),
    ("index -2**62", lambda x, i, b: axisops.gather(x, 0, np.array([[1, -(2**62)]]), backend=b), R,
     r"index\[0, 1\]=-4611686018427387904"),
    ("uint64 max", lambda x, i, b: axisops.gather(x, 1, np.array([[2**64 - 1]], np.uint64),
                                                  backend=b), R, r"=18446744073709551615 is out"),
    ("int8 index", lambda x, i, b: axisops.gather(x, 0, np.array([[3]], np.int8), backend=b), R,
     r"index\[0, 0\]=3 .*size 3"),
    ("unknown backend", lambda x, i, b: axisops.gather(x, 0, i, backend="nope"), E,
     r"gather\(\): backend='nope' is not a backend \(known: .*numpy"),
    ("backend not str", lambda x, i, b: axisops.gather(x, 0, i, backend=3), E,
     r"backend=3 is not a backend name"),
]

TAKE_ERRORS = [
    ("broadcast", lambda: axisops.take_along_axis(np.zeros((3, 4)), np.zeros((2, 1), int), axis=1),
     E, r"take_along_axis\(\): x\.shape\[0\]=3 and indices\.shape\[0\]=2 cannot be broadcast"),
    ("rank", lambda: axisops.take_along_axis(np.zeros((3, 4)), np.zeros(2, int)), E,
     r"indices must have the same number of dimensions as x \(x has 2, indices has 1\)"),
    ("axis", lambda: axisops.take_along_axis(np.zeros((3, 4)), np.zeros((3, 1), int), axis=5), E,
     r"axis=5 is out of range"),
    ("range", lambda: axisops.take_along_axis(np.zeros((3, 4)), np.full((1, 1), 4), axis=1), R,
     r"take_along_axis\(\): indices\[0, 0\]=4 is out of range for axis 1 of size 4"),
    ("mode", lambda: axisops.top_k(np.zeros(3), 1, mode="max"), E,
     r"top_k\(\): mode='max' is not allowed \(need 'largest' or 'smallest'\)"),
    ("top_k k", lambda: axisops.top_k(np.zeros(3), 4), E, r"^top_k\(\): k=4 is out of range"),
]

STANDARD = {E: ValueError, U: TypeError, R: IndexError}


@pytest.mark.parametrize("name, call, cls, pattern", TOPK_ERRORS, ids=[r[0] for r in TOPK_ERRORS])
def test_topk_errors(backend, name, call, cls, pattern):
    x = X.copy()
    with pytest.raises(cls, match=pattern) as info:
        call(x, backend)
    assert isinstance(info.value, (AxisOpsError, STANDARD[cls]))
    assert isinstance(info.value, AxisOpsError) and isinstance(info.value, STANDARD[cls])
    np.testing.assert_array_equal(x, X)


@pytest.mark.parametrize("name, call, cls, pattern", GATHER_ERRORS,
                         ids=[r[0] for r in GATHER_ERRORS])
def test_gather_errors(backend, name, call, cls, pattern):
    x, idx = X.copy(), IDX.copy()
    with pytest.raises(cls, match=pattern) as info:
        call(x, idx, backend)
    assert isinstance(info.value, AxisOpsError) and isinstance(info.value, STANDARD[cls])
    np.testing.assert_array_equal(x, X)
    np.testing.assert_array_equal(idx, IDX)


@pytest.mark.parametrize("name, call, cls, pattern", TAKE_ERRORS, ids=[r[0] for r in TAKE_ERRORS])
def test_array_api_errors(name, call, cls, pattern):
    with pytest.raises(cls, match=pattern):
        call()


def test_error_classes_are_standard_exceptions():
    assert issubclass(InvalidArgumentError, ValueError)
    assert issubclass(UnsupportedDTypeError, TypeError)
    assert issubclass(IndexOutOfRangeError, IndexError)
    for cls in (InvalidArgumentError, UnsupportedDTypeError, IndexOutOfRangeError):
        assert issubclass(cls, AxisOpsError)


def test_out_of_range_reports_the_first_offender_in_c_order():
    idx = np.zeros((3, 4), np.int64)
    idx[2, 1] = 9
    idx[1, 3] = -9
    with pytest.raises(IndexOutOfRangeError, match=re.escape("index[1, 3]=-9")):
        axisops.gather(np.zeros((3, 4)), 1, idx)


# ---- the name: added once, where the user called in ----------------------------------------


def test_the_outermost_public_function_names_the_error_once():
    outer = boundary("outer")(lambda: axisops.topk(X, 7))
    with pytest.raises(InvalidArgumentError) as info:
        outer()
    assert str(info.value) == ("outer(): k=7 is out of range for axis 1 of size 5 "
                               "(need 0 <= k <= 5)")
    # The message is rendered when read: the parts the rule raised are left as they were.
    assert info.value.function == "outer" and info.value.message == str(info.value)[9:]
    assert (info.value.name, info.value.value, info.value.size, info.value.low,
            info.value.high) == ("k", 7, 5, 0, 5)
    with pytest.raises(InvalidArgumentError, match=r"^topk\(\): k=7 is out") as again:
        axisops.topk(X, 7)  # the same call, called directly
    assert again.value.function == "topk"


def test_naming_keeps_the_exception_its_cause_and_its_traceback():
    cause = KeyError("inner")

    @boundary("api")
    def api():
        raise IndexOutOfRangeError("index[3]=9 is out of range") from cause

    with pytest.raises(IndexOutOfRangeError) as info:
        api()
    assert info.value.__cause__ is cause and str(info.value) == "api(): index[3]=9 is out of range"
    assert info.traceback[-1].name == "api"  # the frame that raised it, not the boundary's
    with pytest.raises(UnsupportedDTypeError) as info:
        axisops.topk(np.array(["a"]), 1)
    assert info.traceback[-1].name == "check_ordered_dtype"  # the rule that refused it


def test_a_named_error_survives_pickling_and_is_renamed_not_prefixed_twice():
    with pytest.raises(IndexOutOfRangeError) as info:
        axisops.gather(X, 1, [[0, 9]])
    copy = pickle.loads(pickle.dumps(info.value))
    assert (str(copy), copy.function) == (str(info.value), "gather")
    name_error(copy, "gather_file")
    assert str(copy) == str(info.value).replace("gather(): ", "gather_file(): ", 1)


def test_errors_without_a_message_argument_are_left_alone():
    from axisops.directml import E_INVALIDARG, DMLError

    err = DMLError(E_INVALIDARG, "k=0 is out of range")
    name_error(err, "topk")
    assert err.function is None and str(err).endswith(": k=0 is out of range")


def test_work_deferred_past_the_boundary_captures_its_name_per_thread():
    seen = []

    @boundary("outer")
    def outer():
        seen.append(current_function())
        worker = threading.Thread(target=lambda: seen.append(current_function()))
        worker.start()
        worker.join()

    outer()
    assert seen == ["outer", None] and current_function() is None
    with pytest.raises(IndexOutOfRangeError, match=r"^gather\(\): index\[0\]=5 is out of range"):
        call_as("gather", validation.check_index_values, np.array([5]),
                validation.gather_spec(validation.ArrayMeta((3,), np.dtype(int)), 0,
                                       validation.ArrayMeta((1,), np.dtype(int))))


@pytest.mark.parametrize("index_dtype", ["int8", "uint8", "int16", "uint16"])
def test_index_dtype_holds_exactly_up_to_its_maximum(index_dtype):
    top = int(np.iinfo(index_dtype).max)
    r = axisops.topk(np.arange(top + 1), 1, index_dtype=index_dtype)  # index `top` fits
    assert r.indices.dtype == np.dtype(index_dtype) and int(r.indices[0]) == top
    with pytest.raises(axisops.InvalidArgumentError,
                       match=rf"index_dtype={index_dtype} cannot hold index {top + 1} "):
        axisops.topk(np.zeros(top + 2), 1, index_dtype=index_dtype)


def test_the_boundary_needs_nothing_from_an_old_torch(monkeypatch):
    import sys
    import types

    old = types.ModuleType("torch")  # a torch without torch.compiler (before 2.0)
    monkeypatch.setitem(sys.modules, "torch", old)
    assert axisops.topk(np.array([1, 3, 2]), 1).indices.tolist() == [1]
    with pytest.raises(axisops.InvalidArgumentError, match=r"^topk\(\): k=4 is out of range"):
        axisops.topk(np.array([1, 3, 2]), 4)


def test_the_boundary_keeps_its_thread_state_while_another_thread_compiles(monkeypatch):
    # torch 2.13 reports is_compiling() in every thread during any thread's compile
    # session; an eager call here must still know which public function it is in.
    torch = pytest.importorskip("torch")
    from axisops.errors import boundary, current_function

    monkeypatch.setattr(torch.compiler, "is_compiling", lambda: True)
    seen = []
    boundary("peek")(lambda: seen.append(current_function()))()
    assert seen == ["peek"]


def test_bfloat16_without_ml_dtypes_is_a_clear_dtype_error(monkeypatch):
    """ml_dtypes defines bfloat16 for NumPy; without it the name cannot become a dtype."""
    from axisops.dtypes import as_dtype

    monkeypatch.setitem(sys.modules, "ml_dtypes", None)  # `import ml_dtypes` now fails
    with pytest.raises(UnsupportedDTypeError, match="need the ml_dtypes package") as info:
        as_dtype("bfloat16")
    assert info.value.dtype == "bfloat16"
    assert as_dtype("float32") == np.float32  # only bfloat16 needs it
