// Arrays for the harnesses: dtypes, shapes, strided views into buffers the harness owns,
// and value patterns.
//
// A view's buffer holds exactly the elements from its lowest to its highest address (none
// for an empty array), so AddressSanitizer reports any read outside the array. Strides are
// in elements, any sign: C, Fortran, permuted (transposed), negative, zero (broadcast),
// steps > 1 (gaps), and arbitrary small strides (overlapping, like sliding windows).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "common/kind.hpp"
#include "common/view.hpp"
#include "input.hpp"

namespace fuzz {

using axisops::Kind;

// ---- dtypes ----

struct Dtype {
    int itemsize = 1;
    Kind kind = Kind::Unsigned;
};

inline std::string dtype_name(Dtype d) {
    const std::string bits = std::to_string(d.itemsize * 8);
    switch (d.kind) {
        case Kind::Unsigned: return "uint" + bits;
        case Kind::Signed: return "int" + bits;
        case Kind::Float: return "float" + bits;
        case Kind::BFloat: return "bfloat16";
        case Kind::Bool: return "bool";
    }
    return "?";
}

// Every (width, kind) pair the core's `with_key` accepts.
inline Dtype pick_dtype(Input& in) {
    static const Dtype all[] = {
        {1, Kind::Unsigned}, {1, Kind::Signed}, {1, Kind::Bool},  {2, Kind::Unsigned},
        {2, Kind::Signed},   {2, Kind::Float},  {2, Kind::BFloat}, {4, Kind::Unsigned},
        {4, Kind::Signed},   {4, Kind::Float},  {8, Kind::Unsigned}, {8, Kind::Signed},
        {8, Kind::Float},
    };
    return in.pick(all);
}

inline uint64_t width_mask(int itemsize) {
    return itemsize >= 8 ? ~uint64_t(0) : (uint64_t(1) << (8 * itemsize)) - 1;
}

// Bits whose order is `key`'s (key 0 the smallest, all ones the largest): the contract's
// order written backwards (independent of keys.hpp, which the references do not use).
inline uint64_t bits_of_key(Dtype d, uint64_t key) {
    const uint64_t mask = width_mask(d.itemsize);
    const uint64_t sign = (mask >> 1) + 1;
    key &= mask;
    switch (d.kind) {
        case Kind::Signed: return key ^ sign;
        case Kind::Float:
        case Kind::BFloat: return (key & sign) ? (key ^ sign) : (~key & mask);
        default: return key;
    }
}

// Values that break kernels: zeros of both signs, infinities, NaNs of both signs with
// several payloads, the largest finite and smallest subnormal values, integer extremes,
// bool bytes other than 0 and 1.
inline uint64_t special_value(Dtype d, uint64_t r) {
    static const uint64_t f16[] = {0x0000, 0x8000, 0x7C00, 0xFC00, 0x7E00, 0xFE00, 0x7C01,
                                   0xFFFF, 0x7FFF, 0x0001, 0x8001, 0x7BFF, 0xFBFF, 0x3C00};
    static const uint64_t bf16[] = {0x0000, 0x8000, 0x7F80, 0xFF80, 0x7FC0, 0xFFC0, 0x7F81,
                                    0xFFFF, 0x7FFF, 0x0001, 0x8001, 0x7F7F, 0xFF7F, 0x3F80};
    static const uint64_t f32[] = {0x00000000, 0x80000000, 0x7F800000, 0xFF800000,
                                   0x7FC00000, 0xFFC00000, 0x7F800001, 0xFFFFFFFF,
                                   0x7FFFFFFF, 0x00000001, 0x80000001, 0x7F7FFFFF,
                                   0xFF7FFFFF, 0x3F800000};
    static const uint64_t f64[] = {
        0x0000000000000000ull, 0x8000000000000000ull, 0x7FF0000000000000ull,
        0xFFF0000000000000ull, 0x7FF8000000000000ull, 0xFFF8000000000000ull,
        0x7FF0000000000001ull, 0xFFFFFFFFFFFFFFFFull, 0x7FFFFFFFFFFFFFFFull,
        0x0000000000000001ull, 0x8000000000000001ull, 0x7FEFFFFFFFFFFFFFull,
        0xFFEFFFFFFFFFFFFFull, 0x3FF0000000000000ull};
    static const uint64_t boolean[] = {0, 1, 2, 0x80, 0xFF, 0x7F};
    const uint64_t mask = width_mask(d.itemsize), sign = (mask >> 1) + 1;
    const uint64_t ints[] = {0, 1, 2, mask, sign, sign - 1, sign + 1, mask - 1};
    switch (d.kind) {
        case Kind::Bool: return boolean[r % 6];
        case Kind::BFloat: return bf16[r % 14];
        case Kind::Float:
            return d.itemsize == 2 ? f16[r % 14] : d.itemsize == 4 ? f32[r % 14] : f64[r % 14];
        default: return ints[r % 8];
    }
}

// ---- shapes ----

struct Shape {
    int ndim = 1;
    int64_t dims[3] = {0, 0, 0};
    int axis = 0;

