// The gather kernels: output elements [t0, t1) of one call, each index value read once and
// turned into a position inside x (positions.hpp). Two paths:
//
// - blocks (along an inner dimension, or when x is small enough to read without hints):
//   positions are computed a block at a time into a private buffer and checked there; the
//   copy (and its prefetch) reads only positions of a block that passed. A block holding a
//   value outside [-n, n-1] ([0, n-1] for unsigned types) stops the kernel before its copy.
// - rows (inner == 1, prefetching): one loop turns the index value `lead` elements later
//   into a clamped position, keeps it in a small ring and prefetches it, then copies the
//   element whose position is already there; an out-of-range value is noted, and the kernel
//   stops at the end of that block. Its output is then discarded by the caller.
//
// Either way the kernel returns -1, or where it stopped.
//
// Speed: a gather from an x larger than the caches waits on one memory latency per
// element, so what counts is how many reads are in flight at once. The copy asks for the
// line `ahead` reads later in the L2 (prefetch.hpp). In the block path the copy loop is a
// handful of instructions per element, so the out-of-order window also holds many reads.
// The rows path interleaves computing positions with the copy in one loop instead of a
// block pass then a copy pass, which keeps the hints flowing: the copy never waits for a
// block of positions to be computed. The block path stays where it is faster: without
// hints (x in the L2: its vectorised position pass wins) and along inner dimensions.
#pragma once

#include "common/isa.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>

#include "gather/positions.hpp"
#include "gather/prefetch.hpp"
#include "gather/request.hpp"

#if defined(__GNUC__) && !defined(__clang__) && defined(__AVX512F__)
#pragma GCC push_options
#pragma GCC target("prefer-vector-width=256")  // as in positions.hpp, which says why
#endif

