// Stable sort and argsort along an axis, by radix passes of 8-bit digits.
//
// Every element becomes one record: a key of up to 32 bits shares a 64-bit word with a
// payload (key << 32 | payload), a 64-bit key travels as a (key, payload) pair; the payload
// is the element's index (or, for bool values alone, whose keys lose the bits, the bits).
// When only the values are wanted, the record is the key alone (`Bare`: a quarter of a pair's
// bytes for float32, half for float64, moved by every pass), and the value comes back from
// its key (`Key::bits`); the two keys that more than one bit pattern share, a float's zero
// (-0.0 and +0.0) and its NaN, are written afterwards from the input itself, in index order
// (`refill`: one more read of the input, only when the sequence holds them), so -0.0 and
// NaN payloads survive in their stable places. Ascending sorts the keys, descending their
// complements (largest first); every pass is stable, so equal keys keep index order in
// both directions. The digits every key shares are skipped.
//
// A sequence of at most sort_bucket_max elements (the tuning: records and scratch then
// stay in the second-level cache or close to it; 2^17, not 2^15: a bucket of 10M float32
// keys' first pass, 39K records, then takes its LSD passes at once rather than one more
// MSD pass into 256 buckets of 150, each with its own counts; sort of (1, 10M), 2
// threads, 71 -> 63 ms) is sorted by least-significant-digit passes, in the cache. A
// longer one takes one most-significant-digit pass on its highest digit the keys do not
// all share (by parts across the threads: each part's records in index order, the parts in
// order, so the pass is stable), which leaves 256 buckets, each sorted the same way on its
// lower digits (by LSD passes in the cache, or, still too long, another MSD pass); the
// threads take the buckets in turn. Memory is read and written twice for the MSD pass and
// once more for each bucket, instead of once per digit (an LSD sort of 10M float32 keys
// made four passes over 160 MB of records; measured 2026-12-06 on this project's Zen 4
// VM, one thread: 333 ms, against 70-90 ms in this form).
//
// - rows: each sequence sorted by one thread, sequences in tasks;
// - split: one long sequence sorted by all threads.
#pragma once

#include "common/isa.hpp"

#include <algorithm>
#include <cstring>
#include <array>
#include <cstdint>
#include <memory>
#include <type_traits>
#include <vector>

#if defined(__SSE2__) || defined(_M_X64)
#include <immintrin.h>
#endif

#include "common/order.hpp"
#include "common/pool.hpp"
#include "select/arena.hpp"
#include "select/rows.hpp"
#include "topk/job.hpp"

namespace axisops {
namespace AXISOPS_ISA_NS {

template <class KeyT>
struct SortJob {
    using U = typename KeyT::type;

    const Sequences& seqs;
    U flip;          // all ones for descending
    U* out_v;        // null: values not wanted
    int64_t* out_i;  // null: indices not wanted
    RowsOut out;
    const Tuning& tune;
    Trace& trace;

