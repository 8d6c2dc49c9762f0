// A gather request: out[i..., j, ...] = x[i..., index[i..., j, ...], ...] along `dim`.
#pragma once

#include <cstdint>

#include "common/view.hpp"
#include "common/tuning.hpp"

namespace axisops {

struct GatherRequest {
    View x;      // raw bits, itemsize 1, 2, 4, 8 or 16; same rank as the index
    View index;  // any integer type of itemsize 1, 2, 4 or 8
    bool index_signed = true;
    int dim = 0;
    void* out = nullptr;  // C-ordered, the index's shape, x's itemsize
    int threads = 1;
    int64_t ahead = 0;  // prefetch distance in reads (0: no hints)
    int64_t task = 0;   // output elements per task (0: the driver's choice; for tests)
    Tuning tune = current_tuning();
};

// Runs `req` (x.shape[d] >= index.shape[d] for d != dim, x.shape[dim] > 0 when the index
// is non-empty). Returns -1, or the output element (a flat position of the index in C
// order) at or before which a value outside [-n, n-1] ([0, n-1] for unsigned types) was
// read (for an index nobody changes meanwhile: the first such value in C order); the
// output is then meaningless. No read ever leaves x, whatever the index holds, even while
// another thread rewrites it.
int64_t gather(const GatherRequest& req);

}  // namespace axisops
