// axisops._core._kernels: the Python bindings of the compiled kernels (one module; each
// call goes to the kernels of the instruction-set level in use, common/dispatch.hpp).
// Arguments arrive validated by axisops' Python layer; the checks here are only those that
// memory safety needs (ranks, shapes, strides, dtypes, k, kth and axis in range), so that a
// wrong call can neither read nor write outside an array, nor write anywhere but the
// caller's outputs (they raise ValueError, never crash). Outputs are taken as they are, never converted: an output the kernel cannot
// write in place (strided, Fortran-ordered, read-only, of another type) is refused, not
// copied into a temporary that would be written and dropped.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "common/cpu.hpp"
#include "common/dispatch.hpp"
#include "common/errors.hpp"
#include "common/view.hpp"
#include "common/pool.hpp"
#include "common/tuning.hpp"
#include "gather/request.hpp"
#include "select/request.hpp"
#include "topk/request.hpp"

namespace nb = nanobind;
using namespace axisops;

namespace axisops {
void bind_scan_testing(nb::module_& m);  // topk/scan_testing.cpp
}

namespace {

using AnyIn = nb::ndarray<nb::ro, nb::device::cpu>;
using AnyOut = nb::ndarray<nb::device::cpu>;
using IndexOut = nb::ndarray<nb::device::cpu>;

[[noreturn]] void fail(const std::string& what) { throw std::invalid_argument("axisops._core: " + what); }

// An output the kernels write in place: C-contiguous (any strides of a dimension of size
// one aside) and, for indices, int64.
template <class A>
void check_writable(const A& out, const char* what, bool indices) {
    if (indices) {
        const auto t = out.dtype();
        if (t.code != uint8_t(nb::dlpack::dtype_code::Int) || t.bits != 64 || t.lanes != 1)
            fail(std::string(what) + " must be int64");
    }
    int64_t step = 1;
    for (size_t d = out.ndim(); d-- > 0;) {
        if (out.shape(d) != 1 && out.stride(d) != step)
            fail(std::string(what) + " must be C-contiguous (it is written in place)");
        step *= int64_t(out.shape(d));
    }
}

template <class A>
View view_of(const A& a) {
    View v;
    if (a.ndim() > size_t(MAX_DIMS)) fail("too many dimensions");
    v.data = a.data();
    v.ndim = int(a.ndim());
    v.itemsize = int(a.itemsize());
    for (int d = 0; d < v.ndim; ++d) {
        v.shape[d] = int64_t(a.shape(size_t(d)));
        v.strides[d] = int64_t(a.stride(size_t(d)));
    }
    return v;
}

bool is_unsigned(const nb::dlpack::dtype& t) { return t.code == uint8_t(nb::dlpack::dtype_code::UInt); }

void py_topk(AnyIn x, int kind, int axis, int64_t k, bool largest, bool sorted, AnyOut values,
          IndexOut indices, int threads, const std::string& strategy, int64_t segment) {
    TopKRequest req;
    req.x = view_of(x);
    if (!is_unsigned(x.dtype()) || (req.x.itemsize != 1 && req.x.itemsize != 2 &&
                                    req.x.itemsize != 4 && req.x.itemsize != 8))
        fail("x must be a raw unsigned view of 1, 2, 4 or 8 bytes");
    if (kind < 0 || kind > int(Kind::Bool)) fail("unknown key kind");
    if (axis < 0 || axis >= req.x.ndim) fail("axis out of range");
    const int64_t n = req.x.shape[axis];
    if (k < 1 || k > n) fail("k out of range");
    if (values.dtype() != x.dtype() || values.ndim() != x.ndim() || indices.ndim() != x.ndim())
        fail("outputs must match x's rank and type");
    check_writable(values, "values", false);
    const auto it = indices.dtype();
    const bool i32 = it.code == uint8_t(nb::dlpack::dtype_code::Int) && it.bits == 32;
    check_writable(indices, "indices", !i32);
    if (i32 && req.x.shape[axis] > INT32_MAX) fail("int32 indices cannot hold this axis");
    for (int d = 0; d < req.x.ndim; ++d) {
        const int64_t want = d == axis ? k : req.x.shape[d];
        if (int64_t(values.shape(size_t(d))) != want || int64_t(indices.shape(size_t(d))) != want)
            fail("outputs must have x's shape with k along the axis");
    }
    req.kind = Kind(kind);
    req.axis = axis;
    req.k = k;
    req.largest = largest;
    req.sorted = sorted;
    req.values = values.data();
    if (i32) req.indices32 = static_cast<int32_t*>(indices.data());
    else req.indices = static_cast<int64_t*>(indices.data());
    req.threads = threads < 1 ? 1 : threads;
    req.strategy = strategy;
    req.segment = segment;
    nb::gil_scoped_release unlocked;
    axisops::topk(req);
}

std::string py_topk_strategy(AnyIn x, int axis, int64_t k, int threads) {
    TopKRequest req;
    req.x = view_of(x);
    if (axis < 0 || axis >= req.x.ndim) fail("axis out of range");
    req.axis = axis;
    req.k = k;
    req.threads = threads < 1 ? 1 : threads;
    return axisops::topk_strategy(req);
}

int64_t py_gather(AnyIn x, AnyIn index, int dim, AnyOut out, int threads, int64_t ahead,
                  int64_t task) {
    GatherRequest req;
    req.x = view_of(x);
    req.index = view_of(index);
    const auto it = index.dtype();
    const bool index_int = it.code == uint8_t(nb::dlpack::dtype_code::Int) || is_unsigned(it);
    if (!index_int || (it.bits != 8 && it.bits != 16 && it.bits != 32 && it.bits != 64))
        fail("index must be an integer array");
    if (req.x.ndim != req.index.ndim || out.ndim() != index.ndim()) fail("ranks differ");
    if (dim < 0 || dim >= req.x.ndim) fail("dim out of range");
    if (int(out.itemsize()) != req.x.itemsize) fail("out must have x's item size");
    const int w = req.x.itemsize;
    if (w != 1 && w != 2 && w != 4 && w != 8 && w != 16) fail("unsupported item size");
    for (int d = 0; d < req.x.ndim; ++d) {
        if (int64_t(out.shape(size_t(d))) != req.index.shape[d]) fail("out must have index's shape");
        if (d != dim && req.index.shape[d] > req.x.shape[d]) fail("index larger than x");
    }
    if (req.index.size() > 0 && req.x.shape[dim] == 0) fail("nothing to gather from");
    check_writable(out, "out", false);
    req.index_signed = !is_unsigned(it);
    req.dim = dim;
    req.out = out.data();
    req.threads = threads < 1 ? 1 : threads;
    req.ahead = ahead < 0 ? 0 : ahead;
    req.task = task < 0 ? 0 : task;
    nb::gil_scoped_release unlocked;
    return axisops::gather(req);
}

// The checks every selection binding shares: a raw unsigned view of 1, 2, 4 or 8 bytes, a
// known kind, the axis in range.
View select_input(const AnyIn& x, int kind, int axis) {
    View v = view_of(x);
    if (!is_unsigned(x.dtype()) ||
        (v.itemsize != 1 && v.itemsize != 2 && v.itemsize != 4 && v.itemsize != 8))
        fail("x must be a raw unsigned view of 1, 2, 4 or 8 bytes");
    if (kind < 0 || kind > int(Kind::Bool)) fail("unknown key kind");
    if (axis < 0 || axis >= v.ndim) fail("axis out of range");
    return v;
}

// `out` has x's shape (all of it, or without the axis when `drop_axis`).
template <class A>
void check_out(const A& out, const View& x, int axis, bool drop_axis, const char* what) {
    const int rank = x.ndim - (drop_axis ? 1 : 0);
    bool ok = int(out.ndim()) == rank;
    for (int d = 0, o = 0; ok && d < x.ndim; ++d) {
        if (drop_axis && d == axis) continue;
        ok = int64_t(out.shape(size_t(o++))) == x.shape[d];
    }
    if (!ok) fail(std::string(what) + " must have x's shape" + (drop_axis ? " without the axis" : ""));
}

// The outputs of sort and partition, each optional, both of x's shape (one at least).
template <class Req>
void set_full_outputs(Req& req, const AnyIn& x, int axis, const std::optional<AnyOut>& values,
                      const std::optional<IndexOut>& indices, const char* op) {
    if (!values && !indices) fail(std::string(op) + " needs values or indices");
    if (values) {
        if (values->dtype() != x.dtype()) fail("values must have x's type");
        check_out(*values, req.x, axis, false, "values");
        check_writable(*values, "values", false);
        req.values = values->data();
    }
    if (indices) {
        check_out(*indices, req.x, axis, false, "indices");
        check_writable(*indices, "indices", true);
        req.indices = static_cast<int64_t*>(indices->data());
    }
}

void py_sort(AnyIn x, int kind, int axis, bool descending, std::optional<AnyOut> values,
             std::optional<IndexOut> indices, int threads, const std::string& strategy,
             int64_t segment) {
    SortRequest req;
    req.x = select_input(x, kind, axis);
    set_full_outputs(req, x, axis, values, indices, "sort");
    req.kind = Kind(kind);
    req.axis = axis;
    req.descending = descending;
    req.threads = std::max(threads, 1);
    req.strategy = strategy;
    req.segment = segment;
    nb::gil_scoped_release unlocked;
    axisops::sort(req);
}

void py_kthvalue(AnyIn x, int kind, int axis, int64_t k, AnyOut values, IndexOut indices,
                 int threads, const std::string& strategy, int64_t segment, double sigmas) {
    KthRequest req;
    req.x = select_input(x, kind, axis);
    if (k < 1 || k > req.x.shape[axis]) fail("k out of range");
    if (values.dtype() != x.dtype()) fail("values must have x's type");
    check_out(values, req.x, axis, true, "values");
    check_out(indices, req.x, axis, true, "indices");
    check_writable(values, "values", false);
    check_writable(indices, "indices", true);
    req.kind = Kind(kind);
    req.axis = axis;
    req.k = k;
    req.values = values.data();
    req.indices = static_cast<int64_t*>(indices.data());
    req.threads = std::max(threads, 1);
    req.strategy = strategy;
    req.segment = segment;
    req.sigmas = sigmas;
    nb::gil_scoped_release unlocked;
    axisops::kthvalue(req);
}

void py_kth_many(AnyIn x, int kind, int axis, nb::ndarray<nb::ro, nb::device::cpu> ranks,
                 AnyOut values, int threads, const std::string& strategy, int64_t segment) {
    KthManyRequest req;
    req.x = select_input(x, kind, axis);
    const int64_t n = req.x.shape[axis];
    const auto rt = ranks.dtype();
    if (rt.code != uint8_t(nb::dlpack::dtype_code::Int) || rt.bits != 64 || ranks.ndim() != 2)
        fail("ranks must be a 2-D int64 array");
    check_writable(ranks, "ranks", true);  // C-contiguous int64
    int64_t count = 1;
    for (int d = 0; d < req.x.ndim; ++d)
        if (d != axis) count *= req.x.shape[d];
    const int64_t rows = int64_t(ranks.shape(0)), t = int64_t(ranks.shape(1));
    if (rows != 1 && rows != count) fail("ranks must have one row, or one per sequence");
    const int64_t* r = static_cast<const int64_t*>(ranks.data());
    for (int64_t i = 0; i < rows * t; ++i)
        if (r[i] < 0 || r[i] >= n) fail("every rank must be in [0, n)");
    if (values.dtype() != x.dtype() || int(values.ndim()) != req.x.ndim ||
        int64_t(values.shape(values.ndim() - 1)) != t)
        fail("values must have x's type and shape without the axis, then the ranks");
    for (int d = 0, o = 0; d < req.x.ndim; ++d) {
        if (d == axis) continue;
        if (int64_t(values.shape(size_t(o++))) != req.x.shape[d])
            fail("values must have x's shape without the axis, then the ranks");
    }
    check_writable(values, "values", false);
    req.kind = Kind(kind);
    req.axis = axis;
    req.ranks = r;
    req.rank_rows = rows;
    req.t = t;
    req.values = values.data();
    req.threads = std::max(threads, 1);
    req.strategy = strategy;
    req.segment = segment;
    nb::gil_scoped_release unlocked;
    axisops::kth_many(req);
}

void py_partition(AnyIn x, int kind, int axis, const std::vector<int64_t>& kths,
                  std::optional<AnyOut> values, std::optional<IndexOut> indices, int threads,
                  const std::string& strategy, int64_t segment, double sigmas) {
    PartitionRequest req;
    req.x = select_input(x, kind, axis);
    const int64_t n = req.x.shape[axis];
    if (kths.empty()) fail("kths must not be empty");
    for (size_t i = 0; i < kths.size(); ++i)
        if (kths[i] < 0 || kths[i] >= n || (i > 0 && kths[i] <= kths[i - 1]))
            fail("kths must be sorted, unique and in [0, n)");
    set_full_outputs(req, x, axis, values, indices, "partition");
    req.kind = Kind(kind);
    req.axis = axis;
    req.kths = kths;
    req.threads = std::max(threads, 1);
    req.strategy = strategy;
    req.segment = segment;
    req.sigmas = sigmas;
    nb::gil_scoped_release unlocked;
    axisops::partition(req);
}

// The pool's mechanism, for tests: `tasks` tasks on up to `threads` threads; each records
// the thread it ran on, and task `fail_at` throws. Returns, per task, a number naming its
// thread (the caller's is 0). A failure is reported once every task that started has
// finished, with those counts in the message, so a test can check nothing still runs.
std::vector<int64_t> pool_probe(int64_t tasks, int threads, int64_t fail_at) {
    if (tasks < 0 || threads < 1) fail("tasks must be >= 0 and threads >= 1");
    std::vector<std::thread::id> ran(static_cast<size_t>(tasks));
    std::atomic<int64_t> started{0}, finished{0};
    const std::thread::id caller = std::this_thread::get_id();
    std::string failure;
    {
        nb::gil_scoped_release unlocked;
        try {
            parallel_for(tasks, threads, [&](int64_t t) {
                started.fetch_add(1);
                ran[size_t(t)] = std::this_thread::get_id();
                // a little work, so other threads get to take tasks too
                volatile int64_t sink = 0;
                for (int i = 0; i < 20000; ++i) sink = sink + i;
                if (t == fail_at) {
                    finished.fetch_add(1);
                    throw std::runtime_error("task " + std::to_string(t) + " failed");
                }
                finished.fetch_add(1);
            });
        } catch (const std::runtime_error& e) {
            failure = std::string(e.what()) + "; started " + std::to_string(started.load()) +
                      ", finished " + std::to_string(finished.load());
        }
    }
    if (!failure.empty()) throw std::runtime_error(failure);
    std::vector<std::thread::id> seen{caller};
    std::vector<int64_t> out;
    for (const auto& id : ran) {
        size_t at = 0;
        while (at < seen.size() && seen[at] != id) ++at;
        if (at == seen.size()) seen.push_back(id);
        out.push_back(int64_t(at));
    }
    return out;
}

// The tuning as {name: value}.
nb::dict tuning_dict(const Tuning& t) {
    nb::dict out;
    const std::vector<std::string> names = tuning_names();
    const std::vector<int64_t> values = tuning_values(t);
    for (size_t i = 0; i < names.size(); ++i) out[names[i].c_str()] = values[i];
    return out;
}

// Sets the fields `changes` names (others keep their values); returns the tuning before.
nb::dict set_tuning_fields(const nb::dict& changes) {
    const Tuning before = current_tuning();
    const std::vector<std::string> names = tuning_names();
    std::vector<int64_t> values = tuning_values(before);
    for (auto item : changes) {
        const std::string name = nb::cast<std::string>(item.first);
        size_t at = 0;
        while (at < names.size() && names[at] != name) ++at;
        if (at == names.size()) fail("no tuning field named '" + name + "'");
        values[at] = nb::cast<int64_t>(item.second);
    }
    set_tuning(tuning_from(values));
    return tuning_dict(before);
}

std::vector<std::string> seen_paths() {
    const uint64_t bits = paths_seen();
    std::vector<std::string> out;
    const std::vector<std::string> names = path_names();
    for (size_t i = 0; i < names.size(); ++i)
        if (bits >> i & 1) out.push_back(names[i]);
    return out;
}

}  // namespace

