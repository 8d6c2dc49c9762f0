// The insert strategy: short sequences, many per call.
//
// Keys go to a tile first, in one vectorised pass (over many sequences at once when they
// lie back to back in memory, as the rows of a C-order array do). Then, per sequence:
//
// - the filter route (32-bit keys, k of filter_min_k to filter_max_k, at the avx512 level;
//   topk/filter.hpp): only the keys at or above a bound from the sequence's 16 lane maxima
//   are ranked, the rest read once;
// - the lanes route (keys of up to 32 bits that the filter does not take, k of at most
//   lanes_max_k, at the avx512 level; topk/lanes.hpp): every key packed with its index in
//   registers and offered to the k best words of each of 8 lanes, in one pass (sequences
//   of 32-bit elements and unit stride skip the tile: their keys are made in registers);
// - extraction (keys of up to 32 bits, small k): every key is packed with its index into
//   one signed word (`pack_signed`, whose plain `>` is the tie rule), and the k best are
//   taken one at a time, each as the largest word below the one taken before (a vectorised
//   reduction that stores nothing). Two sequences are reduced in the same loop, so each
//   one's reduction runs while the other's waits on its result. No branch depends on the
//   data: a short row costs about k * n / lanes vector steps;
// - insertion (otherwise): every key is offered to a best-first array of at most k
//   (`insert_best`, or packed words through `insert_word`), which most keys leave after
//   one comparison.
#pragma once

#include "common/isa.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <vector>

#include "common/order.hpp"
#include "topk/filter.hpp"
#include "topk/job.hpp"
#include "topk/lanes.hpp"

