// The fuzzer's bytes as a stream of choices. Every read succeeds: past the end it yields
// zeros, so any input (even an empty one) decodes to a valid request, and the decoding is
// a pure function of the bytes (a crash file reproduces).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

namespace fuzz {

class Input {
public:
    Input(const uint8_t* data, size_t size) : data_(data), size_(size) {}

    uint8_t byte() { return at_ < size_ ? data_[at_++] : 0; }
    uint16_t u16() { return uint16_t(byte() | (uint16_t(byte()) << 8)); }
    uint32_t u32() { return uint32_t(u16()) | (uint32_t(u16()) << 16); }
    uint64_t u64() { return uint64_t(u32()) | (uint64_t(u32()) << 32); }
    bool flag() { return byte() & 1; }
    // true with probability about num/256
    bool chance(int num) { return byte() < num; }
    // a value in [0, n) (n >= 1), from as few bytes as n needs
    uint64_t below(uint64_t n) {
        if (n <= 1) return 0;
        if (n <= 256) return byte() % n;
        if (n <= 65536) return u16() % n;
        return u64() % n;
    }
    int64_t in(int64_t lo, int64_t hi) { return lo + int64_t(below(uint64_t(hi - lo + 1))); }
    template <class T, size_t N>
    const T& pick(const T (&options)[N]) {
        return options[below(N)];
    }
    size_t left() const { return at_ < size_ ? size_ - at_ : 0; }
    // The unread bytes (explicit element values).
    const uint8_t* rest() const { return data_ + (at_ < size_ ? at_ : size_); }

private:
    const uint8_t* data_;
    size_t size_;
    size_t at_ = 0;
};

// A small deterministic generator for bulk values, seeded from the input (so the bytes
// stay few while arrays have thousands of elements).
struct Rng {
    uint64_t s;
    explicit Rng(uint64_t seed) : s(seed * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull) {}
    uint64_t next() {  // splitmix64
        uint64_t z = (s += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    uint64_t below(uint64_t n) { return n <= 1 ? 0 : next() % n; }
};

}  // namespace fuzz
