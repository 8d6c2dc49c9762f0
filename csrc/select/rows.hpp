// What the selection kernels share: rows in tasks, keys widened into tiles, parts of a long
// sequence, and where a sequence's results go.
#pragma once

#include "common/isa.hpp"

#include <algorithm>
#include <cstdint>

#include "common/layout.hpp"
#include "common/pool.hpp"
#include "common/tuning.hpp"
#include "select/band.hpp"

namespace axisops {
namespace AXISOPS_ISA_NS {

// The tuning's parallel_min: below this many elements a call runs on one thread (a
// hand-off costs more than it saves); task_min and tasks_per_thread: a task holds about
// task_min elements at least, and each thread gets about tasks_per_thread tasks, so the
// last one to finish waits little. select_chunk: keys are widened into tiles of this many
// elements when a sequence is read by parts.
inline int select_threads(const Tuning& t, const Sequences& s, int threads) {
    return s.count() * s.n >= t.parallel_min ? threads : 1;
}

// Runs rows(q0, q1) over every sequence, in tasks the pool's threads take in turn.
template <class Rows>
void for_rows(const Tuning& t, const Sequences& s, int threads, Rows rows) {
    const int64_t count = s.count();
    threads = select_threads(t, s, threads);
    if (threads == 1 || count == 1) {
        rows(int64_t(0), count);
        return;
    }
    const int64_t n = std::max<int64_t>(s.n, 1);
    const int64_t least = (t.task_min + n - 1) / n;
    const int64_t even =
        (count + threads * t.tasks_per_thread - 1) / (threads * t.tasks_per_thread);
    const int64_t per = std::max(least, even);
    const int64_t tasks = (count + per - 1) / per;
    parallel_for(tasks, threads,
                 [&](int64_t task) { rows(task * per, std::min(count, (task + 1) * per)); });
}

// out[i] = key(src[i * stride]) ^ flip for i < count, widened to 32 or 64 bits.
template <class KeyT>
inline void fill_wide(const typename KeyT::type* src, int64_t stride, int64_t count,
                      typename KeyT::type flip, Wide<typename KeyT::type>* out) {
    using K = Wide<typename KeyT::type>;
    if (stride == 1) {
        for (int64_t i = 0; i < count; ++i) out[i] = K(KeyT::of(src[i], flip));
    } else {
        for (int64_t i = 0; i < count; ++i) out[i] = K(KeyT::of(src[i * stride], flip));
    }
}

// Runs body(p) for p in [0, count) on up to `threads` threads, the threads starting
// count / threads parts apart rather than side by side: the output they write first then
// lies far apart too, and they do not wait on each other faulting in the same pages (the
// kernel zeroes each page of a fresh output once, under its lock). Measured: partition of
// float32 (1, 10M) into a fresh output, 2 threads, 15.1 -> 10.1 ms.
template <class Body>
void parallel_spread(int64_t count, int threads, Body body) {
    const int64_t lanes = std::max<int64_t>(1, std::min<int64_t>(threads, count));
    const int64_t per = (count + lanes - 1) / lanes;
    parallel_for(lanes * per, threads, [&](int64_t t) {
        const int64_t p = (t % lanes) * per + t / lanes;
        if (p < count) body(p);
    });
}

// Parts of one sequence of n elements, each `len` long (the last one shorter).
struct Parts {
    int64_t n = 0;
    int64_t len = 1;
    int64_t count = 0;

    Parts(int64_t n_, int64_t len_) : n(n_), len(std::max<int64_t>(len_, 1)) {
        count = (n + len - 1) / len;
    }
    int64_t begin(int64_t p) const { return p * len; }
    int64_t end(int64_t p) const { return std::min(n, (p + 1) * len); }
};

// Where element p of sequence q's results goes in a C-ordered output of shape
// (outer, m, inner): row(q)[p * step].
struct RowsOut {
    int64_t m = 0;      // results per sequence
    int64_t inner = 1;  // sequences q and q + 1 share an outer index when inner > 1

    int64_t row(int64_t q) const {
        if (inner == 1) return q * m;
        const int64_t o = q / inner;
        return o * m * inner + (q - o * inner);
    }
    int64_t step() const { return inner; }
};

}  // namespace AXISOPS_ISA_NS
}  // namespace axisops
