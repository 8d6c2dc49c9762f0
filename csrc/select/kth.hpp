// Selection: the element of stable rank r (0-based) of a sequence, in O(n), never by sorting.
//
// Stable rank r is the r-th smallest (key, index) pair: the key v with
// #(key < v) <= r < #(key <= v), and among the keys equal to v the (r - #(key < v))-th in
// index order (the tie rule of common/order.hpp, which the sort's stable radix passes also
// realise). Finding v:
//
// 1. two keys lo <= hi whose ranks bracket r with high probability: from a deterministic
//    sample (`sample_band`; jittered strides, so periodic data cannot fool it), or, for a
//    row of a task, from the keys the task's previous row met (`KthHint`);
// 2. one pass (`band_pass`) counts the keys below lo and collects the (key, index)
//    candidates in [lo, hi], in index order;
// 3. if r falls among them, many candidates are narrowed the same way (a sample of them, a
//    band pass over them), and the last few hundred searched by a quickselect whose rounds
//    are counting and compressing passes (`pivot_select`), its last few dozen by a binary
//    search over key values (`rank_key`); the index of the key found comes from counting
//    the equal keys before it (`locate_eq`);
// 4. if the bounds missed (r below or above the band), or the candidates would not fit
//    their room, an exact radix select (`radix_key`: one histogram pass per 8-bit digit,
//    most significant first) finds v instead (a band of one key needs no search at all).
// Every step is exact, so the result never depends on the sample, the hint, the parts, the
// threads or the path taken; only the time does.
#pragma once

#include "common/isa.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>
#include <vector>

#include "common/errors.hpp"
#include "common/tuning.hpp"
#include "select/band.hpp"

