// The selection kernels' inner loops over order keys widened to 32 or 64 bits (`Wide<U>`):
//
// - `band_pass`: one pass that counts the keys below `lo` and appends every (key, index)
//   with lo <= key <= hi to a candidate buffer, in index order. On AVX-512 a block of 16 (or
//   8) keys is two compares, a population count and compressions into registers stored in
//   full (so the buffers carry `BAND_SLACK` spare slots); on AVX2 (32-bit keys) the same
//   with permutations from a table for the compression; elsewhere a branch-free loop;
// - `count_le`, `count_lt`, `count_eq`: plain counting loops, which the compiler vectorises;
// - `locate_eq`: where the j-th key equal to v lies;
// - `key_range`: the smallest and the largest key.
// Every path computes the same counts and stores the same candidates in the same order, so
// every instruction-set level gives the same bits.
#pragma once

#include "common/isa.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <type_traits>

#if defined(__AVX512F__) && defined(__AVX512VL__)
#include <immintrin.h>
#define AXISOPS_BAND_AVX512 1
#elif defined(__AVX2__)
#include <immintrin.h>
#define AXISOPS_BAND_AVX2 1
#elif defined(_MSC_VER) && (defined(_M_X64) || defined(_M_IX86))
#include <immintrin.h>
#endif

namespace axisops {
namespace AXISOPS_ISA_NS {

// A hint to fetch the cache line at p into the caches (a read soon follows).
inline void prefetch_line(const void* p) {
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(p, 0, 2);
#elif defined(_MSC_VER) && (defined(_M_X64) || defined(_M_IX86))
    _mm_prefetch(static_cast<const char*>(p), _MM_HINT_T1);
#else
    (void)p;
#endif
}

// Prefetches a span of memory one cache line per call of next(), while other work runs.
struct Ahead {
    const char* at = nullptr;
    const char* end = nullptr;

