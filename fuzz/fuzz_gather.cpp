// gather against a plain loop: out[..., j, ...] = x[..., index[..., j, ...], ...] along
// dim, negative values wrapping for signed index types. When some value is out of range
// the core must return the flat output position (C order) of the first such value, -1
// otherwise; the output is compared only when every value is in range.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "arrays.hpp"
#include "gather/request.hpp"
#include "input.hpp"
#include "report.hpp"
#include "tuning.hpp"

using namespace fuzz;

namespace {

const std::vector<const char*> relevant = {"parallel_min", "gather_task_min",
                                           "gather_tasks_per_thread", "gather_block"};

struct IndexType {
    int itemsize;
    bool is_signed;
};

std::string index_name(IndexType t) {
    return std::string(t.is_signed ? "int" : "uint") + std::to_string(8 * t.itemsize);
}

// Index element `off` (from element 0) widened: signed values sign-extended.
int64_t index_value(const Array& a, IndexType t, int64_t off) {
    const uint64_t bits = a.bits(off);
    if (!t.is_signed) return int64_t(bits);  // uint64 values above 2^63 come out negative
    const int shift = 64 - 8 * t.itemsize;
    return int64_t(bits << shift) >> shift;
}

// The coordinate a value selects along an axis of n, or -1 when it is out of range.
int64_t coordinate(const Array& a, IndexType t, int64_t off, int64_t n) {
    if (!t.is_signed) {
        const uint64_t v = a.bits(off);
        return v < uint64_t(n) ? int64_t(v) : -1;
    }
    const int64_t v = index_value(a, t, off);
    if (v < -n || v >= n) return -1;
    return v < 0 ? v + n : v;
}

// Index values: mostly valid (negative ones too, for signed types), sometimes a few bad
// ones (n, -n - 1, the type's extremes).
void fill_index(Array& a, IndexType t, int64_t n, Input& in) {
    const int mode = int(in.below(4));
    const int bad_share = mode == 0 ? 0 : mode == 1 ? 1 : mode == 2 ? 8 : 64;  // of 256
    Rng rng(in.u32());
    const uint64_t mask = width_mask(t.itemsize), sign = (mask >> 1) + 1;
    const uint64_t bad[] = {uint64_t(n), uint64_t(-n - 1), mask, sign, sign - 1, uint64_t(n) + 1};
    for (int64_t e = 0; e < a.span; ++e) {
        uint64_t v;
        if (int(rng.below(256)) < bad_share) {
            v = bad[rng.below(6)];
        } else {
            const int64_t w = int64_t(rng.below(uint64_t(std::max<int64_t>(n, 1))));
            v = uint64_t(t.is_signed && rng.below(2) ? w - n : w);
        }
        v &= mask;
        std::memcpy(a.buf.get() + e * t.itemsize, &v, size_t(t.itemsize));
    }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    check_tuning_rules();
    std::atexit([] { print_paths("gather", {"gather_"}); });
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    Input in(data, size);
    Report rep;
    static const int widths[] = {1, 2, 4, 8, 16};
    static const IndexType index_types[] = {{1, true}, {2, true}, {4, true}, {8, true},
                                            {1, false}, {2, false}, {4, false}, {8, false}};
    const int width = in.pick(widths);
    const IndexType it = in.pick(index_types);

    // x's shape (the dimension at least 1 long unless the index is empty), then the index's:
    // no longer than x across dim, any length along it.
    Shape xs = pick_shape(in, 0);
    const int dim = xs.axis;
    Shape is = xs;
    for (int d = 0; d < xs.ndim; ++d) {
        if (d == dim) is.dims[d] = in.flag() ? in.in(0, 12) : axis_length(in);
        else if (in.chance(160)) is.dims[d] = xs.dims[d];
        else is.dims[d] = int64_t(in.below(uint64_t(xs.dims[d]) + 1));
    }
    bound_size(is, 4096);
    if (xs.dims[dim] == 0 && is.size() > 0) xs.dims[dim] = 1 + int64_t(in.below(8));
    const int64_t n = xs.dims[dim];

    Array x = make_array(in, width, xs.ndim, xs.dims);
    Array index = make_array(in, it.itemsize, is.ndim, is.dims);

    axisops::GatherRequest req;
    req.x = x.view();
    req.index = index.view();
    req.index_signed = it.is_signed;
    req.dim = dim;
    req.threads = 1 + int(in.below(3));
    switch (in.byte() % 4) {
        case 0: req.ahead = in.in(1, 300); break;
        case 1: req.ahead = in.flag() ? 256 : int64_t(1) << 17; break;
        default: req.ahead = 0; break;
    }
    if (in.chance(64)) req.task = in.in(1, 200);
    req.tune = fuzz_tuning(in, relevant);
    if (!tuning_valid(req.tune)) return 0;  // never: fuzz_tuning repairs its changes
    fill_bytes(x, in.u32());
    fill_index(index, it, n, in);

    rep.add("gather x " + std::to_string(width) + "-byte elements " + x.text() + " index " +
            index_name(it) + " " + index.text() + " dim " + std::to_string(dim));
    rep.add("threads " + std::to_string(req.threads) + " ahead " + std::to_string(req.ahead) +
            " task " + std::to_string(req.task));
    rep.add("tuning " + tuning_changes(req.tune));

    const int64_t total = index.size();
    auto out = output(total, width);
    req.out = out.get();
    rep.announce();
    const int64_t got = call(rep, [&] { return axisops::gather(req); });

    // The plain loop, in C order over the index's shape.
    int64_t first_bad = -1;
    std::vector<uint8_t> want(size_t(total * width));
    int64_t coord[3] = {0, 0, 0};
    for (int64_t t = 0; t < total; ++t) {
        int64_t rest = t;
        for (int d = is.ndim - 1; d >= 0; --d) {
            coord[d] = rest % is.dims[d];
            rest /= is.dims[d];
        }
        int64_t ioff = 0, xoff = 0;
        for (int d = 0; d < is.ndim; ++d) ioff += coord[d] * index.strides[d];
        const int64_t w = coordinate(index, it, ioff, n);
        if (w < 0) {
            if (first_bad < 0) first_bad = t;
            continue;
        }
        for (int d = 0; d < is.ndim; ++d) xoff += (d == dim ? w : coord[d]) * x.strides[d];
        std::memcpy(want.data() + t * width, x.at(xoff), size_t(width));
    }
    if (got != first_bad) {
        std::string what = "returned " + std::to_string(got) + ", expected " +
                           std::to_string(first_bad);
        if (first_bad >= 0) {
            int64_t rest = first_bad, off = 0;
            for (int d = is.ndim - 1; d >= 0; --d) {
                off += (rest % is.dims[d]) * index.strides[d];
                rest /= is.dims[d];
            }
            what += " (the first bad value, " + std::to_string(index_value(index, it, off)) +
                    ", for n = " + std::to_string(n) + ")";
        }
        rep.fail(what);
    }
    if (first_bad < 0)
        for (int64_t t = 0; t < total; ++t)
            if (std::memcmp(want.data() + t * width, out.get() + t * width, size_t(width)) != 0)
                rep.fail("output element " + std::to_string(t) + " differs from the plain loop");
    return 0;
}
