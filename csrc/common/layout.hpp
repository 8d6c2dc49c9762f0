// Sequences of any strided layout, read in place.
//
// A kernel reads element p of sequence q as base[offset(q) + p * stride] (in elements), for
// C, Fortran, transposed, negative-stride, zero-stride (broadcast) and memory-mapped arrays
// alike. The dimensions before the axis (`outer`) and after it (`inner`) are merged where
// their strides allow; sequence q is (o, c) = (q / inner, q % inner). When both sides merge
// to one dimension each, offsets are computed; otherwise they are listed once per call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/isa.hpp"
#include "common/view.hpp"

namespace axisops {
namespace AXISOPS_ISA_NS {


struct Sequences {
    const void* base = nullptr;  // element 0 of sequence 0 lies at base + offset(0)
    int64_t n = 0;               // sequence length
    int64_t stride = 0;          // elements between neighbours within a sequence
    int64_t outer = 1;           // product of the dimensions before the axis
    int64_t inner = 1;           // product of the dimensions after the axis
    // regular offsets: offset(q) = (q / inner) * ostride + (q % inner) * istride
    bool regular = true;
    int64_t ostride = 0;
    int64_t istride = 0;
    std::vector<int64_t> listed;  // offsets of every sequence when not regular

    int64_t count() const { return outer * inner; }
    // The dimensions after the axis are one unit-stride run: neighbouring sequences are
    // neighbouring elements (the columns strategy's layout).
    bool inner_unit() const { return regular && (inner == 1 || istride == 1); }

    int64_t offset(int64_t q) const {
        if (!regular) return listed[size_t(q)];
        if (inner == 1) return q * ostride;
        const int64_t o = q / inner;
        return o * ostride + (q - o * inner) * istride;
    }
    template <class T>
    const T* at(int64_t q) const {
        return static_cast<const T*>(base) + offset(q);
    }
};

namespace detail {

// Merges dims [lo, hi) of `v` (skipping `axis`) into (size, stride) if they form one
// regular run; returns false if they do not.
inline bool merge_run(const View& v, int lo, int hi, int64_t& size, int64_t& stride) {
    size = 1;
    stride = 0;
    bool any = false;
    for (int d = hi - 1; d >= lo; --d) {
        const int64_t s = v.shape[d];
        if (s == 1) continue;
        if (!any) {
            size = s;
            stride = v.strides[d];
            any = true;
        } else if (v.strides[d] == stride * size) {
            size *= s;
        } else {
            return false;
        }
    }
    return true;
}

inline void list_offsets(const View& v, int axis, std::vector<int64_t>& out) {
    int64_t count = 1;
    for (int d = 0; d < v.ndim; ++d)
        if (d != axis) count *= v.shape[d];
    out.assign(size_t(count), 0);
    int64_t coord[MAX_DIMS] = {};
    int64_t off = 0;
    for (int64_t q = 0; q < count; ++q) {
        out[size_t(q)] = off;
        for (int d = v.ndim - 1; d >= 0; --d) {  // odometer over every dim but the axis
            if (d == axis) continue;
            if (++coord[d] < v.shape[d]) {
                off += v.strides[d];
                break;
            }
            off -= v.strides[d] * (v.shape[d] - 1);
            coord[d] = 0;
        }
    }
}

}  // namespace detail

// The sequences of `v` along `axis` (0 <= axis < ndim).
inline Sequences sequences(const View& v, int axis) {
    Sequences s;
    s.base = v.data;
    s.n = v.shape[axis];
    s.stride = v.strides[axis];
    for (int d = 0; d < axis; ++d) s.outer *= v.shape[d];
    for (int d = axis + 1; d < v.ndim; ++d) s.inner *= v.shape[d];
    int64_t osize, isize;
    const bool outer_ok = detail::merge_run(v, 0, axis, osize, s.ostride);
    const bool inner_ok = detail::merge_run(v, axis + 1, v.ndim, isize, s.istride);
    if (!(outer_ok && inner_ok)) {
        s.regular = false;
        detail::list_offsets(v, axis, s.listed);
    }
    return s;
}

}  // namespace AXISOPS_ISA_NS
}  // namespace axisops
