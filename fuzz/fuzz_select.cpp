// kthvalue, partition and kth_many against std::stable_sort of order keys.
//
// kthvalue: the k-th smallest (1-based) by the stable ascending order, value bits and int64
// index, C-ordered with x's shape without the axis. partition: position kths[p] holds the
// element of stable rank kths[p]; between pivots the elements of the ranks in between, in
// index order; values (raw bits) and/or indices of x's shape. kth_many: the elements of
// stable ranks ranks[j] (the same for every sequence, or a row per sequence; unsorted, with
// repeats and runs of consecutive ranks), value bits, C-ordered with x's shape without the
// axis, then the ranks.
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
    "parallel_min",   "task_min",       "tasks_per_thread", "select_split_min",
    "tile_max",       "select_part",    "select_chunk",     "kth_final",
    "kth_sample_min", "kth_sample_max", "kth_count_max",    "kth_pivot_min",
    "kth_pivot_rounds", "row_cap_share", "row_cap_min",     "parted_cap_share",
    "parted_cap_min", "parted_block",   "parted_max_n",     "words_max_n",
    "arena_keep_max", "select_bands_max",
};

const char* const kth_strategies[] = {"rows", "split", "radix"};
const char* const partition_strategies[] = {"rows", "split"};

double pick_sigmas(Input& in) {
    switch (in.byte() % 8) {
        case 0: return 0.001 * (1 + in.below(100));
        case 1: return 0.25 * (1 + in.below(32));
        case 2: return 1e6;
        default: return 0;  // the default
    }
}

int64_t pick_k(Input& in, int64_t n) {  // 1-based
    switch (in.byte() % 6) {
        case 0: return 1;
        case 1: return n;
        case 2: return (n + 1) / 2;
        default: return 1 + int64_t(in.below(uint64_t(n)));
    }
}

std::vector<int64_t> pick_kths(Input& in, int64_t n) {
    std::vector<int64_t> kths;
    const int64_t want = in.chance(200) ? 1 + int64_t(in.below(4))
                                        : 1 + int64_t(in.below(uint64_t(std::min<int64_t>(n, 64))));
    for (int64_t t = 0; t < want; ++t) kths.push_back(pick_k(in, n) - 1);
    std::sort(kths.begin(), kths.end());
    kths.erase(std::unique(kths.begin(), kths.end()), kths.end());
    return kths;
}

// The work stays bounded: a split selection gives each part a tile of select_chunk keys,
// so at most 64 parts (parts of one element still happen for short sequences).
void bound_parts(int64_t& segment, axisops::Tuning& t, int64_t n) {
    const int64_t least = (n + 63) / 64;
    if (segment > 0) segment = std::max(segment, least);
    t.select_part = std::max(t.select_part, least);
}

std::string list_text(const std::vector<int64_t>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
}

std::string where_text(const Seqs& s, int64_t q, int64_t p, int64_t at) {
    return "sequence " + std::to_string(q) + " (outer " + std::to_string(q / s.inner) +
           ", inner " + std::to_string(q % s.inner) + ") position " + std::to_string(p) +
           " (output element " + std::to_string(at) + "): ";
}

