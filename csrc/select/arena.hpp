// Large scratch memory kept from one call to the next, so a call does not fault its pages
// in again (zeroing them is a pass over memory of its own). One buffer of at most the
// tuning's arena_keep_max bytes (64 MiB by default) is kept (a larger one is freed: a sort
// of a 10M-element row would otherwise hold 160 MB for good); a call that finds it taken
// (another call running, or a lock held across a fork) allocates its own.
//
// A buffer of huge_min bytes or more is aligned to 2 MiB and, on Linux, offered to the
// kernel for transparent huge pages (madvise; most distributions enable them only where
// asked): a fresh buffer then faults in 2 MiB at a time, not 4 KiB, and the sort's
// scatter to 256 buckets spread over it misses the TLB far less (sort of float32 (1, 10M),
// one thread, a fresh 160 MB buffer each call: 183 -> 120 ms; measured 2026-12-07 on
// this project's Zen 4 VM).
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif
#if defined(_WIN32)
#include <malloc.h>
#endif

#include "common/tuning.hpp"

namespace axisops {

namespace arena_detail {

constexpr size_t HUGE_PAGE = size_t(2) << 20;
constexpr size_t HUGE_MIN = size_t(4) << 20;

struct Free {
    void operator()(void* p) const {
#if defined(_WIN32)
        _aligned_free(p);
#else
        std::free(p);
#endif
    }
};
using Memory = std::unique_ptr<void, Free>;

// At least `bytes` bytes (their contents undefined), aligned for any element type.
inline Memory allocate(size_t bytes) {
    const size_t align = bytes >= HUGE_MIN ? HUGE_PAGE : alignof(std::max_align_t) * 4;
    const size_t size = (bytes + align - 1) / align * align;
    void* p = nullptr;
#if defined(_WIN32)
    p = _aligned_malloc(size, align);
#else
    if (posix_memalign(&p, align, size) != 0) p = nullptr;
#endif
    if (!p) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (bytes >= HUGE_MIN) madvise(p, size, MADV_HUGEPAGE);  // a hint: its failure is fine
#endif
    return Memory(p);
}

}  // namespace arena_detail

class Arena {
public:
    // At least `bytes` bytes, aligned for any element type (their contents undefined); kept
    // for the next call if at most `keep_max` bytes.
    Arena(size_t bytes, int64_t keep_max, Trace& trace) : keep_max_(size_t(keep_max)) {
        {
            std::unique_lock<std::mutex> hold(lock(), std::try_to_lock);
            if (hold.owns_lock() && kept_bytes() >= bytes) {
                mem_ = std::move(kept());
                bytes_ = kept_bytes();
                kept_bytes() = 0;
                trace.mark(Path::arena_reused);
            }
        }
        if (!mem_) {
            mem_ = arena_detail::allocate(bytes);
            bytes_ = bytes;
        }
    }
    ~Arena() {
        std::unique_lock<std::mutex> hold(lock(), std::try_to_lock);
        if (hold.owns_lock() && bytes_ > kept_bytes() && bytes_ <= keep_max_) {
            kept() = std::move(mem_);
            kept_bytes() = bytes_;
        }
    }
    Arena(const Arena&) = delete;
    Arena& operator=(const Arena&) = delete;

    void* data() const { return mem_.get(); }

private:
    arena_detail::Memory mem_;
    size_t bytes_ = 0;
    size_t keep_max_;

    // Never destroyed (allocated once, never freed): a thread the interpreter leaves
    // running at exit may still be inside a call when static destructors run.
    static std::mutex& lock() {
        static std::mutex* m = new std::mutex();
        return *m;
    }
    static arena_detail::Memory& kept() {
        static auto* k = new arena_detail::Memory();
        return *k;
    }
    static size_t& kept_bytes() {
        static size_t b = 0;
        return b;
    }
};

}  // namespace axisops
