// Stable sort and argsort along an axis, by radix passes.
//
// Every element becomes one record: a key of up to 32 bits shares a 64-bit word with a
// payload (key << 32 | payload), a 64-bit key travels as a (key, payload) pair; the payload
// is the element's index (or, for bool values alone, whose keys lose the bits, the bits).
// When only the values are wanted, the record is the key alone (`Bare`: a quarter of a pair's
// bytes for float32, half for float64, moved by every pass), and the value comes back from
// its key (`Key::bits`); the two keys that more than one bit pattern share, a float's zero
// (-0.0 and +0.0) and its NaN, are written afterwards from the input itself, in index order
// (`refill`: one more read of the input, only when the sequence holds a value its key does
// not give back: -0.0, or a NaN of another payload than the key's), so -0.0 and NaN
// payloads survive in their stable places. Ascending sorts the keys, descending their
// complements (largest first); every pass is stable, so equal keys keep index order in
// both directions. Only the span of bits that not every key shares is sorted on (`Span`,
// from the keys' AND and OR).
//
// A sequence of at most sort_bucket_max elements is sorted by least-significant-digit
// passes of up to sort_lsd_bits bits (`lsd`; as many as make the least work for its
// length), counted in one pass. A longer one is first spread into buckets by
// its keys' top bits (by parts across the threads: each part's records in index order, the
// parts in order, so the pass is stable): the first pass counts their top sort_map_bits
// bits, and runs of consecutive values of them make buckets of about one length and at
// most two LSD passes' bits (`bucket_map`), whatever the distribution. The threads then take
// the buckets in turn; one still too long (one value of the top bits holds more) takes an
// MSD pass on its own highest sort_msd_bits bits, and so on.
//
// What the time went to (float32 (1, 10M), one thread, this project's Zen 4 VM, perf and
// microbenchmarks, 2026-12-07): every scatter pass costs about 1 ns a record, in the cache
// or not, and a scatter into 2048 buckets three times one into 256; counting a digit whose
// values crowd (a float's exponent) waits on the same count at every record; floats in
// [0, 1) share their top two bits, so a radix digit on the top byte put half of them in one
// bucket, which took one more pass; a refill scanned the whole input for one zero. Hence
// the bucket map, two sets of counts (`lsd`), two LSD passes of 12 bits instead of three
// of 8, and the refill only where a value is not its key's bits: sort 94 -> 61 ms on one
// thread, 2 threads 56-60 -> 32-35 ms; argsort 59-63 -> 42-51 ms (docs/performance.md).
//
// - rows: each sequence sorted by one thread, sequences in tasks; a short one whose records
//   are one word (a key alone, or a key of up to 32 bits with its index), by the level's
//   sorting network where it has one (`network_for`; select/network.hpp), which beats the
//   radix passes on rows of up to a few thousand records (float32 (10000, 1000) 34-41 ->
//   18-22 ms on two threads);
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
#include "select/network.hpp"
#include "select/rows.hpp"
#include "topk/job.hpp"

