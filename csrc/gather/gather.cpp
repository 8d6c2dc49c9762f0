// PLACEHOLDER until the gather kernels are ported: a plain checked loop.
#include "gather/request.hpp"
#include <cstring>
namespace axisops {
int64_t gather(const GatherRequest& req) {
    const View& x = req.x; const View& ix = req.index;
    const int nd = x.ndim; const int64_t total = ix.size();
    const int64_t n = x.shape[req.dim];
    const int w = x.itemsize, iw = ix.itemsize;
    int64_t coord[MAX_DIMS] = {};
    char* out = static_cast<char*>(req.out);
    for (int64_t t = 0; t < total; ++t) {
        int64_t ioff = 0, xoff = 0;
        for (int d = 0; d < nd; ++d) { ioff += coord[d] * ix.strides[d]; if (d != req.dim) xoff += coord[d] * x.strides[d]; }
        const char* ip = static_cast<const char*>(ix.data) + ioff * iw;
        int64_t v;
        if (req.index_signed) { switch (iw) { case 1: v = *(const int8_t*)ip; break; case 2: v = *(const int16_t*)ip; break; case 4: v = *(const int32_t*)ip; break; default: v = *(const int64_t*)ip; } if (v < 0) v += n; if (v < 0 || v >= n) return t; }
        else { uint64_t u; switch (iw) { case 1: u = *(const uint8_t*)ip; break; case 2: u = *(const uint16_t*)ip; break; case 4: u = *(const uint32_t*)ip; break; default: u = *(const uint64_t*)ip; } if (u >= uint64_t(n)) return t; v = int64_t(u); }
        xoff += v * x.strides[req.dim];
        std::memcpy(out + t * w, static_cast<const char*>(x.data) + xoff * w, size_t(w));
        for (int d = nd - 1; d >= 0; --d) { if (++coord[d] < ix.shape[d]) break; coord[d] = 0; }
    }
    return -1;
}
}  // namespace axisops
