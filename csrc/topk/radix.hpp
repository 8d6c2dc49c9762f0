// The radix strategy: large k, up to a full sort.
//
// Each sequence's keys go to a tile and are sorted by the least-significant-digit radix sort
// of common/radix.hpp, which is stable, so equal keys keep index order: sorting the
// complemented keys ascending lists the best first, ties by lower index.
#pragma once

#include "common/isa.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "common/order.hpp"
#include "common/radix.hpp"
#include "topk/job.hpp"

namespace axisops {
namespace AXISOPS_ISA_NS {

namespace radix_detail {

// The shared radix sorts (common/radix.hpp), under the names the strategies use.
using radix::exclusive_prefix;
using radix::sort_packed;

// Sorts (key, index) pairs by key (LSD, stable); returns the sorted indices.
template <class U>
int64_t* sort_pairs(U* keys_a, int64_t n, U* keys_b, int64_t* idx_a, int64_t* idx_b,
                    int64_t* hist) {
    for (int64_t j = 0; j < n; ++j) idx_a[j] = j;
    return radix::sort_pairs(keys_a, keys_b, idx_a, idx_b, n, hist);
}

}  // namespace radix_detail

// The radix strategy for sequences q0 .. q1-1: a stable LSD sort of each, best first.
template <class KeyT>
void topk_radix_rows(const TopKJob<KeyT>& job, int64_t q0, int64_t q1) {
    using U = typename KeyT::type;
    const Sequences& s = job.seqs;
    const int64_t n = s.n, k = job.k;
    const bool packed = sizeof(U) <= 4 && n < job.tune.words_max_n;
    std::vector<U> tile(static_cast<std::size_t>(n));
    std::vector<U> keys_b(packed ? 0 : size_t(n));
    std::vector<int64_t> idx_a(packed ? 0 : size_t(n)), idx_b(packed ? 0 : size_t(n));
    std::vector<uint64_t> words_a(packed ? size_t(n) : 0), words_b(packed ? size_t(n) : 0);
    std::vector<int64_t> hist(sizeof(U) * 256);
    std::vector<int64_t> best(packed ? size_t(k) : 0);
    job.trace.mark(packed ? Path::topk_radix_words : Path::topk_radix_pairs);
    // Ascending order of the complemented key is best first, ties by index.
    const U inverse = U(~job.flip);
    for (int64_t q = q0; q < q1; ++q) {
        fill_keys<KeyT>(job.seq(q), s.stride, n, inverse, tile.data());
        if (packed) {
            if constexpr (sizeof(U) <= 4) {
                const uint64_t* words = radix_detail::sort_packed(
                    tile.data(), n, words_a.data(), words_b.data(), hist.data());
                for (int64_t j = 0; j < k; ++j) best[size_t(j)] = int64_t(words[j] & LOW32);
                job.put_row(q, best.data());
            }
        } else {
            const int64_t* order = radix_detail::sort_pairs(tile.data(), n, keys_b.data(),
                                                            idx_a.data(), idx_b.data(),
                                                            hist.data());
            job.put_row(q, order);
        }
    }
}

}  // namespace AXISOPS_ISA_NS
}  // namespace axisops
