// Selection in a sequence read in place: keys are widened chunk by chunk into a small
// buffer that stays in the first-level cache, never into a copy of the whole sequence.
//
// - select_row: one sequence on one thread (sequences in tasks), with the bounds its task's
//   previous sequence left (`KthHint`), so rows alike cost one pass and a small search;
// - select_parted: one long sequence cut into parts across the threads. Each part counts
//   and collects on its own; the parts' results are combined in part order, which is index
//   order, so the answer is the same for any number of parts or threads.
#pragma once

#include "common/isa.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <utility>
#include <vector>

#include "common/errors.hpp"
#include "common/pool.hpp"
#include "common/tuning.hpp"
#include "select/arena.hpp"
#include "select/bands.hpp"
#include "select/kth.hpp"
#include "select/rows.hpp"

namespace axisops {
namespace AXISOPS_ISA_NS {

// Chunks read ahead of the one being worked on (measured: a fill of 10M float32 keys by
// chunks of 2048 took 5.4 ms with no prefetching, 4.5 ms one chunk ahead, 3.1 ms two
// ahead; a plain read 2.1 ms).
constexpr int64_t PREFETCH_CHUNKS = 2;

// A sequence of parts.n elements at src[i * stride], read by parts on up to `threads`
// threads (one part and one thread for a row), in chunks of `chunk` elements (the tuning's
// select_chunk); every key XORed with `flip` (with_key's, for signed integers).
template <class KeyT>
struct PartedSeq {
    using U = typename KeyT::type;
    using K = Wide<U>;

    const U* src;
    int64_t stride;
    Parts parts;
    int threads;
    int64_t chunk;
    U flip;

    int64_t n() const { return parts.n; }
    K key(int64_t i) const { return K(KeyT::of(src[i * stride], flip)); }

    // body(p, buf) for every part p, `buf` `chunk` keys of scratch.
    template <class F>
    void each_part(F&& body) const {
        parallel_for(parts.count, threads, [&](int64_t p) {
            std::vector<K> buf(static_cast<size_t>(chunk));
            body(p, buf.data());
        });
    }
    // f(begin, len, ahead) for the chunks of [begin, end); `ahead` prefetches, while f
    // works, the chunk PREFETCH_CHUNKS after this one (past the end, the memory `then`
    // spans: the next sequence), so reads are issued far enough ahead to keep memory
    // streaming.
    template <class F>
    void spans(int64_t begin, int64_t end, F&& f, Ahead then = Ahead()) const {
        const int64_t line = 64;
        for (int64_t b = begin; b < end; b += chunk) {
            const int64_t len = std::min(chunk, end - b);
            Ahead ahead;
            const int64_t to = b + PREFETCH_CHUNKS * chunk;  // elements
            if (stride == 1 && to < end) {
                ahead = Ahead(src + to, std::min(chunk, end - to) * int64_t(sizeof(U)));
            } else if (then.at < then.end) {
                const int64_t skip = (to - end) * int64_t(sizeof(U)) / line * line;
                const int64_t left = int64_t(then.end - then.at) - std::max<int64_t>(skip, 0);
                if (left > 0)
                    ahead = Ahead(then.at + std::max<int64_t>(skip, 0),
                                  std::min(chunk * int64_t(sizeof(U)), left));
            }
            f(b, len, ahead);
        }
    }
    // f(keys, begin, len, ahead) likewise, the chunk's keys widened into `buf`.
    template <class F>
    void chunks(int64_t begin, int64_t end, K* buf, F&& f, Ahead then = Ahead()) const {
        spans(
            begin, end,
            [&](int64_t b, int64_t len, Ahead& ahead) {
                fill_wide<KeyT>(src + b * stride, stride, len, flip, buf);
                f(static_cast<const K*>(buf), b, len, ahead);
            },
            then);
    }
    // band_pass over elements [b, b + len): straight from the bits where that fuses, else
    // through `buf`.
    void band(int64_t b, int64_t len, K lo, K hi, K* out_k, uint32_t* out_i, int64_t cap,
              Band& band, Ahead& ahead, K* buf) const {
        if constexpr (band_fuses<U>() && sizeof(U) == sizeof(K)) {
            if (stride == 1) {
                const U f = flip;
                band_pass_of(src + b, [f](U u) { return KeyT::of(u, f); }, uint32_t(b), len, lo, hi,
                             out_k, out_i, cap, band, ahead);
                return;
            }
        }
        fill_wide<KeyT>(src + b * stride, stride, len, flip, buf);
        band_pass(static_cast<const K*>(buf), static_cast<const uint32_t*>(nullptr),
                  uint32_t(b), len, lo, hi, out_k, out_i, cap, band, ahead);
    }
    // bands_pass likewise.
    void bands(int64_t b, int64_t len, BandSet<K>& set, K* out_k, uint32_t* out_i, int64_t cap,
               Ahead& ahead, K* buf) const {
        if constexpr (band_fuses<U>() && sizeof(U) == sizeof(K)) {
            if (stride == 1) {
                const U f = flip;
                bands_pass_of(src + b, [f](U u) { return KeyT::of(u, f); }, uint32_t(b), len, set,
                              out_k, out_i, cap, ahead);
                return;
            }
        }
        fill_wide<KeyT>(src + b * stride, stride, len, flip, buf);
        bands_pass(static_cast<const K*>(buf), uint32_t(b), len, set, out_k, out_i, cap, ahead);
    }
    template <class F>
    void part_chunks(int64_t p, K* buf, F&& f) const {
        chunks(parts.begin(p), parts.end(p), buf, f);
    }
    // The same with f(keys, begin, len) (no prefetching).
    template <class F>
    void plain_chunks(int64_t begin, int64_t end, K* buf, F&& f) const {
        chunks(begin, end, buf, [&](const K* k, int64_t b, int64_t l, Ahead&) { f(k, b, l); });
    }

