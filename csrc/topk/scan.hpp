// The scan strategy: long sequences and small k, at nearly the speed of one read.
//
// A sequence is read in segments. For each segment the maximum key of every block of BLOCK
// elements is taken, vectorised (straight from the input at unit stride, through a small key
// tile otherwise). A block whose maximum is below the acceptance bound `lo` is skipped whole;
// only the elements of the others have their keys computed again and become candidates. `lo`
// rises two ways: when the candidate buffer (2k entries, at least scan_min_buffer) fills, it is
// compacted to its k best and `lo` becomes one above the worst kept key (later elements that
// tie it have higher indices and lose); and when a segment has at least k blocks, a bound at
// or just below the k-th largest block maximum is a lower bound of the k-th best key (k blocks
// each hold an element at least that large). For k up to SORTED_K that maximum is found
// exactly by insertion, or, when there are many maxima, the k-th largest of the maxima of
// groups of them is taken instead (a few blocks looser, and cheaper than the exact one);
// above, a radix select over the maxima (RADIX_BITS per pass) stops at a bucket reached by k
// to k - 1 + BOUND_SLACK maxima, linear in the block count and a few blocks looser at most.
// A sequence of several segments starts from such a bound taken over a sample of its
// segments (the last and the middle one, more for a large k), so input that rises along it
// is refused from the start. Sorted, constant or adversarial input therefore stays linear. A
// sample of a few segments may also give a tighter, *hoped-for* first bound (see
// HOPE_MIN_SAMPLES), checked at the end: when it let in fewer than k candidates, the
// sequence is scanned again from the sure one.
//
// Where many blocks are expected to qualify (a large k against the segment), the maxima pass
// also keeps each *band* of band_rows rows' block maxima apart, and only the bands of a
// block that reach the bound are read: about a third of its elements instead of all.
//
// One sequence too long for one thread is cut into parts (`topk_scan_split`), each scanned
// like a sequence of its own, its k best sorted; the parts' sorted runs are then merged
// (`merge_parts`), which reads no input.
#pragma once

#include "common/isa.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <vector>

#include "common/errors.hpp"
#include "common/order.hpp"
#include "common/pool.hpp"
#include "topk/job.hpp"

