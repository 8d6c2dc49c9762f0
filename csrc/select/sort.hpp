// Stable sort and argsort along an axis: the radix sorts of common/radix.hpp.
//
// Ascending sorts the keys, descending their complements (largest first); the radix sort
// is stable, so equal keys keep index order in both directions. Keys of up to 32 bits
// travel in the top half of a 64-bit word whose low half is the index, or, when only the
// values are wanted, the element's own bits (so no read of the input follows the sort and
// NaN payloads and -0.0 survive). 64-bit keys move as (key, payload) pairs.
//
// - rows: each sequence sorted in a tile by one thread, sequences in tasks;
// - parted: one long sequence sorted by all threads: each pass counts the digit per part,
//   and every part scatters its elements to the places the counts give it (the parts in
//   order, so the pass stays stable).
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
#include "common/radix.hpp"
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
};

namespace sort_detail {

// Writes position p of sequence q's result from payload w: the element's bits when only
// the values are wanted, else its index.
template <class KeyT>
inline void put(const SortJob<KeyT>& job, const typename KeyT::type* src, int64_t row,
                int64_t p, uint64_t w) {
    using U = typename KeyT::type;
    const int64_t at = row + p * job.out.step();
    if (!job.out_i) {
        job.out_v[at] = U(w);
        return;
    }
    const int64_t i = int64_t(w);
    job.out_i[at] = i;
    if (job.out_v) job.out_v[at] = src[i * job.seqs.stride];
}

}  // namespace sort_detail

// Sequences q0 .. q1-1, each in a tile.
template <class KeyT>
void sort_rows(const SortJob<KeyT>& job, int64_t q0, int64_t q1) {
    using U = typename KeyT::type;
    const Sequences& s = job.seqs;
    const int64_t n = s.n, stride = s.stride;
    const bool packed = job.packed();
    std::vector<U> tile(static_cast<size_t>(n)), keys_b(packed ? 0 : size_t(n));
    std::vector<uint64_t> a(static_cast<size_t>(n)), b(static_cast<size_t>(n));
    std::vector<int64_t> hist(sizeof(U) * radix::BUCKETS);
    const bool bits = !job.out_i;  // the payload: the element's bits, or its index
    job.trace.mark(packed ? Path::sort_rows_words : Path::sort_rows_pairs);
    for (int64_t q = q0; q < q1; ++q) {
        const U* src = job.seq(q);
        const int64_t row = job.out.row(q);
        fill_keys<KeyT>(src, stride, n, job.flip, tile.data());
        const uint64_t* sorted;
        if (packed) {
            if constexpr (sizeof(U) <= 4) {
                if (bits) {
                    radix::pack_words(tile.data(), n,
                                      [&](int64_t j) { return uint64_t(src[j * stride]); },
                                      a.data(), hist.data());
                } else {
                    radix::pack_words(tile.data(), n, [](int64_t j) { return uint64_t(j); },
                                      a.data(), hist.data());
                }
                sorted = radix::sort_words<int(sizeof(U))>(a.data(), b.data(), n, hist.data());
                for (int64_t p = 0; p < n; ++p)
                    sort_detail::put(job, src, row, p, sorted[p] & LOW32);
            }
        } else {
            for (int64_t j = 0; j < n; ++j)
                a[size_t(j)] = bits ? uint64_t(src[j * stride]) : uint64_t(j);
            sorted = radix::sort_pairs(tile.data(), keys_b.data(), a.data(), b.data(), n,
                                       hist.data());
            for (int64_t p = 0; p < n; ++p) sort_detail::put(job, src, row, p, sorted[p]);
        }
    }
}

namespace sort_detail {

// A 64-bit key and its payload, for keys too wide to share a word with an index.
struct Pair {
    uint64_t key;
    uint64_t pay;
};

// A split sort's digits are wider than a tile's: SPLIT_BITS of them need fewer passes over
// memory (a 32-bit key in three instead of four), and their line buffers (SPLIT_BUCKETS
// lines) still fit in the second-level cache.
constexpr int SPLIT_BITS = 8;
constexpr int SPLIT_BUCKETS = 1 << SPLIT_BITS;
constexpr uint64_t SPLIT_MASK = SPLIT_BUCKETS - 1;

inline int digit_of(uint64_t w, int d) { return int((w >> (32 + SPLIT_BITS * d)) & SPLIT_MASK); }
inline int digit_of(const Pair& e, int d) { return int((e.key >> (SPLIT_BITS * d)) & SPLIT_MASK); }
inline uint64_t payload(uint64_t w) { return w & LOW32; }
inline uint64_t payload(const Pair& e) { return e.pay; }

// Writes the 64-byte line at src to dst (64-byte aligned) around the caches: a line that
// is written whole need not be read first.
inline void stream_line(void* dst, const void* src) {
#if defined(__AVX512F__)
    _mm512_stream_si512(static_cast<__m512i*>(dst), _mm512_load_si512(src));
#elif defined(__AVX__)
    const __m256i* s = static_cast<const __m256i*>(src);
    __m256i* d = static_cast<__m256i*>(dst);
    _mm256_stream_si256(d, _mm256_load_si256(s));
    _mm256_stream_si256(d + 1, _mm256_load_si256(s + 1));
#elif defined(__SSE2__) || defined(_M_X64)
    const __m128i* s = static_cast<const __m128i*>(src);
    __m128i* d = static_cast<__m128i*>(dst);
    for (int i = 0; i < 4; ++i) _mm_stream_si128(d + i, _mm_load_si128(s + i));
#else
    std::memcpy(dst, src, 64);
#endif
}

// Orders the streamed lines before what follows (another thread reads them next).
inline void stream_fence() {
#if defined(__SSE2__) || defined(_M_X64)
    _mm_sfence();
#endif
}

// Elements on their way to one bucket gather in a line-sized buffer, which goes out whole
// (streamed, when it is a whole line of the destination): a scatter to 256 places far apart
// then writes lines, not elements. A bucket's first line is cut short to reach the
// destination's line boundary; its last one, and the lines shared with another part's
// elements, go out element by element.
template <class E>
struct Combine {
    static constexpr int per_line = int(64 / sizeof(E));
    alignas(64) E line[SPLIT_BUCKETS][per_line];
    int fill[SPLIT_BUCKETS];
    int room[SPLIT_BUCKETS];  // elements until the destination's next line boundary

