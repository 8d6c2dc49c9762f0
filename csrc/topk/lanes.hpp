// The lanes route of the insert strategy: short sequences of keys of 32 bits or fewer, k of
// at most LANES_MAX_K (the range of the tuning's lanes_max_k), at the avx512 level.
//
// For the smallest k (a mixture-of-experts router's top-2 of 64 experts), extraction
// (insert.hpp) spends most of its time packing words and the filter's bound costs more
// than it saves. Here every key is packed with its index into a 64-bit word in registers
// (`pack`, whose unsigned `>` is the tie rule: two unpacks per 16 keys, narrower keys
// widened to 32 bits first, the indices' low halves kept in a vector) and offered to K = k
// best-first vectors of 8 lanes: each lane keeps the K largest words it has seen, in one
// pass with no branch. The sequence's k best words are among those 8 K (no lane holds
// more than k of them), taken one at a time as the largest, whose lane then moves up its
// next. Empty lanes hold 0, below every word (the index's low half, 2^32 - 1 - i, is
// never 0 below words_max_n).
//
// AVX-512 only (unsigned 64-bit min and max, masked byte and word loads); every level
// gives the same bits.
#pragma once

#include "common/isa.hpp"

#include <cstdint>

#include "common/keys.hpp"
#include "common/order.hpp"
#include "topk/job.hpp"
#include "topk/avx512.hpp"

#if AXISOPS_AVX512_VL && defined(__AVX512BW__)
#define AXISOPS_TOPK_LANES 1
#else
#define AXISOPS_TOPK_LANES 0
#endif

namespace axisops {
namespace AXISOPS_ISA_NS {

// Whether this level has the lanes route (AXISOPS_TOPK_LANES: where it has, the functions
// below exist), for k of at most LANES_MAX_K.
constexpr bool LANES_BUILT = AXISOPS_TOPK_LANES;
constexpr int64_t LANES_MAX_K = 4;

#if AXISOPS_TOPK_LANES
namespace lanes {

// Keys key[0 .. 16) widened to 32 bits; or those `in` names, and zeros.
template <class U>
inline __m512i keys16(const U* key) {
    if constexpr (sizeof(U) == 4) return _mm512_loadu_si512(key);
    else if constexpr (sizeof(U) == 2)
        return _mm512_cvtepu16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(key)));
    else return _mm512_cvtepu8_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(key)));
}
template <class U>
inline __m512i keys16(const U* key, __mmask16 in) {
    if constexpr (sizeof(U) == 4) return _mm512_maskz_loadu_epi32(in, key);
    else if constexpr (sizeof(U) == 2)
        return _mm512_cvtepu16_epi32(_mm256_maskz_loadu_epi16(in, key));
    else return _mm512_cvtepu8_epi32(_mm_maskz_loadu_epi8(in, key));
}

// The keys as they are (a tile of keys already made).
struct AsKeys {
    __m512i operator()(__m512i v) const { return v; }
};

// Order keys of 32-bit elements made in registers: `Key<uint32_t, K>::of(u) ^ flip` lane by
// lane, the same bits as keys.hpp's (a float's sign-dependent XOR, -0.0 moved up to +0.0's
// key, every NaN the largest key), so the lanes route reads a C-order row's elements
// without a tile.
template <class KeyT>
struct MakeKeys {
    __m512i flip;
    explicit MakeKeys(uint32_t f) : flip(_mm512_set1_epi32(int32_t(f))) {}
    __m512i operator()(__m512i u) const {
        if constexpr (KeyT::kind == Kind::Float) {
            const __m512i sign = _mm512_set1_epi32(int32_t(0x80000000u));
            const __m512i negative = _mm512_srai_epi32(u, 31);
            __m512i k = _mm512_xor_si512(u, _mm512_or_si512(negative, sign));
            k = _mm512_mask_add_epi32(k, _mm512_cmpeq_epi32_mask(u, sign), k,
                                      _mm512_set1_epi32(1));
            const __mmask16 nan = _mm512_cmpgt_epu32_mask(
                _mm512_and_si512(u, _mm512_set1_epi32(0x7FFFFFFF)),
                _mm512_set1_epi32(int32_t(nan_bound<uint32_t, Kind::Float>())));
            k = _mm512_mask_mov_epi32(k, nan, _mm512_set1_epi32(-1));
            return _mm512_xor_si512(k, flip);
        } else {
            return _mm512_xor_si512(u, flip);
        }
    }
};

