// One module, several instruction-set levels: the hot kernels are compiled once per level
// (baseline: x86-64-v2 or the architecture's own; avx2: x86-64-v3; avx512: x86-64-v4), each
// level's entry points gathered in a table, and every call goes through the table of the
// level in use, chosen once when the module loads (the best level this CPU runs; Python's
// AXISOPS_ISA may choose another). Bindings, dispatch and everything else compile once.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gather/request.hpp"
#include "select/request.hpp"
#include "topk/request.hpp"

namespace axisops {

struct Kernels {
    const char* level;
    void (*topk)(const TopKRequest&);
    std::string (*topk_strategy)(const TopKRequest&);
    void (*sort)(const SortRequest&);
    std::string (*sort_strategy)(const SortRequest&);
    void (*kthvalue)(const KthRequest&);
    std::string (*kthvalue_strategy)(const KthRequest&);
    void (*kth_many)(const KthManyRequest&);
    void (*partition)(const PartitionRequest&);
    std::string (*partition_strategy)(const PartitionRequest&);
    int64_t (*gather)(const GatherRequest&);
    // The sorting network of the level's vectors (select/network.hpp), sorting a row of a
    // power of two records of 32 or 64 bits in place; null where it does not pay.
    void (*sort_network32)(unsigned char*, size_t);
    void (*sort_network64)(unsigned char*, size_t);
    // Whether the level's top-k has the filter route (topk/filter.hpp).
    bool topk_filter;
    // Whether it has the lanes route (topk/lanes.hpp).
    bool topk_lanes;
};

// The levels built into this module, lowest first.
std::vector<std::string> built_levels();
// The level in use.
const Kernels& kernels();
// Uses `level` from now on (one this module has and this CPU runs); returns the one in use
// before. Throws std::invalid_argument otherwise.
std::string use_level(const std::string& level);

}  // namespace axisops