    Combine(const E* dst, const int64_t* at) {
        for (int b = 0; b < SPLIT_BUCKETS; ++b) {
            fill[b] = 0;
            const uintptr_t addr = reinterpret_cast<uintptr_t>(dst + at[b]);
            room[b] = int((64 - addr % 64) % 64 / sizeof(E));
            if (room[b] == 0) room[b] = per_line;
        }
    }
    void put(E* dst, int64_t* at, int b, const E& e) {
        line[b][fill[b]] = e;
        if (++fill[b] == room[b]) {
            if (room[b] == per_line) {
                stream_line(dst + at[b], line[b]);
            } else {
                std::copy(line[b], line[b] + room[b], dst + at[b]);
            }
            at[b] += room[b];
            fill[b] = 0;
            room[b] = per_line;
        }
    }
    void flush(E* dst, int64_t* at) {
        for (int b = 0; b < SPLIT_BUCKETS; ++b) {
            std::copy(line[b], line[b] + fill[b], dst + at[b]);
            at[b] += fill[b];
            fill[b] = 0;
        }
        stream_fence();
    }
};

// The parted LSD sort of the elements of `a` (n of them, `b` the same size), digits
// `digits` in order, with `first[p][d]` the histograms of part p's slice of `a`; parts are
// 2^shift elements long, so each scatter also counts, per part of its destination, the
// next digit (the next pass then needs no counting pass of its own). Returns a or b.
template <class E>
E* sort_elements(E* a, E* b, int64_t n, int shift, const std::vector<int>& digits,
                 std::vector<std::vector<std::array<int64_t, SPLIT_BUCKETS>>>& first,
                 int threads) {
    using Hist = std::array<int64_t, SPLIT_BUCKETS>;
    const int64_t parts = ((n - 1) >> shift) + 1;
    const size_t P = size_t(parts);
    std::vector<Hist> at(P);
    // next[p][t]: the next digit's histogram of the elements part p sends to part t.
    std::vector<std::vector<std::array<uint32_t, SPLIT_BUCKETS>>> next(
        P, std::vector<std::array<uint32_t, SPLIT_BUCKETS>>(P));
    std::vector<Hist> counts(P);
    for (size_t p = 0; p < P; ++p) counts[p] = first[p][size_t(digits.empty() ? 0 : digits[0])];
    for (size_t k = 0; k < digits.size(); ++k) {
        const int d = digits[k];
        const bool more = k + 1 < digits.size();
        const int dn = more ? digits[k + 1] : 0;
        int64_t total = 0;  // the parts in order within each bucket: stable
        for (int v = 0; v < SPLIT_BUCKETS; ++v) {
            for (size_t p = 0; p < P; ++p) {
                at[p][size_t(v)] = total;
                total += counts[p][size_t(v)];
            }
        }
        parallel_for(parts, threads, [&](int64_t p) {
            int64_t* pos = at[size_t(p)].data();
            std::unique_ptr<Combine<E>> wc(new Combine<E>(b, pos));
            auto& nx = next[size_t(p)];
            if (more)
                for (auto& h : nx) h.fill(0);
            const int64_t end = std::min(n, (p + 1) << shift);
            for (int64_t j = p << shift; j < end; ++j) {
                const E e = a[j];
                const int v = digit_of(e, d);
                if (more) {
                    // where e lands: pos[v] plus what waits in its line
                    const int64_t to = pos[v] + wc->fill[v];
                    ++nx[size_t(to >> shift)][size_t(digit_of(e, dn))];
                }
                wc->put(b, pos, v, e);
            }
            wc->flush(b, pos);
        });
        std::swap(a, b);
        if (more) {
            for (size_t t = 0; t < P; ++t) {
                Hist& c = counts[t];
                c.fill(0);
                for (size_t p = 0; p < P; ++p)
                    for (int v = 0; v < SPLIT_BUCKETS; ++v) c[size_t(v)] += next[p][t][size_t(v)];
            }
        }
    }
    return a;
}

}  // namespace sort_detail

