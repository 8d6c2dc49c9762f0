// Several key bands in one pass (the quantiles of one long sequence): for every band
// [lo, hi], the keys below it and in it are counted, and every key that lies in any band is
// appended once, with its index, to one candidate buffer (the bands' union, in index order),
// from which each band's candidates are taken afterwards by band_pass. Per vector of keys
// that is two compares and two counter updates per band but one compression and one store
// for all of them, so a pass with three bands costs about a third more than a pass with
// one, not three times as much (measured: 10M float32 keys on one Zen 4 thread, three
// bands 3.9-4.1 ms, one band 2.5-3.0 ms, three one-band passes 7.5 ms).
//
// As band_pass: AVX-512 (32- and 64-bit keys, or keys computed from the elements' bits on
// the way), AVX2 (32-bit keys, the compression by a permutation from a table) and a plain
// loop elsewhere; every path counts and stores the same.
#pragma once

#include "common/isa.hpp"

#include <cstdint>
#include <type_traits>

#include "select/band.hpp"

// Loops over the bands unrolled whole, so their registers stay registers (GCC at -O2 keeps
// a loop of a constant four trips, and its arrays on the stack).
#if defined(__clang__)
#define AXISOPS_UNROLL_BANDS _Pragma("clang loop unroll(full)")
#elif defined(__GNUC__)
#define AXISOPS_UNROLL_BANDS _Pragma("GCC unroll 4")
#else
#define AXISOPS_UNROLL_BANDS
#endif

