// From index values to positions in x: each value is read once, and the position made from
// it is always inside x.
//
// Output element t of the C-ordered (outer, m, inner) output (the index's shape around the
// gather dimension) is row r = t / inner, column c = t % inner, and row r is (o, j) =
// divmod(r, m): it reads x at xs.offset(q) + w * xs.stride with q = o * inner + c and w the
// coordinate made of index value index[is.offset(q) + j * is.stride].
//
// Memory safety does not rest on a separate bounds pass (another thread may rewrite the
// index at any moment) nor even on the check: every value becomes a coordinate clamped into
// [0, n - 1], so every position, used for a read or a hint, lies inside x whatever the index
// holds, and separately says whether it was out of range. The check decides what the kernel
// returns, never where it reads.
//
// "Read once" is meant literally. A C++ compiler may assume no other thread writes memory
// it reads without synchronisation, and so could in principle load a value twice (once for
// the check, once for the position). The scalar loops read through `load_once` (a relaxed
// atomic load: a plain load on x86 and Arm, which the compiler may neither repeat nor
// split), so the check and the position come from one load. The vectorised unit-stride
// loops read plainly (an atomic load would keep them scalar): there each value is loaded
// into a vector register and both results are computed from it; and since positions are
// clamped, even a repeated load could only make the check disagree with the clamp, never
// read outside x.
#pragma once

#include "common/isa.hpp"

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "common/layout.hpp"

// The avx512 level's module is built preferring 512-bit vectors; the gather kernels prefer
// 256: measured 2026-12-06 on a Xeon (Sapphire Rapids) VM, one thread, (4096, 4096) axis 0
// by (64, 4096), the 512-bit position pass made the whole call 13% slower (paired medians,
// two runs: 0.874 of the time with 256-bit vectors, 0.90-0.91 at the avx2 level); the rows
// path did not change. GCC only (Clang has no per-function width; it follows the flag).
#if defined(__GNUC__) && !defined(__clang__) && defined(__AVX512F__)
#pragma GCC push_options
#pragma GCC target("prefer-vector-width=256")
#endif