// Whether MakeKeys makes this key type's keys (32-bit unsigned, signed and float elements).
template <class KeyT>
constexpr bool MAKES_KEYS = sizeof(typename KeyT::type) == 4 &&
                            (KeyT::kind == Kind::Float || KeyT::kind == Kind::Unsigned);

// Offers the 8 words of w to the best-first vectors m[0] >= m[1] >= ... (per lane).
template <int K>
inline void offer(__m512i (&m)[K], __m512i w) {
    for (int j = 0; j < K; ++j) {
        const __m512i above = _mm512_max_epu64(m[j], w);
        w = _mm512_min_epu64(m[j], w);
        m[j] = above;
    }
}

// Sequence q's k best (k <= K) of its n keys make(key[:n]), best first, as its results.
template <int K, class KeyT, class U, class Make>
inline void best_into(const TopKJob<KeyT>& job, int64_t q, const U* key, int64_t n,
                      const Make& make) {
    __m512i m[K];
    for (int j = 0; j < K; ++j) m[j] = _mm512_setzero_si512();
    // Lane e of `low` holds LOW32 - (i + e), the low half of the word of key[i + e].
    __m512i low = _mm512_sub_epi32(_mm512_set1_epi32(-1), _mm512_setr_epi32(
        0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15));
    const __m512i step = _mm512_set1_epi32(16);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512i v = make(keys16(key + i));
        offer(m, _mm512_unpacklo_epi32(low, v));  // keys i + 0, 1, 4, 5, 8, 9, 12, 13
        offer(m, _mm512_unpackhi_epi32(low, v));  // the others
        low = _mm512_sub_epi32(low, step);
    }
    if (i < n) {  // the lanes past n: word 0
        const __mmask16 in = first_lanes(n - i);
        const __m512i v = _mm512_maskz_mov_epi32(in, make(keys16(key + i, in)));
        const __m512i lw = _mm512_maskz_mov_epi32(in, low);
        offer(m, _mm512_unpacklo_epi32(lw, v));
        offer(m, _mm512_unpackhi_epi32(lw, v));
    }
    int64_t idx[K];
    for (int64_t j = 0; j < job.k; ++j) {
        const uint64_t best = _mm512_reduce_max_epu64(m[0]);
        idx[j] = unpack_index(best);
        // Words are distinct: one lane has it, and moves up its next.
        const __mmask8 at = _mm512_cmpeq_epu64_mask(m[0], _mm512_set1_epi64(int64_t(best)));
        for (int t = 0; t + 1 < K; ++t) m[t] = _mm512_mask_mov_epi64(m[t], at, m[t + 1]);
        m[K - 1] = _mm512_mask_mov_epi64(m[K - 1], at, _mm512_setzero_si512());
    }
    job.put_row(q, idx);
}

// The k best (1 <= k <= LANES_MAX_K) of sequence q, make(key[:n]).
template <class KeyT, class U, class Make = AsKeys>
inline void top_into(const TopKJob<KeyT>& job, int64_t q, const U* key, int64_t n,
                     const Make& make = Make()) {
    switch (job.k) {
        case 1: best_into<1>(job, q, key, n, make); break;
        case 2: best_into<2>(job, q, key, n, make); break;
        case 3: best_into<3>(job, q, key, n, make); break;
        default: best_into<4>(job, q, key, n, make); break;
    }
}

}  // namespace lanes
#endif

}  // namespace AXISOPS_ISA_NS
}  // namespace axisops
