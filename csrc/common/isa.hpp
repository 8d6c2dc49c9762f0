// The instruction-set level a kernel source is compiled for (CMakeLists.txt compiles the
// kernel sources once per level, with that level's flags and AXISOPS_ISA_NS defined as its
// name: baseline, avx2 or avx512). Everything a kernel header defines lives in
// axisops::AXISOPS_ISA_NS, so each level's functions and template instances have names of
// their own: the linker can never hand one level's caller another level's copy. What the
// levels share (requests, the tuning, the pool, the errors) is compiled at the baseline
// level, and the baseline objects come first in the link, so any inline function or
// standard-library instance that several levels emit resolves to the baseline copy.
#pragma once

#ifndef AXISOPS_ISA_NS
#error "compile kernel sources with AXISOPS_ISA_NS=<level> (see CMakeLists.txt)"
#endif

// Whether this level is the lowest built (AXISOPS_BASE_NS). A build of one level alone (the
// fuzzers') is its own lowest.
#ifndef AXISOPS_LOWEST_LEVEL
#define AXISOPS_LOWEST_LEVEL 1
#endif

// For a function inlined at several places where a call costs nothing beside its loop: one
// copy of its code, not one per caller.
#if defined(_MSC_VER)
#define AXISOPS_NOINLINE __declspec(noinline)
#else
#define AXISOPS_NOINLINE __attribute__((noinline))
#endif
