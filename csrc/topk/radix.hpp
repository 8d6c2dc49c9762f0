// The radix strategy: large k, up to a full sort.
//
// Each sequence's keys go to a tile and are sorted by a least-significant-digit radix sort
// with 8-bit digits, which is stable, so equal keys keep index order: sorting the
// complemented keys ascending lists the best first, ties by lower index. Keys of up to 32
// bits travel with their index in one 64-bit word; a digit every key shares is skipped.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/order.hpp"
#include "topk/request.hpp"

namespace axisops {

namespace radix_detail {

inline void exclusive_prefix(int64_t* counts) {
    int64_t total = 0;
    for (int b = 0; b < 256; ++b) {
        const int64_t c = counts[b];
        counts[b] = total;
        total += c;
    }
}

// Sorts key << 32 | index words by key (LSD, stable); returns the sorted array (a or b).
template <class U>
uint64_t* sort_packed(const U* keys, int64_t n, uint64_t* a, uint64_t* b, int64_t* hist) {
    constexpr int width = int(sizeof(U));
    std::fill(hist, hist + width * 256, int64_t(0));
    for (int64_t j = 0; j < n; ++j) {
        const U key = keys[j];
        a[j] = (uint64_t(key) << 32) | uint64_t(j);
        for (int d = 0; d < width; ++d) ++hist[d * 256 + ((key >> (8 * d)) & 0xFF)];
    }
    uint64_t* src = a;
    uint64_t* dst = b;
    const uint64_t first = keys[0];
    for (int d = 0; d < width; ++d) {
        int64_t* counts = hist + d * 256;
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

// Sorts (key, index) pairs by key (LSD, stable); returns the sorted indices.
template <class U>
int64_t* sort_pairs(U* keys_a, int64_t n, U* keys_b, int64_t* idx_a, int64_t* idx_b,
                    int64_t* hist) {
    constexpr int width = int(sizeof(U));
    std::fill(hist, hist + width * 256, int64_t(0));
    for (int64_t j = 0; j < n; ++j) {
        const U key = keys_a[j];
        idx_a[j] = j;
        for (int d = 0; d < width; ++d) ++hist[d * 256 + ((key >> (8 * d)) & 0xFF)];
    }
    U* sk = keys_a;
    U* dk = keys_b;
    int64_t* si = idx_a;
    int64_t* di = idx_b;
    for (int d = 0; d < width; ++d) {
        int64_t* counts = hist + d * 256;
        if (counts[(sk[0] >> (8 * d)) & 0xFF] == n) continue;
        exclusive_prefix(counts);
        for (int64_t j = 0; j < n; ++j) {
            const U key = sk[j];
            const int64_t pos = counts[(key >> (8 * d)) & 0xFF]++;
            dk[pos] = key;
            di[pos] = si[j];
        }
        std::swap(sk, dk);
        std::swap(si, di);
    }
    return si;
}

}  // namespace radix_detail

// The radix strategy for sequences q0 .. q1-1: a stable LSD sort of each, best first.
template <class KeyT>
void topk_radix_rows(const TopKJob<KeyT>& job, int64_t q0, int64_t q1) {
    using U = typename KeyT::type;
    const Sequences& s = job.seqs;
    const int64_t n = s.n, k = job.k;
    constexpr bool packed = sizeof(U) <= 4;
    std::vector<U> tile(static_cast<std::size_t>(n));
    std::vector<U> keys_b(packed ? 0 : size_t(n));
    std::vector<int64_t> idx_a(packed ? 0 : size_t(n)), idx_b(packed ? 0 : size_t(n));
    std::vector<uint64_t> words_a(packed ? size_t(n) : 0), words_b(packed ? size_t(n) : 0);
    std::vector<int64_t> hist(sizeof(U) * 256);
    std::vector<int64_t> best(packed ? size_t(k) : 0);
    // Ascending order of the complemented key is best first, ties by index.
    const U inverse = U(~job.flip);
    for (int64_t q = q0; q < q1; ++q) {
        fill_keys<KeyT>(job.seq(q), s.stride, n, inverse, tile.data());
        if constexpr (packed) {
            const uint64_t* words = radix_detail::sort_packed(tile.data(), n, words_a.data(),
                                                              words_b.data(), hist.data());
            for (int64_t j = 0; j < k; ++j) best[size_t(j)] = int64_t(words[j] & LOW32);
            job.put_row(q, best.data());
        } else {
            const int64_t* order = radix_detail::sort_pairs(tile.data(), n, keys_b.data(),
                                                            idx_a.data(), idx_b.data(),
                                                            hist.data());
            job.put_row(q, order);
        }
    }
}

}  // namespace axisops