namespace axisops {
namespace AXISOPS_ISA_NS {

// A 16-byte element (complex128) moved as its bits.
struct Raw16 {
    uint64_t lo, hi;
};

// The index side of a gather call: everything positions are made from. It depends on the
// index's type only, so the position code compiles once per index type, not once per
// (element, index) pair.
template <class I>
struct IndexWalk {
    const Sequences& xs;    // x, restricted to the index's extent, along the dimension
    const I* index;         // the index's element 0, read in its own type
    const Sequences& is;    // the index along the dimension
    int64_t n;              // x's size along the dimension (> 0)
    int64_t m;              // the index's size along it
    int64_t inner;          // the product of the dimensions after it
    bool steps;             // both regular: neighbouring columns are a fixed step apart
};

// One gather call's arrays, as the kernels read them.
template <class T, class I>
struct GatherJob : IndexWalk<I> {
    const T* x;             // x's element 0 (positions may be negative: any strides)
    int64_t ahead;          // prefetch distance in reads (0: no hints)
    T* out;                 // C-ordered, flat
    int64_t block;          // output elements per block of positions (the tuning's gather_block)
};

namespace gather_detail {

// `*p`, loaded exactly once (see the file's comment).
template <class I>
inline I load_once(const I* p) {
#if defined(__GNUC__) || defined(__clang__)
    return __atomic_load_n(p, __ATOMIC_RELAXED);
#else
    return *static_cast<const volatile I*>(p);
#endif
}

// Index value `v` as a coordinate along an axis of size n: below n when `v` is valid,
// n or more otherwise. Negative values of a signed type count from the end (a value still
// negative then becomes 2^63 or more); unsigned values are never wrapped.
template <class I>
inline uint64_t along(I v, int64_t n) {
    if constexpr (std::is_signed_v<I>) {
        const int64_t w = int64_t(v);  // n added when w < 0, without a branch
        return uint64_t(w) + (uint64_t(n) & (uint64_t(0) - uint64_t(w < 0)));
    } else {
        return uint64_t(v);
    }
}

// dst[e] = xbase + e * XSTEP + min(w, last) * xstride for the `count` index values idx[e]
// (consecutive in memory); nonzero when one was out of range. Vectorises.
template <int XSTEP, class I>
inline uint64_t unit_run(const I* __restrict idx, int64_t xbase, int64_t xstride, int64_t n,
                         int64_t count, int64_t* __restrict dst) {
    const uint64_t last = uint64_t(n - 1);
    uint64_t bad = 0;
    for (int64_t e = 0; e < count; ++e) {
        const uint64_t w = along(idx[e], n);
        bad |= uint64_t(w > last);
        dst[e] = xbase + XSTEP * e + int64_t(w < last ? w : last) * xstride;
    }
    return bad;
}

// The same for values `istep` elements apart and positions `xstep` apart.
template <class I>
inline uint64_t strided_run(const I* idx, int64_t istep, int64_t xbase, int64_t xstep,
                            int64_t xstride, int64_t n, int64_t count, int64_t* __restrict dst) {
    const uint64_t last = uint64_t(n - 1);
    uint64_t bad = 0;
    for (int64_t e = 0; e < count; ++e) {
        const uint64_t w = along(load_once(idx + e * istep), n);
        bad |= uint64_t(w > last);
        dst[e] = xbase + e * xstep + int64_t(w < last ? w : last) * xstride;
    }
    return bad;
}

template <class I>
inline uint64_t run_positions(const I* idx, int64_t istep, int64_t xbase, int64_t xstep,
                              int64_t xstride, int64_t n, int64_t count, int64_t* dst) {
    if (istep == 1 && xstep == 0) return unit_run<0>(idx, xbase, xstride, n, count, dst);
    if (istep == 1 && xstep == 1) return unit_run<1>(idx, xbase, xstride, n, count, dst);
    return strided_run(idx, istep, xbase, xstep, xstride, n, count, dst);
}

// The first place of sequence q's index values, from position j.
template <class I>
inline const I* index_at(const IndexWalk<I>& job, int64_t q, int64_t j) {
    return job.index + (job.is.offset(q) + j * job.is.stride);
}

}  // namespace gather_detail

// pos[e]: where output element t + e reads x, for e < count, when inner == 1 (element t is
// position t % m of sequence t / m), a sequence's run at a time; false when a value was out
// of range.
template <class I>
bool positions_rows(const IndexWalk<I>& job, int64_t t, int64_t count, int64_t* pos) {
    using namespace gather_detail;
    int64_t q = t / job.m, j = t - q * job.m;
    uint64_t bad = 0;
    for (int64_t e = 0; e < count; ++q, j = 0) {
        const int64_t run = std::min(job.m - j, count - e);
        bad |= run_positions(index_at(job, q, j), job.is.stride, job.xs.offset(q), 0,
                             job.xs.stride, job.n, run, pos + e);
        e += run;
    }
    return bad == 0;
}

// The same when inner > 1: element t is column t % inner of output row t / inner, a row's
// run of columns at a time.
template <class I>
bool positions_columns(const IndexWalk<I>& job, int64_t t, int64_t count, int64_t* pos) {
    using namespace gather_detail;
    const int64_t inner = job.inner, n = job.n;
    int64_t r = t / inner, c = t - r * inner;
    uint64_t bad = 0;
    for (int64_t e = 0; e < count; ++r, c = 0) {
        const int64_t run = std::min(inner - c, count - e);
        const int64_t o = r / job.m, j = r - o * job.m, qb = o * inner + c;
        if (job.steps) {  // columns a fixed step apart in both x and the index
            bad |= run_positions(index_at(job, qb, j), job.is.istride, job.xs.offset(qb),
                                 job.xs.istride, job.xs.stride, n, run, pos + e);
        } else {
            const uint64_t last = uint64_t(n - 1);
            for (int64_t u = 0; u < run; ++u) {
                const uint64_t w = along(load_once(index_at(job, qb + u, j)), n);
                bad |= uint64_t(w > last);
                pos[e + u] = job.xs.offset(qb + u) + int64_t(w < last ? w : last) * job.xs.stride;
            }
        }
        e += run;
    }
    return bad == 0;
}

template <class I>
bool positions(const IndexWalk<I>& job, int64_t t, int64_t count, int64_t* pos) {
    return job.inner == 1 ? positions_rows(job, t, count, pos)
                          : positions_columns(job, t, count, pos);
}

// The first output element in [t0, t1) whose index value is out of range now, or t0 when
// none is (the index changed since the kernel read it). Only for the error: it reads the
// index again, never x.
template <class I>
int64_t first_bad(const IndexWalk<I>& job, int64_t t0, int64_t t1) {
    using namespace gather_detail;
    for (int64_t t = t0; t < t1; ++t) {
        const int64_t r = t / job.inner, c = t - r * job.inner;
        const int64_t o = r / job.m, j = r - o * job.m;
        if (along(load_once(index_at(job, o * job.inner + c, j)), job.n) >= uint64_t(job.n))
            return t;
    }
    return t0;
}

}  // namespace AXISOPS_ISA_NS
}  // namespace axisops

#if defined(__GNUC__) && !defined(__clang__) && defined(__AVX512F__)
#pragma GCC pop_options
#endif
