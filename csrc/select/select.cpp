// kthvalue and partition, and top-k of a large k by selection: from validated requests to
// their kernels (rows or split, the tasks, the key type). Every choice gives the same bits.
// Built at -O2 (CMakeLists.txt).
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
#include "select/sort.hpp"
#include "select/strategy.hpp"
#include "select/topk_route.hpp"
#include "topk/job.hpp"
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

// ---- several order statistics ----

template <class KeyT>
void run_kth_many(const KthManyRequest& req, const Sequences& seqs, const std::string& strategy,
                  Trace& trace, typename KeyT::type flip) {
    using U = typename KeyT::type;
    using K = Wide<U>;
    const Tuning& t = req.tune;
    U* out_v = static_cast<U*>(req.values);
    const int64_t n = seqs.n, m = req.t;
    const int key_bytes = int(sizeof(U));
    const auto rank = [&](int64_t q, int64_t j) {
        return req.ranks[(req.rank_rows == 1 ? 0 : q) * m + j];
    };
    if (strategy == "split") {
        const int threads = select_threads(t, seqs, req.threads);
        const Parts parts(n, req.segment > 0 ? req.segment : t.select_part);
        std::vector<int64_t> distinct, at;
        for (int64_t q = 0; q < seqs.count(); ++q) {
            const PartedSeq<KeyT> seq{seqs.at<U>(q), seqs.stride, parts, threads,
                                      t.select_chunk, flip};
            distinct.clear();
            for (int64_t j = 0; j < m; ++j) distinct.push_back(rank(q, j));
            std::sort(distinct.begin(), distinct.end());
            distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
            at.resize(distinct.size());
            select_parted_many(t, trace, seq, distinct.data(), int64_t(distinct.size()),
                               key_bytes, KTH_SIGMAS, false, at.data());
            for (int64_t j = 0; j < m; ++j) {
                const auto d = std::lower_bound(distinct.begin(), distinct.end(), rank(q, j));
                out_v[q * m + j] = seq.src[at[size_t(d - distinct.begin())] * seqs.stride];
            }
        }
        return;
    }
    for_rows(t, seqs, req.threads, [&](int64_t q0, int64_t q1) {
        LocalTrace local(trace);
        RowScratch<K> sc(t);
        std::vector<KthHint<K>> hints(static_cast<size_t>(m));
        for (int64_t q = q0; q < q1; ++q) {
            const PartedSeq<KeyT> seq{seqs.at<U>(q), seqs.stride, Parts(n, n), 1, t.select_chunk,
                                      flip};
            for (int64_t j = 0; j < m; ++j) {
                const int64_t i = select_row(t, local, seq, rank(q, j), key_bytes, KTH_SIGMAS,
                                             false, sc, &hints[size_t(j)],
                                             j == 0 ? next_row<U>(seqs, q, q1) : Ahead());
                out_v[q * m + j] = seq.src[i * seqs.stride];
            }
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

// ---- top-k of a large k ----

// The (key, index) of the elements of [begin, end) of `seq` with lo <= key <= hi, in
// index order, into keys/idx (grown as they fill); at most `most` of them (more: the input
// changed since the selection that bounds them). Returns the count.
template <class KeyT>
int64_t collect(const PartedSeq<KeyT>& seq, int64_t begin, int64_t end,
                Wide<typename KeyT::type> lo, Wide<typename KeyT::type> hi, int64_t most,
                std::vector<Wide<typename KeyT::type>>& keys, std::vector<uint32_t>& idx,
                Wide<typename KeyT::type>* buf) {
    Band band;
    bool over = false;
    seq.spans(begin, end, [&](int64_t b, int64_t len, Ahead& pre) {
        if (over) return;
        const size_t room = size_t(band.in + len + BAND_SLACK);
        if (keys.size() < room) {
            keys.resize(std::max(room, 2 * keys.size()));
            idx.resize(keys.size());
        }
        seq.band(b, len, lo, hi, keys.data(), idx.data(), band.in + len, band, pre, buf);
        over = band.in > most;
    });
    if (over) input_changed();
    return band.in;
}

// The best k of a sequence, best first (or in index order when not `sorted`): the element
// of rank k - 1 in the best-first order found by selection (its key pk, its index), then
// one pass collecting the elements with a key below pk (all of them precede it) and one
// collecting the first of those equal to pk (up to it), each in index order, by parts; the
// first group is sorted by key, stable (so equal keys stay in index order), and the second
// follows it. `keys` are the elements' keys XORed with `flip`, ascending best first.
template <class KeyT>
struct BestBySelection {
    using U = typename KeyT::type;
    using K = Wide<U>;

    const PartedSeq<KeyT>& seq;
    int64_t k;
    bool sorted;
    const Tuning& t;

    // Writes the k best to out_v/out_i at row + j * step.
    void run(int64_t pivot, U* out_v, const IndexOut& out_i, int64_t row, int64_t step,
             LocalTrace& trace) const {
        const K pk = seq.key(pivot);
        const int64_t r = k - 1, parts = seq.parts.count;
        // Below pk: r elements at most in all. Equal to pk: those up to the pivot, which
        // has rank r, so r + 1 in all with those below.
        std::vector<std::vector<K>> lk(static_cast<size_t>(parts)), ek(lk);
        std::vector<std::vector<uint32_t>> li(static_cast<size_t>(parts)), ei(li);
        std::vector<int64_t> lt(static_cast<size_t>(parts), 0), eq(lt);
        seq.each_part([&](int64_t p, K* buf) {
            const int64_t begin = seq.parts.begin(p), end = seq.parts.end(p);
            if (pk > 0)
                lt[size_t(p)] = collect(seq, begin, end, K(0), K(pk - 1), r, lk[size_t(p)],
                                        li[size_t(p)], buf);
            if (begin <= pivot)
                eq[size_t(p)] = collect(seq, begin, std::min(end, pivot + 1), pk, pk, k,
                                        ek[size_t(p)], ei[size_t(p)], buf);
        });
        int64_t below = 0, equal = 0;
        for (int64_t p = 0; p < parts; ++p) {
            below += lt[size_t(p)];
            equal += eq[size_t(p)];
        }
        if (below + equal != k) input_changed();
        // The group below pk (in index order), then those equal to it (the pivot last).
        std::vector<uint64_t> order(static_cast<size_t>(k));
        int64_t at = 0;
        for (int64_t p = 0; p < parts; ++p)
            for (int64_t j = 0; j < lt[size_t(p)]; ++j) order[size_t(at++)] = li[size_t(p)][size_t(j)];
        for (int64_t p = 0; p < parts; ++p)
            for (int64_t j = 0; j < eq[size_t(p)]; ++j) order[size_t(at++)] = ei[size_t(p)][size_t(j)];
        if (int64_t(order[size_t(k - 1)]) != pivot) input_changed();
        if (sorted && below > 1) sort_below(lk, li, lt, below, order.data(), trace);
        for (int64_t j = 0; j < k; ++j) {
            const int64_t i = int64_t(order[size_t(j)]);
            out_v[row + j * step] = seq.src[i * seq.stride];
            out_i.set(row + j * step, i);
        }
    }

    // order[0 .. below) = the indices of the group below pk, by key, ties by index.
    void sort_below(const std::vector<std::vector<K>>& lk,
                    const std::vector<std::vector<uint32_t>>& li, const std::vector<int64_t>& lt,
                    int64_t below, uint64_t* order, LocalTrace& trace) const {
        using namespace sort_detail;
        const auto put = [order](const auto* records, int64_t offset, int64_t count) {
            for (int64_t j = 0; j < count; ++j) order[offset + j] = payload(records[j]);
        };
        if constexpr (sizeof(K) == 4) {
            std::vector<uint64_t> a(static_cast<size_t>(below)), b(static_cast<size_t>(below));
            int64_t at = 0;
            for (size_t p = 0; p < lt.size(); ++p)
                for (int64_t j = 0; j < lt[p]; ++j)
                    make(a[size_t(at++)], uint64_t(lk[p][size_t(j)]), uint64_t(li[p][size_t(j)]));
            sort_records(a.data(), b.data(), below, t, trace, emit_of<uint64_t>(put));
        } else {
            std::vector<Pair> a(static_cast<size_t>(below)), b(static_cast<size_t>(below));
            int64_t at = 0;
            for (size_t p = 0; p < lt.size(); ++p)
                for (int64_t j = 0; j < lt[p]; ++j)
                    make(a[size_t(at++)], uint64_t(lk[p][size_t(j)]), uint64_t(li[p][size_t(j)]));
            sort_records(a.data(), b.data(), below, t, trace, emit_of<Pair>(put));
        }
    }
};

template <class KeyT>
void run_topk_select(const TopKRequest& req, const Sequences& seqs, Trace& trace,
                     typename KeyT::type flip) {
    using U = typename KeyT::type;
    using K = Wide<U>;
    const Tuning& t = req.tune;
    const int64_t n = seqs.n, r = req.k - 1;
    const int key_bytes = int(sizeof(U));
    const RowsOut out{req.k, seqs.inner};
    U* out_v = static_cast<U*>(req.values);
    const IndexOut indices{req.indices, req.indices32};
    if (seqs.count() < req.threads && n >= t.select_split_min) {
        const int threads = select_threads(t, seqs, req.threads);
        const Parts parts(n, t.select_part);
        for (int64_t q = 0; q < seqs.count(); ++q) {
            LocalTrace local(trace);
            const PartedSeq<KeyT> seq{seqs.at<U>(q), seqs.stride, parts, threads,
                                      t.select_chunk, flip};
            const int64_t pivot = select_parted(t, trace, seq, r, key_bytes, KTH_SIGMAS, false);
            BestBySelection<KeyT>{seq, req.k, req.sorted, t}.run(pivot, out_v, indices,
                                                                 out.row(q), out.step(), local);
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
            const int64_t pivot = select_row(t, local, seq, r, key_bytes, KTH_SIGMAS, false, sc,
                                             &hint, next_row<U>(seqs, q, q1));
            BestBySelection<KeyT>{seq, req.k, req.sorted, t}.run(pivot, out_v, indices,
                                                                 out.row(q), out.step(), local);
        }
    });
}

}  // namespace

void topk_by_selection(const TopKRequest& req, Trace& trace) {
    const Sequences seqs = sequences(req.x, req.axis);
    if (seqs.count() == 0 || req.k == 0) return;
    trace.mark(Path::topk_select);
    // Best first is ascending on the keys XORed with all ones for the largest.
    dispatch(req.x, req.kind, [&](auto key, auto sign) {
        using U = typename decltype(key)::type;
        const U flip = U((req.largest ? U(~U(0)) : U(0)) ^ sign);
        run_topk_select<decltype(key)>(req, seqs, trace, flip);
    });
}

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

void kth_many(const KthManyRequest& req) {
    const Sequences seqs = sequences(req.x, req.axis);
    const std::string strategy = chosen(req.tune, req.strategy, seqs, req.threads, "order statistics");
    if (seqs.count() == 0 || req.t == 0) return;
    Trace trace;
    dispatch(req.x, req.kind, [&](auto key, auto sign) {
        run_kth_many<decltype(key)>(req, seqs, strategy, trace, sign);
    });
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