    // The index of the j-th (0-based) element with key v, given each part's count of them
    // (from an earlier pass: if the input changed since, the element may not be there).
    int64_t locate(K v, int64_t j, const std::vector<int64_t>& per_part) const {
        size_t p = 0;
        while (p < per_part.size() && per_part[p] <= j) j -= per_part[p++];
        if (p == per_part.size()) input_changed();
        std::vector<K> buf(static_cast<size_t>(chunk));
        const int64_t end = parts.end(int64_t(p));
        for (int64_t b = parts.begin(int64_t(p)); b < end; b += chunk) {
            const int64_t len = std::min(chunk, end - b);
            fill_wide<KeyT>(src + b * stride, stride, len, flip, buf.data());
            const int64_t c = count_eq(buf.data(), len, v);
            if (c > j) return b + locate_eq(buf.data(), len, v, j);
            j -= c;
        }
        input_changed();  // the part held fewer than counted
    }

    // The index of the element of stable rank r by the exact radix select.
    int64_t radix_select(int64_t r, int key_bytes) const {
        std::vector<std::array<int64_t, 256>> hist(static_cast<size_t>(parts.count));
        const K v = radix_key<K>(key_bytes, r, [&](K prefix, int top, int shift, int64_t* c) {
            each_part([&](int64_t p, K* buf) {
                int64_t* h = hist[size_t(p)].data();
                std::fill(h, h + 256, int64_t(0));
                part_chunks(p, buf, [&](const K* keys, int64_t, int64_t len, Ahead&) {
                    digit_hist(keys, len, prefix, top, shift, key_bytes, h);
                });
            });
            for (const auto& h : hist)
                for (int b = 0; b < 256; ++b) c[b] += h[size_t(b)];
        });
        std::vector<int64_t> equal(static_cast<size_t>(parts.count));
        each_part([&](int64_t p, K* buf) {
            int64_t c = 0;
            part_chunks(p, buf, [&](const K* keys, int64_t, int64_t len, Ahead&) {
                c += count_eq(keys, len, v);
            });
            equal[size_t(p)] = c;
        });
        return locate(v, r, equal);
    }
};

// Scratch of a task selecting in rows: a chunk of keys, the sample, the candidates.
template <class K>
struct RowScratch {
    std::vector<K> buf;
    KthScratch<K> cand;

