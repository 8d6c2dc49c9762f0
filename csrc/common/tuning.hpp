// The size switches of the core, in one place, and the record of which paths a call took.
//
// Every size-dependent choice of a strategy or a path (where a sequence is cut across
// threads, how many candidates a buffer holds before another route takes over, how long a
// segment, a part or a chunk is) reads a field of `Tuning` rather than a constant, so tests
// can shrink them and reach every path with inputs of a few hundred elements (a path that
// only inputs of millions of elements reach is a path no test checks). Fixed invariants
// (lane counts, histogram sizes, the spare slots a vector store needs) stay constants
// beside the code they size.
//
// A call takes one snapshot of the tuning when it starts (`current_tuning()`) and reads
// only that, so buffers are sized and used with the same numbers even if a test changes
// the tuning meanwhile. The defaults are the measured ones; `set_tuning` checks the
// invariants between fields (a chunk must hold a whole small sequence, say) and refuses
// what would break them.
//
// `Trace` records which strategies and paths a call took (one bit per `Path`); the calls'
// records are also ORed into a process-wide set that tests read and reset.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace axisops {

// X(name, default, least, most): every tunable, its default and the range set_tuning
// accepts. Documented where each is used.
#define AXISOPS_TUNING(X)                                                           \
    /* threads: calls below parallel_min elements run on one thread; tasks */       \
    X(parallel_min, int64_t(1) << 15, 0, INT64_MAX)                                 \
    X(task_min, int64_t(1) << 14, 1, INT64_MAX)                                     \
    X(tasks_per_thread, 8, 1, 1 << 20)                                              \
    /* top-k strategies (topk/driver.cpp) */                                        \
    X(insert_max_n, 64, 0, INT64_MAX)                                               \
    X(insert_small_n, 256, 0, INT64_MAX)                                            \
    X(insert_small_k, 16, 0, INT64_MAX)                                             \
    X(extract_max_n, 1024, 0, INT64_MAX)                                            \
    X(extract_max_k, 64, 0, INT64_MAX)                                              \
    X(extract_max_work, int64_t(1) << 15, 0, INT64_MAX)                             \
    X(lanes_max_k, 4, 0, 4)                                                         \
    X(filter_min_k, 3, 1, 16)                                                       \
    X(filter_max_k, 16, 0, 16)                                                      \
    X(filter_min_work, 800, 0, INT64_MAX)                                           \
    X(filter_n_per_k, 8, 0, INT64_MAX)                                              \
    X(insert_chunk, 8192, 1, int64_t(1) << 40)                                      \
    X(radix_fraction, 16, 1, INT64_MAX)                                             \
    X(select_fraction, 64, 1, INT64_MAX)                                            \
    X(topk_select_min, int64_t(1) << 16, 1, INT64_MAX)                              \
    X(topk_split_min, int64_t(1) << 17, 1, INT64_MAX)                               \
    /* keys of 32 bits or fewer share a 64-bit word with an index below this */     \
    X(words_max_n, int64_t(0xFFFFFFFF), 1, int64_t(0xFFFFFFFF))                     \
    /* the scan (topk/scan.hpp) */                                                  \
    X(unit_segment, 32768, 1, int64_t(1) << 24)                                     \
    X(segment_bytes, 32768, 8, int64_t(1) << 27)                                    \
    X(scan_min_buffer, 64, 1, int64_t(1) << 20)                                     \
    X(scan_fuse_bytes, 12288, 1, INT64_MAX)                                         \
    X(sample_min_segments, 16, 1, INT64_MAX)                                        \
    X(sample_k, 64, 1, INT64_MAX)                                                   \
    X(sample_max, 16, 2, 1 << 16)                                                   \
    X(band_rows, 6, 1, 32)                                                          \
    X(band_min_k, 24, 1, INT64_MAX)                                                 \
    X(band_share, 16, 1, INT64_MAX)                                                 \
    X(hope_min_samples, 4, 1, INT64_MAX)                                            \
    /* the columns (topk/columns.hpp) */                                            \
    X(column_rows, 32, 1, 32)                                                       \
    X(column_panel, 1024, 1, int64_t(1) << 24)                                      \
    X(columns_min_inner, 16, 2, INT64_MAX)                                          \
    X(column_split_min, 256, 1, INT64_MAX)                                          \
    X(column_split_max_k, 16, 1, INT64_MAX)                                         \
    X(column_split_max_n, int64_t(1) << 48, 1, int64_t(1) << 48)                    \
    X(column_split_max_candidates, int64_t(1) << 15, 1, int64_t(1) << 15)           \
    X(column_words_max_rows, int64_t(1) << 31, 1, int64_t(1) << 31)                 \
    X(column_min_buffer, 32, 1, int64_t(1) << 20)                                   \
    X(column_sample_factor, 8, 1, INT64_MAX)                                        \
    X(column_spread_share, 16, 1, INT64_MAX)                                        \
    /* the selection family (select/) */                                            \
    X(select_split_min, int64_t(1) << 17, 1, INT64_MAX)                             \
    X(tile_max, int64_t(1) << 22, 1, INT64_MAX)                                     \
    X(select_part, int64_t(1) << 18, 1, INT64_MAX)                                  \
    X(select_chunk, 2048, 64, int64_t(1) << 24)                                     \
    X(kth_final, 512, 1, int64_t(1) << 24)                                          \
    X(kth_sample_min, 32, 1, int64_t(1) << 24)                                      \
    X(kth_sample_max, 16384, 1, int64_t(1) << 24)                                   \
    X(kth_count_max, 256, 0, int64_t(1) << 24)                                      \
    X(kth_pivot_min, 48, 2, INT64_MAX)                                              \
    X(kth_pivot_rounds, 40, 0, 1 << 20)                                             \
    X(row_cap_share, 8, 1, INT64_MAX)                                               \
    X(row_cap_min, int64_t(1) << 16, 1, INT64_MAX)                                  \
    X(parted_cap_share, 32, 1, INT64_MAX)                                           \
    X(parted_cap_min, int64_t(1) << 16, 1, INT64_MAX)                               \
    X(parted_block, int64_t(1) << 14, 1, INT64_MAX)                                 \
    X(parted_max_n, int64_t(0xFFFFFFFF), 1, int64_t(0xFFFFFFFF))                    \
    X(select_bands_max, 4, 1, 4)                                                     \
    /* the sort (select/sort.hpp) */                                                \
    X(sort_bucket_max, int64_t(1) << 19, 1, INT64_MAX)                              \
    X(sort_map_bits, 14, 1, 16)                                                     \
    X(sort_msd_bits, 8, 1, 16)                                                      \
    X(sort_lsd_bits, 12, 1, 16)                                                     \
    X(sort_part_shift_min, 15, 0, 62)                                               \
    X(sort_parts_per_thread, 4, 1, 1 << 20)                                         \
    X(sort_parts_max, 64, 1, 256)                                                   \
    X(sort_network_max, 4096, 0, int64_t(1) << 20)                                  \
    X(sort_network_max64, 2048, 0, int64_t(1) << 20)                                \
    X(sort_network_fill64, 5, 0, 8)                                                 \
    X(sort_network_keys64_max, 4096, 0, int64_t(1) << 20)                           \
    X(sort_network_keys64_fill, 6, 0, 8)                                            \
    /* gather (gather/) */                                                          \
    X(gather_task_min, int64_t(1) << 15, 1, INT64_MAX)                              \
    X(gather_tasks_per_thread, 4, 1, 1 << 20)                                       \
    X(gather_block, 2048, 1, int64_t(1) << 24)                                      \
    /* scratch kept between calls (select/arena.hpp) */                             \
    X(arena_keep_max, int64_t(64) << 20, 0, INT64_MAX)

