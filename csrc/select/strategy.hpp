// What the selection family's entry points share: the choice between rows (each sequence
// whole, sequences in tasks) and split (one sequence by parts across the threads), the key
// type's dispatch, the next row to prefetch. Every choice gives the same bits.
#pragma once

#include "common/isa.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>

#include "common/keys.hpp"
#include "common/tuning.hpp"
#include "select/rows.hpp"

namespace axisops {
namespace AXISOPS_ISA_NS {
namespace select_detail {

// The tuning's select_split_min: a sequence at least this long is cut across threads when
// there are fewer sequences than threads (each part of a selection then still reads 64K
// elements or more by default); tile_max: a longer one always is (one after another),
// never copied into a tile whole; select_part: the parts of a split selection, long
// enough that a part's setup is noise, short enough that the threads finish together.
inline bool splits(const Tuning& t, const Sequences& s, int threads) {
    return s.n > t.tile_max || (s.n >= t.select_split_min && s.count() < threads);
}

// The strategy: the forced one, if any (tests), except that a sequence too long for a tile
// is always split.
inline std::string chosen(const Tuning& t, const std::string& forced, const Sequences& s,
                          int threads, const char* op) {
    if (forced.empty() || (forced == "rows" && s.n > t.tile_max))
        return splits(t, s, threads) ? "split" : "rows";
    if (forced == "rows" || forced == "split" || (forced == "radix" && op[0] == 'k'))
        return forced;
    throw std::invalid_argument(std::string("axisops._core: unknown ") + op + " strategy '" +
                                forced + "'");
}

template <class F>
void dispatch(const View& x, Kind kind, F&& f) {
    if (!with_key(x.itemsize, kind, f))
        throw std::invalid_argument("axisops._core: unsupported key type");
}

// The next sequence of a task, to prefetch while this one is worked on (when it is one
// unit-stride run).
template <class U>
Ahead next_row(const Sequences& s, int64_t q, int64_t q1) {
    if (q + 1 >= q1 || s.stride != 1) return Ahead();
    return Ahead(s.at<U>(q + 1), s.n * int64_t(sizeof(U)));
}

}  // namespace select_detail
}  // namespace AXISOPS_ISA_NS
}  // namespace axisops
