// The filter route of the insert strategy: short sequences of 32-bit keys, k of at most 16
// (the range of the tuning's filter_max_k: the bound needs k lane maxima), at the avx512
// level.
//
// Extraction (insert.hpp) costs k passes over every packed word of a sequence. Most of a
// sequence's keys cannot be among its k best, and a bound says which: the sequence read as
// 16 lanes (element i in lane i % 16), each lane's largest key is a different element, so
// the k-th largest of the 16 lane maxima is at most the sequence's k-th largest key. Only
// the keys at or above that bound are candidates (for k = 10 of 100 random keys, 14 on
// average): they are compressed out in one pass (with their indices), and their ranks,
// counted against each other as packed words (whose `>` is the tie rule), put the k best in
// order. Equal keys all pass the bound, so ties stay exact; when more than FILTER_RANKED
// pass it (keys with many ties), the candidates are extracted like a whole sequence.
//
// AVX-512 only: the compression has no counterpart in AVX2, and with four 64-bit lanes the
// rank counting loses to the extraction. Every level gives the same bits.
#pragma once

#include "common/isa.hpp"

#include <cstdint>

#include "common/order.hpp"
#include "topk/job.hpp"
#include "topk/avx512.hpp"

#define AXISOPS_TOPK_FILTER AXISOPS_AVX512_VL

namespace axisops {
namespace AXISOPS_ISA_NS {

// Whether this level has the filter route (AXISOPS_TOPK_FILTER: where it has, the functions
// below exist); at most FILTER_RANKED candidates are ranked against each other.
constexpr bool FILTER_BUILT = AXISOPS_TOPK_FILTER;
constexpr int64_t FILTER_RANKED = 16;

#if AXISOPS_TOPK_FILTER
namespace filter {

// The k-th largest (1 <= k <= 16) of the 16 lane maxima of key[:n]; lanes without an
// element count as 0, the least key, which bounds nothing.
inline uint32_t bound(const uint32_t* key, int64_t n, int64_t k) {
    __m512i m = _mm512_setzero_si512();
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) m = _mm512_max_epu32(m, _mm512_loadu_si512(key + i));
    if (i < n) m = _mm512_max_epu32(m, _mm512_maskz_loadu_epi32(first_lanes(n - i), key + i));
    // Each lane counts the other lanes at least as large, by rotating the vector past it.
    const __m512i one = _mm512_set1_epi32(1);
    __m512i at_least = _mm512_setzero_si512();
#define AXISOPS_FILTER_COUNT(r)                                                  \
    {                                                                            \
        const __m512i other = _mm512_alignr_epi32(m, m, r);                      \
        at_least = _mm512_mask_add_epi32(at_least, _mm512_cmpge_epu32_mask(other, m), \
                                         at_least, one);                         \
    }
    AXISOPS_FILTER_COUNT(1) AXISOPS_FILTER_COUNT(2) AXISOPS_FILTER_COUNT(3)
    AXISOPS_FILTER_COUNT(4) AXISOPS_FILTER_COUNT(5) AXISOPS_FILTER_COUNT(6)
    AXISOPS_FILTER_COUNT(7) AXISOPS_FILTER_COUNT(8) AXISOPS_FILTER_COUNT(9)
    AXISOPS_FILTER_COUNT(10) AXISOPS_FILTER_COUNT(11) AXISOPS_FILTER_COUNT(12)
    AXISOPS_FILTER_COUNT(13) AXISOPS_FILTER_COUNT(14) AXISOPS_FILTER_COUNT(15)
#undef AXISOPS_FILTER_COUNT
    // The largest lane with k - 1 others at least as large is the k-th largest.
    const __mmask16 kth = _mm512_cmpge_epu32_mask(at_least, _mm512_set1_epi32(int(k - 1)));
    return _mm512_mask_reduce_max_epu32(kth, m);
}

// The keys of key[:n] at or above `least` and their indices, in index order, to ck and ci
// (room for n + 16 each: every store writes a whole vector); returns their count.
inline int64_t collect(const uint32_t* key, int64_t n, uint32_t least, uint32_t* ck,
                       uint32_t* ci) {
    const __m512i bar = _mm512_set1_epi32(int(least)), step = _mm512_set1_epi32(16);
    __m512i idx = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    int64_t c = 0;
    for (int64_t i = 0; i < n; i += 16) {
        const __mmask16 in = first_lanes(n - i);
        const __m512i v = _mm512_maskz_loadu_epi32(in, key + i);
        const __mmask16 pass = _mm512_mask_cmpge_epu32_mask(in, v, bar);
        _mm512_storeu_si512(ck + c, _mm512_maskz_compress_epi32(pass, v));
        _mm512_storeu_si512(ci + c, _mm512_maskz_compress_epi32(pass, idx));
        c += __builtin_popcount(unsigned(pass));
        idx = _mm512_add_epi32(idx, step);
    }
    return c;
}

// `pack` of candidates from .. from + 7 (0, below every word, past c).
inline __m512i words_of(const uint32_t* ck, const uint32_t* ci, int64_t from, int64_t c) {
    const __mmask8 in = __mmask8(first_lanes(c - from < 0 ? 0 : c - from) & 0xFF);
    const __m512i k = _mm512_cvtepu32_epi64(_mm256_maskz_loadu_epi32(in, ck + from));
    const __m512i i = _mm512_cvtepu32_epi64(_mm256_maskz_loadu_epi32(in, ci + from));
    const __m512i w = _mm512_or_si512(_mm512_slli_epi64(k, 32),
                                      _mm512_sub_epi64(_mm512_set1_epi64(int64_t(LOW32)), i));
    return _mm512_maskz_mov_epi64(in, w);
}

// The k best of c candidates (k <= c <= FILTER_RANKED), best first, as sequence q's
// results: each candidate's rank is the count of candidates above it.
template <class KeyT>
inline void rank_into(const TopKJob<KeyT>& job, int64_t q, const uint32_t* ck,
                      const uint32_t* ci, int64_t c) {
    const __m512i lo = words_of(ck, ci, 0, c), hi = words_of(ck, ci, 8, c);
    alignas(64) uint64_t w[16];
    _mm512_store_si512(w, lo);
    _mm512_store_si512(w + 8, hi);
    const __m512i one = _mm512_set1_epi64(1);
    __m512i rank_lo = _mm512_setzero_si512(), rank_hi = _mm512_setzero_si512();
    for (int b = 0; b < 16; ++b) {  // the empty words above none
        const __m512i wb = _mm512_set1_epi64(int64_t(w[b]));
        rank_lo = _mm512_mask_add_epi64(rank_lo, _mm512_cmpgt_epu64_mask(wb, lo), rank_lo, one);
        rank_hi = _mm512_mask_add_epi64(rank_hi, _mm512_cmpgt_epu64_mask(wb, hi), rank_hi, one);
    }
    alignas(64) int64_t rank[16];
    _mm512_store_si512(rank, rank_lo);
    _mm512_store_si512(rank + 8, rank_hi);
    // Ranks are distinct; the empty words rank c or more, at least k: all land in slot 16.
    int64_t slot[17];
    for (int j = 0; j < 16; ++j) slot[rank[j] < job.k ? rank[j] : 16] = unpack_index(w[j]);
    job.put_row(q, slot);
}

}  // namespace filter
#endif

}  // namespace AXISOPS_ISA_NS
}  // namespace axisops
