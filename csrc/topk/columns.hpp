// The columns strategy: many sequences side by side, one unit stride apart.
//
// Along axis 0 of a C-order array (and alike), neighbouring sequences are neighbouring
// elements of each row, so a panel of up to column_panel sequences is walked together, row by
// row along the axis, each column keeping its own candidates. For column_rows rows at a time
// the maximum key of every column comes straight from the input (one vectorised pass over
// contiguous row slices); a column whose maximum cannot enter costs one comparison, and only
// the others have their keys computed. Before the walk, each column takes a first bound from
// samples of its rows, so a column that rises along the axis does not insert every element,
// and a random one refuses most of its early rows. Inside a group of rows, each SUB_ROWS
// rows' maxima are kept too, and a column that can enter reads only the sub-groups that can.
// The columns (and then the sub-groups) to visit are listed branch-free first: on random
// columns which of them can enter is unpredictable, and the mispredicted branches cost more
// than the visits.
//
// With fewer panels than threads, "column-split" cuts the axis instead: every part walks every
// column over its rows, and each sequence's parts are merged from the elements the parts
// found, without reading the input again.
#pragma once

#include "common/isa.hpp"

#include <algorithm>
#include <cstddef>
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "common/errors.hpp"
#include "common/order.hpp"
#include "common/pool.hpp"
#include "topk/job.hpp"