namespace axisops {
namespace AXISOPS_ISA_NS {

// The most bands a pass takes (the tuning's select_bands_max is at most this): the vector
// passes are compiled for each count up to it, so that the bands' bounds and counters stay
// in registers (with a count known only at run time they live on the stack, and each
// counter's update waits for its store: 10M float32 keys, three bands, one thread,
// 4.0 -> 7.2 ms).
constexpr int BANDS_MAX = 4;

// Bands and their counts: below[b] keys below lo[b], in[b] in [lo[b], hi[b]]; `stored`
// keys of their union appended (or counted, past `cap`).
template <class K>
struct BandSet {
    int count = 0;
    K lo[BANDS_MAX] = {};
    K hi[BANDS_MAX] = {};
    int64_t below[BANDS_MAX] = {};
    int64_t in[BANDS_MAX] = {};
    int64_t stored = 0;
};

namespace bands_detail {

// The plain pass over keys[from:count] (indices base + j); the tail of the vector ones.
template <class K>
inline void pass_scalar(const K* keys, uint32_t base, int64_t from, int64_t count,
                        BandSet<K>& set, K* out_k, uint32_t* out_i, int64_t cap) {
    int64_t m = set.stored;
    for (int64_t j = from; j < count; ++j) {
        const K key = keys[j];
        bool any = false;
        for (int b = 0; b < set.count; ++b) {
            const bool in = K(key - set.lo[b]) <= K(set.hi[b] - set.lo[b]);
            set.below[b] += key < set.lo[b];
            set.in[b] += in;
            any = any || in;
        }
        const int64_t at = m < cap ? m : cap;  // the slot at cap is a spare one
        out_k[at] = key;
        out_i[at] = uint32_t(base + uint32_t(j));
        m += any;
    }
    set.stored = m;
}

#ifdef AXISOPS_BAND_AVX512
// The sum of a vector's counters (lanes of type L).
template <class L>
inline int64_t lane_sum(__m512i v) {
    alignas(64) L lanes[64 / sizeof(L)];
    _mm512_store_si512(lanes, v);
    int64_t s = 0;
    for (L l : lanes) s += int64_t(l);
    return s;
}

template <int g, class Load>
inline int64_t pass_avx512_32(Load load, uint32_t base, int64_t count, BandSet<uint32_t>& set,
                              uint32_t* out_k, uint32_t* out_i, int64_t cap, Ahead& ahead) {
    __m512i lo[g], range[g], below[g], in[g];
    AXISOPS_UNROLL_BANDS
    for (int b = 0; b < g; ++b) {
        lo[b] = _mm512_set1_epi32(int(set.lo[b]));
        range[b] = _mm512_set1_epi32(int(set.hi[b] - set.lo[b]));
        below[b] = in[b] = _mm512_setzero_si512();
    }
    const __m512i one = _mm512_set1_epi32(1), step = _mm512_set1_epi32(16);
    __m512i vidx = _mm512_add_epi32(_mm512_set1_epi32(int(base)),
                                    _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
                                                      12, 13, 14, 15));
    int64_t m = set.stored;
    Ahead pre = ahead;  // a local copy: the vector stores may alias anything
    int64_t j = 0;
    for (; j + 16 <= count; j += 16) {
        const __m512i k = load(j);
        __mmask16 any = 0;
        AXISOPS_UNROLL_BANDS
        for (int b = 0; b < g; ++b) {
            const __mmask16 lt = _mm512_cmplt_epu32_mask(k, lo[b]);
            const __mmask16 hit = _mm512_cmple_epu32_mask(_mm512_sub_epi32(k, lo[b]), range[b]);
            below[b] = _mm512_mask_add_epi32(below[b], lt, below[b], one);
            in[b] = _mm512_mask_add_epi32(in[b], hit, in[b], one);
            any = __mmask16(any | hit);
        }
        if (m <= cap) {
            _mm512_storeu_si512(out_k + m, _mm512_maskz_compress_epi32(any, k));
            _mm512_storeu_si512(out_i + m, _mm512_maskz_compress_epi32(any, vidx));
        }
        m += _mm_popcnt_u32(any);
        vidx = _mm512_add_epi32(vidx, step);
        pre.next();
    }
    for (int b = 0; b < g; ++b) {
        set.below[b] += lane_sum<uint32_t>(below[b]);
        set.in[b] += lane_sum<uint32_t>(in[b]);
    }
    set.stored = m;
    ahead = pre;
    return j;
}

template <int g, class Load>
inline int64_t pass_avx512_64(Load load, uint32_t base, int64_t count, BandSet<uint64_t>& set,
                              uint64_t* out_k, uint32_t* out_i, int64_t cap, Ahead& ahead) {
    __m512i lo[g], range[g], below[g], in[g];
    AXISOPS_UNROLL_BANDS
    for (int b = 0; b < g; ++b) {
        lo[b] = _mm512_set1_epi64(int64_t(set.lo[b]));
        range[b] = _mm512_set1_epi64(int64_t(set.hi[b] - set.lo[b]));
        below[b] = in[b] = _mm512_setzero_si512();
    }
    const __m512i one = _mm512_set1_epi64(1);
    const __m256i step = _mm256_set1_epi32(8);
    __m256i vidx = _mm256_add_epi32(_mm256_set1_epi32(int(base)),
                                    _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    int64_t m = set.stored;
    Ahead pre = ahead;
    int64_t j = 0;
    for (; j + 8 <= count; j += 8) {
        const __m512i k = load(j);
        __mmask8 any = 0;
        AXISOPS_UNROLL_BANDS
        for (int b = 0; b < g; ++b) {
            const __mmask8 lt = _mm512_cmplt_epu64_mask(k, lo[b]);
            const __mmask8 hit = _mm512_cmple_epu64_mask(_mm512_sub_epi64(k, lo[b]), range[b]);
            below[b] = _mm512_mask_add_epi64(below[b], lt, below[b], one);
            in[b] = _mm512_mask_add_epi64(in[b], hit, in[b], one);
            any = __mmask8(any | hit);
        }
        if (m <= cap) {
            _mm512_storeu_si512(out_k + m, _mm512_maskz_compress_epi64(any, k));
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(out_i + m),
                                _mm256_maskz_compress_epi32(any, vidx));
        }
        m += _mm_popcnt_u32(any);
        vidx = _mm256_add_epi32(vidx, step);
        pre.next();
    }
    for (int b = 0; b < g; ++b) {
        set.below[b] += lane_sum<uint64_t>(below[b]);
        set.in[b] += lane_sum<uint64_t>(in[b]);
    }
    set.stored = m;
    ahead = pre;
    return j;
}
#endif

#ifdef AXISOPS_BAND_AVX2
// 32-bit keys, 8 at a time (unsigned compares as signed ones on keys with the sign bit
// flipped); the counters count down by the compares' all-ones lanes.
template <int g>
inline int64_t pass_avx2(const uint32_t* keys, uint32_t base, int64_t count,
                         BandSet<uint32_t>& set, uint32_t* out_k, uint32_t* out_i, int64_t cap,
                         Ahead& ahead) {
    const __m256i sign = _mm256_set1_epi32(int(0x80000000u));
    __m256i lo[g], lo_s[g], range_s[g], below[g], out[g];
    AXISOPS_UNROLL_BANDS
    for (int b = 0; b < g; ++b) {
        lo[b] = _mm256_set1_epi32(int(set.lo[b]));
        lo_s[b] = _mm256_xor_si256(lo[b], sign);
        range_s[b] = _mm256_set1_epi32(int((set.hi[b] - set.lo[b]) ^ 0x80000000u));
        below[b] = out[b] = _mm256_setzero_si256();
    }
    const __m256i step = _mm256_set1_epi32(8), ones = _mm256_set1_epi32(-1);
    __m256i vidx = _mm256_add_epi32(_mm256_set1_epi32(int(base)),
                                    _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    int64_t m = set.stored;
    Ahead pre = ahead;
    int64_t j = 0;
    for (; j + 8 <= count; j += 8) {
        const __m256i k = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(keys + j));
        const __m256i k_s = _mm256_xor_si256(k, sign);
        __m256i none = ones;  // lanes in no band
        AXISOPS_UNROLL_BANDS
        for (int b = 0; b < g; ++b) {
            const __m256i t_s = _mm256_xor_si256(_mm256_sub_epi32(k, lo[b]), sign);
            const __m256i outside = _mm256_cmpgt_epi32(t_s, range_s[b]);
            below[b] = _mm256_sub_epi32(below[b], _mm256_cmpgt_epi32(lo_s[b], k_s));
            out[b] = _mm256_sub_epi32(out[b], outside);
            none = _mm256_and_si256(none, outside);
        }
        const int any = ~_mm256_movemask_ps(_mm256_castsi256_ps(none)) & 0xFF;
        if (m <= cap) {
            const __m256i perm = _mm256_cvtepu8_epi32(
                _mm_cvtsi64_si128(static_cast<long long>(band_detail::KEEP.lanes[any])));
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(out_k + m),
                                _mm256_permutevar8x32_epi32(k, perm));
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(out_i + m),
                                _mm256_permutevar8x32_epi32(vidx, perm));
        }
        m += _mm_popcnt_u32(unsigned(any));
        vidx = _mm256_add_epi32(vidx, step);
        if ((j & 15) == 0) pre.next();
    }
    auto sum = [](__m256i v) {
        alignas(32) uint32_t lanes[8];
        _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), v);
        int64_t s = 0;
        for (uint32_t l : lanes) s += l;
        return s;
    };
    for (int b = 0; b < g; ++b) {
        set.below[b] += sum(below[b]);
        set.in[b] += j - sum(out[b]);
    }
    set.stored = m;
    ahead = pre;
    return j;
}
#endif