struct Tuning {
#define AXISOPS_FIELD(name, value, least, most) int64_t name = value;
    AXISOPS_TUNING(AXISOPS_FIELD)
#undef AXISOPS_FIELD
};

// The tuning calls start with now (one snapshot per call).
Tuning current_tuning();
// Makes `t` the tuning of the calls that start from now on; throws std::invalid_argument
// naming the field for a value out of its range or an invariant broken.
void set_tuning(const Tuning& t);
// The fields' names, in order, and their values in a tuning (for the bindings).
std::vector<std::string> tuning_names();
std::vector<int64_t> tuning_values(const Tuning& t);
Tuning tuning_from(const std::vector<int64_t>& values);

// Strategies and paths a call can take: a bit each in a Trace.
#define AXISOPS_PATHS(X)                                                                   \
    X(topk_insert_words) X(topk_insert_pairs) X(topk_extract) X(topk_lanes) X(topk_filter)   \
    X(topk_filter_many) X(topk_radix_words) X(topk_radix_pairs) X(topk_select) X(topk_scan)  \
    X(topk_scan_split) X(topk_scan_sampled)                                                  \
    X(topk_scan_hoped) X(topk_scan_rescan) X(topk_scan_banded) X(topk_scan_compacted)        \
    X(topk_scan_rose) X(topk_scan_all_largest) X(topk_finish_words) X(topk_finish_pairs)     \
    X(topk_columns_words) X(topk_columns_pairs) X(topk_columns_buffered)                     \
    X(topk_columns_sampled) X(topk_column_split) X(topk_column_split_fallback)               \
    X(sort_rows_words) X(sort_rows_pairs) X(sort_rows_bare) X(sort_split_words)               \
    X(sort_split_pairs) X(sort_split_bare)                                                   \
    X(sort_rows_network) X(sort_msd) X(sort_msd_nested)                                      \
    X(select_small) X(select_band) X(select_hint) X(select_hint_missed) X(select_repeated)   \
    X(select_overflow_radix) X(select_missed_radix) X(select_radix) X(select_narrowed)       \
    X(select_pivot) X(select_by_value) X(select_one_key) X(select_parted)                    \
    X(select_parted_overflow) X(select_parted_repeated) X(select_parted_missed)              \
    X(select_parted_radix) X(ranks_bands) X(ranks_next)                                  \
    X(partition_rows) X(partition_split_counted) X(partition_split_preceding)                \
    X(partition_many) X(gather_blocks) X(gather_rows) X(arena_reused)