    Ahead() = default;
    Ahead(const void* p, int64_t bytes)
        : at(static_cast<const char*>(p)), end(static_cast<const char*>(p) + bytes) {}
    void next() {
        if (at < end) {
            prefetch_line(at);
            at += 64;
        }
    }
};

// Keys of up to 32 bits are selected as 32-bit words, 64-bit keys as themselves.
template <class U>
using Wide = std::conditional_t<(sizeof(U) <= 4), uint32_t, uint64_t>;

// Spare slots after a candidate buffer's capacity: a vector store may write this far past
// the last candidate it keeps.
constexpr int64_t BAND_SLACK = 16;

// What a band pass found: keys below the band, and keys in it (all of them, also those
// not stored once the buffer was full).
struct Band {
    int64_t below = 0;
    int64_t in = 0;
};

namespace band_detail {

// The scalar pass (also the tail of the vector one). `idx` null: indices are base + j.
template <class K>
inline void pass_scalar(const K* keys, const uint32_t* idx, uint32_t base, int64_t from,
                        int64_t count, K lo, K hi, K* out_k, uint32_t* out_i, int64_t cap,
                        Band& band, Ahead& ahead) {
    const K range = K(hi - lo);
    int64_t below = band.below, m = band.in;
    Ahead pre = ahead;
    for (int64_t j = from; j < count; ++j) {
        const K key = keys[j];
        const uint32_t i = idx ? idx[j] : uint32_t(base + uint32_t(j));
        const int64_t at = m < cap ? m : cap;  // the slot at cap is a spare one
        out_k[at] = key;
        out_i[at] = i;
        below += key < lo;
        m += K(key - lo) <= range;
        if ((j & 15) == 0) pre.next();
    }
    ahead = pre;
    band.below = below;
    band.in = m;
}

#ifdef AXISOPS_BAND_AVX512
// The vector passes; `load(j)` gives keys j .. j + lanes - 1 (stored ones, or ones computed
// from the elements' bits on the way).
template <class Load>
inline int64_t pass_avx512_32(Load load, const uint32_t* idx, uint32_t base, int64_t count,
                              uint32_t lo, uint32_t hi, uint32_t* out_k, uint32_t* out_i,
                              int64_t cap, Band& band, Ahead& ahead) {
    const __m512i vlo = _mm512_set1_epi32(int(lo));
    const __m512i vrange = _mm512_set1_epi32(int(hi - lo));
    const __m512i step = _mm512_set1_epi32(16);
    __m512i vidx = _mm512_add_epi32(_mm512_set1_epi32(int(base)),
                                    _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
                                                      12, 13, 14, 15));
    int64_t below = band.below, m = band.in;
    Ahead pre = ahead;  // a local copy: the vector stores may alias anything
    auto one = [&](const __m512i k, const __m512i i) {
        const __mmask16 lt = _mm512_cmplt_epu32_mask(k, vlo);
        const __mmask16 in = _mm512_cmple_epu32_mask(_mm512_sub_epi32(k, vlo), vrange);
        if (m <= cap) {
            _mm512_storeu_si512(out_k + m, _mm512_maskz_compress_epi32(in, k));
            _mm512_storeu_si512(out_i + m, _mm512_maskz_compress_epi32(in, i));
        }
        below += _mm_popcnt_u32(lt);
        m += _mm_popcnt_u32(in);
        pre.next();
    };
    int64_t j = 0;
    // Two vectors a round: each round's loads and compares overlap the other's stores
    // (measured: 10M float32 keys from memory 2.9 -> 2.6 ms on one thread).
    for (; j + 32 <= count; j += 32) {
        const __m512i k0 = load(j), k1 = load(j + 16);
        const __m512i i1 = _mm512_add_epi32(vidx, step);
        one(k0, idx ? _mm512_loadu_si512(idx + j) : vidx);
        one(k1, idx ? _mm512_loadu_si512(idx + j + 16) : i1);
        vidx = _mm512_add_epi32(i1, step);
    }
    for (; j + 16 <= count; j += 16) {
        one(load(j), idx ? _mm512_loadu_si512(idx + j) : vidx);
        vidx = _mm512_add_epi32(vidx, step);
    }
    ahead = pre;
    band.below = below;
    band.in = m;
    return j;
}

template <class Load>
inline int64_t pass_avx512_64(Load load, const uint32_t* idx, uint32_t base, int64_t count,
                              uint64_t lo, uint64_t hi, uint64_t* out_k, uint32_t* out_i,
                              int64_t cap, Band& band, Ahead& ahead) {
    const __m512i vlo = _mm512_set1_epi64(int64_t(lo));
    const __m512i vrange = _mm512_set1_epi64(int64_t(hi - lo));
    const __m256i step = _mm256_set1_epi32(8);
    __m256i vidx = _mm256_add_epi32(_mm256_set1_epi32(int(base)),
                                    _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    int64_t below = band.below, m = band.in;
    Ahead pre = ahead;
    int64_t j = 0;
    for (; j + 8 <= count; j += 8) {
        const __m512i k = load(j);
        const __m256i i =
            idx ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(idx + j)) : vidx;
        const __mmask8 lt = _mm512_cmplt_epu64_mask(k, vlo);
        const __mmask8 in = _mm512_cmple_epu64_mask(_mm512_sub_epi64(k, vlo), vrange);
        if (m <= cap) {
            _mm512_storeu_si512(out_k + m, _mm512_maskz_compress_epi64(in, k));
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(out_i + m),
                                _mm256_maskz_compress_epi32(in, i));
        }
        below += _mm_popcnt_u32(lt);
        m += _mm_popcnt_u32(in);
        vidx = _mm256_add_epi32(vidx, step);
        pre.next();
    }
    ahead = pre;
    band.below = below;
    band.in = m;
    return j;
}

inline int64_t pass_avx512(const uint32_t* keys, const uint32_t* idx, uint32_t base,
                           int64_t count, uint32_t lo, uint32_t hi, uint32_t* out_k,
                           uint32_t* out_i, int64_t cap, Band& band, Ahead& ahead) {
    return pass_avx512_32([keys](int64_t j) { return _mm512_loadu_si512(keys + j); }, idx, base,
                          count, lo, hi, out_k, out_i, cap, band, ahead);
}

inline int64_t pass_avx512(const uint64_t* keys, const uint32_t* idx, uint32_t base,
                           int64_t count, uint64_t lo, uint64_t hi, uint64_t* out_k,
                           uint32_t* out_i, int64_t cap, Band& band, Ahead& ahead) {
    return pass_avx512_64([keys](int64_t j) { return _mm512_loadu_si512(keys + j); }, idx, base,
                          count, lo, hi, out_k, out_i, cap, band, ahead);
}
#endif

#ifdef AXISOPS_BAND_AVX2
// AVX2 has no compress instruction: for each 8-bit mask a table gives the lanes it keeps,
// in order, one byte each.
struct KeepTable {
    uint64_t lanes[256] = {};
    constexpr KeepTable() {
        for (int mask = 0; mask < 256; ++mask) {
            uint64_t packed = 0;
            int at = 0;
            for (int lane = 0; lane < 8; ++lane)
                if (mask & (1 << lane)) packed |= uint64_t(lane) << (8 * at++);
            lanes[mask] = packed;
        }
    }
};
inline constexpr KeepTable KEEP{};

// The vector pass over 32-bit keys, 8 at a time (unsigned compares as signed ones on keys
// with the sign bit flipped).
inline int64_t pass_avx2(const uint32_t* keys, const uint32_t* idx, uint32_t base,
                         int64_t count, uint32_t lo, uint32_t hi, uint32_t* out_k,
                         uint32_t* out_i, int64_t cap, Band& band, Ahead& ahead) {
    const __m256i sign = _mm256_set1_epi32(int(0x80000000u));
    const __m256i vlo = _mm256_set1_epi32(int(lo));
    const __m256i lo_s = _mm256_xor_si256(vlo, sign);
    const __m256i range_s = _mm256_set1_epi32(int((hi - lo) ^ 0x80000000u));
    const __m256i step = _mm256_set1_epi32(8);
    __m256i vidx = _mm256_add_epi32(_mm256_set1_epi32(int(base)),
                                    _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    int64_t below = band.below, m = band.in;
    Ahead pre = ahead;
    int64_t j = 0;
    for (; j + 8 <= count; j += 8) {
        const __m256i k = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(keys + j));
        const __m256i i =
            idx ? _mm256_loadu_si256(reinterpret_cast<const __m256i*>(idx + j)) : vidx;
        const __m256i t_s = _mm256_xor_si256(_mm256_sub_epi32(k, vlo), sign);
        const __m256i out = _mm256_cmpgt_epi32(t_s, range_s);  // above the band or below it
        const __m256i lt = _mm256_cmpgt_epi32(lo_s, _mm256_xor_si256(k, sign));
        const int in = ~_mm256_movemask_ps(_mm256_castsi256_ps(out)) & 0xFF;
        if (m <= cap) {
            const __m256i perm = _mm256_cvtepu8_epi32(
                _mm_cvtsi64_si128(static_cast<long long>(KEEP.lanes[in])));
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(out_k + m),
                                _mm256_permutevar8x32_epi32(k, perm));
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(out_i + m),
                                _mm256_permutevar8x32_epi32(i, perm));
        }
        below += _mm_popcnt_u32(unsigned(_mm256_movemask_ps(_mm256_castsi256_ps(lt))));
        m += _mm_popcnt_u32(unsigned(in));
        vidx = _mm256_add_epi32(vidx, step);
        if ((j & 15) == 0) pre.next();
    }
    ahead = pre;
    band.below = below;
    band.in = m;
    return j;
}
#endif

}  // namespace band_detail

