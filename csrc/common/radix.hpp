// Least-significant-digit radix sorts of order keys: stable, 8-bit digits, a digit every
// key shares skipped. Sorting keys ascending is the stable order (equal keys keep their
// index order); kernels that want "largest first" sort the complemented keys.
//
// Two forms:
// - words: keys of up to 32 bits travel in the top half of a 64-bit word whose low half is
//   a payload (the index, or the element's own bits); one array moves per pass;
// - pairs: any key width, a key array and a payload array moved together.
// The histograms of every digit are counted in the pass that builds the words (or reads the
// keys), so each digit then costs one scatter pass.
#pragma once

#include "common/isa.hpp"

#include <algorithm>
#include <cstdint>
#include <utility>

namespace axisops {
namespace AXISOPS_ISA_NS {
namespace radix {

constexpr int DIGIT_BITS = 8;
constexpr int BUCKETS = 1 << DIGIT_BITS;

// counts[b] becomes the number of keys with a smaller digit than b.
inline void exclusive_prefix(int64_t* counts) {
    int64_t total = 0;
    for (int b = 0; b < BUCKETS; ++b) {
        const int64_t c = counts[b];
        counts[b] = total;
        total += c;
    }
}

// a[j] = key[j] << 32 | low(j), and the histograms of each of the key's digits
// (hist: sizeof(U) * BUCKETS counters, zeroed here).
template <class U, class Low>
inline void pack_words(const U* keys, int64_t n, Low low, uint64_t* a, int64_t* hist) {
    static_assert(sizeof(U) <= 4, "words hold keys of up to 32 bits");
    constexpr int width = int(sizeof(U));
    std::fill(hist, hist + width * BUCKETS, int64_t(0));
    for (int64_t j = 0; j < n; ++j) {
        const U key = keys[j];
        a[j] = (uint64_t(key) << 32) | uint64_t(low(j));
        for (int d = 0; d < width; ++d) ++hist[d * BUCKETS + ((key >> (8 * d)) & 0xFF)];
    }
}

// Sorts words a[:n] (n >= 1) by their top `width` key bytes, stable, with the histograms
// pack_words counted; returns the sorted array (a or b).
template <int width>
inline uint64_t* sort_words(uint64_t* a, uint64_t* b, int64_t n, int64_t* hist) {
    uint64_t* src = a;
    uint64_t* dst = b;
    const uint64_t first = a[0] >> 32;
    for (int d = 0; d < width; ++d) {
        int64_t* counts = hist + d * BUCKETS;
        if (counts[(first >> (8 * d)) & 0xFF] == n) continue;  // every key shares this digit
        exclusive_prefix(counts);
        const int shift = 32 + 8 * d;
        for (int64_t j = 0; j < n; ++j) {
            const uint64_t w = src[j];
            dst[counts[(w >> shift) & 0xFF]++] = w;
        }
        std::swap(src, dst);
    }
    return src;
}

// Sorts key << 32 | index words by key (n >= 1); returns the sorted array (a or b).
template <class U>
uint64_t* sort_packed(const U* keys, int64_t n, uint64_t* a, uint64_t* b, int64_t* hist) {
    pack_words(keys, n, [](int64_t j) { return uint64_t(j); }, a, hist);
    return sort_words<int(sizeof(U))>(a, b, n, hist);
}

// Sorts (key, payload) pairs by key, stable (n >= 1); returns the sorted payloads (pay_a
// or pay_b), with their keys in the matching keys_a or keys_b.
template <class U, class P>
P* sort_pairs(U* keys_a, U* keys_b, P* pay_a, P* pay_b, int64_t n, int64_t* hist) {
    constexpr int width = int(sizeof(U));
    std::fill(hist, hist + width * BUCKETS, int64_t(0));
    for (int64_t j = 0; j < n; ++j) {
        const U key = keys_a[j];
        for (int d = 0; d < width; ++d) ++hist[d * BUCKETS + ((key >> (8 * d)) & 0xFF)];
    }
    U* sk = keys_a;
    U* dk = keys_b;
    P* sp = pay_a;
    P* dp = pay_b;
    for (int d = 0; d < width; ++d) {
        int64_t* counts = hist + d * BUCKETS;
        if (counts[(sk[0] >> (8 * d)) & 0xFF] == n) continue;
        exclusive_prefix(counts);
        for (int64_t j = 0; j < n; ++j) {
            const U key = sk[j];
            const int64_t pos = counts[(key >> (8 * d)) & 0xFF]++;
            dk[pos] = key;
            dp[pos] = sp[j];
        }
        std::swap(sk, dk);
        std::swap(sp, dp);
    }
    return sp;
}

}  // namespace radix
}  // namespace AXISOPS_ISA_NS
}  // namespace axisops