NB_MODULE(_kernels, m) {
    m.doc() = "axisops' compiled CPU kernels, one table per instruction-set level";
    m.attr("COMPILER") = AXISOPS_COMPILER;
    m.attr("BUILD") = AXISOPS_BUILD_TYPE;
    nb::exception<InputChanged>(m, "InputChanged", PyExc_RuntimeError);
    nb::dict kinds;
    for (int k = 0; k <= int(Kind::Bool); ++k) kinds[KIND_NAMES[k]] = k;
    m.attr("KINDS") = kinds;
    m.attr("TOPK_STRATEGIES") = std::vector<std::string>(std::begin(TOPK_STRATEGIES),
                                                         std::end(TOPK_STRATEGIES));
    m.attr("SELECT_STRATEGIES") = std::vector<std::string>(std::begin(SELECT_STRATEGIES),
                                                           std::end(SELECT_STRATEGIES));
    m.attr("PATHS") = path_names();
    m.def("_tuning", []() { return tuning_dict(current_tuning()); },
          "The size switches calls start with now (test hook).");
    m.def("_tuning_defaults", []() { return tuning_dict(Tuning()); },
          "The measured defaults of the size switches (test hook).");
    m.def("_set_tuning", &set_tuning_fields, nb::arg("changes"),
          "Sets the size switches named in `changes`; returns the tuning before (test hook).");
    m.def("_paths", &seen_paths, "The paths calls took since the last reset (test hook).");
    m.def("_reset_paths", &reset_paths_seen, "Forgets the paths taken (test hook).");
    m.def("cpu_levels", &cpu_levels,
          "The instruction-set levels this CPU (and its OS) can run, lowest first.");
    m.def("built_levels", &built_levels, "The instruction-set levels built in, lowest first.");
    m.def("level", []() { return std::string(kernels().level); },
          "The instruction-set level in use.");
    m.def("sort_networks",
          []() {
              std::vector<int> bits;
              if (kernels().sort_network32) bits.push_back(32);
              if (kernels().sort_network64) bits.push_back(64);
              return bits;
          },
          "The record widths (32, 64) whose short rows the level in use sorts by a sorting "
          "network (select/network.hpp).");
    m.def("topk_filter", []() { return kernels().topk_filter; },
          "Whether the level in use takes the top-k filter route for short sequences of "
          "32-bit keys (topk/filter.hpp).");
    m.def("topk_lanes", []() { return kernels().topk_lanes; },
          "Whether the level in use takes the top-k lanes route for short sequences of "
          "keys of 32 bits or fewer and the smallest k (topk/lanes.hpp).");
    m.def("_use_level", &use_level, nb::arg("level"),
          "Uses `level` from now on; returns the level in use before (test hook).");
    m.def("pool_workers", &pool_workers, "Worker threads the pool has started.");
    m.def("pool_jobs", &pool_jobs, "Calls that ran on more than one thread so far.");
    m.def("_pool_joined_awake", &pool_joined_awake,
          "Jobs a worker joined while it watched for work (for tests).");
    m.def("_pool_watch", &set_pool_watch, nb::arg("microseconds"),
          "Sets how long an idle worker watches for work before it sleeps; returns the old.");
    m.def("_pool_probe", &pool_probe, nb::arg("tasks"), nb::arg("threads"),
          nb::arg("fail_at") = -1, "The pool's mechanism, for tests.");
    m.def("topk", &py_topk, nb::arg("x"), nb::arg("kind"), nb::arg("axis"), nb::arg("k"),
          nb::arg("largest"), nb::arg("sorted"), nb::arg("values").noconvert(),
          nb::arg("indices").noconvert(),
          nb::arg("threads"), nb::arg("strategy") = "", nb::arg("segment") = 0);
    m.def("topk_strategy", &py_topk_strategy, nb::arg("x"), nb::arg("axis"), nb::arg("k"),
          nb::arg("threads"));
    m.def("sort", &py_sort, nb::arg("x"), nb::arg("kind"), nb::arg("axis"),
          nb::arg("descending"), nb::arg("values").none().noconvert(),
          nb::arg("indices").none().noconvert(),
          nb::arg("threads"), nb::arg("strategy") = "", nb::arg("segment") = 0);
    m.def("sort_strategy", [](AnyIn x, int axis, int threads) {
        SortRequest req;
        req.x = select_input(x, 0, axis);
        req.axis = axis;
        req.threads = std::max(threads, 1);
        return axisops::sort_strategy(req);
    }, nb::arg("x"), nb::arg("axis"), nb::arg("threads"));
    m.def("kthvalue", &py_kthvalue, nb::arg("x"), nb::arg("kind"), nb::arg("axis"), nb::arg("k"),
          nb::arg("values").noconvert(), nb::arg("indices").noconvert(), nb::arg("threads"),
          nb::arg("strategy") = "",
          nb::arg("segment") = 0, nb::arg("sigmas") = 0.0);
    m.def("kth_many", &py_kth_many, nb::arg("x"), nb::arg("kind"), nb::arg("axis"),
          nb::arg("ranks"), nb::arg("values").noconvert(), nb::arg("threads"),
          nb::arg("strategy") = "", nb::arg("segment") = 0);
    m.def("partition", &py_partition, nb::arg("x"), nb::arg("kind"), nb::arg("axis"),
          nb::arg("kths"), nb::arg("values").none().noconvert(),
          nb::arg("indices").none().noconvert(),
          nb::arg("threads"), nb::arg("strategy") = "", nb::arg("segment") = 0,
          nb::arg("sigmas") = 0.0);
    m.def("select_strategy", [](AnyIn x, int axis, int threads) {
        KthRequest req;
        req.x = select_input(x, 0, axis);
        req.axis = axis;
        req.threads = std::max(threads, 1);
        return axisops::kthvalue_strategy(req);
    }, nb::arg("x"), nb::arg("axis"), nb::arg("threads"));
    m.def("gather", &py_gather, nb::arg("x"), nb::arg("index"), nb::arg("dim"),
          nb::arg("out").noconvert(),
          nb::arg("threads"), nb::arg("ahead"), nb::arg("task") = 0);
    bind_scan_testing(m);
}