void kthvalue(Input& in, Report& rep, Dtype dt, const Shape& sh, Array& x) {
    const int64_t n = sh.dims[sh.axis];
    axisops::KthRequest req;
    req.x = x.view();
    req.kind = dt.kind;
    req.axis = sh.axis;
    req.k = pick_k(in, n);
    req.threads = 1 + int(in.below(3));
    if (in.chance(100)) req.strategy = in.pick(kth_strategies);
    if (in.chance(80)) req.segment = in.flag() ? in.in(1, 64) : in.in(1, 2000);
    req.sigmas = pick_sigmas(in);
    req.tune = fuzz_tuning(in, relevant);
    bound_parts(req.segment, req.tune, n);
    if (!tuning_valid(req.tune)) return;
    const std::string pattern = fill_values(x, dt, in);

    const Seqs s = seqs_of(x, sh.axis);
    rep.add("kthvalue " + dtype_name(dt) + " x " + x.text() + " axis " +
            std::to_string(sh.axis) + " values " + pattern);
    rep.add("k " + std::to_string(req.k) + " threads " + std::to_string(req.threads) +
            " strategy '" + req.strategy + "' segment " + std::to_string(req.segment) +
            " sigmas " + std::to_string(req.sigmas));
    rep.add("tuning " + tuning_changes(req.tune));

    auto values = output(s.count(), dt.itemsize);
    auto indices = output(s.count(), 8);
    req.values = values.get();
    req.indices = reinterpret_cast<int64_t*>(indices.get());
    rep.announce();
    call(rep, [&] { axisops::kthvalue(req); });

    for (int64_t q = 0; q < s.count(); ++q) {
        const std::vector<int64_t> order = stable_order(seq_keys(x, dt, s, q), false);
        const int64_t want = order[size_t(req.k - 1)];
        const uint64_t want_bits = x.bits(s.offsets[size_t(q)] + want * s.stride);
        uint64_t v = 0;
        std::memcpy(&v, values.get() + q * dt.itemsize, size_t(dt.itemsize));
        if (req.indices[q] != want || v != want_bits)
            rep.fail(where_text(s, q, req.k - 1, q) + "index " + std::to_string(req.indices[q]) +
                     " bits " + hex(v) + ", expected index " + std::to_string(want) + " bits " +
                     hex(want_bits));
    }
}

void partition(Input& in, Report& rep, Dtype dt, const Shape& sh, Array& x) {
    const int64_t n = sh.dims[sh.axis];
    axisops::PartitionRequest req;
    req.x = x.view();
    req.kind = dt.kind;
    req.axis = sh.axis;
    req.kths = pick_kths(in, n);
    const int wanted = 1 + int(in.below(3));  // 1: values, 2: indices, 3: both
    req.threads = 1 + int(in.below(3));
    if (in.chance(100)) req.strategy = in.pick(partition_strategies);
    if (in.chance(80)) req.segment = in.flag() ? in.in(1, 64) : in.in(1, 2000);
    req.sigmas = pick_sigmas(in);
    req.tune = fuzz_tuning(in, relevant);
    bound_parts(req.segment, req.tune, n);
    if (!tuning_valid(req.tune)) return;
    const std::string pattern = fill_values(x, dt, in);

    const Seqs s = seqs_of(x, sh.axis);
    rep.add("partition " + dtype_name(dt) + " x " + x.text() + " axis " +
            std::to_string(sh.axis) + " values " + pattern);
    rep.add("kths " + list_text(req.kths) + " outputs " +
            (wanted == 1 ? "values" : wanted == 2 ? "indices" : "values+indices") +
            " threads " + std::to_string(req.threads) + " strategy '" + req.strategy +
            "' segment " + std::to_string(req.segment) + " sigmas " + std::to_string(req.sigmas));
    rep.add("tuning " + tuning_changes(req.tune));

    const int64_t total = x.size();
    auto values = output(total, dt.itemsize);
    auto indices = output(total, 8);
    if (wanted & 1) req.values = values.get();
    if (wanted & 2) req.indices = reinterpret_cast<int64_t*>(indices.get());
    rep.announce();
    call(rep, [&] { axisops::partition(req); });

    for (int64_t q = 0; q < s.count(); ++q) {
        const std::vector<int64_t> order =
            partition_order(stable_order(seq_keys(x, dt, s, q), false), req.kths);
        const int64_t o = q / s.inner, c = q % s.inner;
        for (int64_t p = 0; p < n; ++p) {
            const int64_t at = (o * n + p) * s.inner + c;
            const int64_t want = order[size_t(p)];
            const uint64_t want_bits = x.bits(s.offsets[size_t(q)] + want * s.stride);
            if (req.indices && req.indices[at] != want)
                rep.fail(where_text(s, q, p, at) + "index " + std::to_string(req.indices[at]) +
                         ", expected " + std::to_string(want) + " (bits " + hex(want_bits) + ")");
            if (req.values) {
                uint64_t v = 0;
                std::memcpy(&v, values.get() + at * dt.itemsize, size_t(dt.itemsize));
                if (v != want_bits)
                    rep.fail(where_text(s, q, p, at) + "value bits " + hex(v) + ", expected " +
                             hex(want_bits) + " (element " + std::to_string(want) + ")");
            }
        }
    }
}