// Adds to `band` the keys[:count] below lo and those in [lo, hi], appending the latter (key
// and index: idx[j], or base + j when idx is null) to out_k/out_i at band.in while
// band.in <= cap; out_k/out_i hold cap + BAND_SLACK slots. Candidates beyond cap are
// counted, not stored: band.in > cap afterwards says the buffer overflowed. `ahead`
// prefetches a line every 16 keys (the next sequence, say).
template <class K>
inline void band_pass(const K* keys, const uint32_t* idx, uint32_t base, int64_t count, K lo,
                      K hi, K* out_k, uint32_t* out_i, int64_t cap, Band& band, Ahead& ahead) {
    int64_t from = 0;
#if defined(AXISOPS_BAND_AVX512)
    from = band_detail::pass_avx512(keys, idx, base, count, lo, hi, out_k, out_i, cap, band,
                                    ahead);
#elif defined(AXISOPS_BAND_AVX2)
    if constexpr (sizeof(K) == 4)
        from = band_detail::pass_avx2(keys, idx, base, count, lo, hi, out_k, out_i, cap, band,
                                      ahead);
#endif
    band_detail::pass_scalar(keys, idx, base, from, count, lo, hi, out_k, out_i, cap, band,
                             ahead);
}

template <class K>
inline void band_pass(const K* keys, const uint32_t* idx, uint32_t base, int64_t count, K lo,
                      K hi, K* out_k, uint32_t* out_i, int64_t cap, Band& band) {
    Ahead none;
    band_pass(keys, idx, base, count, lo, hi, out_k, out_i, cap, band, none);
}

// Whether band_pass_of runs as one vector loop here (keys as wide as the elements' bits,
// on AVX-512), rather than widening into a buffer first.
template <class B>
constexpr bool band_fuses() {
#ifdef AXISOPS_BAND_AVX512
    return sizeof(B) == 4 || sizeof(B) == 8;
#else
    return false;
#endif
}

