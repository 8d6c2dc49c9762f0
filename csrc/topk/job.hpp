// A top-k request as the strategies see it: where the sequences are, where results go.

// Where a top-k's indices go: int64, or int32 when the caller asked for them (below 2^31,
// checked by the caller), written in place rather than converted after the call.
struct IndexOut {
    int64_t* i64 = nullptr;
    int32_t* i32 = nullptr;

    void set(int64_t at, int64_t i) const {
        if (i32) i32[at] = int32_t(i);
        else i64[at] = i;
    }
    // out[at + j] = idx[j] for j < count.
    void copy(int64_t at, const int64_t* idx, int64_t count) const {
        if (i32) {
            for (int64_t j = 0; j < count; ++j) i32[at + j] = int32_t(idx[j]);
        } else {
            for (int64_t j = 0; j < count; ++j) i64[at + j] = idx[j];
        }
    }
};
#pragma once

#include <cstdint>

#include "common/isa.hpp"
#include "common/keys.hpp"
#include "common/layout.hpp"
#include "common/tuning.hpp"
#include "topk/request.hpp"

namespace axisops {
namespace AXISOPS_ISA_NS {

// What a strategy works with, for one key type. Sequence q's result j is element i:
// `put(q, j, i)` writes the element's own bits (so NaN payloads and -0.0 survive) and i.
template <class KeyT>
struct TopKJob {
    using U = typename KeyT::type;

    const Sequences& seqs;
    int64_t k;
    U flip;  // XORed into every key: all ones for "smallest first"
    bool sorted;
    int threads;
    int64_t segment;
    U* out_vals;
    IndexOut out_idx;
    const Tuning& tune;
    Trace& trace;

    U key(U bits) const { return KeyT::of(bits, flip); }
    const U* seq(int64_t q) const { return seqs.at<U>(q); }

    // Where result j of sequence q goes in the (outer, k, inner) outputs.
    int64_t out_at(int64_t q, int64_t j) const {
        if (seqs.inner == 1) return q * k + j;
        const int64_t o = q / seqs.inner;
        return (o * k + j) * seqs.inner + (q - o * seqs.inner);
    }
    void put(int64_t q, int64_t j, int64_t i) const {
        const int64_t at = out_at(q, j);
        out_vals[at] = seq(q)[i * seqs.stride];
        out_idx.set(at, i);
    }
    void put_row(int64_t q, const int64_t* idx) const {
        const U* src = seq(q);
        if (seqs.inner == 1) {
            U* v = out_vals + q * k;
            for (int64_t j = 0; j < k; ++j) v[j] = src[idx[j] * seqs.stride];
            out_idx.copy(q * k, idx, k);
        } else {
            for (int64_t j = 0; j < k; ++j) {
                const int64_t at = out_at(q, j);
                out_vals[at] = src[idx[j] * seqs.stride];
                out_idx.set(at, idx[j]);
            }
        }
    }
};

// Fills out[i] = key(src[i * stride]) for i < count (a loop per stride kind vectorises).
template <class KeyT>
inline void fill_keys(const typename KeyT::type* src, int64_t stride, int64_t count,
                      typename KeyT::type flip, typename KeyT::type* out) {
    using U = typename KeyT::type;
    if (stride == 1) {
        for (int64_t i = 0; i < count; ++i) out[i] = KeyT::of(src[i], flip);
    } else if (stride == 0) {
        const U key = count > 0 ? KeyT::of(src[0], flip) : U(0);
        for (int64_t i = 0; i < count; ++i) out[i] = key;
    } else {
        for (int64_t i = 0; i < count; ++i) out[i] = KeyT::of(src[i * stride], flip);
    }
}

// acc[i] = max(acc[i], key(src[i])) for i < count (unit stride): keys are never stored.
template <class KeyT>
inline void max_keys_into(const typename KeyT::type* src, int64_t count,
                          typename KeyT::type flip, typename KeyT::type* acc) {
    for (int64_t i = 0; i < count; ++i) {
        const auto key = KeyT::of(src[i], flip);
        acc[i] = acc[i] > key ? acc[i] : key;
    }
}

}  // namespace AXISOPS_ISA_NS
}  // namespace axisops
