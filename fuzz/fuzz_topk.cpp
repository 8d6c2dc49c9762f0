// top-k against a stable sort of order keys: values (raw bits) and int64 indices, C-ordered
// with the axis replaced by k; with sorted=false the same set per sequence, in any order.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "arrays.hpp"
#include "input.hpp"
#include "reference.hpp"
#include "report.hpp"
#include "topk/request.hpp"
#include "tuning.hpp"

using namespace fuzz;

namespace {

const std::vector<const char*> relevant = {
    "parallel_min",      "task_min",        "tasks_per_thread",   "insert_max_n",
    "insert_small_n",    "insert_small_k",  "extract_max_n",      "extract_max_k",
    "extract_max_work",  "lanes_max_k",     "filter_min_k",       "filter_max_k",
    "filter_min_work",   "filter_n_per_k",  "insert_chunk",       "radix_fraction",
    "topk_split_min",
    "words_max_n",       "unit_segment",    "segment_bytes",      "scan_min_buffer",
    "scan_fuse_bytes",
    "sample_min_segments", "sample_k",      "sample_max",         "band_rows",
    "band_min_k",        "band_share",      "hope_min_samples",   "column_rows",
    "column_panel",      "columns_min_inner", "column_split_min", "column_split_max_k",
    "column_split_max_n", "column_split_max_candidates", "column_words_max_rows",
    "column_min_buffer", "column_sample_factor", "column_spread_share",
    // top-k of a large k by selection, and the selection and sort it uses
    "select_fraction",   "topk_select_min",  "select_split_min",  "select_part",
    "select_chunk",      "kth_final",        "row_cap_share",     "row_cap_min",
    "parted_cap_share",  "parted_cap_min",   "parted_block",      "sort_bucket_max",
};

const char* const strategies[] = {"insert",  "scan",  "radix",       "select",
                                  "columns", "split", "column-split"};

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    check_tuning_rules();
    std::atexit([] { print_paths("topk", {"topk_"}); });
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    Input in(data, size);
    Report rep;
    const Dtype dt = pick_dtype(in);
    const Shape sh = pick_shape(in, 1);
    Array x = make_array(in, dt.itemsize, sh.ndim, sh.dims);
    const int64_t n = sh.dims[sh.axis];

    axisops::TopKRequest req;
    req.x = x.view();
    req.kind = dt.kind;
    req.axis = sh.axis;
    req.k = in.flag() ? 1 + int64_t(in.below(uint64_t(std::min<int64_t>(n, 40))))
                      : 1 + int64_t(in.below(uint64_t(n)));
    req.largest = in.flag();
    req.sorted = !in.chance(64);
    req.threads = 1 + int(in.below(3));
    if (in.chance(100)) req.strategy = in.pick(strategies);
    if (in.chance(64)) req.segment = in.flag() ? in.in(1, 64) : in.in(1, 2000);
    req.tune = fuzz_tuning(in, relevant);
    // The work stays bounded: a forced insert costs k * n.
    if (req.strategy == "insert") req.k = std::min(req.k, std::max<int64_t>(64, 200000 / n));
    if (!tuning_valid(req.tune)) return 0;  // never: fuzz_tuning repairs its changes
    const std::string pattern = fill_values(x, dt, in);

    const int64_t k = req.k;
    const Seqs s = seqs_of(x, sh.axis);
    rep.add("topk " + dtype_name(dt) + " x " + x.text() + " axis " + std::to_string(sh.axis) +
            " values " + pattern);
    rep.add("k " + std::to_string(k) + " largest " + std::to_string(req.largest) + " sorted " +
            std::to_string(req.sorted) + " threads " + std::to_string(req.threads) +
            " strategy '" + req.strategy + "' segment " + std::to_string(req.segment));
    rep.add("tuning " + tuning_changes(req.tune));

    const int64_t out_count = s.outer * k * s.inner;
    auto values = output(out_count, dt.itemsize);
    auto indices = output(out_count, 8);
    req.values = values.get();
    req.indices = reinterpret_cast<int64_t*>(indices.get());
    rep.announce();
    call(rep, [&] { axisops::topk(req); });

    for (int64_t q = 0; q < s.count(); ++q) {
        const std::vector<RefKey> keys = seq_keys(x, dt, s, q);
        const std::vector<int64_t> order = stable_order(keys, req.largest);
        const int64_t o = q / s.inner, c = q % s.inner;
        std::vector<int64_t> got(static_cast<size_t>(k));
        for (int64_t j = 0; j < k; ++j) {
            const int64_t at = (o * k + j) * s.inner + c;
            const int64_t i = req.indices[at];
            uint64_t v = 0;
            std::memcpy(&v, values.get() + at * dt.itemsize, size_t(dt.itemsize));
            const std::string where = "sequence " + std::to_string(q) + " (outer " +
                                      std::to_string(o) + ", inner " + std::to_string(c) +
                                      ") result " + std::to_string(j) + " (output element " +
                                      std::to_string(at) + "): ";
            if (req.sorted && i != order[size_t(j)])
                rep.fail(where + "index " + std::to_string(i) + ", expected " +
                         std::to_string(order[size_t(j)]) + " (bits " +
                         hex(x.bits(s.offsets[size_t(q)] + order[size_t(j)] * s.stride)) + ")");
            if (i < 0 || i >= n) rep.fail(where + "index " + std::to_string(i) + " out of range");
            const uint64_t want = x.bits(s.offsets[size_t(q)] + i * s.stride);
            if (v != want)
                rep.fail(where + "value bits " + hex(v) + " but element " + std::to_string(i) +
                         " has bits " + hex(want));
            got[size_t(j)] = i;
        }
        if (!req.sorted) {
            std::vector<int64_t> want(order.begin(), order.begin() + k);
            std::sort(want.begin(), want.end());
            std::sort(got.begin(), got.end());
            for (int64_t j = 0; j < k; ++j)
                if (got[size_t(j)] != want[size_t(j)])
                    rep.fail("sequence " + std::to_string(q) + ": the set of indices differs: " +
                             std::to_string(j) + "-th smallest index " +
                             std::to_string(got[size_t(j)]) + ", expected " +
                             std::to_string(want[size_t(j)]));
        }
    }
    return 0;
}