namespace axisops {
namespace AXISOPS_ISA_NS {

// A sorting network of the level in use (common/dispatch.hpp, select/network.hpp): sorts a
// row of a power of two records of one word in place.
using NetworkSort = void (*)(unsigned char*, size_t);

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
    NetworkSort network32;  // null: rows of 32-bit records by radix passes
    NetworkSort network64;  // null: rows of 64-bit records by radix passes

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

// The word a sorting network compares for records of type E (void: none; the network
// compares whole words, so a record must be one: a key alone, or a key and its index).
template <class E>
struct NetworkWord {
    using type = void;
};
template <>
struct NetworkWord<uint64_t> {
    using type = uint64_t;
};
template <class U>
struct NetworkWord<Bare<U>> {
    using type = std::conditional_t<sizeof(U) == 4, uint32_t,
                                    std::conditional_t<sizeof(U) == 8, uint64_t, void>>;
};

// Sorts r[0..n) by the network `sort`, in r[0..network::padded(n)): the records past n
// become the largest record, which sorts after all of r's.
template <class E>
void sort_network(E* r, int64_t n, NetworkSort sort) {
    using W = typename NetworkWord<E>::type;
    if constexpr (!std::is_void_v<W>) {
        static_assert(sizeof(E) == sizeof(W), "a record is one word");
        const size_t m = network::padded(size_t(n));
        const W largest = W(~W(0));
        for (size_t i = size_t(n); i < m; ++i) std::memcpy(r + i, &largest, sizeof(W));
        sort(reinterpret_cast<unsigned char*>(r), m);
    }
}

inline uint64_t key_of(uint64_t w) { return w >> 32; }
inline uint64_t key_of(const Pair& e) { return e.key; }
template <class U>
inline uint64_t key_of(const Bare<U>& e) { return uint64_t(e.key); }
template <class U>
inline uint64_t payload(const Bare<U>& e) { return uint64_t(e.key); }
template <class U>
inline void make(Bare<U>& e, uint64_t key, uint64_t) { e.key = U(key); }
inline uint64_t payload(uint64_t w) { return w & LOW32; }
inline uint64_t payload(const Pair& e) { return e.pay; }
inline void make(uint64_t& w, uint64_t key, uint64_t pay) { w = (key << 32) | pay; }
inline void make(Pair& e, uint64_t key, uint64_t pay) { e = Pair{key, pay}; }

// The number of bits x needs (0 for 0).
inline int bit_width(uint64_t x) {
    int b = 0;
    for (; x != 0; x >>= 1) ++b;
    return b;
}

// Bits [lo, hi) of the keys: those that are not the same in every key (none: all equal).
// The bits outside it order nothing, so no pass reads them.
struct Span {
    int lo = 0;
    int hi = 0;
    bool empty() const { return lo >= hi; }
};

// The span of keys whose AND is `all` and whose OR is `any`.
inline Span span_of(uint64_t all, uint64_t any) {
    const uint64_t differ = all ^ any;
    Span s;
    if (differ == 0) return s;
    s.hi = bit_width(differ);
    while (((differ >> s.lo) & 1) == 0) ++s.lo;
    return s;
}

// The span of the keys of r[0..m).
template <class E>
Span span_of(const E* r, int64_t m) {
    uint64_t all = ~uint64_t(0), any = 0;
    for (int64_t i = 0; i < m; ++i) {
        const uint64_t k = key_of(r[i]);
        all &= k;
        any |= k;
    }
    return span_of(all, any);
}

// The digits of an LSD sort of m records on span s: passes of equal widths of at most
// `most` bits, as many as make the least work, counting a pass as 4 units a record and
// one a count (counts are cleared, summed and turned into positions every pass): rows of
// 1000 float32 then take three passes of 10 bits (11% faster than four of 8), of 1000
// 64-bit keys eight of 8, buckets of 100K 32-bit keys two of 12 (13% faster than three of 8).
struct Digits {
    int lo = 0;
    int passes = 0;
    int width = 0;
};

inline Digits lsd_digits(Span s, int64_t m, int64_t most) {
    const int bits = s.hi - s.lo;
    if (bits <= 0) return Digits{s.lo, 0, 0};
    Digits best{s.lo, 0, 0};
    double least = 0;
    for (int passes = int((bits + most - 1) / most); passes <= bits; ++passes) {
        const int width = (bits + passes - 1) / passes;
        const double work = double(passes) * (4.0 * double(m) + double(int64_t(1) << width));
        if (best.passes == 0 || work < least) {
            best = Digits{s.lo, passes, width};
            least = work;
        }
        if (width <= 4) break;
    }
    return best;
}

// The bits of one MSD pass over m records on span s: enough for buckets of about a 32nd
// of the tuning's bucket_max, at most sort_msd_bits, at least one.
inline int msd_bits(Span s, int64_t m, const Tuning& t) {
    const int64_t target = std::max<int64_t>(1, t.sort_bucket_max >> 5);
    const int64_t want = std::min<int64_t>(
        {t.sort_msd_bits, int64_t(s.hi - s.lo), int64_t(bit_width(uint64_t((m - 1) / target)))});
    return int(std::max<int64_t>(1, want));
}

// Counts every digit of r[0..m) (digit p: `width` bits from bit lo + p * width, p <
// passes) in two sets, c[p * size + v] for the even records and c[(passes + p) * size + v]
// for the odd ones, then sums the second into the first.
template <class E>
void count_pairs(const E* r, int64_t m, int lo, int width, size_t size, int passes,
                 uint32_t* c) {
    const uint64_t mask = size - 1;
    const size_t all = size * size_t(passes);
    uint32_t* const odd = c + all;
    for (int64_t i = 0; i + 1 < m; i += 2) {
        uint64_t k0 = key_of(r[i]) >> lo, k1 = key_of(r[i + 1]) >> lo;
        for (size_t at = 0; at != all; at += size, k0 >>= width, k1 >>= width) {
            ++c[at + size_t(k0 & mask)];
            ++odd[at + size_t(k1 & mask)];
        }
    }
    if (m % 2 != 0) {
        uint64_t k = key_of(r[m - 1]) >> lo;
        for (size_t at = 0; at != all; at += size, k >>= width) ++c[at + size_t(k & mask)];
    }
    for (size_t v = 0; v < all; ++v) c[v] += odd[v];
}

// Records r[0..m) to dst by the digit (key >> shift) & mask, stable, at the positions
// `at` (advanced).
template <class E, class C>
void scatter(const E* r, int64_t m, int shift, uint64_t mask, C* at, E* dst) {
    for (int64_t i = 0; i < m; ++i) {
        const E e = r[i];
        dst[at[size_t((key_of(e) >> shift) & mask)]++] = e;
    }
}

// Records r[0..m) (m < 2^32) sorted by digits g, stable, least significant first (s:
// scratch of m records). Returns the sorted array (r or s). (Writing the output from the
// last pass instead made rows of 1000 10-20% slower: its stores land all over a row that
// is not in the cache yet, where one more pass stores in order.)
template <class E>
E* lsd(E* r, E* s, int64_t m, Digits g, uint32_t* counted = nullptr) {
    const int passes = g.passes, width = g.width, lo = g.lo;  // locals: the counts may alias g
    const size_t size = size_t(1) << width;
    const uint64_t mask = size - 1;
    // Two sets of counts, for the even and the odd records: keys crowded on a few digit
    // values (a float's exponent) would otherwise wait on the last increment of the same
    // count at every record (sort of float32 (10000, 1000) 11% faster, though its rows are
    // shorter than the counts). `counted`: the caller's counts of these digits.
    uint32_t* c = counted;
    if (!c) {
        const size_t all = size * size_t(passes);
        thread_local std::vector<uint32_t> counts;  // kept from sequence to sequence
        if (counts.size() < 2 * all) counts.resize(2 * all);
        c = counts.data();
        std::memset(c, 0, 2 * all * sizeof(uint32_t));
        count_pairs(r, m, lo, width, size, passes, c);
    }
    E* src = r;
    E* dst = s;
    for (int p = 0; p < passes; ++p) {
        uint32_t* const cp = c + size_t(p) * size;
        const int shift = lo + p * width;
        if (cp[size_t((key_of(src[0]) >> shift) & mask)] == uint32_t(m)) continue;  // shared
        uint32_t at = 0;
        for (size_t v = 0; v < size; ++v) {
            const uint32_t x = cp[v];
            cp[v] = at;
            at += x;
        }
        scatter(src, m, shift, mask, cp, dst);
        std::swap(src, dst);
    }
    return src;
}

// Counts of the digit (key >> shift) & mask of r[0..m), added to c.
template <class E, class C>
void count_digit(const E* r, int64_t m, int shift, uint64_t mask, C* c) {
    for (int64_t i = 0; i < m; ++i) ++c[size_t((key_of(r[i]) >> shift) & mask)];
}

// The first pass of a long sequence counts its keys' top sort_map_bits bits (fewer for
// narrower keys, or when the parts are so many that their counts would pass COUNTS_MAX).
constexpr int64_t COUNTS_MAX = int64_t(1) << 22;

// The buckets' length: a quarter of the tuning's bucket_max (records and scratch then stay
// in the second-level cache or close to it), longer when that would make more than 512.
inline int64_t bucket_target(const Tuning& t, int64_t n) {
    return std::max<int64_t>({1, t.sort_bucket_max >> 2, n >> 9});
}

struct BucketMap {
    std::vector<uint16_t> of;  // top-bits value -> bucket
    size_t buckets = 0;
};

// Consecutive values of the top bits, counted by every part (counts[p * size + v]),
// grouped into buckets: a bucket closes before the value that would take it past `target`
// records (a value with more is a bucket of its own), or past keys that differ in more
// than `bits` bits, `below` of them under the top bits.
inline BucketMap bucket_map(const std::vector<uint32_t>& counts, int64_t parts, size_t size,
                            int64_t target, int below, int bits) {
    BucketMap map;
    map.of.resize(size);
    int64_t in = 0;
    size_t first = 0;  // the bucket's first value that holds keys
    for (size_t v = 0; v < size; ++v) {
        int64_t count = 0;
        for (int64_t p = 0; p < parts; ++p) count += counts[size_t(p) * size + v];
        if (count > 0 && in > 0 &&
            (in + count > target || below + bit_width(uint64_t(first ^ v)) > bits)) {
            ++map.buckets;
            in = 0;
        }
        if (count > 0 && in == 0) first = v;
        map.of[v] = uint16_t(map.buckets);
        in += count;
    }
    ++map.buckets;
    return map;
}

// The most bits in which a bucket's keys may differ, when `below` bits under the top bits
// do: as many as the fewest LSD passes that those need sort (none when none differ; one
// pass of at least 8 bits: 16-bit keys then take 256 buckets sorted in the first-level
// cache, not 32 in the second).
inline int bucket_bits(int below, const Tuning& t) {
    if (below <= 0) return 0;
    const int64_t passes = (below + t.sort_lsd_bits - 1) / t.sort_lsd_bits;
    if (passes == 1) return std::max(below, 8);
    return int(passes * t.sort_lsd_bits);
}

// Records r[0..m) to dst by the bucket of their top bits, stable, at the positions `at`
// (advanced).
template <class E>
void scatter_mapped(const E* r, int64_t m, int shift, uint64_t mask, const uint16_t* of,
                    int64_t* at, E* dst) {
    for (int64_t i = 0; i < m; ++i) {
        const E e = r[i];
        dst[at[of[size_t((key_of(e) >> shift) & mask)]]++] = e;
    }
}

// Where sorted records go: emit(records, offset, count) for records at positions offset ..
// offset + count - 1 of the sorted order. Called once per run of records, not per record,
// through a pointer, so that the passes compile once per record type, not once per key
// type and output as well.
template <class E>
struct Emit {
    const void* ctx;
    void (*fn)(const void*, const E*, int64_t, int64_t);
    void operator()(const E* r, int64_t offset, int64_t count) const {
        fn(ctx, r, offset, count);
    }
};

// The Emit that calls f(records, offset, count).
template <class E, class F>
Emit<E> emit_of(const F& f) {
    return Emit<E>{&f, [](const void* ctx, const E* r, int64_t offset, int64_t count) {
                       (*static_cast<const F*>(ctx))(r, offset, count);
                   }};
}

// Sorts r[0..m), whose keys differ in span sp only, stable (s: scratch of m records), and
// hands the sorted records to emit, with offset their first position. Short enough, by LSD
// passes (in the cache); else by an MSD pass on the span's highest bits and each bucket
// again.
template <class E>
void sort_records(E* r, E* s, int64_t m, Span sp, int64_t offset, const Tuning& t,
                  LocalTrace& trace, const Emit<E>& emit) {
    if (m < 2 || sp.empty()) {
        if (m > 0) emit(r, offset, m);
        return;
    }
    if (m <= t.sort_bucket_max && m <= int64_t(UINT32_MAX)) {
        emit(lsd(r, s, m, lsd_digits(sp, m, t.sort_lsd_bits)), offset, m);
        return;
    }
    trace.mark(Path::sort_msd_nested);
    const int bits = msd_bits(sp, m, t), shift = sp.hi - bits;
    const size_t size = size_t(1) << bits;
    std::vector<int64_t> start(size + 1, 0);
    {
        std::vector<int64_t> at(size, 0);
        count_digit(r, m, shift, size - 1, at.data());
        int64_t next = 0;
        for (size_t v = 0; v < size; ++v) {
            start[v] = next;
            next += at[v];
            at[v] = start[v];
        }
        start[size] = next;
        scatter(r, m, shift, size - 1, at.data(), s);
    }
    for (size_t v = 0; v < size; ++v) {
        const int64_t at = start[v], len = start[v + 1] - at;
        sort_records(s + at, r + at, len, span_of(s + at, len), offset + at, t, trace, emit);
    }
}

// The same, for records whose span is not known yet.
template <class E>
void sort_records(E* r, E* s, int64_t m, const Tuning& t, LocalTrace& trace,
                  const Emit<E>& emit) {
    sort_records(r, s, m, span_of(r, m), 0, t, trace, emit);
}

// A long sequence's records a[0..n) on span sp, which its parts counted by the top `top`
// bits of their `key_bits`-bit keys (counts[p * size + v]), sorted (b: scratch): into
// buckets by the top bits (`bucket_map`), the parts in order, then bucket by bucket, the
// threads taking them in turn.
template <class E>
void sort_split(E* a, E* b, int64_t n, Span sp, const Parts& parts,
                std::vector<uint32_t>& counts, int top, int key_bits, int threads,
                const Tuning& tune, Trace& job_trace, LocalTrace& trace,
                const Emit<E>& emit) {
    trace.mark(Path::sort_msd);
    const size_t size = size_t(1) << top;
    int shift = key_bits - top;
    const int want = std::min(top, sp.hi - sp.lo);
    if (sp.hi - std::max(shift, sp.lo) < want - 2) {  // the keys share most of the top bits
        shift = std::max(sp.lo, sp.hi - top);
        std::fill(counts.begin(), counts.end(), 0);
        parallel_for(parts.count, threads, [&](int64_t p) {
            count_digit(a + parts.begin(p), parts.end(p) - parts.begin(p), shift, size - 1,
                        counts.data() + size_t(p) * size);
        });
    }
    const int below = std::max(0, shift - sp.lo);
    const BucketMap map = bucket_map(counts, parts.count, size, bucket_target(tune, n), below,
                                     bucket_bits(below, tune));
    const size_t buckets = map.buckets;
    // Each part's counts of each bucket, then the positions of its records there.
    std::vector<int64_t> at(buckets * size_t(parts.count), 0);
    for (int64_t p = 0; p < parts.count; ++p)
        for (size_t v = 0; v < size; ++v)
            at[size_t(p) * buckets + map.of[v]] += counts[size_t(p) * size + v];
    std::vector<int64_t> start(buckets + 1);
    int64_t next = 0;
    for (size_t v = 0; v < buckets; ++v) {
        start[v] = next;
        for (int64_t p = 0; p < parts.count; ++p) {
            int64_t& x = at[size_t(p) * buckets + v];
            const int64_t count = x;
            x = next;
            next += count;
        }
    }
    start[buckets] = next;
    parallel_for(parts.count, threads, [&](int64_t p) {
        scatter_mapped(a + parts.begin(p), parts.end(p) - parts.begin(p), shift, size - 1,
                       map.of.data(), at.data() + size_t(p) * buckets, b);
    });
    parallel_for(int64_t(buckets), threads, [&](int64_t v) {
        LocalTrace local(job_trace);
        const int64_t from = start[size_t(v)], len = start[size_t(v) + 1] - from;
        sort_records(b + from, a + from, len, span_of(b + from, len), from, tune, local, emit);
    });
}

// Writes position p of one sequence's result from record e: the element's bits when only
// the values are wanted, else its index (and, with the values, the element). Holds copies
// of what it needs: a loop over a local copy keeps them in registers across its stores,
// which could otherwise overwrite them.
template <class KeyT, class E>
struct Writer {
    using U = typename KeyT::type;
    U* out_v;        // the sequence's values output row, or null
    int64_t* out_i;  // its indices output row, or null
    int64_t step;
    U flip;
    const U* src;
    int64_t stride;

