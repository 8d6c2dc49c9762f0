// PLACEHOLDER until the columns strategy is ported: runs the radix strategy.
#pragma once
#include "topk/radix.hpp"
namespace axisops {
inline bool columns_fit(const Sequences& s) { return s.inner_unit() && s.inner > 1 && s.stride != 1; }
inline bool columns_apply(const Sequences&, int64_t) { return false; }
inline bool columns_split_applies(const Sequences&, int64_t, int) { return false; }
template <class KeyT>
void topk_columns(const TopKJob<KeyT>& job, int) { topk_radix_rows(job, 0, job.seqs.count()); }
template <class KeyT>
void topk_columns_split(const TopKJob<KeyT>& job, int) { topk_radix_rows(job, 0, job.seqs.count()); }
}  // namespace axisops
