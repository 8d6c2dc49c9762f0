// Top-k of a large k by selection (select/select.cpp), for the top-k driver: the element
// of rank k - 1 by the kthvalue machinery, the elements before it collected in two passes,
// and only those sorted (rather than a sort of the whole sequence).
#pragma once

#include "common/isa.hpp"
#include "common/tuning.hpp"
#include "topk/request.hpp"

namespace axisops {
namespace AXISOPS_ISA_NS {

// Runs `req` (1 <= k <= n, n below 2^32) by selection.
void topk_by_selection(const TopKRequest& req, Trace& trace);

}  // namespace AXISOPS_ISA_NS
}  // namespace axisops