namespace axisops {
namespace AXISOPS_ISA_NS {

// The tuning's gather_block, output elements per block of positions: the buffer (2048 +
// the prefetch distance's 256 8-byte positions, 18 KiB) stays within a 32 KiB L1.
// A shorter block starts its prefetches more often for the same reads.

namespace gather_detail {

// dst[e] = x[pos[e]] for e < count, prefetching pos[e + ahead] while that is below `look`
// (no hints when ahead is 0).
template <class T>
inline void copy_block(const T* __restrict x, const int64_t* __restrict pos, int64_t count,
                       int64_t look, int64_t ahead, T* __restrict dst) {
    const int64_t hinted = ahead > 0 ? std::max<int64_t>(0, std::min(count, look - ahead)) : 0;
    for (int64_t e = 0; e < hinted; ++e) {
        prefetch(x + pos[e + ahead]);
        dst[e] = x[pos[e]];
    }
    for (int64_t e = hinted; e < count; ++e) dst[e] = x[pos[e]];
}

// Sequences::offset(q) when inner == 1.
inline int64_t row_offset(const Sequences& s, int64_t q) {
    return s.regular ? q * s.ostride : s.listed[size_t(q)];
}

}  // namespace gather_detail

// The block path. Each block's positions are computed with the next `ahead` ones (the
// prefetch window), all checked before any read of x. The window's positions are carried
// over to the front of the buffer for the next block, so every index value is read once
// and only checked positions are ever copied from.
template <class T, class I>
int64_t gather_blocks(const GatherJob<T, I>& job, int64_t t0, int64_t t1) {
    const int64_t block = job.block;
    const std::unique_ptr<int64_t[]> buffer(new int64_t[size_t(block + job.ahead)]);
    int64_t* const pos = buffer.get();
    int64_t have = 0;  // pos[:have]: the positions of elements s .. s + have - 1, checked
    for (int64_t s = t0; s < t1; s += block) {
        const int64_t count = std::min(block, t1 - s);
        const int64_t look = std::min(count + job.ahead, t1 - s);
        if (!positions(job, s + have, look - have, pos + have))
            return first_bad(job, s + have, s + look);
        if (s == t0)  // the first reads, which no earlier block hinted
            for (int64_t e = 0; e < std::min(job.ahead, count); ++e) prefetch(job.x + pos[e]);
        gather_detail::copy_block(job.x, pos, count, look, job.ahead, job.out + s);
        have = look - count;
        std::memmove(pos, pos + count, size_t(have) * sizeof(int64_t));
    }
    return -1;
}

namespace gather_detail {

// One run of the rows loop, within one sequence: the index values idx[k * istep] (k < run)
// become the clamped positions of output elements e0 + lead + k, kept in the ring and
// hinted, while elements e0 + k are copied from positions already there. UNIT: unit
// steps in both the index and x (the index C-ordered along rows of a C-ordered x, or 1-D).
template <bool UNIT, class T, class I>
inline uint64_t rows_run(const T* __restrict x, const I* idx, int64_t istep, int64_t xbase,
                         int64_t xstride, int64_t n, int64_t* __restrict ring, uint64_t mask,
                         int64_t lead, int64_t e0, int64_t run, T* __restrict dst) {
    const uint64_t last = uint64_t(n - 1);
    uint64_t bad = 0;
    for (int64_t e = e0; e < e0 + run; ++e) {
        const int64_t k = e - e0;
        const uint64_t w = along(load_once(idx + (UNIT ? k : k * istep)), n);
        bad |= uint64_t(w > last);
        const int64_t p = xbase + int64_t(w < last ? w : last) * (UNIT ? 1 : xstride);
        ring[uint64_t(e + lead) & mask] = p;
        prefetch(x + p);
        dst[e] = x[ring[uint64_t(e) & mask]];
    }
    return bad;
}

}  // namespace gather_detail

// The rows path (inner == 1, ahead > 0): output element t is position t % m of sequence
// t / m. The first `lead` positions are computed and checked at once (and hinted); then
// one loop does everything, as the file's comment says, a sequence's run at a time. At
// the end of each block it stops if a value was out of range.
template <class T, class I>
int64_t gather_rows(const GatherJob<T, I>& job, int64_t t0, int64_t t1) {
    using namespace gather_detail;
    const int64_t total = t1 - t0, lead = std::min(job.ahead, total), m = job.m;
    int64_t size = 1;
    while (size <= lead) size *= 2;
    const std::unique_ptr<int64_t[]> ring_owner(new int64_t[size_t(size)]);
    int64_t* const ring = ring_owner.get();
    const uint64_t mask = uint64_t(size - 1);
    if (!positions_rows(job, t0, lead, ring)) return first_bad(job, t0, t0 + lead);
    for (int64_t e = 0; e < lead; ++e) prefetch(job.x + ring[e]);
    // The look-ahead's place: output element t0 + lead, index value j of sequence q
    // (`left` values to go in it), read at index[ipos].
    int64_t q = (t0 + lead) / m, j = (t0 + lead) - q * m;
    int64_t left = m - j, ipos = 0, xbase = 0;
    const int64_t count = job.xs.count();
    if (q < count) {
        ipos = row_offset(job.is, q) + j * job.is.stride;
        xbase = row_offset(job.xs, q);
    }
    const int64_t istep = job.is.stride, xstride = job.xs.stride;
    const bool unit = istep == 1 && xstride == 1;
    T* const dst = job.out + t0;
    uint64_t bad = 0;
    for (int64_t s = 0; s < total; s += job.block) {
        const int64_t hi = std::min(s + job.block, total);
        const int64_t both = std::max(s, std::min(hi, total - lead));
        for (int64_t e = s; e < both;) {
            const int64_t run = std::min(left, both - e);
            const I* const idx = job.index + ipos;
            bad |= unit ? rows_run<true>(job.x, idx, 1, xbase, 1, job.n, ring, mask, lead, e,
                                         run, dst)
                        : rows_run<false>(job.x, idx, istep, xbase, xstride, job.n, ring, mask,
                                          lead, e, run, dst);
            e += run;
            ipos += run * istep;
            left -= run;
            if (left == 0) {
                ++q;
                left = m;
                if (q < count) {
                    ipos = row_offset(job.is, q);
                    xbase = row_offset(job.xs, q);
                }
            }
        }
        for (int64_t e = both; e < hi; ++e) dst[e] = job.x[ring[uint64_t(e) & mask]];
        if (bad)  // the values read in this block: output elements t0 + s + lead .. both + lead
            return first_bad(job, t0 + s + lead, t0 + both + lead);
    }
    return -1;
}

}  // namespace AXISOPS_ISA_NS
}  // namespace axisops

#if defined(__GNUC__) && !defined(__clang__) && defined(__AVX512F__)
#pragma GCC pop_options
#endif
