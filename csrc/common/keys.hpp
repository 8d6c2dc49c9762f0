// Order keys: every dtype mapped to an unsigned integer of its width whose unsigned order is
// the contract's order, so one kernel per key width serves every dtype.
//
// - unsigned integers: the bits as they are;
// - signed integers: the bits with the sign bit flipped (INT_MIN is the smallest key);
// - bool: 0 for False, the top bit for True (any non-zero byte is True);
// - floats (float16, bfloat16, float32, float64): negative values have every bit flipped,
//   positive values the sign bit set; -0.0 gets +0.0's key and every NaN the largest key.
//
// "Smallest first" is "largest first" on the complement of the key (XOR with `flip`), so
// kernels only ever look for the largest keys.
#pragma once

#include <cstdint>
#include <type_traits>

#include "common/isa.hpp"
#include "common/kind.hpp"

namespace axisops {
namespace AXISOPS_ISA_NS {


template <class U>
struct Bits {
    static_assert(std::is_unsigned_v<U>, "keys are unsigned");
    static constexpr int width = int(sizeof(U)) * 8;
    static constexpr U sign = U(U(1) << (width - 1));
    static constexpr U ones = U(~U(0));
    static constexpr U absmask = U(sign - 1);
};

// The absolute bits at and above which a float is NaN (the exponent all ones is +inf).
template <class U, Kind K>
constexpr U nan_bound() {
    if constexpr (K == Kind::BFloat) return U(0x7F80);
    else if constexpr (sizeof(U) == 2) return U(0x7C00);
    else if constexpr (sizeof(U) == 4) return U(0x7F800000u);
    else return U(0x7FF0000000000000ull);
}

// A key type: `U` the element's bits, `K` how they order. `key(u)` is branch-free so loops
// over it vectorise.
template <class U, Kind K>
struct Key {
    using type = U;
    static constexpr Kind kind = K;
    static constexpr U sign = Bits<U>::sign;
    static constexpr U ones = Bits<U>::ones;

    static inline U of(U u) {
        if constexpr (K == Kind::Float || K == Kind::BFloat) {
            constexpr U absmask = Bits<U>::absmask;
            constexpr U nanbound = nan_bound<U, K>();
            // u XOR (all ones where u is negative, else the sign bit): every bit of a negative
            // value flipped, the sign bit of the others set. -0.0 (u == sign) comes out as
            // absmask, one below +0.0's key, and is moved up to it. As plain arithmetic
            // (a shift, no select on the sign) this keeps the maxima passes 10-25% faster with
            // AVX-512 and 50-60% with AVX2 or SSE4 than selects did (same keys: every 16-bit
            // pattern checked, and 10M random 32- and 64-bit ones).
            const U negative = U(U(0) - U(u >> (Bits<U>::width - 1)));
            U k = U(u ^ U(negative | sign));
            k = U(k + U(u == sign));
            return U(u & absmask) > nanbound ? ones : k;
        } else if constexpr (K == Kind::Signed) {
            return U(u ^ sign);
        } else if constexpr (K == Kind::Bool) {
            return u != 0 ? sign : U(0);
        } else {
            return u;
        }
    }
    // The key XORed with `flip`: all ones for "smallest first", zero for "largest first".
    static inline U of(U u, U flip) { return U(of(u) ^ flip); }

    // Whether a key is the key of exactly one bit pattern: every key but a float's zero key
    // (-0.0 and +0.0) and its NaN key (every NaN); no bool key (any non-zero byte is True).
    static constexpr bool invertible = K != Kind::Bool;
    // The bits whose key is k (for an ambiguous key, +0.0 or one NaN): of's inverse.
    static inline U bits(U k) {
        if constexpr (K == Kind::Float || K == Kind::BFloat) {
            return (k & sign) ? U(k ^ sign) : U(~k);
        } else {
            return k;
        }
    }
};

// Calls `f(Key<U, K>{}, flip)` for the runtime (itemsize, kind) pair; false if there is
// none. A signed integer's key is its bits with the sign bit flipped, so signed kinds run
// the unsigned kernels with `flip` (the sign bit, else 0) XORed into every key: each key
// width compiles one integer kernel, not two. Kernels XOR `flip` into their own (the
// all-ones "smallest first" flip, say) and read keys only through it.
template <class F>
bool with_key(int itemsize, Kind kind, F&& f) {
    switch (itemsize) {
        case 1:
            switch (kind) {
                case Kind::Unsigned: f(Key<uint8_t, Kind::Unsigned>{}, uint8_t(0)); return true;
                case Kind::Signed: f(Key<uint8_t, Kind::Unsigned>{}, Bits<uint8_t>::sign); return true;
                case Kind::Bool: f(Key<uint8_t, Kind::Bool>{}, uint8_t(0)); return true;
                default: return false;
            }
        case 2:
            switch (kind) {
                case Kind::Unsigned: f(Key<uint16_t, Kind::Unsigned>{}, uint16_t(0)); return true;
                case Kind::Signed: f(Key<uint16_t, Kind::Unsigned>{}, Bits<uint16_t>::sign); return true;
                case Kind::Float: f(Key<uint16_t, Kind::Float>{}, uint16_t(0)); return true;
                case Kind::BFloat: f(Key<uint16_t, Kind::BFloat>{}, uint16_t(0)); return true;
                default: return false;
            }
        case 4:
            switch (kind) {
                case Kind::Unsigned: f(Key<uint32_t, Kind::Unsigned>{}, uint32_t(0)); return true;
                case Kind::Signed: f(Key<uint32_t, Kind::Unsigned>{}, Bits<uint32_t>::sign); return true;
                case Kind::Float: f(Key<uint32_t, Kind::Float>{}, uint32_t(0)); return true;
                default: return false;
            }
        case 8:
            switch (kind) {
                case Kind::Unsigned: f(Key<uint64_t, Kind::Unsigned>{}, uint64_t(0)); return true;
                case Kind::Signed: f(Key<uint64_t, Kind::Unsigned>{}, Bits<uint64_t>::sign); return true;
                case Kind::Float: f(Key<uint64_t, Kind::Float>{}, uint64_t(0)); return true;
                default: return false;
            }
        default:
            return false;
    }
}

}  // namespace AXISOPS_ISA_NS
}  // namespace axisops
