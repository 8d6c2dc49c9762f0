// A sorting network in vector registers, for rows short enough to stay in the first-level
// cache: Batcher's bitonic network, the way vqsort and x86-simd-sort sort their small arrays.
//
// The records are unsigned integers compared whole (a key alone, or a key and its index in
// one word), so records that compare equal are equal bits and the network's order is the
// one every stable sort gives. A row of m = 2^p records (the caller pads it with the
// largest record) is sorted in stages: stage k (k = 2, 4, ..., m) merges sorted runs of
// k/2 into runs of k by a flip step (record i of each block of k against record
// i ^ (k - 1)) and half-cleaners (record i against i ^ j, j = k/4, ..., 1); every
// comparator puts the smaller record first. Steps between vectors (j at least a vector's
// lanes) are lane-wise minima and maxima of whole vectors; the steps inside a vector run
// in registers on two vectors at once (`on_pair`), right after the last step between them
// and before they are stored.
//
// GCC and Clang compile the vector types to the level's widest registers (16 lanes of 32
// bits at avx512, 8 at avx2, 4 at the baseline). A level uses the network where it beats
// the radix passes (`worthwhile`; this project's Zen 4 VM, one thread, 10000 rows of 1024
// random keys, the network alone: 32-bit keys 75 ms at x86-64, 20 at avx2, 16.5 at
// avx512, against 59 ms for the radix passes' whole sort; 64-bit 212 / 73 / 46 against
// 71): at avx2 and avx512 for 32-bit records, at avx512 for 64-bit ones. Any other
// compiler sorts these rows by radix passes (`worthwhile` is false).
#pragma once

#include "common/isa.hpp"

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>