    int64_t size() const {
        int64_t s = 1;
        for (int d = 0; d < ndim; ++d) s *= dims[d];
        return s;
    }
};

inline std::string shape_text(int ndim, const int64_t* v) {
    std::string s = "(";
    for (int d = 0; d < ndim; ++d) s += (d ? ", " : "") + std::to_string(v[d]);
    return s + (ndim == 1 ? ",)" : ")");
}

// A length along the axis: mostly short, sometimes a few hundred (enough to split with a
// small tuning), now and then a few thousand.
inline int64_t axis_length(Input& in) {
    const uint8_t b = in.byte();
    if (b < 112) return b % 24;
    if (b < 200) return in.in(24, 320);
    if (b < 244) return in.in(320, 1200);
    return in.in(1200, 4000);
}

// A length across the axis: empty, one, a few, or enough columns for the columns strategy.
inline int64_t other_length(Input& in) {
    const uint8_t b = in.byte();
    if (b < 10) return 0;
    if (b < 70) return 1;
    if (b < 200) return 2 + b % 6;
    return in.in(8, 64);
}

// Cuts the dimensions across `axis` (then the axis) until the array has at most `most`
// elements.
inline void bound_size(Shape& s, int64_t most) {
    while (s.size() > most) {
        int big = -1;
        for (int d = 0; d < s.ndim; ++d)
            if (d != s.axis && s.dims[d] > 1 && (big < 0 || s.dims[d] > s.dims[big])) big = d;
        if (big < 0) big = s.axis;
        s.dims[big] /= 2;
    }
}

// 1-3 dims, the axis at least `min_n` long, at most `most` elements.
inline Shape pick_shape(Input& in, int64_t min_n, int64_t most = 4096) {
    Shape s;
    s.ndim = 1 + int(in.below(3));
    s.axis = int(in.below(uint64_t(s.ndim)));
    for (int d = 0; d < s.ndim; ++d)
        s.dims[d] = d == s.axis ? std::max(axis_length(in), min_n) : other_length(in);
    bound_size(s, most);
    s.dims[s.axis] = std::max(s.dims[s.axis], min_n);
    return s;
}

// ---- strided views into owned buffers ----

struct Array {
    int itemsize = 1;
    int ndim = 1;
    int64_t shape[3] = {0, 0, 0};
    int64_t strides[3] = {0, 0, 0};  // in elements
    int64_t first = 0;               // buffer element holding element (0, 0, 0)
    int64_t span = 0;                // elements in the buffer
    std::unique_ptr<uint8_t[]> buf;  // exactly span * itemsize bytes