namespace axisops {
namespace AXISOPS_ISA_NS {

// The columns' size switches are fields of the call's Tuning (common/tuning.hpp):
// - column_rows (at most 32): rows of a column panel whose maxima are taken before any
//   column is looked at ((10000, 1000) axis 0, 2 threads: k = 10 16 rows 5.8 ms, 32 rows
//   5.2; k = 24-32 and ascending columns within 5% either way);
// - column_panel: the most columns in one panel (one thread walks them together);
// - columns_min_inner: the columns strategy serves calls with at least this many
//   neighbouring sequences, and k at most COLUMNS_MAX_K (beyond, each column's sorted
//   insertion and compactions cost more than scanning its sequence with a stride);
// - column_split_min: with fewer panels than threads, the axis is cut across threads (each
//   part walks every column) when it is at least this long, rather than the panels
//   narrowed: a thread's cost is per row it visits, nearly whatever the panel's width
//   ((10000, 1000) axis 0, k=10, one thread: a 1000-column panel 14.3 ms, two 500-column
//   ones 28.7 ms); and k at most column_split_max_k: each part keeps its own k best, so the
//   insertions grow with the parts (2 threads, (10000, 1000) random, against narrowed
//   panels: k = 1 4.3 ms / 6.7, k = 4 4.5 / 7.5, k = 10 6.0 / 7.1, k = 16 7.4 / 9.5, k = 24
//   13.2 / 13.0, k = 32 14.5 / 10.9; ascending columns, k = 10, 40% faster). Its merge
//   carries each candidate's place in the low bits of its index: hence column_split_max_n
//   (at most 2^48) and column_split_max_candidates (at most 2^15);
// - column_words_max_rows (at most 2^31): columns of keys of 32 bits or fewer keep packed
//   words when the walk has fewer rows than this, else (key, index) pairs;
// - column_min_buffer: the smallest candidate buffer of a column (k > SORTED_K only);
// - column_sample_factor, column_spread_share: see `sampled_bounds`.
constexpr int64_t COLUMNS_MAX_K = SORTED_K;
// The most rows of a group (column_rows' upper bound).
constexpr int64_t COLUMN_ROWS_MAX = 32;

namespace columns_detail {

// Rows of a column whose maximum is kept apart inside each group of column_rows: a column
// whose group maximum can enter has only the sub-groups that can enter read (on random
// columns usually one of eight), not every row of the group.
constexpr int64_t SUB_ROWS = 4;
constexpr int64_t MAX_GROUPS = (COLUMN_ROWS_MAX + SUB_ROWS - 1) / SUB_ROWS;

// The lowest set bit of a 4-bit mask (0 for none, never asked).
constexpr int LOWEST_BIT[16] = {0, 0, 1, 0, 2, 0, 1, 0, 3, 0, 1, 0, 2, 0, 1, 0};

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// [0, total) cut into at most `parts` contiguous, nearly equal ranges: range r starts here.
inline int64_t part_start(int64_t total, int64_t parts, int64_t r) {
    const int64_t step = total / parts, extra = total % parts;
    return r * step + std::min(r, extra);
}

// The panels of `width` columns or fewer the sequences make.
inline int64_t panels(const Sequences& s, int64_t panel) {
    return s.outer * ceil_div(s.inner, std::min(s.inner, panel));
}

// The vectorised passes over row slices: free functions, so that `__restrict` on their
// parameters tells the compiler the rows and the maxima never overlap. All but the four-row
// pass (the walk's main loop) are called at several places, each call for a whole panel's
// width: one copy of each (a wider level's top-k compiled 8% faster, 2026-12-07).

// most[c] = max(most[c], key(row[c])) for c < width.
template <class KeyT>
AXISOPS_NOINLINE void max_into(const typename KeyT::type* __restrict row, int64_t width,
                               typename KeyT::type flip, typename KeyT::type* __restrict most) {
    using U = typename KeyT::type;
    for (int64_t c = 0; c < width; ++c) {
        const U v = KeyT::of(row[c], flip);
        most[c] = most[c] > v ? most[c] : v;
    }
}

// part[c] = the largest key of the four rows' column c; top[c] = max(top[c], part[c]).
template <class KeyT>
inline void max4_into(const typename KeyT::type* __restrict a,
                      const typename KeyT::type* __restrict b,
                      const typename KeyT::type* __restrict c2,
                      const typename KeyT::type* __restrict d, int64_t width,
                      typename KeyT::type flip, typename KeyT::type* __restrict part,
                      typename KeyT::type* __restrict top) {
    using U = typename KeyT::type;
    for (int64_t c = 0; c < width; ++c) {
        const U ka = KeyT::of(a[c], flip), kb = KeyT::of(b[c], flip);
        const U kc = KeyT::of(c2[c], flip), kd = KeyT::of(d[c], flip);
        const U ab = ka > kb ? ka : kb, cd = kc > kd ? kc : kd;
        const U m = ab > cd ? ab : cd;
        part[c] = m;
        top[c] = top[c] > m ? top[c] : m;
    }
}

// part[c] = key(row[c]) for c < width.
template <class KeyT>
AXISOPS_NOINLINE void keys_into(const typename KeyT::type* __restrict row, int64_t width,
                                typename KeyT::type flip, typename KeyT::type* __restrict part) {
    for (int64_t c = 0; c < width; ++c) part[c] = KeyT::of(row[c], flip);
}

// top[c] = max(top[c], part[c]) for c < width.
template <class U>
AXISOPS_NOINLINE void max_of(const U* __restrict part, int64_t width, U* __restrict top) {
    for (int64_t c = 0; c < width; ++c) top[c] = top[c] > part[c] ? top[c] : part[c];
}
// least[c] = min(least[c], part[c]) for c < width.
template <class U>
AXISOPS_NOINLINE void min_of(const U* __restrict part, int64_t width, U* __restrict least) {
    for (int64_t c = 0; c < width; ++c) least[c] = least[c] < part[c] ? least[c] : part[c];
}

// Keys of at most 32 bits travel with their index in one signed word (`pack_signed`, whose
// `>` is the tie rule). A column keeps its k best words, in no order, in W slots (W = 8, 16 or
// 32, fixed so the loops vectorise): slot j < k starts as the empty word EMPTY_WORD + j, below
// every real word (indices below 2^31 keep the low half of a real word at 2^31 or more), and
// slots from k on hold FREE_WORD, which is never the least.
constexpr int64_t EMPTY_WORD = INT64_MIN;
constexpr int64_t FREE_WORD = INT64_MAX;
constexpr int64_t PACKED_MAX_ROWS = int64_t(1) << 31;  // real words are EMPTY_WORD + this or more

// Replaces `least`, the least of words[:W] (each word there is distinct), by `w` when `w` is
// larger, without a branch; returns the new least.
template <int W>
inline int64_t replace_least(int64_t* __restrict words, int64_t least, int64_t w) {
    w = w > least ? w : least;
    int64_t m = FREE_WORD;
    for (int j = 0; j < W; ++j) {
        const int64_t v = words[j] == least ? w : words[j];
        words[j] = v;
        m = v < m ? v : m;
    }
    return m;
}

// One panel's walk: its scratch (proportional to the panel's width and to k), reused for
// every panel a task walks.
template <class KeyT>
class Walker {
public:
    using U = typename KeyT::type;

