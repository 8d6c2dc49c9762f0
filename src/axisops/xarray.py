"""axisops on xarray objects: exact top-k, sort, selection and gather along a named dimension.

``import axisops.xarray`` (it imports xarray: ``pip install 'axisops[xarray]'``; ``import
axisops`` does not import it).  Every function takes an ``xarray.DataArray`` or an
``xarray.Dataset`` and ``dim="name"``, runs the axisops function of the same name on the
underlying array (NumPy, dask, or anything else axisops takes) along that dimension, and
gives labelled results back::

    import axisops.xarray as axr

    values, indices = axr.topk(temperature, 5, dim="time")   # DataArrays, dims (..., time_rank)
    axr.median(temperature, dim="time").values              # the lower median, an element
    axr.gather(temperature, "time", indices)                 # == values

**Exact and lazy.**  The numbers are axisops' own (the contract: ties to the lower index,
NaN above +inf, bits kept).  A dask-backed object stays lazy: the results are built from
axisops' dask graphs (top-k and gather along chunked dimensions, kthvalue and median by
an exact radix select along a chunked dimension; sort and argsort need ``dim`` in one
chunk), and nothing is computed until asked.

**Dimensions and coordinates.**

- ``topk``, ``sort`` and ``argsort`` give ranks, not positions, along ``dim``: ``dim`` becomes
  the dimension ``f"{dim}_rank"`` (same place, coordinate ``0 .. k-1``), and every
  coordinate along ``dim`` (``dim``'s own index among them) is carried as a non-index
  coordinate of the result's dimensions, holding the selected elements' coordinate values
  (``topk(da, 3, "time").values.time`` says when each of the three happened).  Values and
  indices carry the same coordinates.
- ``kthvalue`` and ``median`` reduce ``dim``; each result carries the chosen element's
  coordinates along ``dim`` the same way (over the remaining dimensions), as
  ``da.isel(dim=da.argmin(dim))`` would.
- ``quantile(obj, q, dim)`` is ``obj.quantile(q, dim)`` computed by axisops: a
  ``quantile`` dimension first (a scalar coordinate for a scalar ``q``), ``skipna`` with
  xarray's default (skip NaN for floats), exact and lazy on dask along a chunked ``dim``.
- ``gather(obj, dim, index)`` is ``obj.isel({dim: index})`` for an integer DataArray
  ``index`` (vectorized, pointwise along the dimensions ``index`` shares with ``obj``),
  computed by axisops: negative positions count from the end, out-of-range positions
  raise :class:`~axisops.IndexOutOfRangeError`, and dask stays lazy.
- **Datasets** are done variable by variable; variables without ``dim`` pass through
  unchanged, as xarray's reductions do.  Each variable selects its own positions, so a
  Dataset result of ``topk``, ``sort``, ``argsort``, ``kthvalue`` or ``median`` carries no
  coordinate along ``dim`` (they would differ from one variable to the next); run the
  function on ``ds[name]`` for them.  ``gather`` uses one index for every variable and
  carries them.

**Names and attrs.**  Every result keeps the object's name (as xarray's ``isel``,
``argsort``, ``median`` do).  With ``keep_attrs=None`` (the default) attrs go as xarray's
counterpart of each result does: the values of ``topk``, ``sort`` and ``gather`` keep them
(selections, as ``isel`` and ``sortby`` keep them); positions (``argsort``, the
``indices``) follow ``DataArray.argsort``, and the values of ``kthvalue`` and ``median``
follow ``DataArray.median`` (both obey ``xr.set_options(keep_attrs=...)``; xarray's
default keeps them).  ``keep_attrs=True`` or ``False`` decides for every result, the
Dataset's own attrs included.  Coordinates keep their attrs.

**median is the lower median.**  ``axisops.median`` is an element: the lower of the two
middle elements of an even-length sequence, with NaN sorting last (NaN only when over
half the sequence, counting the middle, is NaN).  ``DataArray.median`` averages the two
middle elements and skips NaN for floats (``skipna``): the two agree on odd-length
sequences without NaN, and ``DataArray.quantile(0.5, method="lower", skipna=False)``
differs from it only where there is a NaN.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

import numpy as np
import xarray as xr

from . import api
from ._forksafe import imported
from .api import KthValue, Median, TopK
from .errors import boundary
from .rules import invalid
from .rules.labels import (
    check_dim,
    check_free_name,
    check_index_dims,
    need_labelled,
    need_labelled_index,
)

__all__ = ["KthValue", "Median", "TopK", "argsort", "gather", "kthvalue", "median",
           "quantile", "sort", "topk"]

Obj = Any  # xarray.DataArray | xarray.Dataset


# ---- what every function shares -------------------------------------------------------------


def _is_dask(a: Any) -> bool:
    return type(a).__module__.partition(".")[0] == "dask"


def _rank_dim(dim: Hashable) -> str:
    return f"{dim}_rank"


def _probe_keeps(method: str) -> bool:
    """Whether xarray's own ``method`` keeps attrs without ``keep_attrs`` (its option and
    default), asked of a one-element DataArray."""
    probe = xr.DataArray(np.zeros(1), dims="d", attrs={"probe": 1})
    if method == "argsort":
        return bool(probe.argsort().attrs)
    if method == "quantile":
        return bool(probe.quantile(0.5, "d").attrs)
    return bool(probe.median("d").attrs)


def _keeps(keep_attrs: Any, like: str) -> bool:
    """Whether a result keeps attrs: ``keep_attrs`` when given, else as xarray's ``like``
    (``"isel"``: always, ``"argsort"``, ``"median"`` or ``"quantile"``: xarray's option)
    does."""
    if keep_attrs is not None:
        return bool(keep_attrs)
    return like == "isel" or _probe_keeps(like)


def _attrs(obj: Obj, keep: bool) -> dict:
    return dict(obj.attrs) if keep else {}


def _take(values: Any, positions: Any, axis: int) -> Any:
    """``values`` (a coordinate with the result's rank, sizes 1 where it lacks a dimension)
    taken at ``positions`` along ``axis``, the two broadcast: any dtype, lazy when either
    is dask."""
    if _is_dask(values):
        return api.take_along_axis(values, positions, axis=axis)
    shape = tuple(p if d == axis else max(n, p) for d, (n, p) in
                  enumerate(zip(values.shape, positions.shape)))
    if not _is_dask(positions):
        return np.take_along_axis(values, np.broadcast_to(np.asarray(positions), shape), axis)
    imported("dask.array")
    import dask.array as da

    def block(part: np.ndarray, block_info: Any = None) -> np.ndarray:
        where = block_info[0]["array-location"]
        cut = tuple(slice(None) if d == axis or values.shape[d] == 1 else slice(*where[d])
                    for d in range(values.ndim))
        return np.take_along_axis(values[cut], part, axis)

    if tuple(positions.shape) != shape:
        positions = da.broadcast_to(positions, shape)
    return positions.map_blocks(block, dtype=values.dtype)


def _carried(v: xr.DataArray, dim: Hashable, positions: Any, axis: int,
             dims: tuple[Hashable, ...], spans: Any = None) -> dict[Hashable, xr.Variable]:
    """Every coordinate of ``v`` along ``dim``, taken at ``positions`` (an array of ``v``'s
    rank, positions along ``axis``; ``spans``: the dimensions of ``v`` it really runs along,
    None for all): non-index coordinates over the dimensions of the result (``dims``) that
    the coordinate or the positions run along."""
    carried = {}
    for name, coord in v.coords.items():
        if dim not in coord.dims:
            continue
        order = [d for d in v.dims if d in coord.dims]
        data = coord.transpose(*order).data
        data = data if _is_dask(data) else np.asarray(coord.transpose(*order).values)
        shape = tuple(v.sizes[d] if d in coord.dims else 1 for d in v.dims)
        taken = _take(data.reshape(shape), positions, axis)
        keep = [d in coord.dims or spans is None or d in spans for d in v.dims]
        if not all(keep):
            taken = taken[tuple(slice(None) if k else 0 for k in keep)]
        carried[name] = xr.Variable(tuple(r for r, k in zip(dims, keep) if k), taken,
                                    attrs=coord.attrs)
    return carried


def _drop_axis(a: Any, axis: int) -> Any:
    """``a`` without its axis ``axis``, of size 1."""
    return a[(slice(None),) * axis + (0,)]


def _kept_coords(v: xr.DataArray, dim: Hashable) -> dict[Hashable, xr.Variable]:
    """The coordinates of ``v`` that do not run along ``dim``, as they are."""
    return {name: c.variable for name, c in v.coords.items() if dim not in c.dims}


def _array(v: xr.DataArray, data: Any, dims: tuple[Hashable, ...], coords: dict,
           keep: bool) -> xr.DataArray:
    return xr.DataArray(data, dims=dims, coords=coords, name=v.name, attrs=_attrs(v, keep))


def _each(obj: Obj, dim: Any, parts: int, one: Callable[..., Any], keep: bool, *,
          extra: str | None = None) -> Any:
    """``one(da, dim, carry)`` for a DataArray; for a Dataset, on every data variable along
    ``dim`` (the others pass through), with ``parts`` results put back together as
    Datasets (a tuple of them, or one Dataset when ``parts`` is 1) that keep the Dataset's
    attrs if ``keep``.  ``extra``: a name the result adds, which must be free."""
    need_labelled("obj", obj)
    labelled = isinstance(obj, xr.DataArray)
    check_dim(dim, tuple(obj.dims), "the DataArray" if labelled else "the Dataset")
    if extra is not None:
        check_free_name(extra, [*obj.dims, *obj.coords], f"the ranks along {dim!r}")
    if labelled:
        return one(obj, dim, True)
    results: list[dict] = [{} for _ in range(parts)]
    for name, var in obj.data_vars.items():
        got = one(var, dim, False) if dim in var.dims else (var,) * parts
        for r, g in zip(results, (got,) if parts == 1 and dim in var.dims else got):
            r[name] = g
    made = tuple(_dataset(obj, r, dim, keep) for r in results)
    return made[0] if parts == 1 else made


def _dataset(ds: xr.Dataset, variables: dict, dim: Hashable, keep: bool) -> xr.Dataset:
    """A result Dataset of ``variables`` (DataArrays), with the coordinates of ``ds`` that do
    not run along ``dim`` and, if ``keep``, its attrs."""
    result = xr.Dataset(variables)
    kept = {c: ds.coords[c].variable for c in ds.coords
            if dim not in ds.coords[c].dims and c not in result.coords}
    result = result.assign_coords(kept)
    result.attrs = dict(ds.attrs) if keep else {}
    return result


def _gather_data(data: Any, positions: Any, axis: int, backend: str | None) -> Any:
    """:func:`axisops.gather` of ``data`` at ``positions`` (of ``data``'s rank, sizes 1 off
    ``axis`` broadcast to ``data``'s); dask when either is."""
    shape = tuple(positions.shape[d] if d == axis else n for d, n in enumerate(data.shape))
    if _is_dask(positions) or _is_dask(data):
        imported("dask.array")
        import dask.array as da

        if not _is_dask(data):
            data = da.from_array(data, chunks=-1)
        if tuple(positions.shape) != shape:
            positions = da.broadcast_to(da.asarray(positions), shape)
    elif positions.shape != shape:
        positions = np.broadcast_to(positions, shape)
    return api.gather(data, axis, positions, backend=backend)


# ---- top-k, sort, argsort --------------------------------------------------------------------


@boundary("topk")
def topk(obj: Obj, k: int, dim: Hashable, *, largest: bool = True, sorted: bool = True,
         index_dtype: Any = None, keep_attrs: bool | None = None,
         backend: str | None = None) -> TopK:
    """The ``k`` greatest (or least) elements along ``dim``, and their positions.

    :func:`axisops.topk` along the dimension ``dim``: ties go to the lower index, NaN is
    greater than +inf.  ``dim`` becomes ``f"{dim}_rank"`` (coordinate ``0 .. k-1``) in both
    results, which carry the selected elements' coordinates along ``dim`` as non-index
    coordinates.

    Parameters
    ----------
    obj : xarray.DataArray or xarray.Dataset
        NumPy- or dask-backed (dask stays lazy, ``dim`` may be chunked).
    k : int
        How many elements to keep, ``0 <= k <= obj.sizes[dim]``.
    dim : hashable
        The dimension to select along.
    largest, sorted, index_dtype, backend
        As for :func:`axisops.topk`.
    keep_attrs : bool, optional
        None: the values keep attrs (as ``isel``), the indices as ``DataArray.argsort``
        does.

    Returns
    -------
    TopK
        ``(values, indices)``: DataArrays (Datasets for a Dataset, whose variables
        without ``dim`` pass through in both).

    Examples
    --------
    >>> import numpy as np, xarray as xr, axisops.xarray as axr
    >>> t = xr.DataArray([[3, 9, 9, 1], [5, 2, 8, 8]], dims=("city", "day"),
    ...                  coords={"day": [10, 11, 12, 13]}, name="t")
    >>> values, indices = axr.topk(t, 2, "day")
    >>> values.dims, values.values.tolist(), indices.values.tolist()
    (('city', 'day_rank'), [[9, 9], [8, 8]], [[1, 2], [2, 3]])
    >>> values.day.values.tolist()
    [[11, 12], [12, 13]]
    """
    keep_values = _keeps(keep_attrs, "isel")
    keep_indices = _keeps(keep_attrs, "argsort")
    new = _rank_dim(dim)

    def one(v: xr.DataArray, dim: Hashable, carry: bool) -> TopK:
        axis = v.get_axis_num(dim)
        values, indices = api.topk(v.data, k, axis, largest=largest, sorted=sorted,
                                   index_dtype=index_dtype, backend=backend)
        dims = (*v.dims[:axis], new, *v.dims[axis + 1 :])
        coords = {**_kept_coords(v, dim), new: np.arange(values.shape[axis])}
        if carry:
            coords.update(_carried(v, dim, indices, axis, dims))
        return TopK(_array(v, values, dims, coords, keep_values),
                    _array(v, indices, dims, coords, keep_indices))

    return TopK(*_each(obj, dim, 2, one, keep_values, extra=new))


def _sorting(obj: Obj, dim: Hashable, descending: bool, keep: bool, backend: str | None,
             want_values: bool) -> Obj:
    new = _rank_dim(dim)

    def one(v: xr.DataArray, dim: Hashable, carry: bool) -> xr.DataArray:
        axis = v.get_axis_num(dim)
        dims = (*v.dims[:axis], new, *v.dims[axis + 1 :])
        coords = {**_kept_coords(v, dim), new: np.arange(v.sizes[dim])}
        carry = carry and any(dim in c.dims for c in v.coords.values())
        if want_values and not carry:
            data = api.sort(v.data, axis, descending=descending, backend=backend)
            return _array(v, data, dims, coords, keep)
        indices = api.argsort(v.data, axis, descending=descending, backend=backend)
        if carry:
            coords.update(_carried(v, dim, indices, axis, dims))
        data = _gather_data(v.data, indices, axis, backend) if want_values else indices
        return _array(v, data, dims, coords, keep)

    return _each(obj, dim, 1, one, keep, extra=new)


@boundary("sort")
def sort(obj: Obj, dim: Hashable, *, descending: bool = False,
         keep_attrs: bool | None = None, backend: str | None = None) -> Obj:
    """The elements along ``dim`` in order: :func:`axisops.sort` (stable, NaN last).

    ``dim`` becomes ``f"{dim}_rank"`` (coordinate ``0 .. n-1``), and the coordinates along
    ``dim`` come along in the same order, as non-index coordinates (for a 1-D DataArray
    that is ``da.sortby(da)`` with ``dim`` renamed).  A dask-backed ``obj`` needs ``dim``
    in one chunk (the error says how to rechunk).

    Parameters
    ----------
    obj : xarray.DataArray or xarray.Dataset
    dim : hashable
    descending : bool, optional
        Greatest first (equal elements still in index order).
    keep_attrs : bool, optional
        None: kept, as ``sortby`` keeps them.
    backend : str, optional
        As for :func:`axisops.sort`.

    Examples
    --------
    >>> import xarray as xr, axisops.xarray as axr
    >>> s = axr.sort(xr.DataArray([2.0, float("nan"), 1.0], dims="x",
    ...                           coords={"x": ["a", "b", "c"]}), "x")
    >>> s.values.tolist(), s.x.values.tolist()
    ([1.0, 2.0, nan], ['c', 'a', 'b'])
    """
    return _sorting(obj, dim, descending, _keeps(keep_attrs, "isel"), backend, True)


@boundary("argsort")
def argsort(obj: Obj, dim: Hashable, *, descending: bool = False,
            keep_attrs: bool | None = None, backend: str | None = None) -> Obj:
    """The positions along ``dim`` that sort it, stably: :func:`axisops.argsort`.

    The same dimensions and coordinates as :func:`sort`'s result; int64 positions
    (``da.argsort(axis=..., kind="stable")``'s, labelled).

    Parameters
    ----------
    obj : xarray.DataArray or xarray.Dataset
    dim : hashable
    descending : bool, optional
        Greatest first (equal elements still in index order).
    keep_attrs : bool, optional
        None: as ``DataArray.argsort`` does.
    backend : str, optional
        As for :func:`axisops.argsort`.

    Examples
    --------
    >>> import xarray as xr, axisops.xarray as axr
    >>> axr.argsort(xr.DataArray([[5, 7, 5]], dims=("y", "x")), "x").values.tolist()
    [[0, 2, 1]]
    """
    return _sorting(obj, dim, descending, _keeps(keep_attrs, "argsort"), backend, False)


# ---- kthvalue, median ------------------------------------------------------------------------


def _selecting(obj: Obj, dim: Hashable, keep_attrs: Any, run: Callable[[Any, int], Any],
               result: type) -> Any:
    keep_values = _keeps(keep_attrs, "median")
    keep_indices = _keeps(keep_attrs, "argsort")

    def one(v: xr.DataArray, dim: Hashable, carry: bool) -> Any:
        axis = v.get_axis_num(dim)
        values, indices = run(v.data, axis)  # keepdims: positions of the result's rank
        dims = (*v.dims[:axis], *v.dims[axis + 1 :])
        coords = _kept_coords(v, dim)
        if carry:
            for name, taken in _carried(v, dim, indices, axis, v.dims).items():
                coords[name] = taken.squeeze(dim)
        return result(_array(v, _drop_axis(values, axis), dims, coords, keep_values),
                      _array(v, _drop_axis(indices, axis), dims, coords, keep_indices))

    return result(*_each(obj, dim, 2, one, keep_values))


@boundary("kthvalue")
def kthvalue(obj: Obj, k: int, dim: Hashable, *, keep_attrs: bool | None = None,
             backend: str | None = None) -> KthValue:
    """The ``k``-th smallest element along ``dim`` (1-based) and its position:
    :func:`axisops.kthvalue`.

    ``dim`` is reduced; both results carry the chosen element's coordinates along ``dim``
    over the remaining dimensions.  Dask-backed objects may be chunked along ``dim``
    (an exact radix select, lazy).

    Parameters
    ----------
    obj : xarray.DataArray or xarray.Dataset
    k : int
        ``1 <= k <= obj.sizes[dim]``.
    dim : hashable
    keep_attrs : bool, optional
        None: the values as ``DataArray.median``, the indices as ``DataArray.argsort``.
    backend : str, optional
        As for :func:`axisops.kthvalue`.

    Examples
    --------
    >>> import xarray as xr, axisops.xarray as axr
    >>> t = xr.DataArray([[4, 1, 4, 1]], dims=("y", "x"), coords={"x": [0, 10, 20, 30]})
    >>> r = axr.kthvalue(t, 3, "x")
    >>> r.values.values.tolist(), r.indices.values.tolist(), r.values.x.values.tolist()
    ([4], [0], [0])
    """
    return _selecting(obj, dim, keep_attrs, lambda a, axis: api.kthvalue(
        a, k, axis, keepdims=True, backend=backend), KthValue)


@boundary("median")
def median(obj: Obj, dim: Hashable, *, keep_attrs: bool | None = None,
           backend: str | None = None) -> Median:
    """The lower median along ``dim`` and its position: :func:`axisops.median`.

    An element of the data (the lower middle one of an even-length sequence; NaN sorts
    last), unlike ``DataArray.median``, which averages the two middle ones and skips NaN
    (see the module's notes).  Dimensions and coordinates as :func:`kthvalue`'s.

    Parameters
    ----------
    obj : xarray.DataArray or xarray.Dataset
    dim : hashable
    keep_attrs : bool, optional
        None: the values as ``DataArray.median``, the indices as ``DataArray.argsort``.
    backend : str, optional
        As for :func:`axisops.median`.

    Examples
    --------
    >>> import xarray as xr, axisops.xarray as axr
    >>> t = xr.DataArray([4.0, 1.0, 3.0, 2.0], dims="x")
    >>> float(axr.median(t, "x").values), float(t.median("x"))
    (2.0, 2.5)
    """
    return _selecting(obj, dim, keep_attrs, lambda a, axis: api.median(
        a, axis, keepdims=True, backend=backend), Median)


# ---- quantile --------------------------------------------------------------------------------


@boundary("quantile")
def quantile(obj: Obj, q: Any, dim: Hashable, *, method: str = "linear",
             skipna: bool | None = None, keep_attrs: bool | None = None,
             backend: str | None = None) -> Obj:
    """``DataArray.quantile(q, dim)`` (and ``Dataset.quantile``), computed by
    :func:`axisops.quantile` or :func:`axisops.nanquantile`.

    The result is laid out as xarray's: ``dim`` reduced, a ``quantile`` dimension first
    holding ``q`` for an array ``q`` (a scalar ``quantile`` coordinate for a scalar one),
    the coordinates along other dimensions kept (0-d ones go, as in xarray); ``q`` is
    taken as float64, as xarray takes it (so float32 data give float64).
    ``skipna=None`` skips NaN for floating dtypes (xarray's default):
    :func:`axisops.nanquantile`, bit for bit NumPy's ``nanquantile``, which xarray runs.
    ``skipna=False`` is :func:`axisops.quantile`, where NaN sorts last (the contract)
    instead of making the whole sequence's quantiles NaN as xarray's do; the two agree
    on data without NaN.  Dask-backed objects stay lazy and may be chunked along ``dim``
    (exact, a radix select).

    Parameters
    ----------
    obj : xarray.DataArray or xarray.Dataset
    q : float or array_like of float
        Probabilities in ``[0, 1]``, a scalar or 1-D.
    dim : hashable
    method : str, optional
        One of NumPy's 13 methods (``"linear"`` by default).
    skipna : bool, optional
        None: True for floating dtypes, as xarray.
    keep_attrs : bool, optional
        None: as ``DataArray.quantile`` (xarray's option).
    backend : str, optional
        As for :func:`axisops.quantile`.

    Examples
    --------
    >>> import xarray as xr, axisops.xarray as axr
    >>> t = xr.DataArray([[4.0, 1.0, float("nan"), 2.0]], dims=("y", "x"))
    >>> axr.quantile(t, [0.5, 1.0], "x").values.tolist()
    [[2.0], [4.0]]
    >>> axr.quantile(t, [0.5, 1.0], "x").identical(t.quantile([0.5, 1.0], "x"))
    True
    """
    keep = _keeps(keep_attrs, "quantile")
    need_labelled("obj", obj)
    q_array = np.asarray(q)
    if q_array.ndim > 1:
        invalid(f"q has shape {q_array.shape}; xarray's quantile takes a scalar or 1-D q",
                name="q", value=q, allowed="a scalar or a 1-D array of probabilities")
    check_free_name("quantile", [*obj.dims, *obj.coords], "the probabilities q")
    # xarray's q is a float64 array (not a weak scalar): float32 data gives float64.
    q_float = q_array.astype(np.float64) if q_array.dtype.kind in "biuf" else q

    def one(v: xr.DataArray, dim: Hashable, carry: bool) -> xr.DataArray:
        axis = v.get_axis_num(dim)
        skip = skipna if skipna is not None else np.dtype(v.dtype).kind in "fc"
        run = api.nanquantile if skip else api.quantile
        data = run(v.data, q_float, axis, method=method, backend=backend)
        dims = (*v.dims[:axis], *v.dims[axis + 1 :])
        coords = {n: c for n, c in _kept_coords(v, dim).items() if c.dims}  # as xarray
        if q_array.ndim == 1:
            dims = ("quantile", *dims)
        coords["quantile"] = xr.Variable(("quantile",) if q_array.ndim else (), q_float)
        return _array(v, data, dims, coords, keep)

    result = _each(obj, dim, 1, one, keep)
    return result.drop_vars([c for c, v in result.coords.items() if not v.dims
                             and c != "quantile"])


# ---- gather ----------------------------------------------------------------------------------


@boundary("gather")
def gather(obj: Obj, dim: Hashable, index: Any, *, keep_attrs: bool | None = None,
           backend: str | None = None) -> Obj:
    """``obj.isel({dim: index})`` for integer positions, computed by :func:`axisops.gather`.

    ``index`` is an integer DataArray: its dimensions that ``obj`` has (``dim`` aside)
    line up with ``obj``'s, pointwise, with the same sizes; ``dim`` itself or one other
    dimension holds the positions along ``dim`` and replaces it in the result (with
    neither, one element is picked per sequence and ``dim`` goes).  Negative positions
    count from the end; one out of range raises :class:`~axisops.IndexOutOfRangeError`
    (for a dask index, when computed).  The coordinates along ``dim`` are taken at the
    same positions; ``index``'s own coordinates come along where the result has no
    coordinate of that name.  An unlabelled array ``index`` (a DataArray's only) has
    ``obj``'s dimensions.

    Parameters
    ----------
    obj : xarray.DataArray or xarray.Dataset
    dim : hashable
    index : xarray.DataArray or array_like of int
    keep_attrs : bool, optional
        None: kept, as ``isel`` keeps them.
    backend : str, optional
        As for :func:`axisops.gather`.

    Examples
    --------
    >>> import xarray as xr, axisops.xarray as axr
    >>> t = xr.DataArray([[1, 2, 3], [4, 5, 6]], dims=("y", "x"))
    >>> pick = xr.DataArray([[2, 0], [-1, 1]], dims=("y", "pick"))
    >>> axr.gather(t, "x", pick).values.tolist()
    [[3, 1], [6, 5]]
    """
    keep = _keeps(keep_attrs, "isel")
    need_labelled("obj", obj)
    sizes = dict(obj.sizes)
    if not isinstance(index, xr.DataArray):
        if isinstance(obj, xr.Dataset):
            need_labelled_index(index)
        index = xr.DataArray(index, dims=obj.dims)
    check_dim(dim, tuple(sizes), "the Dataset" if isinstance(obj, xr.Dataset) else
              "the DataArray")
    along = check_index_dims(dim, dict(index.sizes), sizes)

    def one(v: xr.DataArray, carry: bool, data: bool = True) -> xr.DataArray:
        missing = {d: n for d, n in index.sizes.items() if d != along and d not in v.dims}
        if missing:
            v = v.expand_dims(missing)  # a Dataset's variable, broadcast to the index
        axis = v.get_axis_num(dim)
        positions, dims = _lined_up(index, along, v, dim)
        out = _gather_data(v.data, positions, axis, backend) if data else None
        coords = _kept_coords(v, dim)
        if carry:
            coords.update(_carried(v, dim, positions, axis, dims, {dim, *index.dims}))
            coords.update({n: c.variable for n, c in index.coords.items()
                           if n not in coords and n not in v.dims})
        if along is None:
            out = None if out is None else _drop_axis(out, axis)
            dims = dims[:axis] + dims[axis + 1 :]
            coords = {n: (c.squeeze(dim) if dim in c.dims else c) for n, c in coords.items()}
        if out is None:
            return xr.DataArray(np.broadcast_to(np.int8(0), tuple(
                v.sizes[d] if d in v.dims else index.sizes[d] for d in dims)), dims=dims,
                coords=coords)
        return _array(v, out, dims, coords, keep)

    if isinstance(obj, xr.DataArray):
        return one(obj, True)
    variables = {name: one(var, False) if dim in var.dims else var
                 for name, var in obj.data_vars.items()}
    # The coordinates each variable would carry, made once (for dask: one graph, and no
    # comparison of one variable's with another's, which would compute them).
    spans = {dim, *index.dims}
    first = next((v for v in obj.data_vars.values() if dim in v.dims), None)
    order = [*(first.dims if first is not None else ()), *obj.dims]
    order = [d for i, d in enumerate(order) if d in spans and d not in order[:i]]
    template = xr.DataArray(
        np.broadcast_to(np.int8(0), tuple(sizes[d] for d in order)), dims=order,
        coords={c: obj.coords[c].variable for c in obj.coords
                if set(obj.coords[c].dims) <= spans})
    carried = one(_spread(template, obj, dim), True, data=False).coords
    result = _dataset(obj, variables, dim, keep)
    return result.assign_coords({n: c.variable for n, c in carried.items()
                                 if n not in result.coords})


def _spread(template: xr.DataArray, ds: xr.Dataset, dim: Hashable) -> xr.DataArray:
    """``template`` with the dimensions of ``ds``'s coordinates along ``dim`` it lacks, and
    those coordinates."""
    along = {c: ds.coords[c] for c in ds.coords if dim in ds.coords[c].dims}
    extra = [d for d in ds.dims if d not in template.dims
             and any(d in c.dims for c in along.values())]
    if extra:
        template = template.expand_dims({d: ds.sizes[d] for d in extra})
        template = template.transpose(*[d for d in ds.dims if d in template.dims])
    return template.assign_coords({c: v.variable for c, v in along.items()})


def _lined_up(index: xr.DataArray, along: Hashable | None, v: xr.DataArray, dim: Hashable
              ) -> tuple[Any, tuple[Hashable, ...]]:
    """The positions of ``index`` with ``v``'s rank (an array): its dimensions in ``v``'s
    order, the positions at ``dim``'s place (size 1 with no ``along``), size 1 where it has
    none of ``v``'s; and the result's dimensions."""
    bare = xr.DataArray(index.data, dims=index.dims)  # its coordinates stay behind
    if along is not None and along != dim:
        bare = bare.rename({along: dim})
    missing = [d for d in v.dims if d not in bare.dims]
    if missing:
        bare = bare.expand_dims(missing)
    dims = tuple((along if along is not None else dim) if d == dim else d for d in v.dims)
    return bare.transpose(*v.dims).data, dims