    int64_t size() const {
        int64_t s = 1;
        for (int d = 0; d < ndim; ++d) s *= shape[d];
        return s;
    }
    uint8_t* data() const { return buf.get() + first * itemsize; }
    // Element `off` (in elements from element 0) as bits (itemsize <= 8).
    uint64_t bits(int64_t off) const {
        uint64_t v = 0;
        std::memcpy(&v, data() + off * itemsize, size_t(itemsize));
        return v;
    }
    const uint8_t* at(int64_t off) const { return data() + off * itemsize; }
    axisops::View view() const {
        axisops::View v;
        v.data = data();
        v.ndim = ndim;
        v.itemsize = itemsize;
        for (int d = 0; d < ndim; ++d) {
            v.shape[d] = shape[d];
            v.strides[d] = strides[d];
        }
        return v;
    }
    std::string text() const {
        return "shape " + shape_text(ndim, shape) + " strides " + shape_text(ndim, strides) +
               " (elements; buffer of " + std::to_string(span) + ", element 0 at " +
               std::to_string(first) + ")";
    }
};

// A layout for `shape` chosen by the fuzzer, and a buffer that holds exactly its elements.
inline Array make_array(Input& in, int itemsize, int ndim, const int64_t* shape) {
    Array a;
    a.itemsize = itemsize;
    a.ndim = ndim;
    for (int d = 0; d < ndim; ++d) a.shape[d] = shape[d];
    int order[3] = {2, 1, 0};  // innermost first; C order by default
    for (int d = 0; d < ndim; ++d) order[d] = ndim - 1 - d;
    const uint8_t mode = in.byte() % 10;
    if (mode == 4) {  // Fortran
        for (int d = 0; d < ndim; ++d) order[d] = d;
    } else if (mode >= 5 && mode <= 7) {  // permuted
        for (int d = ndim - 1; d > 0; --d) std::swap(order[d], order[in.below(uint64_t(d) + 1)]);
    }
    if (mode == 8) {  // arbitrary small strides: overlapping, zero, negative
        for (int d = 0; d < ndim; ++d) a.strides[d] = in.in(-4, 4);
    } else {
        int64_t running = 1;
        for (int o = 0; o < ndim; ++o) {
            const int d = order[o];
            const bool dressed = mode >= 5 && mode <= 7;  // steps, signs, broadcasts
            const uint8_t how = dressed ? in.byte() : 0;
            const int64_t step = dressed && (how & 3) == 3 ? 2 + (how >> 2) % 2 : 1;
            if (dressed && (how & 0x30) == 0x30) {
                a.strides[d] = 0;  // broadcast
                continue;
            }
            a.strides[d] = running * step;
            running = a.strides[d] * std::max<int64_t>(a.shape[d], 1);
            if (dressed && (how & 0xC0) == 0xC0) a.strides[d] = -a.strides[d];
        }
        if (mode == 9) {  // C with a step on the innermost and a negative outermost
            a.strides[ndim - 1] *= 2;
            for (int d = ndim - 2; d >= 0; --d) a.strides[d] = a.strides[d + 1] * a.shape[d + 1];
            a.strides[0] = -a.strides[0];
        }
    }
    if (a.size() == 0) {
        a.span = 0;
        a.first = 0;
    } else {
        int64_t lo = 0, hi = 0;
        for (int d = 0; d < ndim; ++d) {
            const int64_t reach = a.strides[d] * (a.shape[d] - 1);
            (reach < 0 ? lo : hi) += reach;
        }
        a.first = -lo;
        a.span = hi - lo + 1;
    }
    a.buf.reset(new uint8_t[size_t(a.span * itemsize)]);
    return a;
}

// The offsets (elements from element 0) of every sequence along `axis`, sequence q being
// (o, c) = (q / inner, q % inner) with o and c the C-ordered positions before and after the
// axis, as the core numbers them.
struct Seqs {
    int64_t n = 0, stride = 0, outer = 1, inner = 1;
    std::vector<int64_t> offsets;
    int64_t count() const { return outer * inner; }
};

inline Seqs seqs_of(const Array& a, int axis) {
    Seqs s;
    s.n = a.shape[axis];
    s.stride = a.strides[axis];
    for (int d = 0; d < axis; ++d) s.outer *= a.shape[d];
    for (int d = axis + 1; d < a.ndim; ++d) s.inner *= a.shape[d];
    s.offsets.resize(size_t(s.count()));
    for (int64_t q = 0; q < s.count(); ++q) {
        int64_t rest = q, off = 0;
        for (int d = a.ndim - 1; d >= 0; --d) {
            if (d == axis) continue;
            off += (rest % a.shape[d]) * a.strides[d];
            rest /= a.shape[d];
        }
        s.offsets[size_t(q)] = off;
    }
    return s;
}

// ---- values ----

inline const char* const pattern_names[] = {"random",   "palette",  "ascending", "descending",
                                           "runs",     "sprinkled", "explicit", "narrow",
                                           "specials", "bumps"};

// Fills every element of `a`'s buffer (in buffer order) with a pattern of `d`'s values;
// returns the pattern's name. Reads the rest of the input for the explicit pattern, so
// decode it last.
inline std::string fill_values(Array& a, Dtype d, Input& in) {
    const uint64_t mask = width_mask(d.itemsize);
    const int pattern = int(in.below(10));
    Rng rng(in.u32());
    uint64_t palette[4];
    const int colours = 1 + int(in.below(4));
    for (int i = 0; i < colours; ++i)
        palette[i] = in.flag() ? special_value(d, in.byte()) : rng.next() & mask;
    const int64_t run = 1 + int64_t(in.below(64));
    const uint64_t step = 1 + in.below(3);
    const int sprinkle = in.byte();
    const uint64_t width = 1 + in.below(8);
    const uint64_t start = rng.next();
    // bumps: runs of `bump` elements, every `period`-th of them (from `phase`) among the
    // largest keys, the others among the smallest (the k best in a few segments)
    const int64_t bump = 1 + int64_t(in.below(4096));
    const int64_t period = 2 + int64_t(in.below(15));
    const int64_t phase = int64_t(in.below(uint64_t(period)));
    const uint8_t* raw = in.rest();
    const size_t raw_len = in.left();
    for (int64_t e = 0; e < a.span; ++e) {
        uint64_t v = 0;
        switch (pattern) {
            case 0: v = rng.next(); break;
            case 1: v = palette[rng.below(uint64_t(colours))]; break;
            case 2: v = bits_of_key(d, start + uint64_t(e) * step); break;
            case 3: v = bits_of_key(d, start - uint64_t(e) * step); break;
            case 4: {
                const uint64_t r = uint64_t(e / run), j = uint64_t(e % run);
                const uint64_t base = start + r * 0x9E3779B97F4A7C15ull;
                v = bits_of_key(d, (r & 1) ? base - j * step : base + j * step);
                break;
            }
            case 5:
                v = int(rng.below(256)) < sprinkle ? special_value(d, rng.next()) : rng.next();
                break;
            case 6:
                for (int b = 0; b < d.itemsize; ++b) {
                    const size_t at = size_t(e) * size_t(d.itemsize) + size_t(b);
                    v |= uint64_t(raw_len ? raw[at % raw_len] : 0) << (8 * b);
                }
                break;
            case 7: v = bits_of_key(d, start + rng.below(width)); break;
            case 9: {
                const bool high = (e / bump) % period == phase;
                const uint64_t r = rng.below(width * 64);
                v = bits_of_key(d, high ? mask - r : r);
                break;
            }
            case 8: v = special_value(d, rng.next()); break;
        }
        v &= mask;
        std::memcpy(a.buf.get() + e * d.itemsize, &v, size_t(d.itemsize));
    }
    return pattern_names[pattern];
}

// Bulk random bytes (gather's elements: any width, 16 bytes included).
inline void fill_bytes(Array& a, uint64_t seed) {
    Rng rng(seed);
    const int64_t bytes = a.span * a.itemsize;
    for (int64_t b = 0; b < bytes; b += 8) {
        const uint64_t v = rng.next();
        std::memcpy(a.buf.get() + b, &v, size_t(std::min<int64_t>(8, bytes - b)));
    }
}

// An output buffer of exactly `count` elements of `itemsize` bytes (never null), filled
// with a marker so that elements the core leaves unwritten show.
inline std::unique_ptr<uint8_t[]> output(int64_t count, int itemsize) {
    std::unique_ptr<uint8_t[]> p(new uint8_t[size_t(count * itemsize)]);
    std::memset(p.get(), 0xA5, size_t(count * itemsize));
    return p;
}

}  // namespace fuzz