    explicit RowScratch(const Tuning& t) : buf(static_cast<size_t>(t.select_chunk)) {}
};

// The tuning's row_cap_share and row_cap_min: a row's candidates have room for
// 1/row_cap_share of it (at least row_cap_min): beyond, a band holds a value repeated
// throughout, located directly, or the radix select takes over.

// The index of the element of stable rank r of a sequence of n < 2^32 elements, on this
// thread. `hint` (if any) holds bounds from the task's previous sequence and leaves with
// bounds for its next one; `ahead` prefetches the next sequence meanwhile; `force_radix`
// takes the exact fallback directly (tests).
template <class KeyT>
int64_t select_row(const Tuning& t, LocalTrace& trace, const PartedSeq<KeyT>& seq, int64_t r,
                   int key_bytes, double sigmas, bool force_radix,
                   RowScratch<Wide<typename KeyT::type>>& sc,
                   KthHint<Wide<typename KeyT::type>>* hint, Ahead ahead) {
    using K = Wide<typename KeyT::type>;
    const int64_t n = seq.n();
    if (!force_radix && n <= t.kth_final) {  // kth_final <= select_chunk: one chunk
        trace.mark(Path::select_small);
        seq.chunks(0, n, sc.buf.data(), [](const K*, int64_t, int64_t, Ahead&) {});
        return select_small(sc.buf.data(), n, r);
    }
    if (!force_radix) {
        KthScratch<K>& c = sc.cand;
        const int64_t cap = std::min(n, std::max(t.row_cap_min, n / t.row_cap_share));
        c.reserve(cap);
        K lo = 0, hi = 0;
        Band band;
        auto pass = [&]() {
            band = Band();
            seq.spans(
                0, n,
                [&](int64_t begin, int64_t len, Ahead& pre) {
                    seq.band(begin, len, lo, hi, c.ka.data(), c.ia.data(), cap, band, pre,
                             sc.buf.data());
                },
                ahead);
            return r >= band.below && r < band.below + band.in;
        };
        bool hit = false, missed = false;
        if (hint && hint->valid) {
            lo = hint->lo;
            hi = hint->hi;
            hit = pass();
            missed = !hit;
            trace.mark(hit ? Path::select_hint : Path::select_hint_missed);
        }
        if (!hit) {
            const int64_t s = kth_sample_size(t, n);
            c.sample.resize(size_t(s));
            for (int64_t i = 0; i < s; ++i) c.sample[size_t(i)] = seq.key(sample_at(i, s, n));
            sample_band(t, c.sample.data(), s, r, n, sigmas, lo, hi);
            hit = pass();
        }
        if (hit && band.in > cap) {  // more candidates than room: a few values repeated
            if (hint) hint->valid = false;
            if (lo != hi) {
                trace.mark(Path::select_overflow_radix);
                return seq.radix_select(r, key_bytes);
            }
            trace.mark(Path::select_repeated);
            const int64_t j = r - band.below;  // the j-th key equal to lo
            return j < cap ? int64_t(c.ia[size_t(j)]) : seq.locate(lo, j, {band.in});
        }
        if (hit) {
            trace.mark(Path::select_band);
            HintMarks<K> marks(n, r, sigmas);
            marks.lower(lo, band.below);
            marks.upper(hi, band.below + band.in);
            const uint32_t i = select_candidates(t, trace, c.ka.data(), c.ia.data(), c.kb.data(),
                                                 c.ib.data(), band.in, r - band.below, lo, hi,
                                                 sigmas, c.sample, band.below, &marks);
            if (hint) {
                marks.into(*hint);
                // After a miss (rows unlike each other here) the next row starts from its
                // sample, so unlike rows cost one pass and a half on average, not two.
                if (missed) hint->valid = false;
            }
            return int64_t(i);
        }
        trace.mark(Path::select_missed_radix);
    } else {
        trace.mark(Path::select_radix);
    }
    if (hint) hint->valid = false;
    return seq.radix_select(r, key_bytes);
}

// The tuning's parted_cap_share and parted_cap_min: candidates may take at most
// 1/parted_cap_share of a parted sequence (plus parted_cap_min) in all, per band; beyond,
// the exact radix select takes over (data with a few values repeated throughout, where a
// band holds most of the sequence). A part takes room for them in blocks of parted_block;
// a block is left when a chunk might not fit in it (so at most chunk + BAND_SLACK of it
// goes unused). Sequences of parted_max_n elements or more (indices that do not fit 32
// bits) take the radix select directly. The tuning's select_bands_max: how many bands
// one pass collects at most (several ranks of one sequence: quantiles).

// The candidates of up to select_bands_max key bands [lo, hi] of one parted sequence,
// collected in one pass over it: each part keeps its counts per band and the runs of arena
// slots it filled (in index order) with the candidates of one band, or of the bands' union
// when there are several (bands_pass).
template <class K>
class PartedBands {
public:
    struct Bounds {
        K lo, hi;
    };
    struct Totals {
        Band band;
        bool overflow = false;  // more candidates than the band's room
    };

