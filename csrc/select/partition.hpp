// Partition and argpartition with a deterministic order.
//
// For pivots of stable ranks kths[0] < ... < kths[t-1] (each found by selection, kth.hpp),
// position kths[p] receives the pivot itself, and the elements of the ranks between two
// pivots go between their positions in index order: one pass classifies each element by
// how many pivots precede it and appends it to its segment.
//
// Where each segment (or each part's share of it) starts and ends comes from the ranks, or
// from counts of an earlier pass over the input; the placing pass reads the input again.
// If another thread writes to the input between the two, the passes disagree: every write
// position is checked against its segment's end first, and the call then raises
// InputChanged instead of writing past it.
#pragma once

#include "common/isa.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/errors.hpp"
#include "common/order.hpp"
#include "select/band.hpp"
#include "select/rows.hpp"

namespace axisops {
namespace AXISOPS_ISA_NS {

// An element by its key and index.
template <class K>
struct Ranked {
    K key;
    int64_t index;
};

// a comes before b in the stable ascending order: the tie rule (order.hpp's `better`,
// larger key first, lower index first) on complemented keys.
template <class K>
inline bool precedes(K ka, int64_t ia, K kb, int64_t ib) {
    return better(K(~ka), ia, K(~kb), ib);
}

// Where an element goes: the segments between pivots, filled in index order.
struct Segments {
    std::vector<int64_t> kths;  // the pivots' positions (sorted, unique)
    std::vector<int64_t> next;  // per segment s (0..t), its next free position
    std::vector<int64_t> end;   // per segment s, the position after its last one
    bool overflow = false;      // an element found no room: the input changed meanwhile

