#include "common/tuning.hpp"

#include <stdexcept>

namespace axisops {
namespace {

// The current tuning is an immutable snapshot behind an atomic pointer: a call copies it
// without a lock (nothing to hold across a fork), and a change publishes a new one. Old
// snapshots are never freed (a call may still be copying one); tests change the tuning a
// few hundred times at most.
std::atomic<const Tuning*> current{new Tuning()};
std::atomic<uint64_t> seen{0};

[[noreturn]] void refuse(const std::string& what) {
    throw std::invalid_argument("axisops._core: tuning " + what);
}

void check(const Tuning& t) {
#define AXISOPS_CHECK(name, value, least, most)                                       \
    if (t.name < int64_t(least) || t.name > int64_t(most))                            \
        refuse(#name " = " + std::to_string(t.name) + " is outside [" +               \
               std::to_string(int64_t(least)) + ", " + std::to_string(int64_t(most)) + "]");
    AXISOPS_TUNING(AXISOPS_CHECK)
#undef AXISOPS_CHECK
    // A small sequence is read into one chunk's buffer whole.
    if (t.kth_final > t.select_chunk) refuse("kth_final must be at most select_chunk");
    if (t.kth_sample_min > t.kth_sample_max) refuse("kth_sample_min must be at most kth_sample_max");
}

}  // namespace

Tuning current_tuning() { return *current.load(std::memory_order_acquire); }

void set_tuning(const Tuning& t) {
    check(t);
    current.store(new Tuning(t), std::memory_order_release);
}

std::vector<std::string> tuning_names() {
    return {
#define AXISOPS_NAME(name, value, least, most) #name,
        AXISOPS_TUNING(AXISOPS_NAME)
#undef AXISOPS_NAME
    };
}

std::vector<int64_t> tuning_values(const Tuning& t) {
    return {
#define AXISOPS_VALUE(name, value, least, most) t.name,
        AXISOPS_TUNING(AXISOPS_VALUE)
#undef AXISOPS_VALUE
    };
}

Tuning tuning_from(const std::vector<int64_t>& values) {
    if (values.size() != tuning_names().size()) refuse("needs one value per field");
    Tuning t;
    size_t at = 0;
#define AXISOPS_SET(name, value, least, most) t.name = values[at++];
    AXISOPS_TUNING(AXISOPS_SET)
#undef AXISOPS_SET
    return t;
}

std::vector<std::string> path_names() {
    return {
#define AXISOPS_PATH_NAME(name) #name,
        AXISOPS_PATHS(AXISOPS_PATH_NAME)
#undef AXISOPS_PATH_NAME
    };
}

Trace::~Trace() { seen.fetch_or(bits(), std::memory_order_relaxed); }

uint64_t paths_seen() { return seen.load(std::memory_order_relaxed); }

void reset_paths_seen() { seen.store(0, std::memory_order_relaxed); }

}  // namespace axisops
