// An array as the bindings hand it over to the kernels.
#pragma once

#include <cstdint>

namespace axisops {

constexpr int MAX_DIMS = 64;

// An array as the bindings hand it over: its first element's address, and per dimension
// its size and its stride in elements (any sign).
struct View {
    const void* data = nullptr;
    int ndim = 0;
    int64_t shape[MAX_DIMS] = {};
    int64_t strides[MAX_DIMS] = {};
    int itemsize = 0;

    int64_t size() const {
        int64_t s = 1;
        for (int d = 0; d < ndim; ++d) s *= shape[d];
        return s;
    }
};

}  // namespace axisops