    template <class KeyT>
    PartedBands(const Tuning& t, Trace& trace, const PartedSeq<KeyT>& seq,
                const std::vector<Bounds>& bounds)
        : bounds_(bounds),
          parts_(seq.parts.count),
          cap_(seq.n() / t.parted_cap_share + t.parted_cap_min),
          blocks_(int64_t(bounds.size()) * (cap_ + cap_ / 7) +
                  parts_ * std::max(t.parted_block, seq.chunk + BAND_SLACK)),
          spare_(cap_ + BAND_SLACK),
          slots_(blocks_ + 2 * spare_ * int64_t(bounds.size())),
          arena_(size_t(slots_) * (sizeof(K) + sizeof(uint32_t)),
                 t.arena_keep_max, trace),
          keys_(static_cast<K*>(arena_.data())),
          idx_(reinterpret_cast<uint32_t*>(keys_ + slots_)),
          found_(static_cast<size_t>(parts_)) {
        collect(t, seq);
    }

    // Band g's counts over the whole sequence.
    Totals totals(size_t g) const {
        Totals all;
        for (const PartBands& pb : found_) {
            all.band.below += pb.counts.below[g];
            all.band.in += pb.counts.in[g];
            all.overflow = all.overflow || pb.overflow;
        }
        all.overflow = all.overflow || all.band.in > cap_;
        return all;
    }
    // Each part's count of band g's candidates.
    std::vector<int64_t> per_part(size_t g) const {
        std::vector<int64_t> in;
        for (const PartBands& pb : found_) in.push_back(pb.counts.in[g]);
        return in;
    }
    // The index of the candidate of rank j among band g's (whose totals say it holds
    // rank j and no overflow), searched in the band's own search buffers (so that the
    // bands can be searched at once on several threads).
    uint32_t select(const Tuning& t, LocalTrace& trace, size_t g, int64_t j, double sigmas,
                    std::vector<K>& scratch) {
        K* const ka = keys_ + blocks_ + 2 * spare_ * int64_t(g);
        uint32_t* const ia = idx_ + blocks_ + 2 * spare_ * int64_t(g);
        const Bounds& lh = bounds_[g];
        Band band;  // the band's candidates, in index order; band.in <= cap: they fit
        for (const PartBands& pb : found_) {
            for (const auto& run : pb.runs) {
                if (bounds_.size() == 1) {
                    std::copy(keys_ + run.first, keys_ + run.first + run.second, ka + band.in);
                    std::copy(idx_ + run.first, idx_ + run.first + run.second, ia + band.in);
                    band.in += run.second;
                } else {
                    band_pass(keys_ + run.first, idx_ + run.first, 0u, run.second, lh.lo, lh.hi,
                              ka, ia, cap_, band);
                }
            }
        }
        return select_candidates(t, trace, ka, ia, ka + spare_, ia + spare_, band.in, j, lh.lo,
                                 lh.hi, sigmas, scratch);
    }
    // The index of the element after element i (key v, a candidate) in the stable order,
    // when that is a candidate too: the next key equal to v in index order, else the first
    // of the smallest key above v. (Every key in a band's bounds is a candidate, so a
    // band's next rank is found among them whatever else the bands' union holds.)
    uint32_t successor(K v, uint32_t i) const {
        K next = K(~K(0));
        for (const PartBands& pb : found_) {
            for (const auto& run : pb.runs) {
                const K* k = keys_ + run.first;
                const uint32_t* x = idx_ + run.first;
                if (count_eq(k, run.second, v) > 0)  // runs are in index order
                    for (int64_t j = 0; j < run.second; ++j)
                        if (k[j] == v && x[j] > i) return x[j];
                next = std::min(next, min_above(k, run.second, v));
            }
        }
        for (const PartBands& pb : found_)
            for (const auto& run : pb.runs)
                if (count_eq(keys_ + run.first, run.second, next) > 0)
                    return idx_[run.first + locate_eq(keys_ + run.first, run.second, next, 0)];
        input_changed();  // the caller's counts said it was there
    }
    // Per part, how many of its elements come before element i (key v, a candidate) in the
    // stable order. Asked only of one band (partition selects one rank at a time), whose
    // runs hold its candidates alone.
    std::vector<int64_t> preceding(K v, uint32_t i) const {
        std::vector<int64_t> before;
        for (const PartBands& pb : found_) {
            int64_t c = pb.counts.below[0];
            for (const auto& run : pb.runs) {
                const K* k = keys_ + run.first;
                c += count_lt(k, run.second, v);
                if (count_eq(k, run.second, v) > 0)  // ties: by index
                    for (int64_t j = 0; j < run.second; ++j)
                        c += int64_t(k[j] == v && idx_[run.first + j] < i);
            }
            before.push_back(c);
        }
        return before;
    }

private:
    struct PartBands {
        std::vector<std::pair<int64_t, int64_t>> runs;  // (first slot, count), in index order
        BandSet<K> counts;
        bool overflow = false;  // candidates found after the arena ran out
    };

