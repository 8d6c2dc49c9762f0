"""axisops.xarray: every function against the same axisops call on the underlying NumPy
arrays (bit for bit) and against xarray's own equivalent where there is one; Datasets
variable by variable; dask-backed objects lazy (a scheduler that refuses to run proves
it) and exact, on the synchronous scheduler and on the session's LocalCluster."""

from __future__ import annotations

import numpy as np
import pytest

xr = pytest.importorskip("xarray")

import axisops
import axisops.xarray as axr
from axisops import IndexOutOfRangeError, InvalidArgumentError

from oracle import assert_same_bits
from strategies import tie_heavy


def _array(dtype="float64", shape=(3, 7), seed=0, width=None):
    data = tie_heavy(dtype, shape, seed, width)
    y, x = shape[0], shape[1]
    return xr.DataArray(
        data, dims=("y", "x"), name="t", attrs={"units": "K"},
        coords={"y": [f"r{i}" for i in range(y)], "x": np.arange(x) * 10,
                "lat": (("y", "x"), np.arange(y * x, dtype=np.float32).reshape(y, x) / 8,
                        {"units": "deg"}),
                "height": ("x", np.arange(x) + 100), "station": ("y", list("abcdefgh")[:y]),
                "scalar": 5})


def _dataset(seed=0):
    t = _array("float32", (3, 7), seed)
    return xr.Dataset(
        {"t": t, "n": (("y", "x"), tie_heavy("int64", (3, 7), seed + 1)),
         "w": ("y", np.array([1.5, 2.5, 3.5])), "c": ("x", tie_heavy("float64", (7,), 2))},
        attrs={"title": "test"})


def _refuse_compute(*args, **kwargs):
    raise AssertionError("computed before it was asked to")


# ---- top-k -----------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "uint8", "bool"])
@pytest.mark.parametrize("largest", [True, False])
def test_topk_is_axisops_topk_along_the_named_dimension(dtype, largest):
    a = _array(dtype)
    for dim, axis in (("x", 1), ("y", 0)):
        k = min(3, a.sizes[dim])
        values, indices = axr.topk(a, k, dim, largest=largest)
        want = axisops.topk(a.values, k, axis, largest=largest)
        assert_same_bits(values.values, want.values)
        assert_same_bits(indices.values, want.indices)
        rank = f"{dim}_rank"
        assert values.dims == indices.dims == tuple(rank if d == dim else d for d in a.dims)
        assert values[rank].values.tolist() == list(range(k))
        # xarray's own vectorized indexing at the same positions gives the same object
        xr.testing.assert_identical(values, a.isel({dim: indices}))


def test_topk_carries_the_selected_coordinates_on_values_and_indices():
    a = _array(shape=(2, 5))
    values, indices = axr.topk(a, 2, "x")
    idx = indices.values
    for r in (values, indices):
        assert r.x.dims == ("y", "x_rank") and "x" not in r.indexes
        assert r.x.values.tolist() == (a.x.values[idx]).tolist()
        assert r.height.values.tolist() == (a.height.values[idx]).tolist()
        assert_same_bits(r.lat.values, np.take_along_axis(a.lat.values, idx, 1))
        assert r.lat.attrs == {"units": "deg"}
        assert r.station.values.tolist() == a.station.values.tolist()  # off dim: as it was
        assert int(r.scalar) == 5 and r.name == "t"
    assert indices.dtype == np.int64


def test_topk_smallest_is_the_sort_cut_at_k():
    a = _array(seed=4)
    values, indices = axr.topk(a, 4, "x", largest=False)
    xr.testing.assert_identical(values, axr.sort(a, "x").isel(x_rank=slice(4)))
    xr.testing.assert_identical(indices, axr.argsort(a, "x").isel(x_rank=slice(4)))


def test_topk_index_dtype_and_unsorted_pass_through():
    a = _array("int32")
    indices = axr.topk(a, 2, "x", index_dtype=np.int16, sorted=False).indices
    assert indices.dtype == np.int16
    want = axisops.topk(a.values, 2, 1, index_dtype=np.int16, sorted=False)
    assert_same_bits(indices.values, want.indices)


