"""The rules of the quantile family (quantile, nanquantile, nanmedian): ``q``, ``method`` and
the result dtype NumPy 2.4 gives, turned into a :class:`~axisops.requests.QuantileSpec`.

NumPy's ``quantile`` computes in the dtypes its arguments have: a Python scalar ``q`` is
promoted weakly (``float32`` data stay ``float32``), an array ``q`` is not (``float32``
data with a float64 ``q`` give float64), the five methods that pick an element (and
``linear`` with an integer ``q``) give ``x``'s own dtype.  :func:`result_dtype` states
those rules; ``tests/test_quantile.py`` checks them against NumPy for every dtype,
method and kind of ``q``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..dtypes import native
from ..errors import UnsupportedDTypeError, with_fields
from ..requests import ArrayMeta, QuantileSpec
from ..tracing import constant_while_tracing
from . import invalid
from .arguments import as_bool, as_choice, normalize_axis
from .operations import require_rank
from .types import check_topk_dtype

__all__ = ["METHODS", "PICKING", "TORCH_METHODS", "as_q", "check_torch_q", "check_unbatched_q",
           "nanmedian_spec", "picks", "quantile_spec", "result_dtype", "weights_dtype"]

#: NumPy's 13 methods, in the order of its documentation.
METHODS = ("inverted_cdf", "averaged_inverted_cdf", "closest_observation",
           "interpolated_inverted_cdf", "hazen", "weibull", "linear", "median_unbiased",
           "normal_unbiased", "lower", "higher", "nearest", "midpoint")
#: The methods whose result is an element of ``x`` (NumPy takes it without interpolating).
PICKING = frozenset({"inverted_cdf", "closest_observation", "lower", "higher", "nearest"})
#: torch's five ``interpolation=`` values (the drop-ins).
TORCH_METHODS = ("linear", "lower", "higher", "midpoint", "nearest")
#: The q dtypes NumPy computes in (integer q is read as int64, as Python integers are).
_Q_FLOATS = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64))
_INT64 = np.dtype(np.int64)
_FLOAT64 = np.dtype(np.float64)
#: The methods whose virtual index of an integer q is an integer (NumPy's constants are
#: integers there), so their weight is an int64 array.
_INTEGER_VIRTUAL = frozenset({"averaged_inverted_cdf", "interpolated_inverted_cdf", "weibull"})


def picks(method: str, q_dtype: np.dtype, flavour: str = "numpy") -> bool:
    """Whether ``method`` takes an element of ``x`` without interpolating (NumPy's five
    element-picking methods, and ``linear`` with an integer ``q``; torch's ``lower``,
    ``higher`` and ``nearest``).

    >>> picks("linear", np.dtype("int64")), picks("linear", np.dtype("float64"))
    (True, False)
    """
    if flavour == "torch":
        return method in ("lower", "higher", "nearest")
    return method in PICKING or (method == "linear" and q_dtype.kind == "i")


@constant_while_tracing
def result_dtype(dtype: np.dtype, q_dtype: np.dtype, weak: bool, method: str,
                 flavour: str = "numpy") -> np.dtype:
    """The dtype of NumPy 2.4's ``quantile(x, q, method=method)`` for ``x`` of ``dtype``
    and ``q`` held in ``q_dtype`` (``weak``: a Python scalar); torch's drop-ins give
    ``x``'s dtype.

    The element-picking methods give ``x``'s dtype.  The others interpolate, in the
    dtype ``x``'s elements take with the weight ``gamma``: a Python float for a scalar
    ``q`` (weak: float data keep their dtype, integers become float64), else an array
    of ``q``'s dtype (for integer ``q``: int64 where NumPy's virtual index stays an
    integer, ``averaged_inverted_cdf``, ``interpolated_inverted_cdf`` and ``weibull``,
    else float64).  bool cannot be interpolated (NumPy
    cannot subtract bools).

    >>> result_dtype(np.dtype("float32"), np.dtype("float64"), True, "linear")
    dtype('float32')
    >>> result_dtype(np.dtype("float32"), np.dtype("float64"), False, "linear")
    dtype('float64')
    >>> result_dtype(np.dtype("int16"), np.dtype("float32"), False, "hazen")
    dtype('float32')
    """
    if flavour == "torch" or picks(method, q_dtype, flavour):
        return native(dtype)
    if dtype.kind == "b":
        raise with_fields(UnsupportedDTypeError(
            f"x has dtype bool, which method={method!r} cannot interpolate (NumPy cannot "
            f"subtract bools; the methods that pick an element take bool: "
            f"{', '.join(sorted(PICKING))})"),
            name="x", dtype=dtype, allowed="a numeric dtype, or an element-picking method")
    if weak:
        return native(np.result_type(np.empty(0, dtype), 0.0))
    gamma = q_dtype if q_dtype.kind == "f" else (
        _INT64 if method in _INTEGER_VIRTUAL else _FLOAT64)
    return native(np.promote_types(dtype, gamma))


def weights_dtype(spec: QuantileSpec) -> np.dtype:
    """The dtype of the interpolation weights (``gamma``) of ``spec``: NumPy's virtual index's
    (``q``'s float dtype; for integer ``q`` int64 where the index stays an integer, else
    float64), float64 for a Python scalar ``q`` (a Python float), ``x``'s for torch's
    drop-ins, and the result dtype for a method that picks an element (its weights are 0).

    >>> from axisops.requests import ArrayMeta
    >>> weights_dtype(quantile_spec(ArrayMeta((3,), np.dtype("float32")),
    ...               np.float32([0.5]), 0, "hazen", False, False))
    dtype('float32')
    """
    if spec.flavour == "torch":
        return native(spec.dtype)
    if picks(spec.method, spec.q_dtype):
        return spec.result_dtype
    if spec.weak:
        return _FLOAT64
    if spec.q_dtype.kind == "f":
        return spec.q_dtype
    return _INT64 if spec.method in _INTEGER_VIRTUAL else _FLOAT64


def _as_host(value: Any) -> Any:
    """``q`` of a framework (a torch tensor, a JAX array) as NumPy reads it, on the host."""
    if type(value).__module__.partition(".")[0] == "torch":
        # by value: a tensor under torch.func has no storage NumPy could view
        return np.asarray(value.detach().cpu().tolist(), str(value.dtype).rpartition(".")[2])
    return value


@constant_while_tracing
def as_q(value: Any, like: np.dtype | None = None
         ) -> tuple[tuple[float, ...], tuple[int, ...], np.dtype, bool]:
    """``q`` as ``(values, shape, dtype, weak)``: the probabilities in C order as Python floats,
    the shape (``()`` for a scalar, at most 2 dimensions as NumPy allows), the dtype NumPy
    holds them in and whether ``q`` was a Python scalar (weakly promoted).

    Each value is in ``[0, 1]`` (NaN is not).  Python floats, NumPy floating types
    (float16, float32, float64) and integers (read as int64; only 0 and 1 are in range)
    are taken; bool, complex and other types are not.  ``like``: the dtype torch holds
    ``q`` in (its drop-ins: ``x``'s), the values rounded to it.  ``torch.compile`` calls
    this outside its trace (its NumPy is not the trace's), with ``q`` a constant.

    >>> as_q(0.25)
    ((0.25,), (), dtype('float64'), True)
    >>> as_q(np.array([0, 1], np.uint8))
    ((0.0, 1.0), (2,), dtype('int64'), False)
    """
    weak = type(value) in (int, float)
    if isinstance(value, (bool, np.bool_)):
        invalid(f"q={value!r} is a bool (need a probability in [0, 1])", name="q", value=value,
                allowed="0 <= q <= 1")
    try:
        array = np.asarray(_as_host(value))
    except (TypeError, ValueError) as exc:
        invalid(f"q={value!r} cannot be read as numbers ({exc})", name="q", value=value,
                allowed="a number or an array of numbers in [0, 1]")
    if array.dtype.kind == "b" or array.dtype.kind not in "iuf" or (
            array.dtype.kind == "f" and native(array.dtype) not in _Q_FLOATS):
        invalid(f"q has dtype {array.dtype} (need float16, float32, float64 or integers)",
                name="q", value=value, allowed="floating-point or integer probabilities")
    if array.ndim > 2:
        invalid(f"q has {array.ndim} dimensions (need a scalar or an array of at most 2, as "
                f"NumPy's quantile takes)", name="q", value=value,
                allowed="at most 2 dimensions")
    dtype = _INT64 if array.dtype.kind in "iu" else native(array.dtype)
    if like is not None:
        dtype = native(like)
    flat = array.reshape(-1)
    bad = ~((flat >= 0) & (flat <= 1))
    if bad.any():
        first = flat[np.argmax(bad)].item()
        invalid(f"q={first!r} is out of range (need 0 <= q <= 1)", name="q", value=first,
                low=0, high=1, allowed="0 <= q <= 1")
    values = tuple(float(v) for v in flat.astype(dtype))
    return values, tuple(array.shape), dtype, weak


def quantile_spec(meta: ArrayMeta, q: Any, axis: Any, method: Any, keepdims: Any,
                  skipnan: bool, flavour: str = "numpy") -> QuantileSpec:
    """Validate a quantile or nanquantile call (``skipnan``) along ``axis`` (an integer: the
    front flattens ``x`` for ``axis=None``); returns a clean spec.

    ``flavour="torch"``: torch's drop-ins (its five methods, called ``interpolation``, ``q``
    in ``x``'s dtype, ``x`` float32 or float64).  An empty axis has no quantile (the error
    names ``x``).

    >>> spec = quantile_spec(ArrayMeta((4, 6), np.dtype("float32")), [0.1, 0.9], 1,
    ...                      "linear", False, False)
    >>> spec.out_shape, spec.out_dtype
    ((2, 4), dtype('float64'))
    """
    require_rank("x", meta)
    what = "nanquantile" if skipnan else "quantile"
    check_topk_dtype("x", meta.dtype, what)
    if flavour == "torch" and native(meta.dtype) not in _Q_FLOATS[1:]:
        raise with_fields(UnsupportedDTypeError(
            f"x has dtype {meta.dtype}, which torch's {what} does not support (supported: "
            f"float32, float64)"), name="x", dtype=meta.dtype, allowed="float32, float64")
    ax = normalize_axis("axis", axis, meta.ndim)
    check_nonempty(meta, ax, f"no {what}")
    name = (as_choice("interpolation", method, TORCH_METHODS) if flavour == "torch"
            else as_choice("method", method, METHODS))
    keep = as_bool("keepdims", keepdims)
    values, shape, q_dtype, weak = as_q(q, meta.dtype if flavour == "torch" else None)
    if flavour == "torch":
        weak = False
    out = result_dtype(meta.dtype, q_dtype, weak, name, flavour)
    return QuantileSpec(meta.shape, meta.dtype, ax, values, shape, q_dtype, weak, name, keep,
                        bool(skipnan), flavour, out)


def nanmedian_spec(meta: ArrayMeta, axis: Any, keepdims: Any) -> QuantileSpec:
    """Validate a nanmedian call: the lower median of the non-NaN elements, which is
    ``nanquantile(x, 0.5, method="lower")`` (rank ``(v - 1) // 2`` of the ``v`` non-NaN).

    >>> nanmedian_spec(ArrayMeta((3, 5), np.dtype("float64")), 0, True).out_shape
    (1, 5)
    """
    require_rank("x", meta)
    check_topk_dtype("x", meta.dtype, "nanmedian")
    ax = normalize_axis("axis", axis, meta.ndim)
    check_nonempty(meta, ax, "no median")
    keep = as_bool("keepdims", keepdims)
    return QuantileSpec(meta.shape, meta.dtype, ax, (0.5,), (), _FLOAT64, True, "lower", keep,
                        True, "numpy", native(meta.dtype))


def check_nonempty(meta: ArrayMeta, axis: int, what: str) -> None:
    """At least one element along ``axis`` (``what``: what an empty axis has, for the message)."""
    if meta.shape[axis] == 0:
        invalid(f"x has size 0 along axis {axis} (shape {meta.shape}), which has {what} "
                f"(need at least one element)", name="x", value=meta.shape, axis=axis, size=0,
                allowed="at least one element along the axis")


def check_torch_q(dtype: Any, need_dtype: Any, ndim: int, device: Any, need_device: Any) -> None:
    """A tensor ``q`` as ``torch.quantile`` takes it: ``input``'s dtype and device, at most one
    dimension."""
    if ndim > 1:
        invalid(f"q has {ndim} dimensions (need a scalar or a 1-D tensor, as torch.quantile "
                f"takes)", name="q", value=ndim, allowed="at most 1 dimension")
    if dtype != need_dtype:
        raise with_fields(UnsupportedDTypeError(
            f"q has dtype {dtype}, need input's dtype {need_dtype} (as torch.quantile)"),
            name="q", dtype=dtype, allowed=str(need_dtype))
    if device != need_device:
        invalid(f"q is on {device}, need input's device {need_device}", name="q", value=device,
                allowed=str(need_device))


def check_unbatched_q(unbatched: bool) -> None:
    """``q`` is not batched by ``torch.func.vmap`` (its probabilities make the request's
    shape; the data is what vmap may batch)."""
    if not unbatched:
        invalid("q is batched by vmap (need the same probabilities for the whole batch)",
                name="q", value="batched", allowed="an unbatched q")