    // `rows`: the most rows a walk will take (packed words need indices below 2^31).
    Walker(const Tuning& t, int64_t panel, int64_t k, U flip, int64_t rows)
        : panel_(panel), k_(k),
          cap_(k <= SORTED_K ? k : std::max(2 * k, t.column_min_buffer)),
          group_rows_(t.column_rows), sample_factor_(t.column_sample_factor),
          spread_share_(t.column_spread_share),
          slots_(sizeof(U) <= 4 && rows < t.column_words_max_rows ? slots_for(k) : 0),
          flip_(flip),
          top_(size_t(panel)), lo_(size_t(panel)), gate_(size_t(panel)), least_(size_t(panel)),
          sub_(size_t(MAX_GROUPS * panel)), keys_(slots_ ? 0 : size_t(panel * cap_)),
          idx_(size_t(panel * cap_)), cnt_(size_t(panel)), words_(size_t(panel * slots_)),
          least_word_(size_t(slots_ ? panel : 0)), hits_(size_t(panel)), closed_(size_t(panel)) {}

    // Walks columns [0, width) of the n rows at base + r * stride (row r, column c at
    // base[r * stride + c]); afterwards column c's k best are `best(c)`, best first when
    // k <= SORTED_K or `sorted`.
    void walk(const U* base, int64_t stride, int64_t n, int64_t width, bool sorted) {
        const int64_t k = k_;
        std::fill(cnt_.begin(), cnt_.begin() + width, int64_t(0));
        for (int64_t c = 0; c < width; ++c) {
            int64_t* w = words_.data() + c * slots_;
            for (int64_t j = 0; j < slots_; ++j) w[j] = j < k ? EMPTY_WORD + j : FREE_WORD;
        }
        std::fill(least_word_.begin(), least_word_.end(), EMPTY_WORD);
        std::fill(lo_.begin(), lo_.begin() + width, U(0));
        std::fill(closed_.begin(), closed_.begin() + width, uint8_t(0));
        sampled_bounds(base, stride, n, width);
        std::copy(lo_.begin(), lo_.begin() + width, gate_.begin());
        for (int64_t r0 = 0; r0 < n; r0 += group_rows_) {
            const int64_t h = std::min(group_rows_, n - r0);
            const int64_t groups = group_maxima(base, stride, r0, h, width);
            if (!insert_words(base, stride, r0, h, groups, width)) {
                if (k <= SORTED_K) insert_small<0>(base, stride, r0, h, groups, width);
                else insert_buffered(base, stride, r0, h, groups, width);
            }
        }
        if (slots_) unpack_words(width);
        for (int64_t c = 0; c < width; ++c) {
            const int64_t count = cnt_[size_t(c)];
            if (count < k) input_changed();
            if (k > SORTED_K) finish_best(keys_.data() + c * cap_, idx_.data() + c * cap_, count, k,
                                          sorted);
        }
    }