# ---- sort, argsort ---------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float64", "float16", "int8", "uint64"])
@pytest.mark.parametrize("descending", [False, True])
def test_sort_and_argsort_are_axisops_along_the_named_dimension(dtype, descending):
    a = _array(dtype, (4, 9), 7)
    for dim, axis in (("x", 1), ("y", 0)):
        s = axr.sort(a, dim, descending=descending)
        i = axr.argsort(a, dim, descending=descending)
        assert_same_bits(s.values, axisops.sort(a.values, axis, descending=descending))
        assert_same_bits(i.values, axisops.argsort(a.values, axis, descending=descending))
        xr.testing.assert_identical(s, a.isel({dim: i}))
        bare = s.drop_vars([c for c in s.coords if c != f"{dim}_rank"])
        xr.testing.assert_identical(bare, axr.sort(  # no coordinate to carry: no argsort
            a.drop_vars(a.coords), dim, descending=descending))


def test_sort_of_a_1d_array_is_sortby_with_its_dimension_renamed():
    a = _array("float64", (1, 12), 3).isel(y=0, drop=True)
    mine = axr.sort(a, "x")
    theirs = a.sortby(a)  # np.lexsort: stable, NaN last
    assert_same_bits(mine.values, theirs.values)
    assert mine.x.values.tolist() == theirs.x.values.tolist()
    assert mine.height.values.tolist() == theirs.height.values.tolist()


def test_argsort_is_xarrays_stable_argsort():
    a = _array("float64", (4, 9), 5)
    for dim, axis in (("x", 1), ("y", 0)):
        theirs = a.argsort(axis=axis, kind="stable")
        assert axr.argsort(a, dim).values.tolist() == theirs.values.tolist()


# ---- kthvalue, median ------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float64", "float32", "int16", "bool"])
def test_kthvalue_and_median_are_axisops_along_the_named_dimension(dtype):
    a = _array(dtype, (4, 8), 11)
    for dim, axis in (("x", 1), ("y", 0)):
        for k in (1, 3, a.sizes[dim]):
            got = axr.kthvalue(a, k, dim)
            want = axisops.kthvalue(a.values, k, axis)
            assert_same_bits(got.values.values, want.values)
            assert_same_bits(got.indices.values, want.indices)
            assert got.values.dims == tuple(d for d in a.dims if d != dim)
        got = axr.median(a, dim)
        want = axisops.median(a.values, axis)
        assert_same_bits(got.values.values, want.values)
        assert_same_bits(got.indices.values, want.indices)


def test_kthvalue_carries_the_chosen_elements_coordinates():
    a = _array(shape=(3, 6), seed=2)
    got = axr.kthvalue(a, 2, "x")
    idx = got.indices.values
    for r in (got.values, got.indices):
        assert r.x.dims == ("y",) and r.x.values.tolist() == a.x.values[idx].tolist()
        assert_same_bits(r.lat.values, a.lat.values[np.arange(3), idx])
    xr.testing.assert_identical(got.values, a.isel(x=got.indices))  # what isel(argmin) does


def test_median_is_the_lower_median_where_xarray_averages():
    """The documented difference: xarray's median averages the two middle elements (and
    skips NaN); axisops' is the lower one, an element, NaN sorting last."""
    odd = xr.DataArray(np.random.default_rng(0).standard_normal((5, 7)), dims=("y", "x"))
    np.testing.assert_array_equal(axr.median(odd, "x").values, odd.median("x"))
    even = odd.isel(x=slice(6))
    lower = even.quantile(0.5, "x", method="lower").drop_vars("quantile")
    np.testing.assert_array_equal(axr.median(even, "x").values, lower)
    assert not np.array_equal(axr.median(even, "x").values, even.median("x"))
    with_nan = xr.DataArray([1.0, np.nan, 3.0, 2.0, np.nan], dims="x")
    assert float(axr.median(with_nan, "x").values) == 3.0  # NaN counts, sorting last
    assert float(with_nan.median("x")) == 2.0  # skipna for floats
    assert np.isnan(with_nan.median("x", skipna=False))


# ---- gather ----------------------------------------------------------------------------------

def test_gather_is_isel_computed_by_axisops():
    a = _array(shape=(3, 7), seed=6)
    index = xr.DataArray(np.array([[0, -1, 3], [6, 6, 0], [2, 1, -7]]), dims=("y", "pick"),
                         coords={"pick": ["p", "q", "r"]})
    got = axr.gather(a, "x", index)
    assert_same_bits(got.values, axisops.gather(a.values, 1, index.values))
    xr.testing.assert_identical(got, a.isel(x=index))
    along_x = index.rename(pick="x").drop_vars("x")
    xr.testing.assert_identical(axr.gather(a, "x", along_x), a.isel(x=along_x))
    one_each = xr.DataArray([1, 0, 5], dims="y")  # no positions dimension: one per row
    xr.testing.assert_identical(axr.gather(a, "x", one_each), a.isel(x=one_each))
    same_for_all = xr.DataArray([4, 2], dims="pick")  # broadcast over y
    xr.testing.assert_identical(axr.gather(a, "x", same_for_all),
                                a.isel(x=same_for_all).transpose("y", "pick"))


