// sort/argsort against std::stable_sort of order keys: values (raw bits) and/or int64
// indices of x's shape, C-ordered, stable ascending or stable largest-first.
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
#include "select/request.hpp"
#include "tuning.hpp"

using namespace fuzz;

namespace {

const std::vector<const char*> relevant = {
    "parallel_min",  "task_min",          "tasks_per_thread",      "select_split_min",
    "tile_max",      "words_max_n",       "sort_bucket_max",       "sort_map_bits",
    "sort_msd_bits", "sort_lsd_bits",     "sort_part_shift_min",   "sort_parts_per_thread",
    "sort_parts_max", "row_cap_share",    "row_cap_min",           "arena_keep_max",
    "sort_network_max", "sort_network_max64", "sort_network_fill64",
    "sort_network_keys64_max", "sort_network_keys64_fill",
};

const char* const strategies[] = {"rows", "split"};

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    check_tuning_rules();
    std::atexit([] { print_paths("sort", {"sort_", "arena_"}); });
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    Input in(data, size);
    Report rep;
    const Dtype dt = pick_dtype(in);
    const Shape sh = pick_shape(in, 0);  // n == 0 is allowed: nothing to sort
    Array x = make_array(in, dt.itemsize, sh.ndim, sh.dims);

    axisops::SortRequest req;
    req.x = x.view();
    req.kind = dt.kind;
    req.axis = sh.axis;
    req.descending = in.flag();
    const int wanted = 1 + int(in.below(3));  // 1: values, 2: indices, 3: both
    req.threads = 1 + int(in.below(3));
    if (in.chance(100)) req.strategy = in.pick(strategies);
    if (in.chance(80)) req.segment = in.flag() ? in.in(1, 64) : in.in(1, 2000);
    req.tune = fuzz_tuning(in, relevant);
    // The work stays bounded: a split sort keeps a histogram per pair of parts, so at most
    // 32 parts (parts of one element still happen for short sequences).
    const int64_t n = sh.dims[sh.axis];
    if (req.segment > 0) req.segment = std::max(req.segment, (n + 31) / 32);
    req.tune.sort_parts_max = std::min<int64_t>(req.tune.sort_parts_max, 32);
    if (!tuning_valid(req.tune)) return 0;  // never: fuzz_tuning repairs its changes
    const std::string pattern = fill_values(x, dt, in);

    const Seqs s = seqs_of(x, sh.axis);
    rep.add("sort " + dtype_name(dt) + " x " + x.text() + " axis " + std::to_string(sh.axis) +
            " values " + pattern);
    rep.add(std::string("descending ") + (req.descending ? "1" : "0") + " outputs " +
            (wanted == 1 ? "values" : wanted == 2 ? "indices" : "values+indices") +
            " threads " + std::to_string(req.threads) + " strategy '" + req.strategy +
            "' segment " + std::to_string(req.segment));
    rep.add("tuning " + tuning_changes(req.tune));

    const int64_t total = x.size();
    auto values = output(total, dt.itemsize);
    auto indices = output(total, 8);
    if (wanted & 1) req.values = values.get();
    if (wanted & 2) req.indices = reinterpret_cast<int64_t*>(indices.get());
    rep.announce();
    call(rep, [&] { axisops::sort(req); });

    for (int64_t q = 0; q < s.count(); ++q) {
        const std::vector<RefKey> keys = seq_keys(x, dt, s, q);
        const std::vector<int64_t> order = stable_order(keys, req.descending);
        const int64_t o = q / s.inner, c = q % s.inner;
        for (int64_t p = 0; p < s.n; ++p) {
            const int64_t at = (o * s.n + p) * s.inner + c;
            const int64_t want = order[size_t(p)];
            const uint64_t want_bits = x.bits(s.offsets[size_t(q)] + want * s.stride);
            const std::string where = "sequence " + std::to_string(q) + " (outer " +
                                      std::to_string(o) + ", inner " + std::to_string(c) +
                                      ") position " + std::to_string(p) + " (output element " +
                                      std::to_string(at) + "): ";
            if (req.indices && req.indices[at] != want)
                rep.fail(where + "index " + std::to_string(req.indices[at]) + ", expected " +
                         std::to_string(want) + " (bits " + hex(want_bits) + ")");
            if (req.values) {
                uint64_t v = 0;
                std::memcpy(&v, values.get() + at * dt.itemsize, size_t(dt.itemsize));
                if (v != want_bits)
                    rep.fail(where + "value bits " + hex(v) + ", expected " + hex(want_bits) +
                             " (element " + std::to_string(want) + ")");
            }
        }
    }
    return 0;
}