namespace axisops {
namespace AXISOPS_ISA_NS {

// The tuning's kth_final: up to this many candidates go to the pivot search, more are
// narrowed by a sample first; sequences this short are searched by value directly.
//
// The sampled band's half-width in standard deviations of the sample rank (the bounds
// miss with probability about 2 * 0.13% at 3).
constexpr double KTH_SIGMAS = 3.0;

// Sample sizes: about n^(2/3) / 4 (balancing the sample's cost, which grows with s,
// against the candidates', about n * sigmas / sqrt(s)), between the tuning's
// kth_sample_min and kth_sample_max.
inline int64_t kth_sample_size(const Tuning& t, int64_t n) {
    const double s = std::pow(double(n), 2.0 / 3.0) / 4.0;
    int64_t size = int64_t(s) / 16 * 16 + 16;
    size = std::min(std::max(size, t.kth_sample_min), t.kth_sample_max);
    return std::min(size, n);
}

inline uint64_t sample_mix(uint64_t x) {  // splitmix64's finaliser
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

// Sample i of s (s <= n): one position in each of s strides of n / s, jittered.
inline int64_t sample_at(int64_t i, int64_t s, int64_t n) {
    const int64_t step = n / s;
    return i * step + int64_t(sample_mix(uint64_t(i)) % uint64_t(step));
}

// The key of rank r of keys[:m] (#(key < v) <= r < #(key <= v)), searched in [lo, hi],
// which must hold it; `below` enters as #(key < lo) and leaves as #(key < v).
template <class K>
K rank_key(const K* keys, int64_t m, int64_t r, K lo, K hi, int64_t& below) {
    while (lo < hi) {
        const K mid = K(lo + (hi - lo) / 2);
        const int64_t c = count_le(keys, m, mid);
        if (c > r) {
            hi = mid;
        } else {
            lo = K(mid + 1);
            below = c;
        }
    }
    return lo;
}

// rank_key for two ranks ra <= rb at once (the searches share their passes), both
// searched in [lo, hi] = the smallest and largest key.
template <class K>
void rank_keys2(const K* keys, int64_t m, int64_t ra, int64_t rb, K lo, K hi, K& va, K& vb) {
    K alo = lo, ahi = hi, blo = lo, bhi = hi;
    while (alo < ahi || blo < bhi) {
        const K amid = K(alo + (ahi - alo) / 2), bmid = K(blo + (bhi - blo) / 2);
        int64_t ca, cb;
        count_le2(keys, m, amid, bmid, ca, cb);
        if (alo < ahi) {
            if (ca > ra) ahi = amid;
            else alo = K(amid + 1);
        }
        if (blo < bhi) {
            if (cb > rb) bhi = bmid;
            else blo = K(bmid + 1);
        }
    }
    va = alo;
    vb = blo;
}

// The keys of ranks a <= b of keys[:s] (s >= 1). Up to count_max sample keys (the tuning's
// kth_count_max), their order statistics come from counting, for each key, the keys below
// it (s * s / lanes compares, independent of one another); beyond, from rank_keys2's
// binary search (one dependent counting pass per key bit).
template <class K>
void order_stats2(const K* keys, int64_t s, int64_t a, int64_t b, K& va, K& vb,
                  int64_t count_max) {
    if (s > count_max) {
        K lo, hi;
        key_range(keys, s, lo, hi);
        rank_keys2(keys, s, a, b, lo, hi, va, vb);
        return;
    }
    // The key of rank a is the largest key with at most a keys below it.
    constexpr int64_t L = 16;
    K best_a = 0, best_b = 0;
    for (int64_t i0 = 0; i0 < s; i0 += L) {
        const int64_t w = std::min(L, s - i0);
        K x[L];
        Counter<K> below[L];
        for (int64_t l = 0; l < L; ++l) {
            x[l] = keys[i0 + (l < w ? l : 0)];
            below[l] = 0;
        }
        for (int64_t j = 0; j < s; ++j) {
            const K y = keys[j];
            for (int64_t l = 0; l < L; ++l) below[l] += Counter<K>(y < x[l]);
        }
        for (int64_t l = 0; l < L; ++l) {
            best_a = int64_t(below[l]) <= a && x[l] > best_a ? x[l] : best_a;
            best_b = int64_t(below[l]) <= b && x[l] > best_b ? x[l] : best_b;
        }
    }
    va = best_a;
    vb = best_b;
}

// Keys lo <= hi of a sample whose ranks in the whole (r of n) bracket r with high
// probability: the sample ranks sigmas standard deviations either side of r * s / n (lo is
// the smallest key when that is below the sample, hi the largest likewise).
struct SampleSpan {
    int64_t a, b;  // sample ranks, possibly outside [0, s)
};
inline SampleSpan sample_span(int64_t s, int64_t r, int64_t n, double sigmas) {
    const double p = (double(r) + 0.5) / double(n);
    const double mu = p * double(s);
    const double sd = std::sqrt(double(s) * p * (1.0 - p)) + 1.0;
    return {int64_t(std::floor(mu - sigmas * sd)), int64_t(std::ceil(mu + sigmas * sd))};
}
// sample_band from a sorted sample (several ranks of one sample: one sort, not a
// selection per rank).
template <class K>
void sorted_band(const K* sorted, int64_t s, int64_t r, int64_t n, double sigmas, K& lo,
                 K& hi) {
    const SampleSpan sp = sample_span(s, r, n, sigmas);
    lo = sp.a < 0 ? K(0) : sorted[std::min(sp.a, s - 1)];
    hi = sp.b >= s ? K(~K(0)) : sorted[std::max<int64_t>(sp.b, 0)];
}
template <class K>
void sample_band(const Tuning& t, const K* sample, int64_t s, int64_t r, int64_t n,
                 double sigmas, K& lo, K& hi) {
    const SampleSpan sp = sample_span(s, r, n, sigmas);
    order_stats2(sample, s, std::max<int64_t>(sp.a, 0), std::min(sp.b, s - 1), lo, hi,
                 t.kth_count_max);
    if (sp.a < 0) lo = K(0);
    if (sp.b >= s) hi = K(~K(0));
}

// The key of rank r among keys[:m] whose bits above 8 * key_bytes are zero, by histograms
// of one 8-bit digit at a time, most significant first; r leaves as its rank among the
// keys equal to the result. `hist_fn(prefix, top, shift, counts)` adds to counts[256] the
// digit (key >> shift) & 255 of every key with key >> top == prefix (every key when
// top >= 8 * key_bytes), over whatever source the caller selects in. Each histogram is a
// pass of its own: when the source changes between them (another thread writing to the
// input), they disagree, and that is an error rather than a walk past the histogram.
template <class K, class HistFn>
K radix_key(int key_bytes, int64_t& r, HistFn hist_fn) {
    K prefix = 0;
    int64_t counts[256];
    for (int d = key_bytes - 1; d >= 0; --d) {
        std::fill(counts, counts + 256, int64_t(0));
        hist_fn(prefix, 8 * d + 8, 8 * d, counts);
        int b = 0;
        while (b < 255 && counts[b] <= r) r -= counts[b++];
        if (counts[b] <= r) input_changed();
        prefix = K(K(prefix << 8) | K(b));
    }
    return prefix;
}

// radix_key's histogram over keys[:m].
template <class K>
inline void digit_hist(const K* keys, int64_t m, K prefix, int top, int shift, int key_bytes,
                       int64_t* counts) {
    if (top >= 8 * key_bytes) {
        for (int64_t j = 0; j < m; ++j) ++counts[(keys[j] >> shift) & 0xFF];
    } else {
        for (int64_t j = 0; j < m; ++j)
            counts[(keys[j] >> shift) & 0xFF] += int64_t((keys[j] >> top) == prefix);
    }
}

// Scratch of one selecting thread: the sample and two candidate buffers.
template <class K>
struct KthScratch {
    std::vector<K> sample;
    std::vector<K> ka, kb;
    std::vector<uint32_t> ia, ib;

    void reserve(int64_t cap) {
        const size_t want = size_t(cap + BAND_SLACK);
        if (ka.size() < want) {
            ka.resize(want);
            kb.resize(want);
            ia.resize(want);
            ib.resize(want);
        }
    }
};

// Bounds for the next sequence of a task, from this one's: rows of one array are often
// alike, and then keys that bracketed this row's rank r by a margin bracket the next row's
// too, more tightly than a sample can. A miss only costs a pass (a sample then takes over).
template <class K>
struct KthHint {
    bool valid = false;
    K lo = 0, hi = 0;
};

// Collects, while a selection narrows (its bands' bounds, its pivots), keys whose ranks
// bracket r, and keeps for each side the tightest one at least `want` ranks away (twice
// the margin), or failing that the widest one at least `need` away (the margin: `sigmas`
// deviations of the rank's spread between rows alike). Passing on bounds twice the margin
// away keeps the next row's bounds at least the margin away with high probability, so
// rows alike keep their hints.
template <class K>
struct HintMarks {
    struct Side {
        int64_t pref_gap = INT64_MAX, fall_gap = -1;
        K pref = 0, fall = 0;

        void offer(K key, int64_t gap, int64_t want, int64_t need) {
            if (gap >= want && gap < pref_gap) {
                pref_gap = gap;
                pref = key;
            }
            if (gap >= need && gap > fall_gap) {
                fall_gap = gap;
                fall = key;
            }
        }
        bool found() const { return pref_gap != INT64_MAX || fall_gap >= 0; }
        K key() const { return pref_gap != INT64_MAX ? pref : fall; }
    };
    int64_t r = 0;
    int64_t need = 0, want = 0;
    bool open_lo = false, open_hi = false;  // near an end: no key is far enough, no bound
    Side lo, hi;

    HintMarks(int64_t n, int64_t r_, double sigmas) : r(r_) {
        const double p = (double(r_) + 0.5) / double(n);
        need = int64_t(std::ceil(sigmas * std::sqrt(double(n) * p * (1.0 - p)))) + 1;
        want = 2 * need;
        open_lo = r < want;
        open_hi = n - 1 - r < want;
    }
    // `key` with `below` keys of the sequence below it: a lower bound.
    void lower(K key, int64_t below) { lo.offer(key, r - below, want, need); }
    // `key` with `upto` keys of the sequence at or below it: an upper bound.
    void upper(K key, int64_t upto) { hi.offer(key, upto - 1 - r, want, need); }
    void into(KthHint<K>& hint) const {
        hint.valid = (open_lo || lo.found()) && (open_hi || hi.found());
        hint.lo = open_lo ? K(0) : lo.key();
        hint.hi = open_hi ? K(~K(0)) : hi.key();
    }
};

// The index of the candidate of rank r among keys[:m]/idx[:m] (in index order): a
// quickselect whose rounds count the keys below and at a pivot (the middle of three keys
// spread over the candidates) and keep, compressed in order, the side that holds rank r;
// a binary search over key values finishes, below the tuning's kth_pivot_min candidates or
// after kth_pivot_rounds rounds (data built against its pivots). Buffers as
// select_candidates'.
template <class K>
uint32_t pivot_select(const Tuning& t, LocalTrace& trace, K* keys, uint32_t* idx, K* spare_k,
                      uint32_t* spare_i, int64_t m, int64_t r, int64_t offset = 0,
                      HintMarks<K>* marks = nullptr) {
    if (m >= t.kth_pivot_min && t.kth_pivot_rounds > 0) trace.mark(Path::select_pivot);
    for (int64_t round = 0; m >= t.kth_pivot_min && round < t.kth_pivot_rounds; ++round) {
        const K a = keys[m / 4], b = keys[m / 2], c = keys[m - 1 - m / 4];
        const K p = std::max(std::min(a, b), std::min(std::max(a, b), c));
        int64_t lt, le;
        count_le2(keys, m, K(p - 1), p, lt, le);
        if (p == 0) lt = 0;
        if (marks) {
            marks->lower(p, offset + lt);
            marks->upper(p, offset + le);
        }
        if (r >= lt && r < le) return idx[locate_eq(keys, m, p, r - lt)];
        const bool lower = r < lt;
        Band band;
        band_pass(keys, idx, 0u, m, lower ? K(0) : K(p + 1), lower ? K(p - 1) : K(~K(0)),
                  spare_k, spare_i, m, band);
        std::swap(keys, spare_k);
        std::swap(idx, spare_i);
        if (!lower) {
            r -= le;
            offset += le;
        }
        m = band.in;
    }
    trace.mark(Path::select_by_value);
    K lo, hi;
    key_range(keys, m, lo, hi);
    int64_t below = 0;
    const K v = rank_key(keys, m, r, lo, hi, below);
    return idx[locate_eq(keys, m, v, r - below)];
}

// The candidate of rank r among m candidates keys[:m]/idx[:m] (in index order, keys in
// [lo, hi], ranks from `offset` on in their sequence): narrowed by samples while that
// pays, then searched by pivots. Returns its index (idx[p]). `keys`/`idx` and
// `spare_k`/`spare_i` (each m + BAND_SLACK long) are both overwritten. The bounds met on
// the way are offered to `marks`.
template <class K>
uint32_t select_candidates(const Tuning& t, LocalTrace& trace, K* keys, uint32_t* idx,
                           K* spare_k, uint32_t* spare_i, int64_t m, int64_t r, K lo, K hi,
                           double sigmas, std::vector<K>& sample, int64_t offset = 0,
                           HintMarks<K>* marks = nullptr) {
    while (m > t.kth_final && lo < hi) {
        const int64_t s = std::max<int64_t>(1, std::min(kth_sample_size(t, m), m / 4));
        sample.resize(size_t(s));
        for (int64_t i = 0; i < s; ++i) sample[size_t(i)] = keys[sample_at(i, s, m)];
        K nlo, nhi;
        sample_band(t, sample.data(), s, r, m, sigmas, nlo, nhi);
        nlo = std::max(nlo, lo);
        nhi = std::min(nhi, hi);
        Band band;
        band_pass(keys, idx, 0u, m, nlo, nhi, spare_k, spare_i, m, band);
        if (r < band.below || r >= band.below + band.in || band.in == m) break;  // no gain
        trace.mark(Path::select_narrowed);
        std::swap(keys, spare_k);
        std::swap(idx, spare_i);
        m = band.in;
        r -= band.below;
        offset += band.below;
        lo = nlo;
        hi = nhi;
        if (marks) {
            marks->lower(lo, offset);
            marks->upper(hi, offset + m);
        }
    }
    if (lo == hi) {  // every candidate has the same key
        trace.mark(Path::select_one_key);
        return idx[r];
    }
    return pivot_select(t, trace, keys, idx, spare_k, spare_i, m, r, offset, marks);
}

// The position of the element of stable rank r among the n keys of a small tile: a
// binary search over its key values, then its place among the equal keys.
template <class K>
int64_t select_small(const K* keys, int64_t n, int64_t r) {
    K lo, hi;
    key_range(keys, n, lo, hi);
    int64_t below = 0;
    const K v = rank_key(keys, n, r, lo, hi, below);
    return locate_eq(keys, n, v, r - below);
}

}  // namespace AXISOPS_ISA_NS
}  // namespace axisops
