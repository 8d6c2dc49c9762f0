// The sort's entry point: stable sort along an axis, by rows or split across the threads.
// Built with the hot loops' optimisation level (see CMakeLists.txt).

#include <cstdint>
#include <string>

#include "common/dispatch.hpp"
#include "common/pool.hpp"
#include "select/parts.hpp"
#include "select/request.hpp"
#include "select/sort.hpp"
#include "select/strategy.hpp"
#include "common/level.hpp"

namespace axisops {
namespace AXISOPS_ISA_NS {
namespace {

using namespace select_detail;

template <class KeyT>
void run_sort(const SortRequest& req, const Sequences& seqs, const std::string& strategy,
              Trace& trace, typename KeyT::type sign) {
    using U = typename KeyT::type;
    const Kernels& level = kernels();  // the level in use: its sorting networks
    const SortJob<KeyT> job{seqs,        U((req.descending ? U(~U(0)) : U(0)) ^ sign),
                            static_cast<U*>(req.values), req.indices,
                            RowsOut{seqs.n, seqs.inner}, req.tune, trace,
                            level.sort_network32, level.sort_network64};
    if (strategy == "rows") {
        for_rows(req.tune, seqs, req.threads,
                 [&](int64_t q0, int64_t q1) { sort_rows(job, q0, q1); });
        return;
    }
    const int threads = select_threads(req.tune, seqs, req.threads);
    for (int64_t q = 0; q < seqs.count(); ++q) sort_parted(job, q, req.segment, threads);
}

}  // namespace

std::string sort_strategy(const SortRequest& req) {
    return chosen(req.tune, req.strategy, sequences(req.x, req.axis), req.threads, "sort");
}

void sort(const SortRequest& req) {
    const Sequences seqs = sequences(req.x, req.axis);
    const std::string strategy = chosen(req.tune, req.strategy, seqs, req.threads, "sort");
    if (seqs.count() == 0 || seqs.n == 0) return;
    Trace trace;
    dispatch(req.x, req.kind,
             [&](auto key, auto sign) { run_sort<decltype(key)>(req, seqs, strategy, trace, sign); });
}

}  // namespace AXISOPS_ISA_NS
}  // namespace axisops