// Sequence q by parts of 2^shift elements on up to `threads` threads (packed: as words,
// else as pairs).
template <class KeyT, class E>
void sort_parted_as(const SortJob<KeyT>& job, int64_t q, int shift, int threads) {
    using U = typename KeyT::type;
    using Hist = std::array<int64_t, sort_detail::SPLIT_BUCKETS>;
    constexpr bool packed = std::is_same_v<E, uint64_t>;
    constexpr int width = (int(sizeof(U)) * 8 + sort_detail::SPLIT_BITS - 1) / sort_detail::SPLIT_BITS;
    const int64_t n = job.seqs.n, stride = job.seqs.stride;
    const U* src = job.seq(q);
    const int64_t row = job.out.row(q);
    const bool bits = !job.out_i;
    const int64_t parts = ((n - 1) >> shift) + 1;
    const size_t P = size_t(parts);
    // The destination of indices doubles as the second buffer when it can hold words.
    const bool borrow = packed && job.out_i && job.out.step() == 1;
    job.trace.mark(packed ? Path::sort_split_words : Path::sort_split_pairs);
    Arena arena(size_t(n) * sizeof(E) * (borrow ? 1 : 2), job.tune.arena_keep_max, job.trace);
    E* a = static_cast<E*>(arena.data());
    E* b = borrow ? reinterpret_cast<E*>(job.out_i + row) : a + n;

    std::vector<std::vector<Hist>> first(P, std::vector<Hist>(size_t(width)));
    const int64_t chunk = job.tune.select_chunk;
    parallel_for(parts, threads, [&](int64_t p) {
        std::vector<U> tile(static_cast<size_t>(chunk));
        auto& h = first[size_t(p)];
        for (auto& d : h) d.fill(0);
        const int64_t end = std::min(n, (p + 1) << shift);
        for (int64_t c = p << shift; c < end; c += chunk) {
            const int64_t len = std::min(chunk, end - c);
            fill_keys<KeyT>(src + c * stride, stride, len, job.flip, tile.data());
            for (int64_t j = 0; j < len; ++j) {
                const U key = tile[size_t(j)];
                const int64_t i = c + j;
                const uint64_t low = bits ? uint64_t(src[i * stride]) : uint64_t(i);
                if constexpr (packed) a[i] = (uint64_t(key) << 32) | low;
                else a[i] = E{uint64_t(key), low};
                for (int d = 0; d < width; ++d)
                    ++h[size_t(d)][size_t((uint64_t(key) >> (sort_detail::SPLIT_BITS * d)) &
                                          sort_detail::SPLIT_MASK)];
            }
        }
    });
    // The digits to sort by: those the keys do not all share.
    std::vector<int> digits;
    const int64_t key0 = 0;
    for (int d = 0; d < width; ++d) {
        const int v = sort_detail::digit_of(a[key0], d);
        int64_t same = 0;
        for (size_t p = 0; p < P; ++p) same += first[p][size_t(d)][size_t(v)];
        if (same != n) digits.push_back(d);
    }
    const E* sorted = sort_detail::sort_elements(a, b, n, shift, digits, first, threads);
    parallel_spread(parts, threads, [&](int64_t p) {
        const int64_t end = std::min(n, (p + 1) << shift);
        for (int64_t j = p << shift; j < end; ++j)
            sort_detail::put(job, src, row, j, sort_detail::payload(sorted[j]));
    });
}

// The tuning's sort_parts_per_thread: parts of a split sort, about this many per thread (a
// late thread takes fewer), each a power of two long, at least 2^sort_part_shift_min; at
// most sort_parts_max of them (each pass keeps, per part, a histogram per part it sends
// to).
template <class KeyT>
void sort_parted(const SortJob<KeyT>& job, int64_t q, int64_t segment, int threads) {
    const Tuning& t = job.tune;
    const int64_t n = job.seqs.n;
    int shift = int(t.sort_part_shift_min);
    if (segment > 0) {
        shift = 0;
        while ((int64_t(1) << (shift + 1)) <= segment) ++shift;
    } else {
        while ((n >> shift) >= t.sort_parts_per_thread * threads) ++shift;
    }
    while (((n - 1) >> shift) + 1 > t.sort_parts_max) ++shift;
    // The scatter counts, per pair of parts, what one part sends another in 32 bits.
    shift = std::min(shift, 31);
    if constexpr (sizeof(typename KeyT::type) <= 4) {
        if (job.packed()) return sort_parted_as<KeyT, uint64_t>(job, q, shift, threads);
    }
    sort_parted_as<KeyT, sort_detail::Pair>(job, q, shift, threads);
}

}  // namespace AXISOPS_ISA_NS
}  // namespace axisops
