// The plain references: the contract's order (written from its definition, not from the
// core's keys.hpp) and a std::stable_sort by it.
//
// Order: integers by value (bool: any non-zero byte is True, above False); floats by
// value with -0.0 equal to +0.0, and every NaN (either sign, any payload) above +inf and
// equal to every other NaN. Ties go to the lower index in both directions.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include "arrays.hpp"

namespace fuzz {

struct RefKey {
    bool nan = false;
    double f = 0;    // floats
    __int128 i = 0;  // integers and bool

    bool operator<(const RefKey& o) const {
        if (nan != o.nan) return o.nan;
        if (f != o.f) return f < o.f;
        return i < o.i;
    }
};

inline double half_value(uint16_t h) {
    const int e = (h >> 10) & 31, m = h & 1023;
    double v;
    if (e == 0) v = std::ldexp(double(m), -24);
    else if (e == 31) v = m ? std::nan("") : INFINITY;
    else v = std::ldexp(double(1024 + m), e - 25);
    return (h & 0x8000) ? -v : v;
}

inline RefKey ref_key(Dtype d, uint64_t bits) {
    RefKey k;
    switch (d.kind) {
        case Kind::Unsigned: k.i = __int128(bits); break;
        case Kind::Signed: {
            const int shift = 64 - 8 * d.itemsize;  // sign-extend
            k.i = __int128(int64_t(bits << shift) >> shift);
            break;
        }
        case Kind::Bool: k.i = bits != 0; break;
        case Kind::BFloat:
        case Kind::Float: {
            double v;
            if (d.kind == Kind::BFloat) {
                const uint32_t w = uint32_t(bits) << 16;
                float f;
                std::memcpy(&f, &w, 4);
                v = f;
            } else if (d.itemsize == 2) {
                v = half_value(uint16_t(bits));
            } else if (d.itemsize == 4) {
                const uint32_t w = uint32_t(bits);
                float f;
                std::memcpy(&f, &w, 4);
                v = f;
            } else {
                std::memcpy(&v, &bits, 8);
            }
            k.nan = std::isnan(v);
            k.f = k.nan ? 0.0 : v;
            break;
        }
    }
    return k;
}

// The keys of sequence q of `a` along the axis (`s` from seqs_of).
inline std::vector<RefKey> seq_keys(const Array& a, Dtype d, const Seqs& s, int64_t q) {
    std::vector<RefKey> keys(size_t(s.n));
    for (int64_t i = 0; i < s.n; ++i)
        keys[size_t(i)] = ref_key(d, a.bits(s.offsets[size_t(q)] + i * s.stride));
    return keys;
}

// Indices 0..n-1 in the stable order: ascending, or largest first (ties: lower index
// first either way).
inline std::vector<int64_t> stable_order(const std::vector<RefKey>& keys, bool largest_first) {
    std::vector<int64_t> idx(keys.size());
    std::iota(idx.begin(), idx.end(), int64_t(0));
    std::stable_sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) {
        return largest_first ? keys[size_t(b)] < keys[size_t(a)] : keys[size_t(a)] < keys[size_t(b)];
    });
    return idx;
}

// Partition's expected index order: position kths[p] holds the element of stable rank
// kths[p]; between two kths (and before the first, after the last) the elements of the
// ranks in between, in index order.
inline std::vector<int64_t> partition_order(const std::vector<int64_t>& ranked,
                                            const std::vector<int64_t>& kths) {
    std::vector<int64_t> out(ranked);
    int64_t from = 0;
    for (size_t p = 0; p <= kths.size(); ++p) {
        const int64_t to = p < kths.size() ? kths[p] : int64_t(out.size());
        std::sort(out.begin() + from, out.begin() + to);
        from = to + 1;
    }
    return out;
}

}  // namespace fuzz