// f(std::integral_constant<int, g>) for the set's count g of bands, 2 to BANDS_MAX.
template <class F>
inline int64_t by_count(int g, F&& f) {
    static_assert(BANDS_MAX == 4, "one case per count");
    switch (g) {
        case 2: return f(std::integral_constant<int, 2>());
        case 3: return f(std::integral_constant<int, 3>());
        default: return f(std::integral_constant<int, 4>());
    }
}

#ifdef AXISOPS_BAND_AVX512
// The AVX-512 pass of the set's count of bands, for its key width.
template <class K, class Load>
inline int64_t pass_avx512(Load load, uint32_t base, int64_t count, BandSet<K>& set, K* out_k,
                           uint32_t* out_i, int64_t cap, Ahead& ahead) {
    return by_count(set.count, [&](auto g) {
        if constexpr (sizeof(K) == 4)
            return pass_avx512_32<g()>(load, base, count, set, out_k, out_i, cap, ahead);
        else
            return pass_avx512_64<g()>(load, base, count, set, out_k, out_i, cap, ahead);
    });
}
#endif

}  // namespace bands_detail

// Counts keys[:count] against every band of `set` and appends those in any band (key and
// index base + j) to out_k/out_i at set.stored while that is at most cap; out_k/out_i hold
// cap + BAND_SLACK slots.
template <class K>
inline void bands_pass(const K* keys, uint32_t base, int64_t count, BandSet<K>& set, K* out_k,
                       uint32_t* out_i, int64_t cap, Ahead& ahead) {
    int64_t from = 0;
#if defined(AXISOPS_BAND_AVX512)
    const auto load = [keys](int64_t j) { return _mm512_loadu_si512(keys + j); };
    from = bands_detail::pass_avx512(load, base, count, set, out_k, out_i, cap, ahead);
#elif defined(AXISOPS_BAND_AVX2)
    if constexpr (sizeof(K) == 4)
        from = bands_detail::by_count(set.count, [&](auto g) {
            return bands_detail::pass_avx2<g()>(keys, base, count, set, out_k, out_i, cap, ahead);
        });
#else
    (void)ahead;  // the plain loop reads nothing ahead
#endif
    bands_detail::pass_scalar(keys, base, from, count, set, out_k, out_i, cap);
}

// bands_pass over the keys key_of(src[j]) of count unit-stride elements, computed in
// registers (only where band_fuses<B>(), as band_pass_of).
template <class K, class B, class KeyOf>
inline void bands_pass_of(const B* src, KeyOf key_of, uint32_t base, int64_t count,
                          BandSet<K>& set, K* out_k, uint32_t* out_i, int64_t cap,
                          Ahead& ahead) {
    static_assert(band_fuses<B>() && sizeof(B) == sizeof(K), "no fused pass here");
    int64_t from = 0;
#ifdef AXISOPS_BAND_AVX512
    from = bands_detail::pass_avx512(fused_load<K>(src, key_of), base, count, set, out_k,
                                     out_i, cap, ahead);
#endif
    K tail[64];
    for (int64_t j = from; j < count; ++j) tail[j - from] = K(key_of(src[j]));
    bands_detail::pass_scalar(tail, uint32_t(base + from), 0, count - from, set, out_k, out_i,
                              cap);
}

}  // namespace AXISOPS_ISA_NS
}  // namespace axisops