def test_gather_of_topk_indices_is_the_topk_values():
    a = _array(seed=8)
    values, indices = axr.topk(a, 3, "x")
    xr.testing.assert_identical(axr.gather(a, "x", indices), values)
    assert_same_bits(axr.gather(a, "x", indices.values).values, values.values)  # unlabelled


def test_gather_refuses_out_of_range_positions_and_mislabelled_indices():
    a = _array(shape=(2, 4))
    with pytest.raises(IndexOutOfRangeError, match=r"^gather\(\): index\[1, 0\]=4 is out"):
        axr.gather(a, "x", xr.DataArray([[0], [4]], dims=("y", "k")))
    with pytest.raises(InvalidArgumentError, match="index has size 3 along dimension 'y'"):
        axr.gather(a, "x", xr.DataArray([[0], [1], [2]], dims=("y", "k")))
    with pytest.raises(InvalidArgumentError, match="index has 2 dimensions that are not"):
        axr.gather(a, "x", xr.DataArray([[0]], dims=("j", "k")))
    with pytest.raises(InvalidArgumentError, match="a Dataset is gathered with an xarray"):
        axr.gather(_dataset(), "x", np.zeros((3, 1), int))


# ---- Datasets --------------------------------------------------------------------------------

def test_a_dataset_is_done_variable_by_variable_and_the_others_pass_through():
    ds = _dataset(3)
    values, indices = axr.topk(ds, 2, "x")
    for name in ("t", "n", "c"):
        want = axr.topk(ds[name], 2, "x")
        assert_same_bits(values[name].values, want.values.values)
        assert_same_bits(indices[name].values, want.indices.values)
    for r in (values, indices):
        xr.testing.assert_identical(r["w"], ds["w"])  # no x: unchanged
        assert r.attrs == {"title": "test"} and r["t"].attrs == {"units": "K"}
        assert not [c for c in r.coords if "x" in r.coords[c].dims]  # differ per variable
        assert r["x_rank"].values.tolist() == [0, 1]
        assert r["station"].values.tolist() == list("abc")
    m = axr.median(ds, "y")
    for name in ("t", "n", "w"):
        assert_same_bits(m.values[name].values, axisops.median(ds[name].values, 0).values)
    xr.testing.assert_identical(m.values["c"], ds["c"])
    xr.testing.assert_identical(axr.sort(ds, "x")["t"].drop_vars("x_rank"),
                                axr.sort(ds["t"], "x").drop_vars(["x", "lat", "height",
                                                                   "x_rank"]))
    k = axr.kthvalue(ds, 2, "x")
    assert_same_bits(k.indices["n"].values, axisops.kthvalue(ds["n"].values, 2, 1).indices)
    assert_same_bits(axr.argsort(ds, "y")["t"].values, axisops.argsort(ds["t"].values, 0))


def test_a_dataset_gather_is_its_isel():
    ds = _dataset(5)
    index = xr.DataArray([[1, 0], [6, 2], [-1, 3]], dims=("y", "pick"))
    xr.testing.assert_identical(axr.gather(ds, "x", index), ds.isel(x=index))


# ---- names, attrs, errors --------------------------------------------------------------------

@pytest.mark.parametrize("option", ["default", True, False])
def test_attrs_go_as_xarrays_own_methods_take_them(option):
    a = _array()
    with xr.set_options(keep_attrs=option):
        values, indices = axr.topk(a, 2, "x")
        assert values.attrs == a.isel(x=[0]).attrs  # a selection: kept
        assert indices.attrs == a.argsort().attrs  # positions: as argsort
        assert axr.sort(a, "x").attrs == a.sortby("x").attrs
        assert axr.argsort(a, "x").attrs == a.argsort().attrs
        m = axr.median(a, "x")
        assert m.values.attrs == a.median("x").attrs and m.indices.attrs == a.argsort().attrs
        assert axr.kthvalue(a, 1, "x").values.attrs == a.median("x").attrs
        assert axr.gather(a, "x", xr.DataArray([0], dims="k")).attrs == a.isel(x=[0]).attrs
    for keep in (True, False):
        for r in (*axr.topk(a, 2, "x", keep_attrs=keep), axr.sort(a, "x", keep_attrs=keep),
                  *axr.median(a, "x", keep_attrs=keep), *axr.topk(_dataset(), 1, "x",
                                                                  keep_attrs=keep)):
            assert bool(r.attrs) is keep
            assert isinstance(r, xr.Dataset) or r.name == a.name