    Writer(const SortJob<KeyT>& job, const U* src_, int64_t row)
        : out_v(job.out_v ? job.out_v + row : nullptr),
          out_i(job.out_i ? job.out_i + row : nullptr),
          step(job.out.step()),
          flip(job.flip),
          src(src_),
          stride(job.seqs.stride) {}

    void operator()(int64_t p, const E& e) const {
        const uint64_t w = payload(e);
        const int64_t at = p * step;
        if constexpr (is_bare<E>) {
            out_v[at] = KeyT::bits(U(U(w) ^ flip));
            return;
        }
        if (!out_i) {
            out_v[at] = U(w);
            return;
        }
        const int64_t i = int64_t(w);
        out_i[at] = i;
        if (out_v) out_v[at] = src[i * stride];
    }
};

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

// Whether every value v[i * stride] (i < len) is the bits of its key keys[i] (flipped).
template <class KeyT>
bool same_bits(const typename KeyT::type* keys, const typename KeyT::type* v, int64_t stride,
               int64_t len, typename KeyT::type flip) {
    using U = typename KeyT::type;
    U differ = 0;  // OR of the differences: branch-free, so the unit-stride loop vectorises
    if (stride == 1) {
        for (int64_t i = 0; i < len; ++i) differ |= U(KeyT::bits(U(keys[i] ^ flip)) ^ v[i]);
    } else {
        for (int64_t i = 0; i < len; ++i)
            differ |= U(KeyT::bits(U(keys[i] ^ flip)) ^ v[i * stride]);
    }
    return differ == 0;
}

// Sorts sequence q of the job on up to `threads` threads, with records in a[0..n) and
// scratch b[0..n) (b may be an output row: see sort_parted); with a network `net`, by it,
// in a[0..network::padded(n)), b unused (null). Returns whether the values need a refill
// (`mixed`: a zero or NaN that its key's bits do not give back).
template <class KeyT, class E>
bool sort_records_of(const SortJob<KeyT>& job, int64_t q, int threads, int64_t segment, E* a,
                     E* b, NetworkSort net, LocalTrace& trace) {
    using U = typename KeyT::type;
    using namespace sort_detail;
    const int64_t n = job.seqs.n, stride = job.seqs.stride;
    const U* src = job.seq(q);
    const int64_t row = job.out.row(q);
    const bool bits = !job.out_i;
    const int64_t chunk = job.tune.select_chunk;
    const Tuning& tune = job.tune;
    Parts parts = segment > 0  ? Parts(n, segment)
                  : threads > 1 ? sort_parts(tune, n, threads)
                                : Parts(n, n);
    if (parts.len > int64_t(UINT32_MAX)) parts = Parts(n, int64_t(UINT32_MAX));  // 32-bit counts
    // Longer than a bucket: each part also counts its keys' top bits (a bucket map's source).
    const bool split = n > tune.sort_bucket_max || n > int64_t(UINT32_MAX);
    constexpr int key_bits = 8 * int(sizeof(U));
    int top = int(std::min<int64_t>(key_bits, tune.sort_map_bits));
    while (top > 1 && parts.count > (COUNTS_MAX >> top)) --top;
    const size_t size = split ? size_t(1) << top : 0;
    std::vector<uint32_t> counts(size * size_t(parts.count), 0);
    // The records, and each part's AND and OR of its keys; for values alone from their keys,
    // whether it holds a zero or NaN that the key's bits do not give back (-0.0, a NaN of
    // another payload), which a refill then writes.
    constexpr bool shared_keys =
        is_bare<E> && (KeyT::kind == Kind::Float || KeyT::kind == Kind::BFloat);
    struct PartKeys {
        uint64_t all = ~uint64_t(0);
        uint64_t any = 0;
        bool other = false;
    };
    PartKeys one;  // a row of the rows strategy allocates nothing here
    std::vector<PartKeys> many(parts.count > 1 ? size_t(parts.count) : 0);
    PartKeys* const keys = parts.count > 1 ? many.data() : &one;
    // A sequence sorted by LSD passes alone, in one part (a row), counts its keys' bytes as
    // it makes its records, if the last such sequence of this thread took byte passes: a
    // sequence does when its span takes no more bytes than the digits it would choose
    // (normal floats, integers); else it counts its own digits (floats in [0, 1): three of
    // 10 bits), and so do the thread's next sequences until one takes bytes again.
    constexpr int key_bytes = int(sizeof(U));
    thread_local std::array<uint32_t, 256 * sizeof(U)> bytes;
    thread_local bool bytes_last = true;
    const bool count_bytes = !net && !split && parts.count == 1 && bytes_last;
    uint32_t* const byte_counts = bytes.data();  // the thread-local's address, once
    if (count_bytes) std::memset(byte_counts, 0, sizeof(bytes));
    parallel_for(parts.count, threads, [&](int64_t p) {
        thread_local std::vector<U> tile;  // kept from row to row
        if (tile.size() < size_t(chunk)) tile.resize(size_t(chunk));
        uint32_t* const c = counts.data() + size_t(p) * size;
        U a_and = U(~U(0)), a_or = U(0);
        for (int64_t from = parts.begin(p); from < parts.end(p); from += chunk) {
            const int64_t len = std::min(chunk, parts.end(p) - from);
            fill_keys<KeyT>(src + from * stride, stride, len, job.flip, tile.data());
            for (int64_t j = 0; j < len; ++j) {
                const U key = tile[size_t(j)];
                const int64_t i = from + j;
                make(a[i], uint64_t(key), bits ? uint64_t(src[i * stride]) : uint64_t(i));
                a_and = U(a_and & key);
                a_or = U(a_or | key);
            }
            if (split)
                for (int64_t j = 0; j < len; ++j) ++c[size_t(tile[size_t(j)] >> (key_bits - top))];
            if (count_bytes)
                for (int64_t j = 0; j < len; ++j) {
                    const U key = tile[size_t(j)];
                    for (int d = 0; d < key_bytes; ++d)
                        ++byte_counts[size_t(d) * 256 + size_t((key >> (8 * d)) & 0xFF)];
                }
            if constexpr (shared_keys) {
                if (!same_bits<KeyT>(tile.data(), src + from * stride, stride, len, job.flip))
                    keys[p].other = true;
            }
        }
        keys[p].all = a_and;
        keys[p].any = a_or;
    });
    bool mixed = false;
    uint64_t keys_and = ~uint64_t(0), keys_or = 0;
    for (int64_t p = 0; p < parts.count; ++p) {
        keys_and &= keys[p].all;
        keys_or |= keys[p].any;
        mixed |= keys[p].other;
    }
    const Span sp = span_of(keys_and, keys_or);
    const Writer<KeyT, E> writer(job, src, row);
    const auto put = [&writer](const E* r, int64_t offset, int64_t count) {
        const Writer<KeyT, E> w = writer;
        for (int64_t j = 0; j < count; ++j) w(offset + j, r[j]);
    };
    const Emit<E> emit = emit_of<E>(put);
    if (net) {
        if (!sp.empty()) sort_network(a, n, net);
        emit(a, 0, n);
        return mixed;
    }
    if (!split && parts.count == 1 && !sp.empty() && n > 1) {
        const Digits g = lsd_digits(sp, n, tune.sort_lsd_bits);
        const int in_bytes = (sp.hi + 7) / 8 - sp.lo / 8;
        bytes_last = in_bytes <= g.passes && tune.sort_lsd_bits >= 8;
        if (bytes_last && count_bytes) {
            emit(lsd(a, b, n, Digits{0, key_bytes, 8}, byte_counts), 0, n);
            return mixed;
        }
    }
    if (!split || sp.empty()) {
        sort_records(a, b, n, sp, 0, tune, trace, emit);
        return mixed;
    }
    sort_split(a, b, n, sp, parts, counts, top, key_bits, threads, tune, job.trace, trace, emit);
    return mixed;
}

template <class KeyT, class E>
void sort_sequence(const SortJob<KeyT>& job, int64_t q, int threads, int64_t segment, E* a,
                   E* b, LocalTrace& trace, NetworkSort net = nullptr) {
    using U = typename KeyT::type;
    const bool mixed = sort_records_of(job, q, threads, segment, a, b, net, trace);
    if constexpr (sort_detail::is_bare<E> && (KeyT::kind == Kind::Float ||
                                               KeyT::kind == Kind::BFloat)) {
        if (!mixed) return;  // every zero and NaN is its key's bits: the sort wrote them
        const U* src = job.seq(q);
        const int64_t row = job.out.row(q);
        sort_detail::refill(job, src, row, KeyT::of(U(0)));   // -0.0 and +0.0
        sort_detail::refill(job, src, row, Bits<U>::ones);    // every NaN
    }
}

// The network for sequences of n records of E, or null: one for 32-bit records of at
// most sort_network_max; for 64-bit keys alone (a sort of float64 or int64 values) of at
// most sort_network_keys64_max that fill at least sort_network_keys64_fill eighths of
// their padded row; for key-and-index words of at most sort_network_max64 that fill at
// least sort_network_fill64 eighths (this project's Zen 4 VM, one thread, network / radix
// time: 32-bit records 0.1-0.3 for n <= 256, 0.5-0.7 at 1024-4096, 0.95 at 1025, 1.0-1.3
// from 8192; key-and-index words 0.1-0.5 for n <= 256, 0.5-0.9 at 1000-2048, 1.2-1.75 at
// 2600-8192; float64 keys alone 0.45-0.6 at 2048 and 4096, 0.65-0.85 at 3072-3200, 0.9-1.1
// at 6000-7000, int64 keys 0.65-0.75 at 4096, 0.85-0.9 at 3072-3200, 1.0-1.3 at 2600 and
// 6000-7000: the radix passes skip their constant digits). Never for words whose payload
// is the value's bits (bool values alone): equal keys of other bytes must keep their index
// order.
template <class KeyT, class E>
NetworkSort network_for(const SortJob<KeyT>& job, int64_t n) {
    using W = typename sort_detail::NetworkWord<E>::type;
    const Tuning& t = job.tune;
    if (n < 2) return nullptr;
    if constexpr (std::is_same_v<W, uint32_t>) {
        if (n <= t.sort_network_max) return job.network32;
    } else if constexpr (std::is_same_v<W, uint64_t>) {
        const bool words = std::is_same_v<E, uint64_t>;  // a key and its index, or bits
        if (words && !job.out_i) return nullptr;          // words of bits
        const int64_t most = words ? t.sort_network_max64 : t.sort_network_keys64_max;
        const int64_t fill = words ? t.sort_network_fill64 : t.sort_network_keys64_fill;
        if (n > most) return nullptr;
        const int64_t m = int64_t(network::padded(size_t(n)));
        if (n * 8 >= m * fill) return job.network64;
    }
    return nullptr;
}

// Sequences q0 .. q1-1, each by one thread: by the level's sorting network where
// network_for gives one, else by radix passes.
template <class KeyT, class E>
void sort_rows_of(const SortJob<KeyT>& job, int64_t q0, int64_t q1, Path path,
                  LocalTrace& trace) {
    const int64_t n = job.seqs.n;
    const NetworkSort net = network_for<KeyT, E>(job, n);
    trace.mark(net ? Path::sort_rows_network : path);
    std::unique_ptr<E[]> a(new E[net ? network::padded(size_t(n)) : size_t(n)]),
        b(net ? nullptr : new E[size_t(n)]);  // the network needs no scratch
    for (int64_t q = q0; q < q1; ++q) sort_sequence(job, q, 1, 0, a.get(), b.get(), trace, net);
}

template <class KeyT>
void sort_rows(const SortJob<KeyT>& job, int64_t q0, int64_t q1) {
    using U = typename KeyT::type;
    LocalTrace trace(job.trace);
    if (job.bare()) {
        sort_rows_of<KeyT, sort_detail::Bare<U>>(job, q0, q1, Path::sort_rows_bare, trace);
        return;
    }
    if constexpr (sizeof(U) <= 4) {
        if (job.packed()) {
            sort_rows_of<KeyT, uint64_t>(job, q0, q1, Path::sort_rows_words, trace);
            return;
        }
    }
    sort_rows_of<KeyT, sort_detail::Pair>(job, q0, q1, Path::sort_rows_pairs, trace);
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
