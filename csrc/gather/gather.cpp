// The gather driver: x restricted to the index's extent, one kernel instance per (element
// width, index type), the output cut into flat ranges the pool's threads take in turn.
//
// Every output element is computed the same way whichever task holds it, so the output never
// depends on the thread count or the task size. When values are out of range, each task that
// meets one returns where it stopped, which (for an index nobody changes meanwhile) is the
// first bad value of its range; the call returns the smallest, so the first bad value in C
// order. A task starting after a stop already found is skipped: it could not return less.
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include "common/layout.hpp"
#include "common/pool.hpp"
#include "gather/kernels.hpp"
#include "gather/request.hpp"
#include "common/level.hpp"

namespace axisops {
namespace AXISOPS_ISA_NS {
namespace {

// The tuning's parallel_min: below this many output elements a call runs on one thread (a
// hand-off costs more than it saves); gather_task_min: a task holds at least this many
// output elements (each starts its own look-ahead); gather_tasks_per_thread: each thread
// gets about this many tasks, so the last one to finish waits little. Measured 2026-12-06
// (2-core Xeon VM shared with other jobs, 2 threads, paired medians against tasks of half
// the output): an eighth 0.94 (axis 1), 0.97 (axis 0), 0.92 (1-D 10M); a quarter and a
// sixteenth within 4% of an eighth; a 32nd 1.17 on axis 1.
// The most reads a prefetch looks ahead (a guard: the ring and the position buffer grow
// with the distance; the core is called with 0 or 256).
constexpr int64_t MAX_AHEAD = 1 << 16;

template <class F>
bool with_element(int itemsize, F&& f) {
    switch (itemsize) {
        case 1: f(uint8_t{}); return true;
        case 2: f(uint16_t{}); return true;
        case 4: f(uint32_t{}); return true;
        case 8: f(uint64_t{}); return true;
        case 16: f(Raw16{}); return true;
        default: return false;
    }
}

template <class F>
bool with_index(int itemsize, bool is_signed, F&& f) {
    switch (itemsize) {
        case 1: is_signed ? f(int8_t{}) : f(uint8_t{}); return true;
        case 2: is_signed ? f(int16_t{}) : f(uint16_t{}); return true;
        case 4: is_signed ? f(int32_t{}) : f(uint32_t{}); return true;
        case 8: is_signed ? f(int64_t{}) : f(uint64_t{}); return true;
        default: return false;
    }
}

void lower_to(std::atomic<int64_t>& stop, int64_t t) {
    int64_t seen = stop.load(std::memory_order_relaxed);
    while (t < seen && !stop.compare_exchange_weak(seen, t, std::memory_order_relaxed)) {
    }
}

template <class T, class I>
int64_t run(const GatherRequest& req, const Sequences& xs, const Sequences& is, Trace& trace) {
    const Tuning& tn = req.tune;
    const int64_t total = req.index.size();
    const GatherJob<T, I> job{{xs, static_cast<const I*>(req.index.data), is,
                               req.x.shape[req.dim], req.index.shape[req.dim], xs.inner,
                               xs.regular && is.regular},
                              static_cast<const T*>(req.x.data),
                              std::min(std::max<int64_t>(req.ahead, 0), MAX_AHEAD),
                              static_cast<T*>(req.out),
                              tn.gather_block};
    const bool rows = job.inner == 1 && job.ahead > 0;
    trace.mark(rows ? Path::gather_rows : Path::gather_blocks);
    auto kernel = [&](int64_t t0, int64_t t1) {
        return rows ? gather_rows(job, t0, t1) : gather_blocks(job, t0, t1);
    };
    const int threads =
        total >= tn.parallel_min || req.task > 0 ? std::max(req.threads, 1) : 1;
    int64_t per = total;
    if (req.task > 0) {
        per = req.task;
    } else if (threads > 1) {
        const int64_t parts = int64_t(threads) * tn.gather_tasks_per_thread;
        per = std::max(tn.gather_task_min, (total + parts - 1) / parts);
    }
    const int64_t tasks = (total + per - 1) / per;
    if (tasks == 1) return kernel(0, total);
    std::atomic<int64_t> stop{std::numeric_limits<int64_t>::max()};
    parallel_for(tasks, threads, [&](int64_t t) {
        const int64_t t0 = t * per;
        if (t0 > stop.load(std::memory_order_relaxed)) return;
        const int64_t at = kernel(t0, std::min(total, t0 + per));
        if (at >= 0) lower_to(stop, at);
    });
    const int64_t at = stop.load();
    return at == std::numeric_limits<int64_t>::max() ? -1 : at;
}

}  // namespace

int64_t gather(const GatherRequest& req) {
    const View& index = req.index;
    if (index.size() == 0) return -1;
    View xr = req.x;  // x restricted to the index's extent
    for (int d = 0; d < xr.ndim; ++d)
        if (d != req.dim) xr.shape[d] = index.shape[d];
    const Sequences xs = sequences(xr, req.dim), is = sequences(index, req.dim);
    int64_t stop = -1;
    Trace trace;
    const bool known = with_element(req.x.itemsize, [&](auto element) {
        using T = decltype(element);
        const bool typed = with_index(index.itemsize, req.index_signed, [&](auto value) {
            stop = run<T, decltype(value)>(req, xs, is, trace);
        });
        if (!typed) throw std::invalid_argument("axisops._core: unsupported index type");
    });
    if (!known) throw std::invalid_argument("axisops._core: unsupported element size");
    return stop;
}

}  // namespace AXISOPS_ISA_NS
}  // namespace axisops