def test_the_front_names_its_arguments_in_errors():
    a = _array()
    with pytest.raises(InvalidArgumentError,
                       match=r"^topk\(\): dim='z' is not a dimension of the DataArray "
                             r"\(dimensions: 'y', 'x'\)"):
        axr.topk(a, 1, "z")
    with pytest.raises(InvalidArgumentError, match=r"^median\(\): dim='z' is not a dimension "
                                                   r"of the Dataset"):
        axr.median(_dataset(), "z")
    with pytest.raises(InvalidArgumentError, match=r"^topk\(\): k=9 is out of range"):
        axr.topk(a, 9, "x")
    with pytest.raises(InvalidArgumentError, match="the result needs a dimension named 'x_rank'"):
        axr.sort(a.assign_coords(x_rank=1), "x")
    with pytest.raises(InvalidArgumentError, match=r"^sort\(\): obj of type numpy.ndarray is "
                                                   r"not an xarray.DataArray"):
        axr.sort(a.values, "x")


# ---- quantile --------------------------------------------------------------------------------


def _with_nan(dtype="float64", shape=(3, 7), seed=0):
    a = _array(dtype, shape, seed)
    if a.dtype.kind == "f":
        a[0, ::3] = np.nan
        a[-1, :] = np.nan  # an all-NaN row: NaN (xarray's RuntimeWarning is NumPy's)
        # Not the first sequence along either dimension: NumPy's nanquantile gives the
        # dtype its first sequence's result has (the data's for an all-NaN one), while
        # axisops's dtype never depends on the data (docs/contract.md).
        a[1, 0] = 1.5
    return a


def _same_numbers(got, want):
    """The same bits, except a NaN the interpolation makes (-inf + inf): NumPy's is the
    CPU's (x86: negative), axisops's np.nan on every engine (docs/contract.md)."""
    assert got.dtype == want.dtype and got.shape == want.shape
    if want.dtype == bool:  # the data hold bool bytes other than 1 (True, as everywhere)
        np.testing.assert_array_equal(got, want)
        return
    nan = np.isnan(want)
    np.testing.assert_array_equal(np.isnan(got), nan)
    assert_same_bits(got[~nan], want[~nan])


@pytest.mark.filterwarnings("ignore:All-NaN slice:RuntimeWarning")
@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")
@pytest.mark.parametrize("dtype,method", [
    (d, m) for d in ["float64", "float32", "int64", "uint8", "bool"]
    for m in ["linear", "lower", "nearest", "hazen", "inverted_cdf"]
    if d != "bool" or m in ("lower", "nearest", "inverted_cdf")])  # NumPy's bool rule
@pytest.mark.parametrize("q", [0.5, [0.0, 0.01, 0.5, 0.99, 1.0], []])
def test_quantile_is_xarrays_quantile(dtype, q, method):
    """xarray's own result, with its dimensions, coordinates, name and attrs (skipna by
    default for floats; xarray runs NumPy's nanquantile there, as axisops's is)."""
    a = _with_nan(dtype)
    for dim in ("x", "y"):
        got = axr.quantile(a, q, dim, method=method)
        want = a.quantile(q, dim, method=method)
        xr.testing.assert_identical(got, want)
        _same_numbers(got.values, want.values)


def test_quantile_without_skipna_sorts_nan_last():
    a = _with_nan("float32")
    got = axr.quantile(a, [0.25, 1.0], "x", skipna=False)
    want = axisops.quantile(a.values, np.array([0.25, 1.0]), 1)
    assert_same_bits(got.values, want)
    clean = a.fillna(1.5)
    xr.testing.assert_identical(axr.quantile(clean, [0.25, 1.0], "x", skipna=False),
                                clean.quantile([0.25, 1.0], "x", skipna=False))


def test_a_dataset_quantile_is_xarrays():
    ds = _dataset(4)
    xr.testing.assert_identical(axr.quantile(ds, [0.2, 0.7], "x"), ds.quantile([0.2, 0.7], "x"))
    xr.testing.assert_identical(axr.quantile(ds, 0.5, "y", keep_attrs=True),
                                ds.quantile(0.5, "y", keep_attrs=True))


