// Large scratch memory kept from one call to the next, so a call does not fault its pages
// in again (zeroing them is a pass over memory of its own). One buffer of at most the
// tuning's arena_keep_max bytes (64 MiB by default) is kept (a larger one is freed: a sort
// of a 10M-element row would otherwise hold 160 MB for good); a call that finds it taken
// (another call running, or a lock held across a fork) allocates its own.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>

#include "common/tuning.hpp"

namespace axisops {

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
            mem_.reset(new std::max_align_t[(bytes + sizeof(std::max_align_t) - 1) /
                                            sizeof(std::max_align_t)]);
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
    std::unique_ptr<std::max_align_t[]> mem_;
    size_t bytes_ = 0;
    size_t keep_max_;

    // Never destroyed (allocated once, never freed): a thread the interpreter leaves
    // running at exit may still be inside a call when static destructors run.
    static std::mutex& lock() {
        static std::mutex* m = new std::mutex();
        return *m;
    }
    static std::unique_ptr<std::max_align_t[]>& kept() {
        static auto* k = new std::unique_ptr<std::max_align_t[]>();
        return *k;
    }
    static size_t& kept_bytes() {
        static size_t b = 0;
        return b;
    }
};

}  // namespace axisops