enum class Path : int {
#define AXISOPS_PATH(name) name,
    AXISOPS_PATHS(AXISOPS_PATH)
#undef AXISOPS_PATH
    count
};
static_assert(int(Path::count) <= 64, "a Trace holds 64 paths");

std::vector<std::string> path_names();

// The paths of one call, marked from any of its threads; at its end (the destructor) they
// join the process-wide set.
class Trace {
public:
    Trace() = default;
    Trace(const Trace&) = delete;
    Trace& operator=(const Trace&) = delete;
    ~Trace();

    void mark(Path p) { bits_.fetch_or(uint64_t(1) << int(p), std::memory_order_relaxed); }
    void mark_all(uint64_t bits) {
        if (bits) bits_.fetch_or(bits, std::memory_order_relaxed);
    }
    uint64_t bits() const { return bits_.load(std::memory_order_relaxed); }

private:
    std::atomic<uint64_t> bits_{0};
};

// Marks of one thread's work, handed to a Trace once (at the end of a task), so that loops
// over many short sequences do not share an atomic between threads per sequence.
class LocalTrace {
public:
    explicit LocalTrace(Trace& to) : to_(to) {}
    LocalTrace(const LocalTrace&) = delete;
    LocalTrace& operator=(const LocalTrace&) = delete;
    ~LocalTrace() { to_.mark_all(bits_); }
    void mark(Path p) { bits_ |= uint64_t(1) << int(p); }

private:
    Trace& to_;
    uint64_t bits_ = 0;
};

// The paths every call since the last reset took (for tests), and the reset.
uint64_t paths_seen();
void reset_paths_seen();

}  // namespace axisops