namespace axisops {
namespace AXISOPS_ISA_NS {

// Keys of at most this many bytes travel with their index in one 64-bit word (for indices
// below the tuning's words_max_n).
constexpr int PACKED_MAX_BYTES = 4;
// Up to the tuning's extract_max_k, packed keys are selected by k maximum reductions, whose
// cost does not depend on the data: k * n / lanes vector steps, against the radix sort's
// passes over every key. Keys go to a tile of about insert_chunk keys: sequences back to
// back in memory get their keys in one pass.

namespace insert_detail {

constexpr int64_t EMPTY = std::numeric_limits<int64_t>::min();  // below every signed word

// The k largest packed words of two sequences, wa[:n] and wb[:n] (k >= 1), written best
// first as results of sequences qa and qb; best_a/best_b are their largest words.
template <class KeyT>
inline void extract_pair(const TopKJob<KeyT>& job, const int64_t* wa, const int64_t* wb,
                         int64_t n, int64_t best_a, int64_t best_b, int64_t qa, int64_t qb) {
    job.put(qa, 0, unpack_index(uint64_t(best_a)));
    job.put(qb, 0, unpack_index(uint64_t(best_b)));
    for (int64_t j = 1; j < job.k; ++j) {
        const int64_t last_a = best_a, last_b = best_b;
        int64_t ma = EMPTY, mb = EMPTY;
        // The choice of a word or EMPTY as masks, not as a conditional: GCC 12 leaves the
        // conditional form scalar, and vectorises this one (float32 (100000, 100) k=10, one
        // thread, AVX-512: 45 -> 20 ms, 2026-12-06; Clang vectorises both).
        for (int64_t i = 0; i < n; ++i) {
            const int64_t x = wa[i], y = wb[i];
            const int64_t below_a = -int64_t(x < last_a), below_b = -int64_t(y < last_b);
            const int64_t a = (x & below_a) | (EMPTY & ~below_a);
            const int64_t b = (y & below_b) | (EMPTY & ~below_b);
            ma = a > ma ? a : ma;
            mb = b > mb ? b : mb;
        }
        best_a = ma;
        best_b = mb;
        job.put(qa, j, unpack_index(uint64_t(best_a)));
        job.put(qb, j, unpack_index(uint64_t(best_b)));
    }
}

// The extraction route for `rows` sequences from t0 whose keys are in `tile`, two at a
// time (an odd last one is paired with itself, and its results written twice).
template <class KeyT>
void extract_rows(const TopKJob<KeyT>& job, int64_t t0, int64_t rows,
                  const typename KeyT::type* tile, int64_t* words) {
    const int64_t n = job.seqs.n;
    int64_t* wa = words;
    int64_t* wb = words + n;
    for (int64_t r = 0; r < rows; r += 2) {
        const int64_t b = r + 1 < rows ? r + 1 : r;
        const auto* ka = tile + r * n;
        const auto* kb = tile + b * n;
        int64_t best_a = EMPTY, best_b = EMPTY;
        for (int64_t i = 0; i < n; ++i) {
            const int64_t a = pack_signed(ka[i], i);
            const int64_t c = pack_signed(kb[i], i);
            wa[i] = a;
            wb[i] = c;
            best_a = a > best_a ? a : best_a;
            best_b = c > best_b ? c : best_b;
        }
        extract_pair(job, wa, wb, n, best_a, best_b, t0 + r, t0 + b);
    }
}

// Whether sequences of n 32-bit keys take the filter route for this k: where it beat the
// extraction, whose k passes cost k * n while the filter's bound, collection and ranks cost
// about 250 + 3.5 n of the same units (this project's Zen 4 VM, one thread, filter /
// extraction time: (100000, 100) k = 4 1.31, k = 6 1.04, k = 8 0.86, k = 10 0.77, k = 12
// 0.94, k = 16 1.17 (41 candidates on average: extracted); (100000, 64) k = 8 0.97, k = 12
// 1.09; (200000, 32) k = 8 1.29; (65536, 128) k = 8 0.75; (50000, 256) k = 3 1.15, k = 4
// 0.99, k = 16 0.77; (20000, 512) k = 8 0.54; (10000, 1000) k = 1 1.23, k = 2 0.95, k = 3
// 0.86, k = 16 0.41): k of filter_min_k to filter_max_k, k * n at least filter_min_work,
// and n at least filter_n_per_k * k.
inline bool filters(const Tuning& t, int64_t n, int64_t k) {
    return FILTER_BUILT && k >= t.filter_min_k && k <= t.filter_max_k &&
           k * n >= t.filter_min_work && n / k >= t.filter_n_per_k;  // no product to overflow
}

// Whether packed sequences that the filter does not take go the lanes route: k of
// at most lanes_max_k, where it beat the extraction at every length tried (an Intel Xeon
// AVX-512 VM, one thread, lanes / extraction time: (8192, 64) k = 1 0.82, k = 2 0.77, k = 4
// 0.72; (200000, 16) k = 4 0.77; (100000, 37) k = 2 0.71; (50000, 256) k = 3 0.74;
// (10000, 1000) k = 2 0.74; where the filter takes k = 3 or 4, lanes / filter 0.99-1.19).
inline bool lanes(const Tuning& t, int64_t k) {
    return LANES_BUILT && k >= 1 && k <= t.lanes_max_k;
}

// The lanes route for `rows` sequences from t0 whose keys are in `tile`.
template <class KeyT>
void lanes_rows(const TopKJob<KeyT>& job, int64_t t0, int64_t rows,
                const typename KeyT::type* tile) {
#if AXISOPS_TOPK_LANES
    const int64_t n = job.seqs.n;
    for (int64_t r = 0; r < rows; ++r) lanes::top_into(job, t0 + r, tile + r * n, n);
#else
    (void)job, (void)t0, (void)rows, (void)tile;
#endif
}

// Whether the lanes route makes this key type's keys in registers (32-bit keys), so that
// sequences of unit stride need no tile.
template <class KeyT>
constexpr bool lanes_make_keys() {
#if AXISOPS_TOPK_LANES
    return lanes::MAKES_KEYS<KeyT>;
#else
    return false;
#endif
}

// The lanes route for sequences q0 .. q1-1 of unit stride, read as elements: their keys made
// in registers, no tile.
template <class KeyT>
void lanes_elements(const TopKJob<KeyT>& job, int64_t q0, int64_t q1) {
#if AXISOPS_TOPK_LANES
    if constexpr (lanes::MAKES_KEYS<KeyT>) {
        const lanes::MakeKeys<KeyT> make(job.flip);
        for (int64_t q = q0; q < q1; ++q) lanes::top_into(job, q, job.seq(q), job.seqs.n, make);
        return;
    }
#endif
    (void)job, (void)q0, (void)q1;
}

// The filter route for `rows` sequences from t0 whose 32-bit keys are in `tile`; ck and ci
// hold n + 16 candidates each, words n.
template <class KeyT>
void filter_rows(const TopKJob<KeyT>& job, int64_t t0, int64_t rows, const uint32_t* tile,
                 uint32_t* ck, uint32_t* ci, int64_t* words, LocalTrace& trace) {
#if AXISOPS_TOPK_FILTER
    const int64_t n = job.seqs.n;
    for (int64_t r = 0; r < rows; ++r) {
        const uint32_t* key = tile + r * n;
        const int64_t c = filter::collect(key, n, filter::bound(key, n, job.k), ck, ci);
        if (c <= FILTER_RANKED) {
            filter::rank_into(job, t0 + r, ck, ci, c);
            continue;
        }
        // Many candidates (keys with many ties): extracted like a whole sequence, paired
        // with itself.
        trace.mark(Path::topk_filter_many);
        int64_t best = EMPTY;
        for (int64_t j = 0; j < c; ++j) {
            words[j] = pack_signed(ck[j], ci[j]);
            best = words[j] > best ? words[j] : best;
        }
        extract_pair(job, words, words, c, best, best, t0 + r, t0 + r);
    }
#else
    (void)job, (void)t0, (void)rows, (void)tile, (void)ck, (void)ci, (void)words, (void)trace;
#endif
}

// The insertion route: packed words when they fit, else (key, index) pairs.
template <class KeyT>
void insert_rows(const TopKJob<KeyT>& job, int64_t t0, int64_t rows,
                 const typename KeyT::type* tile, uint64_t* words,
                 typename KeyT::type* ckeys, int64_t* cidx) {
    const int64_t n = job.seqs.n, k = job.k;
    const bool packed = words != nullptr;
    for (int64_t r = 0; r < rows; ++r) {
        const auto* keys = tile + r * n;
        int64_t count = 0;
        if (packed) {
            for (int64_t i = 0; i < n; ++i) count = insert_word(words, count, k, pack(keys[i], i));
            for (int64_t j = 0; j < k; ++j) cidx[j] = unpack_index(words[j]);
        } else {
            for (int64_t i = 0; i < n; ++i) count = insert_best(ckeys, cidx, count, k, keys[i], i);
        }
        job.put_row(t0 + r, cidx);
    }
}

}  // namespace insert_detail

// The insert strategy for sequences q0 .. q1-1.
template <class KeyT>
void topk_insert_rows(const TopKJob<KeyT>& job, int64_t q0, int64_t q1) {
    using U = typename KeyT::type;
    const Sequences& s = job.seqs;
    const Tuning& t = job.tune;
    const int64_t n = s.n, k = job.k;
    const bool packed = sizeof(U) <= PACKED_MAX_BYTES && n < t.words_max_n;
    const bool extract = packed && k <= t.extract_max_k;
    const bool filter = extract && sizeof(U) == 4 && insert_detail::filters(t, n, k);
    const bool lanes = extract && !filter && insert_detail::lanes(t, k);
    LocalTrace trace(job.trace);
    trace.mark(lanes     ? Path::topk_lanes
               : filter  ? Path::topk_filter
               : extract ? Path::topk_extract
               : packed  ? Path::topk_insert_words
                         : Path::topk_insert_pairs);
    if (lanes && s.stride == 1 && insert_detail::lanes_make_keys<KeyT>()) {
        insert_detail::lanes_elements(job, q0, q1);
        return;
    }
    const int64_t per_tile = std::max<int64_t>(2, t.insert_chunk / n / 2 * 2);
    std::vector<U> tile(static_cast<std::size_t>(per_tile * n));
    std::vector<int64_t> signed_words(extract && !lanes ? size_t(2 * n) : 0);
    std::vector<uint32_t> candidates(filter ? size_t(2 * (n + 16)) : 0);
    std::vector<uint64_t> words(packed && !extract ? size_t(k) : 0);
    std::vector<U> ckeys(packed ? 0 : size_t(k));
    std::vector<int64_t> cidx(static_cast<std::size_t>(k));
    for (int64_t t0 = q0; t0 < q1;) {
        const int64_t rows = std::min(per_tile, q1 - t0);
        // Sequences back to back in memory (the rows of a C-order array) in one pass.
        const bool back_to_back = s.stride == 1 && s.inner == 1 && s.regular &&
                                  (rows == 1 || s.ostride == n);
        if (back_to_back) {
            fill_keys<KeyT>(job.seq(t0), 1, rows * n, job.flip, tile.data());
        } else {
            for (int64_t r = 0; r < rows; ++r)
                fill_keys<KeyT>(job.seq(t0 + r), s.stride, n, job.flip, tile.data() + r * n);
        }
        if (lanes) {
            insert_detail::lanes_rows(job, t0, rows, tile.data());
            t0 += rows;
            continue;
        }
        if constexpr (sizeof(U) == 4) {
            if (filter) {
                insert_detail::filter_rows(job, t0, rows, tile.data(), candidates.data(),
                                           candidates.data() + n + 16, signed_words.data(),
                                           trace);
                t0 += rows;
                continue;
            }
        }
        if (extract) {
            insert_detail::extract_rows(job, t0, rows, tile.data(), signed_words.data());
        } else {
            insert_detail::insert_rows(job, t0, rows, tile.data(),
                                       packed ? words.data() : nullptr, ckeys.data(),
                                       cidx.data());
        }
        t0 += rows;
    }
}

}  // namespace AXISOPS_ISA_NS
}  // namespace axisops
