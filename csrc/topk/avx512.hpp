// What the insert strategy's AVX-512 routes (filter.hpp, lanes.hpp) share: whether this
// level has the instructions they all use (AXISOPS_AVX512_VL: the level's flags define
// __AVX512F__ and __AVX512VL__), and the mask of a vector's first lanes for a sequence's
// last, partial step.
#pragma once

#include "common/isa.hpp"

#include <cstdint>

#if defined(__AVX512F__) && defined(__AVX512VL__)
#include <immintrin.h>
#define AXISOPS_AVX512_VL 1
#else
#define AXISOPS_AVX512_VL 0
#endif

namespace axisops {
namespace AXISOPS_ISA_NS {

#if AXISOPS_AVX512_VL
// The first `left` (0-16) of 16 lanes.
inline __mmask16 first_lanes(int64_t left) {
    return left >= 16 ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1);
}
#endif

}  // namespace AXISOPS_ISA_NS
}  // namespace axisops