    // Column c's k best indices (along the walked rows).
    const int64_t* best(int64_t c) const { return idx_.data() + c * cap_; }
    // How the columns keep their best: 8, 16 or 32 packed words, or (key, index) pairs (0).
    int slots() const { return slots_; }
    // Whether a walk took sampled first bounds.
    bool sampled() const { return sampled_; }

private:
    int64_t panel_, k_, cap_, group_rows_, sample_factor_, spread_share_;
    bool sampled_ = false;
    int slots_;  // packed words a column keeps (8, 16 or 32), or 0 for (key, index) pairs
    U flip_;
    std::vector<U> top_, lo_, gate_, least_, sub_, keys_;
    std::vector<int64_t> idx_, cnt_, words_, least_word_;
    std::vector<int32_t> hits_;
    std::vector<uint8_t> closed_;

    U key(U bits) const { return KeyT::of(bits, flip_); }

    static int slots_for(int64_t k) { return k <= 8 ? 8 : k <= 16 ? 16 : k <= SORTED_K ? 32 : 0; }

    // One group's insertion by packed words, if the columns keep them (keys of 32 bits or
    // fewer: 64-bit keys never do, and compile no word kernels).
    bool insert_words(const U* base, int64_t stride, int64_t r0, int64_t h, int64_t groups,
                      int64_t width) {
        if constexpr (sizeof(U) <= 4) {
            switch (slots_) {
                case 8: insert_small<8>(base, stride, r0, h, groups, width); return true;
                case 16: insert_small<16>(base, stride, r0, h, groups, width); return true;
                case 32: insert_small<32>(base, stride, r0, h, groups, width); return true;
                default: return false;
            }
        }
        return false;
    }

    // The packed columns' k best, sorted best first, to idx (and their counts to cnt).
    void unpack_words(int64_t width) {
        for (int64_t c = 0; c < width; ++c) {
            int64_t* w = words_.data() + c * slots_;
            int64_t* idx = idx_.data() + c * cap_;
            int64_t count = 0;
            for (int64_t j = 0; j < k_; ++j) count = insert_word(w, count, k_, w[j]);
            for (int64_t j = 0; j < k_; ++j) idx[j] = unpack_index(uint64_t(w[j]));
            cnt_[size_t(c)] = w[k_ - 1] >= EMPTY_WORD + PACKED_MAX_ROWS ? k_ : 0;
        }
    }

    // Each column's first bounds (`runs_bound`), raised into lo: from the middle k rows and
    // from the last k rows (runs of one row), and, on a long enough axis, from k runs of
    // n / (column_spread_share * k) rows around the middle.
    //
    // Without the first two, a column that rises along the axis (sorted input, or descending
    // input with largest=False) inserts every element, at O(k) each; with them, rising and
    // organ-pipe columns start at about their k-th best. The third is for random columns: it
    // sits near the top 1/span of their keys, so the walk's early rows, which would otherwise
    // insert about one element in i at row i, mostly stay below it. lo is left alone where
    // the axis is too short to sample.
    void sampled_bounds(const U* base, int64_t stride, int64_t n, int64_t width) {
        const int64_t k = k_, mid = n / 2;
        if (n < sample_factor_ * 2 * k || mid + k > n - k) return;
        sampled_ = true;
        const int64_t span = n / (spread_share_ * k);
        runs_bound(base, stride, mid, 1, width);
        runs_bound(base, stride, n - k, 1, width);
        if (span >= 2) runs_bound(base, stride, (n - k * span) / 2, span, width);
    }

    // Raises lo to the least of the maxima of k runs of `span` rows from row `start`. Each
    // run's maximum is a distinct element at least that large, so the column's k-th best key
    // is too.
    void runs_bound(const U* base, int64_t stride, int64_t start, int64_t span, int64_t width) {
        U* least = least_.data();
        U* most = top_.data();
        std::fill(least, least + width, KeyT::ones);
        for (int64_t g = 0; g < k_; ++g) {
            std::fill(most, most + width, U(0));
            for (int64_t i = start + g * span; i < start + (g + 1) * span; ++i)
                max_into<KeyT>(base + i * stride, width, flip_, most);
            min_of(most, width, least);
        }
        max_of(least, width, lo_.data());
    }

