// kthvalue and partition: from validated requests to their kernels (rows or split, the
// tasks, the key type). Every choice gives the same bits. Built at -O2 (CMakeLists.txt).
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "common/keys.hpp"
#include "common/pool.hpp"
#include "select/kth.hpp"
#include "select/partition.hpp"
#include "select/parts.hpp"
#include "select/request.hpp"
#include "select/rows.hpp"
#include "select/strategy.hpp"
#include "common/level.hpp"

namespace axisops {
namespace AXISOPS_ISA_NS {
namespace {

using namespace select_detail;

// ---- kthvalue ----

template <class KeyT>
void run_kth(const KthRequest& req, const Sequences& seqs, const std::string& strategy,
             Trace& trace, typename KeyT::type flip) {
    using U = typename KeyT::type;
    using K = Wide<U>;
    const Tuning& t = req.tune;
    U* out_v = static_cast<U*>(req.values);
    const int64_t n = seqs.n, r = req.k - 1;
    const double sigmas = req.sigmas > 0 ? req.sigmas : KTH_SIGMAS;
    const bool radix = strategy == "radix";
    const int key_bytes = int(sizeof(U));
    auto put = [&](int64_t q, const U* src, int64_t i) {
        out_v[q] = src[i * seqs.stride];
        req.indices[q] = i;
    };
    if (strategy == "split" || (radix && n > t.tile_max)) {
        const int threads = select_threads(t, seqs, req.threads);
        const Parts parts(n, req.segment > 0 ? req.segment : t.select_part);
        for (int64_t q = 0; q < seqs.count(); ++q) {
            const PartedSeq<KeyT> seq{seqs.at<U>(q), seqs.stride, parts, threads,
                                      t.select_chunk, flip};
            put(q, seq.src, select_parted(t, trace, seq, r, key_bytes, sigmas, radix));
        }
        return;
    }
    for_rows(t, seqs, req.threads, [&](int64_t q0, int64_t q1) {
        LocalTrace local(trace);
        RowScratch<K> sc(t);
        KthHint<K> hint;
        for (int64_t q = q0; q < q1; ++q) {
            const PartedSeq<KeyT> seq{seqs.at<U>(q), seqs.stride, Parts(n, n), 1, t.select_chunk,
                                      flip};
            put(q, seq.src, select_row(t, local, seq, r, key_bytes, sigmas, radix, sc, &hint,
                                       next_row<U>(seqs, q, q1)));
        }
    });
}

// ---- partition ----

template <class KeyT>
void run_partition(const PartitionRequest& req, const Sequences& seqs,
                   const std::string& strategy, Trace& trace, typename KeyT::type flip) {
    using U = typename KeyT::type;
    using K = Wide<U>;
    const Tuning& tn = req.tune;
    U* ov = static_cast<U*>(req.values);
    const int64_t n = seqs.n;
    const RowsOut out{n, seqs.inner};
    const double sigmas = req.sigmas > 0 ? req.sigmas : KTH_SIGMAS;
    const int key_bytes = int(sizeof(U));
    const size_t t = req.kths.size();
    if (t > 1) trace.mark(Path::partition_many);
    if (strategy == "split") {
        const int threads = select_threads(tn, seqs, req.threads);
        const Parts parts(n, req.segment > 0 ? req.segment : tn.select_part);
        std::vector<Ranked<K>> piv(t);
        std::vector<std::vector<int64_t>> counts(static_cast<size_t>(parts.count));
        std::vector<int64_t> preceding;
        for (int64_t q = 0; q < seqs.count(); ++q) {
            const PartedSeq<KeyT> seq{seqs.at<U>(q), seqs.stride, parts, threads,
                                      tn.select_chunk, flip};
            for (size_t p = 0; p < t; ++p) {
                const int64_t i = select_parted(tn, trace, seq, req.kths[p], key_bytes, sigmas,
                                                false, t == 1 ? &preceding : nullptr);
                piv[p] = {seq.key(i), i};
            }
            if (t == 1 && !preceding.empty()) {  // the selection counted each part's sides
                trace.mark(Path::partition_split_preceding);
                for (int64_t p = 0; p < parts.count; ++p) {
                    const int64_t len = parts.end(p) - parts.begin(p);
                    const bool has = piv[0].index >= parts.begin(p) && piv[0].index < parts.end(p);
                    counts[size_t(p)] = {preceding[size_t(p)],
                                         len - int64_t(has) - preceding[size_t(p)]};
                }
            } else {
                trace.mark(Path::partition_split_counted);
                seq.each_part([&](int64_t p, K* tile) {
                    std::vector<int64_t>& c = counts[size_t(p)];
                    c.assign(t + 1, 0);
                    seq.plain_chunks(seq.parts.begin(p), seq.parts.end(p), tile,
                                     [&](const K* keys, int64_t begin, int64_t len) {
                        count_segments(keys, begin, len, piv.data(), t, c.data());
                    });
                });
            }
            // Part p fills its share of each segment, from where part p - 1's ends to where
            // part p + 1's starts (the last part: to the segment's end).
            std::vector<Segments> starts(static_cast<size_t>(parts.count), Segments(req.kths, n));
            for (int64_t p = 1; p < parts.count; ++p)
                for (size_t s = 0; s <= t; ++s) {
                    const int64_t to = starts[size_t(p - 1)].next[s] + counts[size_t(p - 1)][s];
                    starts[size_t(p)].next[s] = to;
                    starts[size_t(p - 1)].end[s] = std::min(to, starts[size_t(p - 1)].end[s]);
                }
            const int64_t row = out.row(q);
            parallel_spread(parts.count, threads, [&](int64_t p) {
                std::vector<K> tile(static_cast<size_t>(tn.select_chunk));
                seq.spans(seq.parts.begin(p), seq.parts.end(p),
                          [&](int64_t begin, int64_t len, Ahead&) {
                    partition_span_of<KeyT>(seq.src, seq.stride, flip, begin, len, piv.data(),
                                            starts[size_t(p)], ov, req.indices, row, out.step(),
                                            tile.data());
                });
            });
            for (const Segments& part : starts) part.check();
        }
        return;
    }
    trace.mark(Path::partition_rows);
    for_rows(tn, seqs, req.threads, [&](int64_t q0, int64_t q1) {
        LocalTrace local(trace);
        RowScratch<K> sc(tn);
        std::vector<KthHint<K>> hints(t);
        std::vector<Ranked<K>> piv(t);
        Segments seg(req.kths, n);
        for (int64_t q = q0; q < q1; ++q) {
            const PartedSeq<KeyT> seq{seqs.at<U>(q), seqs.stride, Parts(n, n), 1,
                                      tn.select_chunk, flip};
            for (size_t p = 0; p < t; ++p) {
                const int64_t i = select_row(tn, local, seq, req.kths[p], key_bytes, sigmas,
                                             false, sc, &hints[p],
                                             p == 0 ? next_row<U>(seqs, q, q1) : Ahead());
                piv[p] = {seq.key(i), i};
            }
            seg.reset(n);
            const int64_t row = out.row(q);
            seq.spans(0, n, [&](int64_t begin, int64_t len, Ahead&) {
                partition_span_of<KeyT>(seq.src, seq.stride, flip, begin, len, piv.data(), seg,
                                        ov, req.indices, row, out.step(), sc.buf.data());
            });
            seg.check();
        }
    });
}

}  // namespace

std::string kthvalue_strategy(const KthRequest& req) {
    return chosen(req.tune, req.strategy, sequences(req.x, req.axis), req.threads, "kthvalue");
}

void kthvalue(const KthRequest& req) {
    const Sequences seqs = sequences(req.x, req.axis);
    const std::string strategy = chosen(req.tune, req.strategy, seqs, req.threads, "kthvalue");
    if (seqs.count() == 0) return;
    Trace trace;
    dispatch(req.x, req.kind,
             [&](auto key, auto sign) { run_kth<decltype(key)>(req, seqs, strategy, trace, sign); });
}

std::string partition_strategy(const PartitionRequest& req) {
    return chosen(req.tune, req.strategy, sequences(req.x, req.axis), req.threads, "partition");
}

void partition(const PartitionRequest& req) {
    const Sequences seqs = sequences(req.x, req.axis);
    const std::string strategy = chosen(req.tune, req.strategy, seqs, req.threads, "partition");
    if (seqs.count() == 0 || seqs.n == 0) return;
    Trace trace;
    dispatch(req.x, req.kind,
             [&](auto key, auto sign) {
                 run_partition<decltype(key)>(req, seqs, strategy, trace, sign);
             });
}

}  // namespace AXISOPS_ISA_NS
}  // namespace axisops
