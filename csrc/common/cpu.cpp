#include "common/cpu.hpp"

#if defined(_MSC_VER) && (defined(_M_X64) || defined(_M_IX86))
#include <immintrin.h>
#include <intrin.h>
#define AXISOPS_X86 1
#elif defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#define AXISOPS_X86 1
#endif

namespace axisops {

#ifdef AXISOPS_X86
namespace {

struct Regs {
    unsigned a = 0, b = 0, c = 0, d = 0;
};

Regs cpuid(unsigned leaf, unsigned sub) {
    Regs r;
#if defined(_MSC_VER)
    int out[4];
    __cpuidex(out, int(leaf), int(sub));
    r.a = unsigned(out[0]);
    r.b = unsigned(out[1]);
    r.c = unsigned(out[2]);
    r.d = unsigned(out[3]);
#else
    __cpuid_count(leaf, sub, r.a, r.b, r.c, r.d);
#endif
    return r;
}

unsigned long long xcr0() {
#if defined(_MSC_VER)
    return _xgetbv(0);
#else
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (static_cast<unsigned long long>(hi) << 32) | lo;
#endif
}

bool bit(unsigned reg, int b) { return (reg >> b) & 1u; }

}  // namespace

std::vector<std::string> cpu_levels() {
    std::vector<std::string> levels{"baseline"};
    const unsigned top = cpuid(0, 0).a;
    if (top < 7) return levels;
    const Regs l1 = cpuid(1, 0), l7 = cpuid(7, 0), e1 = cpuid(0x80000001u, 0);
    if (!bit(l1.c, 27)) return levels;  // OSXSAVE: xgetbv is usable
    const unsigned long long xs = xcr0();
    const bool ymm = (xs & 0x6) == 0x6;     // SSE and AVX state
    const bool zmm = (xs & 0xE6) == 0xE6;   // and opmask, ZMM_Hi256, Hi16_ZMM state
    const bool avx2 = ymm && bit(l1.c, 28) /*avx*/ && bit(l1.c, 12) /*fma*/ &&
                      bit(l1.c, 29) /*f16c*/ && bit(l1.c, 22) /*movbe*/ &&
                      bit(l7.b, 5) /*avx2*/ && bit(l7.b, 3) /*bmi1*/ && bit(l7.b, 8) /*bmi2*/ &&
                      bit(e1.c, 5) /*lzcnt*/;
    if (!avx2) return levels;
    levels.emplace_back("avx2");
    const bool avx512 = zmm && bit(l7.b, 16) /*f*/ && bit(l7.b, 17) /*dq*/ &&
                        bit(l7.b, 28) /*cd*/ && bit(l7.b, 30) /*bw*/ && bit(l7.b, 31) /*vl*/;
    if (avx512) levels.emplace_back("avx512");
    return levels;
}
#else
std::vector<std::string> cpu_levels() { return {"baseline"}; }
#endif

}  // namespace axisops
