// From a validated request to strategy calls: the choice, the tasks, the threads.
//
// The strategy depends on (n, k, layout, threads) only, never on the data, and every
// strategy returns the same bits; tests force each one by name.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "common/pool.hpp"
#include "topk/columns.hpp"
#include "topk/insert.hpp"
#include "topk/radix.hpp"
#include "topk/request.hpp"
#include "topk/scan.hpp"
#include "select/topk_route.hpp"
#include "common/level.hpp"

namespace axisops {
namespace AXISOPS_ISA_NS {
namespace {

// The size switches (parallel_min, task_min, tasks_per_thread, insert_*, extract_*,
// radix_fraction, topk_split_min) are fields of the call's Tuning (common/tuning.hpp):
// - sequences up to insert_max_n long always use the insert strategy, and up to
//   insert_small_n when k <= insert_small_k: the scan's per-sequence setup (block maxima,
//   bounds) costs more than inserting every element;
// - packed keys (32 bits or fewer) up to extract_max_n long also use it when k <=
//   extract_max_k and k * n <= extract_max_work: its extraction costs k * n / lanes
//   whatever the data;
// - from k >= n / select_fraction, for sequences of at least topk_select_min elements,
//   selection (select/topk_route.hpp: the element of rank k - 1, the elements before it
//   collected, only they sorted); the scan keeps one block maximum per 16 elements, so with
//   such a share of k it skips few blocks;
// - for shorter sequences, the radix sort from k >= n / radix_fraction;
// - a sequence at least topk_split_min long is cut across threads when there are fewer
//   sequences than threads (each part then still reads 64K elements or more by default).

bool extracts(const Tuning& t, int itemsize, int64_t n, int64_t k) {
    return itemsize <= PACKED_MAX_BYTES && k <= t.extract_max_k && n <= t.extract_max_n &&
           k * n <= t.extract_max_work;
}

std::string choose(const Tuning& t, const Sequences& s, int itemsize, int64_t k, int threads) {
    const int64_t n = s.n;
    if (columns_apply(t, s, k))
        return columns_split_applies(t, s, k, threads) ? "column-split" : "columns";
    if (n <= t.insert_max_n || (n <= t.insert_small_n && k <= t.insert_small_k) ||
        extracts(t, itemsize, n, k))
        return "insert";
    if (t.select_fraction * k >= n && n >= t.topk_select_min && n < t.parted_max_n)
        return "select";
    if (t.radix_fraction * k >= n) return "radix";
    return s.count() < threads && n >= t.topk_split_min ? "split" : "scan";
}

int call_threads(const Tuning& t, const Sequences& s, int threads) {
    return s.count() * s.n >= t.parallel_min ? threads : 1;
}

// Runs rows(job, q0, q1) over every sequence, in tasks the pool's threads take in turn.
template <class KeyT, class Rows>
void run_rows(const TopKJob<KeyT>& job, Rows rows) {
    const Tuning& t = job.tune;
    const int64_t count = job.seqs.count();
    const int threads = call_threads(t, job.seqs, job.threads);
    if (threads == 1 || count == 1) {
        rows(job, 0, count);
        return;
    }
    const int64_t least = (t.task_min + job.seqs.n - 1) / job.seqs.n;
    const int64_t even =
        (count + threads * t.tasks_per_thread - 1) / (threads * t.tasks_per_thread);
    const int64_t per = std::max(least, even);
    const int64_t tasks = (count + per - 1) / per;
    parallel_for(tasks, threads, [&](int64_t task) {
        rows(job, task * per, std::min(count, (task + 1) * per));
    });
}

template <class KeyT>
void run(const std::string& strategy, const TopKJob<KeyT>& job) {
    if (strategy == "insert") {
        run_rows(job, [](const TopKJob<KeyT>& j, int64_t a, int64_t b) { topk_insert_rows(j, a, b); });
    } else if (strategy == "radix") {
        run_rows(job, [](const TopKJob<KeyT>& j, int64_t a, int64_t b) { topk_radix_rows(j, a, b); });
    } else if (strategy == "scan") {
        run_rows(job, [](const TopKJob<KeyT>& j, int64_t a, int64_t b) { topk_scan_rows(j, a, b); });
    } else if (strategy == "split") {
        topk_scan_split(job, call_threads(job.tune, job.seqs, job.threads));
    } else if (strategy == "columns") {
        topk_columns(job, call_threads(job.tune, job.seqs, job.threads));
    } else if (strategy == "column-split") {
        topk_columns_split(job, call_threads(job.tune, job.seqs, job.threads));
    } else {
        throw std::invalid_argument("axisops._core: unknown top-k strategy '" + strategy + "'");
    }
}

}  // namespace

std::string topk_strategy(const TopKRequest& req) {
    return choose(req.tune, sequences(req.x, req.axis), req.x.itemsize, req.k, req.threads);
}

// Top-k of bool keys is compiled at the lowest level only, which the wider levels call: the
// nine key types' kernels are most of a level's code, and wider instructions gain bools
// little (2026-12-07, AMD EPYC Zen 4, 2 threads, AVX-512 / baseline: (1, 10M) k=10 0.34 /
// 0.48 ms, (1000, 10000) 1.1 / 1.2 ms, axis 0 of (10000, 1000) 0.6 / 1.0 ms), while each
// wider level compiles 2 CPU-seconds less. (Their selection stays at every level: kthvalue
// of (1000, 10000) bools is 1.1 ms with AVX-512, 6.8 ms at the baseline.)
constexpr bool COMPILES_BOOL_KEYS = AXISOPS_LOWEST_LEVEL;

void topk(const TopKRequest& req) {
    if (!COMPILES_BOOL_KEYS && req.kind == Kind::Bool) return AXISOPS_BASE_NS::topk(req);
    const Sequences seqs = sequences(req.x, req.axis);
    std::string strategy = req.strategy;
    if (strategy.empty()) strategy = choose(req.tune, seqs, req.x.itemsize, req.k, req.threads);
    Trace trace;
    if ((strategy == "columns" || strategy == "column-split") && !columns_fit(seqs))
        strategy = "scan";  // neighbouring sequences are not unit-stride apart
    if (strategy == "select") {
        if (seqs.n < req.tune.parted_max_n) return topk_by_selection(req, trace);
        strategy = "radix";  // indices beyond 32 bits (forced only)
    }
    const bool known = with_key(req.x.itemsize, req.kind, [&](auto key, auto sign) {
        using KeyT = decltype(key);
        using U = typename KeyT::type;
        if constexpr (COMPILES_BOOL_KEYS || KeyT::kind != Kind::Bool) {
            const U flip = U((req.largest ? U(0) : U(~U(0))) ^ sign);
            const TopKJob<KeyT> job{seqs,        req.k,       flip,
                                    req.sorted,  req.threads, req.segment,
                                    static_cast<U*>(req.values),
                                    IndexOut{req.indices, req.indices32},
                                    req.tune,    trace};
            run(strategy, job);
        }
    });
    if (!known) throw std::invalid_argument("axisops._core: unsupported key type");
}

}  // namespace AXISOPS_ISA_NS
}  // namespace axisops