    template <class KeyT>
    void collect(const Tuning& t, const PartedSeq<KeyT>& seq) {
        std::atomic<int64_t> taken{0};
        seq.each_part([&](int64_t p, K* buf) {
            PartBands& pb = found_[size_t(p)];
            BandSet<K>& chunk = pb.counts;  // the bands, and the part's counts so far
            chunk.count = int(bounds_.size());
            for (int b = 0; b < chunk.count; ++b) {
                chunk.lo[b] = bounds_[size_t(b)].lo;
                chunk.hi[b] = bounds_[size_t(b)].hi;
            }
            K dummy_k[BAND_SLACK + 1];
            uint32_t dummy_i[BAND_SLACK + 1];
            int64_t at = 0, room = 0, used = 0;  // the current block
            bool full = false;
            seq.spans(seq.parts.begin(p), seq.parts.end(p), [&](int64_t begin, int64_t len,
                                                                Ahead& pre) {
                if (!full && used + len + BAND_SLACK > room) {
                    if (used > 0) pb.runs.emplace_back(at, used);
                    const int64_t size = std::max(len + BAND_SLACK, t.parted_block);
                    at = taken.fetch_add(size);
                    used = 0;
                    room = at + size <= blocks_ ? size : 0;
                    full = room == 0;
                }
                K* const out_k = full ? dummy_k : keys_ + at + used;
                uint32_t* const out_i = full ? dummy_i : idx_ + at + used;
                const int64_t cap = full ? 0 : len;
                int64_t stored;
                if (chunk.count == 1) {
                    Band one;
                    seq.band(begin, len, chunk.lo[0], chunk.hi[0], out_k, out_i, cap, one, pre,
                             buf);
                    chunk.below[0] += one.below;
                    chunk.in[0] += one.in;
                    stored = one.in;
                } else {
                    const int64_t before = chunk.stored;
                    chunk.stored = 0;
                    seq.bands(begin, len, chunk, out_k, out_i, cap, pre, buf);
                    stored = chunk.stored;
                    chunk.stored = before + stored;
                }
                if (full) pb.overflow = pb.overflow || stored > 0;
                else used += stored;
            });
            if (used > 0) pb.runs.emplace_back(at, used);
        });
    }