    const U* seq(int64_t q) const { return seqs.at<U>(q); }
    // Words (keys of at most 32 bits, indices below the tuning's words_max_n) or pairs.
    bool packed() const { return sizeof(U) <= 4 && seqs.n < tune.words_max_n; }
    // The key alone: only the values are wanted and their bits come back from their keys.
    bool bare() const { return !out_i && KeyT::invertible; }
};


namespace sort_detail {

// A 64-bit key and its payload, for keys too wide to share a word with an index.
struct Pair {
    uint64_t key;
    uint64_t pay;
};

// A key alone, for a sort of the values only.
template <class U>
struct Bare {
    U key;
};
static_assert(sizeof(Bare<uint32_t>) == 4 && sizeof(Bare<uint64_t>) == 8,
              "a bare record is its key: a values output row can hold them");

template <class E>
constexpr bool is_bare = false;
template <class U>
constexpr bool is_bare<Bare<U>> = true;

inline int digit(uint64_t w, int d) { return int((w >> (32 + 8 * d)) & 0xFF); }
template <class U>
inline int digit(const Bare<U>& e, int d) { return int((uint64_t(e.key) >> (8 * d)) & 0xFF); }
template <class U>
inline uint64_t payload(const Bare<U>& e) { return uint64_t(e.key); }
template <class U>
inline void make(Bare<U>& e, uint64_t key, uint64_t) { e.key = U(key); }
inline int digit(const Pair& e, int d) { return int((e.key >> (8 * d)) & 0xFF); }
inline uint64_t payload(uint64_t w) { return w & LOW32; }
inline uint64_t payload(const Pair& e) { return e.pay; }
inline void make(uint64_t& w, uint64_t key, uint64_t pay) { w = (key << 32) | pay; }
inline void make(Pair& e, uint64_t key, uint64_t pay) { e = Pair{key, pay}; }

// The counts of one digit's 256 values.
using Hist = std::array<int64_t, 256>;
// The most digits a key has (64 bits).
constexpr int MAX_DIGITS = 8;

// hist[d] = the counts of digit d of r[0..m), for d < top.
template <class E>
void count_digits(const E* r, int64_t m, int top, Hist* hist) {
    for (int d = 0; d < top; ++d) hist[d].fill(0);
    for (int64_t i = 0; i < m; ++i) {
        const E e = r[i];
        for (int d = 0; d < top; ++d) ++hist[d][size_t(digit(e, d))];
    }
}

// Replaces counts by the positions before each value (from `at`); returns the total.
inline int64_t positions(Hist& c, int64_t at) {
    for (int64_t& x : c) {
        const int64_t n = x;
        x = at;
        at += n;
    }
    return at;
}

// Records r[0..m) sorted by digits [0, top), stable, least significant first (hist: their
// counts, overwritten); s is scratch of m records. Returns the sorted array (r or s).
template <class E>
E* lsd(E* r, E* s, int64_t m, int top, Hist* hist) {
    E* src = r;
    E* dst = s;
    for (int d = 0; d < top; ++d) {
        Hist& c = hist[d];
        if (c[size_t(digit(src[0], d))] == m) continue;  // every key shares this digit
        positions(c, 0);
        for (int64_t i = 0; i < m; ++i) {
            const E e = src[i];
            dst[c[size_t(digit(e, d))]++] = e;
        }
        std::swap(src, dst);
    }
    return src;
}

// Records r[0..m) to dst by digit d, stable, at the positions `at` (advanced).
template <class E>
void scatter(const E* r, int64_t m, int d, int64_t* at, E* dst) {
    for (int64_t i = 0; i < m; ++i) {
        const E e = r[i];
        dst[at[digit(e, d)]++] = e;
    }
}

// Sorts r[0..m) by digits [0, top), stable (s: scratch of m records), and hands the
// sorted records to emit(records, offset, count), in pieces that are at positions offset
// .. offset + count - 1 of the sorted order. Short enough, by LSD passes (in the cache);
// else by an MSD pass on digit top - 1 and each bucket again.
template <class E, class Emit>
void sort_records(E* r, E* s, int64_t m, int top, int64_t offset, int64_t bucket_max,
                  LocalTrace& trace, const Emit& emit) {
    if (m == 0) return;
    Hist hist[MAX_DIGITS];
    if (m <= bucket_max || top <= 1) {
        count_digits(r, m, top, hist);
        emit(lsd(r, s, m, top, hist), offset, m);
        return;
    }
    const int d = top - 1;
    Hist& c = hist[0];
    c.fill(0);
    for (int64_t i = 0; i < m; ++i) ++c[size_t(digit(r[i], d))];
    if (c[size_t(digit(r[0], d))] == m) {  // every key shares this digit
        sort_records(r, s, m, d, offset, bucket_max, trace, emit);
        return;
    }
    trace.mark(Path::sort_msd_nested);
    int64_t start[257];
    for (int v = 0; v < 256; ++v) start[v] = c[size_t(v)];
    start[256] = positions(c, 0);
    for (int v = 255; v >= 0; --v) start[v] = start[v + 1] - start[v];
    scatter(r, m, d, c.data(), s);
    for (int v = 0; v < 256; ++v) {
        const int64_t at = start[v], len = start[v + 1] - at;
        sort_records(s + at, r + at, len, d, offset + at, bucket_max, trace, emit);
    }
}

// Writes position p of sequence q's result from payload w: the element's bits when only
// the values are wanted, else its index.
template <class KeyT, class E>
inline void put(const SortJob<KeyT>& job, const typename KeyT::type* src, int64_t row,
                int64_t p, uint64_t w) {
    using U = typename KeyT::type;
    const int64_t at = row + p * job.out.step();
    if constexpr (is_bare<E>) {
        job.out_v[at] = KeyT::bits(U(U(w) ^ job.flip));
        return;
    }
    if (!job.out_i) {
        job.out_v[at] = U(w);
        return;
    }
    const int64_t i = int64_t(w);
    job.out_i[at] = i;
    if (job.out_v) job.out_v[at] = src[i * job.seqs.stride];
}

// Parts of a sequence of n elements for `threads` threads: about sort_parts_per_thread
// each, at most sort_parts_max, each at least 2^sort_part_shift_min long.
inline Parts sort_parts(const Tuning& t, int64_t n, int threads) {
    const int64_t least = int64_t(1) << t.sort_part_shift_min;
    int64_t count = std::min<int64_t>(int64_t(threads) * t.sort_parts_per_thread,
                                      t.sort_parts_max);
    count = std::max<int64_t>(1, std::min(count, n / least));
    return Parts(n, (n + count - 1) / count);
}

// The first position in [lo, hi) of a sequence's sorted values (its output row from `row`)
// whose key is not below `key`, or, with `above`, is above it.
template <class KeyT>
inline int64_t bound(const SortJob<KeyT>& job, int64_t row, int64_t lo, int64_t hi,
                     typename KeyT::type key, bool above) {
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        const auto k = KeyT::of(job.out_v[row + mid * job.out.step()], job.flip);
        if (above ? k <= key : k < key) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

// After a sort of the values only by their keys alone: the run of sorted values whose key
// `key` several bit patterns share gets the input's elements of that key, in index order.
// The run is found in the output itself; at most its length is written, inside it, whatever
// the input holds now (another thread may have changed it since the sort read it).
template <class KeyT>
void refill(const SortJob<KeyT>& job, const typename KeyT::type* src, int64_t row,
            typename KeyT::type key) {
    using U = typename KeyT::type;
    const int64_t n = job.seqs.n, stride = job.seqs.stride;
    const U flipped = U(key ^ job.flip);
    const int64_t lo = bound(job, row, 0, n, flipped, false);
    const int64_t hi = bound(job, row, lo, n, flipped, true);
    if (lo == hi) return;
    // Most runs hold one bit pattern (zeros of one sign, NaN of one payload): then a count
    // (which vectorises) and a fill replace the search in index order.
    const int64_t step = job.out.step();
    int64_t start = 0;  // the first element of that key: none before it can match `first`
    while (start < n && KeyT::of(src[start * stride]) != key) ++start;
    const U first = start < n ? src[start * stride] : U(0);
    int64_t same = 0;
    if (stride == 1) {
        for (int64_t i = start; i < n; ++i) same += src[i] == first;
    } else {
        for (int64_t i = start; i < n; ++i) same += src[i * stride] == first;
    }
    if (same == hi - lo) {
        for (int64_t p = lo; p < hi; ++p) job.out_v[row + p * step] = first;
        return;
    }
    int64_t p = lo;
    for (int64_t i = start; i < n && p < hi; ++i) {
        const U u = src[i * stride];
        if (KeyT::of(u) == key) job.out_v[row + (p++) * step] = u;
    }
}

}  // namespace sort_detail

// Sorts sequence q of the job on up to `threads` threads, with records in a[0..n) and
// scratch b[0..n) (b may be the indices' own output row: see sort_parted).
template <class KeyT, class E>
void sort_records_of(const SortJob<KeyT>& job, int64_t q, int threads, int64_t segment, E* a,
                     E* b, LocalTrace& trace) {
    using U = typename KeyT::type;
    using namespace sort_detail;
    constexpr int width = int(sizeof(U));  // key digits
    const int64_t n = job.seqs.n, stride = job.seqs.stride;
    const U* src = job.seq(q);
    const int64_t row = job.out.row(q);
    const bool bits = !job.out_i;
    const int64_t chunk = job.tune.select_chunk;
    const Parts parts = segment > 0  ? Parts(n, segment)
                        : threads > 1 ? sort_parts(job.tune, n, threads)
                                      : Parts(n, n);
    // The records, and each part's counts of every digit (one part: a row of the rows
    // strategy, counted on the stack; its counts are the totals).
    std::array<Hist, width> one;
    std::vector<std::array<Hist, width>> many(parts.count > 1 ? size_t(parts.count) : 0);
    std::array<Hist, width>* first = parts.count > 1 ? many.data() : &one;
    parallel_for(parts.count, threads, [&](int64_t p) {
        thread_local std::vector<U> tile;  // kept from row to row
        if (tile.size() < size_t(chunk)) tile.resize(size_t(chunk));
        std::array<Hist, width>& h = first[size_t(p)];
        for (Hist& d : h) d.fill(0);
        for (int64_t c = parts.begin(p); c < parts.end(p); c += chunk) {
            const int64_t len = std::min(chunk, parts.end(p) - c);
            fill_keys<KeyT>(src + c * stride, stride, len, job.flip, tile.data());
            for (int64_t j = 0; j < len; ++j) {
                const U key = tile[size_t(j)];
                const int64_t i = c + j;
                make(a[i], uint64_t(key), bits ? uint64_t(src[i * stride]) : uint64_t(i));
                for (int d = 0; d < width; ++d) ++h[size_t(d)][size_t((key >> (8 * d)) & 0xFF)];
            }
        }
    });
    Hist summed[MAX_DIGITS];
    Hist* total = one.data();
    if (parts.count > 1) {
        total = summed;
        for (int d = 0; d < width; ++d) {
            total[d].fill(0);
            for (const auto& h : many)
                for (int v = 0; v < 256; ++v) total[d][size_t(v)] += h[size_t(d)][size_t(v)];
        }
    }
    int top = width;  // digits to sort by: up to the highest the keys do not all share
    while (top > 0 && total[top - 1][size_t(digit(a[0], top - 1))] == n) --top;
    const auto emit = [&](const E* sorted, int64_t offset, int64_t count) {
        for (int64_t j = 0; j < count; ++j)
            put<KeyT, E>(job, src, row, offset + j, payload(sorted[j]));
    };
    const int64_t bucket_max = job.tune.sort_bucket_max;
    if (n <= bucket_max || top <= 1) {
        emit(lsd(a, b, n, top, total), 0, n);
        return;
    }
    // One MSD pass on digit top - 1 by parts (bucket by bucket, the parts in order) ...
    trace.mark(Path::sort_msd);
    const int d = top - 1;
    std::vector<Hist> at(static_cast<size_t>(parts.count));
    int64_t start[257], next = 0;
    for (int v = 0; v < 256; ++v) {
        start[v] = next;
        for (int64_t p = 0; p < parts.count; ++p) {
            at[size_t(p)][size_t(v)] = next;
            next += first[size_t(p)][size_t(d)][size_t(v)];
        }
    }
    start[256] = next;
    parallel_for(parts.count, threads, [&](int64_t p) {
        scatter(a + parts.begin(p), parts.end(p) - parts.begin(p), d, at[size_t(p)].data(), b);
    });
    // ... then the buckets, which the threads take in turn.
    parallel_for(256, threads, [&](int64_t v) {
        LocalTrace local(job.trace);
        const int64_t from = start[v], len = start[v + 1] - from;
        sort_records(b + from, a + from, len, d, from, bucket_max, local, emit);
    });
}

template <class KeyT, class E>
void sort_sequence(const SortJob<KeyT>& job, int64_t q, int threads, int64_t segment, E* a,
                   E* b, LocalTrace& trace) {
    using U = typename KeyT::type;
    sort_records_of(job, q, threads, segment, a, b, trace);
    if constexpr (sort_detail::is_bare<E> && (KeyT::kind == Kind::Float ||
                                               KeyT::kind == Kind::BFloat)) {
        const U* src = job.seq(q);
        const int64_t row = job.out.row(q);
        sort_detail::refill(job, src, row, KeyT::of(U(0)));   // -0.0 and +0.0
        sort_detail::refill(job, src, row, Bits<U>::ones);    // every NaN
    }
}

// Sequences q0 .. q1-1, each by one thread.
template <class KeyT>
void sort_rows(const SortJob<KeyT>& job, int64_t q0, int64_t q1) {
    using U = typename KeyT::type;
    const int64_t n = job.seqs.n;
    LocalTrace trace(job.trace);
    if (job.bare()) {
        trace.mark(Path::sort_rows_bare);
        std::vector<sort_detail::Bare<U>> a(static_cast<size_t>(n)), b(static_cast<size_t>(n));
        for (int64_t q = q0; q < q1; ++q) sort_sequence(job, q, 1, 0, a.data(), b.data(), trace);
        return;
    }
    if constexpr (sizeof(U) <= 4) {
        if (job.packed()) {
            trace.mark(Path::sort_rows_words);
            std::vector<uint64_t> a(static_cast<size_t>(n)), b(static_cast<size_t>(n));
            for (int64_t q = q0; q < q1; ++q)
                sort_sequence(job, q, 1, 0, a.data(), b.data(), trace);
            return;
        }
    }
    {
        trace.mark(Path::sort_rows_pairs);
        std::vector<sort_detail::Pair> a(static_cast<size_t>(n)), b(static_cast<size_t>(n));
        for (int64_t q = q0; q < q1; ++q) sort_sequence(job, q, 1, 0, a.data(), b.data(), trace);
    }
}

// Sequence q by all the threads, in parts of `segment` elements (0 chooses; tests), the
// records in the arena (the indices' output row serves as the scratch when it can hold
// words).
template <class KeyT>
void sort_parted(const SortJob<KeyT>& job, int64_t q, int64_t segment, int threads) {
    using U = typename KeyT::type;
    const int64_t n = job.seqs.n;
    LocalTrace trace(job.trace);
    if (job.bare()) {
        // The values' own output row serves as the scratch when it is contiguous: it holds
        // exactly n keys, and each bucket writes its values only into its own part of it,
        // after its records there are sorted.
        trace.mark(Path::sort_split_bare);
        using E = sort_detail::Bare<U>;
        const bool borrow = job.out.step() == 1;
        Arena arena(size_t(n) * sizeof(E) * (borrow ? 1 : 2), job.tune.arena_keep_max,
                    job.trace);
        E* a = static_cast<E*>(arena.data());
        E* b = borrow ? reinterpret_cast<E*>(job.out_v + job.out.row(q)) : a + n;
        sort_sequence(job, q, threads, segment, a, b, trace);
        return;
    }
    const bool words = job.packed();
    trace.mark(words ? Path::sort_split_words : Path::sort_split_pairs);
    const size_t record = words ? sizeof(uint64_t) : sizeof(sort_detail::Pair);
    const bool borrow = words && job.out_i && job.out.step() == 1;
    Arena arena(size_t(n) * record * (borrow ? 1 : 2), job.tune.arena_keep_max, job.trace);
    if constexpr (sizeof(U) <= 4) {
        if (words) {
            uint64_t* a = static_cast<uint64_t*>(arena.data());
            uint64_t* b =
                borrow ? reinterpret_cast<uint64_t*>(job.out_i + job.out.row(q)) : a + n;
            sort_sequence(job, q, threads, segment, a, b, trace);
            return;
        }
    }
    auto* a = static_cast<sort_detail::Pair*>(arena.data());
    sort_sequence(job, q, threads, segment, a, a + n, trace);
}

}  // namespace AXISOPS_ISA_NS
}  // namespace axisops