void kth_many(Input& in, Report& rep, Dtype dt, const Shape& sh, Array& x) {
    const int64_t n = sh.dims[sh.axis];
    const Seqs s = seqs_of(x, sh.axis);
    axisops::KthManyRequest req;
    req.x = x.view();
    req.kind = dt.kind;
    req.axis = sh.axis;
    req.t = 1 + int64_t(in.below(8));
    req.rank_rows = in.flag() ? 1 : std::max<int64_t>(1, s.count());
    std::vector<int64_t> ranks;
    for (int64_t i = 0; i < req.rank_rows * req.t; ++i) {
        const bool next = i % req.t > 0 && in.flag();  // right after the previous rank
        ranks.push_back(next ? std::min(ranks.back() + 1, n - 1) : pick_k(in, n) - 1);
    }
    req.ranks = ranks.data();
    req.threads = 1 + int(in.below(3));
    if (in.chance(100)) req.strategy = in.pick(partition_strategies);
    if (in.chance(80)) req.segment = in.flag() ? in.in(1, 64) : in.in(1, 2000);
    req.tune = fuzz_tuning(in, relevant);
    bound_parts(req.segment, req.tune, n);
    if (!tuning_valid(req.tune)) return;
    const std::string pattern = fill_values(x, dt, in);

    rep.add("kth_many " + dtype_name(dt) + " x " + x.text() + " axis " +
            std::to_string(sh.axis) + " values " + pattern);
    rep.add("ranks " + list_text(ranks) + " rows " + std::to_string(req.rank_rows) +
            " threads " + std::to_string(req.threads) + " strategy '" + req.strategy +
            "' segment " + std::to_string(req.segment));
    rep.add("tuning " + tuning_changes(req.tune));

    auto values = output(s.count() * req.t, dt.itemsize);
    req.values = values.get();
    rep.announce();
    call(rep, [&] { axisops::kth_many(req); });

    for (int64_t q = 0; q < s.count(); ++q) {
        const std::vector<int64_t> order = stable_order(seq_keys(x, dt, s, q), false);
        for (int64_t j = 0; j < req.t; ++j) {
            const int64_t r = ranks[size_t((req.rank_rows == 1 ? 0 : q) * req.t + j)];
            const int64_t want = order[size_t(r)];
            const uint64_t want_bits = x.bits(s.offsets[size_t(q)] + want * s.stride);
            uint64_t v = 0;
            std::memcpy(&v, values.get() + (q * req.t + j) * dt.itemsize, size_t(dt.itemsize));
            if (v != want_bits)
                rep.fail(where_text(s, q, r, q * req.t + j) + "bits " + hex(v) +
                         ", expected bits " + hex(want_bits) + " (element " +
                         std::to_string(want) + ")");
        }
    }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
    check_tuning_rules();
    std::atexit([] { print_paths("select", {"select_", "partition_", "ranks_", "arena_"}); });
    return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    Input in(data, size);
    Report rep;
    const uint8_t op = in.byte();
    const Dtype dt = pick_dtype(in);
    const Shape sh = pick_shape(in, 1);
    Array x = make_array(in, dt.itemsize, sh.ndim, sh.dims);
    if (op % 4 == 3) kth_many(in, rep, dt, sh, x);  // before: even kthvalue, odd partition
    else if (op & 1) kthvalue(in, rep, dt, sh, x);
    else partition(in, rep, dt, sh, x);
    return 0;
}
