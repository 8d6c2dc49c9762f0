// Candidates: (key, index) pairs, the tie rule, and their selection and sorting.
//
// THE TIE RULE LIVES HERE. "Better" is a strict total order: a larger key, or an equal key
// and a lower index (`better`). Keys of up to 32 bits may travel with their index in one
// 64-bit word, key << 32 | (2^32 - 1 - index) (`pack`), whose plain `>` is the same order
// (or, flipped at the top bit, as a signed word: `pack_signed`). Every kernel keeps its best
// candidates with `insert_best` (pairs) or `insert_word` (words), selects with `select_best`
// and sorts with `sort_best` (both: `finish_best`). Indices within one sequence are unique,
// so any correct selection or sort gives the same result: stability is never needed, and
// neither the thread count nor the order candidates arrive in can change the answer.
#pragma once

#include "common/isa.hpp"

#include <cstdint>
#include <utility>

namespace axisops {
namespace AXISOPS_ISA_NS {

// Up to this k, `select_best` selects by insertion and leaves the k sorted: a quickselect's
// comparisons mispredict half the time, and for k=10 over 2k candidates insertion measured
// 5x faster; from about 32 on, the quickselect wins.
constexpr int64_t SORTED_K = 32;
// Ranges this short are finished by insertion sort inside the quickselect and introsort.
constexpr int64_t INSERTION_RANGE = 24;

template <class U>
inline bool better(U ka, int64_t ia, U kb, int64_t ib) {
    return ka > kb || (ka == kb && ia < ib);
}

constexpr uint64_t LOW32 = 0xFFFFFFFFull;
constexpr uint64_t TOP_BIT = 1ull << 63;

// key << 32 | (2^32 - 1 - i): one word whose `>` is `better` (keys of at most 32 bits,
// 0 <= i < 2^32 - 1); never 0, so 0 can mean "empty".
inline uint64_t pack(uint64_t key, int64_t i) { return (key << 32) | (LOW32 - uint64_t(i)); }

// `pack` with its top bit flipped, as an int64: the same order under a signed `>`, which
// x86 compares in one vector instruction (AVX2 has no unsigned 64-bit compare); never the
// smallest int64, so that can mean "empty".
inline int64_t pack_signed(uint64_t key, int64_t i) { return int64_t(pack(key, i) ^ TOP_BIT); }

// The index packed in `word` (`pack_signed` keeps the same low bits).
inline int64_t unpack_index(uint64_t word) { return int64_t(LOW32 - (word & LOW32)); }

// Insert (key, i) into keys[:count]/idx[:count], kept sorted best first and at most k
// long; returns the new count. Once k pairs are kept, a pair enters only if it is better
// than the k-th (one well-predicted comparison for most); it lands after every pair it does
// not beat, so pairs arriving in increasing index order keep the first of equal keys.
template <class U>
inline int64_t insert_best(U* keys, int64_t* idx, int64_t count, int64_t k, U key, int64_t i) {
    int64_t j;
    if (count == k) {
        if (!better(key, i, keys[k - 1], idx[k - 1])) return count;
        j = k - 1;
    } else {
        j = count++;
    }
    while (j > 0 && better(key, i, keys[j - 1], idx[j - 1])) {
        keys[j] = keys[j - 1];
        idx[j] = idx[j - 1];
        --j;
    }
    keys[j] = key;
    idx[j] = i;
    return count;
}

// `insert_best` for a pair whose index is after every kept one (the pairs of one sequence
// offered in index order): it lands after every equal key, which is the tie rule, so no
// index is compared.
template <class U>
inline int64_t insert_later(U* keys, int64_t* idx, int64_t count, int64_t k, U key, int64_t i) {
    int64_t j;
    if (count == k) {
        if (key <= keys[k - 1]) return count;
        j = k - 1;
    } else {
        j = count++;
    }
    while (j > 0 && key > keys[j - 1]) {
        keys[j] = keys[j - 1];
        idx[j] = idx[j - 1];
        --j;
    }
    keys[j] = key;
    idx[j] = i;
    return count;
}

// `insert_best` for single values (packed words, or plain keys where ties need no rule).
template <class W>
inline int64_t insert_word(W* words, int64_t count, int64_t k, W word) {
    int64_t j;
    if (count == k) {
        if (word <= words[k - 1]) return count;
        j = k - 1;
    } else {
        j = count++;
    }
    while (j > 0 && word > words[j - 1]) {
        words[j] = words[j - 1];
        --j;
    }
    words[j] = word;
    return count;
}

namespace detail {

template <class U>
inline void swap_pair(U* keys, int64_t* idx, int64_t a, int64_t b) {
    std::swap(keys[a], keys[b]);
    std::swap(idx[a], idx[b]);
}

template <class U>
inline void median_to_mid(U* keys, int64_t* idx, int64_t lo, int64_t mid, int64_t hi) {
    if (better(keys[mid], idx[mid], keys[lo], idx[lo])) swap_pair(keys, idx, mid, lo);
    if (better(keys[hi], idx[hi], keys[lo], idx[lo])) swap_pair(keys, idx, hi, lo);
    if (better(keys[hi], idx[hi], keys[mid], idx[mid])) swap_pair(keys, idx, hi, mid);
}

// Hoare partition around the median of three; returns (j, i) with j < i: [lo, j] are not
// worse than the pivot, [i, hi] not better.
template <class U>
inline std::pair<int64_t, int64_t> partition(U* keys, int64_t* idx, int64_t lo, int64_t hi) {
    const int64_t mid = lo + ((hi - lo) >> 1);
    median_to_mid(keys, idx, lo, mid, hi);
    const U pk = keys[mid];
    const int64_t pi = idx[mid];
    int64_t i = lo, j = hi;
    while (i <= j) {
        while (better(keys[i], idx[i], pk, pi)) ++i;
        while (better(pk, pi, keys[j], idx[j])) --j;
        if (i <= j) {
            swap_pair(keys, idx, i, j);
            ++i;
            --j;
        }
    }
    return {j, i};
}

// A heap whose top is the *worst* element, so heapsort yields best first.
template <class U>
inline void sift_down(U* keys, int64_t* idx, int64_t lo, int64_t root, int64_t end) {
    for (;;) {
        int64_t child = 2 * root + 1;
        if (child >= end) return;
        int64_t a = lo + child;
        const int64_t b = a + 1;
        if (child + 1 < end && better(keys[a], idx[a], keys[b], idx[b])) {
            a = b;
            ++child;
        }
        const int64_t r = lo + root;
        if (better(keys[a], idx[a], keys[r], idx[r])) return;
        swap_pair(keys, idx, r, a);
        root = child;
    }
}

template <class U>
inline void heapsort(U* keys, int64_t* idx, int64_t lo, int64_t hi) {
    const int64_t n = hi - lo + 1;
    for (int64_t start = n / 2 - 1; start >= 0; --start) sift_down(keys, idx, lo, start, n);
    for (int64_t end = n - 1; end > 0; --end) {
        swap_pair(keys, idx, lo, lo + end);
        sift_down(keys, idx, lo, 0, end);
    }
}

template <class U>
inline void insertion(U* keys, int64_t* idx, int64_t lo, int64_t hi) {
    for (int64_t i = lo + 1; i <= hi; ++i) {
        const U k = keys[i];
        const int64_t v = idx[i];
        int64_t j = i - 1;
        while (j >= lo && better(k, v, keys[j], idx[j])) {
            keys[j + 1] = keys[j];
            idx[j + 1] = idx[j];
            --j;
        }
        keys[j + 1] = k;
        idx[j + 1] = v;
    }
}

inline int bit_length(uint64_t m) {
    int n = 0;
    while (m) {
        m >>= 1;
        ++n;
    }
    return n;
}

}  // namespace detail

// Reorder keys[:m]/idx[:m] so the first k are the k best, in no particular order (a
// quickselect: O(m) on any input; a heapsort takes over if it ever goes deep).
template <class U>
void partition_best(U* keys, int64_t* idx, int64_t m, int64_t k) {
    if (k <= 0 || k >= m) return;
    int64_t lo = 0, hi = m - 1;
    const int64_t target = k - 1;
    int budget = 64;
    while (hi - lo > INSERTION_RANGE) {
        if (budget-- == 0) {
            detail::heapsort(keys, idx, lo, hi);
            return;
        }
        auto [j, i] = detail::partition(keys, idx, lo, hi);
        if (target <= j) hi = j;
        else if (target >= i) lo = i;
        else return;
    }
    detail::insertion(keys, idx, lo, hi);
}

// The k best of m pairs to the front; for k <= SORTED_K also sorted best first.
template <class U>
void select_best(U* keys, int64_t* idx, int64_t m, int64_t k) {
    if (k <= 0) return;
    if (k <= SORTED_K) {
        int64_t count = 0;
        for (int64_t i = 0; i < m; ++i) count = insert_best(keys, idx, count, k, keys[i], idx[i]);
    } else {
        partition_best(keys, idx, m, k);
    }
}

// Sort keys[:m]/idx[:m] best first (introsort).
template <class U>
void sort_best(U* keys, int64_t* idx, int64_t m) {
    if (m < 2) return;
    struct Range {
        int64_t lo, hi;
        int depth;
    };
    Range stack[64];  // each pushed range is the larger side: at most log2(m) pending
    int top = 0;
    stack[top++] = {0, m - 1, 2 * detail::bit_length(uint64_t(m))};
    while (top > 0) {
        Range r = stack[--top];
        while (r.hi - r.lo > INSERTION_RANGE && r.depth > 0) {
            --r.depth;
            auto [j, i] = detail::partition(keys, idx, r.lo, r.hi);
            if (j - r.lo < r.hi - i) {
                stack[top++] = {i, r.hi, r.depth};
                r.hi = j;
            } else {
                stack[top++] = {r.lo, j, r.depth};
                r.lo = i;
            }
        }
        if (r.hi - r.lo > INSERTION_RANGE) detail::heapsort(keys, idx, r.lo, r.hi);
        else detail::insertion(keys, idx, r.lo, r.hi);
    }
}

// The k best of m candidates to the front, sorted best first if `do_sort`.
template <class U>
void finish_best(U* keys, int64_t* idx, int64_t m, int64_t k, bool do_sort) {
    select_best(keys, idx, m, k);
    if (do_sort && k > SORTED_K) sort_best(keys, idx, k);
}

}  // namespace AXISOPS_ISA_NS
}  // namespace axisops
