// What the CPU (and its operating system) can run: the instruction-set levels of the
// compiled core, lowest first.
#pragma once

#include <string>
#include <vector>

namespace axisops {

// "baseline" always; then "avx2" (x86-64-v3: AVX2, FMA, BMI1/2, F16C, LZCNT, MOVBE) and
// "avx512" (x86-64-v4: AVX-512 F, BW, CD, DQ, VL) where the CPU has them and the OS saves
// their registers.
std::vector<std::string> cpu_levels();

}  // namespace axisops