def test_quantile_refuses_what_xarray_cannot_label():
    a = _array()
    with pytest.raises(InvalidArgumentError, match=r"q has shape \(2, 1\)"):
        axr.quantile(a, [[0.1], [0.2]], "x")
    with pytest.raises(InvalidArgumentError, match="named 'quantile'"):
        axr.quantile(a.assign_coords(quantile=1), 0.5, "x")
    with pytest.raises(InvalidArgumentError, match="q"):
        axr.quantile(a, 1.5, "x")
    with pytest.raises(InvalidArgumentError, match="'z'"):
        axr.quantile(a, 0.5, "z")


# ---- dask: lazy and exact --------------------------------------------------------------------

def _lazy_results(ds, index):
    return {
        "topk": axr.topk(ds, 3, "x"),
        "topk_y": axr.topk(ds, 2, "y", largest=False),
        "sort": axr.sort(ds.chunk({"x": -1}), "x"),
        "argsort": axr.argsort(ds.chunk({"x": -1}), "x", descending=True),
        "kthvalue": axr.kthvalue(ds, 4, "x"),
        "median": axr.median(ds, "x"),
        "gather": axr.gather(ds, "x", index),
        "gather_da": axr.gather(ds["t"], "x", index),
        "topk_da": axr.topk(ds["t"], 3, "x"),
        "median_da": axr.median(ds["t"], "x"),
        "sort_da": axr.sort(ds["t"].chunk({"x": -1}), "x"),
        "quantile": axr.quantile(ds, [0.1, 0.5, 1.0], "x", method="hazen"),
        "quantile_da": axr.quantile(ds["t"], 0.3, "x", skipna=False),
    }


def _eager_results(ds, index):
    return _lazy_results(ds, index)


def _flatten(results):
    out = {}
    for name, r in results.items():
        parts = r if isinstance(r, tuple) else (r,)
        for i, part in enumerate(parts):
            out[f"{name}.{i}"] = part
    return out


def _check_same(lazy, eager):
    for name, want in _flatten(eager).items():
        got = lazy[name]
        xr.testing.assert_identical(got, want)
        for v in (got.data_vars.values() if isinstance(got, xr.Dataset) else [got]):
            assert isinstance(v.data, np.ndarray), name


@pytest.mark.parametrize("chunks", [{"x": 2, "y": 1}, {"x": 3}, {"x": 1}])
def test_a_dask_backed_dataset_stays_lazy_and_gives_the_numpy_results(chunks):
    dask = pytest.importorskip("dask")
    ds = _dataset(9)
    index = xr.DataArray([[1, 0], [6, 2], [-1, 3]], dims=("y", "pick"))
    eager = _eager_results(ds, index)
    lazy_ds = ds.chunk(chunks)
    with dask.config.set(scheduler=_refuse_compute):
        lazy = _lazy_results(lazy_ds, index.chunk({"y": 1}))
        for r in _flatten(lazy).values():
            variables = r.data_vars.values() if isinstance(r, xr.Dataset) else [r]
            assert any(type(v.data).__module__.startswith("dask") for v in variables)
    with dask.config.set(scheduler="synchronous"):
        computed = {n: r.compute() for n, r in _flatten(lazy).items()}
    _check_same(computed, eager)


def test_a_dask_backed_dataset_on_a_local_cluster(client):
    ds = _dataset(12)
    index = xr.DataArray([[2, 0, 5], [1, 1, -1], [6, 3, 0]], dims=("y", "pick"))
    lazy = _flatten(_lazy_results(ds.chunk({"x": 2}), index.chunk({"y": 2})))
    futures = {name: client.compute(r) for name, r in lazy.items()}
    computed = {name: f.result() for name, f in futures.items()}
    _check_same(computed, _eager_results(ds, index))


def test_sort_along_a_chunked_dimension_says_how_to_rechunk():
    pytest.importorskip("dask")
    with pytest.raises(InvalidArgumentError, match=r"rechunk"):
        axr.sort(_array().chunk({"x": 2}), "x")


def test_import_axisops_xarray_is_by_name():
    import subprocess
    import sys

    code = ("import sys, axisops; axisops.topk([1], 1); print('xarray' in sys.modules); "
            "import axisops.xarray; print('xarray' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120)
    assert out.stdout.split() == ["False", "True"]