    Segments(const std::vector<int64_t>& k, int64_t n)
        : kths(k), next(k.size() + 1), end(k.size() + 1) {
        reset(n);
    }
    // Every segment whole, empty (a sequence of n elements).
    void reset(int64_t n) {
        next[0] = 0;
        for (size_t s = 1; s < next.size(); ++s) next[s] = kths[s - 1] + 1;
        for (size_t s = 0; s + 1 < end.size(); ++s) end[s] = kths[s];
        end.back() = n;
        overflow = false;
    }
    // Raises InputChanged if an element found no room.
    void check() const {
        if (overflow) input_changed();
    }
};

// The segment of element (key, i) among pivots piv[:t] (sorted by rank): how many pivots
// precede it; t + 1 + p for pivot p itself.
template <class K>
inline size_t segment_of(const Ranked<K>* piv, size_t t, K key, int64_t i) {
    size_t lo = 0, hi = t;
    while (lo < hi) {  // the first pivot that does not precede the element
        const size_t mid = (lo + hi) / 2;
        if (precedes(piv[mid].key, piv[mid].index, key, i)) lo = mid + 1;
        else hi = mid;
    }
    if (lo < t && piv[lo].index == i) return t + 1 + lo;
    return lo;
}

namespace partition_detail {

// One pivot, elements [begin, begin + len) all on one side of its index: those before it
// precede it when their key is at most the pivot's (`before_pivot`), those after it when
// it is smaller. Preceding elements go to lo, lo + 1, ..., the others to hi, hi + 1, ...
// The two sides' positions: the next free one of each and the end of each.
struct Sides {
    int64_t& lo;
    int64_t& hi;
    int64_t lo_end, hi_end;
    bool& overflow;
};

template <class U, class K>
void split_scalar(const K* keys, int64_t begin, int64_t len, bool before_pivot, K pk,
                  const U* src, int64_t stride, U* ov, int64_t* oi, int64_t row, int64_t step,
                  const Sides& sides) {
    // before_pivot: key <= pk, i.e. key < pk + 1 (pk is not all ones there: see the caller)
    const K bound = before_pivot ? K(pk + 1) : pk;
    const bool all = before_pivot && pk == K(~K(0));
    int64_t a = sides.lo, b = sides.hi;
    for (int64_t j = 0; j < len; ++j) {
        const int64_t i = begin + j;
        const bool first = all || keys[j] < bound;
        const int64_t pos = first ? a : b;
        if (pos >= (first ? sides.lo_end : sides.hi_end)) {
            sides.overflow = true;
            break;
        }
        const int64_t at = row + pos * step;
        if (ov) ov[at] = src[i * stride];
        if (oi) oi[at] = i;
        a += first;
        b += !first;
    }
    sides.lo = a;
    sides.hi = b;
}

#ifdef AXISOPS_BAND_AVX512
// split_scalar for 32-bit elements, unit strides: blocks of 16 compressed into two streams
// with masked stores (exact: nothing is written past a stream's end, and a block that
// would pass a side's end is left to the scalar loop, which stops there). Returns how many
// elements it did.
// `load(j)` gives the keys of elements begin + j .. begin + j + 15 (stored ones, or ones
// computed from the bits on the way).
template <class Load>
inline int64_t split_avx512_32(Load load, int64_t begin, int64_t len, bool before_pivot,
                               uint32_t pk, const uint32_t* src, uint32_t* ov, int64_t* oi,
                               const Sides& sides) {
    const __m512i vpk = _mm512_set1_epi32(int(pk));
    const __m512i iota = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
    int64_t a = sides.lo, b = sides.hi, j = 0;
    for (; j + 16 <= len; j += 16) {
        const __m512i k = load(j);
        const __mmask16 m = before_pivot ? _mm512_cmple_epu32_mask(k, vpk)
                                         : _mm512_cmplt_epu32_mask(k, vpk);
        const __mmask16 nm = __mmask16(~m);
        const int ca = _mm_popcnt_u32(m), cb = 16 - ca;
        if (a + ca > sides.lo_end || b + cb > sides.hi_end) break;
        if (ov) {
            const __m512i v = _mm512_loadu_si512(src + begin + j);
            _mm512_mask_storeu_epi32(ov + a, __mmask16((1u << ca) - 1),
                                     _mm512_maskz_compress_epi32(m, v));
            _mm512_mask_storeu_epi32(ov + b, __mmask16((1u << cb) - 1),
                                     _mm512_maskz_compress_epi32(nm, v));
        }
        if (oi) {
            const __m512i i0 = _mm512_add_epi64(_mm512_set1_epi64(begin + j), iota);
            const __m512i i1 = _mm512_add_epi64(i0, _mm512_set1_epi64(8));
            const __mmask8 m0 = __mmask8(m), m1 = __mmask8(m >> 8);
            const int c0 = _mm_popcnt_u32(m0), d0 = 8 - c0;
            const int c1 = _mm_popcnt_u32(m1), d1 = 8 - c1;
            _mm512_mask_storeu_epi64(oi + a, __mmask8((1u << c0) - 1),
                                     _mm512_maskz_compress_epi64(m0, i0));
            _mm512_mask_storeu_epi64(oi + a + c0, __mmask8((1u << c1) - 1),
                                     _mm512_maskz_compress_epi64(m1, i1));
            _mm512_mask_storeu_epi64(oi + b, __mmask8((1u << d0) - 1),
                                     _mm512_maskz_compress_epi64(__mmask8(~m0), i0));
            _mm512_mask_storeu_epi64(oi + b + d0, __mmask8((1u << d1) - 1),
                                     _mm512_maskz_compress_epi64(__mmask8(~m1), i1));
        }
        a += ca;
        b += cb;
    }
    sides.lo = a;
    sides.hi = b;
    return j;
}

// The same for 64-bit elements, blocks of 8.
template <class Load>
inline int64_t split_avx512_64(Load load, int64_t begin, int64_t len, bool before_pivot,
                               uint64_t pk, const uint64_t* src, uint64_t* ov, int64_t* oi,
                               const Sides& sides) {
    const __m512i vpk = _mm512_set1_epi64(int64_t(pk));
    const __m512i iota = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
    int64_t a = sides.lo, b = sides.hi, j = 0;
    for (; j + 8 <= len; j += 8) {
        const __m512i k = load(j);
        const __mmask8 m = before_pivot ? _mm512_cmple_epu64_mask(k, vpk)
                                        : _mm512_cmplt_epu64_mask(k, vpk);
        const __mmask8 nm = __mmask8(~m);
        const int ca = _mm_popcnt_u32(m), cb = 8 - ca;
        if (a + ca > sides.lo_end || b + cb > sides.hi_end) break;
        const __mmask8 sa = __mmask8((1u << ca) - 1), sb = __mmask8((1u << cb) - 1);
        if (ov) {
            const __m512i v = _mm512_loadu_si512(src + begin + j);
            _mm512_mask_storeu_epi64(ov + a, sa, _mm512_maskz_compress_epi64(m, v));
            _mm512_mask_storeu_epi64(ov + b, sb, _mm512_maskz_compress_epi64(nm, v));
        }
        if (oi) {
            const __m512i i0 = _mm512_add_epi64(_mm512_set1_epi64(begin + j), iota);
            _mm512_mask_storeu_epi64(oi + a, sa, _mm512_maskz_compress_epi64(m, i0));
            _mm512_mask_storeu_epi64(oi + b, sb, _mm512_maskz_compress_epi64(nm, i0));
        }
        a += ca;
        b += cb;
    }
    sides.lo = a;
    sides.hi = b;
    return j;
}

template <class Load, class U>
inline int64_t split_vector(Load load, int64_t begin, int64_t len, bool before_pivot, U pk,
                            const U* src, U* ov, int64_t* oi, const Sides& sides) {
    if constexpr (sizeof(U) == 4)
        return split_avx512_32(load, begin, len, before_pivot, pk, src, ov, oi, sides);
    else
        return split_avx512_64(load, begin, len, before_pivot, pk, src, ov, oi, sides);
}
#endif

template <class U, class K>
void split(const K* keys, int64_t begin, int64_t len, bool before_pivot, K pk, const U* src,
           int64_t stride, U* ov, int64_t* oi, int64_t row, int64_t step, const Sides& sides) {
    int64_t done = 0;
#ifdef AXISOPS_BAND_AVX512
    if constexpr (sizeof(U) == sizeof(K)) {
        if (stride == 1 && step == 1)
            done = split_vector([keys](int64_t j) { return _mm512_loadu_si512(keys + j); }, begin,
                                len, before_pivot, U(pk), src, ov ? ov + row : nullptr,
                                oi ? oi + row : nullptr, sides);
    }
#endif
    split_scalar(keys + done, begin + done, len - done, before_pivot, pk, src, stride, ov, oi,
                 row, step, sides);
}

// split for unit-stride elements of 32 or 64 bits on AVX-512 (band_fuses), their keys
// computed from the bits in registers; `buf` (len keys) serves the tail.
template <class KeyT>
void split_of(const typename KeyT::type* src, typename KeyT::type flip, int64_t begin,
              int64_t len, bool before_pivot, typename KeyT::type pk, typename KeyT::type* ov,
              int64_t* oi, int64_t row, const Sides& sides, Wide<typename KeyT::type>* buf) {
    using U = typename KeyT::type;
    int64_t done = 0;
#ifdef AXISOPS_BAND_AVX512
    static constexpr int lanes = int(64 / sizeof(U));
    const U* at = src + begin;
    auto load = [at, flip](int64_t j) {
        alignas(64) U t[lanes];
        for (int l = 0; l < lanes; ++l) t[l] = KeyT::of(at[j + l], flip);
        return _mm512_load_si512(t);
    };
    done = split_vector(load, begin, len, before_pivot, pk, src, ov ? ov + row : nullptr,
                        oi ? oi + row : nullptr, sides);
#endif
    fill_wide<KeyT>(src + begin + done, 1, len - done, flip, buf);
    split_scalar(buf, begin + done, len - done, before_pivot, Wide<U>(pk), src, int64_t(1), ov,
                 oi, row, int64_t(1), sides);
}

}  // namespace partition_detail

// Writes the partitioned positions of elements [begin, begin + len) of one sequence:
// `keys` their keys, src[i * stride] their bits; `seg` the segments' next positions;
// results to ov/oi (either may be null) at row + position * step.
template <class U, class K>
void partition_span(const K* keys, int64_t begin, int64_t len, const U* src, int64_t stride,
                    const Ranked<K>* piv, Segments& seg, U* ov, int64_t* oi, int64_t row,
                    int64_t step) {
    const size_t t = seg.kths.size();
    if (t == 1) {  // the common case: no search, and branch-free on each side of the pivot
        const partition_detail::Sides sides{seg.next[0], seg.next[1], seg.end[0], seg.end[1],
                                            seg.overflow};
        const int64_t pi = piv[0].index, end = begin + len;
        const int64_t cut = std::min(std::max(pi, begin), end);  // [begin, cut) before pi
        partition_detail::split(keys, begin, cut - begin, true, piv[0].key, src, stride, ov, oi,
                                row, step, sides);
        int64_t from = cut;
        if (cut == pi && pi < end) {
            const int64_t at = row + seg.kths[0] * step;
            if (ov) ov[at] = src[pi * stride];
            if (oi) oi[at] = pi;
            from = pi + 1;
        }
        partition_detail::split(keys + (from - begin), from, end - from, false, piv[0].key, src,
                                stride, ov, oi, row, step, sides);
        return;
    }
    for (int64_t j = 0; j < len; ++j) {
        const int64_t i = begin + j;
        const size_t s = segment_of(piv, t, keys[j], i);
        const int64_t pos = s > t ? seg.kths[s - t - 1] : seg.next[s]++;
        if (s <= t && pos >= seg.end[s]) {
            seg.overflow = true;
            return;
        }
        const int64_t at = row + pos * step;
        if (ov) ov[at] = src[i * stride];
        if (oi) oi[at] = i;
    }
}

// partition_span over elements [begin, begin + len) of src (stride apart), their keys
// computed here: in registers where the split fuses (one pivot, unit strides, 32- or
// 64-bit elements on AVX-512), else widened into `buf` (len keys or more) first.
template <class KeyT>
void partition_span_of(const typename KeyT::type* src, int64_t stride,
                       typename KeyT::type flip, int64_t begin, int64_t len,
                       const Ranked<Wide<typename KeyT::type>>* piv, Segments& seg,
                       typename KeyT::type* ov, int64_t* oi, int64_t row, int64_t step,
                       Wide<typename KeyT::type>* buf) {
    using U = typename KeyT::type;
    if constexpr (band_fuses<U>() && sizeof(U) == sizeof(Wide<U>)) {
        if (seg.kths.size() == 1 && stride == 1 && step == 1) {
            const partition_detail::Sides sides{seg.next[0], seg.next[1], seg.end[0],
                                                seg.end[1], seg.overflow};
            const int64_t pi = piv[0].index, end = begin + len;
            const int64_t cut = std::min(std::max(pi, begin), end);
            const U pk = U(piv[0].key);
            partition_detail::split_of<KeyT>(src, flip, begin, cut - begin, true, pk, ov, oi,
                                             row, sides, buf);
            int64_t from = cut;
            if (cut == pi && pi < end) {
                if (ov) ov[row + seg.kths[0]] = src[pi];
                if (oi) oi[row + seg.kths[0]] = pi;
                from = pi + 1;
            }
            partition_detail::split_of<KeyT>(src, flip, from, end - from, false, pk, ov, oi,
                                             row, sides, buf);
            return;
        }
    }
    fill_wide<KeyT>(src + begin * stride, stride, len, flip, buf);
    partition_span(static_cast<const Wide<U>*>(buf), begin, len, src, stride, piv, seg, ov, oi,
                   row, step);
}

// Counts, per segment, the elements [begin, begin + len) that are not pivots.
template <class K>
void count_segments(const K* keys, int64_t begin, int64_t len, const Ranked<K>* piv, size_t t,
                    int64_t* counts) {
    if (t == 1) {  // those before the pivot's index precede it at equal keys, the others not
        const K pk = piv[0].key;
        const int64_t pi = piv[0].index, end = begin + len;
        const int64_t cut = std::min(std::max(pi, begin), end);
        const int64_t before = cut - begin;
        int64_t first = count_le(keys, before, pk);
        const int64_t from = cut == pi && pi < end ? pi + 1 : cut;
        first += count_lt(keys + (from - begin), end - from, pk);
        counts[0] += first;
        counts[1] += len - (from - cut) - first;
        return;
    }
    for (int64_t j = 0; j < len; ++j) {
        const size_t s = segment_of(piv, t, keys[j], begin + j);
        if (s <= t) ++counts[s];
    }
}

}  // namespace AXISOPS_ISA_NS
}  // namespace axisops
