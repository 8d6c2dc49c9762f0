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
// 1/parted_cap_share of a parted sequence (plus parted_cap_min) in all; beyond, the exact
// radix select takes over (data with a few values repeated throughout, where a band holds
// most of the sequence). A part takes room for them in blocks of parted_block; a block is
// left when a chunk might not fit in it (so at most chunk + BAND_SLACK of it goes unused).
// Sequences of parted_max_n elements or more (indices that do not fit 32 bits) take the
// radix select directly.

// The index of the element of stable rank r of a long sequence, by parts across threads.
// `preceding` (if any) receives, per part, how many of its elements come before the answer
// in the stable order, when the candidates tell (it is left empty otherwise).
template <class KeyT>
int64_t select_parted(const Tuning& t, Trace& trace, const PartedSeq<KeyT>& seq, int64_t r,
                      int key_bytes, double sigmas, bool force_radix,
                      std::vector<int64_t>* preceding = nullptr) {
    using K = Wide<typename KeyT::type>;
    const int64_t n = seq.n();
    if (preceding) preceding->clear();
    if (force_radix || n >= t.parted_max_n) {
        trace.mark(Path::select_parted_radix);
        return seq.radix_select(r, key_bytes);
    }
    trace.mark(Path::select_parted);
    const int64_t s = kth_sample_size(t, n);
    std::vector<K> sample(static_cast<size_t>(s));
    for (int64_t i = 0; i < s; ++i) prefetch_line(seq.src + sample_at(i, s, n) * seq.stride);
    for (int64_t i = 0; i < s; ++i) sample[size_t(i)] = seq.key(sample_at(i, s, n));
    K lo, hi;
    sample_band(t, sample.data(), s, r, n, sigmas, lo, hi);

    // The arena: blocks the parts take in turn, then two buffers of `cap` for the search.
    const int64_t parts = seq.parts.count;
    const int64_t cap = n / t.parted_cap_share + t.parted_cap_min;
    const int64_t block = t.parted_block;
    const int64_t blocks = cap + cap / 7 + parts * std::max(block, seq.chunk + BAND_SLACK);
    const int64_t spare = cap + BAND_SLACK;
    const int64_t slots = blocks + 2 * spare;
    Arena arena(size_t(slots) * (sizeof(K) + sizeof(uint32_t)), t.arena_keep_max, trace);
    K* const keys = static_cast<K*>(arena.data());
    uint32_t* const idx = reinterpret_cast<uint32_t*>(keys + slots);
    std::atomic<int64_t> taken{0};

    struct PartBand {
        std::vector<std::pair<int64_t, int64_t>> runs;  // (first slot, count), in index order
        Band band;
        bool overflow = false;  // candidates found after the arena ran out
    };
    std::vector<PartBand> found(static_cast<size_t>(parts));
    seq.each_part([&](int64_t p, K* buf) {
        PartBand& pb = found[size_t(p)];
        K dummy_k[BAND_SLACK + 1];
        uint32_t dummy_i[BAND_SLACK + 1];
        int64_t at = 0, room = 0, used = 0;  // the current block
        bool full = false;
        seq.spans(seq.parts.begin(p), seq.parts.end(p), [&](int64_t begin, int64_t len,
                                                            Ahead& pre) {
            if (!full && used + len + BAND_SLACK > room) {
                if (used > 0) pb.runs.emplace_back(at, used);
                const int64_t size = std::max(len + BAND_SLACK, block);
                at = taken.fetch_add(size);
                used = 0;
                room = at + size <= blocks ? size : 0;
                full = room == 0;
            }
            Band chunk;
            if (!full) {
                seq.band(begin, len, lo, hi, keys + at + used, idx + at + used, len, chunk, pre,
                         buf);
                used += chunk.in;
            } else {
                seq.band(begin, len, lo, hi, dummy_k, dummy_i, 0, chunk, pre, buf);
                pb.overflow = pb.overflow || chunk.in > 0;
            }
            pb.band.below += chunk.below;
            pb.band.in += chunk.in;
        });
        if (used > 0) pb.runs.emplace_back(at, used);
    });

    int64_t below = 0, in = 0;
    bool overflow = false;
    for (const PartBand& pb : found) {
        below += pb.band.below;
        in += pb.band.in;
        overflow = overflow || pb.overflow;
    }
    if (r < below || r >= below + in) {  // the sample's bounds missed
        trace.mark(Path::select_parted_missed);
        return seq.radix_select(r, key_bytes);
    }
    if (overflow || in > cap) {  // more candidates than the search's buffers hold
        if (lo != hi) {
            trace.mark(Path::select_parted_overflow);
            return seq.radix_select(r, key_bytes);
        }
        // Every candidate has key lo: the (r - below)-th of them.
        trace.mark(Path::select_parted_repeated);
        std::vector<int64_t> equal(static_cast<size_t>(parts));
        for (int64_t p = 0; p < parts; ++p) equal[size_t(p)] = found[size_t(p)].band.in;
        return seq.locate(lo, r - below, equal);
    }
    K* const ka = keys + blocks;
    K* const kb = ka + spare;
    uint32_t* const ia = idx + blocks;
    uint32_t* const ib = ia + spare;
    int64_t m = 0;
    for (const PartBand& pb : found) {
        for (const auto& run : pb.runs) {  // m + run.second <= in <= cap: the runs hold `in`
            std::copy(keys + run.first, keys + run.first + run.second, ka + m);
            std::copy(idx + run.first, idx + run.first + run.second, ia + m);
            m += run.second;
        }
    }
    LocalTrace local(trace);
    const uint32_t i =
        select_candidates(t, local, ka, ia, kb, ib, in, r - below, lo, hi, sigmas, sample);
    if (preceding) {  // the parts' candidates are still in their blocks
        const K v = seq.key(int64_t(i));
        preceding->assign(size_t(parts), 0);
        for (int64_t p = 0; p < parts; ++p) {
            const PartBand& pb = found[size_t(p)];
            int64_t c = pb.band.below;
            for (const auto& run : pb.runs) {
                c += count_lt(keys + run.first, run.second, v);
                if (count_eq(keys + run.first, run.second, v) > 0)  // ties: by index
                    for (int64_t j = run.first; j < run.first + run.second; ++j)
                        c += int64_t(keys[j] == v && idx[j] < i);
            }
            (*preceding)[size_t(p)] = c;
        }
    }
    return int64_t(i);
}

}  // namespace AXISOPS_ISA_NS
}  // namespace axisops