namespace axisops {
namespace AXISOPS_ISA_NS {
namespace network {

#if defined(__GNUC__)

#if defined(__AVX512F__)
constexpr int VECTOR_BYTES = 64;
#elif defined(__AVX2__)
constexpr int VECTOR_BYTES = 32;
#else
constexpr int VECTOR_BYTES = 16;
#endif

template <class T>
struct Vec;
template <>
struct Vec<uint32_t> {
    typedef uint32_t type __attribute__((vector_size(VECTOR_BYTES)));
};
template <>
struct Vec<uint64_t> {
    typedef uint64_t type __attribute__((vector_size(VECTOR_BYTES)));
};

template <class T>
constexpr size_t lanes = size_t(VECTOR_BYTES) / sizeof(T);

template <class T>
constexpr bool worthwhile = lanes<T> >= 8;

template <class V>
inline V load(const unsigned char* p) {
    V v;
    std::memcpy(&v, p, sizeof v);
    return v;
}

template <class V>
inline void store(unsigned char* p, V v) {
    std::memcpy(p, &v, sizeof v);
}

template <class V>
inline V lesser(V a, V b) {
    return a < b ? a : b;
}

template <class V>
inline V greater(V a, V b) {
    return a < b ? b : a;
}

template <class V, size_t... I>
inline V reversed(V v, std::index_sequence<I...>) {
    return __builtin_shufflevector(v, v, int(sizeof...(I) - 1 - I)...);
}

// Two vectors at once: the steps inside a vector, run on a pair of vectors whose lanes are
// laid out so that each comparator's two records face each other in the same lane of two
// registers (`lo`, `hi`). A step is then a minimum and a maximum, and going from one
// step's layout to the next takes two two-source shuffles: four instructions per two
// vectors and step, where a vector alone took a shuffle, a minimum, a maximum and a blend
// (the network alone, avx512, 10000 rows of 1024: 32-bit 19.3 -> 16.5 ms, 64-bit 52 -> 46).
// A row of one vector is paired with a vector of the largest record.
// Records 0..L-1 are the first vector's lanes, L..2L-1 the second's; step (p, h) compares
// record i with i ^ p for every i whose bit h is clear (p = h: a half-cleaner; p = 2h - 1:
// a flip).
struct Step {
    size_t p;
    size_t h;
};

// The t-th record whose bit h is clear (h a power of two), and the inverse: the rank of
// such a record among them.
constexpr size_t lower_record(size_t t, size_t h) {
    return (t & (h - 1)) | ((t & ~(h - 1)) << 1);
}
constexpr size_t lower_rank(size_t e, size_t h) { return (e & (h - 1)) | ((e >> 1) & ~(h - 1)); }

// Where record e lies after step s (h = 0: before any step, in the vectors' own order), as
// an index of a two-source shuffle of (lo, hi) with L lanes each.
constexpr int lane_of(size_t e, Step s, size_t L) {
    if (s.h == 0) return int(e);
    return (e & s.h) == 0 ? int(lower_rank(e, s.h)) : int(L + lower_rank(e ^ s.p, s.h));
}

// The steps of a half-cleaning of every vector (half-cleaners L/2, ..., 1: KIND_CLEAN) or
// of a whole sort of every vector (stages 2, ..., L: KIND_SORT), in order.
constexpr int KIND_CLEAN = 0, KIND_SORT = 1;

// Step idx of Kind, or {0, 0} past the last.
constexpr Step step_at(int kind, size_t L, size_t idx) {
    size_t n = 0;
    if (kind == KIND_CLEAN) {
        for (size_t j = L / 2; j >= 1; j /= 2)
            if (n++ == idx) return Step{j, j};
        return Step{0, 0};
    }
    for (size_t k = 2; k <= L; k *= 2) {
        if (n++ == idx) return Step{k - 1, k / 2};
        for (size_t j = k / 4; j >= 1; j /= 2)
            if (n++ == idx) return Step{j, j};
    }
    return Step{0, 0};
}

constexpr size_t step_count(int kind, size_t L) {
    size_t n = 0;
    while (step_at(kind, L, n).h != 0) ++n;
    return n;
}

template <int Kind, size_t Idx, class V, size_t... I>
inline void pair_steps(V& lo, V& hi, std::index_sequence<I...> s) {
    constexpr size_t L = sizeof...(I);
    if constexpr (Idx < step_count(Kind, L)) {
        constexpr Step prev = Idx == 0 ? Step{0, 0} : step_at(Kind, L, Idx - 1);
        constexpr Step cur = step_at(Kind, L, Idx);
        const V x = __builtin_shufflevector(lo, hi, lane_of(lower_record(I, cur.h), prev, L)...);
        const V y = __builtin_shufflevector(
            lo, hi, lane_of(lower_record(I, cur.h) ^ cur.p, prev, L)...);
        lo = lesser(x, y);
        hi = greater(x, y);
        pair_steps<Kind, Idx + 1>(lo, hi, s);
    }
}

// The steps of Kind on vectors a and b (each on its own lanes), back in their order.
template <int Kind, class V, size_t... I>
inline void on_pair(V& a, V& b, std::index_sequence<I...> s) {
    constexpr size_t L = sizeof...(I);
    V lo = a, hi = b;
    pair_steps<Kind, 0>(lo, hi, s);
    constexpr Step last = step_at(Kind, L, step_count(Kind, L) - 1);
    a = __builtin_shufflevector(lo, hi, lane_of(I, last, L)...);
    b = __builtin_shufflevector(lo, hi, lane_of(L + I, last, L)...);
}

// Sorts the m records of T at a (m a power of two, at least lanes<T>), ascending.
template <class T>
void sort_pow2(unsigned char* a, size_t m) {
    using V = typename Vec<T>::type;
    constexpr size_t L = lanes<T>, B = sizeof(V);
    constexpr auto s = std::make_index_sequence<L>();
    const size_t bytes = m * sizeof(T);
    if (bytes == B) {  // one vector, beside one of the largest record
        V p = load<V>(a), q = ~V{};
        on_pair<KIND_SORT>(p, q, s);
        store(a, p);
        return;
    }
    for (size_t i = 0; i < bytes; i += 2 * B) {
        V p = load<V>(a + i), q = load<V>(a + i + B);
        on_pair<KIND_SORT>(p, q, s);
        store(a + i, p);
        store(a + i + B, q);
    }
    for (size_t k = 2 * B; k <= bytes; k *= 2) {  // in bytes: runs of k/2 into runs of k
        for (size_t b = 0; b < bytes; b += k)
            for (size_t x = 0; x < k / 2; x += B) {
                unsigned char *lo = a + b + x, *hi = a + b + k - B - x;
                const V p = load<V>(lo), q = reversed(load<V>(hi), s);
                V l = lesser(p, q), h = reversed(greater(p, q), s);
                if (k == 2 * B) on_pair<KIND_CLEAN>(l, h, s);
                store(lo, l);
                store(hi, h);
            }
        if (k == 2 * B) continue;  // stage 2B ends in the registers of its flip step
        for (size_t j = k / 4; j >= B; j /= 2)
            for (size_t b = 0; b < bytes; b += 2 * j)
                for (size_t x = 0; x < j; x += B) {
                    const V p = load<V>(a + b + x), q = load<V>(a + b + x + j);
                    V l = lesser(p, q), h = greater(p, q);
                    // the last step between vectors: then the steps inside, on both at once
                    if (j == B) on_pair<KIND_CLEAN>(l, h, s);
                    store(a + b + x, l);
                    store(a + b + x + j, h);
                }
    }
}

#else

template <class T>
constexpr size_t lanes = 1;

template <class T>
constexpr bool worthwhile = false;

template <class T>
void sort_pow2(unsigned char*, size_t) {}

#endif

// The fewest records the network sorts: a vector of the widest level.
constexpr size_t MIN_RECORDS = 16;
static_assert(lanes<uint32_t> <= MIN_RECORDS, "a vector of keys fits the shortest row");

// The records a row of n takes in the network: the next power of two, at least MIN_RECORDS.
inline size_t padded(size_t n) {
    size_t m = MIN_RECORDS;
    while (m < n) m *= 2;
    return m;
}

// The level's network for records of T (its table's entry: common/level.cpp), or null
// where it does not beat the radix passes.
template <class T>
constexpr void (*sorter())(unsigned char*, size_t) {
    if constexpr (worthwhile<T>) return &sort_pow2<T>;
    else return nullptr;
}

}  // namespace network
}  // namespace AXISOPS_ISA_NS
}  // namespace axisops
