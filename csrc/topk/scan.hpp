// PLACEHOLDER until the scan strategy is ported: runs the radix strategy.
#pragma once
#include "topk/radix.hpp"
namespace axisops {
template <class KeyT>
void topk_scan_rows(const TopKJob<KeyT>& job, int64_t q0, int64_t q1) { topk_radix_rows(job, q0, q1); }
template <class KeyT>
void topk_scan_split(const TopKJob<KeyT>& job, int) { topk_radix_rows(job, 0, job.seqs.count()); }
}  // namespace axisops