    std::vector<Bounds> bounds_;
    int64_t parts_, cap_, blocks_, spare_, slots_;
    Arena arena_;
    K* keys_;
    uint32_t* idx_;
    std::vector<PartBands> found_;
};

// The indices of the elements of stable ranks ranks[:m] (ascending, distinct) of a long
// sequence, by parts across threads, into out[:m]: one sample, a band per rank from it,
// bands that overlap merged while their union stays well within one band's room, and the
// bands' candidates collected select_bands_max at a time in one pass each. `preceding`
// (one rank only) receives, per part, how many of its elements come before the answer in
// the stable order, when the candidates tell (it is left empty otherwise).
template <class KeyT>
void select_parted_many(const Tuning& t, Trace& trace, const PartedSeq<KeyT>& seq,
                        const int64_t* ranks, int64_t m, int key_bytes, double sigmas,
                        bool force_radix, int64_t* out,
                        std::vector<int64_t>* preceding = nullptr) {
    using K = Wide<typename KeyT::type>;
    using Bounds = typename PartedBands<K>::Bounds;
    const int64_t n = seq.n();
    if (preceding) preceding->clear();
    if (force_radix || n >= t.parted_max_n) {
        trace.mark(Path::select_parted_radix);
        for (int64_t j = 0; j < m; ++j) out[j] = seq.radix_select(ranks[j], key_bytes);
        return;
    }
    trace.mark(Path::select_parted);
    const int64_t s = kth_sample_size(t, n);
    std::vector<K> sample(static_cast<size_t>(s));
    for (int64_t i = 0; i < s; ++i) prefetch_line(seq.src + sample_at(i, s, n) * seq.stride);
    for (int64_t i = 0; i < s; ++i) sample[size_t(i)] = seq.key(sample_at(i, s, n));
    if (m > 1) std::sort(sample.begin(), sample.end());  // one sort for the ranks' bounds

    // The bands: ranks[first[g]:first[g + 1]] are searched in bounds[g].
    const int64_t room = (n / t.parted_cap_share + t.parted_cap_min) / 10 * 9;
    std::vector<Bounds> bounds;
    std::vector<int64_t> first;
    int64_t span_from = 0;  // the current band's first sample rank
    for (int64_t j = 0; j < m; ++j) {
        const SampleSpan sp = sample_span(s, ranks[j], n, sigmas);
        Bounds b;
        if (m > 1) sorted_band(sample.data(), s, ranks[j], n, sigmas, b.lo, b.hi);
        else sample_band(t, sample.data(), s, ranks[j], n, sigmas, b.lo, b.hi);
        const bool merge = !bounds.empty() && b.lo <= bounds.back().hi &&
                           double(sp.b - span_from) * double(n) / double(s) <= double(room);
        if (merge) {
            bounds.back().hi = std::max(bounds.back().hi, b.hi);
        } else {
            bounds.push_back(b);
            first.push_back(j);
            span_from = sp.a;
        }
    }
    first.push_back(m);
    if (bounds.size() > 1) trace.mark(Path::ranks_bands);

    const size_t per_pass = size_t(t.select_bands_max);
    for (size_t g0 = 0; g0 < bounds.size(); g0 += per_pass) {
        const size_t g1 = std::min(bounds.size(), g0 + per_pass);
        PartedBands<K> found(t, trace, seq,
                             std::vector<Bounds>(bounds.begin() + g0, bounds.begin() + g1));
        // The bands' ranks, a band per task (a thread each).
        parallel_for(int64_t(g1 - g0), seq.threads, [&](int64_t task) {
            const size_t g = g0 + size_t(task);
            LocalTrace local(trace);
            std::vector<K> scratch;
            const auto all = found.totals(size_t(task));
            const int64_t below = all.band.below, in = all.band.in;
            for (int64_t j = first[g]; j < first[g + 1]; ++j) {
                const int64_t r = ranks[j];
                if (r < below || r >= below + in) {  // the sample's bounds missed
                    local.mark(Path::select_parted_missed);
                    out[j] = seq.radix_select(r, key_bytes);
                } else if (all.overflow && bounds[g].lo != bounds[g].hi) {
                    local.mark(Path::select_parted_overflow);
                    out[j] = seq.radix_select(r, key_bytes);
                } else if (all.overflow) {  // every candidate has key lo: the (r - below)-th
                    local.mark(Path::select_parted_repeated);
                    out[j] = seq.locate(bounds[g].lo, r - below, found.per_part(size_t(task)));
                } else if (j > first[g] && r == ranks[j - 1] + 1 && ranks[j - 1] >= below) {
                    local.mark(Path::ranks_next);  // the previous rank's successor
                    out[j] = int64_t(found.successor(seq.key(out[j - 1]), uint32_t(out[j - 1])));
                } else {
                    const uint32_t i = found.select(t, local, size_t(task), r - below, sigmas,
                                                    scratch);
                    out[j] = int64_t(i);
                    if (preceding)  // one rank: one band
                        *preceding = found.preceding(seq.key(out[j]), i);
                }
            }
        });
    }
}

// The index of the element of stable rank r of a long sequence, by parts across threads
// (select_parted_many of one rank).
template <class KeyT>
int64_t select_parted(const Tuning& t, Trace& trace, const PartedSeq<KeyT>& seq, int64_t r,
                      int key_bytes, double sigmas, bool force_radix,
                      std::vector<int64_t>* preceding = nullptr) {
    int64_t i = 0;
    select_parted_many(t, trace, seq, &r, 1, key_bytes, sigmas, force_radix, &i, preceding);
    return i;
}

}  // namespace AXISOPS_ISA_NS
}  // namespace axisops
