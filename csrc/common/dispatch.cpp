#include "common/dispatch.hpp"

#include <algorithm>
#include <atomic>
#include <iterator>
#include <stdexcept>

#include "common/cpu.hpp"

namespace axisops {

// Each level's table (common/level.cpp, compiled per level); CMakeLists.txt defines
// AXISOPS_LEVEL_<name> for the levels it builds.
#define AXISOPS_LEVEL_TABLE(ns) \
    namespace ns {              \
    extern const Kernels kernels; \
    }
#ifdef AXISOPS_LEVEL_BASELINE
AXISOPS_LEVEL_TABLE(baseline)
#endif
#ifdef AXISOPS_LEVEL_AVX2
AXISOPS_LEVEL_TABLE(avx2)
#endif
#ifdef AXISOPS_LEVEL_AVX512
AXISOPS_LEVEL_TABLE(avx512)
#endif

namespace {

// The tables, lowest level first: a plain array, which no static destructor frees while a
// thread the interpreter leaves running at exit (a daemon thread, a pool worker) still
// reads it.
const Kernels* const TABLES[] = {
#ifdef AXISOPS_LEVEL_BASELINE
    &baseline::kernels,
#endif
#ifdef AXISOPS_LEVEL_AVX2
    &avx2::kernels,
#endif
#ifdef AXISOPS_LEVEL_AVX512
    &avx512::kernels,
#endif
};

struct Tables {
    const Kernels* const* begin() const { return std::begin(TABLES); }
    const Kernels* const* end() const { return std::end(TABLES); }
    const Kernels* front() const { return TABLES[0]; }
};

Tables tables() { return {}; }

// The best level built that this CPU runs.
const Kernels* best() {
    const std::vector<std::string> runs = cpu_levels();
    const Kernels* found = tables().front();
    for (const Kernels* t : tables())
        if (std::find(runs.begin(), runs.end(), t->level) != runs.end()) found = t;
    return found;
}

std::atomic<const Kernels*> active{nullptr};

}  // namespace

std::vector<std::string> built_levels() {
    std::vector<std::string> out;
    for (const Kernels* t : tables()) out.emplace_back(t->level);
    return out;
}

const Kernels& kernels() {
    const Kernels* k = active.load(std::memory_order_acquire);
    if (k == nullptr) {
        k = best();
        active.store(k, std::memory_order_release);
    }
    return *k;
}

std::string use_level(const std::string& level) {
    const std::vector<std::string> runs = cpu_levels();
    for (const Kernels* t : tables()) {
        if (level != t->level) continue;
        if (std::find(runs.begin(), runs.end(), level) == runs.end())
            throw std::invalid_argument("axisops._core: this CPU cannot run level '" + level + "'");
        const std::string before = kernels().level;
        active.store(t, std::memory_order_release);
        return before;
    }
    throw std::invalid_argument("axisops._core: level '" + level + "' is not built");
}

// The public entry points (topk/request.hpp, select/request.hpp, gather/request.hpp).
void topk(const TopKRequest& req) { kernels().topk(req); }
std::string topk_strategy(const TopKRequest& req) { return kernels().topk_strategy(req); }
void sort(const SortRequest& req) { kernels().sort(req); }
std::string sort_strategy(const SortRequest& req) { return kernels().sort_strategy(req); }
void kthvalue(const KthRequest& req) { kernels().kthvalue(req); }
std::string kthvalue_strategy(const KthRequest& req) { return kernels().kthvalue_strategy(req); }
void kth_many(const KthManyRequest& req) { kernels().kth_many(req); }
void partition(const PartitionRequest& req) { kernels().partition(req); }
std::string partition_strategy(const PartitionRequest& req) {
    return kernels().partition_strategy(req);
}
int64_t gather(const GatherRequest& req) { return kernels().gather(req); }

}  // namespace axisops
