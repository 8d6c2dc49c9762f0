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

namespace axisops {
namespace {

// Below this many elements a call runs on one thread: a hand-off costs more than it saves.
constexpr int64_t PARALLEL_MIN = 1 << 15;
// A task of the row strategies holds about this many elements at least (rows are taken
// by the pool's threads one task at a time, so a late thread just takes fewer) ...
constexpr int64_t TASK_MIN = 1 << 14;
// ... and each thread gets about this many tasks, so the last one to finish waits little.
constexpr int64_t TASKS_PER_THREAD = 8;
// Sequences up to this long always use the insert strategy ...
constexpr int64_t INSERT_MAX_N = 64;
// ... and up to this long when k is at most INSERT_SMALL_K: the scan's per-sequence setup
// (block maxima, bounds) costs more than inserting every element.
constexpr int64_t INSERT_SMALL_N = 256, INSERT_SMALL_K = 16;
// Sequences of packed keys (32 bits or fewer) up to this long also use the insert strategy
// when k <= EXTRACT_MAX_K and k * n <= EXTRACT_MAX_WORK: its extraction costs k * n / lanes
// whatever the data (measured with the Numba kernels, float32, 8M elements, 2 threads, ms,
// extraction vs the route chosen before: (512, k=8) 3.97 vs 8.47 scan, (1024, 32) 11.4 vs
// 12.2 scan, (128, 32) 15.2 vs 33.1 radix, (512, 64) 22.4 vs 24.3 radix).
constexpr int64_t EXTRACT_MAX_N = 1024, EXTRACT_MAX_WORK = 1 << 15;
// The radix sort from k >= n / RADIX_FRACTION: the scan keeps one block maximum per 16
// elements, so above that share of k it cannot skip blocks.
constexpr int64_t RADIX_FRACTION = 16;
// A sequence at least this long is cut across threads when there are fewer sequences than
// threads (each part then still reads 64K elements or more).
constexpr int64_t SPLIT_MIN = 1 << 17;

bool extracts(int itemsize, int64_t n, int64_t k) {
    return itemsize <= PACKED_MAX_BYTES && k <= EXTRACT_MAX_K && n <= EXTRACT_MAX_N &&
           k * n <= EXTRACT_MAX_WORK;
}

std::string choose(const Sequences& s, int itemsize, int64_t k, int threads) {
    const int64_t n = s.n;
    if (columns_apply(s, k)) return columns_split_applies(s, k, threads) ? "column-split" : "columns";
    if (n <= INSERT_MAX_N || (n <= INSERT_SMALL_N && k <= INSERT_SMALL_K) ||
        extracts(itemsize, n, k))
        return "insert";
    if (RADIX_FRACTION * k >= n) return "radix";
    return s.count() < threads && n >= SPLIT_MIN ? "split" : "scan";
}

int call_threads(const Sequences& s, int threads) {
    return s.count() * s.n >= PARALLEL_MIN ? threads : 1;
}

// Runs rows(job, q0, q1) over every sequence, in tasks the pool's threads take in turn.
template <class KeyT, class Rows>
void run_rows(const TopKJob<KeyT>& job, Rows rows) {
    const int64_t count = job.seqs.count();
    const int threads = call_threads(job.seqs, job.threads);
    if (threads == 1 || count == 1) {
        rows(job, 0, count);
        return;
    }
    const int64_t least = (TASK_MIN + job.seqs.n - 1) / job.seqs.n;
    const int64_t even = (count + threads * TASKS_PER_THREAD - 1) / (threads * TASKS_PER_THREAD);
    const int64_t per = std::max(least, even);
    const int64_t tasks = (count + per - 1) / per;
    parallel_for(tasks, threads, [&](int64_t t) {
        rows(job, t * per, std::min(count, (t + 1) * per));
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
        topk_scan_split(job, call_threads(job.seqs, job.threads));
    } else if (strategy == "columns") {
        topk_columns(job, call_threads(job.seqs, job.threads));
    } else if (strategy == "column-split") {
        topk_columns_split(job, call_threads(job.seqs, job.threads));
    } else {
        throw std::invalid_argument("axisops._core: unknown top-k strategy '" + strategy + "'");
    }
}

}  // namespace

std::string topk_strategy(const TopKRequest& req) {
    return choose(sequences(req.x, req.axis), req.x.itemsize, req.k, req.threads);
}

void topk(const TopKRequest& req) {
    const Sequences seqs = sequences(req.x, req.axis);
    std::string strategy = req.strategy;
    if (strategy.empty()) strategy = choose(seqs, req.x.itemsize, req.k, req.threads);
    if ((strategy == "columns" || strategy == "column-split") && !columns_fit(seqs))
        strategy = "scan";  // neighbouring sequences are not unit-stride apart
    const bool known = with_key(req.x.itemsize, req.kind, [&](auto key) {
        using KeyT = decltype(key);
        using U = typename KeyT::type;
        const TopKJob<KeyT> job{seqs,      req.k,   req.largest ? U(0) : U(~U(0)),
                                req.sorted, req.threads, req.segment,
                                static_cast<U*>(req.values), req.indices};
        run(strategy, job);
    });
    if (!known) throw std::invalid_argument("axisops._core: unsupported key type");
}

}  // namespace axisops
