// The table of one instruction-set level's kernels (compiled once per level): its own
// entry points for the families it compiles (AXISOPS_OWN_<family>), the lowest level's
// (AXISOPS_BASE_NS) for the others, and its own sorting networks (every level's vectors
// differ; the sort family itself runs at the baseline); whether its top-k has the filter
// and lanes routes.
#include "common/level.hpp"

#include "select/network.hpp"
#include "topk/filter.hpp"
#include "topk/lanes.hpp"

#define AXISOPS_STRINGIFY(x) #x
#define AXISOPS_NAME(x) AXISOPS_STRINGIFY(x)
#define AXISOPS_FROM(own) AXISOPS_FROM_EXPANDED(own)
#define AXISOPS_FROM_EXPANDED(own) AXISOPS_FROM_##own
#define AXISOPS_FROM_1 AXISOPS_ISA_NS
#define AXISOPS_FROM_0 AXISOPS_BASE_NS

namespace axisops {
namespace AXISOPS_ISA_NS {

extern const Kernels kernels;
const Kernels kernels = {AXISOPS_NAME(AXISOPS_ISA_NS),
                         &AXISOPS_FROM(AXISOPS_OWN_TOPK)::topk,
                         &AXISOPS_FROM(AXISOPS_OWN_TOPK)::topk_strategy,
                         &AXISOPS_FROM(AXISOPS_OWN_SORT)::sort,
                         &AXISOPS_FROM(AXISOPS_OWN_SORT)::sort_strategy,
                         &AXISOPS_FROM(AXISOPS_OWN_SELECT)::kthvalue,
                         &AXISOPS_FROM(AXISOPS_OWN_SELECT)::kthvalue_strategy,
                         &AXISOPS_FROM(AXISOPS_OWN_SELECT)::kth_many,
                         &AXISOPS_FROM(AXISOPS_OWN_SELECT)::partition,
                         &AXISOPS_FROM(AXISOPS_OWN_SELECT)::partition_strategy,
                         &AXISOPS_FROM(AXISOPS_OWN_GATHER)::gather,
                         network::sorter<uint32_t>(),
                         network::sorter<uint64_t>(),
                         AXISOPS_OWN_TOPK && FILTER_BUILT,
                         AXISOPS_OWN_TOPK && LANES_BUILT};

}  // namespace AXISOPS_ISA_NS
}  // namespace axisops
