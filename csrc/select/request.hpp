// Requests of the selection family (sort, kthvalue, partition) as the bindings hand them
// over: validated (the axis in range, outputs of the right shapes, kths sorted, unique and
// in range), raw bits of 1, 2, 4 or 8 bytes with a key kind saying how they order.
//
// THE ORDER is the stable one of the contract: ascending keys (common/keys.hpp: NaN above
// +inf, -0.0 equal to +0.0, integers exact), equal keys by lower index; "descending" is
// largest first with equal keys still by lower index. Every strategy returns the same bits.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/kind.hpp"
#include "common/view.hpp"
#include "common/tuning.hpp"

namespace axisops {

// The strategies of the family (exported to Python as SELECT_STRATEGIES): each sequence
// whole in a tile ("rows"), or one sequence by parts across the threads ("split");
// kthvalue also takes "radix", its exact fallback, directly.
inline const char* const SELECT_STRATEGIES[] = {"rows", "split"};

struct SortRequest {
    View x;
    Kind kind = Kind::Unsigned;
    int axis = 0;
    bool descending = false;
    void* values = nullptr;      // C-ordered, x's shape, x's item size; null: not wanted
    int64_t* indices = nullptr;  // C-ordered, x's shape; null: not wanted
    int threads = 1;
    std::string strategy;  // "" chooses; "rows" or "split" (tests force one)
    int64_t segment = 0;   // elements per part of a split sequence (0 chooses; tests)
    Tuning tune = current_tuning();
};

// Sorts every sequence along the axis (at least one output wanted, n >= 1).
void sort(const SortRequest& req);
std::string sort_strategy(const SortRequest& req);

struct KthRequest {
    View x;
    Kind kind = Kind::Unsigned;
    int axis = 0;
    int64_t k = 1;               // 1-based: the k-th smallest, 1 <= k <= n
    void* values = nullptr;      // C-ordered, x's shape without the axis
    int64_t* indices = nullptr;  // C-ordered, x's shape without the axis
    int threads = 1;
    std::string strategy;  // "" chooses; "rows", "split" or "radix" (the exact fallback)
    int64_t segment = 0;   // elements per part of a split sequence (0 chooses; tests)
    double sigmas = 0;     // the sampled band's half-width in standard deviations (0 chooses)
    Tuning tune = current_tuning();
};

// The k-th smallest element of every sequence by the stable order, and its index.
void kthvalue(const KthRequest& req);
std::string kthvalue_strategy(const KthRequest& req);

// Several order statistics of every sequence (the quantile family's): the elements of
// stable ranks ranks[r * t + j] (0-based, each in [0, n)), j < t, with r = 0 for every
// sequence when rank_rows is 1, else r = the sequence (C order of x without the axis).
struct KthManyRequest {
    View x;
    Kind kind = Kind::Unsigned;
    int axis = 0;
    const int64_t* ranks = nullptr;
    int64_t rank_rows = 1;  // 1, or the number of sequences
    int64_t t = 0;          // ranks per sequence
    void* values = nullptr;  // C-ordered, x's shape without the axis, then t
    int threads = 1;
    std::string strategy;  // "" chooses; "rows" or "split"
    int64_t segment = 0;
    Tuning tune = current_tuning();
};

void kth_many(const KthManyRequest& req);

struct PartitionRequest {
    View x;
    Kind kind = Kind::Unsigned;
    int axis = 0;
    std::vector<int64_t> kths;   // sorted, unique, each in [0, n)
    void* values = nullptr;      // C-ordered, x's shape; null: not wanted
    int64_t* indices = nullptr;  // C-ordered, x's shape; null: not wanted
    int threads = 1;
    std::string strategy;  // "" chooses; "rows" or "split"
    int64_t segment = 0;
    double sigmas = 0;
    Tuning tune = current_tuning();
};

// NumPy's partition with a deterministic order: position kths[p] holds the element of
// stable rank kths[p]; the elements between two such positions (or before the first, or
// after the last) are those of the ranks in between, in their original index order.
void partition(const PartitionRequest& req);
std::string partition_strategy(const PartitionRequest& req);

}  // namespace axisops