    // sub[s * panel + c]: the maximum key of column c over rows r0 + s * SUB_ROWS (and the
    // next SUB_ROWS - 1) of the group of h rows from r0; top[c]: over the group. Vectorised
    // over contiguous row slices; returns the sub-groups.
    int64_t group_maxima(const U* base, int64_t stride, int64_t r0, int64_t h, int64_t width) {
        const int64_t groups = ceil_div(h, SUB_ROWS);
        U* top = top_.data();
        std::fill(top, top + width, U(0));
        for (int64_t s = 0; s < groups; ++s) {
            U* part = sub_.data() + s * panel_;
            const int64_t r = r0 + s * SUB_ROWS;
            const U* a = base + r * stride;
            if (r + SUB_ROWS <= r0 + h) {
                static_assert(SUB_ROWS == 4, "the four-row pass");
                max4_into<KeyT>(a, a + stride, a + 2 * stride, a + 3 * stride, width, flip_, part,
                                top);
            } else {
                keys_into<KeyT>(a, width, flip_, part);
                for (int64_t i = r + 1; i < r0 + h; ++i)
                    max_into<KeyT>(base + i * stride, width, flip_, part);
                max_of(part, width, top);
            }
        }
        return groups;
    }

    // Small k: each column keeps its k best, so its bound is exact; keys below lo (the
    // sampled bound) are refused before that. Only the sub-groups whose maximum
    // beats the column's k-th best so far are read (an equal key comes later, so it loses the
    // tie). gate[c] is the least key that can still enter column c (lo[c], then its k-th
    // best + 1): one contiguous array, so the check of every column per group is one
    // branch-free pass that lists the columns to visit.
    //
    // W > 0: the column's k best are packed words in W slots (`replace_least`, no branch);
    // W == 0: (key, index) pairs by `insert_later`, kept sorted (keys of 64 bits).
    template <int W>
    void insert_small(const U* base, int64_t stride, int64_t r0, int64_t h, int64_t groups,
                      int64_t width) {
        const int64_t k = k_, cap = cap_, panel = panel_;
        const U flip = flip_;
        const U* top = top_.data();
        const U* sub = sub_.data();
        U* gate = gate_.data();
        U* keys = keys_.data();
        int64_t* idx = idx_.data();
        int64_t* cnt = cnt_.data();
        int64_t* words = words_.data();
        int32_t* hits = hits_.data();
        int64_t m = 0;
        for (int64_t c = 0; c < width; ++c) {
            hits[m] = int32_t(c);
            m += top[c] >= gate[c];
        }
        for (int64_t t = 0; t < m; ++t) {
            const int64_t c = hits[t];
            // the pairs of a column (W == 0) or its words (W > 0): the other array is empty
            U* tk = W ? nullptr : keys + c * cap;
            int64_t* ti = W ? nullptr : idx + c * cap;
            int64_t* tw = W ? words + c * W : nullptr;
            int64_t least = W ? least_word_[size_t(c)] : 0;
            int64_t count = W ? 0 : cnt[c];
            U need = gate[c];
            int32_t subs[MAX_GROUPS];
            int64_t ms = 0;
            for (int64_t s = 0; s < groups; ++s) {
                subs[ms] = int32_t(s);
                ms += sub[s * panel + c] >= need;
            }
            for (int64_t u = 0; u < ms; ++u) {
                const int64_t s = subs[u];
                if (sub[s * panel + c] < need) continue;
                const int64_t i0 = r0 + s * SUB_ROWS;
                const int64_t rows = std::min(SUB_ROWS, r0 + h - i0);
                const U* at = base + i0 * stride + c;
                // Which rows can enter, branch-free; then those rows in order (usually one).
                unsigned mask = 0;
                for (int64_t r = 0; r < rows; ++r)
                    mask |= unsigned(KeyT::of(at[r * stride], flip) >= need) << r;
                while (mask) {
                    const int r = LOWEST_BIT[mask];
                    mask &= mask - 1;
                    const U kv = KeyT::of(at[r * stride], flip);
                    if (kv < need) continue;
                    U kth;
                    if constexpr (W > 0) {
                        least = replace_least<W>(tw, least, pack_signed(kv, i0 + r));
                        if (least < EMPTY_WORD + PACKED_MAX_ROWS) continue;  // fewer than k yet
                        kth = U((uint64_t(least) ^ TOP_BIT) >> 32);
                    } else {
                        count = insert_later(tk, ti, count, k, kv, i0 + r);
                        if (count < k) continue;
                        kth = tk[k - 1];
                    }
                    need = kth != KeyT::ones ? U(kth + 1) : kth;
                }
            }
            if constexpr (W == 0) cnt[c] = count;
            if constexpr (W > 0) least_word_[size_t(c)] = least;
            gate[c] = need;
        }
    }