// band_pass over the keys key_of(src[j]) of count unit-stride elements (indices base + j),
// each vector of keys computed from the bits in registers, not stored and read back.
// Only where band_fuses<B>().
#ifdef AXISOPS_BAND_AVX512
// The vector passes' `load` for keys computed from unit-stride elements: load(j) gives
// key_of(src[j]) .. key_of(src[j + lanes - 1]) as one vector (band_pass_of, bands_pass_of).
template <class K, class B, class KeyOf>
inline auto fused_load(const B* src, KeyOf key_of) {
    return [src, key_of](int64_t j) {
        constexpr int lanes = int(64 / sizeof(K));
        alignas(64) K t[lanes];
        for (int l = 0; l < lanes; ++l) t[l] = K(key_of(src[j + l]));
        return _mm512_load_si512(t);
    };
}
#endif

template <class K, class B, class KeyOf>
inline void band_pass_of(const B* src, KeyOf key_of, uint32_t base, int64_t count, K lo, K hi,
                         K* out_k, uint32_t* out_i, int64_t cap, Band& band, Ahead& ahead) {
    static_assert(band_fuses<B>() && sizeof(B) == sizeof(K), "no fused pass here");
    int64_t from = 0;
#ifdef AXISOPS_BAND_AVX512
    const auto load = fused_load<K>(src, key_of);
    if constexpr (sizeof(K) == 4)
        from = band_detail::pass_avx512_32(load, nullptr, base, count, lo, hi, out_k, out_i,
                                           cap, band, ahead);
    else
        from = band_detail::pass_avx512_64(load, nullptr, base, count, lo, hi, out_k, out_i,
                                           cap, band, ahead);
#endif
    K tail[64];
    for (int64_t j = from; j < count; ++j) tail[j - from] = K(key_of(src[j]));
    band_detail::pass_scalar(tail, static_cast<const uint32_t*>(nullptr), uint32_t(base + from),
                             0, count - from, lo, hi, out_k, out_i, cap, band, ahead);
}

// Counters as wide as the keys, so the counting loops vectorise lane for lane (the arrays
// counted hold fewer than 2^32 keys).
template <class K>
using Counter = std::conditional_t<(sizeof(K) == 8), uint64_t, uint32_t>;

template <class K>
inline int64_t count_le(const K* keys, int64_t m, K t) {
    Counter<K> c = 0;
    for (int64_t j = 0; j < m; ++j) c += Counter<K>(keys[j] <= t);
    return int64_t(c);
}

template <class K>
inline int64_t count_lt(const K* keys, int64_t m, K t) {
    Counter<K> c = 0;
    for (int64_t j = 0; j < m; ++j) c += Counter<K>(keys[j] < t);
    return int64_t(c);
}

template <class K>
inline int64_t count_eq(const K* keys, int64_t m, K t) {
    Counter<K> c = 0;
    for (int64_t j = 0; j < m; ++j) c += Counter<K>(keys[j] == t);
    return int64_t(c);
}

// The smallest of keys[:m] above v (all ones if none is).
template <class K>
inline K min_above(const K* keys, int64_t m, K v) {
    K best = K(~K(0));
    for (int64_t j = 0; j < m; ++j) {
        const K c = K(keys[j] | K(K(0) - K(keys[j] <= v)));  // all ones at or below v
        best = std::min(best, c);
    }
    return best;
}

// count_le for two thresholds in one pass.
template <class K>
inline void count_le2(const K* keys, int64_t m, K t, K u, int64_t& ct, int64_t& cu) {
    Counter<K> a = 0, b = 0;
    for (int64_t j = 0; j < m; ++j) {
        a += Counter<K>(keys[j] <= t);
        b += Counter<K>(keys[j] <= u);
    }
    ct = int64_t(a);
    cu = int64_t(b);
}

// The position of the j-th (0-based) key equal to v in keys[:m], which holds more than j.
template <class K>
inline int64_t locate_eq(const K* keys, int64_t m, K v, int64_t j) {
    constexpr int64_t BLOCK = 64;
    int64_t at = 0;
    for (; at + BLOCK <= m; at += BLOCK) {  // whole blocks by counting, which vectorises
        const int64_t c = count_eq(keys + at, BLOCK, v);
        if (c > j) break;
        j -= c;
    }
    for (; at < m; ++at) {
        if (keys[at] == v) {
            if (j == 0) return at;
            --j;
        }
    }
    throw std::logic_error("axisops internal error: fewer equal keys than counted");
}

template <class K>
inline void key_range(const K* keys, int64_t m, K& lo, K& hi) {
    K a = K(~K(0)), b = K(0);
    for (int64_t j = 0; j < m; ++j) {
        a = keys[j] < a ? keys[j] : a;
        b = keys[j] > b ? keys[j] : b;
    }
    lo = a;
    hi = b;
}

}  // namespace AXISOPS_ISA_NS
}  // namespace axisops
