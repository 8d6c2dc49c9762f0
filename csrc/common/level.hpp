// The entry points of the kernels of one instruction-set level (AXISOPS_ISA_NS), and its
// table (common/dispatch.hpp). A family of kernels that runs no faster on wider
// instructions is compiled at the lowest level built only (AXISOPS_BASE_NS: the baseline,
// unless a developer builds fewer levels; CMakeLists.txt's AXISOPS_OWN_<family> says which
// families a level compiles itself); the wider levels' tables point at the lowest's.
#pragma once

#include <cstdint>
#include <string>

#include "common/dispatch.hpp"
#include "common/isa.hpp"
#include "gather/request.hpp"
#include "select/request.hpp"
#include "topk/request.hpp"

namespace axisops {

#define AXISOPS_DECLARE_LEVEL(ns)                                   \
    namespace ns {                                                  \
    void topk(const TopKRequest& req);                              \
    std::string topk_strategy(const TopKRequest& req);              \
    void sort(const SortRequest& req);                              \
    std::string sort_strategy(const SortRequest& req);              \
    void kthvalue(const KthRequest& req);                           \
    std::string kthvalue_strategy(const KthRequest& req);           \
    void kth_many(const KthManyRequest& req);                       \
    void partition(const PartitionRequest& req);                    \
    std::string partition_strategy(const PartitionRequest& req);    \
    int64_t gather(const GatherRequest& req);                       \
    }
AXISOPS_DECLARE_LEVEL(AXISOPS_BASE_NS)
AXISOPS_DECLARE_LEVEL(AXISOPS_ISA_NS)
#undef AXISOPS_DECLARE_LEVEL

}  // namespace axisops