    // Adds one candidate to column c; compacts its buffer to its k best when full.
    void push(int64_t c, U kv, int64_t i) {
        U* rk = keys_.data() + c * cap_;
        int64_t* ri = idx_.data() + c * cap_;
        int64_t j = cnt_[size_t(c)];
        rk[j] = kv;
        ri[j] = i;
        if (++j == cap_) {
            partition_best(rk, ri, j, k_);
            j = k_;
            U worst = rk[0];
            for (int64_t a = 1; a < k_; ++a) worst = rk[a] < worst ? rk[a] : worst;
            if (worst == KeyT::ones) {
                closed_[size_t(c)] = 1;  // k keys at the maximum: nothing later can enter
            } else {
                const U next = U(worst + 1);
                lo_[size_t(c)] = next > lo_[size_t(c)] ? next : lo_[size_t(c)];
            }
        }
        cnt_[size_t(c)] = j;
    }

    // Larger k (forced only: the driver keeps the columns to k <= COLUMNS_MAX_K): candidates
    // go to a buffer of 2k per column, compacted to its k best when full.
    void insert_buffered(const U* base, int64_t stride, int64_t r0, int64_t h, int64_t groups,
                         int64_t width) {
        for (int64_t c = 0; c < width; ++c) {
            if (top_[size_t(c)] < lo_[size_t(c)] || closed_[size_t(c)]) continue;
            const U* col = base + c;
            for (int64_t s = 0; s < groups; ++s) {
                if (sub_[size_t(s * panel_ + c)] < lo_[size_t(c)]) continue;
                const int64_t end = std::min(h, (s + 1) * SUB_ROWS);
                for (int64_t r = s * SUB_ROWS; r < end; ++r) {
                    const int64_t i = r0 + r;
                    const U kv = key(col[i * stride]);
                    if (kv >= lo_[size_t(c)] && !closed_[size_t(c)]) push(c, kv, i);
                }
            }
        }
    }
};

// Panels per task: about task_min elements at least, about tasks_per_thread tasks a thread.
inline int64_t panels_per_task(const Tuning& t, int64_t count, int64_t panel_elements,
                               int threads) {
    const int64_t least = ceil_div(t.task_min, std::max<int64_t>(1, panel_elements));
    const int64_t even = ceil_div(count, int64_t(threads) * t.tasks_per_thread);
    return std::max<int64_t>(1, std::max(least, even));
}

}  // namespace columns_detail

// Neighbouring sequences are unit-stride apart (and the axis is not).
inline bool columns_fit(const Sequences& s) {
    return s.inner_unit() && s.inner > 1 && s.stride != 1;
}

// The driver's choice: many unit-stride-apart sequences and a small k.
inline bool columns_apply(const Tuning& t, const Sequences& s, int64_t k) {
    return s.stride != 1 && s.inner_unit() && s.inner >= t.columns_min_inner &&
           k <= COLUMNS_MAX_K && 8 * k < s.n;
}

// Whether the columns cut the axis across threads: fewer full panels than threads, the axis
// long enough, a small k, and the call big enough for threads at all.
inline bool columns_split_applies(const Tuning& t, const Sequences& s, int64_t k, int threads) {
    return threads > 1 && columns_detail::panels(s, t.column_panel) < threads &&
           t.column_split_min <= s.n && s.n < t.column_split_max_n &&
           k <= t.column_split_max_k && threads * k < t.column_split_max_candidates &&
           s.count() * s.n >= t.parallel_min;
}

namespace columns_detail {

// The paths a walker took.
template <class KeyT>
void mark_paths(const Walker<KeyT>& w, int64_t k, LocalTrace& trace) {
    trace.mark(w.slots() ? Path::topk_columns_words
               : k <= SORTED_K ? Path::topk_columns_pairs
                               : Path::topk_columns_buffered);
    if (w.sampled()) trace.mark(Path::topk_columns_sampled);
}

}  // namespace columns_detail

// The columns strategy: panels of neighbouring sequences as the pool's tasks (narrowed so
// every thread has one when there are fewer full panels than threads).
template <class KeyT>
void topk_columns(const TopKJob<KeyT>& job, int threads) {
    using namespace columns_detail;
    using U = typename KeyT::type;
    const Sequences& s = job.seqs;
    const Tuning& tune = job.tune;
    const int64_t n = s.n, k = job.k, inner = s.inner;
    int64_t panel = std::min(inner, tune.column_panel);
    if (panels(s, tune.column_panel) < threads)  // cut panels so every thread has one
        panel = std::min(inner, std::max<int64_t>(std::min<int64_t>(16, tune.column_panel),
                                                  ceil_div(inner, threads)));
    const int64_t per_outer = ceil_div(inner, panel);
    const int64_t count = s.outer * per_outer;
    const int use = count * panel * n >= tune.parallel_min ? threads : 1;
    const int64_t per = panels_per_task(tune, count, panel * n, use);
    parallel_for(ceil_div(count, per), use, [&](int64_t t) {
        Walker<KeyT> walker(tune, panel, k, job.flip, n);
        LocalTrace trace(job.trace);
        for (int64_t p = t * per; p < std::min(count, (t + 1) * per); ++p) {
            const int64_t o = p / per_outer;
            const int64_t c0 = (p - o * per_outer) * panel;
            const int64_t width = std::min(panel, inner - c0);
            const int64_t q0 = o * inner + c0;
            const U* base = job.seq(q0);
            walker.walk(base, s.stride, n, width, job.sorted);
            mark_paths(walker, k, trace);
            for (int64_t j = 0; j < k; ++j) {
                const int64_t at = (o * k + j) * inner + c0;
                U* vals = job.out_vals + at;
                for (int64_t c = 0; c < width; ++c) {
                    const int64_t i = walker.best(c)[j];
                    vals[c] = base[i * s.stride + c];
                    job.out_idx.set(at + c, i);
                }
            }
        }
    });
}

// "column-split": the axis cut into parts (one per thread, at least two), each walked over
// every column (its k best per column), then each sequence's candidates merged. The parts'
// boundaries depend on the thread count, but each part's candidates hold its k best, so the
// merge of them is the sequence's k best whatever the boundaries.
template <class KeyT>
void topk_columns_split(const TopKJob<KeyT>& job, int threads) {
    using namespace columns_detail;
    using U = typename KeyT::type;
    const Sequences& s = job.seqs;
    const int64_t n = s.n, k = job.k, inner = s.inner, seqs = s.count();
    const int64_t parts = std::min<int64_t>(n, std::max(2, threads));
    std::vector<int64_t> offset(size_t(parts) + 1, 0);  // part r's first candidate
    for (int64_t r = 0; r < parts; ++r) {
        const int64_t rows = part_start(n, parts, r + 1) - part_start(n, parts, r);
        offset[size_t(r) + 1] = offset[size_t(r)] + std::min(k, rows);
    }
    const int64_t m = offset[size_t(parts)];  // candidates per sequence
    int shift = 0;
    while ((int64_t(1) << shift) < m) ++shift;
    if (n >= job.tune.column_split_max_n || m >= job.tune.column_split_max_candidates) {
        job.trace.mark(Path::topk_column_split_fallback);
        topk_columns(job, threads);  // a place would not fit beside an index (forced only)
        return;
    }
    job.trace.mark(Path::topk_column_split);
    // Sequence q's candidates from part r: cvals/cidx[q * m + offset[r] + j].
    std::vector<U> cvals(size_t(seqs * m));
    std::vector<int64_t> cidx(size_t(seqs * m));
    const int64_t panel = std::min(inner, job.tune.column_panel);
    const int64_t per_outer = ceil_div(inner, panel);
    const int64_t count = s.outer * per_outer;
    parallel_for(parts * count, threads, [&](int64_t t) {
        const int64_t r = t / count, p = t - r * count;
        const int64_t p0 = part_start(n, parts, r), rows = part_start(n, parts, r + 1) - p0;
        const int64_t kp = offset[size_t(r) + 1] - offset[size_t(r)];
        const int64_t o = p / per_outer;
        const int64_t c0 = (p - o * per_outer) * panel;
        const int64_t width = std::min(panel, inner - c0);
        const int64_t q0 = o * inner + c0;
        const U* base = job.seq(q0) + p0 * s.stride;
        Walker<KeyT> walker(job.tune, panel, kp, job.flip, rows);
        walker.walk(base, s.stride, rows, width, false);
        LocalTrace trace(job.trace);
        mark_paths(walker, kp, trace);
        for (int64_t c = 0; c < width; ++c) {
            const int64_t* best = walker.best(c);
            U* vals = cvals.data() + (q0 + c) * m + offset[size_t(r)];
            int64_t* where = cidx.data() + (q0 + c) * m + offset[size_t(r)];
            for (int64_t j = 0; j < kp; ++j) {
                vals[j] = base[best[j] * s.stride + c];
                where[j] = p0 + best[j];
            }
        }
    });
    // Each candidate's place rides in the low bits of its index while the k best are chosen:
    // n < 2^48 and m < 2^15, so the words keep the indices' order and never overflow.
    const int64_t low = (int64_t(1) << shift) - 1;
    const int64_t per = std::max<int64_t>(1, ceil_div(seqs, int64_t(std::max(1, threads)) * 4));
    parallel_for(ceil_div(seqs, per), threads, [&](int64_t t) {
        std::vector<U> keys(static_cast<size_t>(m));
        std::vector<int64_t> words(static_cast<size_t>(m));
        for (int64_t q = t * per; q < std::min(seqs, (t + 1) * per); ++q) {
            const U* vals = cvals.data() + q * m;
            const int64_t* where = cidx.data() + q * m;
            for (int64_t j = 0; j < m; ++j) {
                keys[size_t(j)] = job.key(vals[j]);
                words[size_t(j)] = (where[j] << shift) | j;
            }
            finish_best(keys.data(), words.data(), m, k, job.sorted);
            for (int64_t j = 0; j < k; ++j) {
                const int64_t w = words[size_t(j)];
                const int64_t at = job.out_at(q, j);
                job.out_vals[at] = vals[w & low];
                job.out_idx.set(at, w >> shift);
            }
        }
    });
}

}  // namespace AXISOPS_ISA_NS
}  // namespace axisops
