// `prefetch(p)`: a hint that the element at `p` will be read soon, into the second-level
// cache. It never faults and changes no result; the kernels only ever hint positions that
// lie inside x (checked or clamped), so even the hint stays inside the array.
//
// Random reads (a gather's x[index]) spend most of their time waiting for memory; asking
// for an element a few hundred reads before it is needed keeps many reads in flight. The
// hint asks for the L2, not the L1 (GCC/Clang locality 2: prefetcht1 on x86, PLDL2KEEP on
// Arm): a few hundred lines in flight would fill much of a 32-48 KiB L1 and evict the
// kernel's own working set, and the L1 tracks only a couple of dozen outstanding misses,
// while the L2 holds them many times over: wherever x is larger than the L2, an L1 or
// non-temporal hint would evict lines the next reads need before they are used.
#pragma once

#include "common/isa.hpp"

#if defined(_MSC_VER) && !defined(__clang__) && (defined(_M_X64) || defined(_M_IX86))
#include <xmmintrin.h>
#endif

namespace axisops {
namespace AXISOPS_ISA_NS {

inline void prefetch(const void* p) {
#if defined(__GNUC__) || defined(__clang__)
    __builtin_prefetch(p, 0, 2);  // read, second-level cache
#elif defined(_MSC_VER) && (defined(_M_X64) || defined(_M_IX86))
    _mm_prefetch(static_cast<const char*>(p), _MM_HINT_T1);
#else
    (void)p;  // no portable hint: the reads still happen, only without look-ahead
#endif
}

}  // namespace AXISOPS_ISA_NS
}  // namespace axisops
