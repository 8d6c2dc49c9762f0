// A top-k request as the bindings hand it over.
#pragma once

#include <cstdint>
#include <string>

#include "common/kind.hpp"
#include "common/tuning.hpp"
#include "common/view.hpp"

namespace axisops {

// What the bindings pass in: a validated request (0 <= k <= n, every output non-empty).
struct TopKRequest {
    View x;              // the input's raw bits (itemsize 1, 2, 4 or 8)
    Kind kind = Kind::Unsigned;
    int axis = 0;
    int64_t k = 0;
    bool largest = true;
    bool sorted = true;
    void* values = nullptr;     // C-ordered (outer, k, inner) raw bits of the input's width
    int64_t* indices = nullptr;  // C-ordered (outer, k, inner) ...
    int32_t* indices32 = nullptr;  // ... or these, when the caller asks for int32 indices
    int threads = 1;
    std::string strategy;  // "" chooses; tests force one by name
    int64_t segment = 0;   // 0 chooses; tests force a scan segment length
    Tuning tune = current_tuning();
};

// The strategies (exported to Python as TOPK_STRATEGIES; topk/driver.cpp runs them).
inline const char* const TOPK_STRATEGIES[] = {"insert", "scan",         "radix", "select",
                                             "columns", "split", "column-split"};

// Runs `req`; throws std::invalid_argument for an unknown strategy name.
void topk(const TopKRequest& req);

// The strategy `topk` chooses for `req` (for tests and `axisops info`).
std::string topk_strategy(const TopKRequest& req);

}  // namespace axisops