namespace axisops {
namespace AXISOPS_ISA_NS {
namespace scan_detail {

// Elements per block whose maximum bounds them all.
constexpr int64_t BLOCK = 16;
// The scan's size switches are fields of the call's Tuning (common/tuning.hpp):
// - segment_bytes: keys per segment tile at other strides (32 KiB, so a tile stays in L1
//   while scanned); unit_segment: elements per segment at unit stride, where block maxima
//   come straight from the input (more blocks per segment give tighter bounds; measured
//   best at 32K);
// - scan_fuse_bytes: block maxima of at least this many bytes are taken ROW_FUSE rows at
//   a time (see there);
// - scan_min_buffer: the smallest candidate buffer (for tiny k, compacting every 2k
//   candidates costs more than the few extra candidates a larger buffer holds);
// - sample_min_segments: sequences of at least this many segments first take a bound from a
//   sample of segments spread over the sequence (the last, the middle, ...), which then
//   costs at most 1/8 of one extra read; two segments, and one more per sample_k of k, up to
//   sample_max: a bound from s segments lets about k / s blocks qualify in each segment until
//   the running k best catch up, k more blocks each time the scanned length doubles
//   (float16 (1, 10M) k=1000, one part of 5M: 7370 qualifying blocks with 2 segments, 4270
//   with 15; each costs about 45 ns of checks, a sampled segment about 4 us);
// - band_rows: rows of a segment's layout whose block maxima are also kept apart (a *band*),
//   when k is at least band_min_k: the candidates of a block are then looked for only in the
//   bands of it that reach the bound, usually one of three (each candidate check is a scalar
//   read of a line the maxima pass left in L2; with k = 100 of 10000 they were half the
//   row's time), in segments where at least one block in band_share is expected to qualify
//   (k in a sequence's first segment, then as many as in the one before): where the bound is
//   already tight, the bands' upkeep in the maxima pass is all cost (12-15% slower on
//   (32, 128000) k=50 and (1, 10M) k=1000 with bands in every segment);
// - hope_min_samples: see below.
// A band height that makes one band of any segment.
constexpr int64_t ONE_BAND = int64_t(1) << 30;
// The most rows a segment's layout has (see `block_layout`), and so the most bands.
constexpr int64_t MAX_ROWS = 32;
// The bound for k > SORTED_K is found RADIX_BITS bits at a time (a histogram of
// 2^RADIX_BITS buckets of the block maxima per level) ...
constexpr int RADIX_BITS = 10;
// ... until the bucket holding the k-th largest maximum has at most this many values: each
// one beyond the k-th is at most one more block whose elements are checked.
constexpr int64_t BOUND_SLACK = 16;
// Values per group in `bound_by_groups`.
constexpr int64_t GROUP = 8;
// A sample of at least hope_min_samples segments may give a *hoped-for* first bound: s of a
// sequence's S segments hold about k * s / S of its k best, so the bound that many of the
// sample's block maxima reach (plus HOPE_SIGMAS standard deviations, plus HOPE_SLACK) is very
// likely below the k-th best, and far above the sure bound (the one k maxima reach). A scan
// from it that finds fewer than k candidates runs again from the sure bound, so no result
// depends on the hope; and the hope is not taken when one sampled segment holds more of the
// maxima that reach it than a spread sample would (rising input, whose k best are all in the
// last segment). On (1, 10M) k=1000 with 2 threads, 15 segments are sampled per 5M part,
// and the hope sits at rank 142 of their 30K block maxima instead of 1000: each segment
// then lets in that many fewer blocks.
constexpr double HOPE_SIGMAS = 4.0;
constexpr int64_t HOPE_SLACK = 4;

// The longest segment a test may force: its block maxima are counted in 32-bit counters, and
// its key tile is allocated whole.
constexpr int64_t MAX_SEGMENT = int64_t(1) << 24;

// The segment length a job asks for: 0 chooses (unit strides need no key tile, so longer
// segments pay off there).
inline int64_t segment_length(const Tuning& t, int64_t requested, int64_t stride,
                              int itemsize) {
    if (requested > 0) return std::min(requested, MAX_SEGMENT);
    if (stride == 1) return t.unit_segment;
    return std::max<int64_t>(1, t.segment_bytes / itemsize);
}

// How many segments (of at most `seg` elements) of a sequence of n give its first bound.
// The sampled segments are distinct (at most one per segment): a segment sampled twice
// would count its block maxima twice, and the bound they give could pass the k-th best.
inline int64_t samples(const Tuning& t, int64_t n, int64_t seg, int64_t k) {
    const int64_t parts = (n + seg - 1) / seg;
    if (parts < t.sample_min_segments || parts < 2) return 0;
    return std::min(parts, std::max<int64_t>(2, std::min({k / t.sample_k, t.sample_max, parts / 8})));
}

// Block j of a segment of m elements holds elements r * blocks + j (r < rows). Rows are
// vectorised across blocks; a block count that is a multiple of 64 leaves no scalar remainder
// in any full row (an odd count like 511 leaves a scalar remainder in every row).
struct Layout {
    int64_t blocks, rows;
};

inline Layout block_layout(int64_t m) {
    int64_t blocks = std::max<int64_t>(1, m / BLOCK);
    if (blocks >= 128) blocks -= blocks % 64;
    return {blocks, (m + blocks - 1) / blocks};
}

inline int64_t band_count(int64_t rows, int64_t band_rows) {
    return (rows + band_rows - 1) / band_rows;
}

// bmax[j]: the maximum over the nb bands of block j.
template <class U>
inline void fold_bands(const U* __restrict bands, int64_t blocks, int64_t nb, U* __restrict bmax) {
    for (int64_t j = 0; j < blocks; ++j) bmax[j] = bands[j];
    for (int64_t g = 1; g < nb; ++g) {
        const U* __restrict band = bands + g * blocks;
        for (int64_t j = 0; j < blocks; ++j) bmax[j] = bmax[j] > band[j] ? bmax[j] : band[j];
    }
}

// acc[j] = max(acc[j], row[j]) for j < count.
template <class U>
inline void max_into(const U* __restrict row, int64_t count, U* __restrict acc) {
    for (int64_t j = 0; j < count; ++j) acc[j] = acc[j] > row[j] ? acc[j] : row[j];
}

// The key of element j of a segment: computed from the input's bits at unit stride (`Unit`),
// read from the key tile otherwise.
template <class KeyT, bool Unit>
inline typename KeyT::type key_at(const typename KeyT::type* seg, int64_t j,
                                  typename KeyT::type flip) {
    if constexpr (Unit) return KeyT::of(seg[j], flip);
    else return seg[j];
}

// Rows fused per pass of the maxima where the block maxima take at least the tuning's
// scan_fuse_bytes: each block maximum is then loaded and stored once per ROW_FUSE rows
// instead of once a row. Fusing reads ROW_FUSE short streams at once, one a row apart; one
// row at a time reads the segment as one stream, which the prefetchers follow better. On
// this project's AMD EPYC Zen 4 VM (2026-12-07, AVX-512, 2 threads) fusing every segment
// made float32 (1000, 10000) k=10 1.8 -> 2.4 ms, (1, 10M) k=10 0.95 -> 1.25, float16
// (1000, 10000) k=10 1.2 -> 1.5, float64 (1000, 10000) k=10 2.7-3.0 -> 3.6; only where the
// maxima are nearly 16 KiB (64-bit keys in segments of about 32K) does it pay: float64
// (1, 10M) k=10 2.4-2.7 -> 2.2-2.5 ms, int64 k=100 2.4-2.6 -> 1.9-2.2. (On an AVX-512 Xeon,
// fusing every segment took float32 from 7-18 to 14-24 GB/s on one thread; not measured
// again.)
constexpr int64_t ROW_FUSE = 4;

// The largest key of each block j in rows r .. r+ROW_FUSE-1 of `seg` (rows of `blocks`
// keys), into head[j], or (Max) the larger of it and head[j].
template <class KeyT, bool Unit, bool Max>
inline void fused_rows(const typename KeyT::type* seg, int64_t r, int64_t blocks,
                       typename KeyT::type flip, typename KeyT::type* __restrict head) {
    using U = typename KeyT::type;
    const U* __restrict a = seg + r * blocks;
    const U* __restrict b = a + blocks;
    const U* __restrict c = b + blocks;
    const U* __restrict d = c + blocks;
    for (int64_t j = 0; j < blocks; ++j) {
        const U ka = key_at<KeyT, Unit>(a, j, flip), kb = key_at<KeyT, Unit>(b, j, flip);
        const U kc = key_at<KeyT, Unit>(c, j, flip), kd = key_at<KeyT, Unit>(d, j, flip);
        const U ab = ka > kb ? ka : kb, cd = kc > kd ? kc : kd;
        const U top = ab > cd ? ab : cd;
        if constexpr (Max) head[j] = head[j] > top ? head[j] : top;
        else head[j] = top;
    }
}

// head[j] = the largest key of block j in rows r0 .. r1-1 (r0 < r1) of the m elements of
// `seg` laid out in rows of `blocks` (the last row may be partial; a block it does not reach
// in a band of that row alone gets the least key).
template <class KeyT, bool Unit>
inline void rows_max(const typename KeyT::type* seg, int64_t r0, int64_t r1, int64_t blocks,
                     int64_t m, typename KeyT::type flip, typename KeyT::type* __restrict head,
                     bool fuse) {
    using U = typename KeyT::type;
    const int64_t full = fuse ? std::min(r1, m / blocks) : 0;  // rows the fused passes take
    int64_t r = r0;
    if (r + ROW_FUSE <= full) {
        fused_rows<KeyT, Unit, false>(seg, r, blocks, flip, head);
        r += ROW_FUSE;
    } else {
        const U* __restrict row = seg + r * blocks;
        const int64_t len = std::min(blocks, m - r * blocks);
        for (int64_t j = 0; j < len; ++j) head[j] = key_at<KeyT, Unit>(row, j, flip);
        for (int64_t j = len; j < blocks; ++j) head[j] = U(0);
        ++r;
    }
    for (; r + ROW_FUSE <= full; r += ROW_FUSE)
        fused_rows<KeyT, Unit, true>(seg, r, blocks, flip, head);
    for (; r < r1; ++r) {
        const U* __restrict row = seg + r * blocks;
        const int64_t len = std::min(blocks, m - r * blocks);
        for (int64_t j = 0; j < len; ++j) {
            const U key = key_at<KeyT, Unit>(row, j, flip);
            head[j] = head[j] > key ? head[j] : key;
        }
    }
}

// Bits of v (0 for 0).
inline int bit_length(uint64_t v) {
    int b = 0;
    while (v) {
        v >>= 1;
        ++b;
    }
    return b;
}

// A lower bound of the k-th largest of vals[:m] (1 <= k <= m) that at least k values reach,
// and at most about BOUND_SLACK values more than the k-th largest does.
//
// A radix select on the values' range, RADIX_BITS bits at a time: the buckets are counted
// from the top until they hold k values, and the bucket where that happens is split again
// while it holds more than BOUND_SLACK values. Each level is one branch-free pass over vals;
// on block maxima of random rows one level is nearly always enough (m = 576, k = 100: 0.4 us
// against 1.6 us for a quickselect of (key, position) pairs, and 1.5 extra blocks on
// average). `counts` holds at least 2^RADIX_BITS + 2 entries; m < 2^31.
template <class U>
U radix_bound(const U* vals, int64_t m, int64_t k, int32_t* counts) {
    U lo = vals[0], hi = vals[0];
    for (int64_t i = 1; i < m; ++i) {
        const U v = vals[i];
        lo = v < lo ? v : lo;
        hi = v > hi ? v : hi;
    }
    int64_t need = k;
    for (bool first = true;; first = false) {
        const uint64_t span = uint64_t(U(hi - lo));
        const int shift = std::max(0, bit_length(span) - RADIX_BITS);
        const int64_t top = int64_t(span >> shift);  // the last bucket; top + 1 counts the rest
        std::fill(counts, counts + top + 2, int32_t(0));
        if (first) {  // every value lies in [lo, hi]
            for (int64_t i = 0; i < m; ++i) ++counts[uint64_t(U(vals[i] - lo)) >> shift];
        } else {
            for (int64_t i = 0; i < m; ++i) {
                const U v = vals[i];
                const bool inside = (v >= lo) & (v <= hi);
                const int64_t at = int64_t(uint64_t(U(v - lo)) >> shift);
                ++counts[inside ? at : top + 1];
            }
        }
        int64_t b = top;
        while (counts[b] < need) {
            need -= counts[b];
            --b;
        }
        const U base = U(lo + U(uint64_t(b) << shift));
        if (shift == 0 || counts[b] <= BOUND_SLACK) return base;
        const U width = U((uint64_t(1) << shift) - 1);
        if (U(hi - base) > width) hi = U(base + width);  // not base + width > hi: that can wrap
        lo = base;
    }
}

// The k-th largest of the maxima of m / GROUP groups of vals[:m], by insertion into
// `scratch` (which holds k + m / GROUP). Used when m >= 4 * GROUP * k.
//
// Group g holds vals[r * groups + g] for r < GROUP; the group maxima are one vectorised
// pass. k groups hold a value at least as large, so this is a lower bound of the k-th largest
// value that k values reach; on random block maxima it lets in a few more blocks than the
// k-th largest itself would. Finding that (inserting the values of the groups that reach this
// bound) costs more than the extra blocks it saves on random rows, and groups of 8 balance
// the group maxima's pass against the looser bound.
template <class U>
U bound_by_groups(const U* vals, int64_t m, int64_t k, U* scratch) {
    const int64_t groups = m / GROUP;
    U* gmax = scratch + k;
    for (int64_t g = 0; g < groups; ++g) gmax[g] = vals[g];
    for (int64_t r = 1; r < GROUP; ++r) max_into(vals + r * groups, groups, gmax);
    int64_t count = 0;
    for (int64_t g = 0; g < groups; ++g) count = insert_word(scratch, count, k, gmax[g]);
    return scratch[k - 1];
}

// A lower bound of the k-th largest of vals[:m] (1 <= k <= m) that k of them reach. For
// k <= SORTED_K: the k-th largest itself (by insertion into `scratch`, which holds
// k + m / GROUP), or when m is at least 4 * GROUP * k, the k-th largest of group maxima
// (`bound_by_groups`); above, `radix_bound`.
template <class U>
U kth_bound(const U* vals, int64_t m, int64_t k, U* scratch, int32_t* counts) {
    if (k > SORTED_K) return radix_bound(vals, m, k, counts);
    if (m >= 4 * GROUP * k) return bound_by_groups(vals, m, k, scratch);
    int64_t count = 0;
    for (int64_t i = 0; i < m; ++i) count = insert_word(scratch, count, k, vals[i]);
    return scratch[k - 1];
}

// Blocks whose maximum reaches lo, into hits; returns their count. Branch-free (every j is
// written, and kept by advancing past it): on random rows about one block in five
// qualifies, and a branch's mispredictions made this pass cost a third of the maxima pass
// (k = 100 of 10000).
template <class U>
inline int64_t qualifying(const U* __restrict bmax, int64_t blocks, U lo,
                          int64_t* __restrict hits) {
    int64_t h = 0;
    for (int64_t j = 0; j < blocks; ++j) {
        hits[h] = j;
        h += bmax[j] >= lo;
    }
    return h;
}

// The blocks of among[:count] whose maximum in bmax reaches lo, into hits (branch-free, like
// `qualifying`); returns their count.
template <class U>
inline int64_t qualifying_among(const U* __restrict bmax, const int64_t* __restrict among,
                                int64_t count, U lo, int64_t* __restrict hits) {
    int64_t h = 0;
    for (int64_t t = 0; t < count; ++t) {
        const int64_t j = among[t];
        hits[h] = j;
        h += bmax[j] >= lo;
    }
    return h;
}

// The first position in the ascending hits[:h] whose block is after j.
inline int64_t after(const int64_t* hits, int64_t h, int64_t j) {
    int64_t lo = 0, hi = h;
    while (lo < hi) {
        const int64_t mid = (lo + hi) >> 1;
        if (hits[mid] <= j) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

// Whether `count` is more than a spread sample puts at an expected `share`.
inline bool beyond_chance(int64_t count, double share) {
    return double(count) > share + HOPE_SIGMAS * std::sqrt(share) + double(HOPE_SLACK);
}

// How many of the block maxima of `sampled` of n elements a hoped-for first bound has at or
// above it.
inline int64_t hope_rank(int64_t k, int64_t sampled, int64_t n) {
    const double share = double(k) * double(sampled) / double(n);
    return int64_t(share + HOPE_SIGMAS * std::sqrt(share)) + HOPE_SLACK;
}

// The most of the sample's block maxima at or above `hope` in one sampled segment (the first
// segment's `first` maxima, then `blocks` for each of the others).
template <class U>
int64_t most_in_one(const U* bmax, int64_t first, int64_t blocks, int64_t ns, U hope) {
    int64_t most = 0, start = 0;
    for (int64_t s = 0; s < ns; ++s) {
        const int64_t size = s == 0 ? first : blocks;
        int64_t count = 0;
        for (int64_t j = start; j < start + size; ++j) count += bmax[j] >= hope;
        most = std::max(most, count);
        start += size;
    }
    return most;
}

// An array made without zeroing it (every entry a scan reads it has written first): a
// scanner is made per task, and zeroing its buffers cost more than some tasks' rows.
template <class T>
class Buffer {
public:
    void resize(size_t n) { data_.reset(new T[n]); }
    T* data() { return data_.get(); }
    const T* data() const { return data_.get(); }

private:
    std::unique_ptr<T[]> data_;
};

// What one scan did, for tests that check every path runs (counted where it is cheap: per
// segment, per compaction).
struct ScanStats {
    int64_t sampled = 0;      // segments sampled for a first bound
    int64_t hoped = 0;        // scans from a hoped-for first bound
    int64_t rescans = 0;      // ... that let in fewer than k and were scanned again
    int64_t banded = 0;       // segments read band by band
    int64_t compactions = 0;  // candidate buffers compacted to their k best
    int64_t rises = 0;        // ... that raised the bound inside a segment
    int64_t all_largest = 0;  // scans that stopped early: the k best are all the largest key
};

// The k best of c candidates (keys, idx) to the front of idx, sorted best first if do_sort.
// Keys of up to 32 bits with indices below 2^32 - 1 are packed with their index into one
// word (`pack`, whose `>` is the tie rule) and selected and sorted as words (callgrind,
// float32 (1000, 10000) k=100: 11.3M -> 6.8M instructions against pairs).
template <class U>
void finish_candidates(U* keys, int64_t* idx, uint64_t* words, int64_t c, int64_t k,
                       bool do_sort) {
    if (words == nullptr) {
        finish_best(keys, idx, c, k, do_sort);
        return;
    }
    for (int64_t t = 0; t < c; ++t) words[t] = pack(keys[t], idx[t]);
    const auto first = std::greater<uint64_t>();
    std::nth_element(words, words + (k - 1), words + c, first);
    if (do_sort) std::sort(words, words + k, first);
    for (int64_t j = 0; j < k; ++j) idx[j] = unpack_index(words[j]);
}

// Finds candidates for the k best keys of sequences of n elements (one sequence at a time,
// reusing its buffers). Each thread has its own. `band_rows` is for tests (0 chooses).
// Keys of up to 32 bits with indices below the tuning's words_max_n finish as packed words
// (`finish_candidates`).
template <class KeyT>
class Scanner {
public:
    using U = typename KeyT::type;

    Scanner(const Tuning& t, int64_t n, int64_t stride, int64_t k, int64_t seg, U flip,
            int64_t band_rows = 0)
        : n_(n), stride_(stride), k_(k), seg_(std::max<int64_t>(1, std::min(seg, n))),
          flip_(flip), unit_(stride == 1), band_share_(t.band_share),
          hope_min_samples_(t.hope_min_samples), fuse_bytes_(t.scan_fuse_bytes) {
        parts_ = (n_ + seg_ - 1) / seg_;
        step_ = (n_ + parts_ - 1) / parts_;  // equal segments, none of them a short tail
        ns_ = samples(t, n_, seg_, k_);
        band_rows_ = band_rows > 0 ? band_rows : k_ >= t.band_min_k ? t.band_rows : ONE_BAND;
        const int64_t blocks = step_ / BLOCK + 64;
        const int64_t bmax_size = std::max<int64_t>(2, ns_) * blocks;
        tile_.resize(unit_ ? 1 : size_t(step_));
        bmax_.resize(size_t(bmax_size));  // the first bound's sampled segments side by side
        const int64_t most_bands = band_rows_ < ONE_BAND ? band_count(MAX_ROWS, band_rows_) : 0;
        bands_.resize(size_t(std::max<int64_t>(1, most_bands * blocks)));
        hits_.resize(size_t(2 * blocks));
        // insertion of at most SORTED_K values, or of the group maxima of every block maximum
        scratch_.resize(size_t(SORTED_K + bmax_size / GROUP + 1));
        counts_.resize((size_t(1) << RADIX_BITS) + 2);
        cap_ = std::max<int64_t>(2 * k_, t.scan_min_buffer);
        ckeys_.resize(size_t(cap_));
        cidx_.resize(size_t(cap_));
        words_ok_ = sizeof(U) <= 4 && k_ > SORTED_K && n_ < t.words_max_n;
        words_.resize(words_ok_ ? size_t(cap_) : 0);
    }

    // Candidates for the k best of the sequence at src (element i at src[i * stride]): returns
    // how many (key, index) pairs are in keys()/indices(), at least min(k, n), and among them
    // the k best.
    int64_t sequence(const U* src) {
        src_ = src;
        const Steps first = steps(-ns_, U(0));
        if (first.done || first.c >= k_ || !first.hoping) return first.c;
        // The hoped-for first bound let in fewer than k: again from the sure one.
        ++stats_.rescans;
        return steps(0, first.sure).c;
    }

    U* keys() { return ckeys_.data(); }
    int64_t* indices() { return cidx_.data(); }
    // The k best of the c candidates sequence() found to the front of indices(), sorted
    // best first if do_sort.
    void finish(int64_t c, bool do_sort) {
        finish_candidates(ckeys_.data(), cidx_.data(), words_ok_ ? words_.data() : nullptr, c,
                          k_, do_sort);
    }
    // Whether finish() packs keys and indices into words.
    bool finishes_words() const { return words_ok_; }
    const ScanStats& stats() const { return stats_; }
    // Block maxima of elements s0 .. s0+m-1 of the sequence at src (for tests): into bmax,
    // and with more than one band of band_rows rows, each band's into bands().
    Layout maxima(const U* src, int64_t s0, int64_t m, U* bmax, int64_t band_rows) {
        src_ = src;
        return segment_maxima(s0, m, bmax, band_rows);
    }
    const U* bands() const { return bands_.data(); }

private:
    struct Steps {
        int64_t c;
        U sure;
        bool done, hoping;
    };

    // Block maxima of the segment s0 .. s0+m-1 into bmax (and, with more than one band of
    // band_rows rows, each band's into bands_). At unit stride they come straight from the
    // input; at other strides through the key tile, which the scan then reads its
    // candidates' keys from.
    Layout segment_maxima(int64_t s0, int64_t m, U* bmax, int64_t band_rows) {
        const Layout L = block_layout(m);
        const int64_t blocks = L.blocks;
        const int64_t nb = band_count(L.rows, band_rows);
        const bool fuse = blocks * int64_t(sizeof(U)) >= fuse_bytes_;
        const U* seg = nullptr;
        if (unit_) {
            seg = src_ + s0;
        } else {
            fill_keys<KeyT>(src_ + s0 * stride_, stride_, m, flip_, tile_.data());
            seg = tile_.data();
        }
        for (int64_t g = 0; g < nb; ++g) {
            U* head = nb == 1 ? bmax : bands_.data() + g * blocks;
            const int64_t r0 = g * band_rows, r1 = std::min(L.rows, (g + 1) * band_rows);
            if (unit_) rows_max<KeyT, true>(seg, r0, r1, blocks, m, flip_, head, fuse);
            else rows_max<KeyT, false>(seg, r0, r1, blocks, m, flip_, head, fuse);
        }
        if (nb > 1) fold_bands(bands_.data(), blocks, nb, bmax);
        return L;
    }

    // A hoped-for first bound above the sure one lo (see HOPE_MIN_SAMPLES), or lo when the
    // sample is too small or not spread.
    U hoped_bound(int64_t in_sample, int64_t blocks, U lo) {
        const int64_t rank = hope_rank(k_, ns_ * step_, n_);
        if (ns_ < hope_min_samples_ || rank >= k_ || rank > in_sample) return lo;
        const U hope = kth_bound(bmax_.data(), in_sample, rank, scratch_.data(), counts_.data());
        if (hope <= lo) return lo;
        const int64_t first = block_layout(n_ - (parts_ - 1) * step_).blocks;  // sampled first
        if (beyond_chance(most_in_one(bmax_.data(), first, blocks, ns_, hope),
                          double(rank) / double(ns_)))
            return lo;
        return hope;
    }

    // Steps first .. of the scan from the bound lo. Steps -ns .. -1 sample segments spread
    // from the last one back (their block maxima side by side in bmax) for a first bound;
    // steps 0.. scan the segments. `sure` is the bound the sample gave, and `hoping` says the
    // scan used a higher one, which may have let in fewer than k.
    Steps steps(int64_t first, U lo) {
        U* bmax = bmax_.data();
        int64_t* hits = hits_.data();
        int64_t c = 0, sampled = 0, in_sample = 0;
        bool hoping = false;
        U sure = lo;
        int64_t expect = k_;  // blocks expected to qualify in the next segment
        for (int64_t it = first; it < parts_; ++it) {
            const int64_t s0 = it >= 0 ? it * step_
                                       : (parts_ - 1 - ((it + ns_) * parts_) / ns_) * step_;
            const int64_t m = std::min(step_, n_ - s0);
            int64_t seg_rows = ONE_BAND;
            if (it >= 0 && band_share_ * expect >= block_layout(m).blocks) seg_rows = band_rows_;
            const Layout L = segment_maxima(s0, m, bmax + sampled, seg_rows);
            const int64_t blocks = L.blocks;
            int64_t h = 0, count = 0;
            if (it < 0) {
                ++stats_.sampled;
                sampled += blocks;
                if (it < -1) continue;
                in_sample = sampled;
                sampled = 0;  // the scan's maxima go to the front of bmax
                count = in_sample >= k_ ? in_sample : 0;
            } else if (lo == U(0) && blocks > k_) {  // every block reaches the least key
                h = count = blocks;
            } else {
                h = qualifying(bmax, blocks, lo, hits);
                count = h > k_ && blocks >= k_ ? blocks : 0;
            }
            if (count > 0) {
                const U bound = kth_bound(bmax, count, k_, scratch_.data(), counts_.data());
                if (bound > lo) lo = bound;
                if (it >= 0) h = qualifying(bmax, blocks, lo, hits);
            }
            if (it < 0) {
                sure = lo;
                lo = hoped_bound(in_sample, blocks, lo);
                hoping = lo > sure;
                stats_.hoped += hoping;
                continue;
            }
            expect = h;
            const int64_t nb = band_count(L.rows, seg_rows);
            if (nb == 1) {
                if (scan_band(s0, m, blocks, 0, L.rows, bmax, hits, h, lo, c))
                    return {c, sure, true, hoping};
                continue;
            }
            // A band's qualifying blocks are among the segment's (the bound only rises), so
            // they are picked from those h, not from every block again.
            ++stats_.banded;
            int64_t* band_hits = hits + blocks;
            for (int64_t g = 0; g < nb; ++g) {
                const U* band = bands_.data() + g * blocks;
                const int64_t hb = qualifying_among(band, hits, h, lo, band_hits);
                if (scan_band(s0, m, blocks, g * seg_rows, std::min(L.rows, (g + 1) * seg_rows),
                              band, band_hits, hb, lo, c))
                    return {c, sure, true, hoping};
            }
        }
        return {c, sure, false, hoping};
    }

    // Candidates from rows r .. r_end-1 of the segment at s0 (m elements), in the h blocks
    // `hits` whose maximum in `band` reached lo. Returns true when the k best are all the
    // largest key (nothing later can enter).
    bool scan_band(int64_t s0, int64_t m, int64_t blocks, int64_t r, int64_t r_end,
                   const U* band, int64_t* hits, int64_t h, U& lo, int64_t& c) {
        return unit_ ? band_candidates<true>(s0, m, blocks, r, r_end, band, hits, h, lo, c)
                     : band_candidates<false>(s0, m, blocks, r, r_end, band, hits, h, lo, c);
    }

    // `scan_band` with keys from the input (Unit) or the tile. The bound and the count live
    // in locals: stores to the candidate arrays could otherwise alias them.
    template <bool Unit>
    AXISOPS_NOINLINE bool band_candidates(int64_t s0, int64_t m, int64_t blocks, int64_t r,
                                          int64_t r_end, const U* band, int64_t* hits, int64_t h,
                                          U& lo_out, int64_t& c_out) {
        U* __restrict ckeys = ckeys_.data();
        int64_t* __restrict cidx = cidx_.data();
        const U* seg = Unit ? src_ + s0 : tile_.data();
        const U flip = flip_;
        const int64_t cap = cap_;
        U lo = lo_out;
        int64_t c = c_out;
        bool done = false;
        int64_t t0 = 0;
        while (r < r_end && !done) {
            const int64_t row = r * blocks;
            bool rose = false;
            for (int64_t t = t0; t < h; ++t) {
                const int64_t j = hits[t];
                const int64_t i = row + j;
                if (i >= m) break;
                const U key = key_at<KeyT, Unit>(seg, i, flip);
                if (key < lo) continue;
                ckeys[c] = key;
                cidx[c] = s0 + i;
                if (++c < cap) continue;
                partition_best(ckeys, cidx, c, k_);
                c = k_;
                ++stats_.compactions;
                U worst = ckeys[0];
                for (int64_t w = 1; w < k_; ++w) worst = ckeys[w] < worst ? ckeys[w] : worst;
                if (worst == Bits<U>::ones) {
                    ++stats_.all_largest;
                    done = true;
                    break;
                }
                const U next = U(worst + 1);
                if (next > lo) {
                    // The bound rose: drop the blocks that no longer reach it, and go on after
                    // block j of this row (tie-heavy input would otherwise visit every element).
                    lo = next;
                    ++stats_.rises;
                    h = qualifying(band, blocks, lo, hits);
                    t0 = after(hits, h, j);
                    rose = true;
                    break;
                }
            }
            if (!rose) {
                ++r;
                t0 = 0;
            }
        }
        lo_out = lo;
        c_out = c;
        return done;
    }

    const int64_t n_, stride_, k_, seg_;
    const U flip_;
    const bool unit_;
    const int64_t band_share_, hope_min_samples_, fuse_bytes_;
    bool words_ok_ = false;
    int64_t parts_ = 0, step_ = 0, ns_ = 0, band_rows_ = 0, cap_ = 0;
    const U* src_ = nullptr;
    ScanStats stats_;
    Buffer<U> tile_, bmax_, bands_, scratch_, ckeys_;
    Buffer<int64_t> hits_, cidx_;
    Buffer<int32_t> counts_;  // counts of at most a segment's block maxima
    Buffer<uint64_t> words_;
};

// Row q of the outputs from the parts' sorted best: part p's are vals/idx over
// bounds[p] .. bounds[p+1]-1 (elements' bits and their indices in the whole sequence, best
// first; the parts in index order, at least k in all).
//
// A merge of sorted runs, O(k * parts): it reads no input, so a sequence's end costs nothing
// for what the scan left out of the caches (recomputing the candidates' keys from the input,
// and selecting and sorting them again, would read k scattered lines per part). Equal keys
// go to the earlier part, whose indices are lower.
template <class KeyT>
void merge_parts(const TopKJob<KeyT>& job, int64_t q, const typename KeyT::type* vals,
                 const int64_t* idx, const int64_t* bounds, int64_t parts, int64_t* heads,
                 typename KeyT::type* keys) {
    if (bounds[parts] < job.k)
        throw std::logic_error("axisops internal error: parts kept fewer than k candidates");
    for (int64_t p = 0; p < parts; ++p) {
        heads[p] = bounds[p];
        if (heads[p] < bounds[p + 1]) keys[p] = job.key(vals[heads[p]]);
    }
    for (int64_t j = 0; j < job.k; ++j) {
        int64_t best = -1;
        for (int64_t p = 0; p < parts; ++p)
            if (heads[p] < bounds[p + 1] && (best < 0 || keys[p] > keys[best])) best = p;
        const int64_t at = heads[best];
        const int64_t o = job.out_at(q, j);
        job.out_vals[o] = vals[at];
        job.out_idx.set(o, idx[at]);
        heads[best] = at + 1;
        if (at + 1 < bounds[best + 1]) keys[best] = job.key(vals[at + 1]);
    }
}

}  // namespace scan_detail

namespace scan_detail {

// The paths a scanner took, by its stats.
template <class KeyT>
void mark_paths(const Scanner<KeyT>& scanner, Trace& trace) {
    const ScanStats& s = scanner.stats();
    trace.mark(scanner.finishes_words() ? Path::topk_finish_words : Path::topk_finish_pairs);
    if (s.sampled) trace.mark(Path::topk_scan_sampled);
    if (s.hoped) trace.mark(Path::topk_scan_hoped);
    if (s.rescans) trace.mark(Path::topk_scan_rescan);
    if (s.banded) trace.mark(Path::topk_scan_banded);
    if (s.compactions) trace.mark(Path::topk_scan_compacted);
    if (s.rises) trace.mark(Path::topk_scan_rose);
    if (s.all_largest) trace.mark(Path::topk_scan_all_largest);
}

}  // namespace scan_detail

// The scan strategy for sequences q0 .. q1-1.
template <class KeyT>
void topk_scan_rows(const TopKJob<KeyT>& job, int64_t q0, int64_t q1) {
    using U = typename KeyT::type;
    const Sequences& s = job.seqs;
    const int64_t seg =
        scan_detail::segment_length(job.tune, job.segment, s.stride, int(sizeof(U)));
    scan_detail::Scanner<KeyT> scanner(job.tune, s.n, s.stride, job.k, seg, job.flip);
    job.trace.mark(Path::topk_scan);
    for (int64_t q = q0; q < q1; ++q) {
        const int64_t c = scanner.sequence(job.seq(q));
        if (c < job.k) input_changed();
        scanner.finish(c, job.sorted);
        job.put_row(q, scanner.indices());
    }
    scan_detail::mark_paths(scanner, job.trace);
}

// The scan of a few long sequences, each cut into parts across threads: every part is
// scanned as a sequence of its own (its k best, sorted), then `merge_parts` merges them.
// The parts are fixed by n and the requested thread count (one per thread, at least two,
// whether or not the call is large enough to run on that many); each part's k best and the
// merge are exact, so the result does not depend on them. `threads` is how many run them.
template <class KeyT>
void topk_scan_split(const TopKJob<KeyT>& job, int threads) {
    using U = typename KeyT::type;
    const Sequences& s = job.seqs;
    const int64_t n = s.n, k = job.k, count = s.count();
    const int64_t parts = std::min<int64_t>(std::max(2, job.threads), n);
    const int64_t seg =
        scan_detail::segment_length(job.tune, job.segment, s.stride, int(sizeof(U)));
    job.trace.mark(Path::topk_scan_split);
    // Part p holds elements starts[p] .. starts[p+1]-1 of each sequence, and keeps its
    // min(k, length) best at bounds[p] .. bounds[p+1]-1 of that sequence's candidates.
    std::vector<int64_t> starts(size_t(parts + 1)), bounds(size_t(parts + 1));
    for (int64_t p = 0; p <= parts; ++p) starts[size_t(p)] = n / parts * p + std::min(p, n % parts);
    bounds[0] = 0;
    for (int64_t p = 0; p < parts; ++p)
        bounds[size_t(p + 1)] =
            bounds[size_t(p)] + std::min(k, starts[size_t(p + 1)] - starts[size_t(p)]);
    const int64_t per_seq = bounds[size_t(parts)];
    std::vector<U> vals(size_t(per_seq * count));
    std::vector<int64_t> idx(size_t(per_seq * count));
    parallel_for(count * parts, threads, [&](int64_t t) {
        const int64_t q = t / parts, p = t - q * parts;
        const int64_t p0 = starts[size_t(p)], len = starts[size_t(p + 1)] - p0;
        const int64_t kp = bounds[size_t(p + 1)] - bounds[size_t(p)];
        const U* src = job.seq(q) + p0 * s.stride;
        scan_detail::Scanner<KeyT> scanner(job.tune, len, s.stride, kp, seg, job.flip);
        const int64_t c = scanner.sequence(src);
        if (c < kp) input_changed();
        int64_t* best = scanner.indices();
        scanner.finish(c, true);
        scan_detail::mark_paths(scanner, job.trace);
        U* v = vals.data() + q * per_seq + bounds[size_t(p)];
        int64_t* w = idx.data() + q * per_seq + bounds[size_t(p)];
        for (int64_t j = 0; j < kp; ++j) {
            v[j] = src[best[j] * s.stride];
            w[j] = p0 + best[j];
        }
    });
    std::vector<int64_t> heads(static_cast<size_t>(parts));
    std::vector<U> keys(static_cast<size_t>(parts));
    for (int64_t q = 0; q < count; ++q)
        scan_detail::merge_parts(job, q, vals.data() + q * per_seq, idx.data() + q * per_seq,
                                 bounds.data(), parts, heads.data(), keys.data());
}

}  // namespace AXISOPS_ISA_NS
}  // namespace axisops
